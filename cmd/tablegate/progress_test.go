package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProgressPlain: --progress=plain prints a line per phase with its duration and the rows and
// bytes it worked on; the default prints nothing when stderr is not a terminal.
func TestProgressPlain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.parquet("mixed.parquet", ordersSelect(mixedRows))
	out := f.path("out", "orders.parquet")
	code, _, stderr := cli(t, "validate", "--schema", f.schema, "--input", in, "--out", out, "--quarantine", "--progress=plain")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	require.Len(t, lines, 4, stderr)
	assert.Regexp(t, `^progress: reading input \(\d+ B\): \d+\.\d\ds$`, lines[0])
	assert.Regexp(t, `^progress: evaluating rules \(8 rows, \d+ B\): \d+\.\d\ds$`, lines[1])
	assert.Regexp(t, `^progress: writing outputs \(8 rows, \d+ B\): \d+\.\d\ds$`, lines[2])
	assert.Regexp(t, `^progress: done in \d+\.\d\ds$`, lines[3])

	code, _, stderr = cli(t, "validate", "--schema", f.schema, "--input", in)
	assert.Equal(t, 1, code)
	assert.NotContains(t, stderr, "progress:")

	code, _, stderr = cli(t, "sample", "--schema", f.schema, "--rows", "100", "--out", f.path("s2.parquet"), "--progress", "plain")
	require.Equal(t, 0, code)
	assert.Regexp(t, regexp.MustCompile(`(?m)^progress: writing \S+s2.parquet \(100 rows\): \d+\.\d\ds$`), stderr)

	code, _, stderr = cli(t, "validate", "--schema", f.schema, "--input", in, "--progress", "bar")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `--progress "bar": use auto, plain or none`)
}
