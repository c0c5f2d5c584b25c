// Package durable holds what keeps a run's files whole through crashes, kills and concurrent
// runs: the journaled swap that puts Parquet outputs in place, the table lock, the folder flush,
// and each engine's own spill folder (with unix and windows files where the system calls differ).
package durable

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// A Swap is the renames that put one run's Parquet outputs in place, in order, as base names in
// one folder. A swap of more than one rename is first recorded in a journal beside the table,
// flushed before the first rename: the journal is the moment the new pair is decided, and a run
// killed between the renames leaves it behind for the next run to complete (RecoverSwap) before
// it does anything else. Every source is a file the swap alone moves, so a rename whose source is
// gone has been done, and so have all those before it.
type Swap struct {
	Dir   string
	Steps []rename
}

type rename struct {
	From string `json:"from"`
	To   string `json:"to"`
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

// Commit writes the journal under a temporary name (removed with the table's other
// temporaries if the run dies), flushes it and renames it into place.
func (s *Swap) Commit(journal string) error {
	data, err := json.Marshal(s.Steps)
	if err != nil {
		return err
	}
	tmp := filepath.Join(s.Dir, fmt.Sprintf("%s-%d.tmp", filepath.Base(journal), os.Getpid()))
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write the swap's journal: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, journal)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write the swap's journal: %w", err)
	}
	return SyncDir(s.Dir)
}

// Apply does the renames from step from on, flushes the folder and removes the journal ("" when
// there is none).
func (s *Swap) Apply(from int, journal string) error {
	for i := from; i < len(s.Steps); i++ {
		st := s.Steps[i]
		if err := os.Rename(filepath.Join(s.Dir, st.From), filepath.Join(s.Dir, st.To)); err != nil {
			return err
		}
		Crash(fmt.Sprintf("renamed %d", i))
	}
	if err := SyncDir(s.Dir); err != nil || journal == "" {
		return err
	}
	if err := os.Remove(journal); err != nil {
		return err
	}
	return SyncDir(s.Dir)
}

// RecoverSwap completes the swap a killed run recorded beside the table, if any: its outputs
// were complete and flushed before the journal was written, so the swap rolls forward.
func RecoverSwap(table string) error {
	journal := JournalPath(table)
	data, err := os.ReadFile(journal)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the unfinished swap %s: %w", journal, err)
	}
	s := Swap{Dir: filepath.Dir(table)}
	if err := json.Unmarshal(data, &s.Steps); err != nil || !s.valid() {
		return fmt.Errorf("the unfinished swap %s cannot be read (%d bytes); check the outputs beside it, then remove it", journal, len(data))
	}
	done := 0
	for i, st := range s.Steps {
		if _, err := os.Lstat(filepath.Join(s.Dir, st.From)); errors.Is(err, os.ErrNotExist) {
			done = i + 1
		}
	}
	if err := s.Apply(done, journal); err != nil {
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
		for _, n := range []string{st.From, st.To} {
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
