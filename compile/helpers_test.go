package compile_test

import (
	"context"
	gosql "database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/compile/duckdbparser"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// One in-memory DuckDB (one connection) for every test of this package: opening DuckDB is the
// expensive part, tables are tiny and recreated per case.
var rtDuck struct {
	once sync.Once
	db   *gosql.DB
	err  error
}

func rtDB(t *testing.T) *gosql.DB {
	t.Helper()
	rtDuck.once.Do(func() {
		db, err := gosql.Open("duckdb", "")
		if err != nil {
			rtDuck.err = err
			return
		}
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		rtDuck.db = db
	})
	if rtDuck.err != nil {
		t.Fatalf("open DuckDB: %v", rtDuck.err)
	}
	return rtDuck.db
}

// data is an input table: its DuckDB column definitions and its rows (each the SQL inside one
// VALUES tuple), inserted in order so that rowid follows the order given here.
type rtData struct {
	name string // table name as SQL; "t" when empty
	cols string // e.g. `a FLOAT, b VARCHAR`
	rows []string
}

// rtResult is the plan query's output ordered by __tg_rid: per rule, one bool per row.
type rtResult struct {
	plan  *compile.Plan
	names []string          // rule columns in query order
	rules map[string][]bool // rule → per-row result
	cols  map[string][]any  // schema column → per-row value
	rids  []int64
	sql   string
}

// load (re)creates the input table.
func rtLoad(t *testing.T, d rtData) string {
	t.Helper()
	db := rtDB(t)
	name := d.name
	if name == "" {
		name = "t"
	}
	if _, err := db.Exec(fmt.Sprintf("CREATE OR REPLACE TABLE %s (%s)", name, d.cols)); err != nil {
		t.Fatalf("create table %s (%s): %v", name, d.cols, err)
	}
	if len(d.rows) > 0 {
		tuples := make([]string, len(d.rows))
		for i, r := range d.rows {
			tuples[i] = "(" + r + ")"
		}
		if _, err := db.Exec(fmt.Sprintf("INSERT INTO %s VALUES %s", name, strings.Join(tuples, ", "))); err != nil {
			t.Fatalf("insert into %s: %v", name, err)
		}
	}
	return name
}

// sharedParser is one parser of custom SQL for the package's tests, which pass it (CompileWith);
// importing its package registers DuckDB's parser for Compile too.
var sharedParser = sync.OnceValues(func() (compile.Parser, error) { return duckdbparser.Open() })

// compileShared is compile.Compile with the tests' shared parser.
func compileShared(s *schema.Schema) (*compile.Plan, error) {
	p, err := sharedParser()
	if err != nil {
		return nil, err
	}
	return compile.CompileWith(context.Background(), s, p)
}

// compileOK compiles a schema and fails the test on a declaration error.
func rtCompile(t *testing.T, s *schema.Schema) *compile.Plan {
	t.Helper()
	p, err := compileShared(s)
	if err != nil {
		t.Fatalf("compile %s: %v", s.Name, err)
	}
	return p
}

// evaluate compiles s, loads d and runs the plan query over it, ordered by __tg_rid.
func rtEval(t *testing.T, s *schema.Schema, d rtData) rtResult {
	t.Helper()
	p := rtCompile(t, s)
	name := rtLoad(t, d)
	q := p.Query(compile.Relation{From: name, RowID: "rowid"})
	res := rtResult{plan: p, rules: map[string][]bool{}, cols: map[string][]any{}, sql: q}
	// duckdb-go scans no TIMESTAMPTZ_NS: such columns come back as text.
	var asText []string
	for _, c := range p.Columns {
		if c.DType.DuckDBType() == "TIMESTAMPTZ_NS" {
			id := sql.Ident(c.Name)
			asText = append(asText, "CAST("+id+" AS VARCHAR) AS "+id)
		}
	}
	star := "*"
	if len(asText) > 0 {
		star = "* REPLACE (" + strings.Join(asText, ", ") + ")"
	}
	rows, err := rtDB(t).Query("SELECT " + star + " FROM (\n" + q + "\n) AS __q ORDER BY " + compile.RowIDColumn)
	if err != nil {
		t.Fatalf("run plan query: %v\n%s", err, q)
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	// Shape: the schema columns in schema order, the row ordinal, then one column per rule in
	// rule order, named by the rule.
	want := make([]string, 0, len(p.Columns)+1+len(p.Rules))
	for _, c := range p.Columns {
		want = append(want, c.Name)
	}
	want = append(want, compile.RowIDColumn)
	for _, r := range p.Rules {
		want = append(want, r.Name)
		res.names = append(res.names, r.Name)
	}
	if strings.Join(names, "\x00") != strings.Join(want, "\x00") {
		t.Fatalf("query columns = %q, want %q\n%s", names, want, q)
	}
	nc := len(p.Columns)
	for rows.Next() {
		vals := make([]any, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < nc; i++ {
			res.cols[names[i]] = append(res.cols[names[i]], vals[i])
		}
		rid, ok := vals[nc].(int64)
		if !ok {
			t.Fatalf("%s = %#v, want an int64", compile.RowIDColumn, vals[nc])
		}
		res.rids = append(res.rids, rid)
		for i := nc + 1; i < len(names); i++ {
			b, ok := vals[i].(bool)
			if !ok {
				// A rule column is never NULL: NULL counts as valid (COALESCE(…, TRUE)).
				t.Fatalf("rule %q = %#v in row %d, want a non-NULL boolean\n%s", names[i], vals[i], rid, q)
			}
			res.rules[names[i]] = append(res.rules[names[i]], b)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read plan query: %v\n%s", err, q)
	}
	if len(res.rids) != len(d.rows) {
		t.Fatalf("plan query returned %d rows, want %d (one per input row)\n%s", len(res.rids), len(d.rows), q)
	}
	for i, rid := range res.rids {
		if rid != int64(i) {
			t.Fatalf("row %d has %s %d, want %d (rowid of a fresh table)", i, compile.RowIDColumn, rid, i)
		}
	}
	return res
}

// bits renders per-row results as "TF.." for compact expectations.
func rtBits(v []bool) string {
	var b strings.Builder
	for _, x := range v {
		if x {
			b.WriteByte('T')
		} else {
			b.WriteByte('F')
		}
	}
	return b.String()
}

// expect asserts, per named rule, the per-row results written as a string of T (valid) and F
// (invalid), one letter per input row in input order.
func (r rtResult) expect(t *testing.T, want map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		got, ok := r.rules[k]
		if !ok {
			if len(r.rids) == 0 && len(want[k]) == 0 && rtContains(r.names, k) {
				continue
			}
			t.Errorf("no rule %q; rules are %q", k, r.names)
			continue
		}
		if rtBits(got) != want[k] {
			t.Errorf("%s = %s, want %s", k, rtBits(got), want[k])
		}
	}
	if t.Failed() {
		t.Logf("query:\n%s", r.sql)
	}
}

// expectRules asserts the complete rule list, in order.
func (r rtResult) expectRules(t *testing.T, want ...string) {
	t.Helper()
	if strings.Join(r.names, ", ") != strings.Join(want, ", ") {
		t.Errorf("rules = %q, want %q", r.names, want)
	}
}

func rtContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// rtCase is one table-driven case: a schema, its input and the expected per-row results.
type rtCase struct {
	name   string
	schema *schema.Schema
	data   rtData
	rules  []string          // when set, the exact rule list in order
	want   map[string]string // rule → "TF…"
}

func rtRun(t *testing.T, cases []rtCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := rtEval(t, tc.schema, tc.data)
			if tc.rules != nil {
				res.expectRules(t, tc.rules...)
			}
			res.expect(t, tc.want)
		})
	}
}

// one is a schema with a single column.
func rtOne(c *schema.Column) *schema.Schema { return schema.New("T", c) }
