package outcome_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/outcome"
)

// TestCheckJSON: a check's typed results render as the dataframely/* metadata, only those that
// apply, and read back into the same fields; the escaping of <, > and & is the encoder's.
func TestCheckJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		check outcome.Check
		want  string
	}{
		{"passed column check", outcome.Check{Name: "dy_schema__columns", Passed: true, Severity: outcome.SeverityError, Blocking: true},
			`{"name":"dy_schema__columns","passed":true,"severity":"ERROR","blocking":true,"description":"","result_description":"","metadata":{}}`},
		{"failed column check", outcome.Check{Name: "dy_schema__columns", Mismatches: []casting.Mismatch{
			{Column: "amount", Expected: "Float64", Actual: casting.Missing, Cast: "lossy"},
			{Column: "id", Expected: "String", Actual: "INTEGER", File: "b.parquet", Reference: "a.parquet"}}},
			`{"name":"dy_schema__columns","passed":false,"severity":"","blocking":false,"description":"","result_description":"","metadata":{"dataframely/column_schema_errors":[{"column":"amount","expected":"Float64","actual":"\u003cmissing\u003e"},{"column":"id","expected":"String","actual":"INTEGER","file":"b.parquet","reference":"a.parquet"}]}}`},
		{"passed rule", outcome.Check{Name: "dy_rule__a__min", Passed: true, Rule: "a|min", Expr: `"a" >= 0`},
			`{"name":"dy_rule__a__min","passed":true,"severity":"","blocking":false,"description":"","result_description":"","metadata":{"dataframely/rule":"a|min","dataframely/rule_expr":"\"a\" \u003e= 0"}}`},
		{"failed rule, quarantined", outcome.Check{Name: "dy_rule__a__min", Rule: "a|min", Expr: "", Failed: 2,
			Samples:          []json.RawMessage{json.RawMessage(`{"a":-1,"n":"<é>"}`), json.RawMessage(`{"a": -2.50, "n": null}`)},
			ErrorRowsAddress: "out/q.parquet"},
			`{"name":"dy_rule__a__min","passed":false,"severity":"","blocking":false,"description":"","result_description":"","metadata":{"dataframely/error_rows_address":"out/q.parquet","dataframely/failed_examples":[{"a":-1,"n":"\u003cé\u003e"},{"a":-2.50,"n":null}],"dataframely/failed_row_count":2,"dataframely/rule":"a|min","dataframely/rule_expr":""}}`},
		{"collapsed", outcome.Check{Name: "dy_col__a", Failed: 3, Rules: []outcome.RuleResult{{Rule: "a|min", Failed: 3, Expr: "a >= 0"}, {Rule: "a|max", Expr: "a <= 9"}}},
			`{"name":"dy_col__a","passed":false,"severity":"","blocking":false,"description":"","result_description":"","metadata":{"dataframely/failed_row_count":3,"dataframely/rules":[{"expr":"a \u003e= 0","failed":3,"rule":"a|min"},{"expr":"a \u003c= 9","failed":0,"rule":"a|max"}]}}`},
		{"table check, NULL", outcome.Check{Name: "dy_table__mean", Passed: true, Expr: "avg(a)", Table: &outcome.TableResult{Max: ptr(10)}},
			`{"name":"dy_table__mean","passed":true,"severity":"","blocking":false,"description":"","result_description":"","metadata":{"dataframely/rule_expr":"avg(a)","tablegate/max":10,"tablegate/value":null}}`},
		{"table check, band", outcome.Check{Name: "dy_table__volume", Expr: "count_star()", Table: &outcome.TableResult{Value: "NaN",
			Baseline: &outcome.Baseline{Median: ptr(8), MAD: ptr(0), Low: ptr(7.5), Runs: 3}}},
			`{"name":"dy_table__volume","passed":false,"severity":"","blocking":false,"description":"","result_description":"","metadata":{"dataframely/rule_expr":"count_star()","tablegate/baseline":{"low":7.5,"mad":0,"median":8,"runs":3},"tablegate/value":"NaN"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data, err := json.Marshal(tt.check)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(data))

			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			require.NoError(t, enc.Encode(tt.check))
			assert.NotContains(t, b.String(), `\u003c`, "an encoder that does not escape gets no escapes")

			var back outcome.Check
			require.NoError(t, json.Unmarshal(data, &back))
			want := tt.check
			want.Mismatches = slices.Clone(tt.check.Mismatches) // edited below; tt's stays as declared
			for i := range want.Mismatches {
				want.Mismatches[i].Cast = "" // the JSON report does not carry the cast hint
			}
			again, err := json.Marshal(back)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(again))
			assert.Equal(t, want.Rule, back.Rule)
			assert.Equal(t, want.Failed, back.Failed)
			assert.Equal(t, want.Rules, back.Rules)
			assert.Equal(t, want.Mismatches, back.Mismatches)
			assert.Equal(t, want.ErrorRowsAddress, back.ErrorRowsAddress)
			assert.Len(t, back.Samples, len(want.Samples))
			assert.Equal(t, want.Table != nil, back.Table != nil)
		})
	}
}

func ptr(f float64) *float64 { return &f }
