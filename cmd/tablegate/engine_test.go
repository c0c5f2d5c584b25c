package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/internal/pipes"
)

// TestEngineFlag checks the engine choice without Spark: an unknown engine and a Spark remote for
// DuckDB are usage errors, and --engine spark without the Spark binary says how to get it.
func TestEngineFlag(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no tablegate-spark anywhere
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", "--engine", "polars", "--schema", "s.yaml", "--input", "x.parquet"}, `--engine "polars": use duckdb or spark`},
		{[]string{"validate", "--spark-remote", "sc://h:1", "--schema", "s.yaml", "--input", "x.parquet"}, "--spark-remote applies to --engine spark only"},
		{[]string{"validate", "--engine", "spark", "--schema", "s.yaml", "--input", "x.parquet"}, "--engine spark needs tablegate-spark beside tablegate or on PATH"},
		{[]string{"explain", "--spark-remote", "sc://h:1", "--schema", "s.yaml"}, "--spark-remote applies to --engine spark only"},
		{[]string{"validate", "--s3-endpoint", "http://127.0.0.1:9000", "--schema", "s.yaml", "--input", "x.parquet"}, "--s3-endpoint applies to --engine spark only"},
		{[]string{"explain", "--s3-path-style", "--schema", "s.yaml"}, "--s3-path-style applies to --engine spark only"},
		{[]string{"validate", "--engine=spark", "--schema", "s.yaml"}, "go build -C engines/spark"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, stderr.String(), tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"validate", "--engine", "spark"}, true},
		{[]string{"validate", "--engine=spark"}, true},
		{[]string{"validate", "--engine", "duckdb"}, false},
		{[]string{"explain", "--engine", "spark"}, true},
		{[]string{"explain", "--engine", "duckdb"}, false},
		{[]string{"check", "--engine", "spark"}, false},
		{[]string{"validate", "--", "--engine", "spark"}, false},
	} {
		if got := sparkRequested(tc.args); got != tc.want {
			t.Errorf("sparkRequested(%v) = %v", tc.args, got)
		}
	}
}

// TestSparkUnderDagsterFailsEarly: a Spark run under Dagster Pipes that cannot start still opens
// and closes the session with its error, and keeps exit status 2 (the run itself is compared with
// DuckDB's in engines/spark's TestCLIUnderDagster).
func TestSparkUnderDagsterFailsEarly(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no tablegate-spark anywhere
	for _, tc := range []struct {
		name, extra, exception, message string
	}{
		{"report flag", "--report=r.json", "UsageError", "the report goes to Dagster"},
		{"no binary", "--samples=1", "Error", "tablegate-spark gave no report (exit status 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ctxFile, msgFile := filepath.Join(dir, "context"), filepath.Join(dir, "messages")
			require.NoError(t, os.WriteFile(ctxFile, []byte(`{"asset_keys": ["orders"], "run_id": "r", "job_name": null, "retry_number": 0, "extras": {}}`), 0o600))
			ctxParam, err := pipes.EncodeParam(map[string]any{"path": ctxFile})
			require.NoError(t, err)
			msgParam, err := pipes.EncodeParam(map[string]any{"path": msgFile})
			require.NoError(t, err)
			t.Setenv(pipes.ContextVar, ctxParam)
			t.Setenv(pipes.MessagesVar, msgParam)
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"validate", "--engine", "spark", "--schema", "s.yaml", "--input", "x.parquet", tc.extra}, &stdout, &stderr)
			assert.Equal(t, exitUsage, code, stderr.String())
			data, err := os.ReadFile(msgFile)
			require.NoError(t, err)
			msgs, err := pipes.ReadMessages(bytes.NewReader(data))
			require.NoError(t, err)
			require.Equal(t, []string{"opened", "report_custom_message", "closed"}, func() (m []string) {
				for _, msg := range msgs {
					m = append(m, msg.Method)
				}
				return m
			}())
			var exc struct{ Name, Message string }
			require.NoError(t, json.Unmarshal(msgs[2].Params["exception"], &exc))
			assert.Equal(t, tc.exception, exc.Name)
			assert.Contains(t, exc.Message, tc.message)
		})
	}
}
