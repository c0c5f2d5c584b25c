package spark_test

import (
	"context"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablegate/tablegate/outcome"
)

// TestCLI builds tablegate and tablegate-spark side by side and runs `tablegate validate --engine
// spark`: tablegate delegates, and the exit statuses and JSON report are the CLI's.
func TestCLI(t *testing.T) {
	needSpark(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, b := range [][]string{
		{"build", "-C", "../..", "-o", filepath.Join(dir, "tablegate"), "./cmd/tablegate"},
		{"build", "-o", filepath.Join(dir, "tablegate-spark"), "./cmd/tablegate-spark"},
	} {
		if out, err := osexec.CommandContext(ctx, "go", b...).CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", b, err, out)
		}
	}
	db := duck(t)
	in := filepath.Join(dir, "in.parquet")
	writeParquet(t, db, "SELECT i::BIGINT AS id, (i - 3)::DOUBLE AS amount FROM range(10) t(i)", in)
	schemaFile := filepath.Join(dir, "small.yaml")
	if err := os.WriteFile(schemaFile, []byte(outcomeSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out", "small.parquet")
	for _, tc := range []struct {
		extra []string
		code  int
		want  outcome.Outcome
	}{
		{[]string{"--out", out, "--quarantine"}, 0, outcome.Quarantined},
		{[]string{"--out", out}, 1, outcome.Aborted},
		// Relative to the working directory, as the input may be.
		{[]string{"--out", filepath.Join("rel", "small.parquet"), "--quarantine"}, 0, outcome.Quarantined},
	} {
		args := append([]string{"validate", "--engine", "spark", "--spark-remote", server.Remote, "--schema", schemaFile, "--input", in, "--format", "json"}, tc.extra...)
		cmd := osexec.CommandContext(ctx, filepath.Join(dir, "tablegate"), args...)
		cmd.Dir = dir
		stdout, err := cmd.Output()
		code := 0
		if ee, ok := err.(*osexec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var rep outcome.Report
		if jerr := json.Unmarshal(stdout, &rep); jerr != nil {
			t.Fatalf("%v: stdout is not a report (%v): %s", tc.extra, jerr, stdout)
		}
		if code != tc.code || rep.Outcome == nil || *rep.Outcome != tc.want {
			t.Errorf("%v: exit %d, outcome %v; want %d, %s", tc.extra, code, rep.Outcome, tc.code, tc.want)
		}
	}
	// explain --engine spark is delegated too: every statement of the Spark run.
	cmd := osexec.CommandContext(ctx, filepath.Join(dir, "tablegate"), "explain", "--engine", "spark", "--spark-remote", server.Remote,
		"--schema", schemaFile, "--input", in, "--out", out, "--quarantine")
	text, err := cmd.Output()
	if err != nil || !strings.HasPrefix(string(text), "-- Besides these statements, the run sets its Spark session") ||
		!strings.Contains(string(text), "INSERT OVERWRITE DIRECTORY") || !strings.Contains(string(text), "CACHE TABLE") {
		t.Errorf("explain --engine spark: %v\n%s", err, text)
	}
	for _, table := range []string{out, filepath.Join(dir, "rel", "small.parquet")} {
		if n := len(rowsOf(t, db, table)); n != 7 {
			t.Errorf("%s has %d rows, want 7", table, n)
		}
	}
}
