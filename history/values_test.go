package history_test

import (
	"context"
	gosql "database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/history"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// volumeRun validates rows rows against a schema with a volume anomaly check, its bands drawn
// from the history at path, and records it there.
func volumeRun(t *testing.T, eng *duckdb.Engine, path string, rows int, start time.Time) *outcome.Report {
	t.Helper()
	s := schema.New("Volume", schema.Int64("n")).AddTableCheck(
		schema.Metric("volume", "count(*)").Anomaly(schema.Anomaly{Lookback: 30, MinHistory: 5}),
		schema.Condition("some", "count(*) > 0"))
	plan, err := compile.Compile(s)
	require.NoError(t, err)
	ctx := context.Background()
	rep, _ := eng.Run(ctx, runner.Asset{Name: "volume", Plan: plan, Input: runner.QueryInput{SQL: fmt.Sprintf("SELECT range AS n FROM range(%d)", rows)}},
		runner.Options{Now: func() time.Time { return start }, Baselines: runner.BaselinesOf(path)})
	require.NoError(t, history.Append(ctx, path, report.New(rep, plan, report.Facts{Input: "query"})))
	return rep
}

func volumeCheck(t *testing.T, rep *outcome.Report) outcome.Check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == "dy_table__volume" {
			return c
		}
	}
	t.Fatalf("no volume check in %v", rep.Checks)
	return outcome.Check{}
}

// TestAnomalyFromHistory: the band comes from the recorded runs: with 0 and 4 earlier runs the
// check passes and says why; with 30 a usual volume passes and a 10x jump fails the run.
func TestAnomalyFromHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.duckdb")
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	base := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	at := func(i int) time.Time { return base.Add(time.Duration(i) * time.Hour) }

	rep := volumeRun(t, eng, path, 1000, at(0))
	assert.Contains(t, volumeCheck(t, rep).ResultDescription, "0 earlier runs recorded, the band needs 5")
	for i := 1; i <= 3; i++ {
		volumeRun(t, eng, path, 1000+i*10, at(i))
	}
	rep = volumeRun(t, eng, path, 1000, at(4))
	c := volumeCheck(t, rep)
	assert.True(t, c.Passed)
	assert.Contains(t, c.ResultDescription, "4 earlier runs recorded, the band needs 5")
	for i := 5; i < 31; i++ {
		volumeRun(t, eng, path, 1000+(i%5)*10, at(i))
	}
	// 31 earlier runs: the band reads the newest 30.
	rep = volumeRun(t, eng, path, 1020, at(31))
	c = volumeCheck(t, rep)
	assert.True(t, c.Passed, c.ResultDescription)
	require.NotNil(t, c.Table.Baseline)
	assert.Equal(t, 30, c.Table.Baseline.Runs)
	assert.Equal(t, outcome.AllValid, *rep.Outcome)

	rep = volumeRun(t, eng, path, 10200, at(32))
	c = volumeCheck(t, rep)
	assert.False(t, c.Passed)
	assert.Equal(t, outcome.TableCheckFailed, *rep.Outcome)
	assert.Contains(t, c.ResultDescription, "above the band's high")

	// The history holds each table check's value: the metric's, none for a condition.
	trends, err := history.Checks(context.Background(), path, history.Filter{Asset: "volume", Check: "dy_table__volume", Last: 3})
	require.NoError(t, err)
	require.Len(t, trends, 1)
	require.Len(t, trends[0].Values, 3)
	assert.Equal(t, 10200.0, *trends[0].Values[2])
	assert.Equal(t, []bool{true, true, false}, trends[0].Passed)
	trends, err = history.Checks(context.Background(), path, history.Filter{Asset: "volume", Check: "dy_table__some", Last: 3})
	require.NoError(t, err)
	require.Len(t, trends, 1)
	assert.Nil(t, trends[0].Values)

	// Another asset's values are not this one's baseline.
	vals, err := history.Baselines(context.Background(), path, "other", map[string]int{"dy_table__volume": 30})
	require.NoError(t, err)
	assert.Empty(t, vals["dy_table__volume"])
	vals, err = history.Baselines(context.Background(), path, "volume", map[string]int{"dy_table__volume": 2})
	require.NoError(t, err)
	assert.Equal(t, []float64{10200, 1020}, vals["dy_table__volume"], "newest first, lookback of them")
}

// TestHistoryWithoutValueColumn: a history written before the value column is read (no values)
// and gains the column on the next append.
func TestHistoryWithoutValueColumn(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.duckdb")
	run, err := newRun(ctx, 1, time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	require.NoError(t, history.Append(ctx, path, run))
	db, err := gosql.Open("duckdb", path)
	require.NoError(t, err)
	_, err = db.Exec("ALTER TABLE tablegate_check_results DROP COLUMN value")
	require.NoError(t, err)
	require.NoError(t, db.Close())

	trends, err := history.Checks(ctx, path, history.Filter{})
	require.NoError(t, err)
	require.NotEmpty(t, trends)
	vals, err := history.Baselines(ctx, path, "orders", map[string]int{"dy_table__volume": 5})
	require.NoError(t, err)
	assert.Empty(t, vals["dy_table__volume"])

	run, err = newRun(ctx, 0, time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	require.NoError(t, history.Append(ctx, path, run))
	runs, err := history.Runs(ctx, path, history.Filter{})
	require.NoError(t, err)
	assert.Len(t, runs, 2)
}

// TestBaselinesWithoutFile: a history that does not exist yet has no earlier values.
func TestBaselinesWithoutFile(t *testing.T) {
	vals, err := history.Baselines(context.Background(), filepath.Join(t.TempDir(), "none.duckdb"), "a", map[string]int{"x": 3})
	require.NoError(t, err)
	assert.NotNil(t, vals)
	assert.Empty(t, vals["x"])
}
