//go:build duckdb_arrow

package duckdb

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	duckdbgo "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
)

// ArrowInput validates Arrow record batches, e.g. a warehouse extract arriving in Go. The
// reader is consumed once, into a temp table (rules read the rows twice). Available with the
// build tag duckdb_arrow.
type ArrowInput struct {
	Reader array.RecordReader
	// Name names the input in messages ("arrow" when empty).
	Name string
}

func (in ArrowInput) String() string {
	if in.Name != "" {
		return in.Name
	}
	return "arrow"
}

// source registers the records as a view, which the opening copies into a temp table and
// drops; the registration is given back once the input is open (run.opened).
func (in ArrowInput) source(_ context.Context, r *run, _ map[string]bool) (compile.Source, error) {
	if in.Reader == nil {
		return compile.Source{}, fmt.Errorf("the Arrow reader is nil: %w", ErrNoSourceData)
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

// Filtered is the result of Filter: the valid rows and the invalid rows (with one valid/invalid
// column per rule, named like the rule's check) as Arrow readers, and the failure counts. Close
// it when done; the readers are valid until then.
type Filtered struct {
	Report  *outcome.Report
	Valid   array.RecordReader
	Invalid array.RecordReader
	// Counts is, per rule, how many rows failed it (rules without failures are omitted).
	Counts map[string]int64
	run    *run
}

// Close releases the readers and the run's temporary state.
func (f *Filtered) Close() {
	if f.Valid != nil {
		f.Valid.Release()
	}
	if f.Invalid != nil {
		f.Invalid.Release()
	}
	if f.run != nil {
		f.run.close()
	}
}

// Filter validates the input without writing anything and returns the valid rows and the
// failure info, for callers who drop invalid rows themselves. A column-schema mismatch is still
// an error (*outcome.ColumnSchemaError), and so is a failing error table check
// (*outcome.TableCheckError); failing rows are not. Available with the build tag
// duckdb_arrow.
func (e *Engine) Filter(ctx context.Context, p *compile.Plan, in Input, opts Options) (*Filtered, error) {
	if in == nil {
		return nil, fmt.Errorf("filter needs an input: %w", ErrNoSourceData)
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if e.other != nil {
		return nil, errors.New("Filter hands the rows to the caller as Arrow, from DuckDB: it runs on an engine of Open or New, not NewOn; on another engine, validate to an output")
	}
	a := Asset{Plan: p, Input: in, Quarantine: true}
	rep := NewReport(assetName(a), p.Name)
	r, err := e.newRun(ctx)
	if err != nil {
		return nil, err
	}
	f := &Filtered{Report: rep, Counts: map[string]int64{}, run: r}
	abort := func(err error) (*Filtered, error) {
		f.Close()
		return nil, err
	}
	b := newBackend(r, a, nil)
	rel, err := e.load(ctx, b, rep, opts)
	if err != nil {
		return abort(err)
	}
	ev, err := e.evaluate(ctx, b, rep, rel, opts, outcome.PolicyFilter)
	if err != nil {
		return abort(err)
	}
	total, stats, out := ev.total, ev.stats, ev.out
	if out == outcome.TableCheckFailed {
		// The batch as a whole is wrong: no row of it is handed on.
		failed := tableCheckError(p, ev.tables)
		failed.InPlace = true // Filter writes no table
		return abort(failed)
	}
	rep.Rows = outcome.Rows{Input: total, Invalid: stats.invalid, Valid: total - stats.invalid}
	rep.Outcome = &out
	for i, rule := range p.Rules {
		if stats.failed[i] > 0 {
			f.Counts[rule.Name] = stats.failed[i]
		}
	}
	validSQL, invalidSQL := ev.res.ValidRows, ev.res.InvalidRows
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
