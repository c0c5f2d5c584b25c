package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden outputs in testdata/golden")

// goldenRows fail every kind of check the orders schema has, with a sample that needs escaping
// in JSON (<, &, a quote) and a non-ASCII one.
const goldenRows = `('a', 1.0, NULL), ('b', -1.0, 'hi'), ('c', 2.0, 'toolong'), ('g', -2.0, 'x<&"'), ` +
	`('e', 5000.0, NULL), ('g', 3.0, NULL), ('f', 4.0, 'né'), ('h', -5.0, NULL)`

// goldenTableChecks are table checks of every kind on the orders schema: a failing condition, a
// metric within bounds, a NULL metric and one with an anomaly band from the run history (each
// command of a case records one more run).
const goldenTableChecks = `
table_checks:
  - name: enough_rows
    sql: count(*) >= 1000
    severity: warn
  - name: mean_amount
    metric: avg(amount)
    min: -10
    max: 10000
  - name: huge_mean
    metric: avg(amount) FILTER (WHERE amount > 1e9)
    severity: warn
  - name: volume
    metric: count(*)
    severity: warn
    anomaly:
      min_history: 2
`

// volatile are the fields that differ between two runs of the same command.
var volatile = regexp.MustCompile(`"(run_id|started_at|duration_s|tablegate_version|duckdb_version)": ?("[^"]*"|[0-9.e-]+)`)

// TestOutputsGolden pins the JSON report, the text output and the Dagster Pipes messages of
// runs that exercise every check field (a rule's SQL and samples, a collapsed check's members,
// column mismatches, the quarantine's address): they are rendered from the typed checks and
// must not change by a byte. go test ./cmd/tablegate -run TestOutputsGolden -update rewrites them.
func TestOutputsGolden(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.parquet("in.parquet", ordersSelect(goldenRows))
	tableChecks := f.write("orders_table.yaml", ordersYAML+goldenTableChecks)
	tests := []struct {
		name string
		args []string
	}{
		{"rule_quarantined", []string{"--input", in, "--out", f.path("q", "orders.parquet"), "--quarantine", "--row-sample", "2"}},
		{"rule_aborted", []string{"--input", in, "--out", f.path("a", "orders.parquet")}},
		{"column", []string{"--input", in, "--out", f.path("c", "orders.parquet"), "--granularity", "column", "--quarantine"}},
		{"column_per_rule", []string{"--input", in, "--out", f.path("p", "orders.parquet"), "--granularity", "column", "--schema-rules", "per_rule", "--samples", "1"}},
		{"schema", []string{"--input", in, "--out", f.path("s", "orders.parquet"), "--granularity", "schema"}},
		{"mismatch", []string{"--query", "SELECT 1 AS id, 'x' AS note"}},
		{"table_checks", []string{"--schema", tableChecks, "--input", in, "--out", f.path("t", "orders.parquet"), "--quarantine", "--history", f.path("t", "history.duckdb")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := append([]string{"validate"}, tt.args...)
			if !slices.Contains(tt.args, "--schema") {
				base = append(base, "--schema", f.schema)
			}
			_, js, stderr := cli(t, append(base, "--format", "json")...)
			require.NotEmpty(t, js, stderr)
			_, text, _ := cli(t, append(base, "--format", "text")...)
			msgs := pipesMessages(t, base...)
			clean := func(s string) string {
				return volatile.ReplaceAllString(strings.ReplaceAll(s, f.dir, "$DIR"), `"$1":"…"`)
			}
			got := "== json\n" + clean(js) + "== text\n" + clean(text) + "== pipes\n" + clean(msgs)
			golden := filepath.Join("testdata", "golden", tt.name+".txt")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test ./cmd/tablegate -run TestOutputsGolden -update writes the goldens")
			assert.Equal(t, string(want), got)
		})
	}
}

// pipesMessages runs a command line under Dagster Pipes and returns the messages file as written.
func pipesMessages(t *testing.T, args ...string) string {
	t.Helper()
	_, data, stderr := underDagsterRaw(t, args...)
	require.NotNil(t, data, stderr)
	return string(data)
}
