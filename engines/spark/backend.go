package spark

import (
	"context"
	gosql "database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	dialect "github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/internal/store"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
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
	var files []string
	if local != "" {
		files, err = parquetFiles(local)
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
		if len(files) > 1 {
			// The rows of each file from their footers, so that Spark need not count them.
			if src.Ordinal, err = footerOrdinal(local, files); err != nil {
				return compile.Relation{}, err
			}
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

// Analyze has Spark's analyzer type each custom rule's Spark SQL over the input, which must be
// one BOOLEAN column, and each table check's: a condition BOOLEAN, a metric a number, read exactly
// (an integer or DECIMAL) when DuckDB reads it so (a *CustomSQLError lists every one that is
// not).
func (b *backend) Analyze(ctx context.Context, rel compile.Relation) error {
	if err := b.references(ctx); err != nil {
		return err
	}
	var problems []error
	src := false
	// describe types a probe over __tg_src, the source's name in the plan query.
	describe := func(what, probe string) (string, error) {
		if !src {
			if _, err := runner.ReadStep(ctx, b, b.opening, dialect.ProbeSource(rel.From)); err != nil {
				return "", err
			}
			b.views = append(b.views, "__tg_src")
			src = true
		}
		rows, err := runner.ReadStep(ctx, b, b.opening, compile.Step{Op: compile.ReadRows, What: what, SQL: "DESCRIBE QUERY " + probe})
		switch {
		case err != nil:
			return "", err
		case len(rows) != 1:
			return "no column", nil
		}
		return fmt.Sprint(rows[0][1]), nil
	}
	for i, rule := range b.rules {
		if !rule.Custom {
			continue
		}
		typ, err := describe("type the custom rule's Spark SQL", rule.Probe)
		name := b.a.Plan.Rules[i].Name
		switch {
		case ctx.Err() != nil:
			return b.failed(ctx, ctx.Err())
		case err != nil:
			problems = append(problems, fmt.Errorf("rule '%s': Spark cannot run its SQL %s: %w", name, rule.Expr, err))
		case typ != "boolean":
			problems = append(problems, fmt.Errorf("rule '%s': its Spark SQL %s is %s, not a boolean", name, rule.Expr, typ))
		}
	}
	p := b.a.Plan
	for _, t := range p.TableChecks {
		typ, err := describe("type the table check's Spark SQL", dialect.TableCheckProbe(t, len(p.Rules)))
		if ctx.Err() != nil {
			return b.failed(ctx, ctx.Err())
		}
		if err == nil {
			err = tableCheckType(t, typ)
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("table check '%s': %w", t.Name, err))
		}
	}
	if len(problems) > 0 {
		return &CustomSQLError{Schema: b.a.Plan.Name, Problems: problems}
	}
	return nil
}

// references reads the columns of each foreign key's other data and compares the key columns'
// types with the keys' dtypes, as the DuckDB engine does (a local reference's stored types from
// its footers too): one that cannot be read is an input error naming it, those whose types differ
// a *outcome.ColumnSchemaError (the column_schema_mismatch outcome).
func (b *backend) references(ctx context.Context) error {
	p := b.a.Plan
	var problems []outcome.ReferenceMismatch
	for _, ref := range p.References() {
		inputError := func(err error) error {
			return &outcome.InputError{Input: fmt.Sprintf("%s (the reference data of rule %s)", ref.Input, ref.Rule), Err: err}
		}
		want := make([]*schema.Column, len(ref.To))
		key := make(map[string]string, len(ref.To))
		for i, to := range ref.To {
			want[i] = &schema.Column{Name: to, DType: p.Schema().Column(ref.Columns[i]).DType}
			key[to] = ref.Columns[i]
		}
		rows, err := runner.ReadStep(ctx, b, b.opening, compile.Step{Op: compile.ReadRows, What: "read the reference's column types", SQL: "DESCRIBE QUERY SELECT * FROM " + ref.Source})
		if err != nil {
			return inputError(b.failed(ctx, err))
		}
		actual := make([]casting.ColumnType, len(rows))
		names := make([]string, len(rows))
		for i, row := range rows {
			names[i], _ = row[0].(string)
			typ, _ := row[1].(string)
			actual[i] = casting.ColumnType{Name: names[i], Type: typ}
		}
		mismatches := casting.CheckColumnsWith(want, actual, casting.ParseSparkType)
		if len(mismatches) == 0 && !strings.Contains(ref.Input, "://") {
			// Spark reads unsigned integers and other units as other types: a local reference's
			// footers tell them, as the input's do.
			files, err := filepath.Glob(ref.Input)
			if err == nil && len(files) == 1 {
				files, err = parquetFiles(files[0])
			}
			if err != nil {
				return inputError(err)
			}
			var uc *UnsupportedColumnError
			if err := storedTypes(files, want); errors.As(err, &uc) {
				mismatches = uc.Mismatches
			} else if err != nil {
				return inputError(err)
			}
		}
		for _, m := range mismatches {
			problems = append(problems, outcome.ReferenceMismatch{Rule: ref.Rule, Input: ref.Input, Key: key[m.Column],
				DType: m.Expected, Column: m.Column, Actual: m.Actual, Columns: names})
		}
	}
	if len(problems) > 0 {
		return &outcome.ColumnSchemaError{Schema: p.Name, References: problems}
	}
	return nil
}

// tableCheckType refuses a table check's Spark type that is not what the check reads: a
// condition's BOOLEAN, a metric's number, exact (an integer or DECIMAL) when DuckDB types the
// check's DuckDB SQL so, so that both engines report the same digits.
func tableCheckType(t compile.TableCheck, typ string) error {
	exact := strings.HasPrefix(typ, "decimal(") || typ == "tinyint" || typ == "smallint" || typ == "int" || typ == "bigint"
	switch {
	case !t.Metric && typ != "boolean":
		return fmt.Errorf("its Spark SQL %s is %s, not a boolean", t.Expr, typ)
	case t.Metric && !exact && typ != "float" && typ != "double":
		return fmt.Errorf("its Spark SQL %s is %s, not a number", t.Expr, typ)
	case t.Exact && !exact:
		return fmt.Errorf("its Spark SQL %s is %s, where its DuckDB SQL is an exact number (an integer or DECIMAL): cast it, CAST(… AS DECIMAL(38, 0))", t.Expr, typ)
	}
	return nil
}

// Opening is the statements that opened the input and typed its custom rules and table checks,
// as steps (explain lists them).
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

// CustomSQLError means Spark's analyzer refused the Spark SQL of custom rules or table checks, or
// typed it other than they read it (a rule's BOOLEAN, a metric's number). Nothing was read or
// written.
type CustomSQLError struct {
	Schema   string
	Problems []error
}

func (e *CustomSQLError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Error()
	}
	return fmt.Sprintf("%s cannot run on Spark: %s. Fix their spark: forms.", e.Schema, strings.Join(parts, "; "))
}

func (e *CustomSQLError) Unwrap() []error { return e.Problems }
