package duckdb_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablegate/tablegate/runner"
)

// TestTraceLines: with Config.Trace set, every statement of a run prints its wall time and
// the process's CPU time over it, which the statements that read 2M rows take some of, and the
// background fsync of each Parquet output its wall time alone (its CPU delta would be the next
// COPY's): the two forms the harness and the kill test read. Not parallel: it sets the
// environment and redirects stderr.
func TestTraceLines(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := runner.ParquetInput{Path: e.parquet("in.parquet", ordersSelect(mixedRows)+
		" UNION ALL SELECT 'k' || i, (i % 900)::DOUBLE, NULL FROM range(2000000) t(i)")}
	out := runner.ParquetOutput{Path: e.path("out", "orders.parquet")}
	_, trace, err := runTraced(t, ordersSchema(), runner.Asset{Input: in, Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err)

	withCPU := regexp.MustCompile(`^tablegate trace: +([0-9]+\.[0-9]{3})s +([0-9]+\.[0-9]{3})s cpu  (.+)$`)
	wallOnly := regexp.MustCompile(`^tablegate trace: +[0-9]+\.[0-9]{3}s  (.+)$`)
	var copies, fsyncs int
	var cpu float64
	for _, line := range strings.Split(strings.TrimSpace(trace), "\n") {
		if m := withCPU.FindStringSubmatch(line); m != nil {
			c, err := strconv.ParseFloat(m[2], 64)
			require.NoError(t, err)
			cpu += c
			assert.False(t, strings.HasPrefix(m[3], "fsync "), "an fsync with a CPU time: %q", line)
			if strings.HasPrefix(m[3], "COPY ") {
				copies++
			}
			continue
		}
		m := wallOnly.FindStringSubmatch(line)
		require.NotNil(t, m, "not a trace line: %q", line)
		assert.True(t, strings.HasPrefix(m[1], "fsync "), "only the background fsync lacks a CPU time: %q", line)
		fsyncs++
	}
	assert.Positive(t, cpu, "the statements' CPU time over 2M rows, in:\n%s", trace)
	assert.Equal(t, 2, copies, "the table's and the quarantine's COPY, in:\n%s", trace)
	assert.Equal(t, 2, fsyncs, "one fsync per output, in:\n%s", trace)
}
