package report_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestChecksRules: the rules found for each check from its name are the members the run itself
// lists in the check's metadata, at every granularity, reserved words as names included.
func TestChecksRules(t *testing.T) {
	s := schema.New("Orders",
		schema.Int64("select").PrimaryKey(),
		schema.String("name").Regex(`^\p{L}+$`).SeverityOf("regex", schema.Warn),
		schema.Float64("schema").Min(0),
	).AddRule("positive_sum", `"schema" >= 0 OR "select" > 0`).SeverityOf("positive_sum", schema.Warn)
	plan, err := compile.Compile(s)
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	defer eng.Close()
	q := `SELECT * FROM (VALUES (1::BIGINT, 'ä'::VARCHAR, 1.0::DOUBLE), (1, '1', -1.0), (3, NULL, 'NaN')) t("select", "name", "schema")`
	for _, tc := range []struct {
		name    string
		opts    runner.Options
		checks  int
		declare map[string]outcome.Severity
	}{
		{"rule", runner.Options{}, 10, map[string]outcome.Severity{"dy_rule__name__regex": outcome.SeverityWarn, "dy_rule__positive_sum": outcome.SeverityWarn, "dy_rule__primary_key": outcome.SeverityError}},
		{"column", runner.Options{Granularity: runner.PerColumn}, 5, map[string]outcome.Severity{"dy_col__name": outcome.SeverityError, "dy_col__schema": outcome.SeverityError, "dy_schema__rules": outcome.SeverityError}},
		{"column per rule", runner.Options{Granularity: runner.PerColumn, SchemaRulesPerRule: true}, 6, map[string]outcome.Severity{"dy_rule__positive_sum": outcome.SeverityWarn}},
		{"schema", runner.Options{Granularity: runner.PerSchema}, 2, map[string]outcome.Severity{"dy_schema__rules": outcome.SeverityError, "dy_schema__columns": outcome.SeverityError}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, _ := eng.Run(context.Background(), runner.Asset{Plan: plan, Input: runner.QueryInput{SQL: q}}, tc.opts)
			require.NotNil(t, rep.Outcome)
			run := report.New(rep, plan, report.Facts{})
			require.Len(t, run.Checks, tc.checks)
			for _, c := range rep.Checks {
				facts, ok := run.Check(c.Name)
				require.True(t, ok, c.Name)
				var got []string
				for _, r := range facts.Rules {
					got = append(got, r.Name)
				}
				assert.Equal(t, members(t, c), got, c.Name)
			}
			for name, want := range tc.declare {
				facts, ok := run.Check(name)
				require.True(t, ok, name)
				assert.Equal(t, want, facts.Declared, name)
			}
		})
	}
}

// members are the rules the run lists for a check: its one rule, or a collapsed check's members.
func members(t *testing.T, c outcome.Check) []string {
	t.Helper()
	if c.Rule != "" {
		return []string{c.Rule}
	}
	var out []string
	for _, r := range c.Rules {
		out = append(out, r.Rule)
	}
	return out // nil: the column check
}

func TestFingerprint(t *testing.T) {
	base := func() *schema.Schema { return schema.New("S", schema.Int64("a").Min(0)) }
	fp := func(s *schema.Schema) string {
		p, err := compile.Compile(s)
		require.NoError(t, err)
		return report.Fingerprint(p)
	}
	a := fp(base())
	assert.Equal(t, a, fp(base()), "stable")
	assert.Len(t, a, 16)
	for name, s := range map[string]*schema.Schema{
		"dtype":     schema.New("S", schema.Int32("a").Min(0)),
		"rule":      schema.New("S", schema.Int64("a").Min(1)),
		"severity":  schema.New("S", schema.Int64("a").Min(0).SeverityOf("min", schema.Warn)),
		"column":    schema.New("S", schema.Int64("a").Min(0), schema.String("b").Nullable()),
		"tolerance": schema.New("S", schema.Int64("a").Min(0).ToleranceOf("min", schema.Tolerance{Error: schema.Share(0.01)})),
	} {
		assert.NotEqual(t, a, fp(s), name)
	}
}

// TestNumbers: counts and values read the same on the page, in the text and in tablegate
// history: thousands separators, no exponent, ten significant digits.
func TestNumbers(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 336776: "336,776", -1234567: "-1,234,567"} {
		if got := report.Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {336776, "336,776"}, {1234.5, "1,234.5"}, {-1048.25, "-1,048.25"}, {0.000012, "0.000012"},
		{7.0 / 3, "2.333333333"}, {1e10, "10,000,000,000"}, {1e21, "1e+21"}, {math.NaN(), "NaN"}, {math.Inf(1), "+Inf"},
	} {
		if got := report.Number(tc.f); got != tc.want {
			t.Errorf("Number(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}
