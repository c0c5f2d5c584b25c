package main

import (
	"bytes"
	"context"
	gosql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// binary is the tablegate binary built once for the subprocess tests.
var (
	binary   string
	buildErr error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tablegate-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "tablegate")
	cmd := osexec.Command("go", "build", "-o", binary, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		buildErr = fmt.Errorf("go build: %v\n%s", err, out)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const ordersYAML = `schema: Orders
description: Orders from the shop.
columns:
  - name: id
    type: String
    primary_key: true
  - name: amount
    type: Float64
    min: 0
  - name: note
    type: String
    nullable: true
    max_length: 5
    severity: warn
rules:
  - name: amount_small
    sql: amount < 1000
`

// Input rows (id, amount, note) as SQL VALUES.
const (
	allValidRows = `('a', 1.0, NULL), ('b', 2.5, 'ok')`
	// invalid: b (amount|min), g -2 (amount|min, primary_key), e (amount_small), g 3 (primary_key),
	// h (amount|min); c fails only the warn rule.
	mixedRows = `('a', 1.0, NULL), ('b', -1.0, 'hi'), ('c', 2.0, 'toolong'), ('g', -2.0, 'x'), ` +
		`('e', 5000.0, NULL), ('g', 3.0, NULL), ('f', 4.0, NULL), ('h', -5.0, NULL)`
	allInvalidRows = `('x', -1.0, NULL), ('y', -2.0, 'z')`
)

func ordersSelect(values string) string {
	return "SELECT id::VARCHAR AS id, amount::DOUBLE AS amount, note::VARCHAR AS note FROM (VALUES " +
		values + ") AS t(id, amount, note)"
}

var (
	mixedValid = [][]any{{"a", 1.0, nil}, {"c", 2.0, "toolong"}, {"f", 4.0, nil}}
	reportKeys = []string{"asset", "schema", "outcome", "error", "rows", "table", "quarantine", "checks", "invalid_by_rules", "health", "tablegate_version", "duckdb_version", "run_id", "started_at", "duration_s"}
	ruleChecks = []string{
		"dy_rule__amount_small", "dy_rule__primary_key", "dy_rule__id__nullability",
		"dy_rule__amount__nullability", "dy_rule__amount__min", "dy_rule__amount__inf",
		"dy_rule__amount__nan", "dy_rule__note__max_length",
	}
)

// fixture is a test directory with the orders schema and a scratch DuckDB that prepares inputs
// and reads outputs back.
type fixture struct {
	t      *testing.T
	dir    string
	db     *gosql.DB
	schema string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db, err := gosql.Open("duckdb", "")
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	f := &fixture{t: t, dir: t.TempDir(), db: db}
	f.schema = f.write("orders.yaml", ordersYAML)
	return f
}

func (f *fixture) path(parts ...string) string {
	return filepath.Join(append([]string{f.dir}, parts...)...)
}

func (f *fixture) write(name, content string) string {
	f.t.Helper()
	p := f.path(name)
	require.NoError(f.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(f.t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func quoteLit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func (f *fixture) exec(stmts ...string) {
	f.t.Helper()
	for _, s := range stmts {
		_, err := f.db.Exec(s)
		require.NoError(f.t, err, s)
	}
}

func (f *fixture) parquet(name, query string) string {
	f.t.Helper()
	p := f.path(name)
	require.NoError(f.t, os.MkdirAll(filepath.Dir(p), 0o755))
	f.exec(fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", query, quoteLit(p)))
	return p
}

// withDB runs statements with a database file attached as d, then detaches it.
func (f *fixture) withDB(file string, stmts ...string) {
	f.t.Helper()
	f.exec("ATTACH " + quoteLit(file) + " AS d")
	defer f.exec("DETACH d")
	f.exec(stmts...)
}

func (f *fixture) query(q string) [][]any {
	f.t.Helper()
	rows, err := f.db.Query(q)
	require.NoError(f.t, err, q)
	defer rows.Close()
	cols, _ := rows.Columns()
	out := [][]any{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(f.t, rows.Scan(ptrs...))
		out = append(out, vals)
	}
	require.NoError(f.t, rows.Err())
	return out
}

// tableRows reads schema.table of a database file; ok is false when it does not exist.
func (f *fixture) tableRows(file, schemaName, table string) (rows [][]any, ok bool) {
	f.t.Helper()
	if _, err := os.Stat(file); err != nil {
		return nil, false
	}
	f.exec("ATTACH " + quoteLit(file) + " AS r (READ_ONLY)")
	defer f.exec("DETACH r")
	n := f.query(fmt.Sprintf("SELECT count(*) FROM information_schema.tables WHERE table_catalog = 'r' AND table_schema = '%s' AND table_name = '%s'", schemaName, table))
	if n[0][0].(int64) == 0 {
		return nil, false
	}
	return f.query(fmt.Sprintf("SELECT * FROM r.%s.%s", schemaName, table)), true
}

func (f *fixture) parquetRows(path string) [][]any {
	f.t.Helper()
	return f.query("SELECT * FROM read_parquet(" + quoteLit(path) + ")")
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// cli runs the command line in process.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// oneJSON parses stdout as exactly one JSON object.
func oneJSON(t *testing.T, stdout string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	var m map[string]any
	require.NoError(t, dec.Decode(&m), "stdout: %s", stdout)
	var extra any
	require.ErrorIs(t, dec.Decode(&extra), io.EOF, "stdout holds one JSON object")
	return m
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func checkNames(rep map[string]any) []string {
	var out []string
	for _, c := range rep["checks"].([]any) {
		out = append(out, c.(map[string]any)["name"].(string))
	}
	return out
}

func checkByName(t *testing.T, rep map[string]any, name string) map[string]any {
	t.Helper()
	for _, c := range rep["checks"].([]any) {
		if c.(map[string]any)["name"] == name {
			return c.(map[string]any)
		}
	}
	t.Fatalf("no check %s in %v", name, checkNames(rep))
	return nil
}

func errorOf(rep map[string]any) (typ, msg string) {
	e, ok := rep["error"].(map[string]any)
	if !ok {
		return "", ""
	}
	return e["type"].(string), e["message"].(string)
}

// TestValidateQuarantineJSON: a quarantined run with --format json and --report.
func TestValidateQuarantineJSON(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.parquet("raw.parquet", ordersSelect(mixedRows))
	out := f.path("out", "orders.parquet")
	reportFile := f.path("report.json")
	code, stdout, stderr := cli(t, "validate", "--schema", f.schema, "--input", in, "--out", out, "--quarantine",
		"--format", "json", "--report", reportFile)
	require.Equal(t, 0, code, stderr)
	rep := oneJSON(t, stdout)
	assert.ElementsMatch(t, reportKeys, keysOf(rep))
	assert.Equal(t, "orders", rep["asset"])
	assert.Equal(t, "Orders", rep["schema"])
	assert.Equal(t, "quarantined", rep["outcome"])
	assert.Nil(t, rep["error"])
	assert.Equal(t, map[string]any{"input": 8.0, "valid": 3.0, "invalid": 5.0}, rep["rows"])
	assert.Equal(t, map[string]any{"address": out, "written": true}, rep["table"])
	qAddr := f.path("out", "orders_quarantine.parquet")
	assert.Equal(t, map[string]any{"address": qAddr, "written": true, "rows": 5.0}, rep["quarantine"])
	assert.Equal(t, append([]string{"dy_schema__columns"}, ruleChecks...), checkNames(rep))
	for _, c := range rep["checks"].([]any) {
		c := c.(map[string]any)
		assert.ElementsMatch(t, []string{"name", "passed", "severity", "declared_severity", "blocking", "description", "result_description", "metadata"}, keysOf(c))
		assert.Equal(t, qAddr, c["metadata"].(map[string]any)["dataframely/error_rows_address"], c["name"])
		switch c["name"] {
		case "dy_schema__columns":
			assert.Equal(t, "ERROR", c["severity"])
			assert.Equal(t, true, c["blocking"])
		case "dy_rule__amount_small", "dy_rule__primary_key", "dy_rule__amount__min":
			// Failed error rules fail at ERROR with a quarantine too; they do not block.
			assert.Equal(t, "ERROR", c["severity"], c["name"])
			assert.Equal(t, false, c["blocking"], c["name"])
		default:
			assert.Equal(t, "WARN", c["severity"], c["name"])
			assert.Equal(t, false, c["blocking"], c["name"])
		}
	}
	var sets []any
	require.NoError(t, json.Unmarshal([]byte(`[
		{"rules": "dy_rule__amount__min", "count": 2},
		{"rules": "dy_rule__amount__min, dy_rule__primary_key", "count": 1},
		{"rules": "dy_rule__amount_small", "count": 1},
		{"rules": "dy_rule__primary_key", "count": 1}]`), &sets))
	assert.Equal(t, sets, rep["invalid_by_rules"])
	assert.Equal(t, "Degraded", rep["health"])

	data, err := os.ReadFile(reportFile)
	require.NoError(t, err)
	assert.Equal(t, stdout, string(data), "--report writes the same JSON")

	assert.Equal(t, mixedValid, f.parquetRows(out))
	assert.Len(t, f.parquetRows(qAddr), 5)
}

// TestValidateOutcomesAndExitCodes: exit 0 for runs that succeed, 1 when the data failed, 2 for
// usage and input errors, 3 for a column mismatch.
func TestValidateOutcomesAndExitCodes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mixed := f.parquet("mixed.parquet", ordersSelect(mixedRows))
	valid := f.parquet("valid.parquet", ordersSelect(allValidRows))
	invalid := f.parquet("invalid.parquet", ordersSelect(allInvalidRows))
	noNote := f.parquet("nonote.parquet", "SELECT id, amount FROM ("+ordersSelect(allValidRows)+")")
	badSchema := f.write("bad.yaml", "schema: Bad\ncolumns:\n  - name: amount\n    type: Float64\n    minimum: 0\n")

	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		outcome  any // nil for JSON null
		errType  string
		errStart string
		table    bool
		quar     bool
	}{
		{name: "all_valid", args: []string{"--input", valid, "--out", "OUT"}, outcome: "all_valid", table: true},
		{name: "aborted", args: []string{"--input", mixed, "--out", "OUT"}, code: 1, outcome: "aborted",
			errType: "ValidationAbortError", errStart: "5 rows failed Orders validation, 1 by 'amount_small', 2 by 'primary_key', 3 by 'amount|min'. Nothing was written"},
		{name: "in_place", args: []string{"--input", mixed}, code: 1, outcome: "aborted", errType: "ValidationAbortError"},
		{name: "in_place_valid", args: []string{"--input", valid}, outcome: "all_valid"},
		{name: "memory_limit", args: []string{"--input", valid, "--out", "OUT", "--memory-limit", "512MB"}, outcome: "all_valid", table: true},
		{name: "no_valid_rows", args: []string{"--input", invalid, "--out", "OUT", "--quarantine"}, code: 1, outcome: "no_valid_rows",
			errType: "NoValidRowsError", errStart: "All 2 rows failed Orders validation, 2 by 'amount|min'. The rows are in QUAR, with one column per rule.", quar: true},
		{name: "column_mismatch", args: []string{"--input", noNote, "--out", "OUT", "--quarantine"}, code: 3, outcome: "column_schema_mismatch",
			errType: "ColumnSchemaError", errStart: "Column 'note' (expected String, got <missing>) does not match Orders."},
		{name: "skip_missing", args: []string{"--input", f.path("nothing", "*.parquet"), "--out", "OUT", "--skip-missing"}, outcome: "skipped"},
		{name: "missing_input", args: []string{"--input", f.path("nothing", "*.parquet"), "--out", "OUT"}, code: 2, errType: "InputError"},
		{name: "missing_csv", args: []string{"--input", f.path("absent.csv")}, code: 2, errType: "InputError"},
		{name: "no_input", args: []string{"--out", "OUT"}, code: 2, errStart: "validate needs --input or --query"},
		{name: "input_and_query", args: []string{"--input", valid, "--query", "SELECT 1"}, code: 2},
		{name: "quarantine_without_out", args: []string{"--input", valid, "--quarantine"}, code: 2, errStart: "--quarantine needs --out"},
		{name: "bad_input_kind", args: []string{"--input", f.path("raw.xlsx")}, code: 2},
		{name: "bad_out_kind", args: []string{"--input", valid, "--out", f.path("out.csv")}, code: 2},
		{name: "bad_samples", args: []string{"--input", valid, "--samples", "-3"}, code: 2, errType: "SettingError"},
		{name: "bad_schema", args: []string{"--input", valid, "--schema", badSchema}, code: 2},
		{name: "unknown_flag", args: []string{"--input", valid, "--strict"}, code: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := f.path(tc.name, "orders.parquet")
			quar := f.path(tc.name, "orders_quarantine.parquet")
			args := []string{"validate", "--schema", f.schema}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "OUT", out))
			}
			// Text first, then JSON: the same exit status, and JSON always one object.
			code, stdout, stderr := cli(t, args...)
			assert.Equal(t, tc.code, code, "stdout %s\nstderr %s", stdout, stderr)
			if tc.code == 0 {
				assert.Empty(t, stderr)
			} else {
				assert.True(t, strings.HasPrefix(stderr, "tablegate: "), stderr)
			}
			if tc.errStart != "" {
				assert.Contains(t, stderr, strings.ReplaceAll(tc.errStart, "QUAR", quar))
			}
			if tc.outcome != nil {
				assert.Regexp(t, fmt.Sprintf(`(?m)^(PASS|WARN|FAIL) Orders: %s( —|$)`, tc.outcome), stdout)
			}
			assert.Equal(t, tc.table, fileExists(out), "table written")
			assert.Equal(t, tc.quar, fileExists(quar), "quarantine written")
			require.NoError(t, os.RemoveAll(f.path(tc.name)))

			code, stdout, stderr = cli(t, append(args, "--format", "json")...)
			assert.Equal(t, tc.code, code, stderr)
			rep := oneJSON(t, stdout)
			assert.ElementsMatch(t, reportKeys, keysOf(rep))
			assert.Equal(t, tc.outcome, rep["outcome"])
			typ, msg := errorOf(rep)
			if tc.code == 0 {
				assert.Nil(t, rep["error"])
			} else {
				require.NotNil(t, rep["error"])
				assert.NotEmpty(t, typ)
				assert.NotEmpty(t, msg)
				assert.Contains(t, stderr, msg, "the JSON error is the error printed")
			}
			if tc.errType != "" {
				assert.Equal(t, tc.errType, typ)
			}
			if tc.errStart != "" {
				assert.True(t, strings.HasPrefix(msg, strings.ReplaceAll(tc.errStart, "QUAR", quar)), msg)
			}
			assert.Equal(t, tc.table, fileExists(out), "table written")
			assert.Equal(t, tc.quar, fileExists(quar), "quarantine written")
		})
	}
}

// TestDecimalAndCast: a DuckDB DECIMAL(18,3) where Float64 is declared exits 3; --cast passes;
// --cast with a value that does not convert exits 1 and writes nothing.
func TestDecimalAndCast(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := f.path("wh.duckdb")
	f.withDB(db,
		"CREATE TABLE d.raw AS SELECT id, amount::DECIMAL(18,3) AS amount, note FROM ("+ordersSelect(mixedRows)+")",
		"CREATE TABLE d.strings AS SELECT * FROM (VALUES ('a', '1.5', NULL::VARCHAR), ('b', 'abc', NULL)) AS t(id, amount, note)",
	)
	code, stdout, stderr := cli(t, "validate", "--schema", f.schema, "--input", db+":raw", "--out", db+":orders", "--quarantine")
	assert.Equal(t, 3, code)
	assert.True(t, strings.HasPrefix(stderr, "tablegate: Column 'amount' (expected Float64, got DECIMAL(18,3)) does not match Orders. "+
		"Fix the table that produced it, or cast explicitly. tablegate never casts for you."), stderr)
	assert.Contains(t, stdout, "FAIL Orders: column_schema_mismatch\n")
	_, ok := f.tableRows(db, "main", "orders")
	assert.False(t, ok)

	code, stdout, stderr = cli(t, "validate", "--schema", f.schema, "--input", db+":raw", "--out", db+":orders", "--quarantine", "--cast", "--format", "json")
	require.Equal(t, 0, code, stderr)
	rep := oneJSON(t, stdout)
	assert.Equal(t, "quarantined", rep["outcome"])
	assert.Equal(t, map[string]any{"address": db + ":orders_quarantine", "written": true, "rows": 5.0}, rep["quarantine"])
	rows, ok := f.tableRows(db, "main", "orders")
	require.True(t, ok)
	assert.Equal(t, mixedValid, rows)
	// The cast leaves a trace: the report, the column check's result, the text and the page.
	assert.Equal(t, []any{map[string]any{"column": "amount", "from": "DECIMAL(18,3)", "to": "Float64", "cast": "lossy"}}, rep["cast_columns"])
	assert.Equal(t, "Every column matches after casting amount DECIMAL(18,3) to Float64 (lossy).",
		checkByName(t, rep, "dy_schema__columns")["result_description"])
	page := f.path("cast.html")
	code, stdout, stderr = cli(t, "validate", "--schema", f.schema, "--input", db+":raw", "--cast", "--html", page)
	require.Equal(t, 1, code, stderr)
	assert.Contains(t, stdout, "\n  cast: amount DECIMAL(18,3) to Float64 (lossy)\n")
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "<code>amount</code> DECIMAL(18,3) to Float64 (lossy)")
	// Without --cast, no trace.
	code, stdout, _ = cli(t, "validate", "--schema", f.schema, "--input", db+":raw", "--out", db+":orders", "--quarantine", "--format", "json")
	require.Equal(t, 3, code)
	assert.NotContains(t, oneJSON(t, stdout), "cast_columns")

	code, stdout, stderr = cli(t, "validate", "--schema", f.schema, "--input", db+":strings", "--out", db+":cast_out", "--cast", "--format", "json")
	assert.Equal(t, 1, code)
	rep = oneJSON(t, stdout)
	typ, msg := errorOf(rep)
	assert.Equal(t, "CastError", typ)
	assert.Equal(t, `Cannot cast column 'amount' to Float64: the value "abc" does not convert. Nothing was written. `+
		`Fix the value in the input, or change the declared dtype.`, msg)
	assert.Contains(t, stderr, msg)
	_, ok = f.tableRows(db, "main", "cast_out")
	assert.False(t, ok)
	_, ok = f.tableRows(db, "main", "cast_out_quarantine")
	assert.False(t, ok)

	// explain checks the types first.
	code, _, stderr = cli(t, "explain", "--schema", f.schema, "--input", db+":raw")
	assert.Equal(t, 3, code)
	assert.Contains(t, stderr, "Column 'amount' (expected Float64, got DECIMAL(18,3)) does not match Orders.")
}

// TestInputsAndAddresses: CSV, NDJSON, --query with --db, DBFILE.duckdb:schema.table in and out.
func TestInputsAndAddresses(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	csv := f.write("raw.csv", "id,amount,note\na,1.0,\nb,-1.0,hi\nc,2.0,toolong\ng,-2.0,x\ne,5000.0,\ng,3.0,\nf,4.0,\nh,-5.0,\n")
	var lines []string
	for _, r := range [][3]string{{"a", "1.0", "null"}, {"b", "-1.0", `"hi"`}, {"c", "2.0", `"toolong"`}, {"g", "-2.0", `"x"`},
		{"e", "5000.0", "null"}, {"g", "3.0", "null"}, {"f", "4.0", "null"}, {"h", "-5.0", "null"}} {
		lines = append(lines, `{"id": "`+r[0]+`", "amount": `+r[1]+`, "note": `+r[2]+`}`)
	}
	ndjson := f.write("raw.ndjson", strings.Join(lines, "\n")+"\n")
	src := f.path("src.duckdb")
	f.withDB(src,
		"CREATE SCHEMA d.staging",
		"CREATE TABLE d.staging.raw AS "+ordersSelect(mixedRows),
		"CREATE TABLE d.everything AS "+ordersSelect(mixedRows+", ('z', 1.0, NULL)"),
	)
	wh := f.path("wh.duckdb")

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"csv", []string{"--input", csv}},
		{"ndjson", []string{"--input", ndjson}},
		{"query", []string{"--query", "SELECT * FROM everything WHERE id <> 'z'", "--db", src}},
		{"schema_table", []string{"--input", src + ":staging.raw"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"validate", "--schema", f.schema, "--out", wh + ":clean." + tc.name, "--quarantine", "--format", "json"}, tc.args...)
			code, stdout, stderr := cli(t, args...)
			require.Equal(t, 0, code, stderr)
			rep := oneJSON(t, stdout)
			assert.Equal(t, "quarantined", rep["outcome"])
			assert.Equal(t, tc.name, rep["asset"])
			assert.Equal(t, map[string]any{"address": wh + ":clean." + tc.name, "written": true}, rep["table"])
			assert.Equal(t, map[string]any{"address": wh + ":clean." + tc.name + "_quarantine", "written": true, "rows": 5.0}, rep["quarantine"])
			rows, ok := f.tableRows(wh, "clean", tc.name)
			require.True(t, ok)
			assert.Equal(t, mixedValid, rows)
			rows, ok = f.tableRows(wh, "clean", tc.name+"_quarantine")
			require.True(t, ok)
			require.Len(t, rows, 5)
			assert.Equal(t, []any{"b", -1.0, "hi", "valid", "valid", "valid", "valid", "invalid", "valid", "valid", "valid"}, rows[0])
		})
	}

	// A query in the database the table goes to.
	f.withDB(wh, "CREATE TABLE d.raw AS "+ordersSelect(mixedRows))
	code, stdout, stderr := cli(t, "validate", "--schema", f.schema, "--query", "SELECT * FROM raw", "--db", wh, "--out", wh+":orders", "--quarantine")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "WARN Orders: quarantined — 8 input, 3 valid, 5 invalid\n")
	rows, ok := f.tableRows(wh, "main", "orders")
	require.True(t, ok)
	assert.Equal(t, mixedValid, rows)
	rows, ok = f.tableRows(wh, "main", "raw")
	require.True(t, ok)
	assert.Len(t, rows, 8, "the input table is untouched")

	// --name names the asset and its quarantine.
	in := f.parquet("mixed.parquet", ordersSelect(mixedRows))
	code, stdout, stderr = cli(t, "validate", "--schema", f.schema, "--input", in, "--out", f.path("named", "orders.parquet"), "--quarantine", "--name", "shop")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "WARN shop (Orders): quarantined — 8 input, 3 valid, 5 invalid\n")
	assert.Contains(t, stdout, "  quarantine: "+f.path("named", "shop_quarantine.parquet")+" (written, 5 rows)\n")
	assert.Contains(t, stdout, "  health: Degraded\n")
	assert.True(t, fileExists(f.path("named", "shop_quarantine.parquet")))
}

// TestSettingsFromEnvAndFlags: TABLEGATE_* variables set the defaults, flags override them, and a
// bad value names the setting, the value and its source. Not parallel: it sets the environment.
func TestSettingsFromEnvAndFlags(t *testing.T) {
	f := newFixture(t)
	in := f.parquet("mixed.parquet", ordersSelect(mixedRows))
	validate := func(t *testing.T, extra ...string) (int, map[string]any, string) {
		code, stdout, stderr := cli(t, append([]string{"validate", "--schema", f.schema, "--input", in, "--format", "json"}, extra...)...)
		return code, oneJSON(t, stdout), stderr
	}
	colChecks := []string{"dy_schema__columns", "dy_col__id", "dy_col__amount", "dy_col__note", "dy_schema__rules"}

	t.Setenv("TABLEGATE_CHECK_GRANULARITY", "column")
	code, rep, _ := validate(t)
	assert.Equal(t, 1, code)
	assert.Equal(t, colChecks, checkNames(rep))
	c := checkByName(t, rep, "dy_col__amount")
	assert.Equal(t, "ERROR", c["severity"])
	assert.Equal(t, true, c["blocking"])

	code, rep, _ = validate(t, "--granularity", "rule")
	assert.Equal(t, 1, code)
	assert.Equal(t, append([]string{"dy_schema__columns"}, ruleChecks...), checkNames(rep), "the flag overrides the environment")

	code, rep, _ = validate(t, "--schema-rules", "per_rule")
	assert.Equal(t, 1, code)
	assert.Equal(t, []string{"dy_schema__columns", "dy_col__id", "dy_col__amount", "dy_col__note", "dy_rule__amount_small", "dy_rule__primary_key"}, checkNames(rep))

	t.Setenv("TABLEGATE_SCHEMA_RULES", "per_rule")
	code, rep, _ = validate(t, "--schema-rules", "collapsed")
	assert.Equal(t, 1, code)
	assert.Equal(t, colChecks, checkNames(rep))

	t.Setenv("TABLEGATE_CHECK_GRANULARITY", "schema")
	t.Setenv("TABLEGATE_MAX_FAILURE_SAMPLES", "1")
	code, rep, _ = validate(t)
	assert.Equal(t, 1, code)
	assert.Equal(t, []string{"dy_schema__columns", "dy_schema__rules"}, checkNames(rep))
	meta := checkByName(t, rep, "dy_schema__rules")["metadata"].(map[string]any)
	assert.Len(t, meta["dataframely/failed_examples"], 1)
	code, rep, _ = validate(t, "--samples", "3", "--granularity", "rule")
	assert.Equal(t, 1, code)
	meta = checkByName(t, rep, "dy_rule__amount__min")["metadata"].(map[string]any)
	assert.Len(t, meta["dataframely/failed_examples"], 3)
	code, rep, _ = validate(t, "--samples", "0", "--granularity", "rule")
	assert.Equal(t, 1, code)
	meta = checkByName(t, rep, "dy_rule__amount__min")["metadata"].(map[string]any)
	assert.NotContains(t, meta, "dataframely/failed_examples")
	assert.Equal(t, 3.0, meta["dataframely/failed_row_count"])

	// Bad values, from the environment and from a flag.
	t.Setenv("TABLEGATE_CHECK_GRANULARITY", "table")
	code, rep, stderr := validate(t)
	assert.Equal(t, 2, code)
	assert.Nil(t, rep["outcome"])
	want := `setting check_granularity: "table" (from environment variable TABLEGATE_CHECK_GRANULARITY) is not allowed; use rule, column or schema`
	_, msg := errorOf(rep)
	assert.Equal(t, want, msg)
	assert.Contains(t, stderr, want)

	t.Setenv("TABLEGATE_CHECK_GRANULARITY", "")
	code, rep, stderr = validate(t, "--granularity", "rows")
	assert.Equal(t, 2, code)
	want = `setting check_granularity: "rows" (from flag --granularity) is not allowed; use rule, column or schema`
	_, msg = errorOf(rep)
	assert.Equal(t, want, msg)
	assert.Contains(t, stderr, want)

	t.Setenv("TABLEGATE_MAX_FAILURE_SAMPLES", "lots")
	code, _, stderr = validate(t)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `setting max_failure_samples: "lots" (from environment variable TABLEGATE_MAX_FAILURE_SAMPLES)`)
}

// TestExitTwoJSON: an exit-2 error with --format json prints one JSON object with outcome null
// and error {type, message}, and --report writes it too.
func TestExitTwoJSON(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	reportFile := f.path("r.json")
	code, stdout, stderr := cli(t, "validate", "--schema", f.schema, "--format", "json", "--report", reportFile)
	assert.Equal(t, 2, code)
	rep := oneJSON(t, stdout)
	assert.ElementsMatch(t, reportKeys, keysOf(rep))
	assert.Nil(t, rep["outcome"])
	e := rep["error"].(map[string]any)
	assert.ElementsMatch(t, []string{"type", "message"}, keysOf(e))
	assert.Equal(t, "validate needs --input or --query", e["message"])
	assert.NotEmpty(t, e["type"])
	assert.Contains(t, stderr, "validate needs --input or --query")
	data, err := os.ReadFile(reportFile)
	require.NoError(t, err)
	assert.Equal(t, stdout, string(data))

	// Errors that stop validate before its flags are read: an unknown flag, a stray argument.
	valid := f.parquet("valid.parquet", ordersSelect(allValidRows))
	for _, args := range [][]string{
		{"validate", "--format", "json", "--schema", f.schema, "--input", valid, "--strict"},
		{"validate", "--schema", f.schema, "--input", valid, "--strict", "--format=json"},
		{"validate", "--schema", f.schema, "--input", valid, "stray", "--format", "json"},
	} {
		code, stdout, stderr = cli(t, args...)
		assert.Equal(t, 2, code, "%v", args)
		rep = oneJSON(t, stdout)
		assert.ElementsMatch(t, reportKeys, keysOf(rep))
		assert.Nil(t, rep["outcome"])
		_, msg := errorOf(rep)
		assert.NotEmpty(t, msg)
		assert.Contains(t, stderr, msg)
	}
	early := f.path("early.json")
	code, stdout, _ = cli(t, "validate", "--schema", f.schema, "--input", valid, "--report", early, "--strict")
	assert.Equal(t, 2, code)
	assert.NotContains(t, stdout, "{", "text format prints no JSON")
	rep = map[string]any{}
	data, err = os.ReadFile(early)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rep))
	assert.Nil(t, rep["outcome"])
	assert.Contains(t, rep["error"].(map[string]any)["message"], "--strict")
}

// TestCheckCommand: exit 0 for a valid schema; exit 2 naming a misspelled severity.
func TestCheckCommand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	code, stdout, stderr := cli(t, "check", "--schema", f.schema)
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "Orders is valid: 3 columns, 8 rules.\n", stdout)

	misspelled := f.write("misspelled.yaml", "schema: Misspelled\ncolumns:\n  - name: amount\n    type: Float64\n    min: 0\n    severity: {minimum: warn}\n")
	code, stdout, stderr = cli(t, "check", "--schema", misspelled)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "The severity of column 'amount' in Misspelled names 'minimum', which is not a rule of column 'amount'. "+
		"The rules of column 'amount' are 'nullability', 'min', 'inf', 'nan'.")

	badValue := f.write("badvalue.yaml", "schema: Typo\ncolumns:\n  - name: amount\n    type: Float64\n    min: 0\n    severity: wrn\n")
	code, _, stderr = cli(t, "check", "--schema", badValue)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "wrn")
	assert.Contains(t, stderr, "amount")

	code, _, _ = cli(t, "check", "--schema", f.path("absent.yaml"))
	assert.Equal(t, 2, code)
	code, _, _ = cli(t, "check")
	assert.Equal(t, 2, code)
}

// TestExplainCommand: explain prints one statement with one boolean column per rule; the printed
// SQL runs on DuckDB over the placeholder input.
func TestExplainCommand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	code, stdout, stderr := cli(t, "explain", "--schema", f.schema)
	require.Equal(t, 0, code, stderr)
	rules := []string{"amount_small", "primary_key", "id|nullability", "amount|nullability", "amount|min", "amount|inf", "amount|nan", "note|max_length"}
	for _, r := range rules {
		assert.Equal(t, 1, strings.Count(stdout, " AS \""+r+"\"")+strings.Count(stdout, " AS "+r+"\n")+strings.Count(stdout, " AS "+r+","),
			"one column for rule %s in\n%s", r, stdout)
	}
	sqlText := strings.TrimSpace(stdout)
	require.True(t, strings.HasSuffix(sqlText, ";"))

	f.exec("CREATE TABLE __tg_input AS " + ordersSelect(mixedRows))
	got := f.query("SELECT column_name, column_type FROM (DESCRIBE " + strings.TrimSuffix(sqlText, ";") + ")")
	var names []string
	for i, r := range got {
		names = append(names, r[0].(string))
		if i >= 4 {
			assert.Equal(t, "BOOLEAN", r[1], r[0])
		}
	}
	assert.Equal(t, append([]string{"id", "amount", "note", "__tg_rid"}, rules...), names)
	var parts []string
	for _, r := range rules {
		parts = append(parts, fmt.Sprintf(`count(*) FILTER (WHERE NOT "%s")`, r))
	}
	counts := f.query("SELECT " + strings.Join(parts, ", ") + " FROM (" + strings.TrimSuffix(sqlText, ";") + ")")
	assert.Equal(t, []any{int64(1), int64(2), int64(0), int64(0), int64(3), int64(0), int64(0), int64(1)}, counts[0])

	// With an input whose types match, explain prints what a run executes over it: for Parquet,
	// the staged statements (failing keys, suspects, failing rows).
	in := f.parquet("raw.parquet", ordersSelect(allValidRows))
	code, stdout, stderr = cli(t, "explain", "--schema", f.schema, "--input", in)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "read_parquet(")
	assert.Contains(t, stdout, `CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys`)
	assert.Contains(t, stdout, `CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspects_`)
	// For a DuckDB table: the failing keys first, then one statement for the failing rows, and
	// the statements run there.
	db := f.path("wh.duckdb")
	f.withDB(db, "CREATE TABLE d.raw AS "+ordersSelect(mixedRows))
	code, stdout, stderr = cli(t, "explain", "--schema", f.schema, "--input", db+":raw")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, `CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys`)
	assert.NotContains(t, stdout, "__tg_suspects")
	alias := regexp.MustCompile(`"(__tg_db\d+_\d+)"`).FindStringSubmatch(stdout)
	require.NotNil(t, alias, "the attached input's alias in\n%s", stdout)
	f.exec("ATTACH " + quoteLit(db) + " AS " + alias[1] + " (READ_ONLY)")
	// The program's statements up to the failing rows' table, each after its comment line, from
	// the count on: but for those that opened the input before it (the test attached it above;
	// one reads the table's kind with bound parameters) and the engine's threads (their restore
	// takes the count read as $1).
	_, listing, _ := strings.Cut(stdout, "\n") // the first line summarises the settings
	opened := false
	for _, step := range strings.Split(strings.TrimSpace(listing), ";\n\n-- ") {
		header, stmt, _ := strings.Cut(step, "\n")
		opened = opened || strings.Contains(header, "count the rows")
		if !opened || strings.Contains(header, " the threads") {
			continue
		}
		f.exec(strings.TrimSuffix(stmt, ";"))
		if strings.Contains(step, "evaluate the rules: run\n") {
			break
		}
	}
	failed := regexp.MustCompile(`"(__tg_failed_\d+)"`).FindString(stdout)
	failing := f.query("SELECT count(*) FROM " + failed)
	var all []string
	for _, r := range rules {
		all = append(all, `"`+r+`"`)
	}
	want := f.query("SELECT count(*) FROM (" + strings.TrimSuffix(sqlText, ";") + ") WHERE NOT (" + strings.Join(all, " AND ") + ")")
	require.NotEqual(t, int64(0), want[0][0])
	assert.Equal(t, want[0], failing[0], "the explained statements find the rows failing some rule of the plan query")
	// With one that does not, it exits 3.
	bad := f.parquet("bad.parquet", "SELECT 'a' AS id, 1 AS amount, NULL::VARCHAR AS note")
	code, stdout, stderr = cli(t, "explain", "--schema", f.schema, "--input", bad)
	assert.Equal(t, 3, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "Column 'amount' (expected Float64, got INTEGER) does not match Orders.")
}

// TestBinary runs the built binary once for each exit status a shell sees (0, 1, 2, 3); the
// other ways to each status run in process.
func TestBinary(t *testing.T) {
	t.Parallel()
	require.NoError(t, buildErr)
	f := newFixture(t)
	mixed := f.parquet("mixed.parquet", ordersSelect(mixedRows))
	db := f.path("wh.duckdb")
	f.withDB(db, "CREATE TABLE d.raw AS SELECT id, amount::DECIMAL(18,3) AS amount, note FROM ("+ordersSelect(allValidRows)+")")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"validate", "--schema", f.schema, "--input", mixed, "--out", f.path("q", "orders.parquet"), "--quarantine"}, 0},
		{[]string{"validate", "--schema", f.schema, "--input", f.path("none", "*.parquet")}, 2},
		{[]string{"validate", "--schema", f.schema, "--input", db + ":raw"}, 3},
	} {
		cmd := osexec.Command(binary, tc.args...)
		cmd.Dir = f.dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var exitErr *osexec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		} else {
			require.NoError(t, err)
		}
		assert.Equal(t, tc.code, code, "%v\nstdout %s\nstderr %s", tc.args, stdout.String(), stderr.String())
	}
	assert.Equal(t, mixedValid, f.parquetRows(f.path("q", "orders.parquet")))

	cmd := osexec.Command(binary, "validate", "--schema", f.schema, "--input", mixed, "--format", "json")
	out, err := cmd.Output()
	var exitErr *osexec.ExitError
	require.ErrorAs(t, err, &exitErr)
	assert.Equal(t, 1, exitErr.ExitCode())
	rep := oneJSON(t, string(out))
	assert.Equal(t, "aborted", rep["outcome"])
	assert.Equal(t, "Orders", rep["asset"])
}

// TestSampleCommand: sample writes the same bytes for the same seed, data that validates against
// its own schema with about the asked share of rows failing, names the columns Parquet cannot
// carry (so validate needs --cast there, and not from a DuckDB table), and refuses a schema no
// rows can fit.
func TestSampleCommand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	nested := filepath.Join("..", "..", "compile", "testdata", "nested.yaml")
	sampleTo := func(out string, seed string) string {
		t.Helper()
		code, stdout, stderr := cli(t, "sample", "--schema", nested, "--rows", "4000", "--invalid-rate", "0.1", "--seed", seed, "--out", out)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stdout, "wrote 4000 rows of Nested to "+out)
		return stdout
	}

	// Parquet: Array columns come back as lists; the note says so and what to do.
	a, b, c := f.path("a.parquet"), f.path("b.parquet"), f.path("c.parquet")
	stdout := sampleTo(a, "7")
	assert.Contains(t, stdout, "note: Parquet cannot carry every dtype, so 'point' (expected Array(Int32, 3), got INTEGER[]), 'grid'")
	assert.Contains(t, stdout, "validate the file with --cast")
	sampleTo(b, "7")
	sampleTo(c, "8")
	read := func(p string) []byte {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		return data
	}
	assert.Equal(t, read(a), read(b), "the same seed must give the same bytes")
	assert.NotEqual(t, read(a), read(c))

	code, _, _ := cli(t, "validate", "--schema", nested, "--input", a)
	assert.Equal(t, 3, code, "Array columns read back from Parquet as lists")
	code, out, stderr := cli(t, "validate", "--schema", nested, "--input", a, "--cast", "--format", "json")
	require.Equal(t, 1, code, stderr)
	rep := oneJSON(t, out)
	rows := rep["rows"].(map[string]any)
	invalid := rows["invalid"].(float64)
	// 10% break one generated rule; the warnings (the custom check on address.geo.lon,
	// address.zip unique) do not make rows invalid.
	assert.InDelta(t, 400, invalid, 120, "invalid rows of 4000 at a 10%% rate")

	// A DuckDB table keeps the declared types: no note, no cast.
	table := f.path("s.duckdb") + ":nested"
	stdout = sampleTo(table, "7")
	assert.NotContains(t, stdout, "note: Parquet cannot carry")
	assert.Contains(t, stdout, "note: the generator does not control 'tags|inner_unique' (unique), 'tags|inner_regex' (regex), 'address|inner_geo_inner_lon_check' (custom check)")
	assert.Contains(t, stdout, fmt.Sprintf("validated: %d of 4000 rows", int(invalid)))
	code, out, stderr = cli(t, "validate", "--schema", nested, "--input", table, "--format", "json")
	require.Equal(t, 1, code, stderr)
	assert.Equal(t, invalid, oneJSON(t, out)["rows"].(map[string]any)["invalid"], "the same rows as the Parquet file")

	code, _, stderr = cli(t, "sample", "--schema", filepath.Join("..", "..", "compile", "testdata", "text.yaml"), "--rows", "10", "--out", f.path("t.parquet"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "column 'status': a unique Enum column needs a category per row: 3 categories for 10 rows")
	assert.False(t, fileExists(f.path("t.parquet")))
}
