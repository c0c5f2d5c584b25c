//go:build unix

package durable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// LockPath takes an exclusive lock on path, waiting for another run that holds it until ctx
// ends. The lock file exists only while a run holds it: the holder removes it before letting
// go, and a run that locked a file since removed (its inode is no longer at path) starts over.
// A killed run's file stays until the next run removes it.
func LockPath(ctx context.Context, path string) (func(), error) {
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			if current(f, path) {
				return func() {
					_ = os.Remove(path) // under the lock: no other run holds this inode
					_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
					f.Close()
				}, nil
			}
			f.Close() // the holder removed it: lock the one at path now
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		f.Close()
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for another run writing the same output: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// current reports whether the open file f is still the one at path.
func current(f *os.File, path string) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(path)
	return err == nil && os.SameFile(held, now)
}
