package durable

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// The names beside an output (a Parquet file, or a Parquet directory on Spark) that its writers
// share, whichever engine writes it: the lock, the temporaries, the journal (JournalPath).

// LockFile is the hidden file that a run writing the table locks (LockPath); it exists only
// while it is held (and after a killed run, until the next one).
func LockFile(table string) string {
	return filepath.Join(filepath.Dir(table), "."+filepath.Base(table)+".tablegate.lock")
}

// TempPath is a hidden name beside the table that no *.parquet glob matches, for the temporary
// of the given role (table, quarantine, keep0…) of the run id of this process; named after the
// table, whose lock covers it.
func TempPath(table string, id int64, role string) string {
	return filepath.Join(filepath.Dir(table), fmt.Sprintf(".%s.tablegate-%d-%d-%s.tmp", filepath.Base(table), os.Getpid(), id, role))
}

// RemoveStale deletes the temporaries (files or directories) killed runs left beside the table;
// the caller holds the table's lock, so no live run owns them.
func RemoveStale(table string) {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(table), "."+filepath.Base(table)+".tablegate-*.tmp"))
	for _, m := range matches {
		_ = os.RemoveAll(m)
	}
}

// Put checks, records and applies the swap of the table's outputs: a swap of more than one
// rename is first journaled beside the table (JournalPath), each file it replaces kept under a
// temporary of the run id (TempPath, keep0…). pending reports that the swap stays recorded after
// err (it failed after its journal was written and could not be rolled back): its sources must
// stay, for the next run to complete it.
func (s *Swap) Put(table string, id int64) (pending bool, err error) {
	Crash("outputs flushed")
	journal := ""
	if len(s.Steps) > 1 {
		journal = JournalPath(table)
		keep := func(step int) string { return TempPath(table, id, fmt.Sprintf("keep%d", step)) }
		if err := s.Commit(journal, keep); err != nil {
			return false, err
		}
	} else if err := s.Check(); err != nil {
		return false, err
	}
	Crash("journal written")
	if err := s.Apply(0, journal); err != nil {
		var rb *RolledBackError
		return journal != "" && !errors.As(err, &rb), err
	}
	return false, nil
}
