package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/trace"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/sql"
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
	write(ctx context.Context, r *run, w writes) error
}

// writes is what one run writes: each a SELECT, or "" for nothing.
type writes struct {
	quarantineName string // orders_quarantine: the quarantine's name beside the table
	table          string
	quarantine     string
	dropQuarantine bool // remove an older quarantine: it belongs to an earlier run
	// keepPrevious keeps an older quarantine that a new one replaces (the input is the table
	// itself, so its rows exist nowhere else); a removed one is always kept.
	keepPrevious bool
	// kept, when set, is told where an older quarantine was kept, once the outputs are in place.
	kept          func(quarantine, prev string)
	tableRowGroup int64 // rows per row group of a Parquet table; 0 is DuckDB's default
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
func (o ParquetOutput) write(ctx context.Context, r *run, w writes) error {
	dir := filepath.Dir(o.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	unlock, err := o.lockRecovered(ctx)
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
	copyTo := func(query, role, options string) (string, error) {
		tmp := tempPath(o.Path, r.id, role)
		temps = append(temps, tmp)
		if err := r.exec(ctx, fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet%s)", query, sql.String(tmp), options)); err != nil {
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
		if w.table != "" {
			options := ""
			if w.tableRowGroup > 0 {
				options = fmt.Sprintf(", ROW_GROUP_SIZE %d", w.tableRowGroup)
			}
			if tableTmp, err = copyTo(w.table, "table", options); err != nil {
				return err
			}
		}
		if w.quarantine != "" {
			quarTmp, err = copyTo(w.quarantine, "quarantine", "")
			return err
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
	if w.dropQuarantine || w.keepPrevious && w.quarantine != "" {
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
		if err := s.Commit(journal); err != nil {
			return err
		}
		journaled = true
	}
	durable.Crash("journal written")
	if err := s.Apply(0, journal); err != nil {
		if journaled {
			return fmt.Errorf("%w; the swap is recorded in %s and the next run writing %s completes it", err, journal, o.Path)
		}
		return err
	}
	if kept[0] != "" && w.kept != nil {
		w.kept(kept[0], kept[1])
	}
	return nil
}

// RecoverOutput completes what a killed run left unfinished at the output: for a Parquet output,
// the recorded swap of the table and its quarantine (so that the pair is one run's), and the
// table's temporaries. A run does it before reading anything; a reader of the files may call it
// too. A DuckDB table needs nothing: DuckDB replays or discards its log when it opens the file.
func RecoverOutput(ctx context.Context, out Output) error {
	o, ok := out.(ParquetOutput)
	if !ok {
		return nil
	}
	if _, err := os.Stat(filepath.Dir(o.Path)); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	unlock, err := o.lockRecovered(ctx)
	if err != nil {
		return err
	}
	unlock()
	return nil
}

// lockRecovered takes the table's lock, then completes a killed run's recorded swap (before the
// temporaries it names are cleaned) and removes the table's stale temporaries.
func (o ParquetOutput) lockRecovered(ctx context.Context) (unlock func(), err error) {
	if unlock, err = durable.LockPath(ctx, lockFile(o.Path)); err != nil {
		return nil, err
	}
	if err := durable.RecoverSwap(o.Path); err != nil {
		unlock()
		return nil, err
	}
	removeStale(o.Path)
	return unlock, nil
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
func (o TableOutput) write(ctx context.Context, r *run, w writes) (err error) {
	catalog := ""
	committing := false
	if o.File != "" {
		// A new database file's folder is made, as a Parquet output's is.
		if err := os.MkdirAll(filepath.Dir(o.File), 0o755); err != nil {
			return err
		}
		_, statErr := os.Stat(o.File)
		isNew := errors.Is(statErr, os.ErrNotExist)
		if catalog, err = r.attach(ctx, o.File, true); err != nil {
			return err
		}
		size := int64(-1) // unknown: nothing is given back
		if st, err := os.Stat(o.File); err == nil {
			size = st.Size()
		}
		defer func() {
			if err != nil && !committing && (isNew || size >= 0) {
				r.shrink(o.File, size, isNew)
			}
		}()
	}
	if err := r.exec(ctx, "BEGIN TRANSACTION"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = r.exec(context.Background(), "ROLLBACK")
		}
	}()
	if o.Schema != "" {
		if err := r.exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+sql.QualifiedIdent(catalog, o.Schema)); err != nil {
			return err
		}
	}
	qName := sql.QualifiedIdent(catalog, o.schemaName(), w.quarantineName)
	var kept bool
	if w.dropQuarantine || w.keepPrevious && w.quarantine != "" {
		if kept, err = r.tableExists(ctx, catalog, o.schemaName(), w.quarantineName); err != nil {
			return err
		}
		if kept {
			prev := w.quarantineName + "_prev"
			if err := r.exec(ctx, "DROP TABLE IF EXISTS "+sql.QualifiedIdent(catalog, o.schemaName(), prev)); err != nil {
				return err
			}
			if err := r.exec(ctx, fmt.Sprintf("ALTER TABLE %s RENAME TO %s", qName, sql.Ident(prev))); err != nil {
				return err
			}
		}
	}
	if w.table != "" {
		if err := r.exec(ctx, fmt.Sprintf("CREATE OR REPLACE TABLE %s AS %s", sql.QualifiedIdent(catalog, o.schemaName(), o.Table), w.table)); err != nil {
			return err
		}
	}
	if w.quarantine != "" {
		if err := r.exec(ctx, fmt.Sprintf("CREATE OR REPLACE TABLE %s AS %s", qName, w.quarantine)); err != nil {
			return err
		}
	}
	if w.dropQuarantine {
		if err := r.exec(ctx, "DROP TABLE IF EXISTS "+qName); err != nil {
			return err
		}
	}
	durable.Crash("tables written")
	committing = true
	if err := r.exec(ctx, "COMMIT"); err != nil {
		return err
	}
	if kept && w.kept != nil {
		w.kept(o.QuarantineAddress(w.quarantineName), o.address(w.quarantineName+"_prev"))
	}
	return nil
}

// tableExists reports whether catalog ("" the current database) has the table in schemaName;
// DuckDB matches names in any case.
func (r *run) tableExists(ctx context.Context, catalog, schemaName, table string) (bool, error) {
	var n int64
	err := r.conn.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_tables()
WHERE database_name = coalesce(nullif(?, ''), current_database()) AND lower(schema_name) = lower(?) AND lower(table_name) = lower(?)`,
		catalog, schemaName, table).Scan(&n)
	return n > 0, err
}

// shrink gives back the space a failed, rolled-back write grew a database file by: it detaches
// the file and truncates it to its size before the write, or removes it when the write made it. Rolled back, every block past that size is unused: DuckDB writes a
// transaction's data to free or new blocks and changes the header only at a checkpoint. If the
// file cannot be detached it is left as it is.
func (r *run) shrink(file string, size int64, made bool) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return
	}
	alias, ok := r.attached[abs]
	if !ok {
		return
	}
	_ = r.exec(context.Background(), "ROLLBACK")
	if err := r.exec(context.Background(), "DETACH DATABASE "+sql.Ident(alias)); err != nil {
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
	if err := out.write(ctx, r, writes{quarantineName: QuarantineName(out.DefaultAssetName()), table: query}); err != nil {
		return &OutputError{Output: out.String(), Err: err}
	}
	return nil
}

// OutputError is an output that could not be written; the previous table is unchanged.
type OutputError = outcome.OutputError
