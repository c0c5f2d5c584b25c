package spark

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/runner"
)

// writer writes a run's output as Parquet directories: Spark writes each into a temporary
// directory beside it (hidden, named after the table, as the DuckDB engine's temporaries are),
// and only once Spark finished both are they swapped into place, under the table's lock and the
// swap journal that the DuckDB engine's Parquet outputs use (internal/durable): a run killed
// between two renames leaves the journal, and the next run on the output (either engine) rolls
// the swap forward before it reads anything. Spark's own overwrite empties the target first, so
// a job failing mid-write would lose the last-known-good table.
type writer struct {
	b                 *backend
	table, quarantine string // the directories ("" no quarantine)
	tableTmp, quarTmp string
	// wroteTable and wroteQuar tell which temporaries Spark finished.
	wroteTable, wroteQuar bool
	unlock                func()
}

// Begin makes the output's folder, takes the table's lock (another run writing the same output
// waits), and completes what a killed run left there.
func (w *writer) Begin(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Dir(w.table), 0o755); err != nil {
		return err
	}
	unlock, err := durable.LockPath(ctx, durable.LockFile(w.table))
	if err != nil {
		return err
	}
	w.unlock = unlock
	if err := durable.RecoverSwap(w.table); err != nil {
		if rb := (*durable.RolledBackError)(nil); !errors.As(err, &rb) {
			return err
		}
	}
	durable.RemoveStale(w.table)
	return nil
}

// Step runs an INSERT OVERWRITE DIRECTORY into the table's or the quarantine's temporary, and
// checks that Spark finished it (its _SUCCESS marker).
func (w *writer) Step(ctx context.Context, s compile.Step, args ...any) error {
	var tmp string
	switch s.Op {
	case compile.WriteValid:
		tmp = w.tableTmp
	case compile.WriteInvalid:
		tmp = w.quarTmp
	default:
		return fmt.Errorf("a Spark output runs no step %q", s.Op)
	}
	if err := w.b.Exec(ctx, s.SQL, args...); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(tmp, "_SUCCESS")); err != nil {
		return fmt.Errorf("the write reported success but %s has no _SUCCESS marker: %w (is the path on a filesystem the Spark driver and this process share?)", tmp, err)
	}
	if s.Op == compile.WriteValid {
		w.wroteTable = true
	} else {
		w.wroteQuar = true
	}
	return nil
}

// Finish swaps the finished directories into place, the quarantine's side first, so that a new
// table never sits beside an older quarantine: each directory replaced is renamed aside first
// (a rename of its own, so that the swap can be rolled back), an older quarantine that this run
// does not replace is kept as <name>.prev.parquet, and the directories put aside are removed
// once the swap is done.
func (w *writer) Finish(ctx context.Context, conds compile.Cond) (written runner.Written, err error) {
	pending := false // the swap stays recorded: keep its sources
	defer func() {
		if pending {
			// The swap stays recorded with its temporaries, for the next run to complete.
			w.tableTmp, w.quarTmp = "", ""
		}
		w.Abort("") // the temporaries not moved into place, and the lock
	}()
	if err := ctx.Err(); err != nil {
		return written, err
	}
	id := w.b.id
	s := durable.Swap{Dir: filepath.Dir(w.table), Dirs: true}
	var aside []string
	replace := func(from, to, role string) {
		if exists(to) {
			old := durable.TempPath(w.table, id, role)
			s.Add(to, old)
			aside = append(aside, old)
		}
		s.Add(from, to)
	}
	if conds&compile.DropQuarant != 0 && w.quarantine != "" && exists(w.quarantine) {
		prev := prevDir(w.quarantine)
		if err := os.RemoveAll(prev); err != nil { // the one an earlier run kept
			return written, err
		}
		s.Add(w.quarantine, prev)
		written.Was, written.Kept = w.quarantine, prev
	}
	if w.wroteQuar {
		replace(w.quarTmp, w.quarantine, "old-quarantine")
	}
	if w.wroteTable {
		replace(w.tableTmp, w.table, "old-table")
	}
	if len(s.Steps) == 0 {
		return written, nil
	}
	if pending, err = s.Put(w.table, w.b.id); err != nil {
		return written, err
	}
	for _, old := range aside {
		_ = os.RemoveAll(old) // left by a kill here: the next run's Begin removes it
	}
	written.Table, written.Quarantine = w.wroteTable, w.wroteQuar
	return written, nil
}

// Abort removes the temporaries not moved into place and gives back the lock; the program has no
// rollback statement on Spark.
func (w *writer) Abort(string) {
	for _, tmp := range []string{w.tableTmp, w.quarTmp} {
		if tmp != "" {
			_ = os.RemoveAll(tmp)
		}
	}
	if w.unlock != nil {
		w.unlock()
		w.unlock = nil
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// prevDir is where a quarantine the run would lose is kept: orders_quarantine.parquet ->
// orders_quarantine.prev.parquet.
func prevDir(quarantine string) string {
	return strings.TrimSuffix(quarantine, filepath.Ext(quarantine)) + ".prev" + filepath.Ext(quarantine)
}
