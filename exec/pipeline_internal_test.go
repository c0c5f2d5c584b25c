package exec

import (
	"encoding/json"
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
		write = compile.Writing
		drop  = compile.DropQuarant
		plain = compile.PlainGroups
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
		{"all valid, written", 10, 0, []int64{0}, outcome.PolicyQuarantine, true, true, 0, false, none | valid | table | need | write | drop | plain},
		{"all valid, a warning fails", 10, 0, []int64{4}, outcome.PolicyAbort, true, false, 0, true, none | valid | samp | fail | table | need | write | drop | plain},
		{"aborted: nothing written", 10, 3, []int64{3}, outcome.PolicyAbort, true, false, 0, true, inv | valid | samp | fail | plain},
		{"aborted, row sample: the valid rows are sampled", 10, 3, []int64{3}, outcome.PolicyAbort, true, false, 2, true, inv | valid | samp | fail | need | plain},
		{"quarantined", 10, 3, []int64{3}, outcome.PolicyQuarantine, true, true, 0, true, inv | valid | samp | fail | table | quar | need | write | plain},
		{"no valid rows: only the quarantine", 10, 10, []int64{10}, outcome.PolicyQuarantine, true, true, 0, true, inv | samp | fail | quar | write | plain},
		{"in place", 10, 3, []int64{3}, outcome.PolicyAbort, false, false, 0, false, inv | valid | fail | plain},
		{"empty input", 0, 0, []int64{0}, outcome.PolicyQuarantine, true, true, 0, false, none | table | need | write | drop | plain},
		{"filter, every row invalid", 10, 10, []int64{10}, outcome.PolicyFilter, false, true, 0, true, inv | samp | fail | plain},
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

// TestBuildChecks: the report's checks from the counts and samples alone, at each
// granularity: who passed, the counts a check shows, each check's severity from its rules.
// Pure: no database.
func TestBuildChecks(t *testing.T) {
	p, err := compile.Compile(schema.New("Gate",
		schema.Int64("a").Min(0),
		schema.String("w").Nullable().MaxLength(2).Severity(schema.Warn),
	))
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]int{}
	for i, r := range p.Rules {
		index[r.Name] = i
	}
	failed := make([]int64, len(p.Rules))
	failed[index["a|min"]], failed[index["w|max_length"]] = 4, 1
	stats := ruleStats{invalid: 4, failed: failed}
	sample := []json.RawMessage{json.RawMessage(`{"a":-1}`)}
	detail := &failureDetail{samples: map[int][]json.RawMessage{index["a|min"]: sample}, groupFailed: map[string]int64{"dy_schema__rules": 5}}
	type want struct {
		passed   bool
		severity outcome.Severity
		count    int64
	}
	// A check's severity is its rules': ERROR when an error rule failed, else WARN, whatever the
	// outcome; the column check is always ERROR.
	for _, c := range []struct {
		name string
		opts Options
		want map[string]want
	}{
		{"per rule", Options{}, map[string]want{
			"dy_schema__columns":      {true, outcome.SeverityError, 0},
			"dy_rule__a__min":         {false, outcome.SeverityError, 4},
			"dy_rule__a__nullability": {true, outcome.SeverityWarn, 0},
			"dy_rule__w__max_length":  {false, outcome.SeverityWarn, 1},
		}},
		{"per schema", Options{Granularity: PerSchema}, map[string]want{
			"dy_schema__rules": {false, outcome.SeverityError, 5},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			checks := buildChecks(p, Asset{Plan: p}, c.opts, stats, detail, nil)
			byName := map[string]outcome.Check{}
			for _, ch := range checks {
				byName[ch.Name] = ch
			}
			for name, w := range c.want {
				ch, ok := byName[name]
				if !ok {
					t.Fatalf("no check %s in %v", name, checks)
				}
				if ch.Passed != w.passed || ch.Severity != w.severity || ch.Failed != w.count {
					t.Errorf("%s: passed %v, severity %s, count %v; want %v, %s, %v", name, ch.Passed, ch.Severity, ch.Failed, w.passed, w.severity, w.count)
				}
			}
			if c.opts.Granularity == "" {
				if got := byName["dy_rule__a__min"].Samples; len(got) != 1 {
					t.Errorf("a|min's sample: %v", got)
				}
			}
		})
	}
}
