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
	disk := e.path("disk")
	require.NoError(t, os.MkdirAll(disk, 0o755))
	if out, err := osexec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", disk).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small filesystem: %v %s", err, out)
	}
	t.Cleanup(func() { _ = osexec.Command("umount", disk).Run() })

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
