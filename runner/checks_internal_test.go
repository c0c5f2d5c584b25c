package runner

import (
	"encoding/json"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/schema"
)

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
