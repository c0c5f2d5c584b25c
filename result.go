package tablegate

import (
	"encoding/json"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/outcome"
)

// Outcome is one of the results a run can have.
type Outcome = outcome.Outcome

// The outcomes.
const (
	ColumnSchemaMismatch = outcome.ColumnSchemaMismatch
	AllValid             = outcome.AllValid
	Aborted              = outcome.Aborted
	Quarantined          = outcome.Quarantined
	NoValidRows          = outcome.NoValidRows
	Skipped              = outcome.Skipped
	TableCheckFailed     = outcome.TableCheckFailed
)

// CheckSeverity is the severity a check reports in a run: CheckError or CheckWarn.
type CheckSeverity = outcome.Severity

// Check severities.
const (
	CheckError = outcome.SeverityError
	CheckWarn  = outcome.SeverityWarn
)

// CheckTolerance is a rule check's tolerance as a run reports it: its limits as declared and in
// rows of the input.
type CheckTolerance = outcome.Tolerance

// ValueCount is one of a column check's most frequent failing values, with its count.
type ValueCount = outcome.ValueCount

// Health summarises an asset after a run.
type Health = outcome.Health

// Health values: Degraded when a check failed at ERROR, Warning when only at WARN.
const (
	Healthy  = outcome.Healthy
	Warning  = outcome.Warning
	Degraded = outcome.Degraded
)

// Report is a run's report as the JSON report spells it (json.Marshal it to get that report).
type Report = outcome.Report

// Rows counts a run's input, valid and invalid rows.
type Rows = outcome.Rows

// Table is where the valid rows went: its address and whether the run wrote it.
type Table = outcome.Table

// Quarantine is where the invalid rows went: its address, whether the run wrote it, and its rows.
type Quarantine = outcome.Quarantine

// RuleSet counts the invalid rows that failed exactly one set of rules.
type RuleSet = outcome.RuleSet

// Mismatch is one column whose type is not the declared dtype.
type Mismatch = casting.Mismatch

// Result is what a run reports, typed.
type Result struct {
	// Asset is the run's name (Options.Name, or the output's base name); Schema the schema's.
	Asset, Schema string
	// Outcome is "" when the run failed before deciding one (an input, output or setting error).
	Outcome Outcome
	// Rows counts the input's rows and how many were valid and invalid.
	Rows Rows
	// Table says where the valid rows go and whether they were written.
	Table Table
	// Quarantine says where the invalid rows go, whether they were written, and how many.
	Quarantine Quarantine
	// DroppedColumns are the input's columns the schema does not declare, which are not
	// written.
	DroppedColumns []string
	// CastColumns are the columns Options.Cast converted to their declared dtypes, with how.
	CastColumns []CastColumn
	// Checks are dy_schema__columns, then the rule checks at the run's granularity, in rule
	// order; they are the report's.
	Checks []Check
	// InvalidByRules counts the invalid rows by the exact set of rules each failed.
	InvalidByRules []RuleSet
	// ValidSample and InvalidSample are the first Options.RowSample valid and invalid rows, each
	// a JSON object.
	ValidSample, InvalidSample []json.RawMessage
	// Health is Healthy, Warning (only warn rules failed) or Degraded (an error rule failed).
	Health Health
	// Warnings are what to know about a run that did what was asked (an older quarantine kept
	// under another name).
	Warnings []string
	// TablegateVersion and DuckDBVersion say which tablegate and which DuckDB ran.
	TablegateVersion, DuckDBVersion string
	// Report is the report the result was read from; json.Marshal gives the JSON report.
	Report *Report
}

// Check is one check of a run, with its typed results: the rule and its SQL, the failed count,
// the failing rows, a collapsed check's members, the mismatched columns, the quarantine's
// address. json.Marshal gives it as the JSON report has it, the results as dataframely/* metadata.
type Check = outcome.Check

// CastColumn is a column an explicit cast converted: its input type, its dtype, and whether the
// cast was exact, lossless or lossy.
type CastColumn = outcome.CastColumn

// RuleResult is one member rule of a collapsed check.
type RuleResult = outcome.RuleResult

// Check returns the check named name.
func (r *Result) Check(name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// newResult types a report.
func newResult(rep *Report) *Result {
	if rep == nil {
		return nil
	}
	res := &Result{
		Asset: rep.Asset, Schema: rep.Schema, Rows: rep.Rows, Table: rep.Table, Quarantine: rep.Quarantine,
		DroppedColumns: rep.DroppedColumns, CastColumns: rep.CastColumns, InvalidByRules: rep.InvalidByRules, Health: rep.Health, Warnings: rep.Warnings, Report: rep,
		TablegateVersion: rep.TablegateVersion, DuckDBVersion: rep.DuckDBVersion,
		ValidSample: rep.ValidSample, InvalidSample: rep.InvalidSample, Checks: rep.Checks,
	}
	if rep.Outcome != nil {
		res.Outcome = *rep.Outcome
	}
	return res
}
