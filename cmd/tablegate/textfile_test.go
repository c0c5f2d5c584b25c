package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stormsCSV is a storms-like batch: category (Int64 in the schema) is empty in the first 30,000
// rows, past the sample DuckDB's type detection reads, then holds numbers.
func stormsCSV(last string) string {
	var b strings.Builder
	b.WriteString("name,year,category,wind\n")
	for i := range 30000 {
		fmt.Fprintf(&b, "Amy,1975,,%d\n", 25+i%100)
	}
	b.WriteString("Bob,1976,3,100\n\"Caro\nline\",1976,1,80\n")
	b.WriteString(last)
	return b.String()
}

const stormsYAML = `schema: Storms
columns:
  - {name: name, type: String}
  - {name: year, type: Int16}
  - {name: category, type: Int64, nullable: true, min: 1, max: 5}
  - {name: wind, type: Int64}
`

func gzipped(t *testing.T, text string) []byte {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	_, err := z.Write([]byte(text))
	require.NoError(t, err)
	require.NoError(t, z.Close())
	return b.Bytes()
}

// TestTextFilesTypedBySchema: a CSV's columns read as the schema declares them, not as DuckDB
// detects them from a sample; a value that does not read (or that a cast would round) names the
// file, the line and the column; compressed files read the same; a header read as one column
// that holds another delimiter says --csv-delimiter.
func TestTextFilesTypedBySchema(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.write("storms.yaml", stormsYAML)
	good := stormsCSV("Dan,1977,6,90\n")
	gz := f.path("storms.csv.gz")
	require.NoError(t, os.WriteFile(gz, gzipped(t, good), 0o644))
	cases := []struct {
		name, file, content string
		args                []string
		code                int
		invalid             float64
		msg                 string
	}{
		{name: "empty for 30,000 rows", file: "storms.csv", content: good, code: 1, invalid: 1},
		{name: "gzip", file: "storms.csv.gz", code: 1, invalid: 1},
		{name: "not a number", file: "bad.csv", content: stormsCSV("Dan,1977,three,90\n"), code: 2,
			msg: `bad.csv line 30005, column "category": "three" does not read as Int64, the column's declared dtype; fix the value or, if it spells a missing value, give --csv-null "three" (repeatable)`},
		{name: "rounded by a cast", file: "round.csv", content: stormsCSV("Dan,1977,3.7,90\n"), code: 2,
			msg: `round.csv line 30005, column "category": "3.7" does not read as Int64`},
		{name: "out of range", file: "range.csv", content: "name,year,category,wind\nAmy,40000,1,2\n", code: 2,
			msg: `range.csv line 2, column "year": "40000" does not read as Int16`},
		{name: "semicolons", file: "semi.csv", content: "name;year;category;wind\nAmy;1975;;25\n", code: 2,
			msg: `the header reads as one column, "name;year;category;wind", which holds ";": are the fields separated by ";"? give --csv-delimiter ';'`},
		{name: "semicolons given", file: "semi2.csv", content: "name;year;category;wind\nAmy;1975;;25\n", args: []string{"--csv-delimiter", ";"}, code: 0},
		{name: "tabs in a .csv", file: "tabs.csv", content: "name\tyear\tcategory\twind\nAmy\t1975\t\t25\n", code: 2,
			msg: `give --csv-delimiter '\t'`},
		{name: "missing column still said", file: "few.csv", content: "name,year,wind\nAmy,1975,25\n", code: 3,
			msg: "'category' (expected Int64, got <missing>)"},
		{name: "ndjson", file: "storms.ndjson", content: strings.Repeat("{\"name\":\"Amy\",\"year\":1975,\"category\":null,\"wind\":25}\n", 30000) + "\n{\"name\":\"Bob\",\"year\":1976,\"category\":3,\"wind\":100}\n", code: 0},
		{name: "ndjson not a number", file: "bad.ndjson", content: strings.Repeat("{\"name\":\"Amy\",\"year\":1975,\"category\":null,\"wind\":25}\n", 3) + "\n{\"name\":\"Bob\",\"year\":1976,\"category\":\"x\",\"wind\":100}\n", code: 2,
			msg: `bad.ndjson line 5, column "category": "x" does not read as Int64`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := f.path(tc.file)
			if tc.content != "" {
				in = f.write(tc.file, tc.content)
			}
			code, stdout, stderr := cli(t, append([]string{"validate", "--schema", s, "--input", in, "--format", "json"}, tc.args...)...)
			require.Equal(t, tc.code, code, stdout+stderr)
			rep := oneJSON(t, stdout)
			if tc.msg != "" {
				_, msg := errorOf(rep)
				assert.Contains(t, msg, tc.msg)
				return
			}
			assert.Equal(t, tc.invalid, rep["rows"].(map[string]any)["invalid"])
		})
	}
}

// TestInitReadsEveryRow: init on a CSV whose column is empty in the sample DuckDB's detection
// reads declares it by every row (Int64, not String), also compressed, and the schema it
// writes accepts its file.
func TestInitReadsEveryRow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	gz := f.path("storms.csv.gz")
	require.NoError(t, os.WriteFile(gz, gzipped(t, stormsCSV("")), 0o644))
	code, stdout, stderr := cli(t, "init", "--input", gz)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "schema: storms\n")
	assert.Regexp(t, `name: category[^\n]*\n\s*type: Int64`, stdout)
	assert.NotContains(t, stdout, "unique", "30,000 NULLs are duplicates")
	code, _, stderr = cli(t, "init", "--input", f.write("semi.csv", "a;b\n1;2\n"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--csv-delimiter ';'")
}
