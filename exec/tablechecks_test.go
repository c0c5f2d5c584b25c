package exec_test

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/exec"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/schema"
)

// ordersWithTableChecks is ordersSchema with table checks added.
func ordersWithTableChecks(checks ...*schema.TableCheck) *schema.Schema {
	return ordersSchema().AddTableCheck(checks...)
}

// TestTableCheckOutcomes runs every outcome with a table check present and failing: a failing
// error check wins over aborted, no_valid_rows and quarantined and writes nothing; the column
// mismatch still comes first; no source data passes; a warn check only warns.
func TestTableCheckOutcomes(t *testing.T) {
	t.Parallel()
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
				a := exec.Asset{Output: b.output(e), Quarantine: tc.quarantine}
				if tc.query != "" {
					a.Input = b.input(e, ordersSelect(tc.query))
				}
				rep, err := run(t, ordersWithTableChecks(tc.checks...), a, exec.Options{})
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
	in := exec.ParquetInput{Path: e.parquet("in.parquet", "SELECT id, note FROM ("+ordersSelect(allValidRows)+")")}
	rep, err := run(t, ordersWithTableChecks(schema.Condition("enough_rows", "count(*) >= 1000")),
		exec.Asset{Input: in, Output: exec.ParquetOutput{Path: e.path("out.parquet")}, Quarantine: true}, exec.Options{})
	var colErr *outcome.ColumnSchemaError
	require.ErrorAs(t, err, &colErr)
	assert.Equal(t, outcome.ColumnSchemaMismatch, *rep.Outcome)
}

// TestTableCheckKeepsLastKnownGood: a failing table check leaves the table and the quarantine of
// the run before as they were, byte for byte.
func TestTableCheckKeepsLastKnownGood(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out := exec.ParquetOutput{Path: e.path("out", "orders.parquet")}
	in := exec.ParquetInput{Path: e.parquet("in.parquet", ordersSelect(mixedRows))}
	_, err := run(t, ordersSchema(), exec.Asset{Input: in, Output: out, Quarantine: true}, exec.Options{})
	require.NoError(t, err)
	table, err := os.ReadFile(out.Path)
	require.NoError(t, err)
	quar, err := os.ReadFile(e.path("out", "orders_quarantine.parquet"))
	require.NoError(t, err)

	in2 := exec.ParquetInput{Path: e.parquet("in2.parquet", ordersSelect(oneInvalidRows))}
	_, err = run(t, ordersWithTableChecks(schema.Condition("enough_rows", "count(*) >= 1000")), exec.Asset{Input: in2, Output: out, Quarantine: true}, exec.Options{})
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
	rep, err := run(t, s, exec.Asset{Input: exec.ParquetInput{Path: e.parquet("in.parquet", ordersSelect(mixedRows))},
		Output: exec.ParquetOutput{Path: e.path("out.parquet")}, Quarantine: true}, exec.Options{})
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
	rep, err := run(t, s, exec.Asset{Input: exec.ParquetInput{Path: e.parquet("in.parquet", emptySelect())}}, exec.Options{})
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
			in := exec.ParquetInput{Path: e.parquet("in.parquet", "SELECT range AS n FROM range("+strconv.Itoa(int(tc.value))+")")}
			var opts exec.Options
			if tc.history != nil {
				opts.Baselines = func(_ context.Context, asset string, checks map[string]int) (map[string][]float64, error) {
					assert.Equal(t, "Volume", asset)
					assert.Equal(t, map[string]int{"dy_table__volume": 30}, checks)
					return map[string][]float64{"dy_table__volume": tc.history}, nil
				}
			}
			rep, err := run(t, s, exec.Asset{Input: in}, opts)
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

	up := exec.AnomalyBand(schema.Anomaly{Direction: schema.DirectionUp}.WithDefaults(), earlier(30))
	assert.Nil(t, up.Low)
	require.NotNil(t, up.High)
	down := exec.AnomalyBand(schema.Anomaly{Direction: schema.DirectionDown, Lookback: 3, MinHistory: 2}.WithDefaults(), []float64{math.NaN(), 5, 7, 9, 1000})
	assert.Equal(t, 3, down.Runs, "NaN is skipped, lookback counts numbers")
	assert.Equal(t, 7.0, down.Median)
	assert.Nil(t, down.High)
}

// TestTableChecksExplained: explain shows the table checks' statement, and it is what runs.
func TestTableChecksExplained(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := ordersWithTableChecks(schema.Condition("few_invalid", "invalid_rows() <= 0.05 * count(*)"))
	p, err := compile.Compile(s)
	require.NoError(t, err)
	eng, err := exec.Open(exec.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	in := exec.ParquetInput{Path: e.parquet("in.parquet", ordersSelect(mixedRows))}
	text, err := eng.ExplainAsset(context.Background(), exec.Asset{Plan: p, Input: in}, exec.Options{})
	require.NoError(t, err)
	assert.Contains(t, text, "evaluate the table checks: read the table checks' values")
	assert.Contains(t, text, "CAST($1 AS BIGINT[])[1]")
	_, trace, err := runTraced(t, s, exec.Asset{Input: in}, exec.Options{})
	var tce *outcome.TableCheckError
	require.ErrorAs(t, err, &tce)
	assert.Contains(t, trace, "CAST($1 AS BIGINT[])[1]")
}

// TestTableCheckSpecs: orchestrators declare the table checks up front, after the rule checks.
func TestTableCheckSpecs(t *testing.T) {
	t.Parallel()
	p, err := compile.Compile(ordersWithTableChecks(schema.Metric("volume", "count(*)").Min(1).Warn()))
	require.NoError(t, err)
	specs := exec.CheckSpecs(p, true, exec.Options{})
	last := specs[len(specs)-1]
	assert.Equal(t, "dy_table__volume", last.Name)
	assert.False(t, last.Blocking)
	assert.Equal(t, "warn", last.Rules[0].Severity)
}
