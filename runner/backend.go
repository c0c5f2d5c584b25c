// Package runner is the engine-neutral run: everything a run does that is no engine's own. Its
// vocabulary is the Asset (plan, input, output, quarantine), the Options, and the input and
// output addresses (Parquet, CSV and NDJSON files, DuckDB tables and queries, Arrow, catalog
// tables, at local, s3a:// or hdfs:// addresses). An Engine runs an asset on one engine, its
// Connector: it checks the asset's options, names and report files, opens the input through the
// engine's session (Backend), checks the column types, builds the program (compile) from the
// input's facts, interprets its steps (compile.Op, compile.Cond: this package is their one
// interpreter, and that of the statements that open an input, OpenSource), decides the outcome,
// hands the write steps to the backend's Writer, judges the table checks, and builds the report
// with its checks. Engines register like database/sql drivers: engines/duckdb registers the
// local engine (Open finds it) and package history the run history; engines/spark is a
// Connector given to NewOn. A Backend runs statements and reads rows and holds no SQL of the
// run's own; what only some engines do are optional capabilities (Writing, Tuner, Opener,
// TypeParser, Analyzer, FileChecker, Referencer, Blamer), asked for with a type assertion.
package runner

import (
	"context"
	"fmt"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
)

// Backend is one run's session on an engine. The run calls its methods from one goroutine, in
// order; every method honours ctx, and a cancelled ctx interrupts the statement that runs (the
// backend's Cancel, as database/sql drivers do it).
type Backend interface {
	// Open makes the input readable and returns the relation the program reads: its From and
	// RowID, and what the backend knows of the source without reading it (ScanFilters,
	// DenseRowIDs, NoStatistics, Parquet: the path the footer probes read). Statements that read
	// the input's footers or count it are not Open's: they are the probes (compile.Probes) the
	// run executes after it. An input that matches no data returns an error wrapping
	// ErrNoSourceData. A backend whose input compile opens (compile.Source) runs its statements
	// with OpenSource rather than its own.
	Open(ctx context.Context) (compile.Relation, error)
	// Describe reads the relation's columns and their types, in the backend's type syntax
	// (casting parses them), without reading rows.
	Describe(ctx context.Context, rel compile.Relation) ([]casting.ColumnType, error)
	// Exec runs one statement for its effect; args are bound to its parameters.
	Exec(ctx context.Context, stmt string, args ...any) error
	// Query runs one query and returns its rows; the run reads them into *int64, *string,
	// *bool, *float64 and *any, and database/sql's Null types (*database/sql.Rows is a Rows).
	Query(ctx context.Context, stmt string, args ...any) (Rows, error)
	// Refuse returns why the backend cannot run steps of op, or nil. The run asks it for every
	// step of the program before it executes any, and fails with the first refusal, whose
	// message says what the user can do instead (typically a *Refusal).
	Refuse(op compile.Op) error
	// ID is the run's number, which names its statements and temporaries.
	ID() int64
	// Close ends the session, also after a failed or cancelled run, and gives back what the
	// backend holds (connection, attached files, the input's temporaries); the caller runs the
	// program's cleanup steps (Cleanup) first. It is called once.
	Close() error
}

// Rows is the result of a query, read row by row.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// Writer writes a run's outputs. The run calls Begin once the outcome says the outputs are
// written, then Step for each write step of the program whose condition holds, in order
// (compile.Op.Writes), then Finish; when Begin or a Step fails it calls Abort instead of Finish.
type Writer interface {
	// Begin prepares the write: the output's folder and lock, what a failed write must give
	// back.
	Begin(ctx context.Context) error
	// Step runs one write step: WriteValid, WriteInvalid and Write run the statement (a COPY to
	// a temporary file the Writer then flushes, or a CREATE TABLE); AttachOutput attaches the
	// output's database; Commit ends the write. args are bound to the statement's parameters
	// (the row group size of a sized COPY). FindQuarantine steps are not the Writer's: the run
	// reads them with Backend.Query. Rollback steps are handed to Abort, not to Step.
	Step(ctx context.Context, s compile.Step, args ...any) error
	// Finish puts what the steps wrote in place (a Parquet output's files are renamed in; a
	// table's transaction was committed by its Commit step); conds are the program's conditions
	// as the run ended (whether the invalid rows were written, an older quarantine found).
	Finish(ctx context.Context, conds compile.Cond) (Written, error)
	// Abort undoes a write that failed or was cancelled: it runs the program's Rollback step
	// (rollback, "" none) if the write had begun, removes temporaries and gives back the space
	// the write took. It runs even when ctx is done.
	Abort(rollback string)
}

// Written is what a write put in place.
type Written struct {
	// Table and Quarantine tell that the valid and the invalid rows were written.
	Table, Quarantine bool
	// Kept, when not "", is where an older quarantine the run would have lost was kept; Was is
	// where it was.
	Kept, Was string
	// Warnings are what the write did that the run's report warns of (what a killed run left,
	// rolled back).
	Warnings []string
}

// The optional capabilities of a Backend: the run asks for each with a type assertion, as
// database/sql asks a driver's connection, and goes without when the backend has none.

// Writing is a Backend that writes the asset's outputs.
type Writing interface {
	// Target is where the program writes the output: the temporaries or the catalog the Writer
	// puts in place. It is named once, before the program is compiled.
	Target() compile.Output
	// Writer is what writes the asset's outputs (nil: the asset has none, or the backend hands
	// its rows to the caller).
	Writer() Writer
}

// Opener is a Backend whose opening of the input compile built (compile.Source, run with
// OpenSource): what it ran and read, which explain lists and the input's checks add to.
type Opener interface {
	Opening() *compile.Opening
}

// TypeParser is a Backend whose types are not DuckDB's: it reads a column type that Describe
// returned, for the column check (without it, casting parses DuckDB's).
type TypeParser interface {
	ParseType(typ string) (*casting.DuckType, error)
}

// Analyzer is a Backend that checks the plan's SQL once the column types matched, before any
// row is read (custom rules the engine's analyzer refuses).
type Analyzer interface {
	Analyze(ctx context.Context, rel compile.Relation) error
}

// FileChecker is a Backend that compares the files of a multi-file input with each other: the
// declared columns a file stores otherwise than the scan reads them.
type FileChecker interface {
	FileMismatches() []casting.Mismatch
}

// Referencer is a Backend that opens the other data of the plan's foreign-key rules
// (compile.Reference) and reads its columns, which the run checks before any row is read.
type Referencer interface {
	OpenReference(ctx context.Context, ref compile.Reference) ([]casting.ColumnType, error)
}

// Blamer is a Backend that finds which of the user's SQL raised a runtime error: BlameRule the
// custom rule (err unchanged when none alone does), BlameTable the table check (res: the rule
// counts it may read), as a *TableCheckRuntimeError.
type Blamer interface {
	BlameRule(ctx context.Context, rel compile.Relation, err error) error
	BlameTable(ctx context.Context, rel compile.Relation, res *Result, err error) error
}

// Tuner is a Backend that tunes the engine for the run: it fills the facts that steer the
// program's tuning steps, and runs those steps (compile.ReadThreads, RaiseThreads,
// RestoreThreads). A Backend that is not one leaves those facts zero, for which compile emits no
// tuning step.
type Tuner interface {
	// Fit fills the engine's facts (threads, perfect-hash threshold, memory budget) for a run
	// over f.Rows rows.
	Fit(f *compile.Facts)
	// Tune runs a tuning step; RestoreThreads gives back only what a RaiseThreads of the run
	// raised, once.
	Tune(ctx context.Context, s compile.Step) error
}

// Refusal is a step a backend cannot run.
type Refusal struct {
	Backend string     // DuckDB, Spark
	Op      compile.Op // what the step does
	// Instead says what the user can do instead, as a sentence ("" nothing).
	Instead string
}

func (e *Refusal) Error() string {
	msg := fmt.Sprintf("the %s engine cannot %s", e.Backend, e.Op)
	if e.Instead != "" {
		msg += ": " + e.Instead
	}
	return msg
}
