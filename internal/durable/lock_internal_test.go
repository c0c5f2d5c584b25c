//go:build unix

package durable

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLockLeavesNoFile: the lock file exists only while a run holds it; a second run waits for
// the first and then takes a fresh file; a killed run's file (left unlocked) does not block and
// is gone once the next holder lets go.
func TestLockLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".t.parquet.tablegate.lock")
	ctx := context.Background()

	require.NoError(t, os.WriteFile(path, nil, 0o644)) // a killed run's
	unlock, err := LockPath(ctx, path)
	require.NoError(t, err)
	assert.FileExists(t, path)

	got := make(chan time.Time)
	go func() {
		second, err := LockPath(ctx, path)
		assert.NoError(t, err)
		at := time.Now()
		second()
		got <- at
	}()
	time.Sleep(200 * time.Millisecond)
	released := time.Now()
	unlock()
	assert.True(t, (<-got).After(released), "the second run waited for the first")
	assert.NoFileExists(t, path)

	// A context that ends while waiting.
	unlock, err = LockPath(ctx, path)
	require.NoError(t, err)
	defer unlock()
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = LockPath(short, path)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}
