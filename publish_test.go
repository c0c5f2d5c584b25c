package tablegate_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
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
	res, _ = eng.Validate(ctx, plan, in, nil, tablegate.Options{History: bad, RunOptions: tablegate.RunOptions{Warnings: &warnings}})
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
	for _, c := range tablegate.Checks(plan, tablegate.Options{Quarantine: true, RunOptions: tablegate.RunOptions{Granularity: tablegate.PerColumn}}) {
		names = append(names, c.Name)
		if c.Blocking != (c.Name == "dy_schema__columns") {
			t.Errorf("%s blocking %v with a quarantine", c.Name, c.Blocking)
		}
	}
	if got := strings.Join(names, " "); got != "dy_schema__columns dy_col__id dy_col__amount dy_schema__rules" {
		t.Errorf("checks %s", got)
	}
}

// Options.HTML or Options.History naming the run's data (the table, the quarantine, the input,
// each other) or a named pipe is refused before the run reads anything: nothing is written, the
// previous table and quarantine are as they were.
func TestValidateRefusesReportFilesOverData(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t)
	plan := compileSchema(t, tablegate.NewSchema("Orders", tablegate.Int64("id").PrimaryKey(), tablegate.Float64("amount").Min(0)))
	dir := t.TempDir()
	table, quarantine := filepath.Join(dir, "orders.parquet"), filepath.Join(dir, "orders_quarantine.parquet")
	in := tablegate.FromQuery("SELECT * FROM (VALUES (1::BIGINT, 1.0::DOUBLE), (2, -1.0)) t(id, amount)")
	if _, err := eng.Validate(ctx, plan, in, tablegate.ToParquet(table), tablegate.Options{Quarantine: true}); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(dir, "in.csv")
	fifo := filepath.Join(dir, "fifo.html")
	if err := os.WriteFile(csv, []byte("id,amount\n1,1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	snapshot := func() map[string]string {
		out := map[string]string{}
		for _, p := range []string{table, quarantine, csv} {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = string(data)
		}
		return out
	}
	before := snapshot()
	for _, tc := range []struct {
		name string
		in   tablegate.Input
		opts tablegate.Options
		want string
	}{
		{"HTML is the table", in, tablegate.Options{Quarantine: true, HTML: table}, "Options.HTML " + table + " is the same file as the table"},
		{"History is the quarantine", in, tablegate.Options{Quarantine: true, History: quarantine}, "Options.History " + quarantine + " is the same file as the quarantine"},
		{"HTML is the input", tablegate.FromCSV(csv), tablegate.Options{Quarantine: true, HTML: csv}, "is the same file as the input"},
		{"History is HTML", in, tablegate.Options{Quarantine: true, HTML: filepath.Join(dir, "p.html"), History: filepath.Join(dir, ".", "p.html")}, "is the same file as Options.HTML"},
		{"HTML is a named pipe", in, tablegate.Options{Quarantine: true, HTML: fifo}, "is a named pipe (FIFO), not a regular file"},
	} {
		res, err := eng.Validate(ctx, plan, tc.in, tablegate.ToParquet(table), tc.opts)
		var refused *tablegate.ReportFileError
		if !errors.As(err, &refused) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
		if res.Report.Outcome != nil {
			t.Errorf("%s: the run went on to %s", tc.name, *res.Report.Outcome)
		}
		if _, err := os.Stat(filepath.Join(dir, "p.html")); err == nil {
			t.Errorf("%s: a page was written", tc.name)
		}
	}
	if after := snapshot(); !reflect.DeepEqual(before, after) {
		t.Error("a refused run changed the table, the quarantine or the input")
	}
}

// Options.HTML with a collection: one page, the collection's members and filters, then a section
// per member; a page that cannot be written is a *PageError beside the run's own outcome.
func TestValidateCollectionHTML(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t)
	c, err := tablegate.LoadCollection(ctx, "examples/shop/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := tablegate.CompileCollection(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	members := func(out string) map[string]tablegate.MemberIO {
		m := map[string]tablegate.MemberIO{}
		for _, name := range []string{"orders", "items", "invoices", "refunds", "products"} {
			m[name] = tablegate.MemberIO{Input: tablegate.FromParquet(filepath.Join("examples/shop", name+".parquet")),
				Output: tablegate.ToParquet(filepath.Join(dir, out, name+".parquet"))}
		}
		return m
	}
	page := filepath.Join(dir, "shop.html")
	crep, err := eng.ValidateCollection(ctx, cp, members("out"), tablegate.Options{Quarantine: true, HTML: page})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`data-outcome="passed"`, crep.RunID, `<tr class="filter-row" data-filter="one_invoice" data-passed="false">`,
		`<section class="member" id="member-orders"`, `<section class="member" id="member-products"`, crep.Members["items"].RunID} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the page lacks %s", want)
		}
	}

	// The page's folder is missing: the run writes its members, the page is a *PageError.
	missing := filepath.Join(dir, "no-such-folder", "shop.html")
	crep, err = eng.ValidateCollection(ctx, cp, members("out2"), tablegate.Options{Quarantine: true, HTML: missing})
	var pageErr *tablegate.PageError
	if !errors.As(err, &pageErr) || pageErr.Path != missing {
		t.Fatalf("want a *PageError for %s, got %v", missing, err)
	}
	if !crep.Succeeded() || !crep.Written {
		t.Fatalf("the run itself passed and wrote: %+v", crep)
	}
}
