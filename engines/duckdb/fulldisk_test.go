package duckdb_test

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// TestSlowFullDiskGivesSpaceBack: a DuckDB output on a filesystem of 8 MB (a tmpfs; skipped where it
// cannot be mounted) that a run's table does not fit: the run fails with the disk full, the
// database file is back to its size before the run and the previous table intact, and the next
// run that fits succeeds (without the space given back, it fails on the WAL). A new database
// file the failed run made is removed.
func TestSlowFullDiskGivesSpaceBack(t *testing.T) {
	testenv.Slow(t) // fills a small file system
	e := newEnv(t)
	disk := smallDisk(t, e, "8m")

	big := e.parquet("in/big.parquet", "SELECT md5(i::VARCHAR) || md5((i + 1)::VARCHAR) AS id, 1.0::DOUBLE AS amount, NULL::VARCHAR AS note FROM range(2000000) t(i)")
	small := func(rows string) runner.Input {
		return runner.ParquetInput{Path: e.parquet("in/small.parquet", ordersSelect(rows))}
	}
	wh := filepath.Join(disk, "wh.duckdb")
	out := runner.TableOutput{File: wh, Table: "orders"}
	_, err := run(t, ordersSchema(), runner.Asset{Input: small(mixedRows), Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	st, err := os.Stat(wh)
	require.NoError(t, err)
	before := st.Size()

	for i := range 2 { // twice: the space given back is there again for the next failure
		_, err = run(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput{Path: big}, Output: out, Quarantine: true}, runner.Options{})
		var outErr *outcome.OutputError
		require.ErrorAs(t, err, &outErr, "attempt %d", i)
		assert.ErrorContains(t, err, "No space left on device")
		st, err = os.Stat(wh)
		require.NoError(t, err)
		assert.Equal(t, before, st.Size(), "attempt %d: the file is back to its size", i)
		assert.NoFileExists(t, wh+".wal")
		rows, _, ok := e.tableRows(wh, "orders")
		require.True(t, ok)
		assert.Equal(t, mixedValid, rows, "the previous table")
		q, _, _ := e.tableRows(wh, "orders_quarantine")
		assert.Equal(t, mixedQuar, q, "the previous quarantine")
	}

	_, err = run(t, ordersSchema(), runner.Asset{Input: small(allValidRows), Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err, "the next run that fits succeeds")
	rows, _, ok := e.tableRows(wh, "orders")
	require.True(t, ok)
	assert.Equal(t, [][]any{{"a", 1.0, nil}, {"b", 2.5, "ok"}}, rows)

	// A database file the failed run made is removed, not left full.
	fresh := filepath.Join(disk, "new.duckdb")
	_, err = run(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput{Path: big}, Output: runner.TableOutput{File: fresh, Table: "orders"}}, runner.Options{})
	assert.ErrorContains(t, err, "No space left on device")
	assert.NoFileExists(t, fresh)
	assert.NoFileExists(t, fresh+".wal")
}

// TestSlowFullDiskCopyKeepsLastKnownGood: an all-valid Parquet run publishes a copy of its input's
// bytes; on a file system of 4 MB (a tmpfs; skipped where it cannot be mounted) that the copy
// does not fit, the run fails with the disk full and an OutputError, the previous table and
// quarantine stay byte for byte, and the partial copy is removed. The next run that fits
// succeeds.
func TestSlowFullDiskCopyKeepsLastKnownGood(t *testing.T) {
	testenv.Slow(t) // fills a small file system
	e := newEnv(t)
	disk := smallDisk(t, e, "4m")

	big := e.parquet("in/big.parquet", "SELECT md5(i::VARCHAR) || md5((i + 1)::VARCHAR) AS id, 1.0::DOUBLE AS amount, NULL::VARCHAR AS note FROM range(300000) t(i)")
	st, err := os.Stat(big)
	require.NoError(t, err)
	require.Greater(t, st.Size(), int64(4<<20), "the input does not fit the disk")
	out := runner.ParquetOutput{Path: filepath.Join(disk, "orders.parquet")}
	quarantine := filepath.Join(disk, "orders_quarantine.parquet")
	_, err = run(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput{Path: e.parquet("in/small.parquet", ordersSelect(mixedRows))}, Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	before := map[string][]byte{}
	for _, p := range []string{out.Path, quarantine} {
		before[p], err = os.ReadFile(p)
		require.NoError(t, err)
	}

	rep, trace, err := runTraced(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput{Path: big}, Output: out, Quarantine: true}, runner.Options{})
	var outErr *outcome.OutputError
	require.ErrorAs(t, err, &outErr)
	assert.ErrorContains(t, err, "no space left on device")
	assert.Nil(t, rep.Outcome, "a run that could not write has no outcome")
	assert.Contains(t, trace, "-- copy the input file ", "the run copied its input")
	for p, data := range before {
		now, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, data, now, "%s: the previous file, byte for byte", p)
	}
	entries, err := os.ReadDir(disk)
	require.NoError(t, err)
	var names []string
	for _, en := range entries {
		names = append(names, en.Name())
	}
	assert.Equal(t, []string{"orders.parquet", "orders_quarantine.parquet"}, names, "nothing else: the partial copy is removed")

	_, err = run(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput{Path: e.parquet("in/valid.parquet", ordersSelect(allValidRows))}, Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err, "the next run that fits succeeds")
	assert.Equal(t, [][]any{{"a", 1.0, nil}, {"b", 2.5, "ok"}}, e.parquetRows(out.Path))
}

// smallDisk mounts a tmpfs of the size (mount's syntax: 4m) in the test's folder, unmounted when
// the test ends; the test is skipped where it cannot be mounted.
func smallDisk(t *testing.T, e *env, size string) string {
	t.Helper()
	disk := e.path("disk")
	require.NoError(t, os.MkdirAll(disk, 0o755))
	if out, err := osexec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", disk).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small filesystem: %v %s", err, out)
	}
	t.Cleanup(func() { _ = osexec.Command("umount", disk).Run() })
	return disk
}
