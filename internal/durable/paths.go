package durable

import (
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
