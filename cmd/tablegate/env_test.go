package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate"
)

// TestOptionsFromEnv: the TABLEGATE_* variables over the defaults, each refused value named with
// its variable, and the settings a flag gives skipped.
func TestOptionsFromEnv(t *testing.T) {
	t.Parallel()
	envOf := func(kv ...string) func(string) (string, bool) {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	assert.Equal(t, "TABLEGATE_CHECK_GRANULARITY", envName(tablegate.SettingCheckGranularity))

	opts, err := optionsFromEnv(envOf())
	require.NoError(t, err)
	assert.Equal(t, tablegate.Options{}, opts)

	opts, err = optionsFromEnv(envOf("TABLEGATE_CHECK_GRANULARITY", "column", "TABLEGATE_SCHEMA_RULES", "per_rule",
		"TABLEGATE_MAX_FAILURE_SAMPLES", "3", "TABLEGATE_ROW_SAMPLE", "2"))
	require.NoError(t, err)
	assert.Equal(t, tablegate.Options{RunOptions: tablegate.RunOptions{Granularity: tablegate.PerColumn, SchemaRulesPerRule: true, MaxFailureSamples: 3, RowSample: 2}}, opts)

	opts, err = optionsFromEnv(envOf("TABLEGATE_MAX_FAILURE_SAMPLES", "0"))
	require.NoError(t, err)
	assert.Equal(t, -1, opts.MaxFailureSamples, "0 samples means none")

	opts, err = optionsFromEnv(envOf("TABLEGATE_ROW_SAMPLE", "many"), tablegate.SettingRowSample)
	require.NoError(t, err, "a setting a flag gives is not read")
	assert.Equal(t, 0, opts.RowSample)

	for _, tc := range []struct{ env, setting, value, allowed string }{
		{"TABLEGATE_CHECK_GRANULARITY", "check_granularity", "table", "rule, column or schema"},
		{"TABLEGATE_SCHEMA_RULES", "schema_rules", "split", "collapsed or per_rule"},
		{"TABLEGATE_MAX_FAILURE_SAMPLES", "max_failure_samples", "-1", "a whole number from 0 up"},
		{"TABLEGATE_ROW_SAMPLE", "row_sample", "many", "a whole number from 0 up"},
	} {
		_, err := optionsFromEnv(envOf(tc.env, tc.value))
		var se *tablegate.SettingError
		require.ErrorAs(t, err, &se, tc.env)
		assert.Equal(t, tablegate.SettingError{Setting: tc.setting, Value: tc.value, Source: "environment variable " + tc.env, Allowed: tc.allowed}, *se)
		assert.Equal(t, "setting "+tc.setting+": \""+tc.value+"\" (from environment variable "+tc.env+") is not allowed; use "+tc.allowed, err.Error())
	}
}
