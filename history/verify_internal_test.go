package history

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The history is opened under DuckDB's lockdown: even a statement that got past verify could
// read no other file and change no setting.
func TestHistoryLockedDown(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path, other := filepath.Join(dir, "h.duckdb"), filepath.Join(dir, "other.txt")
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o644))
	require.NoError(t, ensureFile(ctx, path))
	for _, readOnly := range []bool{true, false} {
		db, err := open(ctx, path, readOnly)
		require.NoError(t, err)
		_, err = db.ExecContext(ctx, "SELECT * FROM read_text('"+other+"')")
		require.ErrorContains(t, err, "Permission Error")
		_, err = db.ExecContext(ctx, "SET enable_external_access = true")
		require.ErrorContains(t, err, "configuration has been locked")
		require.NoError(t, db.Close())
	}
}
