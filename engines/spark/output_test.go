package spark

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// offline is a plan and an engine whose connection fails, and whether the engine tried it.
func offline(t *testing.T) (*compile.Plan, *Engine, *bool) {
	t.Helper()
	p, err := compile.Compile(schema.New("S", schema.Int64("id")))
	if err != nil {
		t.Fatal(err)
	}
	connected := new(bool)
	return p, NewWith(func(context.Context) (Session, error) {
		*connected = true
		return nil, errors.New("no server in this test")
	}), connected
}

// TestAssetNameRefused: the asset name makes the quarantine's path, so one that would leave the
// output's folder is refused before anything connects or moves.
func TestAssetNameRefused(t *testing.T) {
	p, eng, connected := offline(t)
	dir := t.TempDir()
	for _, name := range []string{"../x", "a/b", `a\b`} {
		_, err := eng.Run(context.Background(), runner.Asset{Name: name, Plan: p, Input: runner.ParquetInput{Path: filepath.Join(dir, "in.parquet")},
			Output: runner.ParquetOutput{Path: filepath.Join(dir, "out.parquet")}, Quarantine: true}, runner.Options{})
		if err == nil || !strings.Contains(err.Error(), "name") {
			t.Errorf("name %q: %v", name, err)
		}
	}
	if *connected {
		t.Error("a refused name still connected to Spark")
	}
}

// TestOutputCheckedFirst: a relative output is made absolute (Spark would read "file://dir/…" as
// a host), and one that cannot be written is refused before anything connects to Spark.
func TestOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	got, err := normalizeOutput(filepath.Join("rel", "t.parquet"))
	if err != nil || got != filepath.Join(dir, "rel", "t.parquet") {
		t.Errorf("relative output: %q, %v", got, err)
	}
	if got, err := normalizeOutput("file://" + filepath.Join(dir, "u.parquet")); err != nil || got != filepath.Join(dir, "u.parquet") {
		t.Errorf("file URL: %q, %v", got, err)
	}
	if _, err := normalizeOutput("ftp://host/t.parquet"); err == nil || !strings.Contains(err.Error(), "ftp://host/t.parquet") {
		t.Errorf("an output on a store the engine has none for: %v", err)
	}
	p, eng, connected := offline(t)
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := eng.Run(context.Background(), runner.Asset{Plan: p, Input: runner.ParquetInput{Path: filepath.Join(dir, "in.parquet")},
		Output: runner.ParquetOutput{Path: filepath.Join("file", "t.parquet")}}, runner.Options{})
	var oe *outcome.OutputError
	if !errors.As(err, &oe) || rep.Error == nil {
		t.Errorf("an output under a file: %v", err)
	}
	if *connected {
		t.Error("an output that cannot be written still connected to Spark")
	}
}

// TestRefusals: what a Spark run cannot do, of its asset or options, is refused by name before
// anything connects; a run that needs no server (skipped) reports its id, start and versions.
func TestRefusals(t *testing.T) {
	p, eng, connected := offline(t)
	in := runner.ParquetInput{Path: "in.parquet"}
	for _, tc := range []struct {
		a    runner.Asset
		opts runner.Options
		want string
	}{
		{runner.Asset{Plan: p, Input: runner.CSVInput{Path: "in.csv"}}, runner.Options{}, "runner.CSVInput"},
		{runner.Asset{Plan: p, Input: in, Output: runner.TableOutput{Table: "t"}}, runner.Options{}, "DuckDB tables"},
		{runner.Asset{Plan: p, Input: in}, runner.Options{Cast: true}, "--cast"},
	} {
		rep, err := eng.Run(context.Background(), tc.a, tc.opts)
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) || rep.Error == nil {
			t.Errorf("%s: %v", tc.want, err)
		}
	}
	if *connected {
		t.Error("a refused run connected to Spark")
	}
	rep, err := eng.Run(context.Background(), runner.Asset{Plan: p}, runner.Options{RunID: "r1"})
	if err != nil || rep.Outcome == nil || *rep.Outcome != outcome.Skipped {
		t.Fatalf("no input: %v, %v", rep.Outcome, err)
	}
	if rep.RunID != "r1" || rep.StartedAt == "" || rep.TablegateVersion == "" || rep.DuckDBVersion != "" {
		t.Errorf("report stamps: run %q, started %q, tablegate %q, duckdb %q", rep.RunID, rep.StartedAt, rep.TablegateVersion, rep.DuckDBVersion)
	}
	missing := runner.ParquetInput{Path: filepath.Join(t.TempDir(), "missing.parquet")}
	if rep, err := eng.Run(context.Background(), runner.Asset{Plan: p, Input: missing}, runner.Options{SkipMissing: true}); err != nil || *rep.Outcome != outcome.Skipped {
		t.Errorf("a missing input with SkipMissing: %v, %v", rep.Outcome, err)
	}
}
