package history_test

import (
	"context"
	gosql "database/sql"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/history"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// helperVar makes the test binary a child process that appends one run to the history named by
// its value and prints the error, if any: other processes for DuckDB's file lock, and another
// user for a file this one cannot write.
const helperVar = "TABLEGATE_HISTORY_TEST_APPEND"

func TestMain(m *testing.M) {
	if path := os.Getenv(helperVar); path != "" {
		n, _ := strconv.Atoi(os.Getenv(helperVar + "_N"))
		run, err := newRun(context.Background(), n, time.Now())
		if err == nil {
			err = history.Append(context.Background(), path, run)
		}
		if err != nil {
			fmt.Print(err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// newRun validates n+1 rows of which n have a negative amount, in a real run, and describes it.
func newRun(ctx context.Context, n int, start time.Time) (*report.Run, error) {
	s := schema.New("Orders", schema.Int64("id").PrimaryKey(), schema.Float64("amount").Min(0),
		schema.String("select").Nullable().MaxLength(3).SeverityOf("max_length", schema.Warn))
	plan, err := compile.Compile(s)
	if err != nil {
		return nil, err
	}
	eng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	q := fmt.Sprintf(`SELECT i::BIGINT AS id, CASE WHEN i < %d THEN -1.0 ELSE 1.0 END::DOUBLE AS amount, 'ünïcode'::VARCHAR AS "select" FROM range(%d) t(i)`, n, n+1)
	rep, _ := eng.Run(ctx, runner.Asset{Name: "orders", Plan: plan, Input: runner.QueryInput{SQL: q}}, runner.Options{Now: func() time.Time { return start }})
	return report.New(rep, plan, report.Facts{Input: "query"}), nil
}

func TestAppendAndRead(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.duckdb")
	_, err := history.Runs(ctx, path, history.Filter{})
	require.ErrorIs(t, err, history.ErrNoHistory)

	base := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	var ids []string
	for i, bad := range []int{0, 2, 3, 0, 1} {
		run, err := newRun(ctx, bad, base.Add(time.Duration(i)*time.Hour))
		require.NoError(t, err)
		require.NoError(t, history.Append(ctx, path, run))
		ids = append(ids, run.Report.RunID)
	}
	runs, err := history.Runs(ctx, path, history.Filter{Asset: "orders", Last: 3})
	require.NoError(t, err)
	require.Len(t, runs, 3)
	assert.Equal(t, ids[4], runs[0].RunID, "newest first")
	assert.Equal(t, "aborted", runs[0].Outcome)
	assert.Equal(t, "all_valid", runs[1].Outcome)
	assert.Equal(t, int64(4), runs[2].Rows.Input)
	assert.Equal(t, "ValidationAbortError", runs[0].ErrorType)

	checks, err := history.Checks(ctx, path, history.Filter{Check: "dy_rule__amount__min"})
	require.NoError(t, err)
	require.Len(t, checks, 1)
	assert.Equal(t, []int64{0, 2, 3, 0, 1}, checks[0].Failed, "oldest first")
	assert.Equal(t, []bool{true, false, false, true, false}, checks[0].Passed)
	assert.Equal(t, "2026-03-01T11:00:00Z", checks[0].LastPassed)

	all, err := history.Checks(ctx, path, history.Filter{})
	require.NoError(t, err)
	var names []string
	for _, c := range all {
		names = append(names, c.Check)
	}
	assert.Equal(t, []string{"dy_schema__columns", "dy_rule__primary_key", "dy_rule__id__nullability", "dy_rule__amount__nullability",
		"dy_rule__amount__min", "dy_rule__amount__inf", "dy_rule__amount__nan", "dy_rule__select__max_length"}, names, "in the report's order, passing checks included")

	// A past run reads back whole, with the trends up to it and not after.
	run, err := history.Load(ctx, path, ids[2])
	require.NoError(t, err)
	assert.Equal(t, ids[2], run.Report.RunID)
	assert.Equal(t, int64(3), run.Report.Rows.Invalid)
	assert.Equal(t, []int64{0, 2, 3}, run.Trends["dy_rule__amount__min"].Failed)
	assert.NotEmpty(t, run.SQL)
	assert.Equal(t, "select", run.Columns[2].Name)
	c, ok := run.Check("dy_rule__amount__min")
	require.True(t, ok)
	assert.Equal(t, "error", c.Rules[0].Severity)
	assert.Equal(t, int64(3), run.Report.Checks[4].Failed, "typed as when it ran")

	_, err = history.Load(ctx, path, "no-such-run")
	assert.ErrorContains(t, err, "no run \"no-such-run\"")

	// The tables are plain SQL for users.
	db, err := gosql.Open("duckdb", path+"?access_mode=read_only")
	require.NoError(t, err)
	defer db.Close()
	var rules []any
	var declared string
	require.NoError(t, db.QueryRow(`SELECT rules, declared_severity FROM tablegate_check_results WHERE run_id = ? AND check_name = 'dy_rule__select__max_length'`, ids[0]).Scan(&rules, &declared))
	assert.Equal(t, []any{"select|max_length"}, rules)
	assert.Equal(t, "WARN", declared)
}

// TestConcurrentProcesses appends from 8 processes at once: DuckDB lets one hold the file, the
// others wait for it, and every run lands.
func TestConcurrentProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.duckdb")
	const n = 8
	var wg sync.WaitGroup
	outs := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := osexec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperVar+"="+path, helperVar+"_N="+strconv.Itoa(i))
			out, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(out), err
		}()
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i], outs[i])
	}
	runs, err := history.Runs(context.Background(), path, history.Filter{Last: 100})
	require.NoError(t, err)
	assert.Len(t, runs, n, "no run lost")
	checks, err := history.Checks(context.Background(), path, history.Filter{Check: "dy_rule__amount__min", Last: 100})
	require.NoError(t, err)
	require.Len(t, checks, 1)
	sum := int64(0)
	for _, f := range checks[0].Failed {
		sum += f
	}
	assert.Equal(t, int64(0+1+2+3+4+5+6+7), sum, "each run's own checks")
}

// TestAppendTakesTheHistoryLock: an append waits for the history's lock file, which every
// tablegate process holds while it has the history open, before DuckDB opens the file. DuckDB
// reads the header before it locks the file: without this lock an append racing another's
// checkpoint could start from the old header and drop the other's run (TestConcurrentProcesses
// lost one in about 30 tries).
func TestAppendTakesTheHistoryLock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.duckdb")
	run, err := newRun(ctx, 1, time.Now())
	require.NoError(t, err)
	unlock, err := durable.LockPath(ctx, durable.LockFile(path))
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- history.Append(ctx, path, run) }()
	select {
	case err := <-done:
		unlock()
		t.Fatalf("the append finished while the history's lock was held: %v", err)
	case <-time.After(3 * time.Second):
	}
	assert.NoFileExists(t, path, "nothing is written before the lock is taken")
	unlock()
	require.NoError(t, <-done)
	runs, err := history.Runs(ctx, path, history.Filter{})
	require.NoError(t, err)
	assert.Len(t, runs, 1)
	assert.NoFileExists(t, durable.LockFile(path), "the lock file is gone once no one holds it")
}

// TestConcurrentGoroutines appends from goroutines of one process.
func TestConcurrentGoroutines(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.duckdb")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run, err := newRun(ctx, i, time.Now())
			if err == nil {
				err = history.Append(ctx, path, run)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	runs, err := history.Runs(ctx, path, history.Filter{})
	require.NoError(t, err)
	assert.Len(t, runs, 8)
}

func TestCorruptFile(t *testing.T) {
	ctx := context.Background()
	for name, content := range map[string][]byte{
		"text":      []byte("this is not a DuckDB file\n"),
		"truncated": append([]byte("\x00\x00\x00\x00\x00\x00\x00\x00DUCK"), make([]byte, 100)...),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "history.duckdb")
			require.NoError(t, os.WriteFile(path, content, 0o644))
			run, err := newRun(ctx, 1, time.Now())
			require.NoError(t, err)
			err = history.Append(ctx, path, run)
			var he *history.Error
			require.ErrorAs(t, err, &he)
			assert.Equal(t, path, he.Path)
			after, rerr := os.ReadFile(path)
			require.NoError(t, rerr)
			assert.Equal(t, content, after, "the file is left as it was")
		})
	}
}

// TestReadOnlyFile appends to a history file its user may not write. Root may write any file, so
// as root the append runs as another user.
func TestReadOnlyFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "history.duckdb")
	run, err := newRun(ctx, 1, time.Now())
	require.NoError(t, err)
	require.NoError(t, history.Append(ctx, path, run))
	require.NoError(t, os.Chmod(path, 0o444))
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })

	if os.Geteuid() != 0 {
		again, err := newRun(ctx, 2, time.Now())
		require.NoError(t, err)
		err = history.Append(ctx, path, again)
		var he *history.Error
		require.ErrorAs(t, err, &he)
	} else {
		require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755), "the test's own folder, for the other user")
		for d := filepath.Dir(dir); d != "/" && d != "."; d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
				t.Skipf("%s is closed to other users, who run the append", d)
			}
		}
		// A copy of this test binary the other user may run (the build cache is closed to it).
		exe, err := os.Executable()
		require.NoError(t, err)
		data, err := os.ReadFile(exe)
		require.NoError(t, err)
		helper := filepath.Join(filepath.Dir(dir), "history.test")
		require.NoError(t, os.WriteFile(helper, data, 0o755))
		cmd := osexec.Command(helper, "-test.run=^$")
		cmd.Env = append(os.Environ(), helperVar+"="+path, helperVar+"_N=2", "HOME="+os.TempDir())
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		require.Error(t, err, "the append as another user must fail: %s", out)
		assert.Contains(t, string(out), "append to the run history "+path)
	}
	runs, err := history.Runs(ctx, path, history.Filter{})
	require.NoError(t, err, "the history still reads")
	assert.Len(t, runs, 1)
}

// TestWaitsForLock holds the file open in this process while another appends: the append waits
// for it rather than failing.
func TestWaitsForLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.duckdb")
	db, err := gosql.Open("duckdb", path)
	require.NoError(t, err)
	require.NoError(t, db.Ping())
	cmd := osexec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperVar+"="+path, helperVar+"_N=1")
	var out []byte
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		var err error
		out, err = cmd.CombinedOutput()
		done <- err
	}()
	const hold = 1500 * time.Millisecond
	time.Sleep(hold)
	select {
	case err := <-done:
		t.Fatalf("the append finished while the file was held: %v %s", err, out)
	default:
	}
	require.NoError(t, db.Close())
	require.NoError(t, <-done, string(out))
	assert.GreaterOrEqual(t, time.Since(start), hold)
	runs, err := history.Runs(context.Background(), path, history.Filter{})
	require.NoError(t, err)
	assert.Len(t, runs, 1)
}
