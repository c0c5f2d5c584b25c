package main

import (
	"encoding/json"
	"os"
	osexec "os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/internal/testenv"
)

// TestHistoryCommands records three runs (quarantined, all valid, aborted), lists them, and
// renders a past run's page from the history alone: the same page validate wrote.
func TestHistoryCommands(t *testing.T) {
	f := newFixture(t)
	hist := f.path("runs.duckdb")
	t.Setenv(historyEnv, hist) // the variable, for the first two runs
	var ids []string
	for i, tc := range []struct {
		rows string
		args []string
		code int
	}{
		{mixedRows, []string{"--quarantine"}, 0},
		{allValidRows, nil, 0},
		{mixedRows, nil, 1},
	} {
		in := f.parquet("raw"+strconv.Itoa(i)+".parquet", ordersSelect(tc.rows))
		args := append([]string{"validate", "--schema", f.schema, "--input", in, "--out", f.path("orders.parquet"), "--format", "json",
			"--html", f.path("run" + strconv.Itoa(i) + ".html")}, tc.args...)
		if i == 2 {
			args = append(args, "--history", hist)
		}
		code, stdout, stderr := cli(t, args...)
		require.Equal(t, tc.code, code, stderr)
		rep := oneJSON(t, stdout)
		assert.NotContains(t, stderr, "run history", "the history was written")
		ids = append(ids, rep["run_id"].(string))
	}

	code, stdout, stderr := cli(t, "history", "--history", hist, "--format", "json")
	require.Equal(t, 0, code, stderr)
	var got struct {
		Runs []struct {
			RunID   string `json:"run_id"`
			Outcome string
		}
		Checks []struct {
			Check  string
			Failed []int64
			Passed []bool
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	require.Len(t, got.Runs, 3)
	assert.Equal(t, []string{ids[2], ids[1], ids[0]}, []string{got.Runs[0].RunID, got.Runs[1].RunID, got.Runs[2].RunID}, "newest first")
	assert.Equal(t, "aborted", got.Runs[0].Outcome)
	var minTrend []int64
	for _, c := range got.Checks {
		if c.Check == "dy_rule__amount__min" {
			minTrend = c.Failed
		}
	}
	assert.Equal(t, []int64{3, 0, 3}, minTrend)

	code, stdout, _ = cli(t, "history", "--check", "dy_rule__amount__min", "--last", "2")
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "aborted")
	assert.Contains(t, stdout, "dy_rule__amount__min")
	assert.Contains(t, stdout, "0 3", "the trend of the last two runs")
	assert.NotContains(t, stdout, "dy_rule__primary_key", "--check narrows the trends")
	assert.Equal(t, 2, strings.Count(stdout, "Z-"), "--last 2: two run ids\n%s", stdout)

	// --failing: the quarantined run (3 invalid rows) and the aborted one, not the all-valid one;
	// only the checks that failed in one of them.
	code, stdout, _ = cli(t, "history", "--failing", "--format", "json")
	require.Equal(t, 0, code)
	got.Runs, got.Checks = nil, nil
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	require.Len(t, got.Runs, 2)
	assert.Equal(t, []string{ids[2], ids[0]}, []string{got.Runs[0].RunID, got.Runs[1].RunID})
	for _, c := range got.Checks {
		assert.Contains(t, c.Passed, false, c.Check)
	}
	assert.NotEmpty(t, got.Checks)
	code, stdout, _ = cli(t, "history", "--failing", "--last", "1", "--asset", "nope")
	require.Equal(t, 0, code)
	assert.Equal(t, "no failing runs among the newest 1 of each asset\n", stdout)

	for i, id := range ids {
		past := f.path("past" + strconv.Itoa(i) + ".html")
		code, _, stderr = cli(t, "report", "--history", hist, "--run", id, "--html", past)
		require.Equal(t, 0, code, stderr)
		want, err := os.ReadFile(f.path("run" + strconv.Itoa(i) + ".html"))
		require.NoError(t, err)
		have, err := os.ReadFile(past)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(have), "run %d's page from the history is the page validate wrote", i)
	}

	code, _, stderr = cli(t, "report", "--history", hist, "--run", "nope", "--html", f.path("x.html"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `no run "nope"`)
	t.Setenv(historyEnv, "")
	code, _, stderr = cli(t, "history")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--history is required")
}

// TestHistoryFailureIsAWarning: a history file that is not a DuckDB database, or sits where
// nothing can be written, leaves the run's outcome, exit status and outputs as they would be.
func TestHistoryFailureIsAWarning(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	corrupt := f.write("corrupt.duckdb", "not a database\n")
	for name, hist := range map[string]string{
		"corrupt":     corrupt,
		"no folder":   f.path("missing", "dir", "h.duckdb"),
		"a directory": f.dir,
	} {
		for _, tc := range []struct {
			rows    string
			code    int
			outcome string
		}{{mixedRows, 1, "aborted"}, {allValidRows, 0, "all_valid"}} {
			in := f.parquet("raw.parquet", ordersSelect(tc.rows))
			out := f.path(strings.ReplaceAll(name, " ", "_") + tc.outcome + ".parquet")
			code, stdout, stderr := cli(t, "validate", "--schema", f.schema, "--input", in, "--out", out, "--format", "json", "--history", hist)
			assert.Equal(t, tc.code, code, "%s: %s", name, stderr)
			rep := oneJSON(t, stdout)
			assert.Equal(t, tc.outcome, rep["outcome"], name)
			warnings, _ := rep["warnings"].([]any)
			require.Len(t, warnings, 1, name)
			assert.Contains(t, warnings[0], "append to the run history "+hist, name)
			assert.Contains(t, stderr, "warning: append to the run history", name)
			assert.Equal(t, tc.outcome == "all_valid", fileExists(out), "%s: the table is written as without --history", name)
		}
	}
	data, err := os.ReadFile(corrupt)
	require.NoError(t, err)
	assert.Equal(t, "not a database\n", string(data), "the corrupt file is left alone")
}

// TestSlowHistoryConcurrentValidates runs 8 tablegate processes at once on one history file.
func TestSlowHistoryConcurrentValidates(t *testing.T) {
	testenv.Slow(t)
	require.NoError(t, buildErr)
	f := newFixture(t)
	hist := f.path("shared.duckdb")
	in := f.parquet("raw.parquet", ordersSelect(mixedRows))
	const n = 8
	var wg sync.WaitGroup
	outs := make([]string, n)
	codes := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := osexec.Command(binary, "validate", "--schema", f.schema, "--input", in, "--out", f.path("o"+strconv.Itoa(i)+".parquet"),
				"--quarantine", "--history", hist, "--name", "asset"+strconv.Itoa(i%2))
			out, _ := cmd.CombinedOutput()
			outs[i], codes[i] = string(out), cmd.ProcessState.ExitCode()
		}()
	}
	wg.Wait()
	for i := range n {
		assert.Equal(t, 0, codes[i], outs[i])
		assert.NotContains(t, outs[i], "warning", "every append landed")
	}
	code, stdout, stderr := cli(t, "history", "--history", hist, "--format", "json", "--last", "100")
	require.Equal(t, 0, code, stderr)
	var got struct{ Runs []map[string]any }
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Len(t, got.Runs, n, "no run lost")
}

// TestHTMLUnwritable: like --report, a page that cannot be written is exit 2 (one JSON object
// with outcome null), and the table is written as without --html.
func TestHTMLUnwritable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.parquet("raw.parquet", ordersSelect(allValidRows))
	code, stdout, stderr := cli(t, "validate", "--schema", f.schema, "--input", in, "--out", f.path("orders.parquet"), "--format", "json",
		"--html", f.path("no", "such", "folder", "r.html"))
	assert.Equal(t, exitUsage, code)
	page := f.path("no", "such", "folder", "r.html")
	assert.Contains(t, stderr, "write the HTML report "+page+": no such file or directory")
	rep := oneJSON(t, stdout)
	assert.Nil(t, rep["outcome"])
	assert.True(t, fileExists(f.path("orders.parquet")))
}
