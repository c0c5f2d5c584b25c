package outcome

import (
	"fmt"
	"math"
	"strings"
)

// TableCheckFailed is the outcome of a run whose error table check failed: nothing was written.
const TableCheckFailed Outcome = "table_check_failed"

// TableResult is a table check's result: what it found, against what it requires.
type TableResult struct {
	// Value is the metric (a number: float64, or json.Number with every digit of an integer or
	// DECIMAL metric and when read back from a report), the condition's truth (bool), or nil when
	// NULL or not evaluated; NaN and infinities are their text ("NaN", "Infinity", "-Infinity"),
	// which JSON has no number for, as in the samples.
	Value any
	// Min and Max are a metric's declared bounds.
	Min, Max *float64
	// Baseline is a metric's anomaly band from the run history; nil without one.
	Baseline *Baseline
	// Compared are the two sides of a condition that is one comparison, with their values.
	Compared []Compared
}

// Compared is one side of a condition that is a comparison: its SQL and its value as text, and,
// for the newest value of a Date or Datetime column (max(col)), how old it is.
type Compared struct {
	// AgeS is how many whole seconds ago the side's time was (negative: in the future).
	AgeS  *int64 `json:"age_s,omitempty"`
	Expr  string `json:"expr"`
	Value string `json:"value"`
}

// AgePhrase spells an age in seconds for people, to its two largest units: "2 days 3 hours",
// "45 minutes", "12 seconds"; a negative age is "N … in the future".
func AgePhrase(secs int64) string {
	future := secs < 0
	if future {
		secs = -secs
	}
	units := []struct {
		name string
		s    int64
	}{{"day", 86400}, {"hour", 3600}, {"minute", 60}, {"second", 1}}
	var parts []string
	for _, u := range units {
		if n := secs / u.s; n > 0 && len(parts) < 2 {
			secs -= n * u.s
			p := fmt.Sprintf("%d %s", n, u.name)
			if n != 1 {
				p += "s"
			}
			parts = append(parts, p)
		} else if len(parts) > 0 {
			break
		}
	}
	if len(parts) == 0 {
		return "0 seconds"
	}
	out := strings.Join(parts, " ")
	if future {
		out += " in the future"
	}
	return out
}

// Baseline is a metric's anomaly band: median ± a threshold of MADs, drawn from the values of
// Runs earlier runs. Median and MAD are nil when there were too few runs; Low or High is nil on
// the side a one-sided band leaves open. The fields are in their JSON keys' order.
type Baseline struct {
	High   *float64 `json:"high,omitempty"`
	Low    *float64 `json:"low,omitempty"`
	MAD    *float64 `json:"mad,omitempty"`
	Median *float64 `json:"median,omitempty"`
	Runs   int      `json:"runs"`
}

// Metadata keys of a table check's result (dy_table__<name>).
const (
	// MetaValue is the check's value: its metric, or its condition's truth (null when NULL).
	MetaValue = "tablegate/value"
	// MetaMin and MetaMax are a metric's bounds, when declared.
	MetaMin = "tablegate/min"
	MetaMax = "tablegate/max"
	// MetaCompared are a comparison condition's sides: expr, value and, for a newest time, age_s.
	MetaCompared = "tablegate/compared"
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
	// InPlace: the run had no output, so there is no table to keep.
	InPlace bool
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
	written := "Nothing was written (neither the table nor the quarantine), so the last-known-good table is unchanged."
	if e.InPlace {
		written = "The run validated in place (no output)."
	}
	return fmt.Sprintf("%s of %s failed: %s. %s "+
		"Fix the input, or the check's bounds; a check declared severity: warn reports without stopping the run.",
		strings.ToUpper(noun[:1])+noun[1:], e.Schema, strings.Join(parts, "; "), written)
}

// NonFinite is NaN or an infinity as reports spell it, the failing rows' samples and a table
// check's value alike: "NaN", "Infinity", "-Infinity".
func NonFinite(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return "NaN"
}
