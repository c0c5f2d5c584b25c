package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/internal/trace"
	"github.com/tablegate/tablegate/outcome"
)

// Output is where an asset's table goes; its quarantine goes beside it.
type Output interface {
	// String is the table's address.
	String() string
	// QuarantineAddress is the address of the quarantine named name (orders_quarantine) beside
	// the table.
	QuarantineAddress(name string) string
	// DefaultAssetName is the asset name when none is given: the table's base name.
	DefaultAssetName() string
	// sink and target are what the program that writes the output takes: its kind, and the
	// temporary files or the catalog the run writes to.
	sink() compile.Sink
	// check refuses, before the run reads anything, an output it could not put in place: a
	// target that is not a regular file (a folder, a named pipe), a name too long.
	check(quarantineName string) error
	target(r *run, quarantineName string, keepPrevious bool) compile.Output
	write(ctx context.Context, r *run, w *writes) error
}

// writes is what one run writes: the program's write steps, run in order when their condition
// holds.
type writes struct {
	quarantineName string // orders_quarantine: the quarantine's name beside the table
	steps          []compile.Step
	flags          compile.Cond
	// keepPrevious keeps an older quarantine that a new one replaces (the input is the table
	// itself, so its rows exist nowhere else); a removed one is always kept.
	keepPrevious bool
	// kept, when set, is told where an older quarantine was kept, once the outputs are in place.
	kept     func(quarantine, prev string)
	rowGroup int64 // rows per row group of a Parquet table ($1 of a sized COPY)
	// table and quarantine tell, once written, that the valid and the invalid rows were.
	table, quarantine bool
}

func (w *writes) holds(s compile.Step) bool { return s.When&w.flags == s.When }

// dropQuarantine tells that the run writes no invalid rows, so an older quarantine, an earlier
// run's, goes.
func (w *writes) dropQuarantine() bool { return w.flags&compile.DropQuarant != 0 }

func (w *writes) wantsQuarantine() bool { return w.flags&compile.WriteQuarant != 0 }

// ParquetOutput writes the table to a Parquet file; the quarantine is <quarantine name>.parquet
// in the same folder.
type ParquetOutput struct{ Path string }

// TableOutput writes the table to a DuckDB database file ("" File: the engine's own database);
// the quarantine is the table named after it in the same schema.
type TableOutput struct {
	File   string
	Schema string // "" is main
	Table  string
}

func (o ParquetOutput) String() string { return o.Path }

// QuarantineAddress is <dir>/<name>.parquet.
func (o ParquetOutput) QuarantineAddress(name string) string {
	return filepath.Join(filepath.Dir(o.Path), name+".parquet")
}

// DefaultAssetName is the file's base name without extension.
func (o ParquetOutput) DefaultAssetName() string {
	return strings.TrimSuffix(filepath.Base(o.Path), filepath.Ext(o.Path))
}

func (o TableOutput) schemaName() string {
	if o.Schema == "" {
		return "main"
	}
	return o.Schema
}

func (o TableOutput) String() string { return o.address(o.Table) }

func (ParquetOutput) sink() compile.Sink { return compile.ToParquet }

// check refuses a folder that is not one, a table, quarantine or kept previous quarantine that
// is not a regular file, and a name of the swap (the files, their temporaries, the journal, the
// lock) longer than the folder's file system allows, which would fail a rename halfway.
func (o ParquetOutput) check(quarantineName string) error {
	dir := filepath.Dir(o.Path)
	if err := filekind.Directory(dir); err != nil {
		return err
	}
	q := o.QuarantineAddress(quarantineName)
	for _, p := range []string{o.Path, q, prevParquet(q)} {
		if err := filekind.Regular(p); err != nil {
			return err
		}
	}
	limit := durable.NameMax(dir)
	longest := tempPath(o.Path, math.MaxInt64, "quarantine")
	for _, p := range []string{o.Path, longest, durable.JournalPath(o.Path) + fmt.Sprintf("-%d.tmp", math.MaxInt32)} {
		if n := filepath.Base(p); len(n) > limit {
			return fmt.Errorf("%w: use a shorter table name (its temporaries and journal are named after it)", &durable.NameTooLongError{Dir: dir, Name: n, Max: limit})
		}
	}
	for _, p := range []string{q, prevParquet(q)} {
		if n := filepath.Base(p); len(n) > limit {
			return fmt.Errorf("%w: use a shorter quarantine name", &durable.NameTooLongError{Dir: dir, Name: n, Max: limit})
		}
	}
	return nil
}

func (TableOutput) sink() compile.Sink { return compile.ToOutput }

// check refuses a database file that is not a regular file.
func (o TableOutput) check(string) error { return filekind.Regular(o.File) }

func (o ParquetOutput) target(r *run, _ string, keepPrevious bool) compile.Output {
	return compile.Output{TableFile: tempPath(o.Path, r.id, "table"), QuarantineFile: tempPath(o.Path, r.id, "quarantine"), KeepPrevious: keepPrevious}
}

// target names the catalog the output's file will be attached as when the run writes it.
func (o TableOutput) target(r *run, quarantineName string, keepPrevious bool) compile.Output {
	t := compile.Output{Schema: o.Schema, Table: o.Table, Quarantine: quarantineName, KeepPrevious: keepPrevious}
	if o.File != "" {
		t.Catalog = r.alias(o.File)
		if abs, err := filepath.Abs(o.File); err == nil && r.attached[abs] == "" {
			t.AttachFile = abs
		}
	}
	return t
}

func (o TableOutput) address(table string) string {
	name := table
	if o.Schema != "" {
		name = o.Schema + "." + table
	}
	if o.File == "" {
		return name
	}
	return o.File + ":" + name
}

// QuarantineAddress is the table name beside the output table.
func (o TableOutput) QuarantineAddress(name string) string { return o.address(name) }

// DefaultAssetName is the table's name.
func (o TableOutput) DefaultAssetName() string { return o.Table }

// write writes both files under temporary names in the target folder, flushes them, and renames
// them into place: a crash leaves the previous table byte-for-byte intact and never a
// half-written file under the table's name. When more than one file changes (the table and its
// quarantine, or the older quarantine kept as .prev), the renames are a journaled swap: once its
// journal is written the new pair is decided, and a run killed between the renames leaves the
// journal for the next run, which completes the swap before anything else (see swap).
func (o ParquetOutput) write(ctx context.Context, r *run, w *writes) error {
	dir := filepath.Dir(o.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	unlock, _, err := o.lockRecovered(ctx) // a swap rolled back here is the recovery's, before the run
	if err != nil {
		return err
	}
	defer unlock()
	qPath := o.QuarantineAddress(w.quarantineName)

	var temps []string
	journaled := false
	defer func() {
		if !journaled {
			for _, tmp := range temps {
				_ = os.Remove(tmp) // temporaries not moved into place
			}
		}
	}()
	// Each file is flushed to disk in the background while DuckDB writes the next one (the
	// table's flush, 0.1 s for 400 MB, overlaps the quarantine's COPY); both are flushed before
	// anything is renamed.
	var syncs []chan error
	t := o.target(r, w.quarantineName, w.keepPrevious)
	copyTo := func(s compile.Step, tmp string) (string, error) {
		temps = append(temps, tmp)
		var args []any
		if s.When&compile.SizedGroups != 0 {
			args = append(args, w.rowGroup)
		}
		if _, err := r.conn.ExecContext(ctx, s.SQL, args...); err != nil {
			return "", err
		}
		done := make(chan error, 1)
		syncs = append(syncs, done)
		go func() {
			// In the background: the process's CPU time over it is the next COPY's, not its own.
			defer r.conn.trace.Log(trace.WallOnly(), "fsync "+tmp)
			done <- syncFile(tmp)
		}()
		return tmp, nil
	}
	var tableTmp, quarTmp string
	err = func() error {
		for _, s := range w.steps {
			if !w.holds(s) {
				continue
			}
			var err error
			switch s.Op {
			case compile.WriteValid:
				tableTmp, err = copyTo(s, t.TableFile)
			case compile.WriteInvalid:
				quarTmp, err = copyTo(s, t.QuarantineFile)
			default:
				err = fmt.Errorf("a Parquet output runs no step %q", s.Op)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}()
	for _, done := range syncs {
		if serr := <-done; err == nil {
			err = serr
		}
	}
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// The quarantine side changes first, so that even a swap whose journal is lost with the disk
	// never puts a new table beside the older quarantine.
	s := durable.Swap{Dir: dir}
	var kept [2]string
	if w.dropQuarantine() || w.keepPrevious && quarTmp != "" {
		if _, err := os.Lstat(qPath); err == nil {
			kept = [2]string{qPath, prevParquet(qPath)}
			s.Add(kept[0], kept[1])
		}
	}
	if quarTmp != "" {
		s.Add(quarTmp, qPath)
	}
	if tableTmp != "" {
		s.Add(tableTmp, o.Path)
	}
	durable.Crash("outputs flushed")
	journal := ""
	if len(s.Steps) > 1 {
		journal = durable.JournalPath(o.Path)
		keep := func(step int) string { return tempPath(o.Path, r.id, fmt.Sprintf("keep%d", step)) }
		if err := s.Commit(journal, keep); err != nil {
			return err
		}
		journaled = true
	} else if err := s.Check(); err != nil {
		return err
	}
	durable.Crash("journal written")
	if err := s.Apply(0, journal); err != nil {
		if rb := (*durable.RolledBackError)(nil); errors.As(err, &rb) {
			journaled = false // the temporaries are back under their names: remove them
		}
		return err
	}
	w.table, w.quarantine = tableTmp != "", quarTmp != ""
	if kept[0] != "" && w.kept != nil {
		w.kept(kept[0], kept[1])
	}
	return nil
}

// RecoverOutput completes what a killed run left unfinished at the output: for a Parquet output,
// the recorded swap of the table and its quarantine (so that the pair is one run's; one that
// cannot complete is rolled back to the previous pair), and the table's temporaries. A run does
// it before reading anything; a reader of the files may call it too. A DuckDB table needs
// nothing: DuckDB replays or discards its log when it opens the file.
func RecoverOutput(ctx context.Context, out Output) error {
	_, err := recoverOutput(ctx, out)
	return err
}

// recoverOutput is RecoverOutput, which also returns what it rolled back (nil for nothing).
func recoverOutput(ctx context.Context, out Output) (rolledBack, err error) {
	o, ok := out.(ParquetOutput)
	if !ok {
		return nil, nil
	}
	if _, err := os.Stat(filepath.Dir(o.Path)); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	unlock, rolledBack, err := o.lockRecovered(ctx)
	if err != nil {
		return nil, err
	}
	unlock()
	return rolledBack, nil
}

// lockRecovered takes the table's lock, then completes a killed run's recorded swap (before the
// temporaries it names are cleaned) and removes the table's stale temporaries. A recorded swap
// that could not complete is rolled back: rolledBack says so, and the output may be written.
func (o ParquetOutput) lockRecovered(ctx context.Context) (unlock func(), rolledBack, err error) {
	if unlock, err = durable.LockPath(ctx, lockFile(o.Path)); err != nil {
		return nil, nil, err
	}
	if err := durable.RecoverSwap(o.Path); err != nil {
		if rb := (*durable.RolledBackError)(nil); !errors.As(err, &rb) {
			unlock()
			return nil, nil, err
		}
		rolledBack = err
	}
	removeStale(o.Path)
	return unlock, rolledBack, nil
}

// prevParquet is where a quarantine the run would lose is kept: orders_quarantine.parquet ->
// orders_quarantine.prev.parquet.
func prevParquet(quarantine string) string {
	return strings.TrimSuffix(quarantine, filepath.Ext(quarantine)) + ".prev" + filepath.Ext(quarantine)
}

// validRowGroupSize runs the program's RowGroupSize step: the row group size for the valid rows'
// Parquet file, 0 (DuckDB's default) when the statement returns no row, fails, or the size
// takes no more batches as they come than the default does.
func (r *run) validRowGroupSize(ctx context.Context, query string) int64 {
	var size, batches, byDefault int64
	if err := r.conn.QueryRowContext(ctx, query).Scan(&size, &batches, &byDefault); err != nil {
		return 0 // also when no size lies within the bounds
	}
	if batches <= byDefault {
		return 0
	}
	return size
}

// lockFile is the hidden file that a run writing the table locks; it exists only while it is
// held (and after a killed run, until the next one).
func lockFile(table string) string {
	return filepath.Join(filepath.Dir(table), "."+filepath.Base(table)+".tablegate.lock")
}

// tempPath is a hidden name beside the table that no *.parquet glob matches, for the file of the
// given role (table, quarantine); named after the table, whose lock covers it.
func tempPath(table string, id int64, role string) string {
	return filepath.Join(filepath.Dir(table), fmt.Sprintf(".%s.tablegate-%d-%d-%s.tmp", filepath.Base(table), os.Getpid(), id, role))
}

// removeStale deletes the temporaries left beside the table by killed runs; the caller holds the
// table's lock, so no live run owns them.
func removeStale(final string) {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".tablegate-*.tmp"))
	for _, m := range matches {
		_ = os.Remove(m)
	}
}

// syncFile flushes a written file to disk; a variable so that tests can make a flush fail.
var syncFile = func(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// write replaces the table and the quarantine in one transaction: a failed or killed run leaves
// the previous tables as they were. A write that fails before its commit gives back the space it
// grew the database file by (a full disk would otherwise fail every later run on the WAL).
func (o TableOutput) write(ctx context.Context, r *run, w *writes) (err error) {
	catalog := ""
	committing := false
	rollback := ""
	if o.File != "" {
		// A new database file's folder is made, as a Parquet output's is.
		if err := os.MkdirAll(filepath.Dir(o.File), 0o755); err != nil {
			return err
		}
		_, statErr := os.Stat(o.File)
		isNew := errors.Is(statErr, os.ErrNotExist)
		abs, aerr := filepath.Abs(o.File) // not err: the deferred shrink reads the write's
		if aerr != nil {
			return aerr
		}
		catalog = r.alias(o.File)
		for _, s := range w.steps {
			if s.Op == compile.AttachOutput && w.holds(s) {
				if err := r.attachAs(ctx, o.File, abs, catalog, s.SQL); err != nil {
					return err
				}
			}
		}
		if r.attached[abs] != catalog {
			return fmt.Errorf("the program writes to %s, which the run has not attached", o.File)
		}
		size := int64(-1) // unknown: nothing is given back
		if st, err := os.Stat(o.File); err == nil {
			size = st.Size()
		}
		defer func() {
			if err != nil && !committing && (isNew || size >= 0) {
				r.shrink(o.File, size, isNew, rollback)
			}
		}()
	}
	for _, s := range w.steps {
		if s.Op == compile.Rollback && w.holds(s) {
			rollback = s.SQL // also for a write that fails before it begins
		}
	}
	begun, kept, table, quarantine := false, false, false, false
	defer func() {
		if err != nil && begun && rollback != "" {
			_ = r.exec(context.Background(), rollback)
		}
	}()
	for _, s := range w.steps {
		if !w.holds(s) {
			continue
		}
		switch s.Op {
		case compile.Rollback:
			continue // taken above
		case compile.FindQuarantine:
			var n int64
			if err := r.conn.QueryRowContext(ctx, s.SQL).Scan(&n); err != nil {
				return err
			}
			if kept = n > 0; kept {
				w.flags |= compile.QuarantFound
			}
			continue
		case compile.Commit:
			durable.Crash("tables written")
			committing = true
		case compile.WriteValid:
			table = true
		case compile.WriteInvalid:
			quarantine = true
		case compile.Write:
		case compile.AttachOutput:
			continue // attached above
		default:
			return fmt.Errorf("a DuckDB table output runs no step %q", s.Op)
		}
		if err := r.exec(ctx, s.SQL); err != nil {
			return err
		}
		begun = true
	}
	w.table, w.quarantine = table, quarantine
	if kept && w.kept != nil {
		w.kept(o.QuarantineAddress(w.quarantineName), o.address(w.quarantineName+"_prev"))
	}
	return nil
}

// shrink gives back the space a failed, rolled-back write grew a database file by: it detaches
// the file and truncates it to its size before the write, or removes it when the write made it. Rolled back, every block past that size is unused: DuckDB writes a
// transaction's data to free or new blocks and changes the header only at a checkpoint. If the
// file cannot be detached it is left as it is.
func (r *run) shrink(file string, size int64, made bool, rollback string) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return
	}
	alias, ok := r.attached[abs]
	if !ok {
		return
	}
	if rollback != "" {
		_ = r.exec(context.Background(), rollback)
	}
	if err := r.exec(context.Background(), compile.Detach(alias)); err != nil {
		return
	}
	delete(r.attached, abs)
	if made {
		_ = os.Remove(abs)
		_ = os.Remove(abs + ".wal")
		return
	}
	if st, err := os.Stat(abs); err == nil && st.Size() > size {
		_ = os.Truncate(abs, size)
	}
}

// WriteQuery writes a query's rows to an output atomically, as a run writes a table (used by
// `tablegate sample`).
func (e *Engine) WriteQuery(ctx context.Context, query string, out Output) error {
	r, err := e.newRun(ctx)
	if err != nil {
		return err
	}
	defer r.close()
	name := QuarantineName(out.DefaultAssetName())
	if err := out.check(name); err != nil {
		return &OutputError{Output: out.String(), Err: err}
	}
	prog := compile.WriteProgram(query, out.sink(), out.target(r, name, false))
	if err := out.write(ctx, r, &writes{quarantineName: name, steps: prog.Steps()}); err != nil {
		return &OutputError{Output: out.String(), Err: err}
	}
	return nil
}

// OutputError is an output that could not be written; the previous table is unchanged.
type OutputError = outcome.OutputError
