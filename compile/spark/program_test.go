package spark_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/schema"
)

// TestBind: parameters are replaced by typed literals only outside quoted text, identifiers and
// comments; a marker without a value or a value without a marker is refused.
func TestBind(t *testing.T) {
	for _, tc := range []struct {
		stmt string
		args []any
		want string
	}{
		{"SELECT element_at($1, k)", []any{[]int64{0, 5, -1}}, "SELECT element_at(CAST(array(0L, 5L, -1L) AS ARRAY<BIGINT>), k)"},
		{"SELECT $1, $1", []any{[]string{"1", "it's"}}, `SELECT CAST(array('1', 'it\'s') AS ARRAY<STRING>), CAST(array('1', 'it\'s') AS ARRAY<STRING>)`},
		{"SELECT '$1', `a$1``$1`, \"$1\\\"$1\", $1 -- $1\n/* $1 */", []any{int64(7)}, "SELECT '$1', `a$1``$1`, \"$1\\\"$1\", 7L -- $1\n/* $1 */"},
		{"SELECT $1", []any{[]int64{}}, "SELECT CAST(array() AS ARRAY<BIGINT>)"},
		{"SELECT 'ü', $1", []any{"ü'\\"}, `SELECT 'ü', 'ü\'\\'`},
	} {
		got, err := spark.Bind(tc.stmt, tc.args...)
		if err != nil || got != tc.want {
			t.Errorf("Bind(%q) = %q, %v; want %q", tc.stmt, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		stmt string
		args []any
	}{
		{"SELECT $2", []any{int64(1)}},
		{"SELECT '$1'", []any{int64(1)}},
		{"SELECT $1", []any{3.5}},
	} {
		if got, err := spark.Bind(tc.stmt, tc.args...); err == nil {
			t.Errorf("Bind(%q, %v) = %q, want an error", tc.stmt, tc.args, got)
		}
	}
}

// TestProgram: a plan rendered in Spark SQL builds Spark's program: every statement reads the
// cached rule columns, parameters are markers, the writes go to the output's directories, and no
// DuckDB-only statement is left.
func TestProgram(t *testing.T) {
	s := schema.New("S", schema.Int64("id").PrimaryKey(), schema.String("select").Regex("^[a-z]+$").Nullable())
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := spark.CompileContext(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	rel := compile.Relation{From: "__tg_input_3", RowID: spark.RowID, DenseRowIDs: true}
	out := compile.Output{TableFile: "/d/.t.parquet.tablegate-1-3-table.tmp", QuarantineFile: "/d/.t.parquet.tablegate-1-3-quarantine.tmp"}
	steps := prog.Spark().Program(rel, compile.Facts{Rows: 10, LastRowID: 9}, compile.ProgramOptions{ID: 3, Samples: 5, RowSample: 2,
		Checks: [][]int{{0, 1}}, Sink: compile.ToParquet, Output: out}).Steps()
	ops := map[compile.Op]int{}
	for _, st := range steps {
		ops[st.Op]++
		for _, duck := range []string{"TEMP TABLE", "SET VARIABLE", "COPY ", "bitstring", "list_filter", "struct_pack", "::", "unnest"} {
			if strings.Contains(st.SQL, duck) {
				t.Errorf("step %q has DuckDB's %q: %s", st.What, duck, st.SQL)
			}
		}
	}
	want := map[compile.Op]int{compile.Exec: 1, compile.CountAll: 1, compile.RuleCounts: 1, compile.SamplePicks: 1, compile.SampleRows: 1,
		compile.CheckCounts: 1, compile.InvalidByRules: 1, compile.InvalidSample: 1, compile.ValidSample: 1,
		compile.WriteValid: 2, compile.WriteInvalid: 1, compile.Cleanup: 1}
	for op, n := range want {
		if ops[op] != n {
			t.Errorf("%d steps %q, want %d", ops[op], op, n)
		}
	}
	// The program counts the rows from its cached rows: no probe scans the input to count them.
	for _, st := range prog.Spark().Probes(rel) {
		if st.Op == compile.CountRows {
			t.Errorf("a probe counts the input's rows: %s", st.SQL)
		}
	}
	first, last := steps[0], steps[len(steps)-1]
	if !strings.HasPrefix(first.SQL, "CACHE TABLE `__tg_flagged_3` AS") || last.SQL != "UNCACHE TABLE IF EXISTS `__tg_flagged_3`" {
		t.Errorf("first %q, last %q", first.SQL, last.SQL)
	}
	for _, st := range steps {
		switch st.Op {
		case compile.WriteValid:
			if !strings.HasPrefix(st.SQL, "INSERT OVERWRITE DIRECTORY 'file://"+out.TableFile+"' USING parquet SELECT `id`, `select` FROM") {
				t.Errorf("valid rows: %s", st.SQL)
			}
			// With no invalid row every row is written (rows failing only error rules within
			// their tolerances among them); else the rows passing every error rule.
			if filtered := strings.Contains(st.SQL, " WHERE "); filtered != (st.When&compile.AnyInvalid != 0) || (st.When&(compile.AnyInvalid|compile.NoInvalid) == 0) {
				t.Errorf("valid rows when %s: %s", st.When, st.SQL)
			}
		case compile.WriteInvalid:
			if !strings.Contains(st.SQL, "'file://"+out.QuarantineFile+"'") {
				t.Errorf("invalid rows: %s", st.SQL)
			}
		case compile.SamplePicks, compile.SampleRows:
			if _, err := spark.Bind(st.SQL, []int64{1, 2}); st.Op == compile.SamplePicks && err != nil {
				t.Errorf("%s: %v", st.SQL, err)
			}
		}
	}
}

// TestProgramKeyCopy: with two key groups, the program caches the columns they read once and
// their aggregates read that copy, so that only it and the cached rule columns read the input;
// the copy is freed once the rule columns are cached, and again in the cleanup. With one key
// group there is no copy.
func TestProgramKeyCopy(t *testing.T) {
	s := schema.New("S", schema.Int64("id").PrimaryKey(), schema.Int64("customer").Nullable(), schema.String("note").Nullable()).
		AddSparkRule("few_orders", "count(*) < 1000", "count(*) < 1000", "customer")
	prog, err := spark.CompileContext(context.Background(), mustCompile(t, s))
	if err != nil {
		t.Fatal(err)
	}
	rel := compile.Relation{From: "__tg_input_3", RowID: spark.RowID, DenseRowIDs: true}
	out := compile.Output{TableFile: "/d/t", QuarantineFile: "/d/q"}
	steps := prog.Spark().Program(rel, compile.Facts{Rows: 10, LastRowID: 9}, compile.ProgramOptions{ID: 3, Sink: compile.ToParquet, Output: out}).Steps()
	const keyCopy = "`__tg_keycols_3`"
	if want := "CACHE TABLE " + keyCopy + " AS SELECT `id`, `customer` FROM __tg_input_3"; steps[0].SQL != want {
		t.Errorf("first step %q, want %q", steps[0].SQL, want)
	}
	if !strings.HasPrefix(steps[1].SQL, "CACHE TABLE `__tg_flagged_3` AS") || strings.Count(steps[1].SQL, "FROM "+keyCopy) != 2 {
		t.Errorf("the rule columns' key aggregates do not both read the copy: %s", steps[1].SQL)
	}
	if steps[2].SQL != "UNCACHE TABLE IF EXISTS "+keyCopy || steps[len(steps)-1].SQL != steps[2].SQL {
		t.Errorf("the copy is not freed after the rule columns and in the cleanup: %q, %q", steps[2].SQL, steps[len(steps)-1].SQL)
	}
	reads := 0
	for _, st := range steps {
		reads += strings.Count(st.SQL, "__tg_input_3")
	}
	if reads != 2 {
		t.Errorf("%d reads of the input, want 2 (the copy and the rule columns)", reads)
	}

	one, err := spark.CompileContext(context.Background(), mustCompile(t, schema.New("S", schema.Int64("id").PrimaryKey(), schema.String("note").Nullable())))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range one.Spark().Program(rel, compile.Facts{Rows: 10, LastRowID: 9}, compile.ProgramOptions{ID: 3, Sink: compile.ToParquet, Output: out}).Steps() {
		if strings.Contains(st.SQL, "__tg_keycols") {
			t.Errorf("one key group, yet a copy of key columns: %s", st.SQL)
		}
	}
}

func mustCompile(t *testing.T, s *schema.Schema) *compile.Plan {
	t.Helper()
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProgramCatalogTables: a catalog output's writes replace each table in one statement of
// the format, the run's properties left as parameters for the writer to bind, in input order.
func TestProgramCatalogTables(t *testing.T) {
	s := schema.New("S", schema.Int64("id").PrimaryKey(), schema.String("select").Regex("^[a-z]+$").Nullable())
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := spark.CompileContext(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	rel := compile.Relation{From: "__tg_input_3", RowID: spark.RowID, DenseRowIDs: true}
	for _, tc := range []struct {
		out         compile.Output
		table, quar string
	}{
		{compile.Output{Format: "delta", Catalog: "spark_catalog", Schema: "sales", Table: "or`ders", Quarantine: "q"},
			"CREATE OR REPLACE TABLE `spark_catalog`.`sales`.`or``ders` USING delta TBLPROPERTIES ('tablegate.run' = $1, 'tablegate.pair' = $2) AS SELECT `id`, `select` FROM",
			"CREATE OR REPLACE TABLE `spark_catalog`.`sales`.`q` USING delta TBLPROPERTIES ('tablegate.run' = $1, 'tablegate.pair' = $2) AS SELECT `id`, `select`, CASE"},
		{compile.Output{Format: "iceberg", Schema: "sales", Table: "orders", Quarantine: "orders_quarantine"},
			"CREATE OR REPLACE TABLE `sales`.`orders` USING iceberg TBLPROPERTIES",
			"CREATE OR REPLACE TABLE `sales`.`orders_quarantine` USING iceberg TBLPROPERTIES"},
	} {
		steps := prog.Spark().Program(rel, compile.Facts{Rows: 10, LastRowID: 9}, compile.ProgramOptions{ID: 3, Sink: compile.ToOutput, Output: tc.out}).Steps()
		var writes int
		for _, st := range steps {
			want := map[compile.Op]string{compile.WriteValid: tc.table, compile.WriteInvalid: tc.quar}[st.Op]
			if want == "" {
				continue
			}
			writes++
			if !strings.HasPrefix(st.SQL, want) || !strings.HasSuffix(st.SQL, "ORDER BY `__tg_rid`") {
				t.Errorf("%s: %s\nwant it to start %s and sort by the row ordinal", st.Op, st.SQL, want)
			}
			if got, err := spark.Bind(st.SQL, "20261202T150000.000000Z-ab", "none"); err != nil || !strings.Contains(got, "'tablegate.run' = '20261202T150000.000000Z-ab', 'tablegate.pair' = 'none'") {
				t.Errorf("bound: %v %s", err, got)
			}
		}
		if writes != 3 { // the valid rows when some row is invalid and when none is, the invalid rows
			t.Errorf("%d write steps, want 3", writes)
		}
	}
}
