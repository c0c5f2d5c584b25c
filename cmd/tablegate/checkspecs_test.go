package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChecksCommand: `tablegate checks` lists what validate reports, in the same order and with
// the same blocking flags and descriptions, without reading data.
func TestChecksCommand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.parquet("mixed.parquet", ordersSelect(mixedRows))
	for _, tt := range []struct {
		name  string
		flags []string
	}{
		{"rule", nil},
		{"rule quarantined", []string{"--quarantine"}},
		{"column", []string{"--granularity", "column"}},
		{"column per_rule quarantined", []string{"--granularity", "column", "--schema-rules", "per_rule", "--quarantine"}},
		{"schema", []string{"--granularity", "schema"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, append([]string{"checks", "--schema", f.schema, "--format", "json"}, tt.flags...)...)
			require.Equal(t, 0, code, stderr)
			var list struct {
				Schema string
				Checks []struct {
					Name, Description string
					Blocking          bool
					Rules             []struct{ Rule, Severity, Expr string }
				}
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &list))
			assert.Equal(t, "Orders", list.Schema)

			args := append([]string{"validate", "--schema", f.schema, "--input", in, "--format", "json"}, tt.flags...)
			if len(tt.flags) > 0 && tt.flags[len(tt.flags)-1] == "--quarantine" {
				args = append(args, "--out", f.path(tt.name, "orders.parquet"))
			}
			_, stdout, _ = cli(t, args...)
			rep := oneJSON(t, stdout)
			checks := rep["checks"].([]any)
			require.Len(t, list.Checks, len(checks))
			for i, c := range checks {
				c := c.(map[string]any)
				assert.Equal(t, c["name"], list.Checks[i].Name)
				assert.Equal(t, c["blocking"], list.Checks[i].Blocking, c["name"])
				assert.Equal(t, c["description"], list.Checks[i].Description, c["name"])
			}
			assert.Empty(t, list.Checks[0].Rules, "dy_schema__columns has no rules")
			for _, c := range list.Checks[1:] {
				require.NotEmpty(t, c.Rules, c.Name)
				for _, r := range c.Rules {
					assert.NotEmpty(t, r.Expr, r.Rule)
					want := "error"
					if r.Rule == "note|max_length" {
						want = "warn"
					}
					assert.Equal(t, want, r.Severity, r.Rule)
				}
			}
		})
	}

	// Text: aligned columns (a long name pushes the others, not into them), with the severity.
	long := f.write("long.yaml", strings.Replace(ordersYAML, "name: note", "name: a_note_column_with_a_name_well_past_forty_characters", 1))
	code, stdout, _ := cli(t, "checks", "--schema", long)
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Regexp(t, `^CHECK +SEVERITY +BLOCKING +DESCRIPTION$`, lines[0])
	col := strings.Index(lines[0], "SEVERITY")
	for _, l := range lines[1:] {
		assert.Regexp(t, `^(ERROR|WARN) `, l[col:], l)
		assert.Equal(t, " ", l[col-1:col], l)
	}
	assert.Regexp(t, `(?m)^dy_rule__amount__min +ERROR +blocking +amount >= 0$`, stdout)
	assert.Regexp(t, `(?m)^dy_rule__a_note_column_with_a_name_well_past_forty_characters__max_length +WARN +no +`, stdout)
	code, _, stderr := cli(t, "checks", "--schema", f.schema, "--format", "yaml")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "use text or json")
	code, _, _ = cli(t, "checks", "--schema", f.path("missing.yaml"))
	assert.Equal(t, 2, code)
}

// TestQuarantineNameFlag: --quarantine-name names the quarantine (dagster-dataframely's
// orders__error_rows), and is refused without --quarantine or when it names the table.
func TestQuarantineNameFlag(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.parquet("mixed.parquet", ordersSelect(mixedRows))
	out := f.path("out", "orders.parquet")
	code, stdout, stderr := cli(t, "validate", "--schema", f.schema, "--input", in, "--out", out, "--quarantine",
		"--quarantine-name", "orders__error_rows", "--format", "json")
	require.Equal(t, 0, code, stderr)
	rep := oneJSON(t, stdout)
	want := f.path("out", "orders__error_rows.parquet")
	assert.Equal(t, map[string]any{"address": want, "written": true, "rows": 5.0}, rep["quarantine"])
	assert.Len(t, f.parquetRows(want), 5)
	assert.False(t, fileExists(f.path("out", "orders_quarantine.parquet")))

	code, _, stderr = cli(t, "validate", "--schema", f.schema, "--input", in, "--out", out, "--quarantine-name", "x")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "give --quarantine too")
	code, _, stderr = cli(t, "validate", "--schema", f.schema, "--input", in, "--out", out, "--quarantine", "--quarantine-name", "orders")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "the table's own name")
	assert.Len(t, f.parquetRows(out), 3, "the table of the first run is unchanged")
}

// TestChecksSchemaFacts: `checks --format json` carries the schema's fingerprint (the Dagster code
// version; it changes when a rule changes) and its columns (Dagster's Columns tab).
func TestChecksSchemaFacts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	type column struct {
		Name, DType, Description string
		Nullable                 bool
		PrimaryKey               bool `json:"primary_key"`
		Rules                    []string
	}
	list := func(schema string) (string, []column) {
		code, stdout, stderr := cli(t, "checks", "--schema", schema, "--format", "json")
		require.Equal(t, 0, code, stderr)
		var l struct {
			Fingerprint string `json:"schema_fingerprint"`
			Columns     []column
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &l))
		return l.Fingerprint, l.Columns
	}
	fp, cols := list(f.schema)
	assert.Regexp(t, `^[0-9a-f]{16}$`, fp)
	assert.Equal(t, []column{
		{Name: "id", DType: "String", PrimaryKey: true, Rules: []string{"id not null"}},
		{Name: "amount", DType: "Float64", Rules: []string{"amount not null", "amount >= 0", "amount not infinite", "amount not NaN"}},
		{Name: "note", DType: "String", Nullable: true, Rules: []string{"note length <= 5 bytes"}},
	}, cols)
	again, _ := list(f.write("same.yaml", ordersYAML))
	assert.Equal(t, fp, again, "the same schema, the same fingerprint")
	changed, _ := list(f.write("changed.yaml", strings.Replace(ordersYAML, "min: 0", "min: 1", 1)))
	assert.NotEqual(t, fp, changed, "a changed rule changes the fingerprint")
}
