// Package outcome holds what a run reports: the outcomes of the failure policy, check
// results with severity and blocking, the typed errors of failing outcomes, and the JSON report.
package outcome

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

// Check is one check result.
type Check struct {
	Name        string   `json:"name"`
	Passed      bool     `json:"passed"`
	Severity    Severity `json:"severity"`
	Blocking    bool     `json:"blocking"`
	Description string   `json:"description"` // the check's fixed text
	// ResultDescription says what this evaluation found: "2 rows failed.", "No rule failed.".
	ResultDescription string         `json:"result_description"`
	Metadata          map[string]any `json:"metadata"`
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
	Asset          string     `json:"asset"`
	Schema         string     `json:"schema"`
	Outcome        *Outcome   `json:"outcome"`
	Error          *ErrorInfo `json:"error"`
	Rows           Rows       `json:"rows"`
	Table          Table      `json:"table"`
	Quarantine     Quarantine `json:"quarantine"`
	Checks         []Check    `json:"checks"`
	InvalidByRules []RuleSet  `json:"invalid_by_rules"`
	ValidSample    []any      `json:"valid_sample,omitempty"`
	InvalidSample  []any      `json:"invalid_sample,omitempty"`
	Health         Health     `json:"health"`
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
