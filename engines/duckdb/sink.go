package duckdb

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
	"github.com/tablegate/tablegate/runner"
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
	// temporary files or the catalog the run writes to; writer is what runs the write steps of
	// the program compiled for t, the output's target.
	sink() compile.Sink
	target(r *run, quarantineName string, keepPrevious bool) compile.Output
	writer(r *run, t compile.Output, quarantineName string, keepPrevious bool) runner.Writer
	// check refuses, before the run reads anything, an output it could not put in place: a
	// target that is not a regular file (a folder, a named pipe), a name too long.
	check(quarantineName string) error
}

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

// QuarantineAddress is <dir>/<name>.parquet; beside a URL's last element for a URL
// (s3a://bucket/out/t.parquet -> s3a://bucket/out/<name>.parquet).
func (o ParquetOutput) QuarantineAddress(name string) string {
	if i := strings.Index(o.Path, "://"); i > 1 {
		if j := strings.LastIndex(o.Path, "/"); j > i+2 {
			return o.Path[:j+1] + name + ".parquet"
		}
	}
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
	longest := durable.TempPath(o.Path, math.MaxInt64, "quarantine")
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
	return compile.Output{TableFile: durable.TempPath(o.Path, r.id, "table"), QuarantineFile: durable.TempPath(o.Path, r.id, "quarantine"), KeepPrevious: keepPrevious}
}

// target names the catalog the output's file will be attached as when the run writes it. A
// member of a collection (r.setTables not nil) writes in the transaction the members writing
// tables of that database file share: the first member's write attaches the file and begins it,
// the others' join it, under the same name.
func (o TableOutput) target(r *run, quarantineName string, keepPrevious bool) compile.Output {
	t := compile.Output{Schema: o.Schema, Table: o.Table, Quarantine: quarantineName, KeepPrevious: keepPrevious}
	abs := ""
	if o.File != "" {
		abs, _ = filepath.Abs(o.File)
	}
	if r.setTables != nil {
		if st, ok := r.setTables[abs]; ok && st.opener != r.id {
			t.Catalog, t.Txn = st.catalog, compile.JoinsTxn
			return t
		}
		t.Txn = compile.OpensTxn
	}
	if o.File != "" {
		t.Catalog = r.alias(o.File)
		if r.attached[abs] == "" {
			t.AttachFile = abs
		}
	}
	if r.setTables != nil {
		r.setTables[abs] = setTable{catalog: t.Catalog, opener: r.id, file: o.File}
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

// parquetWriter writes both files under temporary names in the target folder, flushes them,
// and renames them into place: a crash leaves the previous table byte-for-byte intact and never
// a half-written file under the table's name. When more than one file changes (the table and
// its quarantine, or the older quarantine kept as .prev), the renames are a journaled swap: once
// its journal is written the new pair is decided, and a run killed between the renames leaves
// the journal for the next run, which completes the swap before anything else (see swap).
type parquetWriter struct {
	o              ParquetOutput
	r              *run
	t              compile.Output
	quarantineName string
	keepPrevious   bool
	unlock         func()
	temps          []string
	// syncs are the flushes of the written files, which run in the background while DuckDB
	// writes the next file (the table's flush, 0.1 s for 400 MB, overlaps the quarantine's
	// COPY); both are flushed before anything is renamed.
	syncs             []chan error
	tableTmp, quarTmp string
}

func (o ParquetOutput) writer(r *run, t compile.Output, quarantineName string, keepPrevious bool) runner.Writer {
	return &parquetWriter{o: o, r: r, t: t, quarantineName: quarantineName, keepPrevious: keepPrevious}
}

// Begin makes the folder and takes the table's lock; a member of a write set (run.set) takes
// none: the set holds every member's.
func (w *parquetWriter) Begin(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Dir(w.o.Path), 0o755); err != nil {
		return err
	}
	if w.r.set != nil {
		return w.r.set.holds(w.o)
	}
	unlock, _, err := w.o.lockRecovered(ctx) // a swap rolled back here is the recovery's, before the run
	if err != nil {
		return err
	}
	w.unlock = unlock
	return nil
}

// Step runs a COPY to the table's or the quarantine's temporary file, or copies the input
// file's bytes to the table's (PublishInput), and flushes the file in the background.
func (w *parquetWriter) Step(ctx context.Context, s compile.Step, args ...any) error {
	var tmp string
	switch s.Op {
	case compile.WriteValid, compile.PublishInput:
		tmp, w.tableTmp = w.t.TableFile, w.t.TableFile
	case compile.WriteInvalid:
		tmp, w.quarTmp = w.t.QuarantineFile, w.t.QuarantineFile
	default:
		return fmt.Errorf("a Parquet output runs no step %q", s.Op)
	}
	w.temps = append(w.temps, tmp)
	if s.Op == compile.PublishInput {
		start := w.r.conn.trace.Begin()
		err := durable.CopyFile(ctx, s.From, tmp)
		w.r.conn.trace.Log(start, s.SQL)
		if err != nil {
			return err
		}
	} else if _, err := w.r.conn.ExecContext(ctx, s.SQL, args...); err != nil {
		return err
	}
	done := make(chan error, 1)
	w.syncs = append(w.syncs, done)
	go func() {
		// In the background: the process's CPU time over it is the next COPY's, not its own.
		defer w.r.conn.trace.Log(trace.WallOnly(), "fsync "+tmp)
		done <- syncFile(tmp)
	}()
	return nil
}

// flushed waits for the flushes of the written files.
func (w *parquetWriter) flushed() error {
	var err error
	for _, done := range w.syncs {
		if serr := <-done; err == nil {
			err = serr
		}
	}
	w.syncs = nil
	return err
}

// Abort waits for the flushes, removes the temporaries and gives back the lock.
func (w *parquetWriter) Abort(string) {
	_ = w.flushed()
	w.removeTemps()
	if w.unlock != nil {
		w.unlock()
	}
}

// Finish renames the flushed files into place; a member of a write set records its renames in
// the set instead, which does every member's under one journal (writeSet.finish).
func (w *parquetWriter) Finish(ctx context.Context, conds compile.Cond) (written runner.Written, err error) {
	journaled := false
	defer func() {
		if !journaled {
			w.removeTemps()
		}
		if w.unlock != nil {
			w.unlock()
		}
	}()
	if err := w.flushed(); err != nil {
		return written, err
	}
	if err := ctx.Err(); err != nil {
		return written, err
	}
	s, written := w.swap(conds)
	if w.r.set != nil {
		journaled = true // the set removes the temporaries
		return written, w.r.set.record(w, s)
	}
	journaled, err = s.Put(w.o.Path, w.r.id)
	if err != nil {
		return written, err
	}
	return written, nil
}

// swap is the renames that put the written files in place, and what they write. The quarantine
// side changes first, so that even a swap whose journal is lost with the disk never puts a new
// table beside the older quarantine.
func (w *parquetWriter) swap(conds compile.Cond) (durable.Swap, runner.Written) {
	o := w.o
	qPath := o.QuarantineAddress(w.quarantineName)
	s := durable.Swap{Dir: filepath.Dir(o.Path)}
	written := runner.Written{Table: w.tableTmp != "", Quarantine: w.quarTmp != ""}
	if conds&compile.DropQuarant != 0 || w.keepPrevious && w.quarTmp != "" {
		if _, err := os.Lstat(qPath); err == nil {
			written.Was, written.Kept = qPath, prevParquet(qPath)
			s.Add(written.Was, written.Kept)
		}
	}
	if w.quarTmp != "" {
		s.Add(w.quarTmp, qPath)
	}
	if w.tableTmp != "" {
		s.Add(w.tableTmp, o.Path)
	}
	return s, written
}

// keep names the hard link that keeps the file step of the swap replaces: a temporary of the
// table.
func (w *parquetWriter) keep(step int) string {
	return durable.TempPath(w.o.Path, w.r.id, fmt.Sprintf("keep%d", step))
}

// removeTemps removes the written files not moved into place.
func (w *parquetWriter) removeTemps() {
	for _, tmp := range w.temps {
		_ = os.Remove(tmp)
	}
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
//
// A table that belongs to an unfinished set of swaps (a collection's write) is recovered with
// the whole set, under every member's lock taken in order; then its own lock is taken again.
func (o ParquetOutput) lockRecovered(ctx context.Context) (unlock func(), rolledBack, err error) {
	for {
		if unlock, err = durable.LockPath(ctx, durable.LockFile(o.Path)); err != nil {
			return nil, nil, err
		}
		members, err := durable.SetMembers(o.Path)
		if err != nil {
			unlock()
			return nil, nil, err
		}
		if members == nil {
			break
		}
		unlock()
		release, rb, err := lockRecoveredAll(ctx, members)
		if err != nil {
			return nil, nil, err
		}
		release()
		if len(rb) > 0 {
			rolledBack = rb[0]
		}
	}
	if err := durable.RecoverSwap(o.Path); err != nil {
		if rb := (*durable.RolledBackError)(nil); !errors.As(err, &rb) {
			unlock()
			return nil, nil, err
		}
		rolledBack = err
	}
	durable.RemoveStale(o.Path)
	return unlock, rolledBack, nil
}

// prevParquet is where a quarantine the run would lose is kept: orders_quarantine.parquet ->
// orders_quarantine.prev.parquet.
func prevParquet(quarantine string) string {
	return strings.TrimSuffix(quarantine, filepath.Ext(quarantine)) + ".prev" + filepath.Ext(quarantine)
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

// tableWriter replaces the table and the quarantine in one transaction: a failed or killed run
// leaves the previous tables as they were. A write that fails before its commit gives back the
// space it grew the database file by (a full disk would otherwise fail every later run on the
// WAL).
type tableWriter struct {
	o              TableOutput
	r              *run
	quarantineName string
	// catalog is the alias of the output's file ("" the engine's database) as the program names
	// it (the target's: a collection's members attach their inputs after it was named, so the
	// alias is never worked out again), abs its absolute path; isNew tells that the write makes the file; size is its size before the write (-1:
	// unknown, nothing is given back); ready that the file is attached and its size read.
	catalog, abs      string
	isNew, ready      bool
	size              int64
	committing        bool
	table, quarantine bool
	// began tells that this member of a write set began the set's transaction.
	began bool
}

func (o TableOutput) writer(r *run, t compile.Output, quarantineName string, _ bool) runner.Writer {
	return &tableWriter{o: o, r: r, catalog: t.Catalog, quarantineName: quarantineName, size: -1}
}

// Begin makes a new database file's folder, as a Parquet output's is.
func (w *tableWriter) Begin(context.Context) error {
	if w.o.File == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(w.o.File), 0o755); err != nil {
		return err
	}
	_, statErr := os.Stat(w.o.File)
	w.isNew = errors.Is(statErr, os.ErrNotExist)
	abs, err := filepath.Abs(w.o.File)
	if err != nil {
		return err
	}
	w.abs = abs
	return nil
}

// prepared checks, before the first statement of the write, that the output's file is attached
// and reads its size.
func (w *tableWriter) prepared() error {
	if w.o.File == "" || w.ready {
		return nil
	}
	if w.r.attached[w.abs] != w.catalog {
		return fmt.Errorf("the program writes to %s, which the run has not attached", w.o.File)
	}
	if st, err := os.Stat(w.o.File); err == nil {
		w.size = st.Size()
	}
	w.ready = true
	return nil
}

// Step runs a write step. A member of a write set (run.set) writes inside the transaction the
// set's members share (compile.OpensTxn, JoinsTxn): the first member's BEGIN opens it, and the
// set commits it (writeSet.finish).
func (w *tableWriter) Step(ctx context.Context, s compile.Step, _ ...any) error {
	switch s.Op {
	case compile.AttachOutput:
		return w.r.attachAs(ctx, w.o.File, w.abs, w.catalog, s.SQL)
	case compile.Commit:
		if w.r.set != nil {
			return fmt.Errorf("a member of a write set commits no transaction of its own")
		}
		durable.Crash("tables written")
		w.committing = true
	case compile.Write:
		if w.r.set != nil && s.SQL == compile.BeginWrite {
			if err := w.r.set.begin(w); err != nil {
				return err
			}
		}
	case compile.WriteValid:
		w.table = true
	case compile.PublishInput:
		// The table is the input, and keeps every row: nothing to run.
		w.table = true
		return nil
	case compile.WriteInvalid:
		w.quarantine = true
	default:
		return fmt.Errorf("a DuckDB table output runs no step %q", s.Op)
	}
	if err := w.prepared(); err != nil {
		return err
	}
	return w.r.exec(ctx, s.SQL)
}

// Abort rolls the write back and, unless it failed committing, gives back the space it took. In
// a write set the set's transaction is rolled back, and only the member that began it gives the
// space back (its size is the file's before the set).
func (w *tableWriter) Abort(rollback string) {
	if w.r.set != nil {
		w.r.set.rollback()
		if !w.began {
			return
		}
		rollback = ""
	}
	if rollback != "" {
		_ = w.r.exec(context.Background(), rollback)
	}
	if w.ready && !w.committing && (w.isNew || w.size >= 0) {
		w.r.shrink(w.o.File, w.size, w.isNew)
	}
}

func (w *tableWriter) Finish(_ context.Context, conds compile.Cond) (runner.Written, error) {
	written := runner.Written{Table: w.table, Quarantine: w.quarantine}
	if conds&compile.QuarantFound != 0 {
		written.Was, written.Kept = w.o.QuarantineAddress(w.quarantineName), w.o.address(w.quarantineName+"_prev")
	}
	return written, nil
}

// shrink gives back the space a failed, rolled-back write grew a database file by: it detaches
// the file and truncates it to its size before the write, or removes it when the write made it.
// Rolled back, every block past that size is unused: DuckDB writes a transaction's data to free
// or new blocks and changes the header only at a checkpoint. If the file cannot be detached it
// is left as it is.
func (r *run) shrink(file string, size int64, made bool) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return
	}
	alias, ok := r.attached[abs]
	if !ok {
		return
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
	t := out.target(r, name, false)
	prog := compile.WriteProgram(query, out.sink(), t)
	if _, err := runner.Write(ctx, &backend{r: r}, out.writer(r, t, name, false), prog.Steps(), 0); err != nil {
		return &OutputError{Output: out.String(), Err: err}
	}
	return nil
}

// OutputError is an output that could not be written; the previous table is unchanged.
type OutputError = outcome.OutputError
