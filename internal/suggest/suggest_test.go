package suggest

import "testing"

func TestNearest(t *testing.T) {
	keys := []string{"name", "type", "nullable", "unique", "primary_key", "min", "max", "min_length", "max_length", "regex", "is_in"}
	dtypes := []string{"Bool", "Int8", "Int32", "Int64", "Integer", "Float64", "String", "Datetime", "Duration"}
	tests := []struct {
		word       string
		candidates []string
		want       string
	}{
		{"nulable", keys, "nullable"},
		{"nullabel", keys, "nullable"},
		{"primarykey", keys, "primary_key"},
		{"uniqe", keys, "unique"},
		{"string", dtypes, "String"},
		{"int64", dtypes, "Int64"},
		{"DATETIME", dtypes, "Datetime"},
		{"Strng", dtypes, "String"},
		{"colour", keys, ""},     // nothing close
		{"", keys, ""},           // empty word
		{"x", []string{}, ""},    // no candidates
		{"naem", keys, "name"},   // a swap is one edit
		{"mín", keys, "min"},     // Unicode counts in runes
		{"Int6", dtypes, "Int8"}, // ties go to the earlier candidate
	}
	for _, tc := range tests {
		if got := Nearest(tc.word, tc.candidates); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	if got := Hint("nulable", keys); got != " (did you mean 'nullable'?)" {
		t.Errorf("Hint = %q", got)
	}
	if got := Hint("zzzzzz", keys); got != "" {
		t.Errorf("Hint = %q", got)
	}
}
