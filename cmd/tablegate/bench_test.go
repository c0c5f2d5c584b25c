package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBenchCommand: bench times the floor, counts-only and full validation in one run, prints
// the ratios and what each rule family adds, logs progress, and writes JSON only where told.
func TestBenchCommand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.path("data", "orders.parquet")
	require.NoError(t, os.MkdirAll(f.path("data"), 0o755))
	code, _, stderr := cli(t, "sample", "--schema", f.schema, "--rows", "3000", "--invalid-rate", "0.05", "--out", in)
	require.Equal(t, 0, code, stderr)
	outDir := f.path("results")
	code, stdout, stderr := cli(t, "bench", "--schema", f.schema, "--input", in, "--runs", "1", "--out-dir", outDir)
	require.Equal(t, 0, code, stderr)

	assert.Contains(t, stdout, "Orders on "+in+": 3,000 rows, median of 1 runs\n")
	assert.Regexp(t, `(?m)^  counts-only validation +\d+\.\d{3}s +\d+\.\d\dx the floor$`, stdout)
	assert.Regexp(t, `(?m)^  full validation \(table \+ quarantine\) +\d+\.\d{3}s +\d+\.\d\dx the floor$`, stdout)
	for _, fam := range []string{"amount_small", "primary_key", "nullability", "min", "inf", "nan", "max_length"} {
		assert.Regexp(t, regexp.MustCompile(`(?m)^    `+fam+` +[+-]\d+\.\d{3}s +[+-]\d+\.\d%  \(\d rules?\)$`), stdout)
	}
	assert.Regexp(t, `(?m)^    nullability .*\(2 rules\)$`, stdout, "id and amount; note is nullable")
	assert.Regexp(t, `(?m)^bench: floor \(plain DuckDB copy\), run 1 of 1: \d+\.\d{3}s$`, stderr)
	assert.Regexp(t, `(?m)^bench: counts-only without max_length, run 1 of 1: \d+\.\d{3}s$`, stderr)

	data, err := os.ReadFile(f.path("results", "bench.json"))
	require.NoError(t, err)
	var res benchResult
	require.NoError(t, json.Unmarshal(data, &res))
	assert.Equal(t, int64(3000), res.Rows)
	assert.Greater(t, res.Floor, 0.0)
	assert.Greater(t, res.Counts, 0.0)
	assert.Greater(t, res.Full, 0.0)
	assert.InDelta(t, res.Counts/res.Floor, res.CountsRatio, 1e-9)
	// The noise warning follows the measured time, whatever the machine's load made it.
	noise := regexp.MustCompile(`(?m)^  a counts-only run takes \d+\.\d{3}s here: at this size the per-family figures are mostly noise`)
	assert.Equal(t, res.Counts < smallRun, noise.MatchString(stdout), "counts-only %.3fs", res.Counts)
	assert.Len(t, res.Families, 7)
	for _, fc := range res.Families {
		assert.Empty(t, fc.Error, fc.Family)
		assert.InDelta(t, res.Counts-fc.Without, fc.Adds, 1e-9)
	}
	// Nothing is left beside the input: the outputs went to a scratch folder.
	entries, err := os.ReadDir(f.path("data"))
	require.NoError(t, err)
	require.Len(t, entries, 1)

	// Without --out-dir it writes no file; --progress none logs nothing.
	code, _, stderr = cli(t, "bench", "--schema", f.schema, "--input", in, "--runs", "1", "--progress", "none")
	require.Equal(t, 0, code, stderr)
	assert.False(t, strings.Contains(stderr, "bench:"), stderr)
	code, _, stderr = cli(t, "bench", "--schema", f.schema, "--input", in, "--runs", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--runs 0: at least 1")
}

// TestBenchSchemaSeverity: a custom rule that the schema-level severity names is measured (the
// variant without it drops the severity too, not the family), and two runs say their noise.
func TestBenchSchemaSeverity(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.path("orders.parquet")
	code, _, stderr := cli(t, "sample", "--schema", f.schema, "--rows", "500", "--out", in)
	require.Equal(t, 0, code, stderr)
	s := f.write("sev.yaml", strings.Replace(ordersYAML, "rules:", "severity: {amount_small: warn, primary_key: warn}\nrules:", 1))
	code, stdout, stderr := cli(t, "bench", "--schema", s, "--input", in, "--runs", "2", "--progress", "none")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "not measured")
	assert.Regexp(t, `(?m)^    amount_small +[+-]\d+\.\d{3}s`, stdout)
	assert.Regexp(t, `(?m)^    primary_key +[+-]\d+\.\d{3}s`, stdout)
	assert.Regexp(t, `(?m)^  the counts-only runs varied by ±\d+\.\d{3}s: a family that adds less is within the noise$`, stdout)
}
