package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCSVOptions: --csv-null, --csv-delimiter and --csv-header steer how a CSV is read, and are
// refused where they cannot apply.
func TestCSVOptions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	semi := f.write("semi.csv", "id;amount;note\na;1.5;NA\nb;NA;x\nc;2;\n")
	plain := f.write("plain.csv", "a,1.5,ok\n")
	spelt := f.write("spelt.csv", "id;amount;note\na;1.5;NA\nb;;x\nc;2;\nd;n/a;n/a\n")
	pq := f.parquet("p.parquet", ordersSelect(allValidRows))
	noHeader := f.write("nh.yaml", "schema: NH\ncolumns:\n  - {name: column0, type: String}\n  - {name: column1, type: Float64}\n  - {name: column2, type: String}\n")

	cases := []struct {
		name    string
		args    []string
		code    int
		invalid float64 // rows.invalid, when the run gets that far
		valid   float64
		err     string
	}{
		{"delimiter and null", []string{"--schema", f.schema, "--input", semi, "--csv-delimiter", ";", "--csv-null", "NA"}, 1, 1, 2, ""},
		// Without --csv-null, "NA" is a value, and not a Float64: the file, line and column are named.
		{"NA without --csv-null", []string{"--schema", f.schema, "--input", semi, "--csv-delimiter", ";"}, 2, 0, 0, `semi.csv line 3, column "amount": "NA" does not read as Float64`},
		// Several spellings of NULL; the empty field is still NULL in the Float64 column (b's
		// amount), and the empty string in the String one (c's note, within max_length).
		{"several nulls", []string{"--schema", f.schema, "--input", spelt, "--csv-delimiter", ";", "--csv-null", "NA", "--csv-null", "n/a"}, 1, 2, 2, ""},
		{"one of two nulls", []string{"--schema", f.schema, "--input", spelt, "--csv-delimiter", ";", "--csv-null", "NA"}, 2, 0, 0,
			`spelt.csv line 5, column "amount": "n/a" does not read as Float64, the column's declared dtype; fix the value or, if it spells a missing value, give --csv-null "n/a" (repeatable)`},
		{"no header", []string{"--schema", noHeader, "--input", plain, "--no-csv-header"}, 0, 0, 1, ""},
		{"header false", []string{"--schema", noHeader, "--input", plain, "--csv-header=false"}, 0, 0, 1, ""},
		{"tab spelt out", []string{"--schema", f.schema, "--input", semi, "--csv-delimiter", `\t`}, 3, 0, 0, "The input has the columns id;amount;note."},
		{"two characters", []string{"--schema", f.schema, "--input", semi, "--csv-delimiter", ";;"}, 2, 0, 0, `--csv-delimiter ";;": give one ASCII character`},
		{"a quote", []string{"--schema", f.schema, "--input", semi, "--csv-delimiter", `"`}, 2, 0, 0, "other than a quote"},
		{"not a CSV", []string{"--schema", f.schema, "--input", pq, "--csv-null", "NA"}, 2, 0, 0, "apply to a CSV input (.csv, .tsv); " + pq + " is not one"},
		{"with a query", []string{"--schema", f.schema, "--query", "SELECT 1", "--csv-delimiter", ";"}, 2, 0, 0, "not to --query"},
		{"header flags disagree", []string{"--schema", noHeader, "--input", plain, "--csv-header", "--no-csv-header"}, 2, 0, 0, "disagree"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, _ := cli(t, append([]string{"validate", "--format", "json"}, tc.args...)...)
			assert.Equal(t, tc.code, code, stdout)
			rep := oneJSON(t, stdout)
			if tc.err != "" {
				_, msg := errorOf(rep)
				assert.Contains(t, msg, tc.err)
				return
			}
			rows := rep["rows"].(map[string]any)
			assert.Equal(t, tc.valid, rows["valid"])
			assert.Equal(t, tc.invalid, rows["invalid"])
		})
	}
}

// TestIntegerMatchesHugeint: NDJSON's type detection reads a large whole number as HUGEINT, which
// an Integer column accepts, bounds included.
func TestIntegerMatchesHugeint(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.write("big.ndjson", "{\"n\": 1}\n{\"n\": 9223372036854775808}\n{\"n\": -5}\n")
	s := f.write("big.yaml", "schema: Big\ncolumns:\n  - {name: n, type: Integer, min: 0}\n")
	code, stdout, stderr := cli(t, "validate", "--schema", s, "--input", in, "--format", "json")
	require.Equal(t, 1, code, stderr)
	rep := oneJSON(t, stdout)
	assert.Equal(t, "aborted", rep["outcome"])
	assert.Equal(t, float64(1), rep["rows"].(map[string]any)["invalid"])
	// Int64 does not: the message names the line and the value.
	s = f.write("big64.yaml", "schema: Big\ncolumns:\n  - {name: n, type: Int64}\n")
	code, _, stderr = cli(t, "validate", "--schema", s, "--input", in)
	require.Equal(t, 2, code)
	assert.Contains(t, stderr, `big.ndjson line 2, column "n": "9223372036854775808" does not read as Int64`)
}
