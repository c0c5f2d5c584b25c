package tablegate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/history"
)

// Options.HTML and Options.History: the page is written, the run recorded; a history that fails
// is a warning in the result and the run's error is its own.
func TestValidateHTMLAndHistory(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t)
	plan := compileSchema(t, tablegate.NewSchema("Orders", tablegate.Int64("id").PrimaryKey(), tablegate.Float64("amount").Min(0)))
	dir := t.TempDir()
	page, hist := filepath.Join(dir, "orders.html"), filepath.Join(dir, "history.duckdb")
	in := tablegate.FromQuery("SELECT * FROM (VALUES (1::BIGINT, 1.0::DOUBLE), (2, -1.0)) t(id, amount)")

	res, err := eng.Validate(ctx, plan, in, tablegate.ToParquet(filepath.Join(dir, "orders.parquet")),
		tablegate.Options{Quarantine: true, HTML: page, History: hist})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Fatalf("warnings: %v", res.Warnings)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `data-outcome="quarantined"`) || !strings.Contains(string(data), res.Report.RunID) {
		t.Error("the page does not show the run")
	}
	runs, err := history.Runs(ctx, hist, history.Filter{})
	if err != nil || len(runs) != 1 || runs[0].RunID != res.Report.RunID || runs[0].Rows.Invalid != 1 {
		t.Fatalf("history: %+v, %v", runs, err)
	}

	bad := filepath.Join(dir, "bad.duckdb")
	if err := os.WriteFile(bad, []byte("not a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = eng.Validate(ctx, plan, in, nil, tablegate.Options{History: bad})
	var abort *tablegate.ValidationAbortError
	if !errors.As(err, &abort) {
		t.Fatalf("the run's own error, not the history's: %v", err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "append to the run history "+bad) {
		t.Fatalf("warnings: %v", res.Warnings)
	}

	var warnings strings.Builder
	res, _ = eng.Validate(ctx, plan, in, nil, tablegate.Options{History: bad, Warnings: &warnings})
	if want := "warning: " + res.Warnings[0] + "\n"; warnings.String() != want {
		t.Errorf("Options.Warnings got %q, want %q", warnings.String(), want)
	}

	missing := filepath.Join(dir, "no", "such", "dir.html")
	_, err = eng.Validate(ctx, plan, in, nil, tablegate.Options{HTML: missing})
	var pageErr *tablegate.PageError
	if !errors.As(err, &abort) || !errors.As(err, &pageErr) || pageErr.Path != missing || !strings.Contains(err.Error(), "write the HTML report") {
		t.Fatalf("the run's error and the page's: %v", err)
	}
}

// Options.AnnotateError rewrites a failing run's error before the result, the page and the
// history record it; Options.Facts are what the page and the history show of how it was asked.
func TestAnnotateErrorAndFacts(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t)
	plan := compileSchema(t, tablegate.NewSchema("Orders", tablegate.Float64("amount").Min(0)))
	dir := t.TempDir()
	page, hist := filepath.Join(dir, "orders.html"), filepath.Join(dir, "history.duckdb")
	in := tablegate.FromQuery("SELECT -1.0::DOUBLE AS amount")
	res, err := eng.Validate(ctx, plan, in, nil, tablegate.Options{HTML: page, History: hist,
		Facts:         &tablegate.RunFacts{Input: "--query SELECT -1.0", Flags: []string{"--format=json"}},
		AnnotateError: func(err error) error { return fmt.Errorf("%w (see the runbook)", err) }})
	var abort *tablegate.ValidationAbortError
	if !errors.As(err, &abort) || !strings.HasSuffix(err.Error(), "(see the runbook)") {
		t.Fatalf("error %v", err)
	}
	if !strings.HasSuffix(res.Report.Error.Message, "(see the runbook)") {
		t.Errorf("the report's message: %q", res.Report.Error.Message)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(see the runbook)", "--query SELECT -1.0", "--format=json"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	run, err := history.Load(ctx, hist, res.Report.RunID)
	if err != nil || !strings.HasSuffix(run.Report.Error.Message, "(see the runbook)") || run.Input != "--query SELECT -1.0" {
		t.Errorf("history: %+v, %v", run, err)
	}
}

// Explain and Checks: what a run would execute and report, without reading rows.
func TestExplainAndChecks(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t)
	plan := compileSchema(t, tablegate.NewSchema("Orders", tablegate.Int64("id").PrimaryKey(), tablegate.Float64("amount").Min(0)))
	dir := t.TempDir()
	q, err := eng.Explain(ctx, plan, tablegate.FromQuery("SELECT 1::BIGINT AS id, 2.0::DOUBLE AS amount"),
		tablegate.ToParquet(filepath.Join(dir, "orders.parquet")), tablegate.Options{Quarantine: true})
	if err != nil || !strings.Contains(q, "COPY") || !strings.Contains(q, "quarantine") {
		t.Errorf("explain: %v\n%s", err, q)
	}
	if _, err := os.Stat(filepath.Join(dir, "orders.parquet")); !os.IsNotExist(err) {
		t.Errorf("explain wrote the output: %v", err)
	}
	var names []string
	for _, c := range tablegate.Checks(plan, tablegate.Options{Granularity: tablegate.PerColumn, Quarantine: true}) {
		names = append(names, c.Name)
		if c.Blocking != (c.Name == "dy_schema__columns") {
			t.Errorf("%s blocking %v with a quarantine", c.Name, c.Blocking)
		}
	}
	if got := strings.Join(names, " "); got != "dy_schema__columns dy_col__id dy_col__amount dy_schema__rules" {
		t.Errorf("checks %s", got)
	}
}
