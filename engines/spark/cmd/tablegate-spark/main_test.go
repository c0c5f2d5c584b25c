package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/outcome"
)

// TestEarlyReports: a command line that fails before its run (a flag that does not parse, a
// missing server, a refused option) still prints one JSON report, with outcome null, writes it to
// --report, and exits 2; a refusal names what to do instead. No server is needed.
func TestEarlyReports(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(schemaFile, []byte("schema: S\ncolumns:\n  - name: id\n    type: Int64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.json")
	env := func(string) string { return "" }
	for _, tc := range []struct {
		args     []string
		typ, msg string
	}{
		{[]string{"validate", "--bogus", "--format", "json", "--report", report}, "UsageError", "unknown flag: --bogus"},
		{[]string{"validate", "--schema", schemaFile, "--input", "in.parquet", "--format=json", "--report=" + report}, "UsageError", "--spark-remote"},
		{[]string{"validate", "--schema", schemaFile, "--input", "in.csv", "--spark-remote", "sc://127.0.0.1:1", "--granularity", "table", "--format", "json", "--report", report},
			"SettingError", "granularity"},
		{[]string{"validate", "--schema", schemaFile, "--input", "in.parquet", "--spark-remote", "sc://127.0.0.1:1", "--out", "delta:orders", "--format", "json", "--report", report},
			"UsageError", "delta:[catalog.]namespace.table"},
	} {
		os.Remove(report)
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, &stdout, &stderr, env)
		var rep outcome.Report
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("%v: stdout is not one report (%v): %s", tc.args, err, stdout.String())
		}
		if code != 2 || rep.Outcome != nil || rep.Error == nil || rep.Error.Type != tc.typ || !strings.Contains(rep.Error.Message, tc.msg) {
			t.Errorf("%v: exit %d, report %+v; want exit 2, a %s about %q", tc.args, code, rep.Error, tc.typ, tc.msg)
		}
		if data, err := os.ReadFile(report); err != nil || !bytes.Equal(bytes.TrimSpace(data), bytes.TrimSpace(stdout.Bytes())) {
			t.Errorf("%v: --report holds %q, %v", tc.args, data, err)
		}
	}
}
