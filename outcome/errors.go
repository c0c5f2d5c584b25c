package outcome

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/internal/suggest"
)

// RuleCount is how many invalid rows failed one rule.
type RuleCount struct {
	Rule  string
	Count int64
}

// ColumnSchemaError means the input's columns or dtypes are not the schema's. Nothing was read or
// written.
type ColumnSchemaError struct {
	Schema     string
	Mismatches []casting.Mismatch
	// Producer is what made the input, for the advice: "file", "table" or "query" ("" is query).
	Producer string
	// Columns are the input's columns, listed when a declared column is missing.
	Columns []string
	// References are the problems of foreign-key rules' reference data (the input's own columns
	// matched): a key column the reference lacks, or holds in another type than the key's dtype.
	References []ReferenceMismatch
}

// ReferenceMismatch is a column of a reference's data that does not fit its rule's key.
type ReferenceMismatch struct {
	Rule  string // flight|references
	Input string // the reference data, as the schema names it
	// Key is the input's key column and DType its declared dtype; Column is the reference's
	// column the key is looked up in, and Actual its DuckDB type (casting.Missing when absent).
	Key, DType, Column, Actual string
	// Columns are the reference's columns, for a did-you-mean when Column is missing.
	Columns []string
}

func (m ReferenceMismatch) String() string {
	if m.Actual == casting.Missing {
		has := "it has " + strings.Join(m.Columns, ", ")
		if n := suggest.Nearest(m.Column, m.Columns); n != "" {
			has = fmt.Sprintf("did you mean '%s'? %s", n, has)
		}
		return fmt.Sprintf("rule %s looks %s up in %s's column %s, which it does not have (%s)", m.Rule, m.Key, m.Input, m.Column, has)
	}
	return fmt.Sprintf("rule %s compares %s (%s) with %s's %s (%s)", m.Rule, m.Key, m.DType, m.Input, m.Column, m.Actual)
}

func (e *ColumnSchemaError) Error() string {
	if len(e.Mismatches) == 0 && len(e.References) > 0 {
		parts := make([]string, len(e.References))
		for i, m := range e.References {
			parts[i] = m.String()
		}
		return fmt.Sprintf("The reference data of %s do not fit their keys: %s. A key is looked up in a column of its own dtype: "+
			"write the reference data with that type, or point the rule at another column. Nothing was read.",
			e.Schema, strings.Join(parts, "; "))
	}
	parts := make([]string, len(e.Mismatches))
	var hints []string
	files := false
	for i, m := range e.Mismatches {
		parts[i] = m.String()
		if m.Cast != "" {
			hints = append(hints, fmt.Sprintf("'%s' %s", m.Column, m.Cast))
		}
		files = files || m.File != ""
	}
	subject, verb := "Column", "does"
	if len(parts) > 1 {
		subject, verb = "Columns", "do"
	}
	producer := e.Producer
	if producer == "" {
		producer = "query"
	}
	msg := fmt.Sprintf("%s %s %s not match %s. Fix the %s that produced it, or cast explicitly. tablegate never casts for you.",
		subject, strings.Join(parts, ", "), verb, e.Schema, producer)
	var declare []string
	missing := false
	for _, m := range e.Mismatches {
		missing = missing || m.Actual == casting.Missing
		if m.File != "" || m.Actual == casting.Missing {
			continue
		}
		if d := casting.Suggest(m.Actual); d != "" {
			declare = append(declare, fmt.Sprintf("'%s' got %s: declare %s", m.Column, m.Actual, d))
		}
	}
	if len(declare) > 0 {
		msg += " To accept the input as it is: " + strings.Join(declare, "; ") + "."
	}
	if missing && len(e.Columns) > 0 {
		msg += " The input has the columns " + strings.Join(e.Columns, ", ") + "."
	}
	if len(hints) > 0 {
		msg += " An explicit cast (--cast) would be: " + strings.Join(hints, ", ") + "."
	}
	if files {
		msg += " Every file of a glob must store each column as the same type: write the files again with one schema."
	}
	return msg
}

// ValidationAbortError means some rows failed an error rule and the asset has no quarantine, so
// nothing was written.
type ValidationAbortError struct {
	Schema  string
	Invalid int64
	Counts  []RuleCount // error rules with failures, in rule order
	// InPlace: the run had no output, so there is no table to keep.
	InPlace bool
}

func (e *ValidationAbortError) Error() string {
	if e.InPlace {
		return fmt.Sprintf("%s failed %s validation, %s. The run validated in place (no output). "+
			"Fix the rows or the rules, or give an output with a quarantine to write the valid rows and keep the invalid ones apart.",
			rowsPhrase(e.Invalid), e.Schema, countsPhrase(e.Counts))
	}
	return fmt.Sprintf("%s failed %s validation, %s. Nothing was written, so the last-known-good table is unchanged. "+
		"Fix the rows or the rules, or declare a quarantine to write the valid rows and keep the invalid ones apart.",
		rowsPhrase(e.Invalid), e.Schema, countsPhrase(e.Counts))
}

// NoValidRowsError means every row failed and the asset has a quarantine; the rows are in the
// quarantine and the table was not written.
type NoValidRowsError struct {
	Schema     string
	Rows       int64
	Counts     []RuleCount
	Quarantine string
}

func (e *NoValidRowsError) Error() string {
	return fmt.Sprintf("All %s failed %s validation, %s. The rows are in %s, with one column per rule. "+
		"The table was not written, so the last-known-good table is unchanged.",
		rowsPhrase(e.Rows), e.Schema, countsPhrase(e.Counts), e.Quarantine)
}

// CastError means an explicit cast met a value that does not convert. Nothing was written.
type CastError struct {
	Column string
	Value  string
	Target string // the dtype, as the schema spells it
}

func (e *CastError) Error() string {
	return fmt.Sprintf("Cannot cast column '%s' to %s: the value %q does not convert. Nothing was written. "+
		"Fix the value in the input, or change the declared dtype.", e.Column, e.Target, e.Value)
}

// InputError means the input cannot be read (missing file, not a table, corrupt data).
type InputError struct {
	Input string
	Err   error
}

func (e *InputError) Error() string {
	return fmt.Sprintf("input %s: %s", e.Input, withoutSQLContext(e.Err))
}
func (e *InputError) Unwrap() error { return e.Err }

// OutputError means the output cannot be written. The previous table is unchanged.
type OutputError struct {
	Output string
	Err    error
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("output %s: %s (the previous table is unchanged)", e.Output, withoutSQLContext(e.Err))
}
func (e *OutputError) Unwrap() error { return e.Err }

// withoutSQLContext drops the excerpt of tablegate's own SQL that DuckDB appends to an error
// ("LINE 1: DESCRIBE SELECT * FROM read_parquet(...)" and a caret): it says nothing about the
// input, and the message already names it.
func withoutSQLContext(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "\n\nLINE "); i >= 0 {
		msg = msg[:i]
	}
	return strings.TrimRight(msg, " \n")
}

func rowsPhrase(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

// phraseRules is how many rules an error message names; the report's checks have every one.
const phraseRules = 10

// countsPhrase names the rules and their counts in rule order; past phraseRules rules, only those
// with the most failing rows, and counts the rest.
func countsPhrase(counts []RuleCount) string {
	top, rest := counts, 0
	if len(counts) > phraseRules {
		order := make([]int, len(counts))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(counts[b].Count, counts[a].Count) })
		order = order[:phraseRules]
		slices.Sort(order)
		top = make([]RuleCount, len(order))
		for i, j := range order {
			top[i] = counts[j]
		}
		rest = len(counts) - phraseRules
	}
	parts := make([]string, len(top))
	for i, c := range top {
		parts[i] = fmt.Sprintf("%d by '%s'", c.Count, c.Rule)
	}
	msg := strings.Join(parts, ", ")
	if rest == 1 {
		msg += ", and 1 more rule"
	} else if rest > 1 {
		msg += fmt.Sprintf(", and %d more rules", rest)
	}
	return msg
}

// TypeName is the error's type name for the report: ColumnSchemaError, ValidationAbortError, …
// An error in the chain may name itself with a TypeName method; errors of no named type (a
// cancelled context, a DuckDB failure) are "Error".
func TypeName(err error) string {
	var named interface{ TypeName() string }
	if errors.As(err, &named) {
		return named.TypeName()
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		t := fmt.Sprintf("%T", e)
		if strings.HasPrefix(t, "*outcome.") {
			return strings.TrimPrefix(t, "*outcome.")
		}
	}
	return "Error"
}
