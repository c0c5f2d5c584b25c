package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate"
)

// cliIn runs the command line in process in a given console.
func cliIn(t *testing.T, con console, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runIn(context.Background(), con, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestTextOutput: the text shows one header line, each failing check's declared severity and
// whether it blocked, its count aligned, and up to 3 failing rows unless --samples says.
func TestTextOutput(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.parquet("mixed.parquet", ordersSelect(mixedRows))
	code, stdout, _ := cli(t, "validate", "--schema", f.schema, "--input", in)
	require.Equal(t, 1, code)
	lines := strings.Split(stdout, "\n")
	assert.Equal(t, "FAIL Orders: aborted — 8 input, 3 valid, 5 invalid", lines[0])
	assert.Equal(t, 1, strings.Count(stdout, "Orders"), "the schema is named once")
	assert.NotContains(t, stdout, "\x1b[", "no colour when stdout is not a terminal")
	assert.Contains(t, stdout, "    ERROR blocked  dy_rule__amount__min       3 failed (37.5%)  amount >= 0\n"+
		"          most frequent failing values: -1.0 (1 row), -2.0 (1 row), -5.0 (1 row)\n")
	assert.Contains(t, stdout, "    WARN           dy_rule__note__max_length  1 failed (12.5%)  note length <= 5 bytes\n")
	assert.Contains(t, stdout, `          {"id":"b","amount":-1.0,"note":"hi"}`+"\n")
	assert.Contains(t, stdout, `          {"id":"c","amount":2.0,"note":"toolong"}`+"\n")

	// --samples 1 shows one row per check and says how many more the JSON has; 0 shows none.
	code, stdout, _ = cli(t, "validate", "--schema", f.schema, "--input", in, "--samples", "1")
	require.Equal(t, 1, code)
	assert.Equal(t, 4, strings.Count(stdout, `{"id":`), stdout)
	code, stdout, _ = cli(t, "validate", "--schema", f.schema, "--input", in, "--samples", "0")
	require.Equal(t, 1, code)
	assert.NotContains(t, stdout, `{"id":`)
	// --row-sample acts in text too.
	code, stdout, _ = cli(t, "validate", "--schema", f.schema, "--input", in, "--row-sample", "2", "--samples", "0")
	require.Equal(t, 1, code)
	assert.Contains(t, stdout, "  valid sample:\n    {\"id\":\"a\",\"amount\":1.0,\"note\":null}\n    {\"id\":\"c\"")
	assert.Contains(t, stdout, "  invalid sample:\n    {\"id\":\"b\"")

	// Colour on a terminal; none with NO_COLOR.
	tty := console{lookupEnv: envOf(nil), stdoutTTY: true}
	code, stdout, _ = cliIn(t, tty, "validate", "--schema", f.schema, "--input", in)
	require.Equal(t, 1, code)
	assert.True(t, strings.HasPrefix(stdout, "\x1b[1m\x1b[31mFAIL\x1b[0m Orders: aborted"), stdout)
	assert.Contains(t, stdout, "\x1b[33mWARN \x1b[0m          dy_rule__note__max_length")
	tty.lookupEnv = envOf(map[string]string{"NO_COLOR": "1"})
	_, stdout, _ = cliIn(t, tty, "validate", "--schema", f.schema, "--input", in)
	assert.NotContains(t, stdout, "\x1b[")
	allValid := f.parquet("valid.parquet", ordersSelect(allValidRows))
	tty.lookupEnv = envOf(nil)
	code, stdout, _ = cliIn(t, tty, "validate", "--schema", f.schema, "--input", allValid)
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(stdout, "\x1b[1m\x1b[32mPASS\x1b[0m Orders: all_valid — 2 input, 2 valid, 0 invalid\n"), stdout)
}

// TestTextCaps: invalid_by_rules shows the top 10 sets and counts the rest; the abort message
// names at most 10 rules; counts of any width stay aligned.
func TestTextCaps(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var cols, sel strings.Builder
	cols.WriteString("schema: Wide\ncolumns:\n")
	for k := range 12 {
		fmt.Fprintf(&cols, "  - name: c%d\n    type: Int64\n    min: 0\n", k)
		// c_k fails on every (k+2)th row: counts from 10,000 down to 1,538, many rule sets.
		fmt.Fprintf(&sel, ", CASE WHEN i %% %d = 0 THEN -1 ELSE 1 END::BIGINT AS c%d", k+2, k)
	}
	schemaPath := f.write("wide.yaml", cols.String())
	q := "SELECT i" + sel.String() + " FROM range(20000) t(i)"
	code, stdout, stderr := cli(t, "validate", "--schema", schemaPath, "--query", q)
	require.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, ", and 2 more rules. The run validated in place")
	assert.Contains(t, stderr, "10000 by 'c0|min'")
	assert.NotContains(t, stderr, "'c11|min'", "the rule with the fewest failures is counted, not named")

	i := strings.Index(stdout, "  invalid rows by rules:\n")
	require.Greater(t, i, 0)
	sets := strings.Split(strings.TrimSuffix(stdout[i:], "\n"), "\n")[1:]
	require.Greater(t, len(sets), 11)
	assert.Regexp(t, `^    … \d+ more \(see --format json\)$`, sets[10])
	assert.Equal(t, "  health: Degraded", sets[11])
	width := len(regexp.MustCompile(`^\s*[\d,]+`).FindString(sets[0]))
	for _, l := range sets[:10] {
		assert.Len(t, regexp.MustCompile(`^\s*[\d,]+`).FindString(l), width, "counts aligned: %q", l)
	}
	// Failing checks: the " failed" column lines up, however many digits.
	var at []int
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "    ERROR") {
			at = append(at, strings.Index(l, " failed"))
		}
	}
	require.Len(t, at, 12)
	for _, a := range at {
		assert.Equal(t, at[0], a)
	}
	assert.Contains(t, stdout, " 10,000 failed")
	assert.Contains(t, stdout, "  1,539 failed")
}

// TestTextLeadsWithErrors: failing checks at ERROR come first, in check order, then those at
// WARN; a rule check with a tolerance says how it was judged.
func TestTextLeadsWithErrors(t *testing.T) {
	t.Parallel()
	share := func(f float64) *float64 { return &f }
	checks := []tablegate.Check{
		{Name: "dy_rule__a__regex", Severity: tablegate.CheckWarn, Failed: 2, Share: share(0.02), Description: "a"},
		{Name: "dy_rule__b__min", Severity: tablegate.CheckError, Failed: 1, Share: share(0.01), Description: "b"},
		{Name: "dy_rule__c__max", Passed: true, Severity: tablegate.CheckWarn, Description: "c"},
		{Name: "dy_rule__d__min", Severity: tablegate.CheckWarn, Failed: 3, Share: share(0.03), Description: "d",
			Tolerance: &tablegate.CheckTolerance{Error: "5%"}, ResultDescription: "3 rows failed. Within the error tolerance of 5% of the input: tolerated, the run goes on."},
		{Name: "dy_rule__e__max", Severity: tablegate.CheckError, Failed: 10, Share: share(0.1), Description: "e"},
	}
	var b bytes.Buffer
	printChecks(&b, checks, textStyle{})
	want := "  checks: 5, 4 failing\n" +
		"    ERROR dy_rule__b__min     1 failed  (1%)  b\n" +
		"    ERROR dy_rule__e__max    10 failed (10%)  e\n" +
		"    WARN  dy_rule__a__regex   2 failed  (2%)  a\n" +
		"    WARN  dy_rule__d__min     3 failed  (3%)  d\n" +
		"          3 rows failed. Within the error tolerance of 5% of the input: tolerated, the run goes on.\n"
	assert.Equal(t, want, strings.ReplaceAll(b.String(), "          dy_", " dy_"))
}

// TestToleranceCLI: `check` and `checks` show the declared tolerances; a bad one is refused with
// its file and line; a run within an error tolerance without a quarantine writes every row and
// exits 0 with the check at WARN.
func TestToleranceCLI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	schemaFile := f.write("t.yaml", "schema: T\ncolumns:\n  - name: id\n    type: Int64\n    min: 0\n    tolerance: {min: {warn: 1, error: 50%}}\n")
	code, stdout, _ := cli(t, "check", "--schema", schemaFile)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "  id|min (error) tolerates warn 1, error 50%\n")
	code, stdout, _ = cli(t, "checks", "--schema", schemaFile)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "id >= 0 [id|min tolerates warn 1, error 50%]")
	code, stdout, _ = cli(t, "checks", "--schema", schemaFile, "--format", "json")
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, `"tolerance": {
            "error": "50%",
            "warn": "1"
          }`)

	bad := f.write("bad.yaml", "schema: T\ncolumns:\n  - name: id\n    type: Int64\n    min: 0\n    tolerance: {min: {error: -3}}\n")
	code, _, stderr := cli(t, "check", "--schema", bad)
	require.NotEqual(t, 0, code)
	assert.Contains(t, stderr, "bad.yaml:6")
	assert.Contains(t, stderr, "is -3 rows; a limit is 0 rows or more")

	in := f.parquet("in.parquet", "SELECT * FROM (VALUES (1::BIGINT), (-1), (-2), (4)) AS t(id)")
	out := f.path("out.parquet")
	code, stdout, _ = cli(t, "validate", "--schema", schemaFile, "--input", in, "--out", out)
	require.Equal(t, 0, code, stdout)
	assert.Contains(t, stdout, "WARN out (T): all_valid — 4 input, 4 valid, 0 invalid")
	assert.Contains(t, stdout, "    WARN           dy_rule__id__min  2 failed (50%)  id >= 0\n", "within its tolerance, the blocking check blocked nothing")
	assert.Contains(t, stdout, "2 rows failed. Within the error tolerance of 50% of the input: tolerated, the run goes on.")
	assert.Len(t, f.parquetRows(out), 4)
}
