package main

import (
	"path/filepath"
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

// TestSampleCollectionValidates: a collection's sample at invalid rate 0 validates as a
// collection with every member kept whole; at a rate above 0 every member has invalid rows and
// every filter, the propagation and the reference fail for some.
func TestSampleCollectionValidates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	shop := filepath.Join("..", "..", "sample", "testdata", "shop", "shop.yaml")
	for _, rate := range []string{"0", "0.1"} {
		dir := f.path("rate" + rate)
		code, stdout, stderr := cli(t, "sample", "--collection", shop, "--rows", "3000", "--invalid-rate", rate, "--seed", "2", "--out-dir", dir)
		require.Equal(t, 0, code, stderr)
		for _, m := range []string{"orders", "items", "invoices", "select", "products"} {
			assert.FileExists(t, filepath.Join(dir, m+".parquet"))
			assert.Regexp(t, `validated `+m+`: \d+ of \d+ rows`, stdout)
		}
		code, stdout, stderr = cli(t, "validate", "--collection", shop, "--input-dir", dir, "--out-dir", f.path("out"+rate), "--quarantine", "--format", "json", "--samples", "0")
		rep := oneJSON(t, stdout)
		members := rep["members"].(map[string]any)
		require.Len(t, members, 5)
		if rate == "0" {
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, true, rep["written"])
			for name, m := range members {
				rows := m.(map[string]any)["rows"].(map[string]any)
				assert.Equal(t, rows["input"], rows["valid"], "member %s is not kept whole", name)
				assert.Positive(t, rows["input"], name)
			}
			continue
		}
		for name, m := range members {
			rows := m.(map[string]any)["rows"].(map[string]any)
			assert.Positive(t, rows["invalid"], "member %s has no invalid row at rate 0.1", name)
		}
		filters := rep["filters"].([]any)
		require.Len(t, filters, 5) // three relationships, the propagation, the reference
		for _, fl := range filters {
			fr := fl.(map[string]any)
			var failed float64
			for _, n := range fr["failed"].(map[string]any) {
				failed += n.(float64)
			}
			assert.Positive(t, failed, "%s %s never fails at rate 0.1", fr["kind"], fr["name"])
		}
	}
}

// TestSampleEveryRowInvalidFails: a sample whose every row is invalid, though the rate asked
// for valid ones, is no sample of the schema: sample says which rules it could not fit and exits
// non-zero instead of 0.
func TestSampleEveryRowInvalidFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.write("neg.yaml", "schema: Neg\ncolumns:\n  - {name: a, type: Int64, min: 0}\nrules:\n  - name: negative\n    sql: a < 0\n")
	out := f.path("neg.parquet")
	code, stdout, stderr := cli(t, "sample", "--schema", s, "--rows", "50", "--invalid-rate", "0", "--out", out)
	assert.Equal(t, 2, code, stdout)
	assert.Contains(t, stdout, "validated: 50 of 50 rows (100.00%) are invalid")
	assert.Contains(t, stderr, "every one of the 50 rows of Neg written to "+out+" is invalid, not 0.00%: sample could not fit dy_rule__negative")
	// At rate 1 every row is meant to be invalid.
	code, _, stderr = cli(t, "sample", "--schema", s, "--rows", "50", "--invalid-rate", "1", "--out", f.path("all.parquet"))
	assert.Equal(t, 0, code, stderr)
}
