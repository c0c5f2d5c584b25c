package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/internal/pipes"
)

// underDagster runs a command line as PipesSubprocessClient launches it (the context in a file,
// messages appended to another) and returns the exit status and the messages sent.
func underDagster(t *testing.T, args ...string) (int, []pipes.Message, string) {
	t.Helper()
	code, data, stderr := underDagsterRaw(t, args...)
	if data == nil {
		return code, nil, stderr
	}
	msgs, err := pipes.ReadMessages(bytes.NewReader(data))
	require.NoError(t, err)
	return code, msgs, stderr
}

// underDagsterRaw is underDagster with the messages file as written (nil when none was).
func underDagsterRaw(t *testing.T, args ...string) (int, []byte, string) {
	t.Helper()
	return underDagsterSelecting(t, []string{"orders"}, args...)
}

// underDagsterSelecting is underDagsterRaw in a step that selects the assets keys.
func underDagsterSelecting(t *testing.T, keys []string, args ...string) (int, []byte, string) {
	t.Helper()
	dir := t.TempDir()
	ctxFile, msgFile := filepath.Join(dir, "context"), filepath.Join(dir, "messages")
	ctx, err := json.Marshal(map[string]any{"asset_keys": keys, "run_id": "r", "job_name": nil, "retry_number": 0, "extras": map[string]any{}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(ctxFile, ctx, 0o600))
	ctxParam, err := pipes.EncodeParam(map[string]any{"path": ctxFile})
	require.NoError(t, err)
	msgParam, err := pipes.EncodeParam(map[string]any{"path": msgFile, "include_stdio_in_messages": false})
	require.NoError(t, err)
	vars := map[string]string{pipes.ContextVar: ctxParam, pipes.MessagesVar: msgParam}
	var out, errOut bytes.Buffer
	code := runIn(context.Background(), console{lookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}, args, &out, &errOut)
	data, err := os.ReadFile(msgFile)
	if os.IsNotExist(err) {
		return code, nil, errOut.String()
	}
	require.NoError(t, err)
	return code, data, errOut.String()
}

func methods(msgs []pipes.Message) map[string]int {
	out := map[string]int{}
	for _, m := range msgs {
		out[m.Method]++
	}
	return out
}

// TestValidateUnderDagster: with DAGSTER_PIPES_CONTEXT set, validate reports each check, a
// materialization only when it wrote the table, the report as a custom message, and closes with
// the run's error; its exit status is unchanged.
func TestValidateUnderDagster(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.parquet("mixed.parquet", ordersSelect(mixedRows))
	tests := []struct {
		name         string
		args         []string
		code         int
		checks       int
		materialized bool
		exception    string
	}{
		{"aborted", []string{"--out", f.path("a", "orders.parquet")}, 1, 9, false, "ValidationAbortError"},
		{"quarantined", []string{"--out", f.path("q", "orders.parquet"), "--quarantine", "--quarantine-name", "orders__error_rows"}, 0, 9, true, ""},
		{"in place", nil, 1, 9, false, "ValidationAbortError"},
		{"column mismatch", []string{"--query", "SELECT 1 AS id"}, 3, 1, false, "ColumnSchemaError"},
		{"skipped", []string{"--input", f.path("none", "*.parquet"), "--skip-missing", "--out", f.path("s", "orders.parquet")}, 0, 9, false, ""},
		{"bad flag value", []string{"--format", "yaml"}, 2, 0, false, "UsageError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"validate", "--schema", f.schema}
			if len(tt.args) == 0 || (tt.args[0] != "--query" && tt.args[0] != "--input") {
				args = append(args, "--input", in)
			}
			code, msgs, stderr := underDagster(t, append(args, tt.args...)...)
			assert.Equal(t, tt.code, code, stderr)
			require.NotEmpty(t, msgs)
			assert.Equal(t, "opened", msgs[0].Method)
			last := msgs[len(msgs)-1]
			assert.Equal(t, "closed", last.Method)
			got := methods(msgs)
			assert.Equal(t, tt.checks, got["report_asset_check"])
			assert.Equal(t, map[bool]int{true: 1}[tt.materialized], got["report_asset_materialization"])
			if tt.exception == "" {
				assert.NotContains(t, last.Params, "exception")
			} else {
				var exc struct{ Name, Message string }
				require.NoError(t, json.Unmarshal(last.Params["exception"], &exc))
				assert.Equal(t, tt.exception, exc.Name)
				assert.NotEmpty(t, exc.Message)
			}
			// The report always goes, also when the run failed before it had checks.
			require.Equal(t, 1, got["report_custom_message"])
			for _, m := range msgs {
				if m.Method == "report_custom_message" {
					var payload struct {
						Report struct {
							Error *struct{ Type string } `json:"error"`
						} `json:"tablegate_report"`
					}
					require.NoError(t, json.Unmarshal(m.Params["payload"], &payload))
					if tt.exception == "" {
						assert.Nil(t, payload.Report.Error)
					} else {
						require.NotNil(t, payload.Report.Error)
						assert.Equal(t, tt.exception, payload.Report.Error.Type)
					}
				}
			}
			for _, m := range msgs {
				if m.Method == "report_asset_check" || m.Method == "report_asset_materialization" {
					assert.JSONEq(t, `"orders"`, string(m.Params["asset_key"]))
				}
				if m.Method == "report_asset_materialization" {
					var meta map[string]struct {
						Raw  any    `json:"raw_value"`
						Type string `json:"type"`
					}
					require.NoError(t, json.Unmarshal(m.Params["metadata"], &meta))
					assert.Equal(t, 3.0, meta["dagster/row_count"].Raw)
					assert.Equal(t, "int", meta["dagster/row_count"].Type)
					assert.Equal(t, f.path("q", "orders__error_rows.parquet"), meta["dataframely/error_rows_address"].Raw)
				}
			}
		})
	}
}

// TestPipesBootstrapError: a broken bootstrap is a usage error that says what is wrong; without
// the variables nothing is sent.
func TestPipesBootstrapError(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var out, errOut bytes.Buffer
	env := console{lookupEnv: func(k string) (string, bool) {
		return map[string]string{pipes.ContextVar: "not base64!"}[k], k == pipes.ContextVar
	}}
	code := runIn(context.Background(), env, []string{"validate", "--schema", f.schema, "--input", f.parquet("v.parquet", ordersSelect(allValidRows))},
		&out, &errOut)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut.String(), "DAGSTER_PIPES_CONTEXT is not base64")

	code, _, _ = cli(t, "validate", "--schema", f.schema, "--input", f.parquet("v.parquet", ordersSelect(allValidRows)))
	assert.Equal(t, 0, code)
}

func TestDagsterAssetKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		keys  []string
		asset string
		want  string
		err   bool
	}{
		{nil, "orders", "orders", false},
		{[]string{"shop/orders"}, "anything", "shop/orders", false},
		{[]string{"shop/customers", "shop/orders"}, "orders", "shop/orders", false},
		{[]string{"a/x\\/orders", "b/orders"}, "orders", "b/orders", false},
		{[]string{"a/x\\/orders", "b/y"}, "x/orders", "a/x\\/orders", false},
		{[]string{"a", "b"}, "orders", "", true},
	}
	for _, tt := range tests {
		got, err := dagsterAssetKey(tt.keys, tt.asset)
		assert.Equal(t, tt.err, err != nil, "%v %s", tt.keys, tt.asset)
		assert.Equal(t, tt.want, got)
	}
}

// TestValidateCollectionUnderDagster: validate --collection in a Pipes step reports each member's
// checks (the collection's filters and references among them) and materialization under the
// member's asset key, the collection report as the custom message, and closes with the run's error.
func TestValidateCollectionUnderDagster(t *testing.T) {
	t.Parallel()
	shop := filepath.Join("..", "..", "examples", "shop")
	keys := []string{"shop/orders", "shop/items", "shop/invoices", "shop/refunds", "shop/products"}
	args := func(out string, more ...string) []string {
		return append([]string{"validate", "--collection", filepath.Join(shop, "shop.yaml"), "--input-dir", shop, "--out-dir", out}, more...)
	}
	checksOf := func(msgs []pipes.Message) map[string]map[string]bool {
		got := map[string]map[string]bool{}
		for _, m := range msgs {
			if m.Method != "report_asset_check" {
				continue
			}
			var key, name string
			var passed bool
			require.NoError(t, json.Unmarshal(m.Params["asset_key"], &key))
			require.NoError(t, json.Unmarshal(m.Params["check_name"], &name))
			require.NoError(t, json.Unmarshal(m.Params["passed"], &passed))
			if got[key] == nil {
				got[key] = map[string]bool{}
			}
			got[key][name] = passed
		}
		return got
	}
	materialized := func(msgs []pipes.Message) []string {
		var got []string
		for _, m := range msgs {
			if m.Method == "report_asset_materialization" {
				var key string
				require.NoError(t, json.Unmarshal(m.Params["asset_key"], &key))
				got = append(got, key)
			}
		}
		return got
	}

	t.Run("quarantined", func(t *testing.T) {
		t.Parallel()
		code, data, stderr := underDagsterSelecting(t, keys, args(t.TempDir(), "--quarantine")...)
		assert.Equal(t, 0, code, stderr)
		msgs, err := pipes.ReadMessages(bytes.NewReader(data))
		require.NoError(t, err)
		checks := checksOf(msgs)
		assert.Len(t, checks, 5)
		assert.False(t, checks["shop/items"]["dy_rule__item_product"], "the reference fails on one item")
		assert.False(t, checks["shop/orders"]["dy_rule__one_invoice"])
		assert.True(t, checks["shop/products"]["dy_rule__primary_key"])
		assert.Len(t, checks["shop/orders"], 12)
		assert.Equal(t, keys, materialized(msgs))
		assert.Equal(t, 1, methods(msgs)["report_custom_message"])
		assert.NotContains(t, msgs[len(msgs)-1].Params, "exception")
	})
	t.Run("failed", func(t *testing.T) {
		t.Parallel()
		code, data, stderr := underDagsterSelecting(t, keys, args(t.TempDir())...)
		assert.Equal(t, 1, code, stderr)
		msgs, err := pipes.ReadMessages(bytes.NewReader(data))
		require.NoError(t, err)
		assert.False(t, checksOf(msgs)["shop/items"]["dy_rule__item_product"])
		assert.Empty(t, materialized(msgs), "no member is written")
		var exc struct{ Name string }
		require.NoError(t, json.Unmarshal(msgs[len(msgs)-1].Params["exception"], &exc))
		assert.Equal(t, "CollectionError", exc.Name)
	})
	t.Run("a member without an asset", func(t *testing.T) {
		t.Parallel()
		out := t.TempDir()
		code, data, stderr := underDagsterSelecting(t, []string{"orders"}, args(out, "--quarantine")...)
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, "none is named after the collection's member items")
		msgs, err := pipes.ReadMessages(bytes.NewReader(data))
		require.NoError(t, err)
		assert.Zero(t, methods(msgs)["report_asset_check"])
		var exc struct{ Name string }
		require.NoError(t, json.Unmarshal(msgs[len(msgs)-1].Params["exception"], &exc))
		assert.Equal(t, "UsageError", exc.Name)
		written, err := os.ReadDir(out)
		require.NoError(t, err)
		assert.Empty(t, written, "refused before anything is written")
	})
}
