package duckdb_test

import (
	"bytes"
	"context"
	gosql "database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// ordersSchema is the schema most tests run. Its rules, in rule order:
//
//	amount_small, primary_key, id|nullability, amount|nullability, amount|min, amount|inf,
//	amount|nan, note|max_length (warn)
func ordersSchema() *schema.Schema {
	return schema.New("Orders",
		schema.String("id").PrimaryKey(),
		schema.Float64("amount").Min(0),
		schema.String("note").Nullable().MaxLength(5).Severity(schema.Warn),
	).AddRule("amount_small", "amount < 1000")
}

// ruleChecks are the check names of ordersSchema at rule granularity, in order.
var ruleChecks = []string{
	"dy_rule__amount_small", "dy_rule__primary_key", "dy_rule__id__nullability",
	"dy_rule__amount__nullability", "dy_rule__amount__min", "dy_rule__amount__inf",
	"dy_rule__amount__nan", "dy_rule__note__max_length",
}

// Input rows of ordersSchema, as SQL VALUES (id, amount, note).
const (
	// every row valid; 'b' fails nothing either.
	allValidRows = `('a', 1.0, NULL), ('b', 2.5, 'ok')`
	// rows 2, 4, 5, 6, 8 are invalid (b, g, e, g, h); row 3 fails only the warn rule.
	//   b: amount|min   g(-2): amount|min + primary_key   e: amount_small   g(3): primary_key
	//   h: amount|min
	mixedRows = `('a', 1.0, NULL), ('b', -1.0, 'hi'), ('c', 2.0, 'toolong'), ('g', -2.0, 'x'), ` +
		`('e', 5000.0, NULL), ('g', 3.0, NULL), ('f', 4.0, NULL), ('h', -5.0, NULL)`
	// every row fails amount|min.
	allInvalidRows = `('x', -1.0, NULL), ('y', -2.0, 'z')`
	// exactly one invalid row.
	oneInvalidRows = `('a', 1.0, NULL), ('b', -1.0, NULL)`
	// only the warn rule fails.
	warnOnlyRows = `('a', 1.0, 'toolong'), ('b', 2.0, NULL)`
)

// ordersSelect is a SELECT of typed orders rows (id VARCHAR, amount DOUBLE, note VARCHAR).
func ordersSelect(values string) string {
	return "SELECT id::VARCHAR AS id, amount::DOUBLE AS amount, note::VARCHAR AS note FROM (VALUES " +
		values + ") AS t(id, amount, note)"
}

// emptySelect is ordersSelect with no rows.
func emptySelect() string { return ordersSelect(allValidRows) + " WHERE false" }

var (
	ordersColumns     = []string{"id VARCHAR", "amount DOUBLE", "note VARCHAR"}
	quarantineColumns = append(append([]string(nil), ordersColumns...),
		"dy_rule__amount_small VARCHAR", "dy_rule__primary_key VARCHAR", "dy_rule__id__nullability VARCHAR",
		"dy_rule__amount__nullability VARCHAR", "dy_rule__amount__min VARCHAR", "dy_rule__amount__inf VARCHAR",
		"dy_rule__amount__nan VARCHAR", "dy_rule__note__max_length VARCHAR")
)

// qrow is a quarantine row of ordersSchema: the three columns, then the failed rules' check
// names; every other rule column holds 'valid'.
func qrow(id string, amount float64, note any, failed ...string) []any {
	row := []any{id, amount, note}
	for _, c := range ruleChecks {
		v := "valid"
		for _, f := range failed {
			if "dy_rule__"+f == c {
				v = "invalid"
			}
		}
		row = append(row, v)
	}
	return row
}

// env is a test's scratch directory and a separate DuckDB (never the engine's) that prepares
// inputs and reads outputs back.
type env struct {
	t   *testing.T
	dir string
	db  *gosql.DB
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db, err := gosql.Open("duckdb", "")
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return &env{t: t, dir: t.TempDir(), db: db}
}

func (e *env) path(parts ...string) string {
	return filepath.Join(append([]string{e.dir}, parts...)...)
}

func (e *env) exec(stmts ...string) {
	e.t.Helper()
	for _, s := range stmts {
		_, err := e.db.Exec(s)
		require.NoError(e.t, err, s)
	}
}

func lit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// parquet writes the rows of a SELECT to a Parquet file and returns its path.
func (e *env) parquet(name, query string) string {
	e.t.Helper()
	p := e.path(name)
	require.NoError(e.t, os.MkdirAll(filepath.Dir(p), 0o755))
	e.exec(fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", query, lit(p)))
	return p
}

// withDB runs statements with the database file attached as d (created when missing), then
// detaches it so that the engine can open it.
func (e *env) withDB(file string, stmts ...string) {
	e.t.Helper()
	e.exec("ATTACH " + lit(file) + " AS d")
	defer e.exec("DETACH d")
	for _, s := range stmts {
		_, err := e.db.Exec(s)
		require.NoError(e.t, err, s)
	}
}

// table creates (or replaces) d.<name> in a database file from a SELECT.
func (e *env) table(file, name, query string) {
	e.t.Helper()
	e.withDB(file, fmt.Sprintf("CREATE OR REPLACE TABLE d.%s AS %s", name, query))
}

func (e *env) query(q string) [][]any {
	e.t.Helper()
	rows, err := e.db.Query(q)
	require.NoError(e.t, err, q)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(e.t, err)
	out := [][]any{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(e.t, rows.Scan(ptrs...))
		out = append(out, vals)
	}
	require.NoError(e.t, rows.Err())
	return out
}

// describe is "name TYPE" per column of a relation, in order.
func (e *env) describe(from string) []string {
	e.t.Helper()
	var out []string
	for _, r := range e.query("DESCRIBE SELECT * FROM " + from) {
		out = append(out, fmt.Sprintf("%v %v", r[0], r[1]))
	}
	return out
}

func (e *env) parquetRows(path string) [][]any {
	e.t.Helper()
	return e.query("SELECT * FROM read_parquet(" + lit(path) + ")")
}

func (e *env) parquetColumns(path string) []string {
	e.t.Helper()
	return e.describe("read_parquet(" + lit(path) + ")")
}

// tableRows reads a table of a database file in storage order; ok is false when it does not
// exist.
func (e *env) tableRows(file, qualified string) (rows [][]any, cols []string, ok bool) {
	e.t.Helper()
	if !exists(e.t, file) {
		return nil, nil, false
	}
	e.exec("ATTACH " + lit(file) + " AS r (READ_ONLY)")
	defer e.exec("DETACH r")
	parts := strings.SplitN(qualified, ".", 2)
	schemaName, name := "main", parts[0]
	if len(parts) == 2 {
		schemaName, name = parts[0], parts[1]
	}
	var n int
	require.NoError(e.t, e.db.QueryRow(
		"SELECT count(*) FROM information_schema.tables WHERE table_catalog = 'r' AND table_schema = ? AND table_name = ?",
		schemaName, name).Scan(&n))
	if n == 0 {
		return nil, nil, false
	}
	from := "r." + schemaName + "." + name
	return e.query("SELECT * FROM " + from), e.describe(from), true
}

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if os.IsNotExist(err) {
		return false
	}
	require.NoError(t, err)
	return true
}

// run compiles the schema and runs the asset on a fresh in-memory engine.
func run(t *testing.T, s *schema.Schema, a runner.Asset, opts runner.Options) (*outcome.Report, error) {
	t.Helper()
	return runWith(t, duckdb.Config{Threads: 2}, s, a, opts)
}

// runTraced is run with the engine's trace of whole statements, which it returns.
func runTraced(t *testing.T, s *schema.Schema, a runner.Asset, opts runner.Options) (*outcome.Report, string, error) {
	t.Helper()
	var trace bytes.Buffer
	rep, err := runWith(t, duckdb.Config{Threads: 2, Trace: &trace, TraceFull: true}, s, a, opts)
	return rep, trace.String(), err
}

func runWith(t *testing.T, cfg duckdb.Config, s *schema.Schema, a runner.Asset, opts runner.Options) (*outcome.Report, error) {
	t.Helper()
	p, err := compile.Compile(s)
	require.NoError(t, err)
	a.Plan = p
	eng, err := duckdb.Open(cfg)
	require.NoError(t, err)
	defer eng.Close()
	rep, err := eng.Run(context.Background(), a, opts)
	require.NotNil(t, rep, "Run always returns a report")
	return rep, err
}

// chk is the part of a check every outcome test asserts exactly.
type chk struct {
	Name     string
	Passed   bool
	Severity outcome.Severity
	Blocking bool
}

func summary(rep *outcome.Report) []chk {
	out := []chk{}
	for _, c := range rep.Checks {
		out = append(out, chk{c.Name, c.Passed, c.Severity, c.Blocking})
	}
	return out
}

// jsonValue round-trips a value through JSON, as a report consumer sees it.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(data, &out))
	return out
}

// parseJSON parses a JSON literal of an expectation.
func parseJSON(t *testing.T, s string) any {
	t.Helper()
	var out any
	require.NoError(t, json.Unmarshal([]byte(s), &out), s)
	return out
}

// metadata is a check's dataframely/* metadata as the JSON report has it.
func metadata(t *testing.T, rep *outcome.Report, name string) map[string]any {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			m, _ := jsonValue(t, c).(map[string]any)["metadata"].(map[string]any)
			require.NotNil(t, m, "metadata of %s", name)
			return m
		}
	}
	t.Fatalf("no check %s in %v", name, summary(rep))
	return nil
}

func outcomeOf(rep *outcome.Report) outcome.Outcome {
	if rep.Outcome == nil {
		return ""
	}
	return *rep.Outcome
}
