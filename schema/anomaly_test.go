package schema_test

import (
	"strings"
	"testing"

	"github.com/tablegate/tablegate/schema"
)

// TestAnomalyZeroRefused: an explicit 0 for an anomaly band's lookback, min_history or threshold
// is refused with the words -1 is refused with, at its line. Before, 0 silently meant the
// default (30, 5, 3).
func TestAnomalyZeroRefused(t *testing.T) {
	for _, tc := range []struct{ key, zero, negative string }{
		{"lookback", "lookback must be from 1 to 10000 earlier runs", "lookback must be from 1 to 10000 earlier runs"},
		{"min_history", "min_history is 0; give at least 1 and at most lookback (30)", "min_history is -1; give at least 1 and at most lookback (30)"},
		{"threshold", "threshold is 0; give a positive number of scaled MADs", "threshold is -1; give a positive number of scaled MADs"},
	} {
		for value, want := range map[string]string{"0": tc.zero, "-1": tc.negative, "0.0": tc.zero} {
			if value == "0.0" && tc.key != "threshold" {
				continue
			}
			doc := "schema: S\ncolumns: [{name: a, type: Int64}]\ntable_checks:\n  - name: volume\n    metric: count(*)\n    anomaly: {" + tc.key + ": " + value + "}\n"
			_, err := schema.Parse([]byte(doc), "s.yaml")
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "s.yaml:4") {
				t.Errorf("%s: %s: want an error at s.yaml:4 saying %q, got %v", tc.key, value, want, err)
			}
		}
	}
	// Left out, each is its default.
	s, err := schema.Parse([]byte("schema: S\ncolumns: [{name: a, type: Int64}]\ntable_checks:\n  - {name: volume, metric: count(*), anomaly: {direction: up}}\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.TableChecks[0].Band.WithDefaults(); got.Lookback != 30 || got.MinHistory != 5 || got.Threshold != 3 {
		t.Errorf("defaults: %+v", got)
	}
}
