package duckdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// Connector is an engine other than DuckDB that runs an Engine's assets (NewOn): the Spark engine
// of engines/spark, a module of its own. A run on it is the run on DuckDB — the same report,
// checks at every granularity, samples, outcomes, writes through the engine-neutral run (package
// runner), and with the facade the same publishing — over the connector's session as the
// backend.
type Connector interface {
	// Prepare readies the asset for the engine before anything is read: it renders the plan in
	// the engine's dialect, makes the output's address the one the engine writes, completes what
	// a killed run left at the output, and refuses, naming it, what of the asset and the options
	// the engine cannot run. warnings are what it did that the run's report warns of (what a
	// killed run left, rolled back).
	Prepare(ctx context.Context, a Asset, opts Options) (prepared Asset, warnings []string, err error)
	// Connect opens the engine's session for a run of the asset (as Prepare returned it); id
	// names the run's statements and temporaries.
	Connect(ctx context.Context, a Asset, id int64) (Backend, error)
	// Note is explain's first line: what a run executes besides the program and the statements
	// that open the input (the session's settings, what closing drops).
	Note() string
}

// Backend is a Connector's session for one run: the engine-neutral run's backend, and what the
// run asks of it besides the program.
type Backend interface {
	runner.Backend
	// ParseType reads a column type that Describe returned, for the column check.
	ParseType(typ string) (*casting.DuckType, error)
	// Analyze checks the plan's SQL with the engine once the column types matched, before any
	// row is read (custom rules the engine's analyzer refuses), and the references' key types (a
	// *outcome.ColumnSchemaError with References for those that differ).
	Analyze(ctx context.Context, rel compile.Relation) error
	// Target is where the program writes the output: the temporaries its Writer puts in place.
	Target() compile.Output
	// Opened are the statements Open, Describe and Analyze ran, as steps (explain lists them).
	Opened() []compile.Step
}

// MismatchError is an input error that is a column-type mismatch the engine found while opening
// the input (a type it cannot read exactly): the run ends with the column_schema_mismatch
// outcome, its columns check listing the mismatches.
type MismatchError interface {
	error
	ColumnMismatches() []casting.Mismatch
}

// NewOn returns an engine whose runs go to another engine through c (no DuckDB database is
// opened). What the other engine cannot run is refused before anything is read.
func NewOn(c Connector) *Engine { return &Engine{other: c} }

// foreign is a Connector's Backend as the run drives it.
type foreign struct {
	Backend
	a    Asset
	runs int64
	prog *compile.Program
}

func (f *foreign) asset() Asset                                                 { return f.a }
func (f *foreign) id() int64                                                    { return f.runs }
func (f *foreign) target() compile.Output                                       { return f.Target() }
func (f *foreign) blame(_ context.Context, _ compile.Relation, err error) error { return err }
func (f *foreign) prepared(p *runner.Prepared)                                  { f.prog = p.Program }
func (f *foreign) blameTable(_ context.Context, _ compile.Relation, _ *runner.Result, err error) error {
	return tableCheckRuntimeError(f.a.Plan, -1, err)
}

// close runs the program's cleanup and ends the session.
func (f *foreign) close() {
	if f.prog != nil {
		runner.Cleanup(f, f.prog)
	}
	_ = f.Close()
}

// connect opens the other engine's session for the asset.
func (e *Engine) connect(ctx context.Context, a Asset) (*foreign, error) {
	id := e.nextID.Add(1)
	b, err := e.other.Connect(ctx, a, id)
	if err != nil {
		return nil, err
	}
	return &foreign{Backend: b, a: a, runs: id}, nil
}

// loadOn opens the input on the other engine and checks its column types against the schema. A
// mismatch is reported (rep gets the column_schema_mismatch outcome) and returned as the error.
func loadOn(ctx context.Context, b *foreign, rep *outcome.Report, opts Options) (compile.Relation, error) {
	a := b.a
	p := a.Plan
	inputError := func(err error) error {
		var mm MismatchError
		if errors.As(err, &mm) {
			out := outcome.ColumnSchemaMismatch
			rep.Outcome = &out
			rep.Checks = []outcome.Check{columnsCheck(p, mm.ColumnMismatches())}
			return fail(rep, err)
		}
		return fail(rep, inputOrRun(a.Input, err))
	}
	rel, err := b.Open(ctx)
	if err != nil {
		if errors.Is(err, ErrNoSourceData) && opts.SkipMissing {
			return rel, err
		}
		return rel, inputError(err)
	}
	actual, err := b.Describe(ctx, rel)
	if err != nil {
		return rel, inputError(err)
	}
	rep.DroppedColumns = undeclared(p.Schema().Columns, actual)
	if mm := casting.CheckColumnsWith(p.Schema().Columns, actual, b.ParseType); len(mm) > 0 {
		return rel, columnMismatch(rep, p, mm, p.Name, producerOf(a.Input), actual)
	}
	if err := b.Analyze(ctx, rel); err != nil {
		if refs := (*outcome.ColumnSchemaError)(nil); errors.As(err, &refs) && len(refs.References) > 0 {
			return rel, referenceMismatch(rep, p, refs)
		}
		return rel, fail(rep, err)
	}
	return rel, nil
}

// explainOn is explain on the other engine: the statements that opened the input, the probes and
// the program.
func (e *Engine) explainOn(ctx context.Context, a Asset, opts Options, policy outcome.Policy) (string, error) {
	a, warnings, err := e.other.Prepare(ctx, a, opts)
	for _, w := range warnings { // no report: only the writer hears of them
		if opts.Warnings != nil {
			fmt.Fprintln(opts.Warnings, "warning: "+w)
		}
	}
	if err != nil {
		return "", err
	}
	if a.Input == nil {
		return "", fmt.Errorf("explain needs an input: %w", ErrNoSourceData)
	}
	b, err := e.connect(ctx, a)
	if err != nil {
		return "", err
	}
	defer b.close()
	rel, err := loadOn(ctx, b, &outcome.Report{}, opts)
	if err != nil {
		return "", err
	}
	p, err := prepare(ctx, b, runAsset(b.id(), a, opts, policy, checkGroups(a.Plan, opts), b.target()), rel)
	if err != nil {
		return "", err
	}
	p.Open = b.Opened()
	return e.other.Note() + p.String(), nil
}

// runOn is a run on the other engine: the same checks, evaluation and conclusion as on DuckDB,
// after Prepare readied the asset for the engine.
func (e *Engine) runOn(ctx context.Context, a Asset, opts Options, rep *outcome.Report) (*outcome.Report, error) {
	rep.DuckDBVersion = "" // not DuckDB's run
	if err := opts.validate(); err != nil {
		return rep, fail(rep, err)
	}
	a, warnings, err := e.other.Prepare(ctx, a, opts)
	for _, w := range warnings {
		warn(rep, opts, w)
	}
	if err != nil {
		return rep, fail(rep, err)
	}
	if err := checkAsset(a, opts, rep); err != nil {
		return rep, err
	}
	if a.Input == nil {
		return e.skipped(rep, a, opts), nil
	}
	opts.progress("reading input", 0)
	b, err := e.connect(ctx, a)
	if err != nil {
		return rep, fail(rep, err)
	}
	defer b.close()
	rel, err := loadOn(ctx, b, rep, opts)
	return e.evaluateOpened(ctx, b, a, opts, rep, rel, err)
}
