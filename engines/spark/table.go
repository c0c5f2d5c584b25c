package spark

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tablegate/tablegate/compile"
	dialect "github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/runner"
)

// Catalog tables (runner.CatalogOutput): the table and the quarantine are Delta or Iceberg tables
// that one CREATE OR REPLACE TABLE … AS each replaces in one commit. Two commits are not one
// transaction, so the pair is kept one run's by what each table's properties record:
//
//   - the quarantine is written first; its tablegate.run is the run's token and its
//     tablegate.pair the version (Delta) or snapshot (Iceberg) it replaced ("none": it did not
//     exist), the point to restore it to;
//   - the table is written second; its tablegate.run is the run's token and its tablegate.pair
//     the tablegate.run of the quarantine beside it.
//
// A quarantine whose tablegate.run is not its table's tablegate.pair, and that records a point
// to restore, was written by a run that never wrote its table (killed, or its table's write
// failed): the next run on the output (and the run itself when the table's write fails) rolls
// it back to that point, before it reads anything, so that the pair is the previous run's. A
// run that writes a quarantine but no table (no valid rows) records no point to restore.

// Property keys of the pair protocol.
const (
	runProperty  = "tablegate.run"
	pairProperty = "tablegate.pair"
	noTable      = "none" // the pair property of a quarantine that did not exist before
)

// format is what differs between the table formats: their versions and how one is restored.
type format interface {
	// version is the table's current version or snapshot ("" none).
	version(ctx context.Context, s Session, t tableName) (string, error)
	// restore makes v the table's current version again, in a commit of its own.
	restore(ctx context.Context, s Session, t tableName, v string) error
	// check refuses a server that has no catalog of the format where the table is.
	check(ctx context.Context, s Session, t tableName) error
}

// tableName is a catalog table's name, its parts as given.
type tableName struct{ catalog, namespace, table string }

func (t tableName) String() string {
	return dialect.Ident(t.catalog) + "." + dialect.Ident(t.namespace) + "." + dialect.Ident(t.table)
}

func formatOf(name string) (format, error) {
	switch name {
	case runner.FormatDelta:
		return delta{}, nil
	case runner.FormatIceberg:
		return iceberg{}, nil
	}
	return nil, fmt.Errorf("no table format %q: use delta or iceberg", name)
}

type delta struct{}

func (delta) version(ctx context.Context, s Session, t tableName) (string, error) {
	rows, err := s.Rows(ctx, "DESCRIBE HISTORY "+t.String()+" LIMIT 1")
	if err != nil {
		return "", err
	}
	if len(rows) == 0 {
		return "", nil
	}
	return fmt.Sprint(rows[0][0]), nil
}

func (delta) restore(ctx context.Context, s Session, t tableName, v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("%s: a Delta version is a number, not %q", t, v)
	}
	return s.Exec(ctx, fmt.Sprintf("RESTORE TABLE %s TO VERSION AS OF %d", t, n))
}

func (delta) check(ctx context.Context, s Session, t tableName) error {
	if t.catalog != "spark_catalog" {
		return fmt.Errorf("the session catalog (spark_catalog) holds Delta tables, not %s: write delta:spark_catalog.%s.%s", t.catalog, t.namespace, t.table)
	}
	impl, err := conf(ctx, s, "spark.sql.catalog.spark_catalog")
	if err != nil {
		return err
	}
	if !strings.Contains(impl, "DeltaCatalog") {
		return errors.New("the Spark Connect server has no Delta catalog: start it with delta-spark on its class path and " +
			"--conf spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension --conf spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog (docs/spark.md)")
	}
	return nil
}

type iceberg struct{}

func (iceberg) version(ctx context.Context, s Session, t tableName) (string, error) {
	rows, err := s.Rows(ctx, "SELECT CAST(snapshot_id AS STRING) FROM "+t.String()+"."+dialect.Ident("refs")+" WHERE name = 'main'")
	if err != nil {
		return "", err
	}
	if len(rows) == 0 {
		return "", nil
	}
	return fmt.Sprint(rows[0][0]), nil
}

// restore sets the current snapshot, which repeats harmlessly (a rollback to the current
// snapshot would fail).
func (iceberg) restore(ctx context.Context, s Session, t tableName, v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("%s: an Iceberg snapshot id is a number, not %q", t, v)
	}
	return s.Exec(ctx, fmt.Sprintf("CALL %s.system.set_current_snapshot(table => %s, snapshot_id => %d)",
		dialect.Ident(t.catalog), dialect.String(dialect.Ident(t.namespace)+"."+dialect.Ident(t.table)), n))
}

func (iceberg) check(ctx context.Context, s Session, t tableName) error {
	impl, err := conf(ctx, s, "spark.sql.catalog."+t.catalog)
	if err != nil {
		return err
	}
	if !strings.Contains(strings.ToLower(impl), "iceberg") {
		return fmt.Errorf("the Spark Connect server has no Iceberg catalog %s: start it with iceberg-spark-runtime on its class path and "+
			"--conf spark.sql.catalog.%s=org.apache.iceberg.spark.SparkCatalog with its type and warehouse (docs/spark.md)", t.catalog, t.catalog)
	}
	return nil
}

// conf is a setting of the session ("" unset).
func conf(ctx context.Context, s Session, key string) (string, error) {
	rows, err := s.Rows(ctx, "SET "+key)
	if err != nil {
		return "", fmt.Errorf("read the server's %s: %w", key, err)
	}
	if len(rows) == 0 || len(rows[0]) < 2 {
		return "", nil
	}
	v := fmt.Sprint(rows[0][1])
	if v == "<undefined>" {
		return "", nil
	}
	return v, nil
}

// pairTables are an output's table and quarantine on a session.
type pairTables struct {
	s                 Session
	f                 format
	table, quarantine tableName
}

// catalogOf is the output's catalog: the one it names, else the session's current one.
func catalogOf(ctx context.Context, s Session, out runner.CatalogOutput) (string, error) {
	if out.Catalog != "" {
		return out.Catalog, nil
	}
	rows, err := s.Rows(ctx, "SELECT current_catalog()")
	if err != nil {
		return "", fmt.Errorf("read the session's current catalog: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return "", errors.New("the server named no current catalog: name one in the output (FORMAT:catalog.namespace.table)")
	}
	return fmt.Sprint(rows[0][0]), nil
}

// newPair is the output's pair in catalog (catalogOf); it checks that the server holds the
// format there, and that existing tables are of the format.
func newPair(ctx context.Context, s Session, out runner.CatalogOutput, catalog, quarantine string) (*pairTables, error) {
	f, err := formatOf(out.Format)
	if err != nil {
		return nil, err
	}
	p := &pairTables{s: s, f: f, table: tableName{catalog, out.Namespace, out.Table}, quarantine: tableName{catalog, out.Namespace, quarantine}}
	if err := f.check(ctx, s, p.table); err != nil {
		return nil, err
	}
	for _, t := range []tableName{p.table, p.quarantine} {
		provider, exists, err := p.provider(ctx, t)
		if err != nil {
			return nil, err
		}
		if exists && !strings.EqualFold(provider, out.Format) {
			return nil, fmt.Errorf("%s is a %s table, not %s: tablegate replaces only %s tables; drop it or write another name", t, provider, out.Format, out.Format)
		}
	}
	return p, nil
}

// provider is a table's format, as DESCRIBE TABLE EXTENDED names it; exists is false for no table.
func (p *pairTables) provider(ctx context.Context, t tableName) (provider string, exists bool, err error) {
	rows, err := p.s.Rows(ctx, "DESCRIBE TABLE EXTENDED "+t.String())
	if err != nil {
		if notFound(err) {
			return "", false, nil
		}
		return "", false, err
	}
	for _, r := range rows {
		if len(r) >= 2 && fmt.Sprint(r[0]) == "Provider" {
			return fmt.Sprint(r[1]), true, nil
		}
	}
	return "", true, nil
}

// notFound tells a statement that failed because its table (or namespace) does not exist.
func notFound(err error) bool {
	var se *Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Class {
	case "TABLE_OR_VIEW_NOT_FOUND", "SCHEMA_NOT_FOUND", "DELTA_TABLE_NOT_FOUND", "DELTA_MISSING_DELTA_TABLE":
		return true
	}
	return false
}

// properties are a table's tablegate properties (nil: no table).
func (p *pairTables) properties(ctx context.Context, t tableName) (map[string]string, error) {
	rows, err := p.s.Rows(ctx, "SHOW TBLPROPERTIES "+t.String())
	if err != nil {
		if notFound(err) {
			return nil, nil
		}
		return nil, err
	}
	props := map[string]string{}
	for _, r := range rows {
		if len(r) >= 2 {
			if k := fmt.Sprint(r[0]); strings.HasPrefix(k, "tablegate.") {
				props[k] = fmt.Sprint(r[1])
			}
		}
	}
	return props, nil
}

// RolledBackError is a quarantine that a run wrote without its table, rolled back to the
// version it replaced: the table and the quarantine are the previous run's pair again.
type RolledBackError struct {
	Quarantine, Version string
}

func (e *RolledBackError) Error() string {
	if e.Version == noTable {
		return fmt.Sprintf("a run wrote the quarantine %s but not its table; it is dropped, as it did not exist before", e.Quarantine)
	}
	return fmt.Sprintf("a run wrote the quarantine %s but not its table; it is rolled back to version %s, the previous run's", e.Quarantine, e.Version)
}

// recover rolls back a quarantine written without its table (see above); it returns what it
// rolled back (nil for nothing).
func (p *pairTables) recover(ctx context.Context) (*RolledBackError, error) {
	q, err := p.properties(ctx, p.quarantine)
	if err != nil || q == nil {
		return nil, err
	}
	t, err := p.properties(ctx, p.table)
	if err != nil {
		return nil, err
	}
	run, restore := q[runProperty], q[pairProperty]
	if run == "" || restore == "" || run == t[pairProperty] {
		return nil, nil
	}
	if err := p.rollBack(ctx, restore, t[pairProperty]); err != nil {
		return nil, fmt.Errorf("roll back the quarantine %s that a run wrote without its table %s: %w", p.quarantine, p.table, err)
	}
	return &RolledBackError{Quarantine: p.quarantine.String(), Version: restore}, nil
}

// rollBack restores the quarantine to v (drops it for noTable) and records that it is the pair
// of the table's run again (Iceberg keeps a table's properties across a snapshot change).
func (p *pairTables) rollBack(ctx context.Context, v, tableRun string) error {
	if v == noTable {
		return p.s.Exec(ctx, "DROP TABLE IF EXISTS "+p.quarantine.String())
	}
	if err := p.f.restore(ctx, p.s, p.quarantine, v); err != nil {
		return err
	}
	q, err := p.properties(ctx, p.quarantine)
	if err != nil {
		return err
	}
	if q[runProperty] == tableRun {
		return nil
	}
	return p.s.Exec(ctx, fmt.Sprintf("ALTER TABLE %s SET TBLPROPERTIES (%s = %s)", p.quarantine, dialect.String(runProperty), dialect.String(tableRun)))
}

// lockFile is the local lock of a catalog table: writers through this machine wait for each
// other. It is named after the resolved table (its catalog given), lower-cased, so that every
// address of one table takes one lock.
func lockFile(dir string, t tableName) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("make the folder of the catalog tables' locks: %w", err)
	}
	return filepath.Join(dir, lockName(t)), nil
}

// lockName is the lock file's name of t: its parts lower-cased, escaped (no separator, no dot
// within a part) and joined by dots.
func lockName(t tableName) string {
	parts := []string{t.catalog, t.namespace, t.table}
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(url.PathEscape(strings.ToLower(p)), ".", "%2E")
	}
	return strings.Join(parts, ".") + ".lock"
}

// recoverTables completes, under the output's lock, what a run killed between its commits left:
// it opens a session of its own, checks the catalog and rolls a lone quarantine back.
func (e *Engine) recoverTables(ctx context.Context, out runner.CatalogOutput, quarantine string) (*RolledBackError, error) {
	s, err := e.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	unlock, catalog, err := lockTable(ctx, s, e.lockDir, out)
	if err != nil {
		return nil, err
	}
	defer unlock()
	p, err := newPair(ctx, s, out, catalog, quarantine)
	if err != nil {
		return nil, err
	}
	return p.recover(ctx)
}

// lockTable resolves the output's catalog on s and takes its table's lock.
func lockTable(ctx context.Context, s Session, dir string, out runner.CatalogOutput) (unlock func(), catalog string, err error) {
	if catalog, err = catalogOf(ctx, s, out); err != nil {
		return nil, "", err
	}
	path, err := lockFile(dir, tableName{catalog, out.Namespace, out.Table})
	if err != nil {
		return nil, "", err
	}
	if unlock, err = durable.LockPath(ctx, path); err != nil {
		return nil, "", err
	}
	return unlock, catalog, nil
}

// tableWriter writes a catalog output: the program's CREATE OR REPLACE statements run in Finish,
// the quarantine's first, under the output's lock.
type tableWriter struct {
	b          *backend
	out        runner.CatalogOutput
	quarantine string // its name, "" no quarantine
	lockDir    string
	pair       *pairTables
	unlock     func()
	// valid and invalid are the write steps the program handed over.
	valid, invalid *compile.Step
	// quarRun and quarVersion are the quarantine's tablegate.run and version when the write
	// began ("" none); quarExists tells that it exists.
	quarRun, quarVersion string
	quarExists           bool
	// rolledBack is the quarantine a killed run left that Begin rolled back ("" none), for the
	// report's warnings.
	rolledBack string
}

// Begin takes the output's lock, checks the catalog, rolls back what a killed run left and reads
// the quarantine's version (the point to restore it to).
func (w *tableWriter) Begin(ctx context.Context) error {
	unlock, catalog, err := lockTable(ctx, w.b.s, w.lockDir, w.out)
	if err != nil {
		return err
	}
	w.unlock = unlock
	name := w.quarantine
	if name == "" {
		name = runner.QuarantineName(w.out.Table)
	}
	if w.pair, err = newPair(ctx, w.b.s, w.out, catalog, name); err != nil {
		return err
	}
	rolledBack, err := w.pair.recover(ctx)
	if err != nil {
		return err
	}
	if rolledBack != nil {
		w.rolledBack = rolledBack.Error()
	}
	if err := w.b.s.Exec(ctx, fmt.Sprintf("CREATE NAMESPACE IF NOT EXISTS %s.%s", dialect.Ident(w.pair.table.catalog), dialect.Ident(w.out.Namespace))); err != nil {
		return fmt.Errorf("make the namespace %s: %w", w.out.Namespace, err)
	}
	q, err := w.pair.properties(ctx, w.pair.quarantine)
	if err != nil {
		return err
	}
	w.quarExists, w.quarRun = q != nil, q[runProperty]
	if w.quarExists && w.quarantine != "" {
		if w.quarVersion, err = w.pair.f.version(ctx, w.b.s, w.pair.quarantine); err != nil {
			return err
		}
	}
	return nil
}

// Step keeps the program's write statement for Finish.
func (w *tableWriter) Step(_ context.Context, s compile.Step, _ ...any) error {
	switch s.Op {
	case compile.WriteValid:
		w.valid = &s
	case compile.WriteInvalid:
		w.invalid = &s
	default:
		return fmt.Errorf("a catalog table output runs no step %q", s.Op)
	}
	return nil
}

// Finish commits the quarantine (or empties an older one when the run has no invalid rows),
// then the table; a table's write that fails rolls the quarantine back to the version it
// replaced.
func (w *tableWriter) Finish(ctx context.Context, conds compile.Cond) (written runner.Written, err error) {
	defer w.Abort("")
	if w.rolledBack != "" {
		written.Warnings = []string{w.rolledBack}
	}
	if err := ctx.Err(); err != nil {
		return written, err
	}
	token := newToken()
	restore := ""
	if w.valid != nil { // a table follows: the quarantine can be rolled back to its version
		restore = w.quarVersion
		if !w.quarExists {
			restore = noTable
		}
	}
	quarRun, changed := w.quarRun, false
	q := w.pair.quarantine
	switch {
	case w.quarantine == "":
	case w.invalid != nil:
		if err := w.b.Exec(ctx, w.invalid.SQL, token, restore); err != nil {
			return written, fmt.Errorf("write the quarantine %s: %w", q, err)
		}
		quarRun, changed, written.Quarantine = token, true, true
	case conds&compile.DropQuarant != 0 && w.quarExists:
		// The older quarantine's rows stay in its history, at the version the report names.
		if err := w.b.s.Exec(ctx, fmt.Sprintf("ALTER TABLE %s SET TBLPROPERTIES (%s = %s, %s = %s)", q,
			dialect.String(runProperty), dialect.String(token), dialect.String(pairProperty), dialect.String(restore))); err != nil {
			return written, fmt.Errorf("empty the older quarantine %s: %w", q, err)
		}
		quarRun, changed = token, true
		if err := w.b.s.Exec(ctx, "DELETE FROM "+q.String()); err != nil {
			return written, w.undo(ctx, fmt.Errorf("empty the older quarantine %s: %w", q, err), restore)
		}
		if w.quarVersion != "" {
			written.Was = w.out.QuarantineAddress(w.quarantine)
			written.Kept = fmt.Sprintf("%s VERSION AS OF %s", q, w.quarVersion)
		}
	}
	durable.Crash("quarantine committed")
	if w.valid != nil {
		if err := w.b.Exec(ctx, w.valid.SQL, token, quarRun); err != nil {
			err = fmt.Errorf("write the table %s: %w", w.pair.table, err)
			if changed {
				return written, w.undo(ctx, err, restore)
			}
			return written, err
		}
		written.Table = true
	}
	return written, nil
}

// undo rolls back the quarantine this run changed after the table's write failed; if that fails
// too, the next run on the output does it.
func (w *tableWriter) undo(ctx context.Context, cause error, restore string) error {
	if restore == "" {
		return cause // no table follows: the quarantine is no pair's
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	t, err := w.pair.properties(rctx, w.pair.table)
	if err == nil {
		err = w.pair.rollBack(rctx, restore, t[pairProperty])
	}
	if err != nil {
		return fmt.Errorf("%w; rolling the quarantine back failed too (%v): the next run on the output rolls it back", cause, err)
	}
	return cause
}

// Abort gives back the lock: nothing is committed before Finish.
func (w *tableWriter) Abort(string) {
	if w.unlock != nil {
		w.unlock()
		w.unlock = nil
	}
}

// newToken names a run in the tables' properties: the time and random bits, unique across
// machines.
func newToken() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102T150405.000000Z") + "-" + hex.EncodeToString(b)
}
