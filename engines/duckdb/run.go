package duckdb

import (
	"cmp"
	"context"
	gosql "database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/buildinfo"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// Asset is what a run validates and writes.
type Asset struct {
	// Name names the asset; "" takes the output's base name, or the schema's name when
	// validating in place.
	Name string
	// QuarantineName names the quarantine beside the table; "" is <asset>_quarantine.
	// orders__error_rows is dagster-dataframely's name.
	QuarantineName string
	Plan           *compile.Plan
	// Input is the rows to validate; nil means no source data (the skipped outcome).
	Input Input
	// Output is the table; nil validates in place and writes nothing.
	Output Output
	// Quarantine declares a quarantine: invalid rows go there and the valid rows are written.
	Quarantine bool
}

// Granularity is how rule checks are reported.
type Granularity string

// Check granularities.
const (
	PerRule   Granularity = "rule"
	PerColumn Granularity = "column"
	PerSchema Granularity = "schema"
)

// Options tune a run. The zero value is the default.
type Options struct {
	// MaxFailureSamples caps the failing rows each check shows: 0 means 5, negative means none.
	MaxFailureSamples int
	// RowSample adds the first N valid and invalid rows to the report (0: none).
	RowSample int
	// Cast casts mismatched columns to their declared dtypes, strictly (a value that does not
	// convert fails the run with *outcome.CastError).
	Cast bool
	// SkipMissing turns an input that matches no data into the skipped outcome.
	SkipMissing bool
	// Granularity of the rule checks ("" is PerRule).
	Granularity Granularity
	// SchemaRulesPerRule gives schema-level rules their own checks at column granularity.
	SchemaRulesPerRule bool
	// Progress, when set, is told which phase a run is in.
	Progress func(Progress)
	// Warnings, when set, is written each warning of the run as it is added to the report, one
	// line each, starting "warning: ".
	Warnings io.Writer
	// Now is the clock the report's started_at and duration_s are read from (nil: time.Now).
	Now func() time.Time
	// RunID names the run in its report and history; "" draws one (its start time and a random
	// suffix).
	RunID string
	// ReportFiles are the files the caller writes the run's report to. The run refuses them
	// (*ReportFileError) before it reads or writes anything when one would overwrite data (see
	// CheckReportFiles); the caller then writes none of them.
	ReportFiles []ReportFile
	// Timeout, when positive, bounds the whole run: past it the running statement is interrupted
	// and the run ends with *outcome.TimeoutError.
	Timeout time.Duration
	// Baselines, when set, reads the earlier values of the asset's table checks that have an
	// anomaly band (checks: check name → its lookback), newest first; the bands are drawn from
	// them. nil means the run has no history, and every band passes saying so; an error is a
	// warning of the run, whose bands then pass.
	Baselines func(ctx context.Context, asset string, checks map[string]int) (map[string][]float64, error)
}

// Progress reports a run's phase.
type Progress struct {
	Phase string
	// Rows are the input's rows; 0 while not counted (Spark counts them with the failures).
	Rows int64
	// Member is, in a collection's run, the member the phase works on; "" for a single table's
	// run and for the collection's own phases (its filters, putting the members in place).
	Member string
}

func (o Options) samples() int {
	switch {
	case o.MaxFailureSamples == 0:
		return 5
	case o.MaxFailureSamples < 0:
		return 0
	}
	return o.MaxFailureSamples
}

func (o Options) progress(phase string, rows int64) {
	if o.Progress != nil {
		o.Progress(Progress{Phase: phase, Rows: rows})
	}
}

// forMember is o whose progress names member.
func (o Options) forMember(member string) Options {
	if tell := o.Progress; tell != nil {
		o.Progress = func(p Progress) {
			p.Member = member
			tell(p)
		}
	}
	return o
}

// ruleStats is what one evaluation tells about the rules.
type ruleStats struct {
	total   int64   // the input's rows
	invalid int64   // rows failing an error rule
	failed  []int64 // per rule, rows failing it (warn rules included)
}

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
		err = fail(rep, timeout)
	}
	return rep, err
}

func (e *Engine) run(ctx context.Context, a Asset, opts Options) (*outcome.Report, error) {
	rep, done := opts.Begin(a)
	defer done()
	if e.other != nil {
		return e.runOn(ctx, a, opts, rep)
	}
	if err := precheck(ctx, a, opts, rep); err != nil {
		return rep, err
	}
	if a.Input == nil {
		return e.skipped(rep, a, opts), nil
	}

	r, err := e.newRun(ctx)
	if err != nil {
		return rep, fail(rep, err)
	}
	defer r.close()

	opts.progress("reading input", 0)
	b := newBackend(r, a, outputFiles(a))
	rel, err := e.load(ctx, b, rep, opts)
	return e.evaluateOpened(ctx, b, a, opts, rep, rel, err)
}

// evaluateOpened is the rest of a run, on either engine, once its input was opened (or failed to
// open with err): a missing input skipped when asked, else the evaluation and the conclusion.
func (e *Engine) evaluateOpened(ctx context.Context, s session, a Asset, opts Options, rep *outcome.Report, rel compile.Relation, err error) (*outcome.Report, error) {
	if errors.Is(err, ErrNoSourceData) && opts.SkipMissing {
		return e.skipped(rep, a, opts), nil
	}
	if err != nil {
		return rep, err
	}
	ev, err := e.evaluate(ctx, s, rep, rel, opts, policyOf(a))
	return rep, conclude(rep, a, opts, ev, err)
}

// conclude settles the report of a run of a from its evaluation (nil when the run did not get to
// its steps) and the error it ended with, and returns the run's error: typed for the failing
// outcomes.
func conclude(rep *outcome.Report, a Asset, opts Options, ev *evaluation, err error) error {
	p := a.Plan
	if ev != nil && ev.res.Counted {
		rep.Rows = outcome.Rows{Input: ev.total, Invalid: ev.stats.invalid, Valid: ev.total - ev.stats.invalid}
		out := ev.out
		rep.Outcome = &out
	}
	if err != nil {
		// The run did not reach its outcome (a write, a table check or a later step failed, or
		// it was stopped): like every exit-2 error, it has none; the rows it counted stay.
		rep.Outcome = nil
		var werr *runner.WriteError
		if errors.As(err, &werr) {
			return fail(rep, &outcome.OutputError{Output: a.Output.String(), Err: werr.Err})
		}
		return fail(rep, err)
	}
	total, stats, out := ev.total, ev.stats, ev.out
	for _, w := range ev.res.Written.Warnings {
		warn(rep, opts, w)
	}
	if w := ev.res.Written; a.Output != nil && out != outcome.Aborted && out != outcome.TableCheckFailed {
		if w.Kept != "" {
			why := "this run found no invalid rows"
			if ev.res.Conds&compile.WriteQuarant != 0 {
				why = "this run's input is its own table, so those rows exist nowhere else"
			}
			warn(rep, opts, fmt.Sprintf("the previous quarantine %s is kept as %s: %s", w.Was, w.Kept, why))
		}
		rep.Table.Written = w.Table
		rep.Quarantine.Written = w.Quarantine
		if rep.Quarantine.Written {
			rep.Quarantine.Rows = stats.invalid
			outcome.MarkErrorRows(rep.Checks, rep.Quarantine.Address)
		}
	}

	counts := errorCounts(p, stats)
	switch out {
	case outcome.TableCheckFailed:
		e := tableCheckError(p, ev.tables)
		e.InPlace = a.Output == nil
		return fail(rep, e)
	case outcome.Aborted:
		return fail(rep, &outcome.ValidationAbortError{Schema: p.Name, Invalid: stats.invalid, Counts: counts, InPlace: a.Output == nil})
	case outcome.NoValidRows:
		return fail(rep, &outcome.NoValidRowsError{Schema: p.Name, Rows: total, Counts: counts, Quarantine: rep.Quarantine.Address})
	}
	return nil
}

// precheck checks what a run of a can check before it reads anything (its options, report files,
// names, output) and recovers the output from an interrupted write; a failure is recorded in rep.
func precheck(ctx context.Context, a Asset, opts Options, rep *outcome.Report) error {
	if err := checkAsset(a, opts, rep); err != nil {
		return err
	}
	if a.Output != nil {
		if err := a.Output.check(quarantineName(a, rep.Asset)); err != nil {
			return fail(rep, &outcome.OutputError{Output: a.Output.String(), Err: err})
		}
		rolledBack, err := recoverOutput(ctx, a.Output)
		if err != nil {
			return fail(rep, &outcome.OutputError{Output: a.Output.String(), Err: err})
		}
		if rolledBack != nil {
			warn(rep, opts, rolledBack.Error())
		}
	}
	return nil
}

// checkAsset checks a run's options, report files and names, and gives rep the output's
// addresses; a failure is recorded in rep.
func checkAsset(a Asset, opts Options, rep *outcome.Report) error {
	if err := opts.validate(); err != nil {
		return fail(rep, err)
	}
	if err := CheckReportFiles(a, opts.ReportFiles...); err != nil {
		return fail(rep, err)
	}
	if a.Name != "" {
		if err := CheckAssetName(a.Name); err != nil {
			return fail(rep, err)
		}
	}
	if a.QuarantineName != "" {
		if err := checkQuarantineName(a); err != nil {
			return fail(rep, err)
		}
	}
	if a.Output != nil {
		rep.Table.Address = a.Output.String()
		if a.Quarantine {
			rep.Quarantine.Address = a.QuarantineAddress(rep.Asset)
		}
	} else if a.Quarantine {
		return fail(rep, fmt.Errorf("a quarantine needs an output to sit beside"))
	}
	return nil
}

// load opens the input and checks its column types against the schema, casting when asked. A
// mismatch is reported (rep gets the column_schema_mismatch outcome) and returned as the error.
func (e *Engine) load(ctx context.Context, b *backend, rep *outcome.Report, opts Options) (compile.Relation, error) {
	a := b.a
	p := a.Plan
	o, err := b.openInput(ctx, readAs(a.Input, reading{declared: p.Schema().Columns}), true)
	rel := o.Rel
	if err != nil {
		if errors.Is(err, ErrNoSourceData) && opts.SkipMissing {
			return rel, err
		}
		return rel, fail(rep, &outcome.InputError{Input: a.Input.String(), Err: err})
	}
	actual := columnTypes(o.Columns)
	rep.DroppedColumns = undeclared(p.Schema().Columns, actual)
	// A multi-file scan (one file has nothing to compare): DuckDB casts every file to one file's
	// types without a word.
	files := fileMismatches(b.src, o)
	mismatches := casting.CheckColumns(p.Schema().Columns, actual)
	if len(mismatches) > 0 && opts.Cast && len(files) == 0 {
		found := mismatches
		if mismatches, err = e.applyCasts(ctx, b, p, &rel, mismatches); err != nil {
			return rel, fail(rep, err)
		}
		rep.CastColumns = castColumns(rel.Casts, found)
	}
	mismatches = append(mismatches, files...)
	if len(mismatches) > 0 {
		return rel, columnMismatch(rep, p, mismatches, p.Name, producerOf(a.Input), actual)
	}
	return rel, e.checkReferences(ctx, b, rep, p)
}

// undeclared are the input's columns, in its order, that no declared column names: a run does
// not write them, as dataframely drops them, and the report says which.
func undeclared(cols []*schema.Column, actual []casting.ColumnType) []string {
	declared := make(map[string]bool, len(cols))
	for _, c := range cols {
		declared[c.Name] = true
	}
	var out []string
	for _, c := range actual {
		if !declared[c.Name] {
			out = append(out, c.Name)
		}
	}
	return out
}

// NewReport is the report of a run of the asset that has not started: no outcome, no checks,
// stamped with the versions of tablegate and of its DuckDB.
func NewReport(asset, schema string) *outcome.Report {
	return &outcome.Report{Asset: asset, Schema: schema, Checks: []outcome.Check{}, InvalidByRules: []outcome.RuleSet{},
		TablegateVersion: buildinfo.Tablegate(), DuckDBVersion: DuckDBVersion()}
}

func assetName(a Asset) string {
	switch {
	case a.Name != "":
		return a.Name
	case a.Output != nil:
		return a.Output.DefaultAssetName()
	}
	return a.Plan.Name
}

// warn adds a warning to the report and writes it to opts.Warnings.
func warn(rep *outcome.Report, opts Options, msg string) {
	rep.Warnings = append(rep.Warnings, msg)
	if opts.Warnings != nil {
		fmt.Fprintln(opts.Warnings, "warning: "+msg)
	}
}

// CheckAssetName refuses an asset name that is not a plain name: the quarantine's file is named
// after it, beside the table, and a path in it would put the file elsewhere.
func CheckAssetName(name string) error {
	if name == "." || strings.Contains(name, "..") || strings.ContainsAny(name, "/\\\x00") {
		return fmt.Errorf("asset name %q: use a plain name, without path separators or \"..\" (the quarantine is <name>_quarantine beside the table)", name)
	}
	return nil
}

// QuarantineName is the default name of an asset's quarantine.
func QuarantineName(asset string) string { return asset + "_quarantine" }

func quarantineName(a Asset, asset string) string {
	if a.QuarantineName != "" {
		return a.QuarantineName
	}
	return QuarantineName(asset)
}

// checkQuarantineName refuses a quarantine name that would put the file elsewhere or replace the
// table.
func checkQuarantineName(a Asset) error {
	name := a.QuarantineName
	if name == "." || strings.Contains(name, "..") || strings.ContainsAny(name, "/\\\x00") {
		return fmt.Errorf("quarantine name %q: use a plain name, without path separators or \"..\" (the quarantine goes beside the table)", name)
	}
	if !a.Quarantine {
		return fmt.Errorf("quarantine name %q given without a quarantine: declare one, or leave the name out", name)
	}
	if a.Output != nil && strings.EqualFold(a.Output.QuarantineAddress(name), a.Output.String()) {
		return fmt.Errorf("quarantine name %q: it is the table's own name; choose another, such as %s", name, QuarantineName(a.Output.DefaultAssetName()))
	}
	return nil
}

// readsOutput reports whether the input is the output's table itself.
func readsOutput(in Input, out Output) bool {
	switch o := out.(type) {
	case ParquetOutput:
		i, ok := in.(ParquetInput)
		if !ok {
			return false
		}
		target, err := os.Stat(o.Path)
		if err != nil {
			return false
		}
		matches, _ := filepath.Glob(i.Path)
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && os.SameFile(st, target) {
				return true
			}
		}
	case TableOutput:
		i, ok := in.(TableInput)
		if !ok || !strings.EqualFold(i.Table, o.Table) || !strings.EqualFold(cmp.Or(i.Schema, "main"), o.schemaName()) {
			return false
		}
		if i.File == "" || o.File == "" {
			return i.File == o.File
		}
		a, aerr := os.Stat(i.File)
		b, berr := os.Stat(o.File)
		return aerr == nil && berr == nil && os.SameFile(a, b)
	}
	return false
}

// fail records err in the report and returns it.
func fail(rep *outcome.Report, err error) error {
	rep.Error = &outcome.ErrorInfo{Type: outcome.TypeName(err), Message: err.Error()}
	if rep.Outcome != nil {
		rep.Health = outcome.HealthOf(rep.Checks)
	}
	return err
}

func inputOrRun(in Input, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &outcome.InputError{Input: in.String(), Err: err}
}

// skipped is the outcome for no source data: nothing is read or written, every check passes.
func (e *Engine) skipped(rep *outcome.Report, a Asset, opts Options) *outcome.Report {
	out := outcome.Skipped
	rep.Outcome = &out
	rep.Checks = append(buildChecks(a.Plan, a, opts, ruleStats{failed: make([]int64, len(a.Plan.Rules))}, nil, nil), tableChecks(a.Plan, nil)...)
	rep.Health = outcome.HealthOf(rep.Checks)
	return rep
}

// columnMismatch settles the run as a column-schema mismatch: the columns check alone reports,
// and the error names what was compared (label) and what produced the actual columns.
func columnMismatch(rep *outcome.Report, p *compile.Plan, mm []casting.Mismatch, label, producer string, actual []casting.ColumnType) error {
	out := outcome.ColumnSchemaMismatch
	rep.Outcome = &out
	rep.Checks = []outcome.Check{columnsCheck(p, mm)}
	names := make([]string, len(actual))
	for i, c := range actual {
		names[i] = c.Name
	}
	return fail(rep, &outcome.ColumnSchemaError{Schema: label, Mismatches: mm, Producer: producer, Columns: names})
}

// applyCasts casts the mismatched columns that exist, after checking that every value converts;
// it returns the mismatches a cast cannot mend (missing columns).
func (e *Engine) applyCasts(ctx context.Context, b *backend, p *compile.Plan, rel *compile.Relation, mm []casting.Mismatch) ([]casting.Mismatch, error) {
	var rest []casting.Mismatch
	var cast []*schema.Column
	for _, m := range mm {
		if m.Actual == casting.Missing {
			rest = append(rest, m)
			continue
		}
		cast = append(cast, p.Schema().Column(m.Column))
	}
	if len(rest) > 0 || len(cast) == 0 {
		return rest, nil
	}
	probe := compile.Step{Op: compile.ReadRow, What: "find a value of each column to cast that does not cast", SQL: casting.FailedCastProbe(cast, rel.From)}
	rows, err := runner.ReadStep(ctx, b, b.opening, probe)
	if err == nil && len(rows) == 0 {
		err = gosql.ErrNoRows
	}
	if err != nil {
		return nil, fmt.Errorf("check the casts: %w", err)
	}
	for i, v := range rows[0] {
		if v != nil {
			return nil, &outcome.CastError{Column: cast[i].Name, Value: fmt.Sprint(v), Target: cast[i].DType.String()}
		}
	}
	rel.Casts = map[string]string{}
	for _, c := range cast {
		rel.Casts[c.Name] = casting.CastExpr(c)
	}
	return nil, nil
}

// castColumns are the casts a run applies, in the schema's order (that of the mismatches), for
// the report.
func castColumns(casts map[string]string, mm []casting.Mismatch) []outcome.CastColumn {
	var out []outcome.CastColumn
	for _, m := range mm {
		if _, ok := casts[m.Column]; ok {
			out = append(out, outcome.CastColumn{Column: m.Column, From: m.Actual, To: m.Expected, Cast: m.Cast})
		}
	}
	return out
}

func errorCounts(p *compile.Plan, stats ruleStats) []outcome.RuleCount {
	var out []outcome.RuleCount
	for i, r := range p.Rules {
		if r.IsError() && stats.failed[i] > 0 {
			out = append(out, outcome.RuleCount{Rule: r.Name, Count: stats.failed[i]})
		}
	}
	return out
}

// MaxSampleValue is the most of a value a report's sample shows (compile.MaxSampleValue).
const MaxSampleValue = compile.MaxSampleValue

// outputFiles are the database files the asset's output writes, which its input attaches for
// writing too.
func outputFiles(a Asset) map[string]bool {
	written := map[string]bool{}
	if t, ok := a.Output.(TableOutput); ok && t.File != "" {
		abs, _ := filepath.Abs(t.File)
		written[abs] = true
	}
	return written
}

// policyOf is what a run of the asset does with invalid rows.
func policyOf(a Asset) outcome.Policy {
	if a.Quarantine {
		return outcome.PolicyQuarantine
	}
	return outcome.PolicyAbort
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
	return e.explain(ctx, a, opts, policyOf(a))
}

// explain is the program of a run of the asset with the policy (Filter's is outcome.PolicyFilter).
func (e *Engine) explain(ctx context.Context, a Asset, opts Options, policy outcome.Policy) (string, error) {
	if a.Input == nil {
		return "", fmt.Errorf("explain needs an input: %w", ErrNoSourceData)
	}
	if err := opts.validate(); err != nil {
		return "", err
	}
	if e.other != nil {
		return e.explainOn(ctx, a, opts, policy)
	}
	if out, ok := a.Output.(CatalogOutput); ok {
		return "", &OutputError{Output: out.String(), Err: out.check("")} // Spark's only
	}
	r, err := e.newRun(ctx)
	if err != nil {
		return "", err
	}
	defer r.close()
	b := newBackend(r, a, outputFiles(a))
	rel, err := e.load(ctx, b, &outcome.Report{}, opts)
	if err != nil {
		return "", err
	}
	p, err := prepare(ctx, b, runAsset(r.id, a, opts, policy, checkGroups(a.Plan, opts), b.target()), rel)
	if err != nil {
		return "", err
	}
	p.Open = b.opening.Steps
	return sessionNote + p.String(), nil
}

// sessionNote is explain's one line for the statements of a run that are not its program's: the
// settings it reads and sets when it opens and gives back when it closes, and what it closes.
const sessionNote = "-- Besides these statements, the run reads DuckDB's settings (threads, memory_limit, perfect_ht_threshold) " +
	"and sets its perfect-hash threshold when it opens; when it closes it drops the input's temp tables and the references' views, gives the " +
	"threshold back and detaches the databases it attached.\n"
