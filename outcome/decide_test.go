package outcome_test

import (
	"testing"

	"github.com/tablegate/tablegate/outcome"
)

// TestDecide: the outcome of a run from its counts and policy, without a database.
func TestDecide(t *testing.T) {
	for _, c := range []struct {
		rows, invalid int64
		policy        outcome.Policy
		want          outcome.Outcome
	}{
		{10, 0, outcome.PolicyAbort, outcome.AllValid},
		{0, 0, outcome.PolicyQuarantine, outcome.AllValid},
		{10, 1, outcome.PolicyAbort, outcome.Aborted},
		{10, 10, outcome.PolicyAbort, outcome.Aborted},
		{10, 1, outcome.PolicyQuarantine, outcome.Quarantined},
		{10, 10, outcome.PolicyQuarantine, outcome.NoValidRows},
		{10, 10, outcome.PolicyFilter, outcome.Quarantined},
		{10, 0, outcome.PolicyFilter, outcome.AllValid},
	} {
		if got := outcome.Decide(c.rows, c.invalid, c.policy); got != c.want {
			t.Errorf("Decide(%d, %d, %d) = %s, want %s", c.rows, c.invalid, c.policy, got, c.want)
		}
	}
}
