package durable

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/internal/store"
)

// Local is the store (store.Store) of an output in a local folder, for both engines: a Parquet
// file the DuckDB engine writes, or a Parquet directory of part files the Spark driver writes
// (Dirs), in a folder this process and the driver share. Its temporaries are hidden names beside
// the table (TempPath); Commit puts them in place with renames, under the table's lock and the
// swap journal (Swap.Put): a run killed between two renames leaves the journal, and the next run
// on the output (either engine) rolls the swap forward before it reads anything.
type Local struct {
	// Table and Quarantine are the paths of the table and of its quarantine ("" no quarantine).
	Table, Quarantine string
	// Dirs tells that the outputs are directories another process writes (Spark's): Check makes
	// the folder and tries a write there, since the writer would fail only after its whole job;
	// Finished checks the directory's _SUCCESS marker rather than flushing a file; Commit
	// renames each directory it replaces aside first (a directory cannot be renamed over).
	Dirs bool

	// rolledBack is a set of swaps that Lock rolled back, which Recover reports.
	rolledBack error
}

var _ store.Store = (*Local)(nil)

// PrevPath is where a quarantine that a run would lose is kept: orders_quarantine.parquet ->
// orders_quarantine.prev.parquet (a path or a URL).
func PrevPath(quarantine string) string {
	ext := filepath.Ext(quarantine)
	if strings.ContainsRune(ext, '/') {
		ext = ""
	}
	return strings.TrimSuffix(quarantine, ext) + ".prev" + ext
}

// Check refuses an output folder that is not one, a table, quarantine or kept previous
// quarantine that is not a regular file (a directory, for Dirs), and a name of the swap (the
// outputs, their temporaries, the journal) longer than the folder's file system allows, which
// would fail a rename halfway. For Dirs it also makes the folder and checks that it can be
// written.
func (l *Local) Check(context.Context) error {
	dir := filepath.Dir(l.Table)
	if l.Dirs {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("make the output's folder: %w", err)
		}
		probe, err := os.CreateTemp(dir, ".tg-probe-*")
		if err != nil {
			return fmt.Errorf("the output's folder cannot be written: %w", err)
		}
		probe.Close()
		if err := os.Remove(probe.Name()); err != nil {
			return err
		}
	}
	if err := filekind.Directory(dir); err != nil {
		return err
	}
	kind, longest := filekind.Regular, "quarantine"
	if l.Dirs {
		kind, longest = filekind.Directory, "old-quarantine"
	}
	quarantines := []string{}
	if l.Quarantine != "" {
		quarantines = []string{l.Quarantine, PrevPath(l.Quarantine)}
	}
	for _, p := range append([]string{l.Table}, quarantines...) {
		if err := kind(p); err != nil {
			return err
		}
	}
	limit := NameMax(dir)
	for _, p := range []string{l.Table, TempPath(l.Table, math.MaxInt64, longest), JournalPath(l.Table) + fmt.Sprintf("-%d.tmp", math.MaxInt32)} {
		if n := filepath.Base(p); len(n) > limit {
			return fmt.Errorf("%w: use a shorter table name (its temporaries and journal are named after it)", &NameTooLongError{Dir: dir, Name: n, Max: limit})
		}
	}
	for _, p := range quarantines {
		if n := filepath.Base(p); len(n) > limit {
			return fmt.Errorf("%w: use a shorter quarantine name", &NameTooLongError{Dir: dir, Name: n, Max: limit})
		}
	}
	return nil
}

// Lock takes the table's lock file; a second writer waits. A table that belongs to an unfinished
// set of swaps (a collection's write) is first recovered with the whole set, under every
// member's lock taken in order (RecoverAll); then its own lock is taken again.
func (l *Local) Lock(ctx context.Context) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(l.Table), 0o755); err != nil {
		return nil, err
	}
	for {
		unlock, err := LockPath(ctx, LockFile(l.Table))
		if err != nil {
			return nil, err
		}
		members, err := SetMembers(l.Table)
		if err != nil {
			unlock()
			return nil, err
		}
		if members == nil {
			return unlock, nil
		}
		unlock()
		release, rolledBack, err := RecoverAll(ctx, members)
		if err != nil {
			return nil, err
		}
		release()
		if len(rolledBack) > 0 {
			l.rolledBack = rolledBack[0]
		}
	}
}

// Recover completes the swap a killed run recorded (RecoverSwap: rolled forward, or back when it
// cannot complete, a *RolledBackError), and removes the temporaries killed runs left.
func (l *Local) Recover(context.Context) error {
	err := RecoverSwap(l.Table)
	if rb := (*RolledBackError)(nil); err != nil && !errors.As(err, &rb) {
		return err
	}
	RemoveStale(l.Table)
	if err == nil {
		err = l.rolledBack
	}
	l.rolledBack = nil
	return err
}

// Temp is a hidden name beside the table (TempPath).
func (l *Local) Temp(run int64, role string) string { return TempPath(l.Table, run, role) }

// Finished flushes a written file to disk, or checks that a directory Spark wrote has its
// _SUCCESS marker.
func (l *Local) Finished(_ context.Context, tmp string) error {
	if !l.Dirs {
		return syncFile(tmp)
	}
	if _, err := os.Stat(filepath.Join(tmp, "_SUCCESS")); err != nil {
		return fmt.Errorf("the write reported success but %s has no _SUCCESS marker: %w (is the path on a filesystem the Spark driver and this process share?)", tmp, err)
	}
	return nil
}

// syncFile flushes a written file to disk; a variable so that tests can make a flush fail
// (SetSyncFailure).
var syncFile = func(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// SetSyncFailure makes every flush of a file for which fail returns an error fail with it,
// until the returned function restores the real flush. Tests that use it must not run in
// parallel.
func SetSyncFailure(fail func(path string) error) (restore func()) {
	flush := syncFile
	syncFile = func(path string) error {
		if err := fail(path); err != nil {
			return err
		}
		return flush(path)
	}
	return func() { syncFile = flush }
}

// Commit puts the finished temporaries in place as one swap (Swap.Put), the quarantine's side
// first, so that even a swap whose journal is lost with the disk never puts a new table beside
// an older quarantine. A directory replaced is renamed aside first (a rename of its own, so that
// the swap can be rolled back), and removed once the swap is done.
func (l *Local) Commit(_ context.Context, c store.Commit) (done store.Committed, err error) {
	sw, done, aside, err := l.swap(c)
	if err != nil || len(sw.Steps) == 0 {
		return done, err
	}
	if done.Pending, err = sw.Put(l.Table, c.Run); err != nil {
		done.Kept = false
		return done, err
	}
	for _, old := range aside {
		_ = os.RemoveAll(old) // left by a kill here: the next run's Recover removes it
	}
	return done, nil
}

// Member is the output's part of a set of swaps (SetSwap): the renames Commit would do, for a
// collection's write to do with the other members' under one journal. Directories cannot be
// members.
func (l *Local) Member(c store.Commit) (SetMember, store.Committed, error) {
	if l.Dirs {
		return SetMember{}, store.Committed{}, errors.New("a set of swaps moves files, not directories")
	}
	sw, done, _, err := l.swap(c)
	return SetMember{Table: l.Table, Swap: sw}, done, err
}

// swap is the renames that put c in place, what they do, and the directories they put aside.
func (l *Local) swap(c store.Commit) (sw Swap, done store.Committed, aside []string, err error) {
	sw = Swap{Dir: filepath.Dir(l.Table), Dirs: l.Dirs}
	replace := func(from, to, role string) {
		if l.Dirs && exists(to) {
			old := TempPath(l.Table, c.Run, role)
			sw.Add(to, old)
			aside = append(aside, old)
		}
		sw.Add(from, to)
	}
	if c.Keep != "" && l.Quarantine != "" && exists(l.Quarantine) {
		if l.Dirs {
			if err := os.RemoveAll(c.Keep); err != nil { // the one an earlier run kept
				return sw, done, nil, err
			}
		}
		sw.Add(l.Quarantine, c.Keep)
		done.Kept = true
	}
	if c.Quarantine != "" {
		replace(c.Quarantine, l.Quarantine, "old-quarantine")
	}
	if c.Table != "" {
		replace(c.Table, l.Table, "old-table")
	}
	return sw, done, aside, nil
}

// Discard removes the temporaries.
func (l *Local) Discard(_ context.Context, tmps ...string) {
	for _, tmp := range tmps {
		_ = os.RemoveAll(tmp)
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
