// Package outcome holds what a run reports: the outcomes of the failure policy, check
// results with severity and blocking, the typed errors of failing outcomes, and the JSON report.
package outcome

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tablegate/tablegate/casting"
)

// Outcome is one of the results a run can have (TableCheckFailed is declared with the table
// checks).
type Outcome string

// The outcomes of a run.
const (
	ColumnSchemaMismatch Outcome = "column_schema_mismatch"
	AllValid             Outcome = "all_valid"
	Aborted              Outcome = "aborted"
	Quarantined          Outcome = "quarantined"
	NoValidRows          Outcome = "no_valid_rows"
	Skipped              Outcome = "skipped"
)

// Succeeded reports whether a run with this outcome succeeds.
func (o Outcome) Succeeded() bool {
	return o == AllValid || o == Quarantined || o == Skipped
}

// Severity is a check's severity in a run.
type Severity string

// Check severities.
const (
	SeverityError Severity = "ERROR"
	SeverityWarn  Severity = "WARN"
)

// Health summarises an asset after a run.
type Health string

// Health values: Degraded when a check failed at ERROR, Warning when only at WARN.
const (
	Healthy  Health = "Healthy"
	Warning  Health = "Warning"
	Degraded Health = "Degraded"
)

// Check is one check result. Its JSON form is the report's: the fixed fields, then the typed
// results below rendered as the dataframely/* metadata dagster-dataframely writes (Metadata).
type Check struct {
	Name   string // dy_schema__columns, dy_rule__amount__min, dy_col__email, dy_schema__rules
	Passed bool   //
	// Severity is what this run's result means: ERROR when one of the check's error rules (or
	// an error table check) failed, and always on the column check; else WARN, so a passing
	// rule check is WARN whatever its rules. Show Declared beside a check that passed.
	Severity Severity
	// Declared is ERROR when one of the check's rules is declared error (and for the column
	// check), else WARN: what a failure would mean, passing or not.
	Declared Severity
	// Blocking: a failure of this check stops the table from being written.
	Blocking    bool
	Description string // the check's fixed text
	// ResultDescription says what this evaluation found: "2 rows failed.", "No rule failed.".
	ResultDescription string
	// Rule and Expr are the rule and its SQL, on a check of one rule; Expr is also a table
	// check's SQL.
	Rule, Expr string
	// Failed is how many rows failed the check (on a collapsed check, rows failing any member).
	Failed int64
	// Rules are the members of a collapsed check (dy_col__*, dy_schema__rules), in rule order.
	Rules []RuleResult
	// Samples are the first failing rows in input order, each a JSON object of the schema's
	// columns; on a collapsed check each starts with a dy_rule field naming the member it failed.
	Samples []json.RawMessage
	// Mismatches are the columns that do not match, on a failing dy_schema__columns.
	Mismatches []casting.Mismatch
	// ErrorRowsAddress is the quarantine's address, on every check of a run that wrote it.
	ErrorRowsAddress string
	// Table is a table check's result (dy_table__<name>); nil on the other checks.
	Table *TableResult
	// Share is Failed as a share of the input's rows (0 to 1), on a rule check some row failed.
	Share *float64
	// Tolerance is a rule check's declared tolerance (nil without one).
	Tolerance *Tolerance
	// FailingValues are a failing column check's most frequent failing values, most frequent
	// first, each with how many failing rows have it.
	FailingValues []ValueCount
	// Contract are the data-contract quality entries the check's rules came from, when the
	// schema was imported from a contract.
	Contract []ContractQuality
}

// Tolerance is a rule check's tolerance: its limits as the schema writes them ("10", "1.5%"),
// and in rows of the run's input. A check passes up to Warn and fails at WARN up to Error.
type Tolerance struct {
	Error     string `json:"error,omitempty"`
	ErrorRows *int64 `json:"error_rows,omitempty"`
	Warn      string `json:"warn,omitempty"`
	WarnRows  *int64 `json:"warn_rows,omitempty"`
}

// ValueCount is one failing value of a column check and how many failing rows have it. Value
// is the value as JSON (null for NULL), cut as a sample's values are.
type ValueCount struct {
	Count int64           `json:"count"`
	Value json.RawMessage `json:"value"`
}

// ContractQuality is a contract quality entry a check reports under: its rule (or table check)
// and the entry's id and name as the contract gives them.
type ContractQuality struct {
	Rule string `json:"rule"`
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

// Contract names the data contract a run's schema was imported from.
type Contract struct {
	ID         string `json:"id"`
	Name       string `json:"name,omitempty"`
	Version    string `json:"version,omitempty"`
	APIVersion string `json:"api_version,omitempty"`
	Object     string `json:"object,omitempty"`
}

// RuleResult is one member rule of a collapsed check. Its fields are in the order of their JSON
// keys, so that it renders as the map dagster-dataframely writes.
type RuleResult struct {
	Expr   string `json:"expr"`
	Failed int64  `json:"failed"`
	Rule   string `json:"rule"`
}

// checkJSON is a check as the JSON report spells it.
type checkJSON struct {
	Name              string   `json:"name"`
	Passed            bool     `json:"passed"`
	Severity          Severity `json:"severity"`
	Declared          Severity `json:"declared_severity,omitempty"`
	Blocking          bool     `json:"blocking"`
	Description       string   `json:"description"`
	ResultDescription string   `json:"result_description"`
	Metadata          metadata `json:"metadata"`
}

// metadata is a check's typed results under the dataframely/* keys, in the keys' order; a
// result that does not apply is left out.
type metadata struct {
	ColumnSchemaErrors []casting.Mismatch `json:"dataframely/column_schema_errors,omitempty"`
	ErrorRowsAddress   string             `json:"dataframely/error_rows_address,omitempty"`
	FailedExamples     []json.RawMessage  `json:"dataframely/failed_examples,omitempty"`
	FailedRowCount     int64              `json:"dataframely/failed_row_count,omitempty"`
	Rule               *string            `json:"dataframely/rule,omitempty"`
	RuleExpr           *string            `json:"dataframely/rule_expr,omitempty"`
	Rules              []RuleResult       `json:"dataframely/rules,omitempty"`
	Baseline           *Baseline          `json:"tablegate/baseline,omitempty"`
	Compared           []Compared         `json:"tablegate/compared,omitempty"`
	FailedShare        *float64           `json:"tablegate/failed_share,omitempty"`
	FailingValues      []ValueCount       `json:"tablegate/failing_values,omitempty"`
	Max                *float64           `json:"tablegate/max,omitempty"`
	Min                *float64           `json:"tablegate/min,omitempty"`
	Tolerance          *Tolerance         `json:"tablegate/tolerance,omitempty"`
	Value              json.RawMessage    `json:"tablegate/value,omitempty"` // null when NULL
	Contract           []ContractQuality  `json:"odcs/quality,omitempty"`
}

func (c Check) metadata() (metadata, error) {
	m := metadata{ColumnSchemaErrors: c.Mismatches, ErrorRowsAddress: c.ErrorRowsAddress, FailedExamples: c.Samples,
		FailedRowCount: max(c.Failed, 0), Rules: c.Rules, Contract: c.Contract, FailedShare: c.Share, FailingValues: c.FailingValues,
		Tolerance: c.Tolerance}
	if c.Rule != "" {
		m.Rule = &c.Rule
	}
	if c.Rule != "" || c.Table != nil {
		m.RuleExpr = &c.Expr
	}
	if t := c.Table; t != nil {
		value, err := json.Marshal(t.Value)
		if err != nil {
			return m, fmt.Errorf("check %s: its value: %w", c.Name, err)
		}
		m.Value, m.Min, m.Max, m.Baseline, m.Compared = value, t.Min, t.Max, t.Baseline, t.Compared
	}
	return m, nil
}

// MarshalJSON renders the check as the JSON report has it. HTML escaping is left to the
// encoder the report is written with.
func (c Check) MarshalJSON() ([]byte, error) {
	meta, err := c.metadata()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err = enc.Encode(checkJSON{Name: c.Name, Passed: c.Passed, Severity: c.Severity, Declared: c.Declared, Blocking: c.Blocking,
		Description: c.Description, ResultDescription: c.ResultDescription, Metadata: meta})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// UnmarshalJSON reads a check of a JSON report (a recorded run's) back into its typed fields.
func (c *Check) UnmarshalJSON(data []byte) error {
	var w checkJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*c = Check{Name: w.Name, Passed: w.Passed, Severity: w.Severity, Declared: w.Declared, Blocking: w.Blocking, Description: w.Description,
		ResultDescription: w.ResultDescription, Failed: w.Metadata.FailedRowCount, Rules: w.Metadata.Rules,
		Samples: w.Metadata.FailedExamples, Mismatches: w.Metadata.ColumnSchemaErrors, ErrorRowsAddress: w.Metadata.ErrorRowsAddress,
		Contract: w.Metadata.Contract, Share: w.Metadata.FailedShare, FailingValues: w.Metadata.FailingValues, Tolerance: w.Metadata.Tolerance}
	if w.Metadata.Rule != nil {
		c.Rule = *w.Metadata.Rule
	}
	if w.Metadata.RuleExpr != nil {
		c.Expr = *w.Metadata.RuleExpr
	}
	if w.Metadata.Value != nil {
		c.Table = &TableResult{Min: w.Metadata.Min, Max: w.Metadata.Max, Baseline: w.Metadata.Baseline, Compared: w.Metadata.Compared}
		dec := json.NewDecoder(bytes.NewReader(w.Metadata.Value))
		dec.UseNumber() // a metric keeps its digits
		if err := dec.Decode(&c.Table.Value); err != nil {
			return fmt.Errorf("check %s: its value: %w", c.Name, err)
		}
	}
	return nil
}

// Rows counts the rows of a run.
type Rows struct {
	Input   int64 `json:"input"`
	Valid   int64 `json:"valid"`
	Invalid int64 `json:"invalid"`
}

// Table is where the valid rows go.
type Table struct {
	Address string `json:"address"`
	Written bool   `json:"written"`
}

// Quarantine is where the invalid rows go.
type Quarantine struct {
	Address string `json:"address"`
	Written bool   `json:"written"`
	Rows    int64  `json:"rows"`
}

// RuleSet counts the invalid rows that failed exactly this set of rules.
type RuleSet struct {
	Rules string `json:"rules"` // check names, sorted, joined by ", "
	Count int64  `json:"count"`
}

// ErrorInfo is a failing run's error in the report.
type ErrorInfo struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Report is everything a run reports; it is the JSON report (docs/report.md).
type Report struct {
	Asset  string `json:"asset"`
	Schema string `json:"schema"`
	// Contract names the data contract the schema was imported from (absent for other schemas).
	Contract *Contract `json:"contract,omitempty"`
	// Collection ties a collection member's run to the collection's (absent for a single table).
	Collection *CollectionRun `json:"collection,omitempty"`
	Outcome    *Outcome       `json:"outcome"`
	Error      *ErrorInfo     `json:"error"`
	Rows       Rows           `json:"rows"`
	Table      Table          `json:"table"`
	Quarantine Quarantine     `json:"quarantine"`
	// DroppedColumns are the input's columns that the schema does not declare: not checked,
	// and not written to the table or the quarantine (absent when there are none).
	DroppedColumns []string `json:"dropped_columns,omitempty"`
	// CastColumns are the columns an explicit cast (--cast) converted to their declared dtypes
	// (absent when none was cast).
	CastColumns    []CastColumn `json:"cast_columns,omitempty"`
	Checks         []Check      `json:"checks"`
	InvalidByRules []RuleSet    `json:"invalid_by_rules"`
	// ValidSample and InvalidSample are the first valid and invalid rows, each a JSON object.
	ValidSample   []json.RawMessage `json:"valid_sample,omitempty"`
	InvalidSample []json.RawMessage `json:"invalid_sample,omitempty"`
	Health        Health            `json:"health"`
	// TablegateVersion and DuckDBVersion say which tablegate and which embedded DuckDB ran.
	TablegateVersion string `json:"tablegate_version"`
	DuckDBVersion    string `json:"duckdb_version"`
	// RunID names the run, in the report and in the run history; StartedAt (RFC 3339) and
	// DurationS say when it ran and for how long.
	RunID     string  `json:"run_id"`
	StartedAt string  `json:"started_at"`
	DurationS float64 `json:"duration_s"`
	// Warnings are what the user should know about a run that did what was asked (an older
	// quarantine kept under another name).
	Warnings []string `json:"warnings,omitempty"`
}

// CastColumn is a column an explicit cast converted: from its input type to its declared dtype,
// and how: "exact" (another spelling of the same values), "lossless" (widening) or "lossy"
// (values may change: rounded, truncated).
type CastColumn struct {
	Column string `json:"column"`
	From   string `json:"from"`
	To     string `json:"to"`
	Cast   string `json:"cast"`
}

func (c CastColumn) String() string {
	return fmt.Sprintf("%s %s to %s (%s)", c.Column, c.From, c.To, c.Cast)
}

// HealthOf derives the asset's health from its checks.
func HealthOf(checks []Check) Health {
	h := Healthy
	for _, c := range checks {
		if c.Passed {
			continue
		}
		if c.Severity == SeverityError {
			return Degraded
		}
		h = Warning
	}
	return h
}
