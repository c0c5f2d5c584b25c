package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTableChecksCLI: a failing error table check exits 1 with TableCheckError and writes
// nothing; the text names the value and the bound; the history keeps each run's value and
// `history --check` shows the series, and the volume band fails a 10x jump.
func TestTableChecksCLI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.write("volume.yaml", `schema: Volume
columns:
  - {name: n, type: Int64, min: 0}
table_checks:
  - name: volume
    metric: count(*)
    anomaly: {min_history: 3}
  - name: mean
    metric: avg(n)
    max: 100000
    severity: warn
`)
	hist := f.path("runs.duckdb")
	out := f.path("out", "volume.parquet")
	for i, rows := range []int{1000, 1010, 990, 1005} {
		in := f.parquet(fmt.Sprintf("in%d.parquet", i), fmt.Sprintf("SELECT range AS n FROM range(%d)", rows))
		code, stdout, stderr := cli(t, "validate", "--schema", s, "--input", in, "--out", out, "--history", hist)
		require.Equal(t, 0, code, "stdout %s\nstderr %s", stdout, stderr)
	}
	in := f.parquet("jump.parquet", "SELECT range AS n FROM range(10000)")
	code, stdout, stderr := cli(t, "validate", "--schema", s, "--input", in, "--out", out, "--history", hist, "--format", "json")
	assert.Equal(t, 1, code)
	rep := oneJSON(t, stdout)
	assert.Equal(t, "table_check_failed", rep["outcome"])
	typ, msg := errorOf(rep)
	assert.Equal(t, "TableCheckError", typ)
	assert.Contains(t, msg, "dy_table__volume (count(*) is 10000, above the band's high")
	assert.Contains(t, stderr, "dy_table__volume")
	rows := f.parquetRows(out)
	assert.Len(t, rows, 1005, "the last good table is kept")

	code, stdout, stderr = cli(t, "validate", "--schema", s, "--input", in, "--out", out, "--history", hist)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stdout, "count(*) is 10000, above the band's high")

	code, stdout, stderr = cli(t, "history", "--history", hist, "--check", "dy_table__volume")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "VALUES, OLDEST FIRST")
	// Values and counts as the page and the text spell them.
	assert.True(t, strings.Contains(stdout, "1,000 1,010 990 1,005 10,000 10,000"), stdout)
	assert.Regexp(t, `(?m)^\S+ \S+ +volume +table_check_failed +Degraded +10,000 +10,000 +0 `, stdout)
}
