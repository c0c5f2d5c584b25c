package duckdb_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// ordersWithTableChecks is ordersSchema with table checks added.
func ordersWithTableChecks(checks ...*schema.TableCheck) *schema.Schema {
	return ordersSchema().AddTableCheck(checks...)
}

// TestTableCheckOutcomes runs every outcome with a table check present and failing: a failing
// error check wins over aborted, no_valid_rows and quarantined and writes nothing; the column
// mismatch still comes first; no source data passes; a warn check only warns. Parquet →
// Parquet; TestSlowTableCheckOutcomes for DuckDB table → table.
func TestTableCheckOutcomes(t *testing.T) {
	t.Parallel()
	tableCheckOutcomes(t, backends[:1])
}

// TestSlowTableCheckOutcomes is TestTableCheckOutcomes for DuckDB table → table.
func TestSlowTableCheckOutcomes(t *testing.T) {
	testenv.Slow(t)
	t.Parallel()
	tableCheckOutcomes(t, backends[1:])
}

func tableCheckOutcomes(t *testing.T, backends []backend) {
	enough := schema.Condition("enough_rows", "count(*) >= 1000")
	cases := []struct {
		name       string
		query      string // "" for no source data
		quarantine bool
		checks     []*schema.TableCheck
		want       outcome.Outcome
		written    bool // the table (and, with a quarantine and invalid rows, the quarantine)
	}{
		{"all valid", allValidRows, false, []*schema.TableCheck{enough}, outcome.TableCheckFailed, false},
		{"all valid/quarantine", allValidRows, true, []*schema.TableCheck{enough}, outcome.TableCheckFailed, false},
		{"mixed, would abort", mixedRows, false, []*schema.TableCheck{enough}, outcome.TableCheckFailed, false},
		{"mixed, would quarantine", mixedRows, true, []*schema.TableCheck{enough}, outcome.TableCheckFailed, false},
		{"all invalid, would abort", allInvalidRows, false, []*schema.TableCheck{enough}, outcome.TableCheckFailed, false},
		{"all invalid, no valid rows", allInvalidRows, true, []*schema.TableCheck{enough}, outcome.TableCheckFailed, false},
		{"no source data", "", true, []*schema.TableCheck{enough}, outcome.Skipped, false},
		{"warn only", mixedRows, true, []*schema.TableCheck{schema.Metric("enough_rows", "count(*)").Min(1000).Warn()}, outcome.Quarantined, true},
		{"warn, all valid", allValidRows, false, []*schema.TableCheck{schema.Metric("enough_rows", "count(*)").Min(1000).Warn()}, outcome.AllValid, true},
		{"passing", mixedRows, true, []*schema.TableCheck{schema.Condition("enough_rows", "count(*) >= 1")}, outcome.Quarantined, true},
	}
	for _, b := range backends {
		for _, tc := range cases {
			t.Run(b.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				a := runner.Asset{Output: b.output(e), Quarantine: tc.quarantine}
				if tc.query != "" {
					a.Input = b.input(e, ordersSelect(tc.query))
				}
				rep, err := run(t, ordersWithTableChecks(tc.checks...), a, runner.Options{})
				require.NotNil(t, rep.Outcome, "err: %v", err)
				assert.Equal(t, tc.want, *rep.Outcome)
				// The table check reports after every rule check.
				last := rep.Checks[len(rep.Checks)-1]
				assert.Equal(t, "dy_table__enough_rows", last.Name)
				assert.Equal(t, len(ruleChecks)+2, len(rep.Checks))
				_, tableWritten, _ := b.table(e)
				_, quarWritten, _ := b.quarantine(e)
				assert.Equal(t, tc.written, tableWritten != nil, "table written")
				assert.Equal(t, rep.Table.Written, tableWritten != nil)
				assert.Equal(t, rep.Quarantine.Written, quarWritten != nil)
				switch tc.want {
				case outcome.TableCheckFailed:
					var tce *outcome.TableCheckError
					require.ErrorAs(t, err, &tce)
					assert.Equal(t, "TableCheckError", rep.Error.Type)
					assert.Contains(t, err.Error(), "dy_table__enough_rows (count(*) >= 1000 is false: count(*) is ")
					assert.Contains(t, err.Error(), "Nothing was written")
					assert.False(t, last.Passed)
					assert.Equal(t, outcome.SeverityError, last.Severity)
					assert.True(t, last.Blocking)
					assert.Equal(t, outcome.Degraded, rep.Health)
					assert.False(t, quarWritten != nil, "no quarantine on a failing table check")
					// The rule checks still report their counts.
					if tc.query == mixedRows {
						assert.Equal(t, float64(3), metadata(t, rep, "dy_rule__amount__min")["dataframely/failed_row_count"])
						assert.Equal(t, int64(5), rep.Rows.Invalid)
					}
				case outcome.Skipped:
					require.NoError(t, err)
					assert.True(t, last.Passed)
					assert.Contains(t, last.ResultDescription, "no source data")
				default:
					require.NoError(t, err)
					if strings.HasPrefix(tc.name, "warn") {
						assert.False(t, last.Passed)
						assert.Equal(t, outcome.SeverityWarn, last.Severity)
						assert.NotEqual(t, outcome.Healthy, rep.Health)
						m := metadata(t, rep, last.Name)
						assert.Equal(t, float64(1000), m["tablegate/min"])
						assert.NotContains(t, m, "tablegate/max")
						assert.Contains(t, last.ResultDescription, "below the minimum 1000")
					} else {
						assert.True(t, last.Passed)
						assert.Equal(t, true, metadata(t, rep, last.Name)["tablegate/value"])
					}
				}
				assert.Empty(t, b.leftovers(e))
			})
		}
	}
}

// TestTableCheckColumnMismatchFirst: the column-schema mismatch comes before a table check.
func TestTableCheckColumnMismatchFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := runner.ParquetInput{Path: e.parquet("in.parquet", "SELECT id, note FROM ("+ordersSelect(allValidRows)+")")}
	rep, err := run(t, ordersWithTableChecks(schema.Condition("enough_rows", "count(*) >= 1000")),
		runner.Asset{Input: in, Output: runner.ParquetOutput{Path: e.path("out.parquet")}, Quarantine: true}, runner.Options{})
	var colErr *outcome.ColumnSchemaError
	require.ErrorAs(t, err, &colErr)
	assert.Equal(t, outcome.ColumnSchemaMismatch, *rep.Outcome)
}

// TestTableCheckKeepsLastKnownGood: a failing table check leaves the table and the quarantine of
// the run before as they were, byte for byte.
func TestTableCheckKeepsLastKnownGood(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out := runner.ParquetOutput{Path: e.path("out", "orders.parquet")}
	in := runner.ParquetInput{Path: e.parquet("in.parquet", ordersSelect(mixedRows))}
	_, err := run(t, ordersSchema(), runner.Asset{Input: in, Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	table, err := os.ReadFile(out.Path)
	require.NoError(t, err)
	quar, err := os.ReadFile(e.path("out", "orders_quarantine.parquet"))
	require.NoError(t, err)

	in2 := runner.ParquetInput{Path: e.parquet("in2.parquet", ordersSelect(oneInvalidRows))}
	_, err = run(t, ordersWithTableChecks(schema.Condition("enough_rows", "count(*) >= 1000")), runner.Asset{Input: in2, Output: out, Quarantine: true}, runner.Options{})
	var tce *outcome.TableCheckError
	require.ErrorAs(t, err, &tce)
	after, err := os.ReadFile(out.Path)
	require.NoError(t, err)
	afterQuar, err := os.ReadFile(e.path("out", "orders_quarantine.parquet"))
	require.NoError(t, err)
	assert.True(t, string(table) == string(after), "the table changed")
	assert.True(t, string(quar) == string(afterQuar), "the quarantine changed")
}

// TestTableCheckRuleResults: invalid_rows() and failed_rows('rule') read the run's counts.
func TestTableCheckRuleResults(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := ordersWithTableChecks(
		schema.Condition("few_invalid", "invalid_rows() <= 0.05 * count(*)"),
		schema.Metric("min_failures", "failed_rows('amount|min')").Max(3),
		schema.Metric("warn_failures", "failed_rows('note|max_length') + 0.5").Max(1),
		schema.Metric("invalid_share", "invalid_rows() / count(*)"),
	)
	rep, err := run(t, s, runner.Asset{Input: runner.ParquetInput{Path: e.parquet("in.parquet", ordersSelect(mixedRows))},
		Output: runner.ParquetOutput{Path: e.path("out.parquet")}, Quarantine: true}, runner.Options{})
	var tce *outcome.TableCheckError
	require.ErrorAs(t, err, &tce)
	require.Len(t, tce.Failures, 2, "%v", err)
	assert.Equal(t, "dy_table__few_invalid", tce.Failures[0].Check)
	assert.Equal(t, "dy_table__warn_failures", tce.Failures[1].Check)
	assert.Contains(t, tce.Failures[1].Why, "is 1.5, above the maximum 1")
	assert.Equal(t, float64(3), metadata(t, rep, "dy_table__min_failures")["tablegate/value"])
	assert.Equal(t, 5.0/8, metadata(t, rep, "dy_table__invalid_share")["tablegate/value"])
	assert.Equal(t, false, metadata(t, rep, "dy_table__few_invalid")["tablegate/value"])
}

// TestTableCheckNullAndEmpty: over no rows a condition on max() is NULL and fails; a metric
// without bounds passes with a null value; count(*) is 0.
func TestTableCheckNullAndEmpty(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := ordersWithTableChecks(
		schema.Condition("fresh", "max(amount) > 0"),
		schema.Metric("mean", "avg(amount)"),
		schema.Metric("volume", "count(*)").Min(0),
	)
	rep, err := run(t, s, runner.Asset{Input: runner.ParquetInput{Path: e.parquet("in.parquet", emptySelect())}}, runner.Options{})
	var tce *outcome.TableCheckError
	require.ErrorAs(t, err, &tce)
	require.Len(t, tce.Failures, 1)
	assert.Contains(t, tce.Failures[0].Why, "is NULL")
	assert.Nil(t, metadata(t, rep, "dy_table__mean")["tablegate/value"])
	assert.Equal(t, float64(0), metadata(t, rep, "dy_table__volume")["tablegate/value"])
}

// TestAnomalyBand draws bands from 0, 4 and 30 earlier runs and judges a 10x jump.
func TestAnomalyBand(t *testing.T) {
	t.Parallel()
	a := schema.Anomaly{}.WithDefaults()
	earlier := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = 1000 + float64(i%5)*10 // 1000 … 1040
		}
		return out
	}
	cases := []struct {
		name    string
		history []float64 // nil: no history at all
		value   float64
		passed  bool
		why     string
	}{
		{"no history", nil, 10000, true, "no history"},
		{"0 earlier runs", earlier(0), 10000, true, "0 earlier runs recorded, the band needs 5"},
		{"4 earlier runs", earlier(4), 10000, true, "4 earlier runs recorded, the band needs 5"},
		{"30 earlier runs, usual", earlier(30), 1025, true, "within the band"},
		{"30 earlier runs, 10x jump", earlier(30), 10200, false, "above the band's high"},
		{"30 earlier runs, drop", earlier(30), 102, false, "below the band's low"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			s := schema.New("Volume", schema.Int64("n")).AddTableCheck(schema.Metric("volume", "count(*)").Anomaly(schema.Anomaly{}))
			in := runner.ParquetInput{Path: e.parquet("in.parquet", "SELECT range AS n FROM range("+strconv.Itoa(int(tc.value))+")")}
			var opts runner.Options
			if tc.history != nil {
				opts.Baselines = func(_ context.Context, asset string, checks map[string]int) (map[string][]float64, error) {
					assert.Equal(t, "Volume", asset)
					assert.Equal(t, map[string]int{"dy_table__volume": 30}, checks)
					return map[string][]float64{"dy_table__volume": tc.history}, nil
				}
			}
			rep, err := run(t, s, runner.Asset{Input: in}, opts)
			check := rep.Checks[len(rep.Checks)-1]
			assert.Equal(t, tc.passed, check.Passed)
			assert.Equal(t, tc.passed, err == nil, "err: %v", err)
			assert.Contains(t, check.ResultDescription, tc.why)
			m := metadata(t, rep, "dy_table__volume")
			if tc.history == nil {
				assert.NotContains(t, m, "tablegate/baseline")
				return
			}
			base := m["tablegate/baseline"].(map[string]any)
			assert.Equal(t, float64(min(len(tc.history), a.Lookback)), base["runs"])
			if len(tc.history) >= a.MinHistory {
				assert.Equal(t, 1020.0, base["median"])
				assert.Equal(t, 10.0, base["mad"])
				assert.InDelta(t, 1020+3*1.4826*10, base["high"], 1e-9)
				assert.InDelta(t, 1020-3*1.4826*10, base["low"], 1e-9)
			}
		})
	}

}

// TestTableChecksExplained: explain shows the table checks' statement, and it is what runs.
func TestTableChecksExplained(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := ordersWithTableChecks(schema.Condition("few_invalid", "invalid_rows() <= 0.05 * count(*)"))
	p, err := compile.Compile(s)
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	in := runner.ParquetInput{Path: e.parquet("in.parquet", ordersSelect(mixedRows))}
	text, err := eng.ExplainAsset(context.Background(), runner.Asset{Plan: p, Input: in}, runner.Options{})
	require.NoError(t, err)
	assert.Contains(t, text, "evaluate the table checks: read the table checks' values")
	assert.Contains(t, text, "CAST($1 AS BIGINT[])[1]")
	_, trace, err := runTraced(t, s, runner.Asset{Input: in}, runner.Options{})
	var tce *outcome.TableCheckError
	require.ErrorAs(t, err, &tce)
	assert.Contains(t, trace, "CAST($1 AS BIGINT[])[1]")
}

// TestTableCheckSpecs: orchestrators declare the table checks up front, after the rule checks.
func TestTableCheckSpecs(t *testing.T) {
	t.Parallel()
	p, err := compile.Compile(ordersWithTableChecks(schema.Metric("volume", "count(*)").Min(1).Warn()))
	require.NoError(t, err)
	specs := runner.CheckSpecs(p, true, runner.Options{})
	last := specs[len(specs)-1]
	assert.Equal(t, "dy_table__volume", last.Name)
	assert.False(t, last.Blocking)
	assert.Equal(t, "warn", last.Rules[0].Severity)
}

// TestTableCheckRuntimeError: a table check whose SQL fails on the data ends the run like a
// rule's SQL failing: a TableCheckRuntimeError naming the check, its SQL and what to do, no
// outcome and no health (the page and the text say FAIL), nothing written; the rules' checks
// report what they counted. With several checks, the failing one is named.
func TestTableCheckRuntimeError(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, sql, hint string }{
		{"conversion", "max(CAST(id AS INTEGER)) > 0", "TRY_CAST"},
		{"division by zero", "count(*) // 0 > 0", "try("},
		{"hugeint overflow", "sum(170141183460469231731687303715884105727::HUGEINT) > 0", "try("},
		{"month 13", "make_date(2024, count(*) + 5, 1) IS NOT NULL", "try("},
		{"beside a check reading the counts", "failed_rows('amount|min') >= 0 AND max(CAST(id AS INTEGER)) > 0", "TRY_CAST"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			s := ordersWithTableChecks(schema.Condition("fine", "count(*) > 0"), schema.Condition("boom", tc.sql),
				schema.Metric("rows", "count(*) + failed_rows('amount|min')"))
			a := runner.Asset{Input: runner.QueryInput{SQL: ordersSelect(mixedRows)}, Output: runner.ParquetOutput{Path: e.path("out.parquet")}, Quarantine: true}
			rep, err := run(t, s, a, runner.Options{})
			var tre *runner.TableCheckRuntimeError
			require.ErrorAs(t, err, &tre)
			assert.Equal(t, "dy_table__boom", tre.Check)
			assert.Contains(t, err.Error(), "table check 'dy_table__boom' ("+tc.sql+") failed on the data")
			assert.Contains(t, err.Error(), tc.hint)
			assert.NotContains(t, err.Error(), "\n", "one line, no DuckDB caret or stack")
			assert.Nil(t, rep.Outcome, "no outcome")
			assert.Empty(t, rep.Health)
			assert.Equal(t, "TableCheckRuntimeError", rep.Error.Type)
			assert.Equal(t, outcome.Rows{Input: 8, Valid: 3, Invalid: 5}, rep.Rows, "the rows counted stay")
			require.Len(t, rep.Checks, len(ruleChecks)+1, "the rules' checks, no table check")
			for _, c := range rep.Checks {
				assert.Nil(t, c.Table, c.Name)
			}
			assert.False(t, exists(t, e.path("out.parquet")))
			assert.False(t, exists(t, e.path("out_quarantine.parquet")))
			js, jerr := json.Marshal(rep)
			require.NoError(t, jerr)
			assert.Contains(t, string(js), `"outcome":null`)
		})
	}
}

// TestMetricExact: integer and DECIMAL metrics are compared with their bounds exactly and
// reported with every digit; in float64, 9007199254741993 and 1e23+1 equal their bounds.
func TestMetricExact(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		check  *schema.TableCheck
		passed bool
		value  string
	}{
		{"bigint above max", schema.Metric("m", "count(*) + 9007199254740993").Max(9007199254741992), false, "9007199254741993"},
		{"bigint within max", schema.Metric("m", "count(*) + 9007199254740993").Max(9007199254741994), true, "9007199254741993"},
		{"bigint below min", schema.Metric("m", "-(count(*) + 9007199254740993)").Min(-9007199254741992), false, "-9007199254741993"},
		{"hugeint above max", schema.Metric("m", "count(*)::HUGEINT * 100000000000000000000 + 1").Max(1e23), false, "100000000000000000000001"},
		{"decimal(20,0) above max", schema.Metric("m", "CAST(count(*) AS DECIMAL(20,0)) + 9007199254740993").Max(9007199254741992), false, "9007199254741993"},
		{"decimal fraction", schema.Metric("m", "CAST(count(*) AS DECIMAL(10,2)) + 0.5").Max(1000.5), true, "1000.50"},
		{"ubigint", schema.Metric("m", "count(*)::UBIGINT + 18446744073709550000").Max(18446744073709551615), true, "18446744073709551000"},
		{"double stays a float", schema.Metric("m", "avg(n) * 2").Max(999), true, "999"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := schema.New("Metric", schema.Int64("n")).AddTableCheck(tc.check)
			rep, err := run(t, s, runner.Asset{Input: runner.QueryInput{SQL: "SELECT range AS n FROM range(1000)"}}, runner.Options{})
			check := rep.Checks[len(rep.Checks)-1]
			assert.Equal(t, tc.passed, check.Passed, check.ResultDescription)
			assert.Equal(t, tc.passed, err == nil, "err: %v", err)
			assert.Contains(t, check.ResultDescription, " is "+tc.value)
			js, jerr := json.Marshal(check)
			require.NoError(t, jerr)
			assert.Contains(t, string(js), `"tablegate/value":`+tc.value+`}`, "the exact value, a JSON number")
		})
	}
}

// TestAnomalyHugeValues: bands drawn from metrics near the largest float do not overflow while
// they fit; a band that does not fails its check, saying why; the report always serializes.
func TestAnomalyHugeValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		history []float64
		passed  bool
		why     string
	}{
		{"all huge", []float64{1.7e308, 1.7e308, 1.7e308, 1.7e308, 1.7e308}, false, "below the band's low 1.7e+308"},
		{"huge both ways", []float64{1.7e308, -1.7e308, 1.7e308, -1.7e308, 1.7e308, -1.7e308}, false, "past the largest 64-bit float"},
		{"max float", []float64{math.MaxFloat64, math.MaxFloat64, math.MaxFloat64, math.MaxFloat64, 0}, false, "below the band's low"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := schema.New("Volume", schema.Int64("n")).AddTableCheck(schema.Metric("volume", "count(*)").Anomaly(schema.Anomaly{}))
			opts := runner.Options{Baselines: func(context.Context, string, map[string]int) (map[string][]float64, error) {
				return map[string][]float64{"dy_table__volume": tc.history}, nil
			}}
			rep, err := run(t, s, runner.Asset{Input: runner.QueryInput{SQL: "SELECT range AS n FROM range(3)"}}, opts)
			check := rep.Checks[len(rep.Checks)-1]
			assert.Equal(t, tc.passed, check.Passed)
			assert.Equal(t, tc.passed, err == nil, "err: %v", err)
			assert.Contains(t, check.ResultDescription, tc.why)
			_, jerr := json.Marshal(rep)
			require.NoError(t, jerr, "the report serializes")
		})
	}
}
