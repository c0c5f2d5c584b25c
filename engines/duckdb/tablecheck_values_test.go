package duckdb_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestNullMetricAgainstABand: a metric that is NULL fails an anomaly band once the band is drawn,
// as it fails min and max, saying so; with no history, or too little, it passes and says why.
// Before, it passed although a band existed.
func TestNullMetricAgainstABand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := runner.ParquetInput{Path: e.parquet("in.parquet", "SELECT NULL::DOUBLE AS x FROM range(3)")}
	s := schema.New("M", schema.Float64("x").Nullable()).AddTableCheck(schema.Metric("mean", "avg(x)").Anomaly(schema.Anomaly{}))
	history := func(vals ...float64) runner.Options {
		return runner.Options{Baselines: func(context.Context, string, map[string]int) (map[string][]float64, error) {
			return map[string][]float64{"dy_table__mean": vals}, nil
		}}
	}
	for _, tc := range []struct {
		name   string
		opts   runner.Options
		passed bool
		why    string
	}{
		{"no history", runner.Options{}, true, "is NULL"},
		{"too little history", history(1, 2), true, "is NULL"},
		{"a band", history(10, 11, 12, 13, 14), false, "avg(x) is NULL (no rows, or only NULLs), which is within no band (median 12 of 5 earlier runs)"},
	} {
		rep, err := run(t, s, runner.Asset{Input: in}, tc.opts)
		check := rep.Checks[len(rep.Checks)-1]
		assert.Equal(t, tc.passed, check.Passed, tc.name)
		assert.Contains(t, check.ResultDescription, tc.why, tc.name)
		if tc.passed {
			assert.NoError(t, err, tc.name)
			continue
		}
		var tce *outcome.TableCheckError
		require.ErrorAs(t, err, &tce, tc.name)
		assert.Nil(t, metadata(t, rep, "dy_table__mean")["tablegate/value"], tc.name)
		assert.NotNil(t, metadata(t, rep, "dy_table__mean")["tablegate/baseline"], tc.name)
	}
}

// TestNonFiniteMetricSpelling: a metric that is an infinity or NaN is reported as the failing
// rows' samples spell them ("Infinity", "-Infinity", "NaN"). Before, "+Inf" and "-Inf".
func TestNonFiniteMetricSpelling(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := runner.ParquetInput{Path: e.parquet("in.parquet", "SELECT * FROM (VALUES ('infinity'::DOUBLE), ('-infinity'::DOUBLE), ('nan'::DOUBLE)) t(x)")}
	s := schema.New("M", schema.Float64("x").Nullable().AllowInf().AllowNaN()).AddTableCheck(
		schema.Metric("high", "max(x) FILTER (WHERE NOT isnan(x))"),
		schema.Metric("low", "min(x)"),
		schema.Metric("nan", "max(x)"),
	)
	rep, err := run(t, s, runner.Asset{Input: in}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, "Infinity", metadata(t, rep, "dy_table__high")["tablegate/value"])
	assert.Equal(t, "-Infinity", metadata(t, rep, "dy_table__low")["tablegate/value"])
	assert.Equal(t, "NaN", metadata(t, rep, "dy_table__nan")["tablegate/value"])
}
