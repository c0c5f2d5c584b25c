package durable

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SpillDir is an engine's own folder for DuckDB's spill files. DuckDB names its spill files alike
// in every process (duckdb_temp_storage_DEFAULT-0.tmp, ...), so two runs spilling to one folder
// overwrite each other's blocks (measured: two processes both failed with "Could not read enough
// bytes from file duckdb_temp_storage_..."; two engines in one process crashed it, SIGSEGV), and
// a killed run's files stay in the folder until some later run spills there too. Each engine
// therefore spills to tablegate-<pid>-<random> inside the configured folder, holds a lock on a
// file in it while it lives, and removes it on Close; folders whose lock is free belong to
// engines that died, and the next engine on the same folder removes them.
type SpillDir struct {
	path       string // the folder DuckDB spills to
	lock       *os.File
	base       string
	removeBase bool
}

const spillLock = ".tablegate.lock"

// NewSpillDir makes the engine's spill folder inside base; nil when it cannot (DuckDB then
// spills to base itself, as it would without tablegate). ownBase says the base folder is
// tablegate's to remove when it is left empty (DuckDB's default .tmp, not a folder the user
// named); a folder the user named is removed only when this engine created it.
func NewSpillDir(base string, ownBase bool) *SpillDir {
	_, statErr := os.Stat(base)
	created := errors.Is(statErr, os.ErrNotExist)
	for try := 0; try < 4; try++ {
		if err := os.MkdirAll(base, 0o755); err != nil {
			return nil
		}
		if try == 0 {
			removeDeadSpillDirs(base)
		}
		path, err := os.MkdirTemp(base, fmt.Sprintf("tablegate-%d-", os.Getpid()))
		if err != nil {
			// Another engine may have removed the empty base folder in between: make it again.
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil
		}
		if lock := lockSpillDir(path); lock != nil {
			return &SpillDir{path: path, lock: lock, base: base, removeBase: ownBase || created}
		}
		_ = os.RemoveAll(path)
	}
	return nil
}

// lockSpillDir creates and locks the folder's lock file. Between the two, another engine's
// removeDeadSpillDirs may find the lock free and remove the folder: the lock is kept only if
// its file is still the one in the folder.
func lockSpillDir(path string) *os.File {
	name := filepath.Join(path, spillLock)
	lock, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil
	}
	if tryLock(lock) {
		held, herr := lock.Stat()
		inDir, derr := os.Stat(name)
		if herr == nil && derr == nil && os.SameFile(held, inDir) {
			return lock
		}
	}
	lock.Close()
	return nil
}

// Release removes the folder (DuckDB has closed its files), and the base folder when it is
// tablegate's and nothing else is in it.
func (s *SpillDir) Release() {
	if s == nil {
		return
	}
	_ = os.RemoveAll(s.path)
	s.lock.Close()
	if s.removeBase {
		_ = os.Remove(s.base) // fails, as it should, while anything is in it
	}
}

// removeDeadSpillDirs removes the spill folders of engines that are gone: their lock is free.
// A folder without a lock file is left alone for a minute, in case its engine is creating it.
func removeDeadSpillDirs(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "tablegate-") {
			continue
		}
		dir := filepath.Join(base, e.Name())
		f, err := os.OpenFile(filepath.Join(dir, spillLock), os.O_RDWR, 0)
		if errors.Is(err, os.ErrNotExist) {
			// No lock yet: an engine that is starting, or one killed before it took the lock.
			// Its process being gone (or the folder being old) tells them apart.
			if info, err := e.Info(); err == nil && (processGone(e.Name()) || time.Since(info.ModTime()) > time.Minute) {
				_ = os.RemoveAll(dir)
			}
			continue
		}
		if err != nil {
			continue
		}
		if tryLock(f) {
			_ = os.RemoveAll(dir)
		}
		f.Close()
	}
}

// processGone reports whether the process named in a spill folder (tablegate-<pid>-…) no longer
// exists.
func processGone(name string) bool {
	var pid int
	if _, err := fmt.Sscanf(name, "tablegate-%d-", &pid); err != nil || pid <= 0 {
		return false
	}
	return !processExists(pid)
}

// Path is the folder DuckDB spills to.
func (s *SpillDir) Path() string { return s.path }
