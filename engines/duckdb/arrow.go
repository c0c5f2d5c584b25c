//go:build duckdb_arrow

package duckdb

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	duckdbgo "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// otherSource opens an Arrow input (runner.ArrowInput): it registers the records as a view,
// which the opening copies into a temp table and drops; the registration is given back once the
// input is open (run.afterOpen).
func otherSource(_ context.Context, r *run, input runner.Input) (compile.Source, error) {
	in, ok := input.(runner.ArrowInput)
	if !ok {
		return compile.Source{}, fmt.Errorf("the DuckDB engine cannot read %T inputs", input)
	}
	if in.Reader == nil {
		return compile.Source{}, fmt.Errorf("the Arrow reader is nil: %w", runner.ErrNoSourceData)
	}
	view := fmt.Sprintf("__tg_arrow_%d", r.id)
	err := r.arrow(func(a *duckdbgo.Arrow) (err error) {
		r.afterOpen, err = a.RegisterView(in.Reader, view)
		return err
	})
	if err != nil {
		return compile.Source{}, fmt.Errorf("read Arrow records: %w", err)
	}
	return compile.Source{Kind: compile.ViewSource, View: view}, nil
}

// Filter validates the input without writing anything and returns the valid rows and the
// failure info (runner.Engine.Filter). Available with the build tag duckdb_arrow.
func (e *Engine) Filter(ctx context.Context, p *compile.Plan, in runner.Input, opts runner.Options) (*runner.Filtered, error) {
	if in == nil {
		return nil, fmt.Errorf("filter needs an input: %w", runner.ErrNoSourceData)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	a := runner.Asset{Plan: p, Input: in, Quarantine: true}
	rep := runner.NewReport(runner.AssetName(a), p.Name)
	rep.DuckDBVersion = DuckDBVersion()
	r, err := e.newRun(ctx)
	if err != nil {
		return nil, err
	}
	f := &runner.Filtered{Report: rep, Counts: map[string]int64{}, Release: r.close}
	abort := func(err error) (*runner.Filtered, error) {
		f.Close()
		return nil, err
	}
	b := newBackend(r, a, nil)
	rel, err := runner.Load(ctx, b, a, rep, opts)
	if err != nil {
		return abort(err)
	}
	ing, err := runner.BeginEvaluation(ctx, b, a, rep, rel, opts, outcome.PolicyFilter)
	if err != nil {
		return abort(err)
	}
	r.prog = ing.Prepared.Program // the run's close cleans up after it
	res, err := runner.Execute(ctx, b, ing.Job, ing.Prepared)
	ev, err := ing.Settle(ctx, res, err)
	if err != nil {
		return abort(err)
	}
	total, out := ev.Total, ev.Outcome
	if out == outcome.TableCheckFailed {
		// The batch as a whole is wrong: no row of it is handed on.
		failed := ev.TableCheckError(p)
		failed.InPlace = true // Filter writes no table
		return abort(failed)
	}
	rep.Rows = outcome.Rows{Input: total, Invalid: ev.Invalid(), Valid: total - ev.Invalid()}
	rep.Outcome = &out
	for i, rule := range p.Rules {
		if ev.Failed()[i] > 0 {
			f.Counts[rule.Name] = ev.Failed()[i]
		}
	}
	validSQL, invalidSQL := ev.Res.ValidRows, ev.Res.InvalidRows
	err = r.arrow(func(a *duckdbgo.Arrow) error {
		// A new query on a connection ends the previous result's stream, so the invalid rows
		// (the few) are read into memory first and the valid rows (the many) stream last.
		start := r.conn.trace.Begin()
		invalid, err := a.QueryContext(ctx, invalidSQL)
		r.conn.trace.Log(start, invalidSQL)
		if err != nil {
			return err
		}
		f.Invalid, err = collect(invalid)
		if err != nil {
			return err
		}
		// The valid rows stream: their time in the trace is the query's start.
		start = r.conn.trace.Begin()
		f.Valid, err = a.QueryContext(ctx, validSQL)
		r.conn.trace.Log(start, validSQL)
		return err
	})
	if err != nil {
		return abort(fmt.Errorf("read the filtered rows: %w", err))
	}
	return f, nil
}

// arrow runs fn with the Arrow interface of the run's connection.
func (r *run) arrow(fn func(*duckdbgo.Arrow) error) error {
	return r.conn.Raw(func(dc any) error {
		conn, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("not a DuckDB connection")
		}
		a, err := duckdbgo.NewArrowFromConn(conn)
		if err != nil {
			return err
		}
		return fn(a)
	})
}

// collect reads a record reader into memory and returns a reader over the copies.
func collect(r array.RecordReader) (array.RecordReader, error) {
	defer r.Release()
	var recs []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := r.Err(); err != nil {
		for _, rec := range recs {
			rec.Release()
		}
		return nil, err
	}
	out, err := array.NewRecordReader(r.Schema(), recs)
	for _, rec := range recs {
		rec.Release() // the new reader holds its own references
	}
	return out, err
}

// The engine hands a run's rows to the caller as Arrow (runner.Engine.Filter).
var _ runner.Filterer = (*Engine)(nil)
