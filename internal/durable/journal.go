// Package durable holds what keeps a run's files whole through crashes, kills and concurrent
// runs: the journaled swap that puts Parquet outputs in place (and the set of swaps that puts a
// collection's members in place together), the table lock, the folder flush, and each engine's
// own spill folder (with unix and windows files where the system calls differ).
package durable

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/internal/store"
)

// A Swap is the renames that put one run's Parquet outputs in place, in order, as base names in
// one folder. A swap of more than one rename is first recorded in a journal beside the table,
// flushed before the first rename: the journal is the moment the new pair is decided, and a run
// killed between the renames leaves it behind for the next run to complete (RecoverSwap) before
// it does anything else. Every source is a file the swap alone moves, so a rename whose source is
// gone has been done, and so have all those before it.
//
// A rename that fails (a name the file system refuses, a folder put in the way) undoes those
// done, so that a swap that cannot complete never blocks the output: each file a rename replaces
// is first kept under a hard link (Keep), which the rollback renames back.
//
// A swap of Dirs moves directories (Spark's Parquet outputs): no hard link keeps a directory, so
// such a swap renames each directory it replaces aside as a rename of its own first, which a
// rollback undoes like the others.
type Swap struct {
	Dir   string
	Steps []rename
	Dirs  bool
}

type rename struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Keep is the hard link to the file To named when the swap was recorded, which a rollback
	// puts back; Fresh says To named no file then (or one an earlier rename moves away). A
	// rename with neither (the file system has no hard links) cannot be undone.
	Keep  string `json:"keep,omitempty"`
	Fresh bool   `json:"fresh,omitempty"`
}

// crashPoint, when set, is called at each step of a swap with its name ("journal written",
// "renamed 0", ...); tests kill the process there.
var crashPoint func(stage string)

// SetCrashPoint calls at at each step of a swap (and at Crash), until the returned function
// restores none. Tests that use it must not run in parallel.
func SetCrashPoint(at func(stage string)) (restore func()) {
	crashPoint = at
	return func() { crashPoint = nil }
}

// Crash marks a step of a write, where a test may kill the process.
func Crash(stage string) {
	if crashPoint != nil {
		crashPoint(stage)
	}
}

// JournalPath is the hidden journal of the table's swaps; no *.parquet glob matches it.
func JournalPath(table string) string {
	return filepath.Join(filepath.Dir(table), "."+filepath.Base(table)+".tablegate-journal")
}

// Add appends the rename of from to to (both in the swap's folder).
func (s *Swap) Add(from, to string) {
	s.Steps = append(s.Steps, rename{From: filepath.Base(from), To: filepath.Base(to)})
}

// Check refuses a swap that cannot complete, before anything is recorded or renamed: a source
// that is missing, a target that is not a regular file (a folder, a named pipe, a device; not a
// directory, for a swap of Dirs), or a name longer than the folder's file system allows.
func (s *Swap) Check() error {
	limit := NameMax(s.Dir)
	for _, st := range s.Steps {
		for _, n := range []string{st.From, st.To, st.Keep} {
			if len(n) > limit {
				return &NameTooLongError{Dir: s.Dir, Name: n, Max: limit}
			}
		}
		if _, err := os.Lstat(filepath.Join(s.Dir, st.From)); err != nil {
			return err
		}
		kind := filekind.Regular
		if s.Dirs {
			kind = filekind.Directory
		}
		if err := kind(filepath.Join(s.Dir, st.To)); err != nil {
			return err
		}
	}
	return nil
}

// NameTooLongError is a file name longer than its folder's file system allows.
type NameTooLongError struct {
	Dir, Name string
	Max       int
}

func (e *NameTooLongError) Error() string {
	return fmt.Sprintf("the file name %q is %d bytes; the file system of %s allows at most %d", e.Name, len(e.Name), e.Dir, e.Max)
}

// Commit checks the swap, keeps a hard link to each file it replaces (keep names the link of
// step i: a temporary the table's cleanup removes), then writes the journal under a temporary
// name (removed with the table's other temporaries if the run dies), flushes it and renames it
// into place.
func (s *Swap) Commit(journal string, keep func(step int) string) error {
	if err := s.keepReplaced(keep); err != nil {
		return err
	}
	data, err := json.Marshal(s.Steps)
	if err == nil {
		err = writeSynced(s.Dir, journal, data)
	}
	if err != nil {
		s.removeKeeps()
		return fmt.Errorf("write the swap's journal: %w", err)
	}
	return nil
}

// keepReplaced checks the swap, then keeps a hard link to each file it replaces (keep names the
// link of step i) and checks the links' names too.
func (s *Swap) keepReplaced(keep func(step int) string) error {
	if err := s.Check(); err != nil {
		return err
	}
	movedAway := map[string]bool{}
	for i := range s.Steps {
		st := &s.Steps[i]
		to := filepath.Join(s.Dir, st.To)
		if _, err := os.Lstat(to); err != nil || movedAway[st.To] {
			st.Fresh = true
		} else if k := filepath.Join(s.Dir, filepath.Base(keep(i))); os.Link(to, k) == nil {
			st.Keep = filepath.Base(k)
		}
		movedAway[st.From] = true
	}
	if err := s.Check(); err != nil { // the keeps' names too
		s.removeKeeps()
		return err
	}
	return nil
}

// writeSynced writes data to path under a temporary name in dir (path-<pid>.tmp, which the
// table's cleanup removes if the run dies), flushes it, renames it into place and flushes dir.
func writeSynced(dir, path string, data []byte) error {
	tmp := fmt.Sprintf("%s-%d.tmp", path, os.Getpid())
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return SyncDir(dir)
}

// Apply does the renames from step from on, flushes the folder and removes the journal ("" when
// there is none) and the kept files. When a rename fails, the renames done are undone and the
// journal removed: the error is a *RolledBackError; if the rollback fails too the journal stays,
// for the next run.
func (s *Swap) Apply(from int, journal string) error {
	for i := from; i < len(s.Steps); i++ {
		if err := s.do(i); err != nil {
			return s.rollback(i, journal, err)
		}
		Crash(fmt.Sprintf("renamed %d", i))
	}
	if err := SyncDir(s.Dir); err != nil || journal == "" {
		return err
	}
	if err := os.Remove(journal); err != nil {
		return err
	}
	s.removeKeeps()
	return SyncDir(s.Dir)
}

// RolledBackError is a swap that could not complete and was undone: the files it would have
// replaced are back under their names, and its journal is gone.
type RolledBackError = store.RolledBackError

// rollback undoes the renames before step failed, newest first: each target goes back to its
// source, then the file it replaced comes back from its keep. It needs every done rename to be
// undoable (a keep, or a target that named no file).
func (s *Swap) rollback(failed int, journal string, cause error) error {
	if to := s.notUndoable(failed); to != "" {
		return fmt.Errorf("%w; the swap cannot be rolled back (the file system keeps no hard link to %s)%s", cause, to, pending(journal))
	}
	for i := failed - 1; i >= 0; i-- {
		if err := s.undo(i); err != nil {
			return fmt.Errorf("%w; rolling the swap back failed too: %w%s", cause, err, pending(journal))
		}
		Crash(fmt.Sprintf("undone %d", i))
	}
	s.removeKeeps() // those of the renames not done
	_ = SyncDir(s.Dir)
	if journal != "" {
		if err := os.Remove(journal); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w; the swap was rolled back but its journal %s could not be removed: %w", cause, journal, err)
		}
		_ = SyncDir(s.Dir)
	}
	return &RolledBackError{Err: cause}
}

// do does rename i. A file it replaces that a rollback interrupted by a kill had put back is
// kept again first.
func (s *Swap) do(i int) error {
	st := s.Steps[i]
	to := filepath.Join(s.Dir, st.To)
	if st.Keep != "" {
		if _, err := os.Lstat(filepath.Join(s.Dir, st.Keep)); errors.Is(err, os.ErrNotExist) {
			_ = os.Link(to, filepath.Join(s.Dir, st.Keep))
		}
	}
	return os.Rename(filepath.Join(s.Dir, st.From), to)
}

// undo undoes rename i: its target goes back to its source, then the file it replaced comes
// back from its keep.
func (s *Swap) undo(i int) error {
	st := s.Steps[i]
	if err := os.Rename(filepath.Join(s.Dir, st.To), filepath.Join(s.Dir, st.From)); err != nil {
		return err
	}
	if st.Keep != "" {
		return os.Rename(filepath.Join(s.Dir, st.Keep), filepath.Join(s.Dir, st.To))
	}
	return nil
}

// notUndoable is the target of the first of the first n renames that cannot be undone (it
// replaced a file no hard link keeps), "" when all can.
func (s *Swap) notUndoable(n int) string {
	for _, st := range s.Steps[:n] {
		if !st.Fresh && st.Keep == "" {
			return st.To
		}
	}
	return ""
}

// doneUpTo is how many of the renames a killed run had done: a rename whose source is gone and
// whose target is there has been done, and so have all those before it. A source gone with no
// target (removed by hand, or the cause of a rollback that a kill interrupted) is not a rename
// done: redoing it fails, and the swap is rolled back.
func (s *Swap) doneUpTo() int {
	done := 0
	for i, st := range s.Steps {
		_, fromErr := os.Lstat(filepath.Join(s.Dir, st.From))
		_, toErr := os.Lstat(filepath.Join(s.Dir, st.To))
		if errors.Is(fromErr, os.ErrNotExist) && toErr == nil {
			done = i + 1
		}
	}
	return done
}

func pending(journal string) string {
	if journal == "" {
		return ""
	}
	return fmt.Sprintf("; the swap stays recorded in %s, which the next run completes or rolls back", journal)
}

func (s *Swap) removeKeeps() {
	for _, st := range s.Steps {
		if st.Keep != "" {
			_ = os.Remove(filepath.Join(s.Dir, st.Keep))
		}
	}
}

// RecoverSwap completes the swap a killed run recorded beside the table, if any: its outputs
// were complete and flushed before the journal was written, so the swap rolls forward. A swap
// that cannot roll forward (a rename fails) is rolled back: the error is then a
// *RolledBackError, which says what was done; the previous files are in place and the table may
// be written.
//
// A journal or pointer of a set (SetSwap) completes, or rolls back, the whole set: the caller
// then holds the lock of every member that SetMembers names.
func RecoverSwap(table string) error {
	journal := JournalPath(table)
	if err := filekind.Regular(journal); err != nil {
		return fmt.Errorf("the unfinished swap %s cannot be read: %w; check the outputs beside it, then remove it", journal, err)
	}
	data, err := os.ReadFile(journal)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the unfinished swap %s: %w", journal, err)
	}
	if isSetRecord(data) {
		return recoverSet(table)
	}
	s := Swap{Dir: filepath.Dir(table)}
	if err := json.Unmarshal(data, &s.Steps); err != nil || !s.valid() {
		return fmt.Errorf("the unfinished swap %s cannot be read (%d bytes); check the outputs beside it, then remove it", journal, len(data))
	}
	if err := s.Apply(s.doneUpTo(), journal); err != nil {
		var rb *RolledBackError
		if errors.As(err, &rb) {
			return &RolledBackError{Err: fmt.Errorf("the unfinished swap %s could not be completed: %w", journal, rb.Err)}
		}
		return fmt.Errorf("complete the unfinished swap %s: %w", journal, err)
	}
	return nil
}

// valid reports whether every name is a plain file name of the folder.
func (s *Swap) valid() bool {
	if len(s.Steps) == 0 {
		return false
	}
	for _, st := range s.Steps {
		for _, n := range []string{st.From, st.To, st.Keep} {
			if n == st.Keep && n == "" {
				continue
			}
			if n == "" || n == "." || n == ".." || filepath.Base(n) != n || n != filepath.Clean(n) {
				return false
			}
		}
	}
	return true
}

// SyncDir flushes a folder's entries (renames) to disk; not every filesystem can.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync() // not every filesystem can sync a directory
	return nil
}

// defaultNameMax is the longest file name when the file system does not say (NAME_MAX).
const defaultNameMax = 255
