package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tablegate/tablegate/runner"
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

// TestProgressCollection: a collection's run shows each member's phases named after it, the
// collection's filters and the set put in place; stdout keeps only the JSON report, and the
// default shows nothing when stderr is not a terminal.
func TestProgressCollection(t *testing.T) {
	t.Parallel()
	dir := copyShop(t)
	args := []string{"validate", "--collection", filepath.Join(dir, "shop.yaml"), "--input-dir", dir, "--out-dir", filepath.Join(dir, "out"), "--quarantine", "--format", "json"}
	code, stdout, stderr := cli(t, append(args, "--progress", "plain")...)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "passed", oneJSON(t, stdout)["outcome"])
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	var phases []string
	for _, l := range lines[:len(lines)-1] {
		m := regexp.MustCompile(`^progress: (.+?)(?: \([^)]*\))?: \d+\.\d\ds$`).FindStringSubmatch(l)
		require.NotNil(t, m, "line %q of\n%s", l, stderr)
		phases = append(phases, m[1])
	}
	var want []string
	members := []string{"orders", "items", "invoices", "refunds", "products"}
	for _, m := range members {
		want = append(want, m+": reading input", m+": evaluating rules")
	}
	want = append(want, "applying the collection's filters")
	for _, m := range members {
		want = append(want, m+": counting failures")
	}
	for _, m := range members {
		want = append(want, m+": writing outputs")
	}
	want = append(want, "putting every member in place")
	assert.Equal(t, want, phases)
	assert.Regexp(t, `^progress: done in \d+\.\d\ds$`, lines[len(lines)-1])
	assert.Regexp(t, `(?m)^progress: items: evaluating rules \(6 rows, \d+ B\): `, stderr)

	// Not a terminal: auto shows nothing; none never does.
	for _, mode := range []string{"auto", "none"} {
		args[6] = filepath.Join(dir, "out-"+mode)
		code, stdout, stderr = cli(t, append(args, "--progress", mode)...)
		require.Equal(t, exitOK, code, stderr)
		require.Equal(t, "passed", oneJSON(t, stdout)["outcome"])
		assert.NotContains(t, stderr, "progress")
	}
	code, _, stderr = cli(t, append(args, "--progress", "bar")...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `--progress "bar": use auto, plain or none`)

	// sample --collection: each member's write, then the validation of what it wrote.
	code, _, stderr = cli(t, "sample", "--collection", filepath.Join(dir, "shop.yaml"), "--rows", "20", "--out-dir", filepath.Join(dir, "sample"), "--progress", "plain")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `(?m)^progress: items: writing \S+items.parquet: \d+\.\d\ds$`, stderr)
	assert.Regexp(t, `(?m)^progress: items: evaluating rules \(\d+ rows\): \d+\.\d\ds$`, stderr)
	assert.Regexp(t, `(?m)^progress: applying the collection's filters: \d+\.\d\ds\nprogress: orders: counting failures`, stderr)
	assert.Regexp(t, `progress: done in \d+\.\d\ds\n$`, stderr)
	code, _, stderr = cli(t, "sample", "--collection", filepath.Join(dir, "shop.yaml"), "--rows", "20", "--out-dir", filepath.Join(dir, "sample2"))
	require.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stderr, "progress")
}

// TestProgressSpinnerNamesMember: on a terminal the spinner's line names the member the phase
// works on.
func TestProgressSpinnerNamesMember(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	p := newCollectionProgress(&out, progressAuto, true, nil)
	p.update(runner.Progress{Phase: "evaluating rules", Member: "orders", Rows: 1234})
	require.NotNil(t, p.bar)
	assert.Equal(t, "orders: evaluating rules (1,234 rows)", p.bar.State().Description)
	p.update(runner.Progress{Phase: "writing outputs", Member: "items", Rows: 5})
	assert.Equal(t, "items: writing outputs (5 rows)", p.bar.State().Description)
	p.finish()

	out = lockedBuffer{}
	p = newCollectionProgress(&out, progressAuto, false, nil)
	p.update(runner.Progress{Phase: "evaluating rules", Member: "orders", Rows: 1234})
	p.finish()
	assert.Empty(t, out.String())
}

// lockedBuffer is a bytes.Buffer the spinner's goroutine and the test can share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
