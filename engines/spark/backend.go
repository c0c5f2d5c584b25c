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
	"github.com/tablegate/tablegate/internal/store"
	"github.com/tablegate/tablegate/runner"
)

// backend is one run's Spark session as the engine-neutral run drives it (runner.Backend): it
// opens the input as temporary views with the row ordinal, runs the program's Spark SQL with its
// parameters rendered as typed literals (the Spark Connect client binds none), and writes the
// output's directories (Writer, through the output's Store).
type backend struct {
	s     Session
	a     runner.Asset
	id    int64
	rules []dialect.Rule
	stop  func() bool
	// out and quarantine are the output's and the quarantine's directories ("" none), in store;
	// table is a catalog table output instead (nil none).
	out, quarantine string
	store           store.Store
	table           *tableOutput
	// opening is what opened the input (its statements, the views it made); views are the views
	// to drop at Close.
	opening    *compile.Opening
	views      []string
	configured bool
}

// Open checks the stored types of a local input's Parquet footers (a type Spark cannot read
// exactly is an UnsupportedColumnError), then opens the input with the run's one interpreter of
// inputs (runner.OpenSource) as the stages of dialect.Source: a remote input's footer read
// through Spark, the views with the row ordinal, the columns. Explain lists what they ran.
func (b *backend) Open(ctx context.Context) (compile.Relation, error) {
	b.opening = &compile.Opening{}
	in, ok := b.a.Input.(runner.ParquetInput)
	if !ok {
		return compile.Relation{}, fmt.Errorf("the Spark engine reads Parquet inputs only")
	}
	url, local, err := fileURL(in.Path)
	if err != nil {
		return compile.Relation{}, err
	}
	src := &dialect.Source{ID: b.id, URL: url}
	cols := b.a.Plan.Schema().Columns
	if local != "" {
		files, err := parquetFiles(local)
		if errors.Is(err, os.ErrNotExist) {
			return compile.Relation{}, fmt.Errorf("%w: %w", runner.ErrNoSourceData, err)
		}
		if err != nil {
			return compile.Relation{}, err
		}
		src.Files = len(files)
		if err := storedTypes(files, cols); err != nil {
			return compile.Relation{}, err
		}
	} else {
		// An object store or HDFS: this process cannot open the files, Spark reads the footer.
		src.Footer = func(file string, size int64, tail []byte) error { return remoteFooterTypes(file, size, tail, cols) }
	}
	if err := b.configure(ctx); err != nil {
		return compile.Relation{}, err
	}
	b.opening, err = runner.OpenSource(ctx, b, src)
	b.views = append(b.views, b.opening.Temps...)
	return b.opening.Rel, err
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

// Describe is the input's columns that the opening read, in Spark's type syntax (ParseType reads
// them).
func (b *backend) Describe(context.Context, compile.Relation) ([]casting.ColumnType, error) {
	actual := make([]casting.ColumnType, len(b.opening.Columns))
	for i, c := range b.opening.Columns {
		actual[i] = casting.ColumnType{Name: c.Name, Type: c.Type}
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
			if _, err := runner.ReadStep(ctx, b, b.opening, dialect.ProbeSource(rel.From)); err != nil {
				return err
			}
			b.views = append(b.views, "__tg_src")
			src = true
		}
		rows, err := runner.ReadStep(ctx, b, b.opening, dialect.TypeProbe(rule))
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

// Opening is the statements that opened the input and typed its custom rules, as steps
// (explain lists them).
func (b *backend) Opening() *compile.Opening { return b.opening }

// ID is the run's number.
func (b *backend) ID() int64 { return b.id }

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
	out        runner.CatalogOutput
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
			q = runner.QuarantineName(t.out.Table)
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

// Columns are as many (unnamed) columns as the rows have values: the session returns no names,
// and the run reads a statement's columns by position.
func (r *resultRows) Columns() ([]string, error) {
	if len(r.rows) == 0 {
		return nil, nil
	}
	return make([]string, len(r.rows[0])), nil
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
