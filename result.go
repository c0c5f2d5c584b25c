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
	Asset  string
	Schema string
	// Outcome is "" when the run failed before deciding one (an input, output or setting error).
	Outcome    Outcome
	Rows       Rows
	Table      Table
	Quarantine Quarantine
	// Checks are dy_schema__columns, then the rule checks at the run's granularity, in rule order.
	Checks []Check
	// InvalidByRules counts the invalid rows by the exact set of rules each failed.
	InvalidByRules []RuleSet
	// ValidSample and InvalidSample are the first Options.RowSample valid and invalid rows, each
	// a JSON object.
	ValidSample, InvalidSample []json.RawMessage
	Health                     Health
	// Warnings are what to know about a run that did what was asked (an older quarantine kept
	// under another name).
	Warnings []string
	// TablegateVersion and DuckDBVersion say which tablegate and which DuckDB ran.
	TablegateVersion, DuckDBVersion string
	// Report is the untyped report the result was read from: the JSON report.
	Report *Report
}

// Check is one check of a run.
type Check struct {
	Name        string // dy_schema__columns, dy_rule__amount__min, dy_col__email, dy_schema__rules
	Description string // the check's fixed text
	// ResultDescription says what this run found: "2 rows failed.", "No rule failed.".
	ResultDescription string
	Passed            bool
	// Severity is ERROR when one of the check's error rules failed, else WARN.
	Severity CheckSeverity
	// Blocking: a failure of this check stops the table from being written.
	Blocking bool
	// Failed is how many rows failed the check (on a collapsed check, rows failing any member).
	Failed int64
	// Rule and Expr are the rule and its SQL, on a check of one rule.
	Rule, Expr string
	// Rules are the members of a collapsed check (dy_col__*, dy_schema__rules), in rule order.
	Rules []RuleResult
	// Samples are up to Options.MaxFailureSamples failing rows in input order, each a JSON object
	// of the schema's columns; on a collapsed check each starts with a dy_rule field naming the
	// member it failed.
	Samples []json.RawMessage
	// Mismatches are the columns that do not match, on a failing dy_schema__columns.
	Mismatches []Mismatch
	// ErrorRowsAddress is the quarantine's address, on every check of a run that wrote it.
	ErrorRowsAddress string
}

// RuleResult is one member rule of a collapsed check.
type RuleResult struct {
	Rule   string `json:"rule"`
	Failed int64  `json:"failed"`
	Expr   string `json:"expr"`
}

// Check returns the check named name.
func (r *Result) Check(name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// newResult types a report. The metadata goes through its JSON form, which is the report's
// contract, rather than through the Go types exec happens to store in it.
func newResult(rep *Report) *Result {
	if rep == nil {
		return nil
	}
	res := &Result{
		Asset: rep.Asset, Schema: rep.Schema, Rows: rep.Rows, Table: rep.Table, Quarantine: rep.Quarantine,
		InvalidByRules: rep.InvalidByRules, Health: rep.Health, Warnings: rep.Warnings, Report: rep,
		TablegateVersion: rep.TablegateVersion, DuckDBVersion: rep.DuckDBVersion,
		ValidSample: rawRows(rep.ValidSample), InvalidSample: rawRows(rep.InvalidSample),
	}
	if rep.Outcome != nil {
		res.Outcome = *rep.Outcome
	}
	for _, c := range rep.Checks {
		res.Checks = append(res.Checks, newCheck(c))
	}
	return res
}

func newCheck(c outcome.Check) Check {
	var meta struct {
		Rule      string            `json:"dataframely/rule"`
		Expr      string            `json:"dataframely/rule_expr"`
		Failed    int64             `json:"dataframely/failed_row_count"`
		Samples   []json.RawMessage `json:"dataframely/failed_examples"`
		Rules     []RuleResult      `json:"dataframely/rules"`
		Errors    []Mismatch        `json:"dataframely/column_schema_errors"`
		ErrorRows string            `json:"dataframely/error_rows_address"`
	}
	if data, err := json.Marshal(c.Metadata); err == nil {
		_ = json.Unmarshal(data, &meta) // the report's own JSON: it has these types
	}
	if mm, ok := c.Metadata[outcome.MetaColumnSchemaErrors].([]casting.Mismatch); ok {
		meta.Errors = mm // keeps the cast hints, which the JSON form leaves out
	}
	return Check{
		Name: c.Name, Description: c.Description, ResultDescription: c.ResultDescription, Passed: c.Passed,
		Severity: c.Severity, Blocking: c.Blocking, Failed: meta.Failed, Rule: meta.Rule, Expr: meta.Expr,
		Rules: meta.Rules, Samples: meta.Samples, Mismatches: meta.Errors, ErrorRowsAddress: meta.ErrorRows,
	}
}

func rawRows(rows []any) []json.RawMessage {
	if len(rows) == 0 {
		return nil
	}
	data, err := json.Marshal(rows)
	if err != nil {
		return nil
	}
	var out []json.RawMessage
	_ = json.Unmarshal(data, &out)
	return out
}
