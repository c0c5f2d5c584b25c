package duckdb_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// backend is where a test's input comes from and its outputs go: Parquet → Parquet, or a DuckDB
// table → a table of the same database file.
type backend struct {
	name           string
	input          func(e *env, query string) runner.Input
	output         func(e *env) runner.Output
	table          func(e *env) (rows [][]any, cols []string, ok bool)
	quarantine     func(e *env) (rows [][]any, cols []string, ok bool)
	tableAddr      func(e *env) string
	quarantineAddr func(e *env) string
	// leftovers lists what the output location holds besides the table and the quarantine.
	leftovers func(e *env) []string
}

func parquetFile(e *env, path string) ([][]any, []string, bool) {
	if !exists(e.t, path) {
		return nil, nil, false
	}
	return e.parquetRows(path), e.parquetColumns(path), true
}

var backends = []backend{
	{
		name: "parquet",
		input: func(e *env, q string) runner.Input {
			return runner.ParquetInput{Path: e.parquet("in/raw.parquet", q)}
		},
		output: func(e *env) runner.Output { return runner.ParquetOutput{Path: e.path("out", "orders.parquet")} },
		table:  func(e *env) ([][]any, []string, bool) { return parquetFile(e, e.path("out", "orders.parquet")) },
		quarantine: func(e *env) ([][]any, []string, bool) {
			return parquetFile(e, e.path("out", "orders_quarantine.parquet"))
		},
		tableAddr:      func(e *env) string { return e.path("out", "orders.parquet") },
		quarantineAddr: func(e *env) string { return e.path("out", "orders_quarantine.parquet") },
		leftovers: func(e *env) []string {
			entries, err := os.ReadDir(e.path("out"))
			if os.IsNotExist(err) {
				return nil
			}
			require.NoError(e.t, err)
			var out []string
			for _, en := range entries {
				switch n := en.Name(); {
				case n == "orders.parquet", n == "orders_quarantine.parquet":
				default:
					out = append(out, n)
				}
			}
			return out
		},
	},
	{
		name: "duckdb",
		input: func(e *env, q string) runner.Input {
			e.table(e.path("wh.duckdb"), "raw", q)
			return runner.TableInput{File: e.path("wh.duckdb"), Table: "raw"}
		},
		output: func(e *env) runner.Output { return runner.TableOutput{File: e.path("wh.duckdb"), Table: "orders"} },
		table: func(e *env) ([][]any, []string, bool) {
			return e.tableRows(e.path("wh.duckdb"), "orders")
		},
		quarantine: func(e *env) ([][]any, []string, bool) {
			return e.tableRows(e.path("wh.duckdb"), "orders_quarantine")
		},
		tableAddr:      func(e *env) string { return e.path("wh.duckdb") + ":orders" },
		quarantineAddr: func(e *env) string { return e.path("wh.duckdb") + ":orders_quarantine" },
		leftovers: func(e *env) []string {
			if !exists(e.t, e.path("wh.duckdb")) {
				return nil
			}
			e.exec("ATTACH " + lit(e.path("wh.duckdb")) + " AS l (READ_ONLY)")
			defer e.exec("DETACH l")
			var out []string
			for _, r := range e.query("SELECT table_schema || '.' || table_name FROM information_schema.tables WHERE table_catalog = 'l' ORDER BY ALL") {
				switch n := r[0].(string); n {
				case "main.raw", "main.orders", "main.orders_quarantine":
				default:
					out = append(out, n)
				}
			}
			return out
		},
	},
}

// expectChecks is the rule-granularity check list of ordersSchema (docs/report.md): error rules
// ERROR when the run aborts, else WARN; the warn rule WARN; blocking = no quarantine and an error
// rule; dy_schema__columns ERROR and blocking.
func expectChecks(quarantine bool, failing ...string) []chk {
	out := []chk{{"dy_schema__columns", true, outcome.SeverityError, true}}
	for _, name := range ruleChecks {
		warn := name == "dy_rule__note__max_length"
		passed := !slices.Contains(failing, strings.TrimPrefix(name, "dy_rule__"))
		// ERROR only for a failed error rule, with or without a quarantine.
		sev := outcome.SeverityWarn
		if !passed && !warn {
			sev = outcome.SeverityError
		}
		out = append(out, chk{name, passed, sev, !quarantine && !warn})
	}
	return out
}

const (
	abortTail   = " Nothing was written, so the last-known-good table is unchanged. "
	schemaTail  = " Fix the query that produced it, or cast explicitly. tablegate never casts for you."
	noValidTail = ", with one column per rule. The table was not written, so the last-known-good table is unchanged."
)

var (
	mixedValid = [][]any{{"a", 1.0, nil}, {"c", 2.0, "toolong"}, {"f", 4.0, nil}}
	mixedQuar  = [][]any{
		qrow("b", -1.0, "hi", "amount__min"),
		qrow("g", -2.0, "x", "primary_key", "amount__min"),
		qrow("e", 5000.0, nil, "amount_small"),
		qrow("g", 3.0, nil, "primary_key"),
		qrow("h", -5.0, nil, "amount__min"),
	}
	mixedSets = []outcome.RuleSet{
		{Rules: "dy_rule__amount__min", Count: 2},
		{Rules: "dy_rule__amount__min, dy_rule__primary_key", Count: 1},
		{Rules: "dy_rule__amount_small", Count: 1},
		{Rules: "dy_rule__primary_key", Count: 1},
	}
	mixedCounts = map[string]int64{
		"dy_rule__amount_small": 1, "dy_rule__primary_key": 2, "dy_rule__amount__min": 3, "dy_rule__note__max_length": 1,
	}
	mixedAbortMsg = "5 rows failed Orders validation, 1 by 'amount_small', 2 by 'primary_key', 3 by 'amount|min'." + abortTail
)

type scenario struct {
	name        string
	query       string // the input rows; "" with nilInput
	nilInput    bool
	quarantine  bool
	want        outcome.Outcome
	rows        outcome.Rows
	table       [][]any // nil: not written
	quar        [][]any // nil: not written
	checks      []chk
	counts      map[string]int64 // dataframely/failed_row_count per check; absent for the others
	sets        []outcome.RuleSet
	health      outcome.Health
	errMsg      func(b backend, e *env) string // exact message, or a prefix ending in a space
	assertError func(t *testing.T, err error)
}

func scenarios() []scenario {
	asAbort := func(invalid int64) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			var target *outcome.ValidationAbortError
			require.ErrorAs(t, err, &target)
			assert.Equal(t, invalid, target.Invalid)
			assert.Equal(t, "Orders", target.Schema)
		}
	}
	msg := func(s string) func(backend, *env) string { return func(backend, *env) string { return s } }
	missingNote := "SELECT id, amount FROM (" + ordersSelect(allValidRows) + ")"
	var out []scenario
	for _, q := range []bool{false, true} {
		out = append(out,
			scenario{
				name: "all_valid", query: ordersSelect(allValidRows), quarantine: q, want: outcome.AllValid,
				rows: outcome.Rows{Input: 2, Valid: 2}, table: [][]any{{"a", 1.0, nil}, {"b", 2.5, "ok"}},
				checks: expectChecks(q), sets: []outcome.RuleSet{}, health: outcome.Healthy,
			},
			scenario{
				name: "zero_rows", query: emptySelect(), quarantine: q, want: outcome.AllValid,
				table: [][]any{}, checks: expectChecks(q), sets: []outcome.RuleSet{}, health: outcome.Healthy,
			},
			scenario{
				name: "warn_only", query: ordersSelect(warnOnlyRows), quarantine: q, want: outcome.AllValid,
				rows: outcome.Rows{Input: 2, Valid: 2}, table: [][]any{{"a", 1.0, "toolong"}, {"b", 2.0, nil}},
				checks: expectChecks(q, "note__max_length"), counts: map[string]int64{"dy_rule__note__max_length": 1},
				sets: []outcome.RuleSet{}, health: outcome.Warning,
			},
			scenario{
				name: "column_mismatch", query: missingNote, quarantine: q, want: outcome.ColumnSchemaMismatch,
				checks: []chk{{"dy_schema__columns", false, outcome.SeverityError, true}}, sets: []outcome.RuleSet{},
				health: outcome.Degraded,
				errMsg: msg("Column 'note' (expected String, got <missing>) does not match Orders. Fix the "), // file, table or query, by backend
				assertError: func(t *testing.T, err error) {
					var target *outcome.ColumnSchemaError
					require.ErrorAs(t, err, &target)
					require.Len(t, target.Mismatches, 1)
					assert.Equal(t, "<missing>", target.Mismatches[0].Actual)
				},
			},
			scenario{
				name: "skipped", nilInput: true, quarantine: q, want: outcome.Skipped,
				checks: expectChecks(q), sets: []outcome.RuleSet{}, health: outcome.Healthy,
			},
		)
	}
	out = append(out,
		scenario{
			name: "aborted", query: ordersSelect(mixedRows), want: outcome.Aborted,
			rows: outcome.Rows{Input: 8, Valid: 3, Invalid: 5},
			// Spelled out once; expectChecks encodes the same rules for the other scenarios.
			checks: []chk{
				{"dy_schema__columns", true, outcome.SeverityError, true},
				{"dy_rule__amount_small", false, outcome.SeverityError, true},
				{"dy_rule__primary_key", false, outcome.SeverityError, true},
				{"dy_rule__id__nullability", true, outcome.SeverityWarn, true},
				{"dy_rule__amount__nullability", true, outcome.SeverityWarn, true},
				{"dy_rule__amount__min", false, outcome.SeverityError, true},
				{"dy_rule__amount__inf", true, outcome.SeverityWarn, true},
				{"dy_rule__amount__nan", true, outcome.SeverityWarn, true},
				{"dy_rule__note__max_length", false, outcome.SeverityWarn, false},
			},
			counts: mixedCounts, sets: mixedSets, health: outcome.Degraded,
			errMsg: msg(mixedAbortMsg), assertError: asAbort(5),
		},
		scenario{
			name: "quarantined", query: ordersSelect(mixedRows), quarantine: true, want: outcome.Quarantined,
			rows: outcome.Rows{Input: 8, Valid: 3, Invalid: 5}, table: mixedValid, quar: mixedQuar,
			checks: expectChecks(true, "amount_small", "primary_key", "amount__min", "note__max_length"),
			// A quarantined error rule still fails at ERROR: the asset is Degraded.
			counts: mixedCounts, sets: mixedSets, health: outcome.Degraded,
		},
		scenario{
			name: "all_invalid_no_quarantine", query: ordersSelect(allInvalidRows), want: outcome.Aborted,
			rows: outcome.Rows{Input: 2, Invalid: 2}, checks: expectChecks(false, "amount__min"),
			counts: map[string]int64{"dy_rule__amount__min": 2},
			sets:   []outcome.RuleSet{{Rules: "dy_rule__amount__min", Count: 2}}, health: outcome.Degraded,
			errMsg: msg("2 rows failed Orders validation, 2 by 'amount|min'." + abortTail), assertError: asAbort(2),
		},
		scenario{
			name: "one_invalid_row", query: ordersSelect(oneInvalidRows), want: outcome.Aborted,
			rows: outcome.Rows{Input: 2, Valid: 1, Invalid: 1}, checks: expectChecks(false, "amount__min"),
			counts: map[string]int64{"dy_rule__amount__min": 1},
			sets:   []outcome.RuleSet{{Rules: "dy_rule__amount__min", Count: 1}}, health: outcome.Degraded,
			errMsg: msg("1 row failed Orders validation, 1 by 'amount|min'." + abortTail), assertError: asAbort(1),
		},
		scenario{
			name: "no_valid_rows", query: ordersSelect(allInvalidRows), quarantine: true, want: outcome.NoValidRows,
			rows: outcome.Rows{Input: 2, Invalid: 2},
			quar: [][]any{qrow("x", -1.0, nil, "amount__min"), qrow("y", -2.0, "z", "amount__min")},
			// Blocking stays false: with a quarantine, no rule check blocks.
			checks: expectChecks(true, "amount__min"), counts: map[string]int64{"dy_rule__amount__min": 2},
			sets: []outcome.RuleSet{{Rules: "dy_rule__amount__min", Count: 2}}, health: outcome.Degraded,
			errMsg: func(b backend, e *env) string {
				return "All 2 rows failed Orders validation, 2 by 'amount|min'. The rows are in " + b.quarantineAddr(e) + noValidTail
			},
			assertError: func(t *testing.T, err error) {
				var target *outcome.NoValidRowsError
				require.ErrorAs(t, err, &target)
				assert.Equal(t, int64(2), target.Rows)
			},
		},
	)
	return out
}

// TestOutcomes runs every outcome (the README's table) for Parquet → Parquet, with and without a
// quarantine, and reads back what was written; TestSlowOutcomes for DuckDB table → table.
func TestOutcomes(t *testing.T) {
	t.Parallel()
	outcomes(t, backends[:1])
}

// TestSlowOutcomes is TestOutcomes for DuckDB table → table.
func TestSlowOutcomes(t *testing.T) {
	testenv.Slow(t)
	t.Parallel()
	outcomes(t, backends[1:])
}

func outcomes(t *testing.T, backends []backend) {
	for _, b := range backends {
		for _, sc := range scenarios() {
			name := b.name + "/" + sc.name
			if sc.quarantine {
				name += "/quarantine"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				a := runner.Asset{Output: b.output(e), Quarantine: sc.quarantine}
				if !sc.nilInput {
					a.Input = b.input(e, sc.query)
				}
				rep, err := run(t, ordersSchema(), a, runner.Options{})

				// The outcome and the error.
				require.NotNil(t, rep.Outcome)
				assert.Equal(t, sc.want, *rep.Outcome)
				assert.Equal(t, sc.want.Succeeded(), err == nil, "err: %v", err)
				if sc.errMsg == nil {
					require.NoError(t, err)
					assert.Nil(t, rep.Error)
				} else {
					require.Error(t, err)
					want := sc.errMsg(b, e)
					if strings.HasSuffix(want, " ") {
						assert.True(t, strings.HasPrefix(err.Error(), want), "message %q\nwant prefix %q", err.Error(), want)
					} else {
						assert.Equal(t, want, err.Error())
					}
					require.NotNil(t, rep.Error)
					assert.Equal(t, err.Error(), rep.Error.Message)
					assert.Equal(t, outcome.TypeName(err), rep.Error.Type)
					sc.assertError(t, err)
				}

				// The report.
				assert.Equal(t, "orders", rep.Asset)
				assert.Equal(t, "Orders", rep.Schema)
				assert.Equal(t, sc.rows, rep.Rows)
				assert.Equal(t, sc.checks, summary(rep))
				assert.Equal(t, sc.health, rep.Health)
				assert.Equal(t, sc.sets, rep.InvalidByRules)
				for _, c := range rep.Checks {
					m := metadata(t, rep, c.Name)
					if n, ok := sc.counts[c.Name]; ok {
						assert.Equal(t, float64(n), m["dataframely/failed_row_count"], c.Name)
						assert.NotEmpty(t, m["dataframely/failed_examples"], c.Name)
					} else {
						assert.NotContains(t, m, "dataframely/failed_row_count", c.Name)
						assert.NotContains(t, m, "dataframely/failed_examples", c.Name)
					}
				}
				assert.Equal(t, b.tableAddr(e), rep.Table.Address)
				assert.Equal(t, sc.table != nil, rep.Table.Written)
				wantQuar := outcome.Quarantine{}
				if sc.quarantine {
					wantQuar.Address = b.quarantineAddr(e)
				}
				if sc.quar != nil {
					wantQuar.Written, wantQuar.Rows = true, int64(len(sc.quar))
				}
				assert.Equal(t, wantQuar, rep.Quarantine)

				// What was written, read back.
				rows, cols, ok := b.table(e)
				require.Equal(t, sc.table != nil, ok, "table written")
				if ok {
					assert.Equal(t, ordersColumns, cols)
					assert.Equal(t, sc.table, rows)
				}
				rows, cols, ok = b.quarantine(e)
				require.Equal(t, sc.quar != nil, ok, "quarantine written")
				if ok {
					assert.Equal(t, quarantineColumns, cols)
					assert.Equal(t, sc.quar, rows)
				}
				assert.Empty(t, b.leftovers(e))
			})
		}
	}
}

// TestReportJSONShape checks the report's JSON keys and metadata shapes (docs/report.md).
func TestReportJSONShape(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rep, err := run(t, ordersSchema(), runner.Asset{
		Input:  runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(mixedRows))},
		Output: runner.ParquetOutput{Path: e.path("orders.parquet")}, Quarantine: true,
	}, runner.Options{})
	require.NoError(t, err)
	m := jsonValue(t, rep).(map[string]any)
	assert.ElementsMatch(t, []string{"asset", "schema", "outcome", "error", "rows", "table", "quarantine", "checks", "invalid_by_rules", "health", "tablegate_version", "duckdb_version", "run_id", "started_at", "duration_s"}, keys(m))
	assert.Equal(t, duckdb.DuckDBVersion(), m["duckdb_version"])
	assert.Equal(t, "(devel)", m["tablegate_version"], "a test binary built from the checkout")
	assert.Nil(t, m["error"])
	assert.Equal(t, "quarantined", m["outcome"])
	assert.Equal(t, parseJSON(t, `{"input": 8, "valid": 3, "invalid": 5}`), m["rows"])
	assert.Equal(t, map[string]any{"address": e.path("orders.parquet"), "written": true}, m["table"])
	assert.Equal(t, map[string]any{"address": e.path("orders_quarantine.parquet"), "written": true, "rows": 5.0}, m["quarantine"])
	assert.Equal(t, parseJSON(t, `[
		{"rules": "dy_rule__amount__min", "count": 2},
		{"rules": "dy_rule__amount__min, dy_rule__primary_key", "count": 1},
		{"rules": "dy_rule__amount_small", "count": 1},
		{"rules": "dy_rule__primary_key", "count": 1}]`), m["invalid_by_rules"])
	assert.Equal(t, "Degraded", m["health"], "quarantined error rules fail at ERROR")
	for _, c := range m["checks"].([]any) {
		assert.ElementsMatch(t, []string{"name", "passed", "severity", "declared_severity", "blocking", "description", "result_description", "metadata"}, keys(c.(map[string]any)))
	}
	// Every check of a run that wrote invalid rows says where they went.
	quar := e.path("orders_quarantine.parquet")
	assert.Equal(t, map[string]any{"dataframely/error_rows_address": quar}, metadata(t, rep, "dy_schema__columns"))
	assert.Equal(t, map[string]any{"dataframely/rule": "amount|nullability", "dataframely/rule_expr": `"amount" IS NOT NULL`,
		"dataframely/error_rows_address": quar}, metadata(t, rep, "dy_rule__amount__nullability"))
	results := map[string]string{}
	for _, c := range rep.Checks {
		results[c.Name] = c.ResultDescription
	}
	assert.Equal(t, "Every column matches.", results["dy_schema__columns"])
	assert.Equal(t, "No row failed.", results["dy_rule__amount__nullability"])
	assert.Equal(t, "3 rows failed.", results["dy_rule__amount__min"])
	assert.Equal(t, "1 row failed.", results["dy_rule__amount_small"])
	min := metadata(t, rep, "dy_rule__amount__min")
	assert.Equal(t, "amount|min", min["dataframely/rule"])
	assert.NotEmpty(t, min["dataframely/rule_expr"])
	assert.Equal(t, 3.0, min["dataframely/failed_row_count"])
	assert.Equal(t, parseJSON(t, `[
		{"id": "b", "amount": -1, "note": "hi"},
		{"id": "g", "amount": -2, "note": "x"},
		{"id": "h", "amount": -5, "note": null}]`), min["dataframely/failed_examples"])
	// A warn rule's sample holds the valid row that failed it; samples are schema columns only, in
	// schema order.
	for _, c := range rep.Checks {
		if c.Name == "dy_rule__note__max_length" {
			data, err := json.Marshal(c.Samples)
			require.NoError(t, err)
			assert.Equal(t, `[{"id":"c","amount":2.0,"note":"toolong"}]`, string(data))
		}
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestFailureSamplesBounded: dataframely/failed_examples holds at most MaxFailureSamples rows (default 5,
// negative none), in input order.
func TestFailureSamplesBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// 7 rows fail amount|min.
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(
		`('a', -1.0, NULL), ('b', -2.0, NULL), ('c', -3.0, NULL), ('d', -4.0, NULL), ('e', -5.0, NULL), ('f', -6.0, NULL), ('g', 1.0, NULL), ('h', -8.0, NULL)`))}
	ids := func(m map[string]any) []string {
		var out []string
		s, _ := m["dataframely/failed_examples"].([]any)
		for _, r := range s {
			out = append(out, r.(map[string]any)["id"].(string))
		}
		return out
	}
	for _, tc := range []struct {
		samples int
		want    []string
	}{
		{0, []string{"a", "b", "c", "d", "e"}},
		{2, []string{"a", "b"}},
		{10, []string{"a", "b", "c", "d", "e", "f", "h"}},
		{-1, nil},
	} {
		rep, err := run(t, ordersSchema(), runner.Asset{Input: in}, runner.Options{MaxFailureSamples: tc.samples})
		var abort *outcome.ValidationAbortError
		require.ErrorAs(t, err, &abort)
		m := metadata(t, rep, "dy_rule__amount__min")
		assert.Equal(t, 7.0, m["dataframely/failed_row_count"])
		assert.Equal(t, tc.want, ids(m), "samples %d", tc.samples)
		if tc.want == nil {
			assert.NotContains(t, m, "dataframely/failed_examples")
		}
	}
}

// TestValidateInPlace: without an output nothing is written and the asset is the schema's name.
func TestValidateInPlace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(mixedRows))}
	rep, err := run(t, ordersSchema(), runner.Asset{Input: in}, runner.Options{})
	var abort *outcome.ValidationAbortError
	require.ErrorAs(t, err, &abort)
	// No output, so no last-known-good table to speak of.
	assert.Contains(t, err.Error(), "The run validated in place (no output).")
	assert.NotContains(t, err.Error(), "last-known-good")
	assert.Equal(t, "Orders", rep.Asset)
	assert.Equal(t, outcome.Table{}, rep.Table)
	assert.Equal(t, outcome.Quarantine{}, rep.Quarantine)
	assert.Equal(t, outcome.Rows{Input: 8, Valid: 3, Invalid: 5}, rep.Rows)

	rep, err = run(t, ordersSchema(), runner.Asset{Input: in, Name: "nightly"}, runner.Options{})
	require.Error(t, err)
	assert.Equal(t, "nightly", rep.Asset)

	// The same for a failing table check.
	_, err = run(t, ordersSchema().AddTableCheck(schema.Condition("enough", "count(*) > 100")), runner.Asset{Input: in}, runner.Options{})
	var tableErr *outcome.TableCheckError
	require.ErrorAs(t, err, &tableErr)
	assert.Contains(t, err.Error(), "The run validated in place (no output).")
	assert.NotContains(t, err.Error(), "last-known-good")

	// A quarantine needs an output.
	_, err = run(t, ordersSchema(), runner.Asset{Input: in, Quarantine: true}, runner.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "quarantine")
	entries, err := os.ReadDir(e.dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the input is there")
}

// TestAssetNameNamesQuarantine: the quarantine is <asset>_quarantine beside the table.
func TestAssetNameNamesQuarantine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(mixedRows))}
	rep, err := run(t, ordersSchema(), runner.Asset{Name: "shop", Input: in, Output: runner.ParquetOutput{Path: e.path("out", "orders.parquet")}, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, e.path("out", "shop_quarantine.parquet"), rep.Quarantine.Address)
	assert.Equal(t, mixedQuar, e.parquetRows(e.path("out", "shop_quarantine.parquet")))
	assert.Equal(t, mixedValid, e.parquetRows(e.path("out", "orders.parquet")))

	db := e.path("wh.duckdb")
	e.table(db, "raw", ordersSelect(mixedRows))
	rep, err = run(t, ordersSchema(), runner.Asset{Name: "shop", Input: runner.TableInput{File: db, Table: "raw"},
		Output: runner.TableOutput{File: db, Schema: "clean", Table: "orders"}, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, db+":clean.shop_quarantine", rep.Quarantine.Address)
	assert.Equal(t, db+":clean.orders", rep.Table.Address)
	rows, _, ok := e.tableRows(db, "clean.shop_quarantine")
	require.True(t, ok)
	assert.Equal(t, mixedQuar, rows)
	rows, _, ok = e.tableRows(db, "clean.orders")
	require.True(t, ok)
	assert.Equal(t, mixedValid, rows)
}

// TestExtraAndReorderedColumns: extra columns and another column order are fine; the outputs hold
// the schema's columns in schema order.
func TestExtraAndReorderedColumns(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			q := "SELECT note, 42 AS extra, amount, id, 'x' AS other FROM (" + ordersSelect(mixedRows) + ")"
			rep, err := run(t, ordersSchema(), runner.Asset{Input: b.input(e, q), Output: b.output(e), Quarantine: true}, runner.Options{})
			require.NoError(t, err)
			assert.Equal(t, outcome.Quarantined, outcomeOf(rep))
			rows, cols, ok := b.table(e)
			require.True(t, ok)
			assert.Equal(t, ordersColumns, cols)
			assert.Equal(t, mixedValid, rows)
			rows, cols, ok = b.quarantine(e)
			require.True(t, ok)
			assert.Equal(t, quarantineColumns, cols)
			assert.Equal(t, mixedQuar, rows)
		})
	}
}

// TestLastKnownGood: a run that fails leaves the table exactly as it was (Parquet: the same
// bytes; DuckDB: the same rows), and a run with no invalid rows removes an older quarantine.
func TestLastKnownGood(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			runWith := func(query string, quarantine bool, opts runner.Options) (*outcome.Report, error) {
				return run(t, ordersSchema(), runner.Asset{Input: b.input(e, query), Output: b.output(e), Quarantine: quarantine}, opts)
			}
			snapshot := func() (tableRows, quarRows [][]any, tableBytes []byte) {
				rows, _, ok := b.table(e)
				require.True(t, ok)
				q, _, ok := b.quarantine(e)
				require.True(t, ok)
				if b.name == "parquet" {
					data, err := os.ReadFile(b.tableAddr(e))
					require.NoError(t, err)
					return rows, q, data
				}
				return rows, q, nil
			}
			unchanged := func(step string, wantTable [][]any, wantBytes []byte) {
				rows, _, ok := b.table(e)
				require.True(t, ok, step)
				assert.Equal(t, wantTable, rows, step)
				if b.name == "parquet" {
					data, err := os.ReadFile(b.tableAddr(e))
					require.NoError(t, err)
					assert.True(t, string(wantBytes) == string(data), "%s: table bytes changed", step)
				}
				assert.Empty(t, b.leftovers(e), step)
			}

			_, err := runWith(ordersSelect(mixedRows), true, runner.Options{})
			require.NoError(t, err)
			goodTable, goodQuar, goodBytes := snapshot()
			require.Equal(t, mixedValid, goodTable)
			require.Equal(t, mixedQuar, goodQuar)

			// Aborted: nothing written, the older quarantine stays.
			_, err = runWith(ordersSelect(allInvalidRows), false, runner.Options{})
			var abort *outcome.ValidationAbortError
			require.ErrorAs(t, err, &abort)
			unchanged("aborted", goodTable, goodBytes)
			q, _, _ := b.quarantine(e)
			assert.Equal(t, mixedQuar, q)

			// Column mismatch and cast failure: nothing written.
			_, err = runWith("SELECT id, note FROM ("+ordersSelect(allValidRows)+")", true, runner.Options{})
			var colErr *outcome.ColumnSchemaError
			require.ErrorAs(t, err, &colErr)
			unchanged("column mismatch", goodTable, goodBytes)
			_, err = runWith("SELECT 'z' AS id, 'abc' AS amount, NULL::VARCHAR AS note", true, runner.Options{Cast: true})
			var castErr *outcome.CastError
			require.ErrorAs(t, err, &castErr)
			unchanged("cast error", goodTable, goodBytes)
			q, _, _ = b.quarantine(e)
			assert.Equal(t, mixedQuar, q)

			// No valid rows: the quarantine is replaced, the table is not.
			_, err = runWith(ordersSelect(allInvalidRows), true, runner.Options{})
			var noValid *outcome.NoValidRowsError
			require.ErrorAs(t, err, &noValid)
			unchanged("no valid rows", goodTable, goodBytes)
			q, _, ok := b.quarantine(e)
			require.True(t, ok)
			assert.Equal(t, [][]any{qrow("x", -1.0, nil, "amount__min"), qrow("y", -2.0, "z", "amount__min")}, q)

			// All valid: the table is replaced and the older quarantine removed, kept as the
			// previous one with a warning.
			var warned strings.Builder
			rep, err := runWith(ordersSelect(allValidRows), true, runner.Options{Warnings: &warned})
			require.NoError(t, err)
			assert.False(t, rep.Quarantine.Written)
			rows, _, ok := b.table(e)
			require.True(t, ok)
			assert.Equal(t, [][]any{{"a", 1.0, nil}, {"b", 2.5, "ok"}}, rows)
			_, _, ok = b.quarantine(e)
			assert.False(t, ok, "older quarantine removed")
			prev := strings.TrimSuffix(b.quarantineAddr(e), ".parquet") + ".prev.parquet"
			if b.name == "duckdb" {
				prev = b.quarantineAddr(e) + "_prev"
			}
			want := fmt.Sprintf("the previous quarantine %s is kept as %s: this run found no invalid rows", b.quarantineAddr(e), prev)
			assert.Equal(t, []string{want}, rep.Warnings)
			assert.Equal(t, "warning: "+want+"\n", warned.String())
			assert.Equal(t, []string{"x", "y"}, prevIDs(t, e, b))
			assert.Empty(t, leftoversBesidePrev(t, e, b))

			// Also without a declared quarantine: a quarantine always belongs to the latest run
			// that wrote anything.
			_, err = runWith(ordersSelect(mixedRows), true, runner.Options{})
			require.NoError(t, err)
			_, err = runWith(ordersSelect(warnOnlyRows), false, runner.Options{})
			require.NoError(t, err)
			_, _, ok = b.quarantine(e)
			assert.False(t, ok, "older quarantine removed by a run without --quarantine")
			assert.Equal(t, []string{"b", "g", "e", "g", "h"}, prevIDs(t, e, b))
			assert.Empty(t, leftoversBesidePrev(t, e, b))
		})
	}
}

// TestDecimalFromDuckDBTable: a warehouse DECIMAL where Float64 is declared fails the column check;
// an explicit cast makes it pass.
func TestDecimalFromDuckDBTable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	db := e.path("wh.duckdb")
	e.table(db, "raw", "SELECT id, amount::DECIMAL(18,3) AS amount, note FROM ("+ordersSelect(mixedRows)+")")
	in := runner.TableInput{File: db, Table: "raw"}
	out := runner.TableOutput{File: db, Table: "orders"}

	rep, err := run(t, ordersSchema(), runner.Asset{Input: in, Output: out, Quarantine: true}, runner.Options{})
	var colErr *outcome.ColumnSchemaError
	require.ErrorAs(t, err, &colErr)
	assert.True(t, strings.HasPrefix(err.Error(), "Column 'amount' (expected Float64, got DECIMAL(18,3)) does not match Orders."+strings.Replace(schemaTail, "query", "table", 1)+
		" To accept the input as it is: 'amount' got DECIMAL(18,3): declare Decimal(18,3)."), err.Error())
	assert.Equal(t, outcome.ColumnSchemaMismatch, outcomeOf(rep))
	assert.Equal(t, []chk{{"dy_schema__columns", false, outcome.SeverityError, true}}, summary(rep))
	errs := metadata(t, rep, "dy_schema__columns")["dataframely/column_schema_errors"].([]any)
	require.Len(t, errs, 1)
	got := errs[0].(map[string]any)
	assert.Equal(t, "amount", got["column"])
	assert.Equal(t, "Float64", got["expected"])
	assert.Equal(t, "DECIMAL(18,3)", got["actual"])
	assert.Equal(t, outcome.Degraded, rep.Health)
	_, _, ok := e.tableRows(db, "orders")
	assert.False(t, ok)
	_, _, ok = e.tableRows(db, "orders_quarantine")
	assert.False(t, ok)

	rep, err = run(t, ordersSchema(), runner.Asset{Input: in, Output: out, Quarantine: true}, runner.Options{Cast: true})
	require.NoError(t, err)
	assert.Equal(t, outcome.Quarantined, outcomeOf(rep))
	assert.Equal(t, outcome.Rows{Input: 8, Valid: 3, Invalid: 5}, rep.Rows)
	rows, cols, ok := e.tableRows(db, "orders")
	require.True(t, ok)
	assert.Equal(t, ordersColumns, cols, "the cast output has the declared dtype")
	assert.Equal(t, mixedValid, rows)
	rows, cols, ok = e.tableRows(db, "orders_quarantine")
	require.True(t, ok)
	assert.Equal(t, quarantineColumns, cols)
	assert.Equal(t, mixedQuar, rows)
}

// TestCastErrors: a value that does not cast fails with CastError and nothing is written; a
// missing column cannot be cast.
func TestCastErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", "SELECT * FROM (VALUES ('a', '1.5', NULL::VARCHAR), ('b', 'abc', NULL)) AS t(id, amount, note)")}
	out := runner.ParquetOutput{Path: e.path("out", "orders.parquet")}
	rep, err := run(t, ordersSchema(), runner.Asset{Input: in, Output: out, Quarantine: true}, runner.Options{Cast: true})
	var castErr *outcome.CastError
	require.ErrorAs(t, err, &castErr)
	assert.Equal(t, outcome.CastError{Column: "amount", Value: "abc", Target: "Float64"}, *castErr)
	assert.Equal(t, `Cannot cast column 'amount' to Float64: the value "abc" does not convert. Nothing was written. `+
		`Fix the value in the input, or change the declared dtype.`, err.Error())
	assert.Equal(t, "CastError", rep.Error.Type)
	assert.False(t, rep.Table.Written)
	assert.False(t, exists(t, e.path("out")) && exists(t, out.Path))

	// Without Cast the same input is a column mismatch.
	_, err = run(t, ordersSchema(), runner.Asset{Input: in, Output: out}, runner.Options{})
	var colErr *outcome.ColumnSchemaError
	require.ErrorAs(t, err, &colErr)
	assert.True(t, strings.HasPrefix(err.Error(), "Column 'amount' (expected Float64, got VARCHAR) does not match Orders."), err.Error())

	// Castable strings pass with Cast.
	good := runner.ParquetInput{Path: e.parquet("good.parquet", "SELECT * FROM (VALUES ('a', '1.5', NULL::VARCHAR), ('b', '2', 'ok')) AS t(id, amount, note)")}
	_, err = run(t, ordersSchema(), runner.Asset{Input: good, Output: out}, runner.Options{Cast: true})
	require.NoError(t, err)
	assert.Equal(t, [][]any{{"a", 1.5, nil}, {"b", 2.0, "ok"}}, e.parquetRows(out.Path))

	// Missing columns: every problem at once, and Cast cannot mend them.
	missing := runner.ParquetInput{Path: e.parquet("missing.parquet", "SELECT 'a' AS id")}
	for _, c := range []bool{false, true} {
		rep, err = run(t, ordersSchema(), runner.Asset{Input: missing, Output: out}, runner.Options{Cast: c})
		require.ErrorAs(t, err, &colErr)
		assert.Equal(t, "Columns 'amount' (expected Float64, got <missing>), 'note' (expected String, got <missing>) do not match Orders."+
			strings.Replace(schemaTail, "query", "file", 1)+" The input has the columns id.", err.Error())
		assert.Equal(t, parseJSON(t, `[{"column": "amount", "expected": "Float64", "actual": "<missing>"},
			{"column": "note", "expected": "String", "actual": "<missing>"}]`),
			metadata(t, rep, "dy_schema__columns")["dataframely/column_schema_errors"])
	}
}

// TestInputs: CSV, NDJSON, a query in a database file, a view and a table in a named schema.
func TestInputs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	csv := e.path("raw.csv")
	require.NoError(t, os.WriteFile(csv, []byte("id,amount,note\na,1.0,\nb,-1.0,hi\nc,2.0,toolong\ng,-2.0,x\ne,5000.0,\ng,3.0,\nf,4.0,\nh,-5.0,\n"), 0o644))
	ndjson := e.path("raw.ndjson")
	var lines []string
	for _, r := range [][3]string{{"a", "1.0", "null"}, {"b", "-1.0", `"hi"`}, {"c", "2.0", `"toolong"`}, {"g", "-2.0", `"x"`},
		{"e", "5000.0", "null"}, {"g", "3.0", "null"}, {"f", "4.0", "null"}, {"h", "-5.0", "null"}} {
		lines = append(lines, `{"id": "`+r[0]+`", "amount": `+r[1]+`, "note": `+r[2]+`}`)
	}
	require.NoError(t, os.WriteFile(ndjson, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	db := e.path("src.duckdb")
	e.withDB(db,
		"CREATE TABLE d.raw AS "+ordersSelect(mixedRows+", ('z', 7.0, 'extra')"),
		"CREATE VIEW d.raw_view AS SELECT * FROM raw WHERE id <> 'z'",
		"CREATE SCHEMA d.staging",
		"CREATE TABLE d.staging.raw AS "+ordersSelect(mixedRows),
	)
	inputs := map[string]runner.Input{
		"csv":    runner.CSVInput{Path: csv},
		"ndjson": runner.NDJSONInput{Path: ndjson},
		"query":  runner.QueryInput{SQL: "SELECT * FROM raw WHERE id <> 'z'", File: db},
		"view":   runner.TableInput{File: db, Table: "raw_view"},
		"schema": runner.TableInput{File: db, Schema: "staging", Table: "raw"},
	}
	for name, in := range inputs {
		out := runner.ParquetOutput{Path: e.path(name, "orders.parquet")}
		rep, err := run(t, ordersSchema(), runner.Asset{Input: in, Output: out, Quarantine: true}, runner.Options{})
		require.NoError(t, err, name)
		assert.Equal(t, outcome.Quarantined, outcomeOf(rep), name)
		assert.Equal(t, outcome.Rows{Input: 8, Valid: 3, Invalid: 5}, rep.Rows, name)
		assert.Equal(t, mixedSets, rep.InvalidByRules, name)
		assert.Equal(t, mixedValid, e.parquetRows(out.Path), name)
		assert.Equal(t, mixedQuar, e.parquetRows(out.QuarantineAddress("orders_quarantine")), name)
	}
}

// TestMissingInput: an input that matches no data is an input error, or skipped with SkipMissing.
func TestMissingInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	inputs := []runner.Input{
		runner.ParquetInput{Path: e.path("nothing", "*.parquet")},
		runner.ParquetInput{Path: e.path("absent.parquet")},
		runner.CSVInput{Path: e.path("absent.csv")},
		runner.NDJSONInput{Path: e.path("absent.ndjson")},
		runner.TableInput{File: e.path("absent.duckdb"), Table: "raw"},
	}
	for _, in := range inputs {
		out := runner.ParquetOutput{Path: e.path("out", "orders.parquet")}
		rep, err := run(t, ordersSchema(), runner.Asset{Input: in, Output: out, Quarantine: true}, runner.Options{})
		var inErr *outcome.InputError
		require.ErrorAs(t, err, &inErr, in.String())
		assert.ErrorIs(t, err, runner.ErrNoSourceData, in.String())
		assert.Nil(t, rep.Outcome)
		assert.Equal(t, "InputError", rep.Error.Type)

		rep, err = run(t, ordersSchema(), runner.Asset{Input: in, Output: out, Quarantine: true}, runner.Options{SkipMissing: true})
		require.NoError(t, err, in.String())
		assert.Equal(t, outcome.Skipped, outcomeOf(rep))
		assert.Equal(t, expectChecks(true), summary(rep))
		assert.Equal(t, outcome.Healthy, rep.Health)
		assert.False(t, rep.Table.Written)
		assert.False(t, exists(t, out.Path))
		assert.False(t, exists(t, e.path("absent.duckdb")), "a missing input database is not created")
	}

	// A table that is not there is an input error even with SkipMissing: the source exists.
	db := e.path("wh.duckdb")
	e.table(db, "raw", ordersSelect(allValidRows))
	_, err := run(t, ordersSchema(), runner.Asset{Input: runner.TableInput{File: db, Table: "nope"}}, runner.Options{SkipMissing: true})
	var inErr *outcome.InputError
	require.ErrorAs(t, err, &inErr)
	assert.Contains(t, err.Error(), "main.raw")
}

// TestGranularity: column and schema granularity collapse the rule checks (docs/report.md).
func TestGranularity(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(mixedRows))}
	out := runner.ParquetOutput{Path: e.path("out", "orders.parquet")}
	E, W := outcome.SeverityError, outcome.SeverityWarn
	dyRules := func(t *testing.T, rep *outcome.Report, name string) any {
		return metadata(t, rep, name)["dataframely/rules"]
	}
	const (
		idRules     = `[{"rule": "id|nullability", "failed": 0, "expr": "\"id\" IS NOT NULL"}]`
		amountRules = `[{"rule": "amount|nullability", "failed": 0, "expr": "\"amount\" IS NOT NULL"},
			{"rule": "amount|min", "failed": 3, "expr": "\"amount\" >= CAST('0' AS DOUBLE)"},
			{"rule": "amount|inf", "failed": 0, "expr": "NOT isinf(\"amount\")"},
			{"rule": "amount|nan", "failed": 0, "expr": "NOT isnan(\"amount\")"}]`
		noteRules   = `[{"rule": "note|max_length", "failed": 1, "expr": "strlen(\"note\") <= 5"}]`
		schemaRules = `[{"rule": "amount_small", "failed": 1, "expr": "(amount < 1000)"},
			{"rule": "primary_key", "failed": 2, "expr": "count(*) = 1 per (\"id\")"}]`
	)

	t.Run("column/aborted", func(t *testing.T) {
		rep, err := run(t, ordersSchema(), runner.Asset{Input: in}, runner.Options{Granularity: runner.PerColumn})
		var abort *outcome.ValidationAbortError
		require.ErrorAs(t, err, &abort)
		assert.Equal(t, []chk{
			{"dy_schema__columns", true, E, true},
			{"dy_col__id", true, W, true},
			{"dy_col__amount", false, E, true},
			{"dy_col__note", false, W, false},
			{"dy_schema__rules", false, E, true},
		}, summary(rep))
		results := map[string]string{}
		for _, c := range rep.Checks {
			results[c.Name] = c.ResultDescription
		}
		assert.Equal(t, map[string]string{
			"dy_schema__columns": "Every column matches.",
			"dy_col__id":         "No rule failed.",
			"dy_col__amount":     "1 rule failed: amount|min (3 rows).",
			"dy_col__note":       "1 rule failed: note|max_length (1 row).",
			"dy_schema__rules":   "2 rules failed: amount_small (1 row), primary_key (2 rows).",
		}, results)
		assert.Equal(t, parseJSON(t, idRules), dyRules(t, rep, "dy_col__id"))
		assert.Equal(t, parseJSON(t, amountRules), dyRules(t, rep, "dy_col__amount"))
		assert.Equal(t, parseJSON(t, noteRules), dyRules(t, rep, "dy_col__note"))
		assert.Equal(t, parseJSON(t, schemaRules), dyRules(t, rep, "dy_schema__rules"))
		assert.NotContains(t, metadata(t, rep, "dy_col__id"), "dataframely/failed_row_count")
		assert.Equal(t, 3.0, metadata(t, rep, "dy_col__amount")["dataframely/failed_row_count"])
		assert.Equal(t, 1.0, metadata(t, rep, "dy_col__note")["dataframely/failed_row_count"])
		assert.Equal(t, 3.0, metadata(t, rep, "dy_schema__rules")["dataframely/failed_row_count"], "rows failing any member")
		assert.Equal(t, outcome.Degraded, rep.Health)
		// invalid_by_rules keeps the rule-level check names whatever the granularity.
		assert.Equal(t, mixedSets, rep.InvalidByRules)
	})

	t.Run("column/quarantined", func(t *testing.T) {
		rep, err := run(t, ordersSchema(), runner.Asset{Input: in, Output: out, Quarantine: true}, runner.Options{Granularity: runner.PerColumn})
		require.NoError(t, err)
		assert.Equal(t, []chk{
			{"dy_schema__columns", true, E, true},
			{"dy_col__id", true, W, false},
			{"dy_col__amount", false, E, false},
			{"dy_col__note", false, W, false},
			{"dy_schema__rules", false, E, false},
		}, summary(rep))
		assert.Equal(t, outcome.Degraded, rep.Health)
		// The quarantine keeps one column per rule whatever the granularity.
		assert.Equal(t, mixedQuar, e.parquetRows(out.QuarantineAddress("orders_quarantine")))
	})

	t.Run("column/per_rule", func(t *testing.T) {
		rep, err := run(t, ordersSchema(), runner.Asset{Input: in}, runner.Options{Granularity: runner.PerColumn, SchemaRulesPerRule: true})
		require.Error(t, err)
		assert.Equal(t, []chk{
			{"dy_schema__columns", true, E, true},
			{"dy_col__id", true, W, true},
			{"dy_col__amount", false, E, true},
			{"dy_col__note", false, W, false},
			{"dy_rule__amount_small", false, E, true},
			{"dy_rule__primary_key", false, E, true},
		}, summary(rep))
		m := metadata(t, rep, "dy_rule__primary_key")
		assert.Equal(t, "primary_key", m["dataframely/rule"])
		assert.Equal(t, 2.0, m["dataframely/failed_row_count"])
		assert.NotContains(t, m, "dataframely/rules")
	})

	t.Run("schema/aborted", func(t *testing.T) {
		rep, err := run(t, ordersSchema(), runner.Asset{Input: in}, runner.Options{Granularity: runner.PerSchema, MaxFailureSamples: 2})
		require.Error(t, err)
		assert.Equal(t, []chk{{"dy_schema__columns", true, E, true}, {"dy_schema__rules", false, E, true}}, summary(rep))
		m := metadata(t, rep, "dy_schema__rules")
		var all []any
		for _, s := range []string{schemaRules, idRules, amountRules, noteRules} {
			all = append(all, parseJSON(t, s).([]any)...)
		}
		assert.Equal(t, all, m["dataframely/rules"])
		assert.Equal(t, 6.0, m["dataframely/failed_row_count"], "5 invalid rows and one failing only the warn rule")
		sample := m["dataframely/failed_examples"].([]any)
		assert.Len(t, sample, 2, "bounded by MaxFailureSamples")
		for _, s := range sample {
			assert.Contains(t, s.(map[string]any), "dy_rule")
		}
	})

	t.Run("schema/quarantined", func(t *testing.T) {
		rep, err := run(t, ordersSchema(), runner.Asset{Input: in, Output: out, Quarantine: true}, runner.Options{Granularity: runner.PerSchema})
		require.NoError(t, err)
		assert.Equal(t, []chk{{"dy_schema__columns", true, E, true}, {"dy_schema__rules", false, E, false}}, summary(rep))
		assert.Equal(t, outcome.Degraded, rep.Health)
	})

	t.Run("schema/warn_only_aborted", func(t *testing.T) {
		// The only failing member is a warn rule: the collapsed check fails at WARN.
		warnIn := runner.ParquetInput{Path: e.parquet("warn.parquet", ordersSelect(warnOnlyRows))}
		rep, err := run(t, ordersSchema(), runner.Asset{Input: warnIn}, runner.Options{Granularity: runner.PerSchema})
		require.NoError(t, err)
		assert.Equal(t, outcome.AllValid, outcomeOf(rep))
		assert.Equal(t, []chk{{"dy_schema__columns", true, E, true}, {"dy_schema__rules", false, W, true}}, summary(rep))
		assert.Equal(t, outcome.Warning, rep.Health)
	})

	t.Run("schema/skipped", func(t *testing.T) {
		rep, err := run(t, ordersSchema(), runner.Asset{Output: out}, runner.Options{Granularity: runner.PerSchema})
		require.NoError(t, err)
		assert.Equal(t, []chk{{"dy_schema__columns", true, E, true}, {"dy_schema__rules", true, W, true}}, summary(rep))
		m := metadata(t, rep, "dy_schema__rules")
		for _, r := range m["dataframely/rules"].([]any) {
			assert.Equal(t, 0.0, r.(map[string]any)["failed"])
		}
		assert.Len(t, m["dataframely/rules"], 8)
	})
}

// TestSettings: settings come from TABLEGATE_* variables and bad values name the setting, the
// value and the source.
func TestSettings(t *testing.T) {
	t.Parallel()
	// A later source overrides an earlier one; a rejected value changes nothing.
	opts := runner.Options{Granularity: runner.PerColumn}
	require.NoError(t, opts.ApplySetting(runner.SettingCheckGranularity, "schema", "flag --granularity"))
	assert.Equal(t, runner.PerSchema, opts.Granularity)
	err := opts.ApplySetting(runner.SettingCheckGranularity, "rows", "flag --granularity")
	assert.EqualError(t, err, `setting check_granularity: "rows" (from flag --granularity) is not allowed; use rule, column or schema`)
	assert.Equal(t, runner.PerSchema, opts.Granularity, "a rejected value changes nothing")
	require.NoError(t, opts.ApplySetting(runner.SettingMaxFailureSamples, "0", "flag --samples"))
	assert.Equal(t, -1, opts.MaxFailureSamples, "0 samples means none")
}

// TestParquetGlobInput: a glob reads every matching file, rows in file then row order.
func TestParquetGlobInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.parquet("in/part-1.parquet", ordersSelect(`('a', 1.0, NULL), ('b', -1.0, 'hi')`))
	e.parquet("in/part-2.parquet", ordersSelect(`('c', 2.0, NULL), ('d', 3.0, NULL)`))
	// A file with no rows takes no ordinals: the files after it keep theirs dense.
	e.parquet("in/part-3.parquet", emptySelect())
	e.parquet("in/part-4.parquet", ordersSelect(`('e', -2.0, NULL), ('f', 4.0, NULL)`))
	out := runner.ParquetOutput{Path: e.path("out", "orders.parquet")}
	rep, err := run(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput{Path: e.path("in", "*.parquet")}, Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, outcome.Rows{Input: 6, Valid: 4, Invalid: 2}, rep.Rows)
	assert.Equal(t, [][]any{{"a", 1.0, nil}, {"c", 2.0, nil}, {"d", 3.0, nil}, {"f", 4.0, nil}}, e.parquetRows(out.Path))
	assert.Equal(t, [][]any{qrow("b", -1.0, "hi", "amount__min"), qrow("e", -2.0, nil, "amount__min")}, e.parquetRows(out.QuarantineAddress("orders_quarantine")))
}

// TestParquetGlobFileTypes: every file of a glob must store each declared column as the scan
// reads it; DuckDB would cast a disagreeing file's values to the first file's type (3750.6 to
// 3751) or fail mid-scan on a missing column. The footers say so before any row is read, and
// --cast cannot mend it.
func TestParquetGlobFileTypes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := schema.New("Masses", schema.Float64("mass"), schema.String("name").Nullable(),
		schema.Struct("geo", schema.Int32("a")).Nullable())
	row := func(mass, geo string) string {
		return "SELECT " + mass + " AS mass, 'x' AS name, " + geo + " AS geo"
	}
	e.parquet("agree/a.parquet", row("1.0::DOUBLE", "{'a': 1::INTEGER}"))
	e.parquet("agree/b.parquet", row("2.5::DOUBLE", "NULL::STRUCT(a INTEGER)"))
	e.parquet("glob/a.parquet", row("1::BIGINT", "{'a': 1::INTEGER}"))
	e.parquet("glob/b.parquet", row("3750.6::DOUBLE", "{'a': 1.5::DOUBLE}"))
	e.parquet("glob/c.parquet", "SELECT 2::BIGINT AS mass, {'a': 2::INTEGER} AS geo")

	rep, err := run(t, s, runner.Asset{Input: runner.ParquetInput{Path: e.path("agree", "*.parquet")}}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, int64(2), rep.Rows.Valid)

	for _, cast := range []bool{false, true} {
		out := runner.ParquetOutput{Path: e.path("out", fmt.Sprint(cast), "m.parquet")}
		rep, err = run(t, s, runner.Asset{Input: runner.ParquetInput{Path: e.path("glob", "*.parquet")}, Output: out, Quarantine: true},
			runner.Options{Cast: cast})
		var colErr *outcome.ColumnSchemaError
		require.ErrorAs(t, err, &colErr, "cast %v", cast)
		a, b, c := e.path("glob", "a.parquet"), e.path("glob", "b.parquet"), e.path("glob", "c.parquet")
		// The scan reads the first file's types: mass BIGINT, which is not Float64 either.
		assert.Equal(t, []casting.Mismatch{
			{Column: "mass", Expected: "Float64", Actual: "BIGINT", Cast: "lossy"},
			{Column: "mass", Expected: "BIGINT", Actual: "DOUBLE", File: b, Reference: a},
			{Column: "name", Expected: "VARCHAR", Actual: casting.Missing, File: c, Reference: a},
			{Column: "geo", Expected: "STRUCT(a INTEGER)", Actual: "STRUCT(a DOUBLE)", File: b, Reference: a},
		}, colErr.Mismatches, "cast %v", cast)
		assert.Equal(t, outcome.ColumnSchemaMismatch, outcomeOf(rep))
		assert.Contains(t, err.Error(), "'mass' in "+b+" (DOUBLE, where "+a+" has BIGINT)")
		assert.Contains(t, err.Error(), "'name' in "+c+" (missing, where "+a+" has VARCHAR)")
		assert.False(t, exists(t, out.Path), "nothing written")
	}
}

// TestOrdinalColumnNames: input columns named like the ordinals DuckDB provides (file_row_number,
// file_index, rowid) hide them; the rows still come out in input order with the right verdicts.
func TestOrdinalColumnNames(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	extra := func(values string) string {
		return "SELECT *, 'x' || id AS file_index, 7 AS file_row_number, 1.5 AS rowid FROM (" + ordersSelect(values) + ")"
	}
	e.parquet("one/a.parquet", extra(`('a', 1.0, NULL), ('b', -1.0, NULL), ('c', 2.0, NULL)`))
	e.parquet("many/a.parquet", extra(`('a', 1.0, NULL), ('b', -1.0, NULL)`))
	e.parquet("many/b.parquet", extra(`('c', 2.0, NULL), ('d', 3.0, NULL)`))
	for _, c := range []struct {
		dir, input string
		valid      [][]any
	}{
		{"one", e.path("one", "a.parquet"), [][]any{{"a", 1.0, nil}, {"c", 2.0, nil}}},
		{"many", e.path("many", "*.parquet"), [][]any{{"a", 1.0, nil}, {"c", 2.0, nil}, {"d", 3.0, nil}}},
	} {
		out := runner.ParquetOutput{Path: e.path("out", c.dir, "orders.parquet")}
		rep, err := run(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput{Path: c.input}, Output: out, Quarantine: true}, runner.Options{})
		require.NoError(t, err, c.input)
		assert.Equal(t, int64(1), rep.Rows.Invalid, c.input)
		assert.Equal(t, c.valid, e.parquetRows(out.Path), c.input)
	}
}

// TestTypedErrorsThroughWrapping: the typed errors work with errors.As after wrapping.
func TestTypedErrorsThroughWrapping(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(oneInvalidRows))}
	_, err := run(t, ordersSchema(), runner.Asset{Input: in}, runner.Options{})
	wrapped := errors.Join(errors.New("nightly load"), err)
	var abort *outcome.ValidationAbortError
	require.ErrorAs(t, wrapped, &abort)
	assert.Equal(t, []outcome.RuleCount{{Rule: "amount|min", Count: 1}}, abort.Counts)
}

// TestSameTableInAndOut: a DuckDB table validated and rewritten in place keeps its valid rows.
func TestSameTableInAndOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	db := e.path("wh.duckdb")
	e.table(db, "orders", ordersSelect(mixedRows))
	a := runner.Asset{Input: runner.TableInput{File: db, Table: "orders"}, Output: runner.TableOutput{File: db, Table: "orders"}}

	_, err := run(t, ordersSchema(), a, runner.Options{})
	var abort *outcome.ValidationAbortError
	require.ErrorAs(t, err, &abort)
	rows, _, ok := e.tableRows(db, "orders")
	require.True(t, ok)
	assert.Len(t, rows, 8, "an aborted run leaves the table as it was")

	a.Quarantine = true
	rep, err := run(t, ordersSchema(), a, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, outcome.Quarantined, outcomeOf(rep))
	rows, _, ok = e.tableRows(db, "orders")
	require.True(t, ok)
	assert.Equal(t, mixedValid, rows)
	rows, _, ok = e.tableRows(db, "orders_quarantine")
	require.True(t, ok)
	assert.Equal(t, mixedQuar, rows)

	// Again over rows with invalid ones: the quarantine those rows replace exists nowhere else,
	// so it is kept, with a warning.
	e.table(db, "orders", ordersSelect(oneInvalidRows))
	rep, err = run(t, ordersSchema(), a, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"the previous quarantine " + db + ":orders_quarantine is kept as " + db +
		":orders_quarantine_prev: this run's input is its own table, so those rows exist nowhere else"}, rep.Warnings)
	rows, _, ok = e.tableRows(db, "orders_quarantine_prev")
	require.True(t, ok)
	assert.Equal(t, mixedQuar, rows)
	assert.Equal(t, []string{"b"}, ids(e.tableRows(db, "orders_quarantine")))
}

// TestConcurrentRuns: one engine runs different assets at the same time.
func TestConcurrentRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	mixed := runner.ParquetInput{Path: e.parquet("mixed.parquet", ordersSelect(mixedRows))}
	valid := runner.ParquetInput{Path: e.parquet("valid.parquet", ordersSelect(allValidRows))}
	p, err := compile.Compile(ordersSchema())
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	defer eng.Close()
	type result struct {
		rep *outcome.Report
		err error
	}
	results := make([]chan result, 8)
	for i := range results {
		results[i] = make(chan result, 1)
		in := runner.Input(mixed)
		if i%2 == 1 {
			in = valid
		}
		out := runner.ParquetOutput{Path: e.path(fmt.Sprintf("out%d", i), "orders.parquet")}
		go func(ch chan result) {
			rep, err := eng.Run(context.Background(), runner.Asset{Plan: p, Input: in, Output: out, Quarantine: true}, runner.Options{})
			ch <- result{rep, err}
		}(results[i])
	}
	for i, ch := range results {
		r := <-ch
		require.NoError(t, r.err)
		out := e.path(fmt.Sprintf("out%d", i), "orders.parquet")
		if i%2 == 0 {
			assert.Equal(t, outcome.Quarantined, outcomeOf(r.rep))
			assert.Equal(t, mixedValid, e.parquetRows(out))
		} else {
			assert.Equal(t, outcome.AllValid, outcomeOf(r.rep))
			assert.Equal(t, [][]any{{"a", 1.0, nil}, {"b", 2.5, "ok"}}, e.parquetRows(out))
		}
	}
}

// TestSchemaWithoutRules: a schema with no rules reports only the column check.
func TestSchemaWithoutRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := schema.New("Loose", schema.String("id").Nullable(), schema.Any("amount").Nullable())
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(mixedRows))}
	for _, g := range []runner.Granularity{runner.PerRule, runner.PerColumn, runner.PerSchema} {
		out := runner.ParquetOutput{Path: e.path(string(g), "loose.parquet")}
		rep, err := run(t, s, runner.Asset{Input: in, Output: out, Quarantine: true}, runner.Options{Granularity: g})
		require.NoError(t, err)
		assert.Equal(t, outcome.AllValid, outcomeOf(rep))
		assert.Equal(t, []chk{{"dy_schema__columns", true, outcome.SeverityError, true}}, summary(rep), string(g))
		assert.Equal(t, outcome.Rows{Input: 8, Valid: 8}, rep.Rows)
		assert.Equal(t, []string{"id VARCHAR", "amount DOUBLE"}, e.parquetColumns(out.Path))
		assert.Len(t, e.parquetRows(out.Path), 8)
	}
}

// TestRowSample: RowSample adds the first valid and invalid rows to the report (the
// --row-sample flag: "valid and invalid rows shown in the report").
func TestRowSample(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(mixedRows))}
	rep, err := run(t, ordersSchema(), runner.Asset{Input: in}, runner.Options{RowSample: 2})
	require.Error(t, err)
	assert.Equal(t, parseJSON(t, `[{"id": "a", "amount": 1, "note": null}, {"id": "c", "amount": 2, "note": "toolong"}]`), jsonValue(t, rep.ValidSample))
	assert.Equal(t, parseJSON(t, `[{"id": "b", "amount": -1, "note": "hi"}, {"id": "g", "amount": -2, "note": "x"}]`), jsonValue(t, rep.InvalidSample))

	rep, err = run(t, ordersSchema(), runner.Asset{Input: in}, runner.Options{})
	require.Error(t, err)
	assert.Nil(t, rep.ValidSample)
	assert.Nil(t, rep.InvalidSample)
	assert.NotContains(t, jsonValue(t, rep).(map[string]any), "valid_sample")

	valid := runner.ParquetInput{Path: e.parquet("valid.parquet", ordersSelect(allValidRows))}
	rep, err = run(t, ordersSchema(), runner.Asset{Input: valid}, runner.Options{RowSample: 5})
	require.NoError(t, err)
	assert.Equal(t, parseJSON(t, `[{"id": "a", "amount": 1, "note": null}, {"id": "b", "amount": 2.5, "note": "ok"}]`), jsonValue(t, rep.ValidSample))
	assert.Nil(t, rep.InvalidSample)
}

// TestNonFiniteValuesInReport: NaN and infinities in samples keep the report valid JSON.
func TestNonFiniteValuesInReport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(`('n', 'nan'::DOUBLE, NULL), ('i', '-inf'::DOUBLE, 'x'), ('a', 1.0, NULL)`))}
	rep, err := run(t, ordersSchema(), runner.Asset{Input: in}, runner.Options{})
	require.Error(t, err)
	data, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.True(t, json.Valid(data))
	assert.Equal(t, parseJSON(t, `[{"id": "n", "amount": "NaN", "note": null}]`), metadata(t, rep, "dy_rule__amount__nan")["dataframely/failed_examples"])
	assert.Equal(t, parseJSON(t, `[{"id": "i", "amount": "-Infinity", "note": "x"}]`), metadata(t, rep, "dy_rule__amount__inf")["dataframely/failed_examples"])
}

// TestFailedFlushKeepsLastKnownGood: when the disk refuses to flush a new Parquet file (the
// table's or the quarantine's), the run fails with an OutputError that wraps the disk's error and
// has no outcome; the previous table and quarantine stay byte for byte, and no temporary file is
// left. Not parallel: it swaps the package's flush.
func TestFailedFlushKeepsLastKnownGood(t *testing.T) {
	b := backends[0]
	require.Equal(t, "parquet", b.name)
	for _, c := range []struct {
		name, file string // the temporary whose flush fails, by its name's end
		rows       string
	}{
		{"the table's flush, a quarantined run", "-table.tmp", mixedRows},
		{"the quarantine's flush", "-quarantine.tmp", mixedRows},
		{"the table's flush, an all-valid run that would remove the quarantine", "-table.tmp", allValidRows},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			asset := func(rows string) runner.Asset {
				return runner.Asset{Input: b.input(e, ordersSelect(rows)), Output: b.output(e), Quarantine: true}
			}
			_, err := run(t, ordersSchema(), asset(warnOnlyRows), runner.Options{})
			require.NoError(t, err)
			_, err = run(t, ordersSchema(), asset(mixedRows), runner.Options{})
			require.NoError(t, err)
			read := func(path string) []byte {
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				return data
			}
			table, quarantine := read(b.tableAddr(e)), read(b.quarantineAddr(e))

			var failed []string
			restore := duckdb.FailSyncFile(func(path string) error {
				if strings.HasSuffix(filepath.Base(path), c.file) {
					failed = append(failed, path)
					return &os.PathError{Op: "fsync", Path: path, Err: syscall.ENOSPC}
				}
				return nil
			})
			rep, err := run(t, ordersSchema(), asset(c.rows), runner.Options{})
			restore()
			require.Len(t, failed, 1, "the injected flush ran once")
			var outErr *outcome.OutputError
			require.ErrorAs(t, err, &outErr)
			assert.ErrorIs(t, err, syscall.ENOSPC)
			assert.Nil(t, rep.Outcome, "a run that could not write has no outcome")
			assert.False(t, rep.Table.Written)
			assert.Equal(t, table, read(b.tableAddr(e)), "the previous table, byte for byte")
			assert.Equal(t, quarantine, read(b.quarantineAddr(e)), "the previous quarantine, byte for byte")
			assert.Empty(t, b.leftovers(e))
		})
	}
}

// TestGlobKeyRulesMatchOneFile: key rules over a multi-file input (whose keys are aggregated
// from a copy of the key columns) find what they find over the same rows in one file: a
// duplicated primary key, a duplicated string key, and a group rule reading another column.
func TestGlobKeyRulesMatchOneFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, err := schema.Parse([]byte(`schema: K
columns:
  - {name: id, type: Int64, primary_key: true}
  - {name: code, type: String, unique: true}
  - {name: cust, type: Int64}
  - {name: amt, type: Float64}
rules:
  - {name: small_total, sql: "sum(amt) < 200", group_by: [cust]}
`), "k.yaml")
	require.NoError(t, err)
	// Every 50th id repeats the one before; every 70th code too; customer 3 spends too much.
	rows := func(lo, hi int) string {
		return fmt.Sprintf(`SELECT CASE WHEN i %% 50 = 0 THEN i - 1 ELSE i END AS id,
			'c' || CASE WHEN i %% 70 = 0 THEN i - 1 ELSE i END AS code,
			i %% 11 AS cust, CASE WHEN i %% 11 = 3 THEN 9.5 ELSE 0.5 END::DOUBLE AS amt
			FROM range(%d, %d) t(i) ORDER BY i`, lo, hi)
	}
	one := e.parquet("one/all.parquet", rows(1, 3001))
	for f := range 3 {
		e.parquet(fmt.Sprintf("many/part-%d.parquet", f), rows(1+f*1000, 1001+f*1000))
	}
	outcomeOf := func(in string) (map[string]any, [][]any) {
		out := runner.ParquetOutput{Path: e.path("out", filepath.Base(filepath.Dir(in)), "k.parquet")}
		rep, err := run(t, s, runner.Asset{Input: runner.ParquetInput{Path: in}, Output: out, Quarantine: true}, runner.Options{})
		require.NoError(t, err)
		counts := map[string]any{"rows": rep.Rows, "by_rules": rep.InvalidByRules}
		for _, c := range rep.Checks {
			counts[c.Name] = c.Failed
		}
		return counts, e.parquetRows(out.Path)
	}
	oneCounts, oneRows := outcomeOf(one)
	manyCounts, manyRows := outcomeOf(e.path("many", "*.parquet"))
	assert.Equal(t, oneCounts, manyCounts)
	assert.Equal(t, oneRows, manyRows)
	// The rules did find something to agree on.
	for _, check := range []string{"dy_rule__primary_key", "dy_rule__code__unique", "dy_rule__small_total"} {
		assert.NotNil(t, oneCounts[check], check)
	}

	// explain shows the copy for the files, and none for the one file.
	p, err := compile.Compile(s)
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	many, err := eng.Explain(context.Background(), p, runner.ParquetInput{Path: e.path("many", "*.parquet")})
	require.NoError(t, err)
	assert.Contains(t, many, `CREATE OR REPLACE TEMP TABLE temp.main."__tg_keysource_1" AS SELECT "cust", "amt", "id" FROM read_parquet(`)
	assert.Equal(t, 2, strings.Count(many, `FROM temp.main."__tg_keysource_1"`), "the id and cust groups read the copy, the code group the files")
	single, err := eng.Explain(context.Background(), p, runner.ParquetInput{Path: one})
	require.NoError(t, err)
	assert.NotContains(t, single, "__tg_keysource")
}
