package spark

import (
	"strings"
	"testing"
)

func TestBindSQL(t *testing.T) {
	for _, tc := range []struct{ in, ref, want string }{
		{"_ > 0", "`a`", "(`a` > 0)"},
		{"lower(_) = _ -- a comment (", "`a`", "(lower(`a`) = `a`)"},
		{"_ = '_' AND `_` = \"_\"", "x", "(x = '_' AND `_` = \"_\")"},
		{"a_b /* _ /* nested */ _ */ > 1", "x", "(a_b   > 1)"},
		{"extract(YEAR FROM _) > 2000", "`d`", "(extract(YEAR FROM `d`) > 2000)"},
		{"_ RLIKE 'it\\'s _'", "`s`", "(`s` RLIKE 'it\\'s _')"},
		{"größe > 0", "", "(größe > 0)"},
	} {
		got, err := bindSQL(tc.in, tc.ref)
		if err != nil || got != tc.want {
			t.Errorf("bindSQL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, why string }{
		{"", "empty"},
		{"a > 0; DROP TABLE t", "';'"},
		{"a IN (SELECT 1)", "no subquery"},
		{"sum(a) OVER ()", "window"},
		{"a > 0) OR (b", "did not open"},
		{"(a > 0", "not closed"},
		{"'open", "not closed"},
		{"/* open", "not closed"},
		{"`open", "not closed"},
		{"__tg_rid > 0", "reserved"},
		{"_ > 0", "schema-level"},
	} {
		_, err := bindSQL(tc.in, "")
		if err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("bindSQL(%q): %v, want an error saying %q", tc.in, err, tc.why)
		}
	}
}
