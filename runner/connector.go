package runner

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
)

// Connector is an engine the runs of an Engine go to: DuckDB (engines/duckdb) or Spark
// (engines/spark). A run on either is the same run — the same checks, report, samples, outcomes
// and writes — over a session of the engine (Backend).
type Connector interface {
	// Prepare readies the asset for the engine before anything is read: it may render the plan
	// in the engine's dialect, make the output's address the one the engine writes, complete what
	// a killed run left at the output, and refuse, naming it, what of the asset and the options
	// the engine cannot run. warnings are what it did that the run's report warns of (what a
	// killed run left, rolled back).
	Prepare(ctx context.Context, a Asset, opts Options) (prepared Asset, warnings []string, err error)
	// Connect opens the engine's session for a run of the asset (as Prepare returned it). id
	// numbers the run among the Engine's (an engine that numbers its runs itself, across
	// Engines, uses its own number: the Backend's ID is the one its statements carry).
	Connect(ctx context.Context, a Asset, id int64) (Backend, error)
	// Note is explain's first line: what a run executes besides the program and the statements
	// that open the input (the session's settings, what closing drops).
	Note() string
}

// Recoverer is a Connector that checks the output and completes what a killed run left there
// once the asset's own checks passed, before the run reads anything (explain does not).
// rolledBack, when not nil, is a write it rolled back, which the report warns of.
type Recoverer interface {
	Recover(ctx context.Context, a Asset, quarantineName string) (rolledBack, err error)
}

// Versioned is a Connector whose engine's version a report names (DuckDB's).
type Versioned interface {
	DuckDBVersion() string
}

// MismatchError is an input error that is a column-type mismatch the engine found while opening
// the input (a type it cannot read exactly): the run ends with the column_schema_mismatch
// outcome, its columns check listing the mismatches.
type MismatchError interface {
	error
	ColumnMismatches() []casting.Mismatch
}

// Engine runs assets on one engine (its Connector). It is safe for concurrent runs of different
// assets.
type Engine struct {
	c      Connector
	nextID atomic.Int64
}

// NewOn returns an engine whose runs go to c. What c's engine cannot run is refused before
// anything is read.
func NewOn(c Connector) *Engine { return &Engine{c: c} }

// Run validates the asset and applies the failure policy. The report is always returned (with
// the outcome when the run got that far); the error is typed for the failing outcomes
// (*outcome.ColumnSchemaError, *outcome.TableCheckError, *outcome.ValidationAbortError,
// *outcome.NoValidRowsError, *outcome.CastError) or is an input/output problem.
func (e *Engine) Run(ctx context.Context, a Asset, opts Options) (*outcome.Report, error) {
	if opts.Timeout <= 0 {
		return e.run(ctx, a, opts)
	}
	timeout := &outcome.TimeoutError{Limit: opts.Timeout}
	ctx, cancel := context.WithTimeoutCause(ctx, opts.Timeout, timeout)
	defer cancel()
	rep, err := e.run(ctx, a, opts)
	if err != nil && errors.Is(context.Cause(ctx), timeout) {
		// Whatever the interrupted statement said, the run ended because its time was up.
		err = Fail(rep, timeout)
	}
	return rep, err
}

func (e *Engine) run(ctx context.Context, a Asset, opts Options) (*outcome.Report, error) {
	rep, done := opts.Begin(a)
	defer done()
	if v, ok := e.c.(Versioned); ok {
		rep.DuckDBVersion = v.DuckDBVersion()
	}
	if err := opts.Validate(); err != nil {
		return rep, Fail(rep, err)
	}
	a, warnings, err := e.c.Prepare(ctx, a, opts)
	for _, w := range warnings {
		warn(rep, opts, w)
	}
	if err != nil {
		return rep, Fail(rep, err)
	}
	if err := Precheck(ctx, e.c, a, opts, rep); err != nil {
		return rep, err
	}
	if a.Input == nil {
		return Skipped(rep, a, opts), nil
	}
	opts.Phase("reading input", 0)
	b, err := e.c.Connect(ctx, a, e.nextID.Add(1))
	if err != nil {
		return rep, Fail(rep, err)
	}
	s := &session{Backend: b}
	defer s.close()
	rel, err := Load(ctx, b, a, rep, opts)
	if errors.Is(err, ErrNoSourceData) && opts.SkipMissing {
		return Skipped(rep, a, opts), nil
	}
	if err != nil {
		return rep, err
	}
	ing, err := BeginEvaluation(ctx, b, a, rep, rel, opts, PolicyOf(a))
	if err != nil {
		return rep, Conclude(rep, a, opts, nil, err)
	}
	s.prog = ing.Prepared.Program
	res, err := Execute(ctx, b, ing.Job, ing.Prepared)
	ev, err := ing.Settle(ctx, res, err)
	return rep, Conclude(rep, a, opts, ev, err)
}

// Precheck checks what a run of a can check before it reads anything (its options, report
// files, names) and, on a Recoverer, checks the output and recovers it from an interrupted
// write; a failure is recorded in rep.
func Precheck(ctx context.Context, c Connector, a Asset, opts Options, rep *outcome.Report) error {
	if err := checkAsset(a, opts, rep); err != nil {
		return err
	}
	if r, ok := c.(Recoverer); ok && a.Output != nil {
		rolledBack, err := r.Recover(ctx, a, QuarantineNameOf(a, rep.Asset))
		if err != nil {
			return Fail(rep, err)
		}
		if rolledBack != nil {
			warn(rep, opts, rolledBack.Error())
		}
	}
	return nil
}

// session is a Backend as a run holds it: its program's cleanup runs before it closes.
type session struct {
	Backend
	prog *compile.Program
}

// close runs the program's cleanup and ends the session.
func (s *session) close() {
	if s.prog != nil {
		Cleanup(s.Backend, s.prog)
	}
	_ = s.Close()
}

// Explain returns the program a run of the plan over the input executes when it validates in
// place with default options (ExplainAsset).
func (e *Engine) Explain(ctx context.Context, p *compile.Plan, in Input) (string, error) {
	return e.ExplainAsset(ctx, Asset{Plan: p, Input: in}, Options{})
}

// ExplainAsset returns the program a run of the asset with opts executes, the same statements
// in the same order (compile.Program.String): it opens the input, checks its column types (a
// mismatch is a *outcome.ColumnSchemaError) and counts its rows, which the program depends on,
// and evaluates nothing. The writes are in it too: the COPY to the temporary file that is then
// renamed into place, or the table output's transaction.
func (e *Engine) ExplainAsset(ctx context.Context, a Asset, opts Options) (string, error) {
	return e.ExplainPolicy(ctx, a, opts, PolicyOf(a))
}

// ExplainPolicy is the program of a run of the asset with the policy (Filter's is
// outcome.PolicyFilter).
func (e *Engine) ExplainPolicy(ctx context.Context, a Asset, opts Options, policy outcome.Policy) (string, error) {
	if a.Input == nil {
		return "", fmt.Errorf("explain needs an input: %w", ErrNoSourceData)
	}
	if err := opts.Validate(); err != nil {
		return "", err
	}
	a, warnings, err := e.c.Prepare(ctx, a, opts)
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
	b, err := e.c.Connect(ctx, a, e.nextID.Add(1))
	if err != nil {
		return "", err
	}
	s := &session{Backend: b}
	defer s.close()
	p, err := ExplainOpened(ctx, b, a, opts, policy)
	if err != nil {
		return "", err
	}
	s.prog = p.Program
	return e.c.Note() + p.String(), nil
}

// ExplainOpened opens the input on b, checks it and prepares the program a run of a with the
// policy executes, with the statements that opened the input (Prepared.Open).
func ExplainOpened(ctx context.Context, b Backend, a Asset, opts Options, policy outcome.Policy) (*Prepared, error) {
	rel, err := Load(ctx, b, a, &outcome.Report{}, opts)
	if err != nil {
		return nil, err
	}
	p, err := PrepareJob(ctx, b, a, JobOf(b, a, opts, policy), rel)
	if err != nil {
		return nil, err
	}
	if o, ok := b.(Opener); ok {
		p.Open = o.Opening().Steps
	}
	return p, nil
}

// Load opens the input on b and checks its column types against the schema (and, on a
// Referencer, the foreign keys' other data), casting when asked. A mismatch is reported (rep
// gets the column_schema_mismatch outcome) and returned as the error; an input that matches no
// data with opts.SkipMissing returns an error wrapping ErrNoSourceData, unrecorded.
func Load(ctx context.Context, b Backend, a Asset, rep *outcome.Report, opts Options) (compile.Relation, error) {
	p := a.Plan
	inputError := func(err error) error {
		var mm MismatchError
		if errors.As(err, &mm) {
			out := outcome.ColumnSchemaMismatch
			rep.Outcome = &out
			rep.Checks = []outcome.Check{columnsCheck(p, mm.ColumnMismatches())}
			return Fail(rep, err)
		}
		return Fail(rep, &outcome.InputError{Input: a.Input.String(), Err: err})
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
	// A multi-file scan (one file has nothing to compare): DuckDB casts every file to one file's
	// types without a word.
	var files []casting.Mismatch
	if f, ok := b.(FileChecker); ok {
		files = f.FileMismatches()
	}
	parse := casting.ParseType
	if t, ok := b.(TypeParser); ok {
		parse = t.ParseType
	}
	mismatches := casting.CheckColumnsWith(p.Schema().Columns, actual, parse)
	if len(mismatches) > 0 && opts.Cast && len(files) == 0 {
		found := mismatches
		if mismatches, err = applyCasts(ctx, b, p, &rel, mismatches); err != nil {
			return rel, Fail(rep, err)
		}
		rep.CastColumns = castColumns(rel.Casts, found)
	}
	mismatches = append(mismatches, files...)
	if len(mismatches) > 0 {
		return rel, columnMismatch(rep, p, mismatches, p.Name, ProducerOf(a.Input), actual)
	}
	if an, ok := b.(Analyzer); ok {
		if err := an.Analyze(ctx, rel); err != nil {
			if refs := (*outcome.ColumnSchemaError)(nil); errors.As(err, &refs) && len(refs.References) > 0 {
				return rel, referenceMismatch(rep, p, refs)
			}
			return rel, Fail(rep, err)
		}
	}
	if r, ok := b.(Referencer); ok {
		return rel, checkReferences(ctx, r, rep, p)
	}
	return rel, nil
}
