package durable

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/internal/store"
)

// TestLocalRecoversTheWholeSet: the local store of any member of a collection's decided set of
// swaps (a DuckDB Parquet file, or a Spark directory beside it) completes the whole set when it
// takes its lock, under every member's lock, and reports nothing rolled back.
func TestLocalRecoversTheWholeSet(t *testing.T) {
	for m := range 3 {
		f := newSetFixture(t)
		stopped, err := runSet(f.set(), keepName(f), "set journal written")
		require.NoError(t, err)
		require.True(t, stopped)
		rolledBack, err := store.Recover(context.Background(), &Local{Table: f.tables[m], Dirs: m == 2})
		require.NoError(t, err)
		assert.NoError(t, rolledBack)
		for i := range 3 {
			_, err := os.Lstat(JournalPath(f.tables[i]))
			assert.ErrorIs(t, err, os.ErrNotExist, "no journal or pointer left beside member %d", i)
		}
		assert.Equal(t, f.next(), f.outputs(t), "every member's new files, recovered from member %d", m)
	}
}

// TestLocalReportsARollback: a recorded swap that cannot complete is rolled back by Recover, which
// says so with a *RolledBackError (a warning: the output may be written); LockRecovered, which a
// writer calls, takes it as done.
func TestLocalReportsARollback(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("q", NameMax(dir)+1) + ".parquet"
	writeFiles(t, dir, map[string]string{"t.parquet": "old table", "q.tmp": "new quarantine", "t.tmp": "new table"})
	table := filepath.Join(dir, "t.parquet")
	data, err := json.Marshal([]rename{{From: "q.tmp", To: long}, {From: "t.tmp", To: "t.parquet"}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(JournalPath(table), data, 0o644))

	rolledBack, err := store.Recover(context.Background(), &Local{Table: table})
	require.NoError(t, err)
	var rb *RolledBackError
	require.ErrorAs(t, rolledBack, &rb)
	assert.Equal(t, map[string]string{"t.parquet": "old table", "q.tmp": "new quarantine", "t.tmp": "new table"}, folder(t, dir), "the previous table")

	require.NoError(t, os.WriteFile(JournalPath(table), data, 0o644))
	unlock, err := store.LockRecovered(context.Background(), &Local{Table: table})
	require.NoError(t, err)
	unlock()
}

// TestLocalCheck: a table, quarantine or kept quarantine of the wrong kind, and a table name whose
// temporaries would pass the folder's limit, are refused before anything is written; a Spark
// output's folder is made.
func TestLocalCheck(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "t.parquet"), 0o755))
	assert.ErrorContains(t, (&Local{Table: filepath.Join(dir, "t.parquet")}).Check(ctx), "not a regular file")
	assert.NoError(t, (&Local{Table: filepath.Join(dir, "t.parquet"), Dirs: true}).Check(ctx))
	writeFiles(t, dir, map[string]string{"q.prev.parquet": "a file"})
	assert.ErrorContains(t, (&Local{Table: filepath.Join(dir, "t.parquet"), Quarantine: filepath.Join(dir, "q.parquet"), Dirs: true}).Check(ctx), "not a directory")

	long := strings.Repeat("t", NameMax(dir)-len(".parquet")) + ".parquet"
	for _, dirs := range []bool{false, true} {
		err := (&Local{Table: filepath.Join(dir, "new", long), Dirs: dirs}).Check(ctx)
		var tooLong *NameTooLongError
		assert.ErrorAs(t, err, &tooLong)
		assert.ErrorContains(t, err, "use a shorter table name")
	}
	_, err := os.Stat(filepath.Join(dir, "new"))
	assert.NoError(t, err, "a Spark output's folder is made")
}
