package duckdb_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestPublishByCopy: a Parquet run that removes no row publishes the input file's bytes as its
// table exactly when the valid rows' COPY would write the same table (the input's columns, by
// its names, in its order, with its types, from one file), and writes the rows again otherwise.
// Either way the report, the table's rows and types, and the older quarantine kept as .prev
// are what they were; explain says which path the run takes, and the trace shows it took it.
func TestPublishByCopy(t *testing.T) {
	t.Parallel()
	nested := func() *schema.Schema {
		return schema.New("Nested",
			schema.Integer("select").PrimaryKey(),
			schema.String("group").Nullable(),
			schema.Struct("addr", schema.String("city").Nullable()).Nullable(),
			schema.List("tags", schema.String("tag").Nullable()).Nullable(),
			schema.Float64("x").Nullable().AllowNaN().AllowInf(),
		)
	}
	nestedRows := `SELECT * FROM (VALUES (1, 'Zoë', {'city': 'Genève'}, ['a', NULL], 'nan'::DOUBLE),
		(2, NULL, NULL, [], 'inf'::DOUBLE), (3, '', {'city': NULL}, NULL, NULL)) AS t("select", "group", addr, tags, x)`
	for _, c := range []struct {
		name   string
		schema func() *schema.Schema
		query  string // the input file's rows
		glob   bool   // the input named by a glob matching the one file
		opts   runner.Options
		copied bool
		// quarantined: a row is invalid, so that the input, which the program would publish
		// (explain shows the step), is not
		quarantined bool
		// out is the published table's rows when not the input's (nil: the input's).
		out [][]any
	}{
		{name: "every row valid", schema: ordersSchema, query: ordersSelect(allValidRows), copied: true},
		{name: "only a warn rule fails", schema: ordersSchema, query: ordersSelect(warnOnlyRows), copied: true},
		{name: "no rows", schema: ordersSchema, query: emptySelect(), copied: true},
		{name: "nested types, NaN, Unicode and reserved names", schema: nested, query: nestedRows, copied: true},
		{name: "key-value metadata is the input's", schema: ordersSchema, query: ordersSelect(allValidRows), copied: true},
		{name: "an undeclared column is dropped", schema: ordersSchema, query: "SELECT *, 7 AS extra FROM (" + ordersSelect(allValidRows) + ")",
			out: [][]any{{"a", 1.0, nil}, {"b", 2.5, "ok"}}},
		{name: "another column order", schema: ordersSchema, query: "SELECT amount, id, note FROM (" + ordersSelect(allValidRows) + ")",
			out: [][]any{{"a", 1.0, nil}, {"b", 2.5, "ok"}}},
		{name: "a cast column", schema: ordersSchema, query: "SELECT id, amount::INTEGER AS amount, note FROM (" + ordersSelect(allValidRows) + ")",
			opts: runner.Options{Cast: true}, out: [][]any{{"a", 1.0, nil}, {"b", 2.0, "ok"}}},
		{name: "a glob of one file", schema: ordersSchema, query: ordersSelect(allValidRows), glob: true},
		{name: "invalid rows", schema: ordersSchema, query: ordersSelect(oneInvalidRows), copied: true, quarantined: true, out: [][]any{{"a", 1.0, nil}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			in := e.path("in", "data.parquet")
			require.NoError(t, os.MkdirAll(filepath.Dir(in), 0o755))
			e.exec("COPY (" + c.query + ") TO " + lit(in) + " (FORMAT parquet, KV_METADATA {producer: 'upstream'})")
			input := runner.ParquetInput{Path: in}
			if c.glob {
				input.Path = e.path("in", "*.parquet")
			}
			out := runner.ParquetOutput{Path: e.path("out", "t.parquet")}
			// The previous pair: a table and a quarantine of one invalid row.
			prev := runner.Asset{Input: runner.ParquetInput{Path: e.parquet("prev.parquet", ordersSelect(oneInvalidRows))}, Output: out, Quarantine: true}
			if c.query == nestedRows {
				// A repeated key: two invalid rows.
				prev.Input = runner.ParquetInput{Path: e.parquet("prev.parquet", nestedRows+" UNION ALL SELECT 3, 'dup', NULL, NULL, NULL")}
			}
			prevRep, err := run(t, c.schema(), prev, runner.Options{})
			require.NoError(t, err, "%T %+v", err, prevRep.Error)
			quarantine := e.path("out", "t_quarantine.parquet")
			require.FileExists(t, quarantine)
			prevQuarantine, err := os.ReadFile(quarantine)
			require.NoError(t, err)

			a := runner.Asset{Input: input, Output: out, Quarantine: true}
			p, err := compile.Compile(c.schema())
			require.NoError(t, err)
			eng, err := duckdb.Open(duckdb.Config{Threads: 2})
			require.NoError(t, err)
			defer eng.Close()
			a.Plan = p
			text, err := eng.ExplainAsset(context.Background(), a, c.opts)
			require.NoError(t, err)
			assert.Equal(t, c.copied, strings.Contains(text, "publish by copying the input's bytes"), "explain:\n%s", text)
			assert.Contains(t, text, "COPY (SELECT s.", "the COPY of the valid rows stays for a run that removes rows")

			rep, trace, err := runTraced(t, c.schema(), a, c.opts)
			require.NoError(t, err)
			copied := c.copied && !c.quarantined
			assert.Equal(t, copied, strings.Contains(trace, "-- copy the input file "), "the traced run copied:\n%s", trace)
			assert.True(t, rep.Table.Written)
			assert.Equal(t, c.quarantined, rep.Quarantine.Written)

			inBytes, err := os.ReadFile(in)
			require.NoError(t, err)
			outBytes, err := os.ReadFile(out.Path)
			require.NoError(t, err)
			assert.Equal(t, copied, string(inBytes) == string(outBytes), "the table is the input's bytes")
			if c.out == nil {
				// As text: NaN is no value equal to itself.
				assert.Equal(t, fmt.Sprint(e.parquetRows(in)), fmt.Sprint(e.parquetRows(out.Path)), "the input's rows")
				assert.Equal(t, e.parquetColumns(in), e.parquetColumns(out.Path), "the input's columns and types")
			} else {
				assert.Equal(t, c.out, e.parquetRows(out.Path))
			}
			kv := e.query("SELECT count(*) FROM parquet_kv_metadata(" + lit(out.Path) + ")")
			assert.Equal(t, copied, kv[0][0] != int64(0), "a copy keeps the input's key-value metadata; a COPY writes none")

			// The older quarantine: kept as .prev when no row is quarantined, as before.
			if !c.quarantined {
				assert.NoFileExists(t, quarantine)
				kept, err := os.ReadFile(e.path("out", "t_quarantine.prev.parquet"))
				require.NoError(t, err)
				assert.Equal(t, prevQuarantine, kept)
				assert.Contains(t, strings.Join(rep.Warnings, "\n"), "is kept as")
			}
			entries, err := os.ReadDir(e.path("out"))
			require.NoError(t, err)
			for _, en := range entries {
				assert.NotContains(t, en.Name(), ".tmp", "no temporary left")
			}
			in2, err := os.ReadFile(in)
			require.NoError(t, err)
			assert.Equal(t, inBytes, in2, "the input is untouched")
			want := outcome.AllValid
			if c.quarantined {
				want = outcome.Quarantined
			}
			assert.Equal(t, want, *rep.Outcome)
		})
	}
}

// TestTableValidatedIntoItselfIsKept: a DuckDB table validated into itself with no row to
// remove is not rewritten (its constraints, which a CREATE TABLE AS would drop, are still
// there), its older quarantine is kept as <name>_prev as before; with a row to remove it is
// rewritten. A table written from another table is written as before.
func TestTableValidatedIntoItselfIsKept(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		rows   string
		other  bool // validated from another table of the file
		kept   bool
		result []string
	}{
		{name: "every row valid", rows: allValidRows, kept: true, result: []string{"a", "b"}},
		{name: "only a warn rule fails", rows: warnOnlyRows, kept: true, result: []string{"a", "b"}},
		{name: "an invalid row", rows: oneInvalidRows, result: []string{"a"}},
		{name: "from another table", rows: allValidRows, other: true, result: []string{"a", "b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			db := e.path("wh.duckdb")
			out := runner.TableOutput{File: db, Table: "orders"}
			_, err := run(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput{Path: e.parquet("prev.parquet", ordersSelect(oneInvalidRows))}, Output: out, Quarantine: true}, runner.Options{})
			require.NoError(t, err)
			// The table as a user made it: with a constraint.
			e.withDB(db, "DROP TABLE d.orders", "CREATE TABLE d.orders (id VARCHAR CHECK (id <> ''), amount DOUBLE, note VARCHAR)",
				"INSERT INTO d.orders "+ordersSelect(c.rows), "CREATE TABLE d.raw AS "+ordersSelect(c.rows))
			in := runner.TableInput{File: db, Table: "orders"}
			if c.other {
				in.Table = "raw"
			}
			rep, trace, err := runTraced(t, ordersSchema(), runner.Asset{Input: in, Output: out, Quarantine: true}, runner.Options{})
			require.NoError(t, err)
			assert.True(t, rep.Table.Written)
			assert.Equal(t, !c.kept, strings.Contains(trace, "CREATE OR REPLACE TABLE"), "the table is rewritten:\n%s", trace)
			assert.Equal(t, c.result, ids(e.tableRows(db, "orders")))
			e.exec("ATTACH " + lit(db) + " AS r (READ_ONLY)")
			checks := e.query("SELECT count(*) FROM duckdb_constraints() WHERE database_name = 'r' AND table_name = 'orders' AND constraint_type = 'CHECK'")
			e.exec("DETACH r")
			assert.Equal(t, c.kept, checks[0][0] == int64(1), "the table's own constraint")
			if c.rows != oneInvalidRows {
				assert.Equal(t, []string{"b"}, ids(e.tableRows(db, "orders_quarantine_prev")), "the older quarantine, kept")
				_, _, ok := e.tableRows(db, "orders_quarantine")
				assert.False(t, ok)
			}
		})
	}
}

// TestParquetValidatedIntoItselfIsCopied: an all-valid Parquet table validated into itself
// publishes a copy of its own bytes through the swap: the table is byte for byte what it was,
// and the older quarantine is kept as .prev.
func TestParquetValidatedIntoItselfIsCopied(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out := runner.ParquetOutput{Path: e.path("out", "t.parquet")}
	_, err := run(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput{Path: e.parquet("prev.parquet", ordersSelect(oneInvalidRows))}, Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	e.exec("COPY (" + ordersSelect(allValidRows) + ") TO " + lit(out.Path) + " (FORMAT parquet)")
	before, err := os.ReadFile(out.Path)
	require.NoError(t, err)

	rep, trace, err := runTraced(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput(out), Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	assert.Contains(t, trace, "-- copy the input file ")
	assert.True(t, rep.Table.Written)
	after, err := os.ReadFile(out.Path)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	assert.Equal(t, [][]any{{"b", -1.0, nil}}, e.query("SELECT id, amount, note FROM read_parquet("+lit(e.path("out", "t_quarantine.prev.parquet"))+")"))
	assert.NoFileExists(t, e.path("out", "t_quarantine.parquet"))
}
