package outcome

import (
	"fmt"
	"strings"
)

// Metadata keys of a check: the keys dagster-dataframely writes, under which the JSON report and
// Dagster show a check's typed results, so that a check reads the same in both.
const (
	// MetaRule is the rule of a single-rule check (amount|min).
	MetaRule = "dataframely/rule"
	// MetaRuleExpr is that rule's SQL.
	MetaRuleExpr = "dataframely/rule_expr"
	// MetaFailedRowCount is how many rows failed the check; absent when none did.
	MetaFailedRowCount = "dataframely/failed_row_count"
	// MetaFailedExamples are the first failing rows, schema columns only.
	MetaFailedExamples = "dataframely/failed_examples"
	// MetaRules lists the members of a collapsed check as {rule, failed, expr}.
	MetaRules = "dataframely/rules"
	// MetaColumnSchemaErrors lists the mismatched columns of a failing dy_schema__columns.
	MetaColumnSchemaErrors = "dataframely/column_schema_errors"
	// MetaErrorRowsAddress is where the invalid rows went, on every check of a run that wrote them.
	MetaErrorRowsAddress = "dataframely/error_rows_address"
	// MetaFailedShare is the failed rows' share of the input (0 to 1), when some row failed.
	MetaFailedShare = "tablegate/failed_share"
	// MetaFailingValues are a failing column check's most frequent failing values, {value, count}.
	MetaFailingValues = "tablegate/failing_values"
	// MetaTolerance is a rule check's tolerance: {warn, warn_rows, error, error_rows}.
	MetaTolerance = "tablegate/tolerance"
)

// FailedSeverity is the severity of a rule check: ERROR when one of its error rules failed, else
// WARN (also when it passed). The quarantine does not change it: a quarantined error rule is
// still an error, and only blocking depends on the quarantine.
func FailedSeverity(errorRuleFailed bool) Severity {
	if errorRuleFailed {
		return SeverityError
	}
	return SeverityWarn
}

// Blocks reports whether a rule check blocks the table: without a quarantine, a check that holds
// an error rule does; with one, no rule check does (dy_schema__columns always blocks).
func Blocks(quarantine, hasErrorRule bool) bool {
	return !quarantine && hasErrorRule
}

// RowsDescription describes one evaluation of a single-rule check: "No row failed.", "1 row
// failed.", "2 rows failed.".
func RowsDescription(failed int64) string {
	if failed <= 0 {
		return "No row failed."
	}
	return rowsPhrase(failed) + " failed."
}

// ColumnsDescription describes one evaluation of dy_schema__columns by the mismatched columns.
func ColumnsDescription(columns []string) string {
	switch len(columns) {
	case 0:
		return "Every column matches."
	case 1:
		return fmt.Sprintf("1 column does not match: %s.", columns[0])
	}
	return fmt.Sprintf("%d columns do not match: %s.", len(columns), strings.Join(columns, ", "))
}

// CastDescription is the column check's result when it passed after an explicit cast: "Every
// column matches after casting amount DECIMAL(18,3) to Float64 (lossy)."
func CastDescription(casts []CastColumn) string {
	parts := make([]string, len(casts))
	for i, c := range casts {
		parts[i] = c.String()
	}
	return "Every column matches after casting " + strings.Join(parts, ", ") + "."
}

// RuleFailure is how many rows failed one member rule of a collapsed check.
type RuleFailure struct {
	Rule   string
	Failed int64
}

// RulesDescription describes one evaluation of a collapsed check by its failing members, in the
// order given: "No rule failed.", "1 rule failed: amount|min (2 rows).".
func RulesDescription(members []RuleFailure) string {
	var parts []string
	for _, m := range members {
		if m.Failed > 0 {
			parts = append(parts, fmt.Sprintf("%s (%s)", m.Rule, rowsPhrase(m.Failed)))
		}
	}
	switch len(parts) {
	case 0:
		return "No rule failed."
	case 1:
		return "1 rule failed: " + parts[0] + "."
	}
	return fmt.Sprintf("%d rules failed: %s.", len(parts), strings.Join(parts, ", "))
}

// MarkErrorRows adds the address of the written invalid rows to every check.
func MarkErrorRows(checks []Check, address string) {
	for i := range checks {
		checks[i].ErrorRowsAddress = address
	}
}

// CheckSpec is a check a run would report, known before any data is read: what an orchestrator
// declares up front.
type CheckSpec struct {
	Name        string     `json:"name"`
	Blocking    bool       `json:"blocking"`
	Description string     `json:"description"`
	Rules       []SpecRule `json:"rules"`
}

// SpecRule is one rule of a check spec.
type SpecRule struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"` // error or warn, as the schema declares it
	Expr     string `json:"expr"`
	// Tolerance is the rule's declared tolerance, its limits as the schema writes them (no rows:
	// a share's rows depend on the run's input); nil without one.
	Tolerance *Tolerance `json:"tolerance,omitempty"`
}
