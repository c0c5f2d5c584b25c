package main

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSampleReportsWhatItProduced: sample names the rules it does not control and reports the
// invalid share it wrote, which validate then finds.
func TestSampleReportsWhatItProduced(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.write("grouped.yaml", ordersYAML+"  - name: few_per_note\n    sql: count(*) < 100000\n    group_by: note\n")
	out := f.path("s.duckdb") + ":orders"
	code, stdout, stderr := cli(t, "sample", "--schema", s, "--rows", "5000", "--invalid-rate", "0.2", "--seed", "3", "--out", out)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "asking for 20.00% that break one of")
	assert.Contains(t, stdout, "note: the generator does not control 'amount_small' (custom SQL), 'few_per_note' (group rule)")
	m := regexp.MustCompile(`validated: (\d+) of 5000 rows \((\d+\.\d\d)%\) are invalid \(fail an error rule\); aborted`).FindStringSubmatch(stdout)
	require.NotNil(t, m, stdout)
	invalid, _ := strconv.Atoi(m[1])
	// A share of the broken rows break the warn rule (note max_length), so they stay valid.
	assert.Greater(t, invalid, 500)
	assert.Less(t, invalid, 1000)

	code, stdout, _ = cli(t, "validate", "--schema", s, "--input", out, "--format", "json")
	require.Equal(t, 1, code)
	assert.Equal(t, float64(invalid), oneJSON(t, stdout)["rows"].(map[string]any)["invalid"])

	// A schema the generator controls entirely: no note.
	plain := f.write("plain.yaml", "schema: P\ncolumns:\n  - {name: id, type: Int64, primary_key: true}\n  - {name: x, type: Float64, min: 0}\n")
	code, stdout, stderr = cli(t, "sample", "--schema", plain, "--rows", "1000", "--invalid-rate", "0", "--out", f.path("p.parquet"))
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "does not control")
	assert.Contains(t, stdout, "validated: 0 of 1000 rows (0.00%) are invalid (fail an error rule); all_valid")
}
