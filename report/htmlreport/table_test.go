package htmlreport_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/report/htmlreport"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestTableSection: the table checks come first, in a "Table" section, each with its value and
// its bound or band; they are not rows of the rule checks' table.
func TestTableSection(t *testing.T) {
	ctx := context.Background()
	s := schema.New("Orders", schema.Float64("amount").Min(0)).AddTableCheck(
		schema.Metric("mean", "avg(amount)").Min(10).Max(400),
		schema.Metric("volume", "count(*)").Anomaly(schema.Anomaly{MinHistory: 3}).Warn(),
		schema.Condition("enough_rows", "count(*) >= 1000"),
	)
	plan, err := compile.Compile(s)
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	defer eng.Close()
	baselines := func(context.Context, string, map[string]int) (map[string][]float64, error) {
		return map[string][]float64{"dy_table__volume": {100, 110, 90, 105}}, nil
	}
	rep, err := eng.Run(ctx, runner.Asset{Name: "orders", Plan: plan, Input: runner.QueryInput{SQL: "SELECT range::DOUBLE AS amount FROM range(1000)"}},
		runner.Options{Baselines: baselines})
	require.Error(t, err)
	var b bytes.Buffer
	require.NoError(t, htmlreport.Write(&b, report.New(rep, plan, report.Facts{Input: "query"})))
	page := b.String()
	table, checks := strings.Index(page, "<h2>Table</h2>"), strings.Index(page, "<h2>Checks</h2>")
	require.True(t, table > 0 && table < checks, "the Table section comes before the checks")
	section := page[table:checks]
	assert.Contains(t, section, `data-check="dy_table__mean" data-passed="false"`)
	assert.Contains(t, section, ">499.5<")
	assert.Contains(t, section, "≥ 10; ≤ 400")
	assert.Contains(t, section, "band [")
	assert.Contains(t, section, "median 102.5")
	assert.Contains(t, section, `data-check="dy_table__enough_rows" data-passed="true"`)
	assert.NotContains(t, page[checks:], "dy_table__")
}
