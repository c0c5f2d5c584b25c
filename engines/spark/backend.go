package spark

import (
	"context"
	gosql "database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	dialect "github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/runner"
)

// backend is one run's Spark session as the engine-neutral run drives it (duckdb.Backend): it
// opens the input as temporary views with the row ordinal, runs the program's Spark SQL with its
// parameters rendered as typed literals (the Spark Connect client binds none), and writes the
// output's directories (Writer, through the output's Store).
type backend struct {
	s     Session
	a     duckdb.Asset
	id    int64
	rules []dialect.Rule
	stop  func() bool
	// out and quarantine are the output's and the quarantine's directories ("" none), in store;
	// table is a catalog table output instead (nil none).
	out, quarantine string
	store           Store
	table           *tableOutput
	// opened are the statements Open, Describe and Analyze ran; views those to drop at Close.
	opened     []compile.Step
	views      []string
	input      string // the URL Spark reads the input at
	configured bool
}

// Open checks the stored types of a local input's Parquet footers (a type Spark cannot read
// exactly is an UnsupportedColumnError), then makes the input a view with the row ordinal: a
// file's row index, after the rows of the files before it in name order (Spark lists a
// directory's files in that order; row_index counts within one file).
func (b *backend) Open(ctx context.Context) (compile.Relation, error) {
	in, ok := b.a.Input.(duckdb.ParquetInput)
	if !ok {
		return compile.Relation{}, fmt.Errorf("the Spark engine reads Parquet inputs only")
	}
	url, local, err := fileURL(in.Path)
	if err != nil {
		return compile.Relation{}, err
	}
	b.input = url
	singleFile := false
	var files []string
	if local != "" {
		files, err = parquetFiles(local)
		if errors.Is(err, os.ErrNotExist) {
			return compile.Relation{}, fmt.Errorf("%w: %w", duckdb.ErrNoSourceData, err)
		}
		if err != nil {
			return compile.Relation{}, err
		}
		singleFile = len(files) == 1
		if err := storedTypes(files, b.a.Plan.Schema().Columns); err != nil {
			return compile.Relation{}, err
		}
	}
	if err := b.configure(ctx); err != nil {
		return compile.Relation{}, err
	}
	if local == "" {
		// An object store or HDFS: this process cannot open the files, Spark reads the footer.
		if err := remoteFooterTypes(ctx, footerReader{b.s, b}, url, b.a.Plan.Schema().Columns); err != nil {
			return compile.Relation{}, b.failed(ctx, err)
		}
	}
	raw, input := b.view("raw"), b.view("input")
	if err := b.record(ctx, fmt.Sprintf("CREATE OR REPLACE TEMPORARY VIEW %s AS SELECT *, _metadata.file_path AS __tg_file, _metadata.file_name AS __tg_name, _metadata.row_index AS __tg_row FROM parquet.%s",
		raw, dialect.Ident(url))); err != nil {
		return compile.Relation{}, err
	}
	ordinal, counted := "__tg_row", singleFile
	if !singleFile && local != "" {
		if ordinal, counted, err = footerOrdinal(local, files); err != nil {
			return compile.Relation{}, err
		}
	}
	if !counted {
		if ordinal, err = b.ordinal(ctx, raw); err != nil {
			return compile.Relation{}, err
		}
	}
	if err := b.record(ctx, fmt.Sprintf("CREATE OR REPLACE TEMPORARY VIEW %s AS SELECT *, %s AS %s FROM %s", input, ordinal, dialect.RowID, raw)); err != nil {
		return compile.Relation{}, err
	}
	return compile.Relation{From: input, RowID: dialect.RowID, DenseRowIDs: true}, nil
}

// footerReader is the session as the footer check of a remote input uses it: its statements are
// kept for explain.
type footerReader struct {
	Session
	b *backend
}

func (f footerReader) Exec(ctx context.Context, q string) error {
	f.b.opened = append(f.b.opened, compile.Step{Op: compile.Exec, What: "check the input's footer", SQL: q})
	return f.Session.Exec(ctx, q)
}

func (f footerReader) Rows(ctx context.Context, q string) ([][]any, error) {
	f.b.read("check the input's footer", q)
	return f.Session.Rows(ctx, q)
}

// view names a temporary view of the run, to drop when it closes.
func (b *backend) view(role string) string {
	name := fmt.Sprintf("__tg_%s_%d", role, b.id)
	b.views = append(b.views, name)
	return name
}

// configure pins the session's settings (sessionConf), once.
func (b *backend) configure(ctx context.Context) error {
	if b.configured {
		return nil
	}
	for _, kv := range sessionConf {
		if err := b.s.Exec(ctx, fmt.Sprintf("SET %s=%s", kv[0], kv[1])); err != nil {
			return b.failed(ctx, fmt.Errorf("configure the Spark session: %w", err))
		}
	}
	b.configured = true
	return nil
}

// ordinal is the row ordinal over the raw view: the row index, offset by the rows of the files
// before it in name order. The per-file counts come from the Parquet footers through Spark.
func (b *backend) ordinal(ctx context.Context, raw string) (string, error) {
	q := fmt.Sprintf("SELECT __tg_file, count(*) FROM %s GROUP BY __tg_file ORDER BY __tg_file", raw)
	b.read("count the rows of each file", q)
	rows, err := b.s.Rows(ctx, q)
	if err != nil {
		return "", b.failed(ctx, err)
	}
	if len(rows) <= 1 {
		return "__tg_row", nil
	}
	var s strings.Builder
	s.WriteString("__tg_row + CASE __tg_file")
	var offset int64
	for _, row := range rows {
		f, _ := row[0].(string)
		n, _ := row[1].(int64)
		fmt.Fprintf(&s, " WHEN %s THEN %d", dialect.String(f), offset)
		offset += n
	}
	s.WriteString(" END")
	return s.String(), nil
}

// Describe reads the input's columns in Spark's type syntax (ParseType reads them).
func (b *backend) Describe(ctx context.Context, rel compile.Relation) ([]casting.ColumnType, error) {
	q := "DESCRIBE QUERY SELECT * FROM parquet." + dialect.Ident(b.input)
	b.read("read the column types", q)
	types, err := b.s.Rows(ctx, q)
	if err != nil {
		return nil, b.failed(ctx, err)
	}
	var actual []casting.ColumnType
	for _, row := range types {
		name, _ := row[0].(string)
		typ, _ := row[1].(string)
		if name == compile.RowIDColumn {
			return nil, fmt.Errorf("the input has a column %s, the name tablegate gives the row ordinal", name)
		}
		actual = append(actual, casting.ColumnType{Name: name, Type: typ})
	}
	return actual, nil
}

// ParseType reads Spark's DESCRIBE spelling.
func (b *backend) ParseType(typ string) (*casting.DuckType, error) {
	return casting.ParseSparkType(typ)
}

// Analyze has Spark's analyzer type each custom rule's Spark SQL over the input: it must be one
// BOOLEAN column (a *CustomSQLError lists every rule that is not).
func (b *backend) Analyze(ctx context.Context, rel compile.Relation) error {
	var problems []error
	src := false
	for i, rule := range b.rules {
		if !rule.Custom {
			continue
		}
		if !src {
			// The probes read __tg_src, the source's name in the plan query.
			if err := b.record(ctx, "CREATE OR REPLACE TEMPORARY VIEW __tg_src AS SELECT * FROM "+rel.From); err != nil {
				return err
			}
			b.views = append(b.views, "__tg_src")
			src = true
		}
		q := "DESCRIBE QUERY " + rule.Probe
		b.read("type the custom rule's Spark SQL", q)
		rows, err := b.s.Rows(ctx, q)
		name := b.a.Plan.Rules[i].Name
		switch {
		case ctx.Err() != nil:
			return b.failed(ctx, ctx.Err())
		case err != nil:
			problems = append(problems, fmt.Errorf("rule '%s': Spark cannot run its SQL %s: %w", name, rule.Expr, err))
		case len(rows) != 1 || fmt.Sprint(rows[0][1]) != "boolean":
			typ := "no column"
			if len(rows) > 0 {
				typ = fmt.Sprint(rows[0][1])
			}
			problems = append(problems, fmt.Errorf("rule '%s': its Spark SQL %s is %s, not a boolean", name, rule.Expr, typ))
		}
	}
	if len(problems) > 0 {
		return &CustomSQLError{Schema: b.a.Plan.Name, Problems: problems}
	}
	return nil
}

// Opened are the statements Open, Describe and Analyze ran, as steps.
func (b *backend) Opened() []compile.Step { return b.opened }

// record runs a statement that opens the input, and keeps it for explain.
func (b *backend) record(ctx context.Context, stmt string) error {
	b.opened = append(b.opened, compile.Step{Op: compile.Exec, What: "open the input", SQL: stmt})
	return b.Exec(ctx, stmt)
}

// read keeps a query that opens or checks the input for explain (the caller runs it).
func (b *backend) read(what, query string) {
	b.opened = append(b.opened, compile.Step{Op: compile.ReadRows, What: what, SQL: query})
}

// Exec runs a statement of the run with its parameters bound as literals (dialect.Bind).
func (b *backend) Exec(ctx context.Context, stmt string, args ...any) error {
	q, err := dialect.Bind(stmt, args...)
	if err != nil {
		return err
	}
	return b.failed(ctx, b.s.Exec(ctx, q))
}

// Query runs a query of the run with its parameters bound as literals and returns its rows.
func (b *backend) Query(ctx context.Context, stmt string, args ...any) (runner.Rows, error) {
	q, err := dialect.Bind(stmt, args...)
	if err != nil {
		return nil, err
	}
	rows, err := b.s.Rows(ctx, q)
	if err != nil {
		return nil, b.failed(ctx, err)
	}
	return &resultRows{rows: rows, at: -1}, nil
}

// failed is err, said to be the cancellation's when ctx ended: Spark reports an interrupted
// operation as an error of its own.
func (b *backend) failed(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w (the Spark session's operations were interrupted)", context.Cause(ctx))
	}
	return err
}

// Refuse refuses the ops a Spark run cannot run: DuckDB's tuning, rows handed to the caller, and
// table outputs.
func (b *backend) Refuse(op compile.Op) error {
	r := &runner.Refusal{Backend: "Spark", Op: op}
	switch op {
	case compile.ReadThreads, compile.RaiseThreads, compile.RestoreThreads:
		r.Instead = "the threads are DuckDB's setting; Spark's executors are the cluster's"
	case compile.ValidRows, compile.InvalidRows:
		r.Instead = "Filter hands rows to the caller as Arrow on the DuckDB engine; on Spark write them to an output (--out)"
	case compile.AttachOutput, compile.Write, compile.Commit, compile.Rollback, compile.FindQuarantine:
		r.Instead = "Spark writes Parquet directories (--out DIR) and Delta or Iceberg tables, not DuckDB tables"
	case compile.ProbeFooters, compile.ProbeRowGroups, compile.RowGroupSize:
		r.Instead = "the Parquet footers' statistics steer DuckDB's plan only; Spark reads them itself"
	case compile.TableChecks:
		r.Instead = "table checks run on the DuckDB engine"
	default:
		return nil
	}
	return r
}

// tableOutput is a catalog table output of a run: the table, its quarantine's name ("" no
// quarantine), where its lock is.
type tableOutput struct {
	out        duckdb.CatalogOutput
	quarantine string
	lockDir    string
}

// Writer writes the output's directories or tables, nil without an output.
func (b *backend) Writer() runner.Writer {
	if t := b.table; t != nil {
		return &tableWriter{b: b, out: t.out, quarantine: t.quarantine, lockDir: t.lockDir}
	}
	if b.out == "" {
		return nil
	}
	return &writer{b: b, st: b.store, table: b.out, quarantine: b.quarantine, tableTmp: b.store.Temp(b.id, "table"), quarTmp: b.store.Temp(b.id, "quarantine")}
}

// Target is where the program writes: the catalog's tables, or the writer's temporary
// directories.
func (b *backend) Target() compile.Output {
	if t := b.table; t != nil {
		q := t.quarantine
		if q == "" {
			q = duckdb.QuarantineName(t.out.Table)
		}
		return compile.Output{Format: t.out.Format, Catalog: t.out.Catalog, Schema: t.out.Namespace, Table: t.out.Table, Quarantine: q}
	}
	if b.out == "" {
		return compile.Output{}
	}
	return compile.Output{TableFile: b.store.Temp(b.id, "table"), QuarantineFile: b.store.Temp(b.id, "quarantine")}
}

// interrupt stops the session's operations on the server: the client alone would leave them
// running when the run's ctx ends.
func (b *backend) interrupt() {
	ictx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = b.s.Interrupt(ictx)
}

// Close drops the input's views and ends the session; a session left behind would keep its
// cache on the server until it times out.
func (b *backend) Close() error {
	b.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := len(b.views) - 1; i >= 0; i-- {
		_ = b.s.Exec(ctx, "DROP VIEW IF EXISTS "+b.views[i])
	}
	return b.s.Close()
}

// resultRows are a query's rows as the run scans them, converted as database/sql converts a
// driver's values.
type resultRows struct {
	rows [][]any
	at   int
}

func (r *resultRows) Next() bool   { r.at++; return r.at < len(r.rows) }
func (r *resultRows) Err() error   { return nil }
func (r *resultRows) Close() error { return nil }

func (r *resultRows) Scan(dest ...any) error {
	if r.at < 0 || r.at >= len(r.rows) {
		return errors.New("scan without a row")
	}
	row := r.rows[r.at]
	if len(dest) != len(row) {
		return fmt.Errorf("the statement returned %d columns, the run reads %d", len(row), len(dest))
	}
	for i, d := range dest {
		if err := assign(d, row[i]); err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
	}
	return nil
}

// assign stores a value the Spark client decoded into dest, through database/sql's conversions
// (its Null types' Scan).
func assign(dest, v any) error {
	switch d := dest.(type) {
	case *any:
		*d = v
	case gosql.Scanner:
		return d.Scan(v)
	case *int64:
		var n gosql.NullInt64
		if err := n.Scan(v); err != nil || !n.Valid {
			return fmt.Errorf("want an integer, got %v: %w", v, err)
		}
		*d = n.Int64
	case *int:
		var n gosql.NullInt64
		if err := n.Scan(v); err != nil || !n.Valid {
			return fmt.Errorf("want an integer, got %v: %w", v, err)
		}
		*d = int(n.Int64)
	case *string:
		var s gosql.NullString
		if err := s.Scan(v); err != nil || !s.Valid {
			return fmt.Errorf("want a string, got %v: %w", v, err)
		}
		*d = s.String
	case *bool:
		var s gosql.NullBool
		if err := s.Scan(v); err != nil || !s.Valid {
			return fmt.Errorf("want a boolean, got %v: %w", v, err)
		}
		*d = s.Bool
	case *float64:
		var s gosql.NullFloat64
		if err := s.Scan(v); err != nil || !s.Valid {
			return fmt.Errorf("want a number, got %v: %w", v, err)
		}
		*d = s.Float64
	default:
		return fmt.Errorf("cannot scan into %T", dest)
	}
	return nil
}

// CustomSQLError means Spark's analyzer refused a custom rule's Spark SQL, or typed it other than
// BOOLEAN. Nothing was read or written.
type CustomSQLError struct {
	Schema   string
	Problems []error
}

func (e *CustomSQLError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Error()
	}
	return fmt.Sprintf("%s cannot run on Spark: %s. Fix the rules' spark: forms.", e.Schema, strings.Join(parts, "; "))
}

func (e *CustomSQLError) Unwrap() []error { return e.Problems }
