package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Check descriptions, samples and the settings through the command line, beyond cli_test.go.

// TestCheckDescriptionsCLI: every check of the report has a description, in JSON and in the text
// output's failing checks.
func TestCheckDescriptionsCLI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.parquet("mixed.parquet", ordersSelect(mixedRows))
	code, stdout, stderr := cli(t, "validate", "--schema", f.schema, "--input", in, "--format", "json")
	require.Equal(t, 1, code, stderr)
	assert.Contains(t, stdout, `"description": "amount >= 0"`, "not escaped for HTML (\\u003e=)")
	rep := oneJSON(t, stdout)
	want := map[string]string{
		"dy_schema__columns":           "Columns and dtypes match Orders.",
		"dy_rule__amount_small":        "amount < 1000",
		"dy_rule__primary_key":         "PK: id",
		"dy_rule__id__nullability":     "id not null",
		"dy_rule__amount__nullability": "amount not null",
		"dy_rule__amount__min":         "amount >= 0",
		"dy_rule__amount__inf":         "amount not infinite",
		"dy_rule__amount__nan":         "amount not NaN",
		"dy_rule__note__max_length":    "note length <= 5 bytes",
	}
	got := map[string]string{}
	for _, c := range rep["checks"].([]any) {
		c := c.(map[string]any)
		got[c["name"].(string)] = c["description"].(string)
	}
	assert.Equal(t, want, got)

	code, stdout, _ = cli(t, "validate", "--schema", f.schema, "--input", in)
	assert.Equal(t, 1, code)
	for _, line := range []string{"dy_rule__amount__min", "amount >= 0", "PK: id", "note length <= 5 bytes"} {
		assert.Contains(t, stdout, line)
	}

	code, stdout, _ = cli(t, "validate", "--schema", f.schema, "--input", in, "--granularity", "column", "--format", "json")
	assert.Equal(t, 1, code)
	rep = oneJSON(t, stdout)
	assert.Equal(t, "Every rule on amount: not null, >= 0, not infinite, not NaN.", checkByName(t, rep, "dy_col__amount")["description"])
	assert.Equal(t, "Every schema-level rule of Orders: amount_small, primary_key.", checkByName(t, rep, "dy_schema__rules")["description"])
	sample := checkByName(t, rep, "dy_col__amount")["metadata"].(map[string]any)["dataframely/failed_examples"].([]any)
	require.Len(t, sample, 3)
	assert.Equal(t, "amount|min", sample[0].(map[string]any)["dy_rule"])
	// The first key of a collapsed check's sample row is dy_rule.
	i := strings.Index(stdout, `"dataframely/failed_examples"`)
	require.Greater(t, i, 0)
	assert.True(t, strings.HasPrefix(strings.Join(strings.Fields(stdout[i:]), " "), `"dataframely/failed_examples": [ { "dy_rule": "amount|min", "id": "b",`), stdout[i:i+200])
}

// TestSampleSettingsCLI: --row-sample and TABLEGATE_ROW_SAMPLE add valid_sample and
// invalid_sample; TABLEGATE_MAX_FAILURE_SAMPLES=0 disables failure samples but keeps counts; a
// bad value at either tier names the setting, the value, its source and what is allowed. Not
// parallel: it sets the environment.
func TestSampleSettingsCLI(t *testing.T) {
	f := newFixture(t)
	in := f.parquet("mixed.parquet", ordersSelect(mixedRows))
	validate := func(t *testing.T, extra ...string) (int, map[string]any) {
		code, stdout, _ := cli(t, append([]string{"validate", "--schema", f.schema, "--input", in, "--format", "json"}, extra...)...)
		return code, oneJSON(t, stdout)
	}
	for _, name := range []string{"TABLEGATE_CHECK_GRANULARITY", "TABLEGATE_SCHEMA_RULES", "TABLEGATE_MAX_FAILURE_SAMPLES", "TABLEGATE_ROW_SAMPLE"} {
		t.Setenv(name, "")
	}

	code, rep := validate(t)
	assert.Equal(t, 1, code)
	assert.NotContains(t, rep, "valid_sample", "row_sample defaults to 0")
	assert.NotContains(t, rep, "invalid_sample")

	code, rep = validate(t, "--row-sample", "2")
	assert.Equal(t, 1, code)
	assert.Equal(t, []any{
		map[string]any{"id": "a", "amount": 1.0, "note": nil},
		map[string]any{"id": "c", "amount": 2.0, "note": "toolong"},
	}, rep["valid_sample"])
	assert.Equal(t, []any{
		map[string]any{"id": "b", "amount": -1.0, "note": "hi"},
		map[string]any{"id": "g", "amount": -2.0, "note": "x"},
	}, rep["invalid_sample"])

	t.Setenv("TABLEGATE_ROW_SAMPLE", "1")
	_, rep = validate(t)
	assert.Len(t, rep["valid_sample"], 1)
	assert.Len(t, rep["invalid_sample"], 1)
	_, rep = validate(t, "--row-sample", "0")
	assert.NotContains(t, rep, "valid_sample", "the flag overrides the environment")

	t.Setenv("TABLEGATE_MAX_FAILURE_SAMPLES", "0")
	_, rep = validate(t)
	m := checkByName(t, rep, "dy_rule__amount__min")["metadata"].(map[string]any)
	assert.NotContains(t, m, "dataframely/failed_examples")
	assert.Equal(t, 3.0, m["dataframely/failed_row_count"])
	_, rep = validate(t, "--samples", "2")
	m = checkByName(t, rep, "dy_rule__amount__min")["metadata"].(map[string]any)
	assert.Len(t, m["dataframely/failed_examples"], 2)
	t.Setenv("TABLEGATE_MAX_FAILURE_SAMPLES", "")

	for _, tc := range []struct {
		env, value string
		flags      []string
		want       string
	}{
		{"TABLEGATE_ROW_SAMPLE", "many", nil, `setting row_sample: "many" (from environment variable TABLEGATE_ROW_SAMPLE) is not allowed; use a whole number from 0 up`},
		{"TABLEGATE_SCHEMA_RULES", "split", nil, `setting schema_rules: "split" (from environment variable TABLEGATE_SCHEMA_RULES) is not allowed; use collapsed or per_rule`},
		{"TABLEGATE_MAX_FAILURE_SAMPLES", "-2", nil, `setting max_failure_samples: "-2" (from environment variable TABLEGATE_MAX_FAILURE_SAMPLES) is not allowed; use a whole number from 0 up`},
		{"", "", []string{"--row-sample", "-1"}, `setting row_sample: "-1" (from flag --row-sample) is not allowed; use a whole number from 0 up`},
		{"", "", []string{"--schema-rules", "split"}, `setting schema_rules: "split" (from flag --schema-rules) is not allowed; use collapsed or per_rule`},
		{"", "", []string{"--samples", "-3"}, `setting max_failure_samples: "-3" (from flag --samples) is not allowed; use a whole number from 0 up`},
		{"", "", []string{"--granularity", "Column"}, `setting check_granularity: "Column" (from flag --granularity) is not allowed; use rule, column or schema`},
	} {
		t.Run(tc.want[:30], func(t *testing.T) {
			if tc.env != "" {
				t.Setenv(tc.env, tc.value)
			}
			code, stdout, stderr := cli(t, append([]string{"validate", "--schema", f.schema, "--input", in, "--format", "json"}, tc.flags...)...)
			assert.Equal(t, 2, code)
			rep := oneJSON(t, stdout)
			assert.Nil(t, rep["outcome"])
			typ, msg := errorOf(rep)
			assert.Equal(t, "SettingError", typ)
			assert.Equal(t, tc.want, msg)
			assert.Contains(t, stderr, tc.want)
		})
	}
	// A valid flag hides a bad environment value of the same setting.
	t.Setenv("TABLEGATE_ROW_SAMPLE", "many")
	code, rep = validate(t, "--row-sample", "1")
	assert.Equal(t, 1, code)
	assert.Len(t, rep["valid_sample"], 1)
}
