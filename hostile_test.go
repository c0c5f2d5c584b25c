package tablegate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/history"
)

// hostileTableCheck is one entry of testdata/hostile_table_checks.txt.
type hostileTableCheck struct {
	label, expect string
	runs          int
	checks        string // the YAML of the table_checks list
}

func hostileTableChecks(t *testing.T) []hostileTableCheck {
	t.Helper()
	data, err := os.ReadFile("testdata/hostile_table_checks.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []hostileTableCheck
	for _, part := range strings.Split(string(data), "\n=== ")[1:] {
		head, body, _ := strings.Cut(part, "\n")
		fields := strings.Fields(head)
		e := hostileTableCheck{label: fields[0], expect: fields[1], runs: 1, checks: body}
		for _, f := range fields[2:] {
			if _, err := fmt.Sscanf(f, "runs=%d", &e.runs); err != nil {
				t.Fatalf("entry %s: %q", e.label, f)
			}
		}
		out = append(out, e)
	}
	return out
}

// TestHostileTableChecks runs every entry of the corpus through the facade with a quarantine,
// an HTML page and a run history: a check whose SQL fails on the data ends the run without an
// outcome (never PASS: not in the result, the page or the history) and writes nothing; a metric
// is compared exactly; every report serializes; the last-known-good table survives every run
// that must not write.
func TestHostileTableChecks(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t)
	in := tablegate.FromQuery(`SELECT * FROM (VALUES (1::BIGINT, 'n1', 1.5::DOUBLE), (2, 'n2', 1.7e300), (3, 'x', 2.0)) t(id, name, amount)`)
	good := []byte("last known good")
	var attempts, refused, ran, leaked, hung, lost int
	for i, e := range hostileTableChecks(t) {
		t.Run(e.label, func(t *testing.T) {
			attempts++
			doc := "schema: Hostile\ncolumns:\n  - {name: id, type: Int64}\n  - {name: name, type: String}\n" +
				"  - {name: amount, type: Float64, min: 0}\ntable_checks:\n" + e.checks
			s, err := tablegate.ParseSchema([]byte(doc), e.label+".yaml")
			var plan *tablegate.Plan
			if err == nil {
				plan, err = tablegate.Compile(ctx, s)
			}
			var decl *tablegate.DeclarationError
			if errors.As(err, &decl) {
				refused++
				if e.expect != "refused" {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err != nil || e.expect == "refused" {
				t.Fatalf("want a declaration error, got %v", err)
			}
			ran++
			dir := filepath.Join(t.TempDir(), fmt.Sprint(i))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			out, page, hist := filepath.Join(dir, "t.parquet"), filepath.Join(dir, "t.html"), filepath.Join(dir, "h.duckdb")
			var res *tablegate.Result
			for range e.runs {
				if err := os.WriteFile(out, good, 0o644); err != nil {
					t.Fatal(err)
				}
				runCtx, cancel := context.WithTimeout(ctx, time.Minute)
				began := time.Now()
				res, err = eng.Validate(runCtx, plan, in, tablegate.ToParquet(out), tablegate.Options{Quarantine: true, HTML: page, History: hist})
				cancel()
				if time.Since(began) > 30*time.Second {
					hung++
					t.Fatalf("the run took %s", time.Since(began))
				}
				if _, jerr := json.Marshal(res.Report); jerr != nil {
					leaked++
					t.Fatalf("the report does not serialize: %v", jerr)
				}
				if len(res.Warnings) > 0 {
					t.Fatalf("warnings: %v", res.Warnings)
				}
			}
			verdict := tablegate.Verdict(res.Report)
			pageHTML, perr := os.ReadFile(page)
			if perr != nil {
				t.Fatal(perr)
			}
			runs, herr := history.Runs(ctx, hist, history.Filter{Last: 1})
			if herr != nil || len(runs) != 1 {
				t.Fatalf("history: %v %v", runs, herr)
			}
			data, _ := os.ReadFile(out)
			kept := bytes.Equal(data, good)
			switch e.expect {
			case "error", "fail":
				if verdict != "FAIL" || !strings.Contains(string(pageHTML), `data-verdict="FAIL"`) {
					leaked++
					t.Errorf("verdict %s, want FAIL (the page too)", verdict)
				}
				if !kept {
					lost++
					t.Errorf("the last-known-good table was replaced")
				}
			}
			switch e.expect {
			case "error":
				var tre *tablegate.TableCheckRuntimeError
				if !errors.As(err, &tre) || tre.Check != "dy_table__boom" || res.Outcome != "" || res.Health != "" {
					leaked++
					t.Fatalf("want a TableCheckRuntimeError naming dy_table__boom and no outcome, got %q %q %v", res.Outcome, res.Health, err)
				}
				if runs[0].Outcome != "" || runs[0].ErrorType != "TableCheckRuntimeError" {
					leaked++
					t.Errorf("history records %+v", runs[0])
				}
				if res.Rows.Input != 3 {
					t.Errorf("the rows counted are lost: %+v", res.Rows)
				}
			case "fail":
				var tce *tablegate.TableCheckError
				if !errors.As(err, &tce) || res.Outcome != tablegate.TableCheckFailed {
					leaked++
					t.Fatalf("want table_check_failed, got %q %v", res.Outcome, err)
				}
				if c, _ := res.Check("dy_table__boom"); c.Passed {
					leaked++
					t.Errorf("dy_table__boom passed: %s", c.ResultDescription)
				}
			case "pass":
				if err != nil || !res.Outcome.Succeeded() || kept {
					t.Fatalf("want a passing run that writes, got %q %v", res.Outcome, err)
				}
			default:
				t.Fatalf("expect %q", e.expect)
			}
		})
	}
	t.Logf("hostile table checks and metrics: %d attempts, %d refused, %d ran, %d leaked, %d hung, %d lost", attempts, refused, ran, leaked, hung, lost)
}
