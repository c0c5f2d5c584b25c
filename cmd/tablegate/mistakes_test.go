package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMistakesGetAWayOut: each common mistake says what to do, through the command line.
func TestMistakesGetAWayOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cases := []struct {
		name   string
		schema string
		args   []string // after --schema S
		code   int
		want   []string
	}{
		{"misspelt key", "schema: S\ncolumns:\n  - name: a\n    type: Int64\n    nulable: true\n", nil, 2,
			[]string{":5: S, column 'a', key 'nulable': unknown key 'nulable' (did you mean 'nullable'?)"}},
		{"lowercase dtype", "schema: S\ncolumns:\n  - name: a\n    type: string\n", nil, 2,
			[]string{`unknown type "string" (did you mean 'String'?)`}},
		{"tab indentation", "schema: S\ncolumns:\n\t- name: a\n\t  type: Int64\n", nil, 2,
			[]string{"line 3: is indented with a tab; YAML indents with spaces only"}},
		{"binder errors with the others", "schema: S\ncolumns:\n  - name: a\n    type: Int64\n    maxx: 3\n  - name: s\n    type: String\n" +
			"    check: \"_ > 0\"\nrules:\n  - name: r1\n    sql: amount > 0\n", nil, 2,
			[]string{"S has 3 declaration errors:", ":5: S, column 'a', key 'maxx': unknown key 'maxx' (did you mean 'max'?)",
				`:6: S, column 's', key 'check': check check: DuckDB cannot bind "_ > 0"`,
				`:10: S, key 'rules': rule 'r1': DuckDB cannot bind "amount > 0": Binder Error: Referenced column "amount" not found`}},
		{"unknown flag", "schema: S\ncolumns: [{name: a, type: Int64}]\n", []string{"--input", "x.parquet", "--sampels", "3"}, 2,
			[]string{"unknown flag: --sampels (did you mean --samples?)", "Run 'tablegate validate --help' for usage."}},
		{"another tool's flag", "schema: S\ncolumns: [{name: a, type: Int64}]\n", []string{"--input", "x.parquet", "--output", "y.parquet"}, 2,
			[]string{"unknown flag: --output (did you mean --out?)"}},
		{"a flag where a value goes", "schema: S\ncolumns: [{name: a, type: Int64}]\n", []string{"--input", "x.parquet", "--progress", "--format", "json"}, 2,
			[]string{`"--progress" flag: needs a value (auto, plain or none) before --format`}},
		{"integer for a float", "schema: S\ncolumns: [{name: a, type: Float64}]\n", []string{"--query", "SELECT 1::INTEGER AS a"}, 3,
			[]string{"Fix the query that produced it", "'a' got INTEGER: declare Int32 or Integer."}},
		{"runtime error in a rule", "schema: S\ncolumns: [{name: s, type: String}]\nrules:\n  - name: as_number\n    sql: s::INTEGER > 0\n",
			[]string{"--query", "SELECT 'x' AS s"}, 2,
			[]string{"rule 'as_number' ((CAST(s AS INTEGER) > 0)) failed on the data: Conversion Error", "use TRY_CAST(x AS type)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := f.write(strings.ReplaceAll(tc.name, " ", "_")+".yaml", tc.schema)
			cmd := "check"
			if tc.args != nil {
				cmd = "validate"
			}
			code, _, stderr := cli(t, append([]string{cmd, "--schema", path}, tc.args...)...)
			assert.Equal(t, tc.code, code, stderr)
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
		})
	}

	// The mismatch advice names what produced the input: a file here, and lists a CSV's columns
	// when a declared one is missing.
	in := f.parquet("ints.parquet", "SELECT 1::INTEGER AS a, 2::BIGINT AS b")
	path := f.write("floats.yaml", "schema: S\ncolumns: [{name: a, type: Float64}, {name: b, type: String}]\n")
	code, _, stderr := cli(t, "validate", "--schema", path, "--input", in)
	require.Equal(t, 3, code)
	assert.Contains(t, stderr, "Fix the file that produced it")
	assert.Contains(t, stderr, "To accept the input as it is: 'a' got INTEGER: declare Int32 or Integer; 'b' got BIGINT: declare Int64 or Integer.")
	csv := f.write("orders.csv", "id,amount\na,1.5\n")
	code, _, stderr = cli(t, "validate", "--schema", f.schema, "--input", csv)
	require.Equal(t, 3, code)
	assert.Contains(t, stderr, "'note' (expected String, got <missing>)")
	assert.Contains(t, stderr, "The input has the columns id, amount.")

	// An unknown subcommand: cobra's suggestion.
	code, _, stderr = cli(t, "valdate")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "Did you mean this?\n\tvalidate")
}

// TestExtendsKeepsColumnPosition: a child that redeclares a parent's column keeps it in the
// parent's place, so its checks come in the table's column order.
func TestExtendsKeepsColumnPosition(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	child := f.write("child.yaml", "schema: Child\nextends: orders.yaml\ncolumns:\n  - name: amount\n    type: Float64\n    min: 1\n  - name: extra\n    type: String\n")
	in := f.parquet("in.parquet", "SELECT 'a' AS id, 0.5::DOUBLE AS amount, NULL::VARCHAR AS note, 'x' AS extra")
	code, stdout, stderr := cli(t, "validate", "--schema", child, "--input", in, "--format", "json")
	require.Equal(t, 1, code, stderr)
	rep := oneJSON(t, stdout)
	var cols []string
	for _, n := range checkNames(rep) {
		if parts := strings.Split(n, "__"); len(parts) == 3 && parts[0] == "dy_rule" {
			if len(cols) == 0 || cols[len(cols)-1] != parts[1] {
				cols = append(cols, parts[1])
			}
		}
	}
	assert.Equal(t, []string{"id", "amount", "note", "extra"}, cols, checkNames(rep))
	assert.Equal(t, "amount >= 1", checkByName(t, rep, "dy_rule__amount__min")["description"])
}
