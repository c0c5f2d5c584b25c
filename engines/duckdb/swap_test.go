package duckdb_test

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// swapCase is a run that replaces a previous table and quarantine, and what the pair is once it
// completes.
type swapCase struct {
	name    string
	rows    string // the run's input
	ownings bool   // the input is the output table itself (written first from rows)
	// after the run: table rows, quarantine ids (nil: none), kept previous quarantine's ids
	table, quar, prev []string
}

var swapCases = []swapCase{
	{name: "invalid rows", rows: mixedRows, table: []string{"a", "c", "f"}, quar: []string{"b", "g", "e", "g", "h"}},
	{name: "all valid", rows: allValidRows, table: []string{"a", "b"}, prev: []string{"b"}},
	{name: "input is the table", rows: mixedRows, ownings: true, table: []string{"a", "c", "f"}, quar: []string{"b", "g", "e", "g", "h"}, prev: []string{"b"}},
}

// previousPair writes the previous table (rows) and quarantine (oneInvalidRows' b) to dir.
func previousPair(t *testing.T, e *env, b backend, c swapCase) runner.Asset {
	t.Helper()
	prev := runner.Asset{Input: b.input(e, ordersSelect(oneInvalidRows)), Output: b.output(e), Quarantine: true}
	_, err := run(t, ordersSchema(), prev, runner.Options{})
	require.NoError(t, err)
	a := runner.Asset{Input: b.input(e, ordersSelect(c.rows)), Output: b.output(e), Quarantine: true}
	if c.ownings {
		// The table holds c.rows: validating it in place moves its invalid rows out.
		if b.name == "parquet" {
			require.NoError(t, os.Rename(e.parquet("in/own.parquet", ordersSelect(c.rows)), b.tableAddr(e)))
			a.Input = runner.ParquetInput{Path: b.tableAddr(e)}
		} else {
			e.table(e.path("wh.duckdb"), "orders", ordersSelect(c.rows))
			a.Input = runner.TableInput{File: e.path("wh.duckdb"), Table: "orders"}
		}
	}
	return a
}

func ids(rows [][]any, _ []string, ok bool) []string {
	if !ok {
		return nil
	}
	out := []string{}
	for _, r := range rows {
		out = append(out, r[0].(string))
	}
	return out
}

// TestSlowSwapKilledAtEachStep kills a real process (this test binary, re-run as a child) at each
// step of a run's output swap: while the input's bytes are copied (an all-valid run publishes
// them), after the outputs are flushed, after the journal is written, after
// each rename; for a DuckDB output, before the commit. After every kill the next open of the
// output (RecoverOutput, which every run starts with) leaves one run's pair: the previous table
// and quarantine when the kill came before the journal, else the new ones; the folder then holds
// exactly the table, its quarantine and a kept previous quarantine, nothing else.
func TestSlowSwapKilledAtEachStep(t *testing.T) {
	testenv.Slow(t) // kills a child process at each step of the swap
	if stage := os.Getenv("TABLEGATE_TEST_CRASH_AT"); stage != "" {
		swapChild(t, stage)
		return
	}
	kills, torn, mismatched := 0, 0, 0
	for _, b := range backends {
		// "copying": in the middle of the copy of the input's bytes (a run that removes no row).
		stages := []string{"copying", "outputs flushed", "journal written", "renamed 0", "renamed 1", "renamed 2"}
		if b.name == "duckdb" {
			stages = []string{"tables written"}
		}
		for ci, c := range swapCases {
			for _, stage := range stages {
				t.Run(fmt.Sprintf("%s, %s, killed after %s", b.name, c.name, stage), func(t *testing.T) {
					e := newEnv(t)
					a := previousPair(t, e, b, c)
					prevTable, prevQuar := ids(b.table(e)), ids(b.quarantine(e))
					cmd := osexec.Command(os.Args[0], "-test.run=^TestSlowSwapKilledAtEachStep$")
					cmd.Env = append(os.Environ(), "TABLEGATE_TEST_CRASH_AT="+stage,
						fmt.Sprintf("TABLEGATE_TEST_CRASH_CASE=%s %d", b.name, ci), "TABLEGATE_TEST_CRASH_DIR="+e.dir)
					out, err := cmd.CombinedOutput()
					var exit *osexec.ExitError
					require.ErrorAs(t, err, &exit, "%s", out)
					status := exit.Sys().(syscall.WaitStatus)
					if !status.Signaled() {
						// The run has fewer renames than this stage: it completed.
						require.Contains(t, string(out), "no such stage", "%s", out)
						return
					}
					require.Equal(t, syscall.SIGKILL, status.Signal())
					kills++
					journal := e.path("out", ".orders.parquet.tablegate-journal")
					if b.name == "parquet" && exists(t, journal) {
						torn++ // before recovery; the open below must mend it
					}

					require.NoError(t, duckdb.RecoverOutput(context.Background(), b.output(e)))
					table, quar := ids(b.table(e)), ids(b.quarantine(e))
					wantTable, wantQuar, wantPrev := c.table, c.quar, c.prev
					if stage == "copying" || stage == "outputs flushed" || stage == "tables written" {
						wantTable, wantQuar, wantPrev = prevTable, prevQuar, nil
					}
					if !assert.Equal(t, wantTable, table, "table") || !assert.Equal(t, wantQuar, quar, "quarantine") {
						mismatched++
					}
					assert.Equal(t, wantPrev, prevIDs(t, e, b), "the kept previous quarantine")
					assert.Empty(t, leftoversBesidePrev(t, e, b), "nothing else beside the outputs")

					if c.ownings {
						return // the table is now the valid rows: a next run has nothing to move
					}
					// The next run completes and leaves the same folder.
					_, err = run(t, ordersSchema(), a, runner.Options{})
					require.NoError(t, err)
					assert.Equal(t, c.table, ids(b.table(e)))
					assert.Equal(t, c.quar, ids(b.quarantine(e)))
					assert.Empty(t, leftoversBesidePrev(t, e, b))
				})
			}
		}
	}
	t.Logf("kills %d, journals left (torn before recovery) %d, mismatched pairs after recovery %d", kills, torn, mismatched)
	assert.Zero(t, mismatched)
}

// swapChild runs one case's run and kills itself at the stage.
func swapChild(t *testing.T, stage string) {
	var name string
	var ci int
	_, err := fmt.Sscanf(os.Getenv("TABLEGATE_TEST_CRASH_CASE"), "%s %d", &name, &ci)
	require.NoError(t, err)
	i := slices.IndexFunc(backends, func(b backend) bool { return b.name == name })
	b, c := backends[i], swapCases[ci]
	e := &env{t: t, dir: os.Getenv("TABLEGATE_TEST_CRASH_DIR")}
	a := runner.Asset{Input: childInput(e, b, c), Output: b.output(e), Quarantine: true}
	restore := duckdb.SetCrashPoint(func(s string) {
		if s == stage {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	})
	defer restore()
	p, err := compile.Compile(ordersSchema())
	require.NoError(t, err)
	a.Plan = p
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	_, err = eng.Run(context.Background(), a, runner.Options{})
	require.NoError(t, err)
	fmt.Println("no such stage")
	os.Exit(3)
}

func childInput(e *env, b backend, c swapCase) runner.Input {
	switch {
	case c.ownings && b.name == "parquet":
		return runner.ParquetInput{Path: b.tableAddr(e)}
	case c.ownings:
		return runner.TableInput{File: e.path("wh.duckdb"), Table: "orders"}
	case b.name == "parquet":
		return runner.ParquetInput{Path: e.path("in/raw.parquet")}
	}
	return runner.TableInput{File: e.path("wh.duckdb"), Table: "raw"}
}

// prevIDs is the ids of the kept previous quarantine, nil when there is none.
func prevIDs(t *testing.T, e *env, b backend) []string {
	if b.name == "parquet" {
		return ids(parquetFile(e, e.path("out", "orders_quarantine.prev.parquet")))
	}
	return ids(e.tableRows(e.path("wh.duckdb"), "orders_quarantine_prev"))
}

// leftoversBesidePrev is what the output location holds besides the table, its quarantine and
// the kept previous quarantine.
func leftoversBesidePrev(t *testing.T, e *env, b backend) []string {
	var out []string
	for _, n := range b.leftovers(e) {
		if n != "orders_quarantine.prev.parquet" && n != "main.orders_quarantine_prev" {
			out = append(out, n)
		}
	}
	return out
}

// TestOutputFolderAfterEveryOutcome: after each of the six outcomes the Parquet output's folder
// holds exactly the table and its quarantine (an all-valid run: the table and the kept previous
// quarantine); no lock file, journal or temporary stays.
func TestOutputFolderAfterEveryOutcome(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := backends[0]
	require.Equal(t, "parquet", b.name)
	pair := []string{"orders.parquet", "orders_quarantine.parquet"}
	for _, c := range []struct {
		want       outcome.Outcome
		rows       string // "" for no input
		quarantine bool
		folder     []string
	}{
		{outcome.Quarantined, ordersSelect(mixedRows), true, pair},
		{outcome.Aborted, ordersSelect(mixedRows), false, pair},
		{outcome.ColumnSchemaMismatch, "SELECT 1 AS id", true, pair},
		{outcome.Skipped, "", true, pair},
		{outcome.NoValidRows, ordersSelect(allInvalidRows), true, pair},
		{outcome.AllValid, ordersSelect(allValidRows), true, []string{"orders.parquet", "orders_quarantine.prev.parquet"}},
	} {
		var in runner.Input
		if c.rows != "" {
			in = b.input(e, c.rows)
		}
		rep, _ := run(t, ordersSchema(), runner.Asset{Input: in, Output: b.output(e), Quarantine: c.quarantine}, runner.Options{})
		require.Equal(t, c.want, outcomeOf(rep), "%+v", rep.Error)
		entries, err := os.ReadDir(e.path("out"))
		require.NoError(t, err)
		var names []string
		for _, en := range entries {
			names = append(names, en.Name())
		}
		assert.Equal(t, c.folder, names, "after %s", c.want)
	}
}

// TestSwapThatFailsIsRolledBack: a run whose swap fails after its journal and a first rename
// (here the table's temporary vanishes, as on a file system that refuses the rename) rolls the
// swap back: the previous table, quarantine and kept previous quarantine are byte for byte as
// before, no journal, temporary or hard link stays, the error says what was done, and the next
// run completes. Before, the journal stayed and every later run of the table exited 2.
func TestSwapThatFailsIsRolledBack(t *testing.T) {
	b := backends[0]
	require.Equal(t, "parquet", b.name)
	for _, c := range swapCases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			a := previousPair(t, e, b, c)
			before := folderBytes(t, e.path("out"))
			restore := duckdb.SetCrashPoint(func(stage string) {
				if stage == "renamed 0" {
					tmps, _ := filepath.Glob(e.path("out", ".orders.parquet.tablegate-*-table.tmp"))
					require.Len(t, tmps, 1)
					require.NoError(t, os.Remove(tmps[0]))
				}
			})
			_, err := run(t, ordersSchema(), a, runner.Options{})
			restore()
			var oe *outcome.OutputError
			require.ErrorAs(t, err, &oe)
			assert.Contains(t, err.Error(), "the swap was rolled back, the previous files are in place")
			assert.Equal(t, before, folderBytes(t, e.path("out")), "the previous files, nothing else")

			_, err = run(t, ordersSchema(), a, runner.Options{})
			require.NoError(t, err)
			assert.Equal(t, c.table, ids(b.table(e)))
			assert.Equal(t, c.quar, ids(b.quarantine(e)))
			assert.Empty(t, leftoversBesidePrev(t, e, b))
		})
	}
}

// folderBytes is every file of a folder with its content.
func folderBytes(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string]string{}
	for _, en := range entries {
		data, err := os.ReadFile(filepath.Join(dir, en.Name()))
		require.NoError(t, err)
		out[en.Name()] = string(data)
	}
	return out
}
