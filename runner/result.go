package runner

import (
	"encoding/json"
	"errors"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
)

// ErrNoSourceData is the cause of an input error when the input matches no data at all (a
// missing file, a glob that matches nothing); a Backend's Open wraps it.
var ErrNoSourceData = errors.New("no source data")

// Job is what one engine-neutral run executes: the plan, over the Backend's input, with the
// program's options (compile.ProgramOptions.Output names the backend's write targets) and the
// failure policy. Output tells that the asset has an output the run writes unless it aborts.
type Job struct {
	Plan    *compile.Plan
	Program compile.ProgramOptions
	Policy  outcome.Policy
	Output  bool
	// Quarantine declares a quarantine (the invalid rows are written beside the output).
	Quarantine bool
	// Groups are the rule indexes of every check the report shows, in rule order (a rule's own
	// check is its one index): each shows at most Program.Samples failing rows.
	Groups [][]int
	// Progress, when set, is told when the run begins writing its outputs.
	Progress func(phase string, rows int64)
	// JudgeTables judges the values the TableChecks step read (one per table check of the plan,
	// nil for NULL) and tells whether they fail the run: the table_check_failed outcome, which
	// writes nothing. Needed when the plan has table checks.
	JudgeTables func(values []any) (fails bool)
}

// Result is what a run found: the counts, the outcome, what the report's checks are built from,
// and what it wrote. Counted tells that the rules' failures were counted (the outcome is known).
type Result struct {
	Facts   compile.Facts
	Counted bool
	Outcome outcome.Outcome
	// Invalid is the rows failing an error rule, Failing those failing some rule; Failed, per
	// rule, the rows failing it.
	Invalid, Failing int64
	Failed           []int64
	// CheckFailed is, per collapsed check (compile.ProgramOptions.Checks, in order), the rows
	// failing some member.
	CheckFailed []int64
	// Samples is, per rule, its failing rows the checks show (JSON objects).
	Samples map[int][]json.RawMessage
	// Values is, per column rule, its most frequent failing values.
	Values map[int][]outcome.ValueCount
	// InvalidByRules, InvalidSample and ValidSample are the report's.
	InvalidByRules []outcome.RuleSet
	InvalidSample  []json.RawMessage
	ValidSample    []json.RawMessage
	// ValidRows and InvalidRows are the statements whose rows go to the caller (compile.ToCaller).
	ValidRows, InvalidRows string
	// Written is what the Writer put in place.
	Written Written
	// Conds are the program's conditions as the run ended.
	Conds compile.Cond
}
