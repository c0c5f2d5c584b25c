package outcome

// Policy is what a run does with invalid rows.
type Policy int

// Policies.
const (
	// PolicyAbort fails the run when any row is invalid and writes nothing.
	PolicyAbort Policy = iota
	// PolicyQuarantine writes the valid rows and puts the invalid ones in the quarantine; a run
	// with no valid row fails.
	PolicyQuarantine
	// PolicyFilter hands the valid and the invalid rows to the caller, whatever their numbers.
	PolicyFilter
)

// Decide is the outcome of a run that evaluated its rules over rows input rows, invalid of
// which fail an error rule.
func Decide(rows, invalid int64, p Policy) Outcome {
	switch {
	case invalid == 0:
		return AllValid
	case p == PolicyAbort:
		return Aborted
	case p == PolicyQuarantine && invalid == rows:
		return NoValidRows
	}
	return Quarantined
}
