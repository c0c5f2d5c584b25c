//go:build duckdb_arrow

package exec

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/sql"
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

func (in ArrowInput) open(ctx context.Context, r *run, _ map[string]bool) (compile.Relation, error) {
	if in.Reader == nil {
		return compile.Relation{}, fmt.Errorf("the Arrow reader is nil: %w", ErrNoSourceData)
	}
	view := r.tempName("arrow_view")
	err := r.conn.Raw(func(dc any) error {
		conn, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("not a DuckDB connection")
		}
		a, err := duckdb.NewArrowFromConn(conn)
		if err != nil {
			return err
		}
		release, err := a.RegisterView(in.Reader, view)
		if err != nil {
			return err
		}
		defer release()
		_, err = conn.(driver.ExecerContext).ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS SELECT * FROM %s",
			sql.Ident(view+"_t"), sql.Ident(view)), nil)
		return err
	})
	if err != nil {
		return compile.Relation{}, fmt.Errorf("read Arrow records: %w", err)
	}
	r.temps = append(r.temps, view+"_t")
	_ = r.exec(ctx, "DROP VIEW IF EXISTS "+sql.Ident(view))
	return compile.Relation{From: "temp.main." + sql.Ident(view+"_t"), RowID: "rowid"}, nil
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
// an error (*outcome.ColumnSchemaError); failing rows are not.
func (e *Engine) Filter(ctx context.Context, p *compile.Plan, in Input, opts Options) (*Filtered, error) {
	if in == nil {
		return nil, fmt.Errorf("filter needs an input: %w", ErrNoSourceData)
	}
	rep := &outcome.Report{Asset: p.Name, Schema: p.Name, Checks: []outcome.Check{}, InvalidByRules: []outcome.RuleSet{}}
	a := Asset{Plan: p, Input: in, Quarantine: true}
	r, err := e.newRun(ctx)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			r.close()
		}
	}()
	rel, _, stats, failed, err := e.prepare(ctx, r, rep, a, opts)
	if err != nil {
		return nil, err
	}
	f := &Filtered{Report: rep, Counts: map[string]int64{}, run: r}
	for i, rule := range p.Rules {
		if stats.failed[i] > 0 {
			f.Counts[rule.Name] = stats.failed[i]
		}
	}
	validSQL := validRowsSQL(p, rel, failed, stats.invalid > 0)
	invalidSQL := quarantineSQL(p, failed)
	if failed == "" {
		invalidSQL = fmt.Sprintf("SELECT %s FROM (%s) WHERE FALSE", columnList(p, ""), p.SourceSQL(rel))
	}
	err = r.conn.Raw(func(dc any) error {
		a, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		if err != nil {
			return err
		}
		if f.Valid, err = a.QueryContext(ctx, validSQL); err != nil {
			return err
		}
		f.Invalid, err = a.QueryContext(ctx, invalidSQL)
		return err
	})
	if err != nil {
		f.Close()
		ok = true
		return nil, fmt.Errorf("read the filtered rows: %w", err)
	}
	ok = true
	return f, nil
}

// prepare is Run up to the evaluation, shared with Filter: open the input, check the column
// types (casting when asked), count the rows and evaluate the rules once.
func (e *Engine) prepare(ctx context.Context, r *run, rep *outcome.Report, a Asset, opts Options) (compile.Relation, int64, ruleStats, string, error) {
	rel, err := a.Input.open(ctx, r, nil)
	if err != nil {
		return rel, 0, ruleStats{}, "", &outcome.InputError{Input: a.Input.String(), Err: err}
	}
	total, stats, failed, err := e.evaluateInput(ctx, r, rep, a, opts, &rel)
	return rel, total, stats, failed, err
}

var _ = errors.New
var _ = strings.Join
