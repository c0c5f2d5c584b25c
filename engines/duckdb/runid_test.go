package duckdb_test

import (
	"encoding/json"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablegate/tablegate/runner"
)

// TestRunClockAndID: started_at and duration_s come from the injected clock, and the run id is
// the one given or a fresh one per run.
func TestRunClockAndID(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 14, 9, 26, 53, 500_000_000, time.FixedZone("CET", 3600))
	var mu sync.Mutex
	calls := 0
	clock := func() time.Time { // each reading 1.25 s after the last
		mu.Lock()
		defer mu.Unlock()
		calls++
		return start.Add(time.Duration(calls-1) * 1250 * time.Millisecond)
	}
	for _, tc := range []struct {
		name  string
		input runner.Input
	}{
		{"all_valid", runner.QueryInput{SQL: ordersSelect(allValidRows)}},
		{"aborted", runner.QueryInput{SQL: ordersSelect(mixedRows)}},
		{"skipped", nil},
	} {
		calls = 0
		rep, _ := run(t, ordersSchema(), runner.Asset{Input: tc.input}, runner.Options{Now: clock, RunID: "run-1"})
		data, err := json.Marshal(rep)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(data, &m))
		assert.Equal(t, "2026-03-14T08:26:53.5Z", m["started_at"], tc.name)
		assert.Equal(t, 1.25, m["duration_s"], tc.name)
		assert.Equal(t, "run-1", m["run_id"], tc.name)
	}

	ids := map[string]bool{}
	for range 3 {
		rep, err := run(t, ordersSchema(), runner.Asset{Input: runner.QueryInput{SQL: ordersSelect(allValidRows)}}, runner.Options{})
		require.NoError(t, err)
		assert.Regexp(t, regexp.MustCompile(`^\d{8}T\d{6}Z-[0-9a-f]{16}$`), rep.RunID)
		_, err = time.Parse(time.RFC3339Nano, rep.StartedAt)
		assert.NoError(t, err, "started_at is RFC 3339")
		assert.Greater(t, rep.DurationS, 0.0)
		ids[rep.RunID] = true
	}
	assert.Len(t, ids, 3, "every run its own id")
}
