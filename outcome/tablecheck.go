package outcome

import (
	"fmt"
	"strings"
)

// TableCheckFailed is the outcome of a run whose error table check failed: nothing was written.
const TableCheckFailed Outcome = "table_check_failed"

// Metadata keys of a table check (dy_table__<name>).
const (
	// MetaValue is the check's value: its metric, or its condition's truth (null when NULL).
	MetaValue = "tablegate/value"
	// MetaMin and MetaMax are a metric's bounds, when declared.
	MetaMin = "tablegate/min"
	MetaMax = "tablegate/max"
	// MetaBaseline is a metric's anomaly band: median, mad, low, high (absent on the side a
	// one-sided band leaves open) and runs, the earlier values it was drawn from.
	MetaBaseline = "tablegate/baseline"
)

// TableCheckFailure is one failing error table check, for the error.
type TableCheckFailure struct {
	Check string // dy_table__enough_rows
	// Why says what it found against what it required: "count(*) >= 1000 is false",
	// "avg(amount) is 7.5, below the minimum 10".
	Why string
}

// TableCheckError means an error table check failed: the table and the quarantine were not
// written (the last-known-good table is unchanged); the rule checks still report their counts.
type TableCheckError struct {
	Schema   string
	Failures []TableCheckFailure
}

func (e *TableCheckError) Error() string {
	parts := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		parts[i] = fmt.Sprintf("%s (%s)", f.Check, f.Why)
	}
	noun := "table check"
	if len(parts) > 1 {
		noun = "table checks"
	}
	return fmt.Sprintf("%s of %s failed: %s. Nothing was written (neither the table nor the quarantine), so the last-known-good table is unchanged. "+
		"Fix the input, or the check's bounds; a check declared severity: warn reports without stopping the run.",
		strings.ToUpper(noun[:1])+noun[1:], e.Schema, strings.Join(parts, "; "))
}
