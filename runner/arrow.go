//go:build duckdb_arrow

package runner

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
)

// ArrowInput validates Arrow record batches, e.g. a warehouse extract arriving in Go. The
// reader is consumed once. Available with the build tag duckdb_arrow.
type ArrowInput struct {
	Reader array.RecordReader
	// Name names the input in messages ("arrow" when empty).
	Name string
}

func (ArrowInput) isInput() {}

func (in ArrowInput) String() string {
	if in.Name != "" {
		return in.Name
	}
	return "arrow"
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
	// Release, when set, gives back what the run holds once the readers are released.
	Release func()
}

// Close releases the readers and the run's temporary state.
func (f *Filtered) Close() {
	if f.Valid != nil {
		f.Valid.Release()
	}
	if f.Invalid != nil {
		f.Invalid.Release()
	}
	if f.Release != nil {
		f.Release()
	}
}

// Filterer is a Connector whose engine hands a run's rows to the caller as Arrow (Filter).
type Filterer interface {
	Filter(ctx context.Context, p *compile.Plan, in Input, opts Options) (*Filtered, error)
}

// Filter validates the input without writing anything and returns the valid rows and the
// failure info, for callers who drop invalid rows themselves. A column-schema mismatch is still
// an error (*outcome.ColumnSchemaError), and so is a failing error table check
// (*outcome.TableCheckError); failing rows are not. Available with the build tag duckdb_arrow.
func (e *Engine) Filter(ctx context.Context, p *compile.Plan, in Input, opts Options) (*Filtered, error) {
	f, ok := e.c.(Filterer)
	if !ok {
		return nil, errors.New("Filter hands the rows to the caller as Arrow, from DuckDB: it runs on an engine of Open or New, not NewOn; on another engine, validate to an output")
	}
	return f.Filter(ctx, p, in, opts)
}
