package spark

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tablegate/tablegate/internal/durable"
)

// abortTimeout bounds the clean-up of a failed or cancelled write.
const abortTimeout = 30 * time.Second

// localStore keeps the output's directories in a local folder that this process and the Spark
// driver share. Its temporaries are hidden directories beside the table, named as the DuckDB
// engine's temporaries are; Commit swaps them in with renames, under the table's lock and the
// swap journal that the DuckDB engine's Parquet outputs use (internal/durable): a run killed
// between two renames leaves the journal, and the next run on the output (either engine) rolls
// the swap forward before it reads anything.
type localStore struct {
	table, quarantine string // absolute paths ("" no quarantine)
}

// Check makes the output's folder and checks that it can be written.
func (s *localStore) Check(context.Context) error {
	parent := filepath.Dir(s.table)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("make the output's folder: %w", err)
	}
	probe, err := os.CreateTemp(parent, ".tg-probe-*")
	if err != nil {
		return fmt.Errorf("the output's folder cannot be written: %w", err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// Lock takes the table's lock file; a second writer waits.
func (s *localStore) Lock(ctx context.Context) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(s.table), 0o755); err != nil {
		return nil, err
	}
	return durable.LockPath(ctx, durable.LockFile(s.table))
}

// Recover completes the swap a run killed between its renames recorded (durable.RecoverSwap:
// rolled forward, or back when it cannot complete), and removes the temporaries killed runs left.
func (s *localStore) Recover(context.Context) error {
	if err := durable.RecoverSwap(s.table); err != nil {
		if rb := (*durable.RolledBackError)(nil); !errors.As(err, &rb) {
			return err
		}
	}
	durable.RemoveStale(s.table)
	return nil
}

func (s *localStore) Temp(run int64, role string) string { return durable.TempPath(s.table, run, role) }

func (s *localStore) Finished(_ context.Context, tmp string) error {
	if _, err := os.Stat(filepath.Join(tmp, "_SUCCESS")); err != nil {
		return fmt.Errorf("the write reported success but %s has no _SUCCESS marker: %w (is the path on a filesystem the Spark driver and this process share?)", tmp, err)
	}
	return nil
}

// Commit swaps the finished directories into place, the quarantine's side first, so that a new
// table never sits beside an older quarantine: each directory replaced is renamed aside first (a
// rename of its own, so that the swap can be rolled back), and the directories put aside are
// removed once the swap is done.
func (s *localStore) Commit(_ context.Context, c Commit) (done Committed, err error) {
	sw := durable.Swap{Dir: filepath.Dir(s.table), Dirs: true}
	var aside []string
	replace := func(from, to, role string) {
		if exists(to) {
			old := durable.TempPath(s.table, c.Run, role)
			sw.Add(to, old)
			aside = append(aside, old)
		}
		sw.Add(from, to)
	}
	if c.Keep != "" && exists(s.quarantine) {
		if err := os.RemoveAll(c.Keep); err != nil { // the one an earlier run kept
			return done, err
		}
		sw.Add(s.quarantine, c.Keep)
		done.Kept = true
	}
	if c.Quarantine != "" {
		replace(c.Quarantine, s.quarantine, "old-quarantine")
	}
	if c.Table != "" {
		replace(c.Table, s.table, "old-table")
	}
	if len(sw.Steps) == 0 {
		return done, nil
	}
	if done.Pending, err = sw.Put(s.table, c.Run); err != nil {
		done.Kept = false
		return done, err
	}
	for _, old := range aside {
		_ = os.RemoveAll(old) // left by a kill here: the next run's Recover removes it
	}
	return done, nil
}

func (s *localStore) Discard(_ context.Context, tmps ...string) {
	for _, tmp := range tmps {
		_ = os.RemoveAll(tmp)
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
