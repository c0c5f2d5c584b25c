package outcome

import (
	"fmt"
	"sort"
	"strings"
)

// CollectionOutcome is the result of a collection's run as a whole.
type CollectionOutcome string

// The outcomes of a collection's run: passed when every member's outcome succeeds (then every
// member's output is written), failed when one does not (then no member's output is written).
const (
	CollectionPassed CollectionOutcome = "passed"
	CollectionFailed CollectionOutcome = "failed"
)

// CollectionReport is the report of a collection's run: the collection's outcome, a report per
// member in the single-table shape, and what each filter and reference did.
type CollectionReport struct {
	Collection string  `json:"collection"`
	RunID      string  `json:"run_id"`
	StartedAt  string  `json:"started_at"`
	DurationS  float64 `json:"duration_s"`
	// Outcome is nil when the run did not get to the members' outcomes (an error).
	Outcome *CollectionOutcome `json:"outcome"`
	// Written tells that every member's output was written (members without one aside).
	Written bool `json:"written"`
	// CommonPrimaryKey is the key the filters and propagation act on.
	CommonPrimaryKey []string `json:"common_primary_key"`
	// MemberOrder is the members in declaration order; Members their reports by name.
	MemberOrder []string           `json:"member_order"`
	Members     map[string]*Report `json:"members"`
	Filters     []FilterResult     `json:"filters"`
	Error       *ErrorInfo         `json:"error,omitempty"`
	Warnings    []string           `json:"warnings,omitempty"`
}

// CollectionRun ties a member's report to its collection's run: the member's own run id is the
// collection's, a dot and the member's name.
type CollectionRun struct {
	Name   string `json:"name"`
	RunID  string `json:"run_id"`
	Member string `json:"member"`
}

// FilterResult is what one of the collection's filters, propagations or references did: the
// rows of each member it failed (rows that pass their own schema only; a row failing the
// member's schema is counted there).
type FilterResult struct {
	Name string `json:"name"`
	// Kind is one_to_one, one_to_at_least_one, sql, failure_propagation or reference.
	Kind        string           `json:"kind"`
	Description string           `json:"description"`
	Check       string           `json:"check"`
	Failed      map[string]int64 `json:"failed"`
	// Skipped says why the filter did not run (a member it reads is absent); "" it ran.
	Skipped string `json:"skipped,omitempty"`
}

// Succeeded tells whether the collection's run succeeded.
func (r *CollectionReport) Succeeded() bool {
	return r.Outcome != nil && *r.Outcome == CollectionPassed && r.Error == nil
}

// CollectionError is a collection's run in which some member's outcome failed: no member was
// written. errors.As finds each member's typed error (*ValidationAbortError, …).
type CollectionError struct {
	Collection string
	// Members are the failing members' errors, by member name.
	Members map[string]error
}

func (e *CollectionError) Error() string {
	names := make([]string, 0, len(e.Members))
	for n := range e.Members {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "collection %s: %d of its members failed, so no member was written", e.Collection, len(names))
	for _, n := range names {
		fmt.Fprintf(&b, "\n  - %s: %v", n, e.Members[n])
	}
	return b.String()
}

// Unwrap exposes each member's error, in member name order.
func (e *CollectionError) Unwrap() []error {
	names := make([]string, 0, len(e.Members))
	for n := range e.Members {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]error, len(names))
	for i, n := range names {
		out[i] = e.Members[n]
	}
	return out
}

// MemberError is a failure of one member's run that ended the collection's run (its input or
// output, not its outcome).
type MemberError struct {
	Member string
	Err    error
}

func (e *MemberError) Error() string { return "member " + e.Member + ": " + e.Err.Error() }
func (e *MemberError) Unwrap() error { return e.Err }
