// Package history keeps the run history in a DuckDB file: one row per run in tablegate_runs and
// one per check of each run, passing checks included, in tablegate_check_results; a collection's
// run adds its row to tablegate_collection_runs, its members' runs pointing to it. Appends are
// one transaction and wait, bounded, for another process that holds the file; a past run's page
// renders from the history alone (its JSON report and page details are stored with it).
package history

import (
	"context"
	gosql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/internal/duckdbtune"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/report"
)

// The tables, created on first append. Reports and details are JSON text (VARCHAR, so that no
// extension is needed to read them; cast to JSON to query into them).
const schemaDDL = `
CREATE TABLE IF NOT EXISTS tablegate_runs (
	run_id             VARCHAR PRIMARY KEY,
	asset              VARCHAR NOT NULL,
	schema_name        VARCHAR NOT NULL,
	schema_fingerprint VARCHAR,
	started_at         TIMESTAMPTZ,
	duration_s         DOUBLE,
	outcome            VARCHAR,
	health             VARCHAR,
	rows_input         BIGINT,
	rows_valid         BIGINT,
	rows_invalid       BIGINT,
	table_address      VARCHAR,
	table_written      BOOLEAN,
	quarantine_address VARCHAR,
	quarantine_written BOOLEAN,
	tablegate_version  VARCHAR,
	duckdb_version     VARCHAR,
	error_type         VARCHAR,
	error_message      VARCHAR,
	report             VARCHAR,
	details            VARCHAR,
	collection_run_id  VARCHAR
);
CREATE TABLE IF NOT EXISTS tablegate_check_results (
	run_id            VARCHAR NOT NULL,
	position          INTEGER NOT NULL,
	check_name        VARCHAR NOT NULL,
	rules             VARCHAR[],
	passed            BOOLEAN NOT NULL,
	severity          VARCHAR,
	declared_severity VARCHAR,
	blocking          BOOLEAN,
	failed_count      BIGINT,
	value             DOUBLE,
	PRIMARY KEY (run_id, check_name)
);
CREATE TABLE IF NOT EXISTS tablegate_collection_runs (
	run_id             VARCHAR PRIMARY KEY,
	collection         VARCHAR NOT NULL,
	started_at         TIMESTAMPTZ,
	duration_s         DOUBLE,
	outcome            VARCHAR,
	written            BOOLEAN,
	members            VARCHAR[],
	error_type         VARCHAR,
	error_message      VARCHAR,
	report             VARCHAR
);`

// migrateDDL brings a history written before a column existed up to date.
const migrateDDL = `ALTER TABLE tablegate_check_results ADD COLUMN IF NOT EXISTS value DOUBLE;
ALTER TABLE tablegate_runs ADD COLUMN IF NOT EXISTS collection_run_id VARCHAR;`

// Wait is how long Append and the readers wait for a history file another process holds.
const Wait = 30 * time.Second

// Error is a history file that could not be read or written.
type Error struct {
	Path string
	Op   string // "append to", "read"
	Err  error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s the run history %s: %v", e.Op, e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// locks serialises this process's opens of one file: DuckDB's file lock keeps other processes
// out, but not a second open in this one, so this process's appends and reads take turns here.
var locks sync.Map // absolute path → *sync.Mutex

// lock takes this process's turn at the file and then the history's lock file beside it
// (durable.LockFile), which every tablegate process holds while DuckDB has the history open,
// waiting up to Wait for another. DuckDB's own lock is not enough: DuckDB reads a database's
// header before it locks the file, so a process opening the history while another checkpoints
// it can start from the header before that checkpoint, and its own checkpoint then drops the
// other's committed run. A reader that may not create the lock file (a read-only folder) reads
// without it, as this user could not append there either.
func lock(ctx context.Context, path string, write bool) (func(), error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	m, _ := locks.LoadOrStore(abs, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	wctx, cancel := context.WithTimeout(ctx, Wait)
	defer cancel()
	unlock, err := durable.LockPath(wctx, durable.LockFile(abs))
	switch {
	case err == nil:
		return func() { unlock(); mu.Unlock() }, nil
	case !write && (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)):
		return mu.Unlock, nil
	}
	mu.Unlock()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case wctx.Err() != nil:
		return nil, fmt.Errorf("another tablegate process has held the history for %s: %w", Wait, wctx.Err())
	}
	return nil, err
}

// open opens the file under DuckDB's lockdown (no file but the history itself, no network, no
// extension loaded, settings frozen), waiting out another process's lock with backoff until Wait
// has passed, and checks that it holds what tablegate writes there (verify) before anything
// reads it.
func open(ctx context.Context, path string, readOnly bool) (*gosql.DB, error) {
	if err := filekind.Regular(path); err != nil {
		return nil, err
	}
	var extra []string
	if readOnly {
		extra = append(extra, "access_mode=read_only")
	}
	dsn := duckdbtune.LockedDSN(path, extra...)
	deadline := time.Now().Add(Wait)
	pause := 5 * time.Millisecond
	for {
		db, err := tryOpen(ctx, dsn)
		if err == nil {
			if err := verify(ctx, db); err != nil {
				db.Close()
				return nil, err
			}
			return db, nil
		}
		if !locked(err) || time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pause + rand.N(pause)):
		}
		pause = min(2*pause, 250*time.Millisecond)
	}
}

func tryOpen(ctx context.Context, dsn string) (*gosql.DB, error) {
	c, err := duckdb.NewConnector(dsn, nil)
	if err != nil {
		return nil, err
	}
	db := gosql.OpenDB(c)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// ensureFile creates a missing history file with its tables, atomically: two processes that both
// found it missing and both let DuckDB create it could each write a new file over the other's
// first run. The file is made under a temporary name beside it and linked into place, which
// fails, harmlessly, if another process got there first.
func ensureFile(ctx context.Context, path string) error {
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil // there, or a problem the open reports
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".new-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	f.Close()
	os.Remove(tmp) // DuckDB creates the file itself; it refuses an empty one
	defer os.Remove(tmp)
	defer os.Remove(tmp + ".wal")
	db, err := tryOpen(ctx, duckdbtune.LockedDSN(tmp))
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, schemaDDL)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("create the history tables: %w", err)
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// locked reports whether err is DuckDB refusing a file another process has open.
func locked(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Could not set lock on file") || strings.Contains(msg, "Conflicting lock")
}

// Append records the run: its row, and one row per check. It is one transaction: a failure
// leaves the history as it was.
func Append(ctx context.Context, path string, run *report.Run) error {
	if err := appendRun(ctx, path, run); err != nil {
		return &Error{Path: path, Op: "append to", Err: err}
	}
	return nil
}

func appendRun(ctx context.Context, path string, run *report.Run) error {
	return inTx(ctx, path, func(tx *gosql.Tx) error { return insertRun(ctx, tx, run) })
}

// inTx runs fn in one transaction on the history file, created with its tables when missing.
func inTx(ctx context.Context, path string, fn func(tx *gosql.Tx) error) error {
	unlock, err := lock(ctx, path, true)
	if err != nil {
		return err
	}
	defer unlock()
	if err := ensureFile(ctx, path); err != nil {
		return err
	}
	db, err := open(ctx, path, false)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	if _, err := tx.ExecContext(ctx, schemaDDL+migrateDDL); err != nil {
		return fmt.Errorf("create the history tables: %w", err)
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// insertRun records the run's row and its checks' rows.
func insertRun(ctx context.Context, tx *gosql.Tx, run *report.Run) error {
	rep := run.Report
	if rep == nil || rep.RunID == "" {
		return errors.New("the run has no report or no run id")
	}
	reportJSON, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	details, err := json.Marshal(run)
	if err != nil {
		return err
	}
	var out, errType, errMsg, collectionRun any
	if rep.Outcome != nil {
		out = string(*rep.Outcome)
	}
	if rep.Error != nil {
		errType, errMsg = rep.Error.Type, rep.Error.Message
	}
	if rep.Collection != nil {
		collectionRun = rep.Collection.RunID
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO tablegate_runs (run_id, asset, schema_name, schema_fingerprint, started_at, duration_s,
		outcome, health, rows_input, rows_valid, rows_invalid, table_address, table_written, quarantine_address, quarantine_written,
		tablegate_version, duckdb_version, error_type, error_message, report, details, collection_run_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		rep.RunID, rep.Asset, rep.Schema, run.Fingerprint, startedAt(rep.StartedAt), rep.DurationS, out, nullable(string(rep.Health)),
		rep.Rows.Input, rep.Rows.Valid, rep.Rows.Invalid, nullable(rep.Table.Address), rep.Table.Written,
		nullable(rep.Quarantine.Address), rep.Quarantine.Written, rep.TablegateVersion, rep.DuckDBVersion,
		errType, errMsg, string(reportJSON), string(details), collectionRun); err != nil {
		return fmt.Errorf("record the run: %w", err)
	}
	if len(rep.Checks) > 0 {
		var rows []string
		var args []any
		for i, c := range rep.Checks {
			facts, _ := run.Check(c.Name)
			rules := make([]string, len(facts.Rules))
			for j, r := range facts.Rules {
				rules[j] = r.Name
			}
			rows = append(rows, "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			args = append(args, rep.RunID, i, c.Name, rules, c.Passed, string(c.Severity), nullable(string(facts.Declared)),
				c.Blocking, c.Failed, checkValue(c))
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO tablegate_check_results (run_id, position, check_name, rules, passed, severity, "+
			"declared_severity, blocking, failed_count, value) VALUES "+strings.Join(rows, ", "), args...); err != nil {
			return fmt.Errorf("record the checks: %w", err)
		}
	}
	return nil
}

// startedAt is a report's started_at as a time, nil when it does not parse.
func startedAt(s string) any {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t
	}
	return nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TrendRuns is how many recent runs a check's trend covers on its page.
const TrendRuns = 30

// Record appends the run and reads its checks' trends (over TrendRuns runs) into run.Trends. It
// does not fail: a history that cannot be written or read is given to warn, and the run, its
// outcome and its outputs are as they were.
func Record(ctx context.Context, path string, run *report.Run, warn func(string)) {
	if err := Append(ctx, path, run); err != nil {
		warn(fmt.Sprintf("%v; the run is not recorded, its outcome and outputs are unaffected (use a DuckDB file this user can write, or a new path)", err))
		return
	}
	trends, err := Trends(ctx, path, run.Report.Asset, TrendRuns)
	if err != nil {
		warn(fmt.Sprintf("%v; the page shows no trends", err))
		return
	}
	run.Trends = trends
}
