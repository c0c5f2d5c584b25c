package runner

import (
	"context"
	gosql "database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/buildinfo"
	"github.com/tablegate/tablegate/outcome"
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

// Phase tells o.Progress which phase a run is in.
func (o Options) Phase(phase string, rows int64) {
	if o.Progress != nil {
		o.Progress(Progress{Phase: phase, Rows: rows})
	}
}

// ForMember is o whose progress names member.
func (o Options) ForMember(member string) Options {
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

// Conclude settles the report of a run of a from its evaluation (nil when the run did not get to
// its steps) and the error it ended with, and returns the run's error: typed for the failing
// outcomes.
func Conclude(rep *outcome.Report, a Asset, opts Options, ev *Evaluation, err error) error {
	p := a.Plan
	if ev != nil && ev.Res.Counted {
		rep.Rows = outcome.Rows{Input: ev.Total, Invalid: ev.stats.invalid, Valid: ev.Total - ev.stats.invalid}
		out := ev.Outcome
		rep.Outcome = &out
	}
	if err != nil {
		// The run did not reach its outcome (a write, a table check or a later step failed, or
		// it was stopped): like every exit-2 error, it has none; the rows it counted stay.
		rep.Outcome = nil
		var werr *WriteError
		if errors.As(err, &werr) {
			return Fail(rep, &outcome.OutputError{Output: a.Output.String(), Err: werr.Err})
		}
		return Fail(rep, err)
	}
	total, stats, out := ev.Total, ev.stats, ev.Outcome
	for _, w := range ev.Res.Written.Warnings {
		warn(rep, opts, w)
	}
	if w := ev.Res.Written; a.Output != nil && out != outcome.Aborted && out != outcome.TableCheckFailed {
		if w.Kept != "" {
			why := "this run found no invalid rows"
			if ev.Res.Conds&compile.WriteQuarant != 0 {
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
		return Fail(rep, e)
	case outcome.Aborted:
		return Fail(rep, &outcome.ValidationAbortError{Schema: p.Name, Invalid: stats.invalid, Counts: counts, InPlace: a.Output == nil})
	case outcome.NoValidRows:
		return Fail(rep, &outcome.NoValidRowsError{Schema: p.Name, Rows: total, Counts: counts, Quarantine: rep.Quarantine.Address})
	}
	return nil
}

// checkAsset checks a run's options, report files and names, and gives rep the output's
// addresses; a failure is recorded in rep.
func checkAsset(a Asset, opts Options, rep *outcome.Report) error {
	if err := opts.Validate(); err != nil {
		return Fail(rep, err)
	}
	if err := CheckReportFiles(a, opts.ReportFiles...); err != nil {
		return Fail(rep, err)
	}
	if a.Name != "" {
		if err := CheckAssetName(a.Name); err != nil {
			return Fail(rep, err)
		}
	}
	if a.QuarantineName != "" {
		if err := checkQuarantineName(a); err != nil {
			return Fail(rep, err)
		}
	}
	if a.Output != nil {
		rep.Table.Address = a.Output.String()
		if a.Quarantine {
			rep.Quarantine.Address = a.QuarantineAddress(rep.Asset)
		}
	} else if a.Quarantine {
		return Fail(rep, fmt.Errorf("a quarantine needs an output to sit beside"))
	}
	return nil
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
// stamped with the version of tablegate (an Engine's run adds its DuckDB's).
func NewReport(asset, schema string) *outcome.Report {
	return &outcome.Report{Asset: asset, Schema: schema, Checks: []outcome.Check{}, InvalidByRules: []outcome.RuleSet{},
		TablegateVersion: buildinfo.Tablegate()}
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

// QuarantineNameOf is the name of a's quarantine when the asset is named asset.
func QuarantineNameOf(a Asset, asset string) string {
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

// Fail records err in the report and returns it.
func Fail(rep *outcome.Report, err error) error {
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

// Skipped is the outcome for no source data: nothing is read or written, every check passes.
func Skipped(rep *outcome.Report, a Asset, opts Options) *outcome.Report {
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
	return Fail(rep, &outcome.ColumnSchemaError{Schema: label, Mismatches: mm, Producer: producer, Columns: names})
}

// applyCasts casts the mismatched columns that exist, after checking that every value converts;
// it returns the mismatches a cast cannot mend (missing columns).
func applyCasts(ctx context.Context, b Backend, p *compile.Plan, rel *compile.Relation, mm []casting.Mismatch) ([]casting.Mismatch, error) {
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
	o, ok := b.(Opener)
	if !ok {
		return nil, errors.New("this engine cannot cast columns: write the input with the declared types")
	}
	rows, err := ReadStep(ctx, b, o.Opening(), probe)
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

// PolicyOf is what a run of the asset does with invalid rows.
func PolicyOf(a Asset) outcome.Policy {
	if a.Quarantine {
		return outcome.PolicyQuarantine
	}
	return outcome.PolicyAbort
}
