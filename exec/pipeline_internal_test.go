package exec

import (
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/schema"
)

// TestSampleTakes: each check shows at most N failing rows; a collapsed check takes them from
// its members in rule order and stops once it has N, so a rule whose check is full reads none.
// Pure: no database.
func TestSampleTakes(t *testing.T) {
	p, err := compile.Compile(schema.New("Gate",
		schema.Int64("a").Min(0),
		schema.Int64("m").Min(0).Max(10),
	))
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]int{}
	for i, r := range p.Rules {
		index[r.Name] = i
	}
	// a|min fails every row; m|min two, m|max one.
	failed := make([]int64, len(p.Rules))
	failed[index["a|min"]], failed[index["m|min"]], failed[index["m|max"]] = 1000, 2, 1
	stats := ruleStats{invalid: 1000, failed: failed}
	for _, c := range []struct {
		name string
		opts Options
		n    int
		want map[string]int
	}{
		{"per rule", Options{}, 3, map[string]int{"a|min": 3, "m|min": 2, "m|max": 1}},
		{"per column: m|min's two leave m|max one", Options{Granularity: PerColumn}, 3, map[string]int{"a|min": 3, "m|min": 2, "m|max": 1}},
		{"per column, 2 a check: m|max reads none", Options{Granularity: PerColumn}, 2, map[string]int{"a|min": 2, "m|min": 2}},
		{"per schema: a|min alone fills the sample", Options{Granularity: PerSchema}, 3, map[string]int{"a|min": 3}},
		{"none", Options{}, 0, map[string]int{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := sampleTakes(checkGroups(p, c.opts), stats, c.n)
			want := map[int]int{}
			for name, k := range c.want {
				want[index[name]] = k
			}
			if len(got) != len(want) {
				t.Fatalf("takes %v, want %v", got, want)
			}
			for i, k := range want {
				if got[i] != k {
					t.Errorf("rule %s takes %d, want %d", p.Rules[i].Name, got[i], k)
				}
			}
		})
	}
}

// TestConditions: which of the program's conditions hold for a run's counts, outcome and asset.
// Pure: no database.
func TestConditions(t *testing.T) {
	const (
		inv   = compile.AnyInvalid
		none  = compile.NoInvalid
		valid = compile.AnyValid
		samp  = compile.Sampled
		fail  = compile.AnyFailure
		table = compile.WriteTable
		quar  = compile.WriteQuarant
		need  = compile.NeedValid
	)
	for _, c := range []struct {
		name               string
		total, invalid     int64
		failed             []int64
		policy             outcome.Policy
		output, quarantine bool
		rowSample          int
		sampled            bool
		want               compile.Cond
	}{
		{"all valid, written", 10, 0, []int64{0}, outcome.PolicyQuarantine, true, true, 0, false, none | valid | table | need},
		{"all valid, a warning fails", 10, 0, []int64{4}, outcome.PolicyAbort, true, false, 0, true, none | valid | samp | fail | table | need},
		{"aborted: nothing written", 10, 3, []int64{3}, outcome.PolicyAbort, true, false, 0, true, inv | valid | samp | fail},
		{"aborted, row sample: the valid rows are sampled", 10, 3, []int64{3}, outcome.PolicyAbort, true, false, 2, true, inv | valid | samp | fail | need},
		{"quarantined", 10, 3, []int64{3}, outcome.PolicyQuarantine, true, true, 0, true, inv | valid | samp | fail | table | quar | need},
		{"no valid rows: only the quarantine", 10, 10, []int64{10}, outcome.PolicyQuarantine, true, true, 0, true, inv | samp | fail | quar},
		{"in place", 10, 3, []int64{3}, outcome.PolicyAbort, false, false, 0, false, inv | valid | fail},
		{"empty input", 0, 0, []int64{0}, outcome.PolicyQuarantine, true, true, 0, false, none | table | need},
		{"filter, every row invalid", 10, 10, []int64{10}, outcome.PolicyFilter, false, true, 0, true, inv | samp | fail},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := outcome.Decide(c.total, c.invalid, c.policy)
			got := conditions(c.total, ruleStats{invalid: c.invalid, failed: c.failed}, out, c.output, c.quarantine, c.rowSample, c.sampled)
			if got != c.want {
				t.Errorf("conditions = %q, want %q", got, c.want)
			}
		})
	}
}
