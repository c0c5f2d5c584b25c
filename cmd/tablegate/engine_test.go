package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
