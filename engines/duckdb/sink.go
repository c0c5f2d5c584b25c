package duckdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/internal/store"
	"github.com/tablegate/tablegate/internal/trace"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// checkOutput refuses, before the run reads anything, an output the engine could not put in
// place: a target that is not a regular file (a folder, a named pipe), a name too long, an
// output of a format the engine does not write.
func checkOutput(out runner.Output, quarantineName string) error {
	switch o := out.(type) {
	case runner.ParquetOutput:
		return checkParquet(o, quarantineName)
	case runner.TableOutput:
		return checkTable(o)
	}
	return runner.RefuseOutput("DuckDB", out)
}

// sinkOf is the kind of output the program writes.
func sinkOf(out runner.Output) compile.Sink {
	if _, ok := out.(runner.ParquetOutput); ok {
		return compile.ToParquet
	}
	return compile.ToOutput
}

// targetOf is where the program that writes the output writes: the temporary files or the
// catalog of the run.
func targetOf(r *run, out runner.Output, quarantineName string, keepPrevious bool) compile.Output {
	switch o := out.(type) {
	case runner.ParquetOutput:
		return parquetTarget(r, o, keepPrevious)
	case runner.TableOutput:
		return tableTarget(r, o, quarantineName, keepPrevious)
	}
	return compile.Output{}
}

// writerOf is what runs the write steps of the program compiled for t, the output's target.
func writerOf(r *run, out runner.Output, t compile.Output, quarantineName string, keepPrevious bool) runner.Writer {
	switch o := out.(type) {
	case runner.ParquetOutput:
		return parquetWriterOf(r, o, t, quarantineName, keepPrevious)
	case runner.TableOutput:
		return tableWriterOf(r, o, t, quarantineName)
	}
	return nil
}

// check refuses a folder that is not one, a table, quarantine or kept previous quarantine that
// is not a regular file, and a name of the swap longer than the folder's file system allows
// (the store's Check).
func checkParquet(o runner.ParquetOutput, quarantineName string) error {
	return parquetStore(o, quarantineName).Check(context.Background())
}

// parquetStore is the output's local store (internal/durable), its quarantine named
// quarantineName: every engine's local outputs use the same.
func parquetStore(o runner.ParquetOutput, quarantineName string) *durable.Local {
	return &durable.Local{Table: o.Path, Quarantine: o.QuarantineAddress(quarantineName)}
}

// check refuses a database file that is not a regular file.
func checkTable(o runner.TableOutput) error { return filekind.Regular(o.File) }

func parquetTarget(r *run, o runner.ParquetOutput, keepPrevious bool) compile.Output {
	st := parquetStore(o, "")
	return compile.Output{TableFile: st.Temp(r.id, "table"), QuarantineFile: st.Temp(r.id, "quarantine"), KeepPrevious: keepPrevious}
}

// target names the catalog the output's file will be attached as when the run writes it. A
// member of a collection (r.setTables not nil) writes in the transaction the members writing
// tables of that database file share: the first member's write attaches the file and begins it,
// the others' join it, under the same name.
func tableTarget(r *run, o runner.TableOutput, quarantineName string, keepPrevious bool) compile.Output {
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

// parquetWriter writes both files under temporary names in the target folder, flushes them,
// and renames them into place, through the output's store (durable.Local): a crash leaves the
// previous table byte-for-byte intact and never a half-written file under the table's name.
// When more than one file changes (the table and its quarantine, or the older quarantine kept as
// .prev), the renames are a journaled swap: once its journal is written the new pair is decided,
// and a run killed between the renames leaves the journal for the next run, which completes the
// swap before anything else.
type parquetWriter struct {
	o            runner.ParquetOutput
	r            *run
	t            compile.Output
	st           *durable.Local
	keepPrevious bool
	unlock       func()
	temps        []string
	// syncs are the flushes of the written files, which run in the background while DuckDB
	// writes the next file (the table's flush, 0.1 s for 400 MB, overlaps the quarantine's
	// COPY); both are flushed before anything is renamed.
	syncs             []chan error
	tableTmp, quarTmp string
}

func parquetWriterOf(r *run, o runner.ParquetOutput, t compile.Output, quarantineName string, keepPrevious bool) runner.Writer {
	return &parquetWriter{o: o, r: r, t: t, st: parquetStore(o, quarantineName), keepPrevious: keepPrevious}
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
	unlock, err := store.LockRecovered(ctx, w.st)
	w.unlock = unlock
	return err
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
		done <- w.st.Finished(ctx, tmp)
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
	c := w.commit(conds)
	written = runner.Written{Table: w.tableTmp != "", Quarantine: w.quarTmp != ""}
	var done store.Committed
	if w.r.set != nil {
		var m durable.SetMember
		if m, done, err = w.st.Member(c); err != nil {
			return written, err
		}
		journaled = true // the set removes the temporaries
		err = w.r.set.record(w, m)
	} else {
		done, err = w.st.Commit(ctx, c)
		journaled = done.Pending
	}
	if done.Kept {
		written.Was, written.Kept = w.st.Quarantine, c.Keep
	}
	return written, err
}

// commit is what the written files put in place: an older quarantine is kept as .prev when the
// run writes none, or when it replaces one whose rows exist nowhere else (keepPrevious).
func (w *parquetWriter) commit(conds compile.Cond) store.Commit {
	c := store.Commit{Run: w.r.id, Table: w.tableTmp, Quarantine: w.quarTmp}
	if conds&compile.DropQuarant != 0 || w.keepPrevious && w.quarTmp != "" {
		c.Keep = durable.PrevPath(w.st.Quarantine)
	}
	return c
}

// keep names the hard link that keeps the file step of the swap replaces: a temporary of the
// table.
func (w *parquetWriter) keep(step int) string {
	return durable.TempPath(w.o.Path, w.r.id, fmt.Sprintf("keep%d", step))
}

// removeTemps removes the written files not moved into place.
func (w *parquetWriter) removeTemps() { w.st.Discard(context.Background(), w.temps...) }

// RecoverOutput completes what a killed run left unfinished at the output: for a Parquet output,
// the recorded swap of the table and its quarantine (so that the pair is one run's; one that
// cannot complete is rolled back to the previous pair), and the table's temporaries. A run does
// it before reading anything; a reader of the files may call it too. A DuckDB table needs
// nothing: DuckDB replays or discards its log when it opens the file.
func RecoverOutput(ctx context.Context, out runner.Output) error {
	_, err := recoverOutput(ctx, out)
	return err
}

// recoverOutput is RecoverOutput, which also returns what it rolled back (nil for nothing).
func recoverOutput(ctx context.Context, out runner.Output) (rolledBack, err error) {
	o, ok := out.(runner.ParquetOutput)
	if !ok {
		return nil, nil
	}
	if _, err := os.Stat(filepath.Dir(o.Path)); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return store.Recover(ctx, parquetStore(o, ""))
}

// tableWriter replaces the table and the quarantine in one transaction: a failed or killed run
// leaves the previous tables as they were. A write that fails before its commit gives back the
// space it grew the database file by (a full disk would otherwise fail every later run on the
// WAL).
type tableWriter struct {
	o              runner.TableOutput
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

func tableWriterOf(r *run, o runner.TableOutput, t compile.Output, quarantineName string) runner.Writer {
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
		written.Was, written.Kept = w.o.QuarantineAddress(w.quarantineName), w.o.QuarantineAddress(w.quarantineName+"_prev")
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
func (e *Engine) WriteQuery(ctx context.Context, query string, out runner.Output) error {
	r, err := e.newRun(ctx)
	if err != nil {
		return err
	}
	defer r.close()
	name := runner.QuarantineName(out.DefaultAssetName())
	if err := checkOutput(out, name); err != nil {
		return &outcome.OutputError{Output: out.String(), Err: err}
	}
	t := targetOf(r, out, name, false)
	prog := compile.WriteProgram(query, sinkOf(out), t)
	if _, err := runner.Write(ctx, &backend{r: r}, writerOf(r, out, t, name, false), prog.Steps(), 0); err != nil {
		return &outcome.OutputError{Output: out.String(), Err: err}
	}
	return nil
}
