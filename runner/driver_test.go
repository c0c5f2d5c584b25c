package runner_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestNoDriverLinked: this test binary links no local engine (it imports no engines/duckdb), so
// Open says which package to import, and an engine of New refuses its runs with that error
// before anything is read, its report saying so.
func TestNoDriverLinked(t *testing.T) {
	if _, err := runner.Registered(); err == nil {
		t.Skip("a local engine is linked into this test binary")
	}
	_, err := runner.Open(runner.Config{})
	if !errors.Is(err, runner.ErrNoDriver) || !strings.Contains(err.Error(), `import _ "github.com/tablegate/tablegate/engines/duckdb"`) {
		t.Fatalf("Open: %v, want ErrNoDriver naming the import", err)
	}
	p, err := compile.Compile(schema.New("Gate", schema.Int64("a")))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runner.New(nil).Run(context.Background(), runner.Asset{Plan: p, Input: runner.ParquetInput{Path: "in.parquet"}}, runner.Options{})
	if !errors.Is(err, runner.ErrNoDriver) {
		t.Fatalf("Run: %v, want ErrNoDriver", err)
	}
	if rep.Outcome != nil || rep.Error == nil || !strings.Contains(rep.Error.Message, "engines/duckdb") {
		t.Errorf("report: outcome %v, error %+v; want no outcome and the error", rep.Outcome, rep.Error)
	}
	if _, err := runner.RunHistory(); !errors.Is(err, runner.ErrNoHistory) {
		t.Errorf("RunHistory: %v, want ErrNoHistory", err)
	}
}
