package pipes_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/internal/pipes"
	"github.com/tablegate/tablegate/outcome"
)

// The protocol's shapes, as Dagster's Python side defines them: every method's exact parameter
// names (Dagster calls the handler with them as keyword arguments, so one missing or extra key
// is a TypeError in its reader thread).
var paramKeys = map[string][]string{
	"opened":                       {"extras"},
	"report_asset_check":           {"asset_key", "check_name", "metadata", "passed", "severity"},
	"report_asset_materialization": {"asset_key", "data_version", "metadata"},
	"report_custom_message":        {"payload"},
}

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func param(t *testing.T, v any) string {
	t.Helper()
	s, err := pipes.EncodeParam(v)
	require.NoError(t, err)
	return s
}

// fileSession opens a session the way PipesSubprocessClient launches a process: the context in
// a temp file, messages appended to another.
func fileSession(t *testing.T, ctx map[string]any) (*pipes.Session, string) {
	t.Helper()
	dir := t.TempDir()
	ctxFile, msgFile := filepath.Join(dir, "context"), filepath.Join(dir, "messages")
	data, err := json.Marshal(ctx)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(ctxFile, data, 0o600))
	s, err := pipes.Open(env(map[string]string{
		pipes.ContextVar:  param(t, map[string]any{"path": ctxFile}),
		pipes.MessagesVar: param(t, map[string]any{"path": msgFile, "include_stdio_in_messages": false}),
	}), nil, nil)
	require.NoError(t, err)
	require.NotNil(t, s)
	return s, msgFile
}

func readMessages(t *testing.T, path string) []pipes.Message {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	msgs, err := pipes.ReadMessages(bytes.NewReader(data))
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		require.True(t, json.Valid([]byte(line)), "one JSON object per line: %s", line)
	}
	return msgs
}

var dagsterContext = map[string]any{
	"asset_keys": []string{`shop/or\/ders`}, "code_version_by_asset_key": map[string]any{"shop/orders": nil},
	"provenance_by_asset_key": nil, "partition_key": nil, "partition_key_range": nil, "partition_time_window": nil,
	"run_id": "8f3c", "job_name": "__ephemeral_asset_job__", "retry_number": 0, "extras": map[string]any{"schema": "orders.yaml"},
	"a_field_of_a_later_dagster": true,
}

func TestNotLaunchedByDagster(t *testing.T) {
	t.Parallel()
	s, err := pipes.Open(env(nil), nil, nil)
	assert.NoError(t, err)
	assert.Nil(t, s)
}

// TestPythonEncodedParam: a parameter as Python encodes it
// (base64.b64encode(zlib.compress(json.dumps(...).encode()))), here an inline context.
func TestPythonEncodedParam(t *testing.T) {
	t.Parallel()
	const fromPython = "eJxFjUsOwjAMRK9SeY2AbrkKQpFLXTWQT2U7ElGVu9eBBct5M3qzw4yKcBt2QBFS96YqFu8ga94umWdigcdpAC7J+dkq4BEsv/LkEkYykkoIfUHK1aUSJ2KjV0P0UUb56uW5UuxP8JOeK8YAzUYbsnr1OfXzv24pWpjc4in027G1A0EqOVw="
	var stderr bytes.Buffer
	s, err := pipes.Open(env(map[string]string{
		pipes.ContextVar:  fromPython,
		pipes.MessagesVar: param(t, map[string]any{"stdio": "stderr"}),
	}), nil, &stderr)
	require.NoError(t, err)
	assert.Equal(t, []string{"shop/orders"}, s.Context().AssetKeys)
	assert.Equal(t, "r1", s.Context().RunID)
	assert.Nil(t, s.Context().JobName)
	assert.Equal(t, map[string]any{"schema": "orders.yaml"}, s.Context().Extras)
	require.NoError(t, s.Close(nil))
	msgs, err := pipes.ReadMessages(&stderr)
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	assert.Equal(t, "opened", msgs[0].Method)
	assert.Equal(t, "closed", msgs[1].Method)
}

// TestMessages: opened first, closed last, every method with its exact parameters and the
// protocol version, on the file channel.
func TestMessages(t *testing.T) {
	t.Parallel()
	s, path := fileSession(t, dagsterContext)
	ctx := s.Context()
	assert.Equal(t, []string{`shop/or\/ders`}, ctx.AssetKeys, "asset keys are echoed as received")
	assert.Equal(t, "8f3c", ctx.RunID)
	assert.Equal(t, "__ephemeral_asset_job__", *ctx.JobName)

	key := ctx.AssetKeys[0]
	require.NoError(t, s.ReportAssetCheck(key, "dy_rule__amount__min", false, pipes.SeverityError, pipes.Metadata{"n": pipes.Int(2)}))
	require.NoError(t, s.ReportAssetCheck(key, "dy_schema__columns", true, pipes.SeverityWarn, nil))
	require.NoError(t, s.ReportAssetMaterialization(key, pipes.Metadata{"dagster/row_count": pipes.Int(997)}, ""))
	require.NoError(t, s.ReportCustomMessage(map[string]any{"x": []int{1}}))
	require.NoError(t, s.ReportCustomMessage(map[string]any{"text": "größe ☃"}))
	assert.Error(t, s.ReportAssetCheck(key, "c", false, "FATAL", nil), "only ERROR and WARN exist")
	require.NoError(t, s.Close(&pipes.Exception{Name: "ValidationAbortError", Message: "2 rows failed"}))
	assert.NoError(t, s.Close(nil), "a second close sends nothing")
	assert.Error(t, s.ReportCustomMessage(map[string]any{}), "nothing after closed")

	msgs := readMessages(t, path)
	var methods []string
	for _, m := range msgs {
		methods = append(methods, m.Method)
		assert.Equal(t, "0.1", m.Version)
		if want, ok := paramKeys[m.Method]; ok {
			assert.Equal(t, want, m.ParamKeys(), m.Method)
		}
	}
	assert.Equal(t, []string{"opened", "report_asset_check", "report_asset_check", "report_asset_materialization",
		"report_custom_message", "report_custom_message", "closed"}, methods)
	assert.JSONEq(t, `{}`, string(msgs[0].Params["extras"]))
	assert.JSONEq(t, `"shop/or\\/ders"`, string(msgs[1].Params["asset_key"]))
	assert.JSONEq(t, `false`, string(msgs[1].Params["passed"]))
	assert.JSONEq(t, `"ERROR"`, string(msgs[1].Params["severity"]))
	assert.JSONEq(t, `{"n": {"raw_value": 2, "type": "int"}}`, string(msgs[1].Params["metadata"]))
	assert.JSONEq(t, `null`, string(msgs[2].Params["metadata"]))
	assert.JSONEq(t, `null`, string(msgs[3].Params["data_version"]))
	assert.JSONEq(t, `{"x": [1]}`, string(msgs[4].Params["payload"]))
	assert.JSONEq(t, `{"text": "größe ☃"}`, string(msgs[5].Params["payload"]))
	assert.JSONEq(t, `{"name": "ValidationAbortError", "message": "2 rows failed", "stack": [], "cause": null, "context": null}`,
		string(msgs[6].Params["exception"]))
}

func TestClosedWithoutException(t *testing.T) {
	t.Parallel()
	s, path := fileSession(t, dagsterContext)
	require.NoError(t, s.Close(nil))
	msgs := readMessages(t, path)
	require.Len(t, msgs, 2)
	assert.Empty(t, msgs[1].ParamKeys(), "closed without an exception has empty params")
}

// TestBufferedStdio: buffered messages reach the stream only at close.
func TestBufferedStdio(t *testing.T) {
	t.Parallel()
	var stdout bytes.Buffer
	s, err := pipes.Open(env(map[string]string{
		pipes.ContextVar:  param(t, map[string]any{"data": dagsterContext}),
		pipes.MessagesVar: param(t, map[string]any{"buffered_stdio": "stdout"}),
	}), &stdout, nil)
	require.NoError(t, err)
	require.NoError(t, s.ReportCustomMessage(map[string]any{"x": 1}))
	assert.Zero(t, stdout.Len())
	require.NoError(t, s.Close(nil))
	msgs, err := pipes.ReadMessages(&stdout)
	require.NoError(t, err)
	assert.Len(t, msgs, 3)
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	good := param(t, map[string]any{"data": dagsterContext})
	msgs := param(t, map[string]any{"stdio": "stderr"})
	tests := []struct {
		name string
		vars map[string]string
		want string
	}{
		{"not base64", map[string]string{pipes.ContextVar: "%%%", pipes.MessagesVar: msgs}, "not base64"},
		{"gzip, not zlib", map[string]string{pipes.ContextVar: "H4sIAAAAAAAA/6uuBQBDv6ajAgAAAA==", pipes.MessagesVar: msgs}, "zlib"},
		{"no messages", map[string]string{pipes.ContextVar: good}, pipes.MessagesVar + " is not"},
		{"s3 context", map[string]string{pipes.ContextVar: param(t, map[string]any{"bucket": "b", "key": "k"}), pipes.MessagesVar: msgs}, "neither"},
		{"missing context file", map[string]string{pipes.ContextVar: param(t, map[string]any{"path": "/nonexistent/context"}), pipes.MessagesVar: msgs}, "context file"},
		{"unknown stream", map[string]string{pipes.ContextVar: good, pipes.MessagesVar: param(t, map[string]any{"stdio": "stdlog"})}, "stdlog"},
		{"unknown reader", map[string]string{pipes.ContextVar: good, pipes.MessagesVar: param(t, map[string]any{"bucket": "b"})}, "none of"},
	}
	for _, tt := range tests {
		_, err := pipes.Open(env(tt.vars), &bytes.Buffer{}, &bytes.Buffer{})
		require.Error(t, err, tt.name)
		assert.Contains(t, err.Error(), tt.want, tt.name)
	}
}

// TestValues: every value is wrapped with an explicit type; floats that JSON cannot hold and
// nested table cells become text, so one value never loses a message.
func TestValues(t *testing.T) {
	t.Parallel()
	s, path := fileSession(t, dagsterContext)
	require.NoError(t, s.ReportAssetCheck("orders", "c", true, pipes.SeverityWarn, pipes.Metadata{
		"text":   pipes.Text(""),
		"json":   pipes.JSON([]any{map[string]any{"rule": "a|min"}}),
		"table":  pipes.Table([]pipes.Column{{Name: "tags", Type: "json"}, {Name: "n", Type: "float"}}, []map[string]any{{"tags": []any{"a", nil}, "n": math.Inf(1)}, {"tags": map[string]any{"c": 1}, "n": nil}}),
		"select": pipes.Int(-1 << 62),
		"share":  pipes.Float(1),
	}))
	require.NoError(t, s.Close(nil))
	raw := readMessages(t, path)[1].Params["metadata"]
	// Dagster refuses a float written as 1 (a share of 100%): every float has a fraction.
	assert.Contains(t, string(raw), `"raw_value":1.0`)
	var meta map[string]map[string]any
	require.NoError(t, json.Unmarshal(raw, &meta))
	assert.Equal(t, map[string]any{"raw_value": "", "type": "text"}, meta["text"])
	assert.Equal(t, "json", meta["json"]["type"])
	assert.Equal(t, float64(-1<<62), meta["select"]["raw_value"])
	table := meta["table"]["raw_value"].(map[string]any)
	assert.Equal(t, []any{map[string]any{"name": "tags", "type": "json"}, map[string]any{"name": "n", "type": "float"}}, table["schema"])
	assert.Equal(t, []any{map[string]any{"tags": `["a",null]`, "n": "Infinity"}, map[string]any{"tags": `{"c":1}`, "n": nil}}, table["records"])
}

// TestCheckMetadata: a check's typed results typed for Dagster under the dataframely/* keys.
func TestCheckMetadata(t *testing.T) {
	t.Parallel()
	share, limit := 0.02, int64(1)
	c := outcome.Check{Name: "dy_rule__price__min", Rule: "price|min", Expr: `"price" >= 0`, Failed: 2,
		Samples: []json.RawMessage{
			json.RawMessage(`{"id":"a","price":"-1.00","tags":["x",null],"addr":{"city":"Zürich"},"n":-1,"f":2.50,"ok":true,"z":null}`),
			json.RawMessage(`{"id":"b","price":"-0.05","tags":null,"addr":null,"n":3,"f":"NaN","ok":false,"z":null}`),
		},
		Rules:            []outcome.RuleResult{{Rule: "price|min", Failed: 2, Expr: "x"}},
		ErrorRowsAddress: "out/orders__error_rows.parquet",
		Share:            &share,
		FailingValues:    []outcome.ValueCount{{Value: json.RawMessage(`"-1.00"`), Count: 1}, {Value: json.RawMessage(`"-0.05"`), Count: 1}},
		Tolerance:        &outcome.Tolerance{Error: "1%", ErrorRows: &limit},
	}
	m, err := pipes.CheckMetadata(c)
	require.NoError(t, err)
	assert.Equal(t, pipes.Float(0.02), m[outcome.MetaFailedShare])
	values, err := json.Marshal(m[outcome.MetaFailingValues].Raw)
	require.NoError(t, err)
	assert.JSONEq(t, `{"schema": [{"name": "count", "type": "int"}, {"name": "value", "type": "string"}],
		"records": [{"count": 1, "value": "-1.00"}, {"count": 1, "value": "-0.05"}]}`, string(values))
	tol, err := json.Marshal(m[outcome.MetaTolerance].Raw)
	require.NoError(t, err)
	assert.JSONEq(t, `{"error": "1%", "error_rows": 1}`, string(tol))
	assert.Equal(t, pipes.Text("price|min"), m[outcome.MetaRule])
	assert.Equal(t, pipes.Text(`"price" >= 0`), m[outcome.MetaRuleExpr])
	assert.Equal(t, pipes.Int(2), m[outcome.MetaFailedRowCount])
	assert.Equal(t, pipes.Text("out/orders__error_rows.parquet"), m[outcome.MetaErrorRowsAddress])
	assert.Equal(t, "json", m[outcome.MetaRules].Type)
	rules, err := json.Marshal(m[outcome.MetaRules].Raw)
	require.NoError(t, err)
	assert.Equal(t, `[{"expr":"x","failed":2,"rule":"price|min"}]`, string(rules), "the members as dagster-dataframely lists them")

	ex := m[outcome.MetaFailedExamples]
	require.Equal(t, "table", ex.Type)
	data, err := json.Marshal(ex.Raw)
	require.NoError(t, err)
	assert.JSONEq(t, `{"schema": [
		{"name": "id", "type": "string"}, {"name": "price", "type": "string"}, {"name": "tags", "type": "json"},
		{"name": "addr", "type": "json"}, {"name": "n", "type": "int"}, {"name": "f", "type": "float"},
		{"name": "ok", "type": "bool"}, {"name": "z", "type": "null"}],
		"records": [
		{"id": "a", "price": "-1.00", "tags": "[\"x\",null]", "addr": "{\"city\":\"Zürich\"}", "n": -1, "f": 2.50, "ok": true, "z": null},
		{"id": "b", "price": "-0.05", "tags": null, "addr": null, "n": 3, "f": "NaN", "ok": false, "z": null}]}`, string(data))
	assert.Contains(t, string(data), `"f":2.50`, "numbers keep their digits")

	cols, err := pipes.CheckMetadata(outcome.Check{Name: "dy_schema__columns",
		Mismatches: []casting.Mismatch{{Column: "select", Expected: "Float64", Actual: "DECIMAL(18,3)", Cast: "lossy"}},
	})
	require.NoError(t, err)
	data, err = json.Marshal(cols[outcome.MetaColumnSchemaErrors].Raw)
	require.NoError(t, err)
	assert.JSONEq(t, `{"schema": [{"name": "column", "type": "string"}, {"name": "expected", "type": "string"}, {"name": "actual", "type": "string"}],
		"records": [{"column": "select", "expected": "Float64", "actual": "DECIMAL(18,3)"}]}`, string(data))
}

// TestSendReport: one check message per check, a materialization only when the table was
// written, and the report as a custom message.
func TestSendReport(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		written bool
		methods []string
	}{
		{"written", true, []string{"opened", "report_asset_check", "report_asset_check", "report_asset_materialization", "report_custom_message", "closed"}},
		{"not written", false, []string{"opened", "report_asset_check", "report_asset_check", "report_custom_message", "closed"}},
	} {
		s, path := fileSession(t, dagsterContext)
		out := outcome.Quarantined
		rep := &outcome.Report{Asset: "orders", Outcome: &out, Rows: outcome.Rows{Input: 3, Valid: 2, Invalid: 1},
			Table:      outcome.Table{Address: "out/orders.parquet", Written: tt.written},
			Quarantine: outcome.Quarantine{Address: "out/orders_quarantine.parquet", Written: tt.written, Rows: 1},
			Checks: []outcome.Check{{Name: "dy_schema__columns", Passed: true, Severity: outcome.SeverityError},
				{Name: "dy_rule__a__min", Severity: outcome.SeverityError, Failed: 1}},
			InvalidByRules: []outcome.RuleSet{{Rules: "dy_rule__a__min", Count: 1}},
			ValidSample:    []json.RawMessage{json.RawMessage(`{"a": 2, "tags": ["x"]}`)}}
		require.NoError(t, s.SendReport("orders", rep), tt.name)
		require.NoError(t, s.Close(nil))
		msgs := readMessages(t, path)
		var methods []string
		for _, m := range msgs {
			methods = append(methods, m.Method)
		}
		assert.Equal(t, tt.methods, methods, tt.name)
		assert.JSONEq(t, `"dy_rule__a__min"`, string(msgs[2].Params["check_name"]))
		assert.JSONEq(t, `"ERROR"`, string(msgs[2].Params["severity"]))
		if tt.written {
			var meta map[string]map[string]any
			require.NoError(t, json.Unmarshal(msgs[3].Params["metadata"], &meta))
			assert.Equal(t, map[string]any{"raw_value": 2.0, "type": "int"}, meta["dagster/row_count"])
			assert.Equal(t, "out/orders_quarantine.parquet", meta["dataframely/error_rows_address"]["raw_value"])
			assert.Equal(t, "table", meta["tablegate/invalid_by_rules"]["type"])
			assert.Equal(t, map[string]any{"type": "table", "raw_value": map[string]any{
				"schema":  []any{map[string]any{"name": "a", "type": "int"}, map[string]any{"name": "tags", "type": "json"}},
				"records": []any{map[string]any{"a": 2.0, "tags": `["x"]`}},
			}}, meta[pipes.MetaPreview], "the valid rows' sample, nested values as JSON text")
		}
		var payload map[string]map[string]any
		require.NoError(t, json.Unmarshal(msgs[len(msgs)-2].Params["payload"], &payload))
		assert.Equal(t, "quarantined", payload[pipes.ReportPayloadKey]["outcome"])
	}
}
