package compile_test

import (
	gosql "database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// go test ./compile -run Golden -update rewrites compile/testdata/<name>.sql and <name>.rules,
// and the programs compile/testdata/program/<case>/program.sql.
var goldenUpdate = flag.Bool("update", false, "rewrite the golden files compile/testdata/*.sql, *.rules and program/*/program.sql from the schemas beside them")

// goldenDuck is an in-memory DuckDB for the golden, builder/file and injection tests (one
// connection, so that tables created in one statement are seen by the next).
var goldenDuck struct {
	once sync.Once
	db   *gosql.DB
	err  error
}

func goldenDB(t *testing.T) *gosql.DB {
	t.Helper()
	goldenDuck.once.Do(func() {
		db, err := gosql.Open("duckdb", "")
		if err == nil {
			db.SetMaxOpenConns(1)
			db.SetMaxIdleConns(1)
			err = db.Ping()
		}
		goldenDuck.db, goldenDuck.err = db, err
	})
	if goldenDuck.err != nil {
		t.Fatalf("open DuckDB: %v", goldenDuck.err)
	}
	return goldenDuck.db
}

// goldenSchemaFiles lists the example schemas: compile/testdata/*.yaml and *.json (the schemas
// under testdata/parents are only extended).
func goldenSchemaFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"*.yaml", "*.json"} {
		m, err := filepath.Glob(filepath.Join("testdata", pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	return files
}

func goldenName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

func TestGolden(t *testing.T) {
	files := goldenSchemaFiles(t)
	if len(files) < 8 {
		t.Fatalf("found %d example schemas in testdata, want at least 8", len(files))
	}
	seen := map[string]string{}
	nJSON := 0
	for _, f := range files {
		name := goldenName(f)
		if prev, ok := seen[name]; ok {
			t.Fatalf("%s and %s would share the golden %s.sql", prev, f, name)
		}
		seen[name] = f
		if filepath.Ext(f) == ".json" {
			nJSON++
		}
	}
	if nJSON == 0 {
		t.Fatal("no JSON example schema in testdata")
	}
	for _, f := range files {
		t.Run(goldenName(f), func(t *testing.T) {
			s, err := schema.LoadFile(f)
			if err != nil {
				t.Fatalf("load %s: %v", f, err)
			}
			p, err := compileShared(s)
			if err != nil {
				t.Fatalf("compile %s: %v", f, err)
			}
			got := p.Explain()
			goldenCompare(t, filepath.Join("testdata", goldenName(f)+".sql"), got)
			// Severities and check names do not show in the SQL: a second golden lists them.
			goldenCompare(t, filepath.Join("testdata", goldenName(f)+".rules"), goldenRules(p))
			goldenPrograms(t, goldenName(f), p)
			goldenSingleStatement(t, got)
			goldenRun(t, p)
		})
	}
}

// goldenCompare compares got with the golden file, or rewrites the file with -update.
func goldenCompare(t *testing.T, golden, got string) {
	t.Helper()
	if *goldenUpdate {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("the compiled plan differs from %s (run with -update if the change is intended)\n%s", golden, goldenFirstDiff(string(want), got))
	}
}

// goldenRules lists the plan's rules in order: severity, check name, rule name and kind.
func goldenRules(p *compile.Plan) string {
	var b strings.Builder
	for _, r := range p.Rules {
		b.WriteString(string(r.Severity) + "\t" + r.Check + "\t" + r.Name + "\t" + r.Kind + "\n")
	}
	return b.String()
}

// goldenFirstDiff shows the first line where two texts differ.
func goldenFirstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g + "\n--- got in full:\n" + got
		}
	}
	return got
}

// goldenSingleStatement asks DuckDB's parser how many statements the text holds.
func goldenSingleStatement(t *testing.T, text string) {
	t.Helper()
	var tree string
	if err := goldenDB(t).QueryRow("SELECT CAST(json_serialize_sql(?::VARCHAR) AS VARCHAR)", text).Scan(&tree); err != nil {
		t.Fatalf("parse the compiled SQL: %v", err)
	}
	var parsed struct {
		Error      bool              `json:"error"`
		Msg        string            `json:"error_message"`
		Statements []json.RawMessage `json:"statements"`
	}
	if err := json.Unmarshal([]byte(tree), &parsed); err != nil {
		t.Fatal(err)
	}
	if parsed.Error || len(parsed.Statements) != 1 {
		t.Fatalf("the compiled SQL is not exactly one statement (error %v %s, %d statements)\n%s", parsed.Error, parsed.Msg, len(parsed.Statements), text)
	}
}

// goldenTableDDL is the column list of an input table whose types are the schema's dtypes.
func goldenTableDDL(p *compile.Plan) string {
	cols := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		cols[i] = sql.Ident(c.Name) + " " + c.DType.DuckDBType()
	}
	return strings.Join(cols, ", ")
}

// goldenRun executes the plan query on a real DuckDB over a table of the schema's column types:
// empty, then with one all-NULL row. The result must have the schema's columns, the row ordinal
// and one non-NULL BOOLEAN column per rule, named by the rule.
func goldenRun(t *testing.T, p *compile.Plan) {
	t.Helper()
	db := goldenDB(t)
	if _, err := db.Exec("CREATE OR REPLACE TABLE t (" + goldenTableDDL(p) + ")"); err != nil {
		t.Fatalf("create input table: %v", err)
	}
	q := p.Query(compile.Relation{From: "t", RowID: "rowid"})
	samples := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		samples[i] = goldenSample(c.DType)
	}
	for _, n := range []int{0, 1, 3} {
		switch n {
		case 1:
			if _, err := db.Exec("INSERT INTO t DEFAULT VALUES"); err != nil {
				t.Fatalf("insert a NULL row: %v", err)
			}
		case 3:
			// Two equal rows of values: every rule evaluates on real values, and the keyed rules
			// find failing keys to join back.
			row := "(" + strings.Join(samples, ", ") + ")"
			if _, err := db.Exec("INSERT INTO t VALUES " + row + ", " + row); err != nil {
				t.Fatalf("insert sample rows: %v", err)
			}
		}
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("DuckDB rejects the compiled query: %v\n%s", err, q)
		}
		types, err := rows.ColumnTypes()
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, c := range p.Columns {
			want = append(want, c.Name)
		}
		want = append(want, compile.RowIDColumn)
		for _, r := range p.Rules {
			want = append(want, r.Name)
		}
		var got []string
		for i, ct := range types {
			got = append(got, ct.Name())
			if i > len(p.Columns) && ct.DatabaseTypeName() != "BOOLEAN" {
				t.Errorf("rule column %q is %s, want BOOLEAN", ct.Name(), ct.DatabaseTypeName())
			}
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("query columns = %q, want %q", got, want)
		}
		count := 0
		for rows.Next() {
			count++
			vals := make([]any, len(types))
			ptrs := make([]any, len(types))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i := len(p.Columns) + 1; i < len(vals); i++ {
				if _, ok := vals[i].(bool); !ok {
					t.Errorf("rule column %q = %#v, want a boolean", types[i].Name(), vals[i])
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("run the compiled query: %v\n%s", err, q)
		}
		rows.Close()
		if count != n {
			t.Errorf("the query returned %d rows for %d input rows", count, n)
		}
		goldenStagedAgrees(t, db, p)
	}
}

// goldenStagedAgrees runs the plan's Stages on table t and checks that Failing over the suspects
// selects exactly the rows (and rule values) of the plan query that fail some rule, with string
// rules filtering on their own and, as for columns stored without a dictionary, in the fetch.
func goldenStagedAgrees(t *testing.T, db *gosql.DB, p *compile.Plan) {
	t.Helper()
	plain := map[string]bool{}
	for _, c := range p.Columns {
		plain[c.Name] = true
	}
	for _, rel := range []compile.Relation{
		{From: "t", RowID: "rowid"},
		{From: "t", RowID: "rowid", PlainColumns: plain},
	} {
		goldenStagesAgree(t, db, p, rel)
	}
}

func goldenStagesAgree(t *testing.T, db *gosql.DB, p *compile.Plan, rel compile.Relation) {
	t.Helper()
	keyTable := func(g int) string { return fmt.Sprintf("golden_keys%d", g) }
	st := p.Stages(rel, keyTable)
	if rel.PlainColumns != nil && strings.Contains(st.Suspects, " WHERE ") {
		t.Errorf("with every column plain, the suspects are only key matches:\n%s", st.Suspects)
	}
	stmts := []string{}
	for _, k := range st.Keys {
		stmts = append(stmts, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS %s", k.Table, k.Query))
	}
	if st.Suspects != "" {
		stmts = append(stmts, "CREATE OR REPLACE TEMP TABLE golden_suspects AS "+st.Suspects)
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("DuckDB rejects a stage: %v\n%s", err, q)
		}
	}
	staged := p.Failing(rel, keyTable, st.Where(compile.SuspectsIn("golden_suspects")))
	single := "SELECT * FROM (" + p.Query(rel) + ") WHERE NOT " + p.ValidExpr(false)
	for _, pair := range [][2]string{{staged, single}, {single, staged}} {
		var extra int
		q := fmt.Sprintf("SELECT count(*) FROM ((%s) EXCEPT ALL (%s))", pair[0], pair[1])
		if err := db.QueryRow(q).Scan(&extra); err != nil {
			t.Fatalf("compare staged and single evaluation: %v\n%s", err, q)
		}
		if extra != 0 {
			t.Errorf("staged and single evaluation differ by %d rows:\n%s", extra, q)
		}
	}
}

// goldenSample is a SQL value of the dtype (the same for every call), for rows that make every
// rule evaluate on real values.
func goldenSample(d schema.DType) string {
	var v string
	switch k := d.Kind; {
	case k == schema.KindAny:
		return "NULL"
	case k == schema.KindBool:
		v = "TRUE"
	case k.IsInteger(), k.IsFloat(), k == schema.KindDecimal:
		v = "1"
	case k == schema.KindString:
		v = "'abc'"
	case k == schema.KindBinary:
		v = "'\\x00abc'"
	case k == schema.KindDate:
		v = "'2021-03-01'"
	case k == schema.KindTime:
		v = "'12:00:00'"
	case k == schema.KindDatetime:
		v = "'2021-03-01 00:00:00'"
		if d.TimeZone != "" {
			v = "'2021-03-01 00:00:00+00'"
		}
	case k == schema.KindDuration:
		v = "INTERVAL 1 DAY"
	case k == schema.KindEnum:
		v = sql.String(d.Categories[0])
	case k == schema.KindList:
		v = "[" + goldenSample(d.Inner.DType) + ", NULL]"
	case k == schema.KindArray:
		v = goldenArray(goldenSample(d.Inner.DType), d.Shape)
	case k == schema.KindStruct:
		parts := make([]string, len(d.Fields))
		for i, f := range d.Fields {
			parts[i] = sql.String(f.Name) + ": " + goldenSample(f.DType)
		}
		v = "{" + strings.Join(parts, ", ") + "}"
	default:
		panic("goldenSample: no sample for " + d.String())
	}
	return "CAST(" + v + " AS " + d.DuckDBType() + ")"
}

func goldenArray(elem string, shape []int) string {
	if len(shape) == 0 {
		return elem
	}
	items := make([]string, shape[0])
	for i := range items {
		items[i] = goldenArray(elem, shape[1:])
	}
	return "[" + strings.Join(items, ", ") + "]"
}
