package tablegate_test

import (
	"context"
	"errors"
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

	_, err = eng.Validate(ctx, plan, in, nil, tablegate.Options{HTML: filepath.Join(dir, "no", "such", "dir.html")})
	if !errors.As(err, &abort) || !strings.Contains(err.Error(), "write the HTML report") {
		t.Fatalf("the run's error and the page's: %v", err)
	}
}
