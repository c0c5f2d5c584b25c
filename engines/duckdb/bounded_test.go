package duckdb_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestWideSchemaStatements: a run issues as many statements for a schema of 600 columns as for
// one of 6 (but for the per-rule counts, one per 500 rules), every rule failing on some rows, and
// its samples are those of a rule-by-rule read: the samples take one statement for all rules, not
// one per rule.
func TestWideSchemaStatements(t *testing.T) {
	e := newEnv(t)
	statements := func(n int) (int, *outcome.Report, time.Duration) {
		cols := make([]*schema.Column, n)
		sel := make([]string, n)
		for i := range cols {
			cols[i] = schema.Int64(fmt.Sprintf("c%d", i)).Min(0)
			// Column i fails on the rows where (row + i) % 7 == 0.
			sel[i] = fmt.Sprintf("CASE WHEN (r + %d) %% 7 = 0 THEN -1 ELSE r END::BIGINT AS c%d", i, i)
		}
		in := runner.ParquetInput{Path: e.parquet(fmt.Sprintf("wide%d.parquet", n), "SELECT "+strings.Join(sel, ", ")+" FROM range(300) t(r)")}
		start := time.Now()
		rep, trace, err := runTraced(t, schema.New("Wide", cols...), runner.Asset{Input: in}, runner.Options{MaxFailureSamples: 3})
		var abort *outcome.ValidationAbortError
		require.ErrorAs(t, err, &abort)
		return strings.Count(trace, "tablegate trace:"), rep, time.Since(start)
	}
	narrow, _, _ := statements(6)
	wide, rep, took := statements(600)
	t.Logf("600 columns, 1,200 rules, 300 rows: %v", took)
	// The per-rule counts take one statement per compile.RuleCountChunk rules: 12 rules, one;
	// 1,200, three.
	chunks := func(rules int) int { return (rules + compile.RuleCountChunk - 1) / compile.RuleCountChunk }
	assert.Equal(t, narrow+chunks(1200)-chunks(12), wide, "statements for 6 and for 600 columns")
	for _, i := range []int{0, 1, 599} {
		m := metadata(t, rep, fmt.Sprintf("dy_rule__c%d__min", i))
		sample, _ := m["dataframely/failed_examples"].([]any)
		require.Len(t, sample, 3, "c%d", i)
		for j, row := range sample {
			// The rows where (r + i) % 7 == 0, in input order.
			want := (7-i%7)%7 + 7*j
			r, _ := row.(map[string]any)
			assert.EqualValues(t, -1, r[fmt.Sprintf("c%d", i)], "c%d sample %d", i, j)
			assert.EqualValues(t, want, r[fmt.Sprintf("c%d", (i+1)%600)], "c%d sample %d is row %d", i, j, want)
		}
		assert.EqualValues(t, 300/7+boolInt((7-i%7)%7 < 300%7), m["dataframely/failed_row_count"], "c%d", i)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
