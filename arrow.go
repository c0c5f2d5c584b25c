//go:build duckdb_arrow

package tablegate

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablegate/tablegate/runner"
)

// FromArrow validates Arrow record batches, consumed once; name names the input in messages.
// Available with the build tag duckdb_arrow.
func FromArrow(reader array.RecordReader, name string) Input {
	return runner.ArrowInput{Reader: reader, Name: name}
}

// Filtered is the result of Filter: the valid rows and the invalid rows (with one valid/invalid
// column per rule) as Arrow readers, valid until Close.
type Filtered struct {
	*Result
	// Valid reads the rows that passed every error rule, in input order.
	Valid array.RecordReader
	// Invalid reads the rows that failed one, with a column per rule that says whether the row
	// is valid or invalid by it, as the quarantine has.
	Invalid array.RecordReader
	f       *runner.Filtered
}

// Close releases the readers and the run's temporary state.
func (f *Filtered) Close() { f.f.Close() }

// FilterOptions say how Filter reports. Filter writes nothing, so they have none of Options'
// outputs (quarantine, asset names, HTML page, run history).
type FilterOptions struct {
	// MaxFailureSamples caps the failing rows each check shows: 0 means 5, negative means none.
	MaxFailureSamples int
	// RowSample adds the first N valid and invalid rows to the result (0: none).
	RowSample int
	// Cast casts mismatched columns to their declared dtypes, strictly.
	Cast bool
	// Granularity of the rule checks ("" is PerRule).
	Granularity Granularity
	// SchemaRulesPerRule gives schema-level rules their own checks at column granularity.
	SchemaRulesPerRule bool
	// Progress, when set, is told which phase the run is in.
	Progress func(Progress)
}

// Filter validates the input and writes nothing: it returns the valid and the invalid rows, for
// callers who handle invalid rows themselves. A column-schema mismatch is still an error
// (*ColumnSchemaError), and so is a failing error table check (*TableCheckError); failing rows
// are not, and the outcome is all_valid or quarantined. Available with the build tag
// duckdb_arrow.
func (e *Engine) Filter(ctx context.Context, p *Plan, in Input, opts FilterOptions) (*Filtered, error) {
	f, err := e.e.Filter(ctx, p, in, runner.Options{MaxFailureSamples: opts.MaxFailureSamples, RowSample: opts.RowSample, Cast: opts.Cast,
		Granularity: opts.Granularity, SchemaRulesPerRule: opts.SchemaRulesPerRule, Progress: opts.Progress})
	if err != nil {
		return nil, err
	}
	return &Filtered{Result: newResult(f.Report), Valid: f.Valid, Invalid: f.Invalid, f: f}, nil
}
