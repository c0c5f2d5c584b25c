package exec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// A swap is the renames that put one run's Parquet outputs in place, in order, as base names in
// one folder. A swap of more than one rename is first recorded in a journal beside the table,
// flushed before the first rename: the journal is the moment the new pair is decided, and a run
// killed between the renames leaves it behind for the next run to complete (recoverSwap) before
// it does anything else. Every source is a file the swap alone moves, so a rename whose source is
// gone has been done, and so have all those before it.
type swap struct {
	dir   string
	steps []rename
}

type rename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// crashPoint, when set, is called at each step of a swap with its name ("journal written",
// "renamed 0", ...); tests kill the process there.
var crashPoint func(stage string)

func crash(stage string) {
	if crashPoint != nil {
		crashPoint(stage)
	}
}

// journalPath is the hidden journal of the table's swaps; no *.parquet glob matches it.
func journalPath(table string) string {
	return filepath.Join(filepath.Dir(table), "."+filepath.Base(table)+".tablegate-journal")
}

func (s *swap) add(from, to string) {
	s.steps = append(s.steps, rename{From: filepath.Base(from), To: filepath.Base(to)})
}

// commit writes the journal under a temporary name (removed with the table's other
// temporaries if the run dies), flushes it and renames it into place.
func (s *swap) commit(journal string) error {
	data, err := json.Marshal(s.steps)
	if err != nil {
		return err
	}
	tmp := filepath.Join(s.dir, fmt.Sprintf("%s-%d.tmp", filepath.Base(journal), os.Getpid()))
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
	return syncDir(s.dir)
}

// apply does the renames from step from on, flushes the folder and removes the journal ("" when
// there is none).
func (s *swap) apply(from int, journal string) error {
	for i := from; i < len(s.steps); i++ {
		st := s.steps[i]
		if err := os.Rename(filepath.Join(s.dir, st.From), filepath.Join(s.dir, st.To)); err != nil {
			return err
		}
		crash(fmt.Sprintf("renamed %d", i))
	}
	if err := syncDir(s.dir); err != nil || journal == "" {
		return err
	}
	if err := os.Remove(journal); err != nil {
		return err
	}
	return syncDir(s.dir)
}

// recoverSwap completes the swap a killed run recorded beside the table, if any: its outputs
// were complete and flushed before the journal was written, so the swap rolls forward.
func recoverSwap(table string) error {
	journal := journalPath(table)
	data, err := os.ReadFile(journal)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the unfinished swap %s: %w", journal, err)
	}
	s := swap{dir: filepath.Dir(table)}
	if err := json.Unmarshal(data, &s.steps); err != nil || !s.valid() {
		return fmt.Errorf("the unfinished swap %s cannot be read (%d bytes); check the outputs beside it, then remove it", journal, len(data))
	}
	done := 0
	for i, st := range s.steps {
		if _, err := os.Lstat(filepath.Join(s.dir, st.From)); errors.Is(err, os.ErrNotExist) {
			done = i + 1
		}
	}
	if err := s.apply(done, journal); err != nil {
		return fmt.Errorf("complete the unfinished swap %s: %w", journal, err)
	}
	return nil
}

// valid reports whether every name is a plain file name of the folder.
func (s *swap) valid() bool {
	if len(s.steps) == 0 {
		return false
	}
	for _, st := range s.steps {
		for _, n := range []string{st.From, st.To} {
			if n == "" || n == "." || n == ".." || filepath.Base(n) != n || n != filepath.Clean(n) {
				return false
			}
		}
	}
	return true
}
