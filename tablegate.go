package tablegate

import (
	"context"
	gosql "database/sql"
	"errors"
	"io"
	"time"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/history"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/schema"
)

// Schema is a named list of columns with schema-level rules and severities.
type Schema = schema.Schema

// Column is a schema column; its methods (PrimaryKey, Min, Regex, Check, SeverityOf, …) declare
// its rules and return the column, so that declarations chain.
type Column = schema.Column

// Severity is a declared rule severity: Error (a failing row is invalid) or Warn (the row stays
// valid and the check fails at WARN).
type Severity = schema.Severity

// The two declared severities.
const (
	Error = schema.Error
	Warn  = schema.Warn
)

// Tolerance is how many failing rows a rule tolerates, per severity (Column.ToleranceOf,
// Schema.ToleranceOf): up to Warn its check passes; up to Error an error rule fails at WARN and
// does not fail the run. Each limit is RowLimit(n) or ShareLimit(s).
type Tolerance = schema.Tolerance

// Limit is a tolerance's limit: a number of failing rows (RowLimit) or a share of the input (ShareLimit).
type Limit = schema.Limit

// RowLimit is a tolerance limit of n failing rows.
func RowLimit(n int64) *Limit { return schema.Rows(n) }

// ShareLimit is a tolerance limit of a share of the input's rows, from 0 to 1 (0.01 is 1%).
func ShareLimit(s float64) *Limit { return schema.Share(s) }

// TimeUnit is the precision of a Datetime.
type TimeUnit = schema.TimeUnit

// Time units.
const (
	Micros = schema.Micros
	Millis = schema.Millis
	Nanos  = schema.Nanos
)

// Plan is a compiled schema. It is immutable and safe to share between goroutines and runs.
type Plan = compile.Plan

// LoadSchema reads a schema file (YAML, or JSON by the .json extension), follows `extends`, and
// validates it: the error lists every declaration problem (*SchemaErrors) with file and line.
func LoadSchema(path string) (*Schema, error) { return schema.LoadFile(path) }

// ParseSchema reads a schema from YAML or JSON text; file names the source in messages and is
// where `extends` is resolved from.
func ParseSchema(data []byte, file string) (*Schema, error) { return schema.Parse(data, file) }

// NewSchema declares a schema with columns in order.
func NewSchema(name string, columns ...*Column) *Schema { return schema.New(name, columns...) }

// ExtendSchema declares a child schema: the parent's columns, rules and severities, then these
// columns (a column with a parent's name replaces it and moves to the end).
func ExtendSchema(parent *Schema, name string, columns ...*Column) *Schema {
	return schema.Extends(parent, name, columns...)
}

// Compile validates the schema and compiles it into a plan. The error lists every declaration
// problem at once (*SchemaErrors), custom SQL that is not exactly one boolean expression
// included.
func Compile(ctx context.Context, s *Schema) (*Plan, error) { return compile.CompileContext(ctx, s) }

// Config configures an engine's DuckDB: Path (a database file; "" is in memory), MemoryLimit,
// TempDirectory, Threads, StorageVersion.
type Config = duckdb.Config

// Engine validates assets on one DuckDB database. It is safe for concurrent runs of different
// assets.
type Engine struct {
	e *duckdb.Engine
}

// Open opens an engine on its own DuckDB database: in memory, or the file cfg.Path. Close it
// when done.
func Open(cfg Config) (*Engine, error) {
	e, err := duckdb.Open(cfg)
	if err != nil {
		return nil, err
	}
	return &Engine{e: e}, nil
}

// New wraps a DuckDB *sql.DB the caller owns (opened with the duckdb driver); Close leaves it
// open.
func New(db *gosql.DB) *Engine { return &Engine{e: duckdb.New(db)} }

// Connector is another engine than DuckDB that runs an Engine's assets (NewOn): the Spark engine
// of engines/spark (spark.New(remote)), a module of its own so that its client stays out of this
// build.
type Connector = duckdb.Connector

// NewOn returns an engine whose runs go to another engine through c instead of DuckDB: Validate
// and Explain work as on DuckDB, with the same report, checks, samples, outcomes and publishing
// (HTML, history); what c's engine cannot run is refused before anything is read. It opens no
// DuckDB database: DB is nil, and Filter refuses.
func NewOn(c Connector) *Engine { return &Engine{e: duckdb.NewOn(c)} }

// Close closes the engine and, when Open opened it, its database and spill folder.
func (e *Engine) Close() error { return e.e.Close() }

// DB is the engine's database, for preparing inputs in it.
func (e *Engine) DB() *gosql.DB { return e.e.DB() }

// Granularity is how rule checks are reported: one per rule, per column or for the schema.
type Granularity = duckdb.Granularity

// Check granularities.
const (
	PerRule   = duckdb.PerRule
	PerColumn = duckdb.PerColumn
	PerSchema = duckdb.PerSchema
)

// Progress reports a run's phase.
type Progress = duckdb.Progress

// Options say what a run writes and how it reports. The zero value validates with the defaults
// and no quarantine.
type Options struct {
	// Quarantine declares a quarantine: the invalid rows go there, beside the output, and the
	// valid rows are written. Without it one invalid row aborts the run and nothing is written.
	Quarantine bool
	// Name names the asset; "" takes the output's base name, or the schema's name when
	// validating in place.
	Name string
	// QuarantineName names the quarantine beside the output; "" is <name>_quarantine
	// (orders__error_rows is dagster-dataframely's name).
	QuarantineName string
	// MaxFailureSamples caps the failing rows each check shows: 0 means 5, negative means none.
	MaxFailureSamples int
	// RowSample adds the first N valid and invalid rows to the result (0: none).
	RowSample int
	// Cast casts mismatched columns to their declared dtypes, strictly: a value that does not
	// convert fails the run with *CastError.
	Cast bool
	// SkipMissing turns an input that matches no data into the skipped outcome.
	SkipMissing bool
	// Granularity of the rule checks ("" is PerRule).
	Granularity Granularity
	// SchemaRulesPerRule gives schema-level rules their own checks at column granularity.
	SchemaRulesPerRule bool
	// Progress, when set, is told which phase a run is in (in a collection's run, which member's:
	// Progress.Member).
	Progress func(Progress)
	// HTML, when set, is the file the run's report is written to as one self-contained HTML page.
	HTML string
	// History, when set, is the DuckDB file the run is appended to (tables tablegate_runs and
	// tablegate_check_results); a history that cannot be written is a warning in the result.
	History string
	// ReportFiles, when set, are every file the caller writes the run's report to (HTML and
	// History among them, and a JSON report of its own), each named as its user knows it
	// ("--html"); nil is HTML and History, named Options.HTML and Options.History. A run refuses
	// them before it reads anything (*ReportFileError, nothing written) when one is the same file
	// as its input, a database, the table, the quarantine or another of them, or a named pipe or a
	// device.
	ReportFiles []ReportFile
	// Facts say how the run was asked for, as its HTML page and the history show it (a command
	// line's input and flags); nil shows the input's address and the options set here.
	Facts *RunFacts
	// Warnings, when set, is written each warning of the run as it is added to the result, one
	// line each, starting "warning: ".
	Warnings io.Writer
	// AnnotateError, when set, rewrites a failing run's error (with the caller's own advice, say)
	// before the result, the page and the history record its message.
	AnnotateError func(error) error
	// Timeout, when positive, bounds the whole run: past it the running statement is interrupted
	// and Validate returns *TimeoutError.
	Timeout time.Duration
}

// RunFacts are how a run was asked for: its input and settings as the caller names them.
type RunFacts = report.Facts

// Setting names for Options.ApplySetting, as the TABLEGATE_* environment variables spell them
// in lower case.
const (
	SettingCheckGranularity  = duckdb.SettingCheckGranularity
	SettingSchemaRules       = duckdb.SettingSchemaRules
	SettingMaxFailureSamples = duckdb.SettingMaxFailureSamples
	SettingRowSample         = duckdb.SettingRowSample
)

// ApplySetting sets one setting from its text (Setting*), validating it; source names where the
// text came from in the *SettingError ("flag --samples", "environment variable …").
func (o *Options) ApplySetting(setting, value, source string) error {
	eo := o.exec()
	if err := eo.ApplySetting(setting, value, source); err != nil {
		return err
	}
	o.Granularity, o.SchemaRulesPerRule, o.MaxFailureSamples, o.RowSample = eo.Granularity, eo.SchemaRulesPerRule, eo.MaxFailureSamples, eo.RowSample
	return nil
}

func (o Options) reportFiles() []ReportFile {
	if o.ReportFiles != nil {
		return o.ReportFiles
	}
	return []ReportFile{{Role: "Options.HTML", Path: o.HTML}, {Role: "Options.History", Path: o.History}}
}

func (o Options) exec() duckdb.Options {
	var baselines func(context.Context, string, map[string]int) (map[string][]float64, error)
	if o.History != "" {
		baselines = history.BaselinesOf(o.History)
	}
	return duckdb.Options{
		Baselines:          baselines,
		MaxFailureSamples:  o.MaxFailureSamples,
		RowSample:          o.RowSample,
		Cast:               o.Cast,
		SkipMissing:        o.SkipMissing,
		Granularity:        o.Granularity,
		SchemaRulesPerRule: o.SchemaRulesPerRule,
		Progress:           o.Progress,
		ReportFiles:        o.reportFiles(),
		Warnings:           o.Warnings,
		Timeout:            o.Timeout,
	}
}

func (o Options) asset(p *Plan, in Input, out Output) duckdb.Asset {
	return duckdb.Asset{Name: o.Name, QuarantineName: o.QuarantineName, Plan: p, Input: in, Output: out, Quarantine: o.Quarantine}
}

// Validate validates the input against the plan and applies the failure policy: the valid rows
// go to out, the invalid ones to its quarantine when opts.Quarantine is set. A nil input is no
// source data (the skipped outcome); a nil output validates in place and writes nothing.
//
// The result is always returned, with its outcome when the run got that far. The error is typed
// for the failing outcomes (*ColumnSchemaError, *ValidationAbortError, *NoValidRowsError,
// *TableCheckError, *CastError), for a run stopped by opts.Timeout (*TimeoutError) and for
// problems with the input (*InputError), the output (*OutputError) or a setting (*SettingError);
// a failing run leaves the previous table as it was.
//
// With opts.HTML or opts.History the settled run is then published: a history that cannot be
// written is a warning, a page that cannot be written a *PageError joined to the run's error.
func (e *Engine) Validate(ctx context.Context, p *Plan, in Input, out Output, opts Options) (*Result, error) {
	rep, err := e.e.Run(ctx, opts.asset(p, in, out), opts.exec())
	report.MarkContract(rep, p)
	err = opts.annotate(rep, err)
	if perr := opts.publish(ctx, p, in, rep, err); perr != nil {
		err = errors.Join(err, perr)
	}
	return newResult(rep), err
}

// Explain prints every statement a run of the input to out would execute, each after a comment
// with its purpose, once the input's column types are checked; no rule is evaluated and nothing
// is written. A nil out explains validating in place.
func (e *Engine) Explain(ctx context.Context, p *Plan, in Input, out Output, opts Options) (string, error) {
	return e.e.ExplainAsset(ctx, opts.asset(p, in, out), opts.exec())
}

// CheckSpec is a check a run would report, known before any data is read: its name, whether it
// blocks, its description and its rules.
type CheckSpec = outcome.CheckSpec

// Checks lists the checks a run of the plan with these options would report (opts.Quarantine
// and the granularity decide them), without reading data: what an orchestrator declares up
// front.
func Checks(p *Plan, opts Options) []CheckSpec {
	return duckdb.CheckSpecs(p, opts.Quarantine, opts.exec())
}

// Fingerprint is a short hash of what the plan checks: its columns and dtypes, and each rule's
// name, severity and SQL. It changes when the schema's contract does (an orchestrator's code
// version), not when a description does.
func Fingerprint(p *Plan) string { return report.Fingerprint(p) }
