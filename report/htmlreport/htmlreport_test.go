package htmlreport_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/report/htmlreport"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

var update = flag.Bool("update", false, "rewrite the golden pages in testdata")

// hostile is in the data and in a column's description: the page must show it as text.
const hostile = `<script>alert("owned")</script>`

// pinned is the start every fixture run reports.
var pinned = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// fixture runs a real validation of rows with a hostile string, with the clock, run id and
// versions pinned, and describes it for the page.
func fixture(t *testing.T, quarantine bool, g runner.Granularity) *report.Run {
	t.Helper()
	ctx := context.Background()
	s := schema.New("Orders",
		schema.Int64("order_id").PrimaryKey().Describe("the order's number"),
		schema.String("customer").Regex(`^[a-z]+$`).Describe(hostile),
		schema.Float64("amount").Min(0).Max(1000).SeverityOf("max", schema.Warn),
		schema.String("note").Nullable().Describe("free text, NULL when none"),
	)
	plan, err := compile.Compile(s)
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	defer eng.Close()
	dir := t.TempDir()
	var out runner.Output
	if quarantine {
		out = runner.ParquetOutput{Path: filepath.Join(dir, "orders.parquet")}
	}
	q := `SELECT * FROM (VALUES (1::BIGINT, 'ana', 10.5::DOUBLE, NULL::VARCHAR), (2, 'bo', -1.0, 'refund'),
		(2, '` + hostile + `', 2000.0, '` + hostile + `'), (4, 'dée', 'NaN'::DOUBLE, '日本語')) t(order_id, customer, amount, note)`
	clock := func() time.Time { return pinned }
	rep, _ := eng.Run(ctx, runner.Asset{Name: "orders", Plan: plan, Input: runner.QueryInput{SQL: q}, Output: out, Quarantine: quarantine},
		runner.Options{Now: clock, RunID: "20260314T092653Z-0123456789abcdef", Granularity: g})
	require.NotNil(t, rep.Outcome)
	rep.TablegateVersion, rep.DuckDBVersion = "v0.0.0-test", "v2.0.0-test"
	if rep.Table.Address != "" {
		rep.Table.Address = strings.ReplaceAll(rep.Table.Address, dir, "/data")
		rep.Quarantine.Address = strings.ReplaceAll(rep.Quarantine.Address, dir, "/data")
	}
	return report.New(rep, plan, report.Facts{Input: "query", Flags: []string{"--quarantine=" + map[bool]string{true: "true", false: "false"}[quarantine]}})
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name       string
		quarantine bool
		g          runner.Granularity
		trends     map[string]report.Trend
	}{
		{name: "quarantined", quarantine: true},
		{name: "aborted_per_column", g: runner.PerColumn},
		{name: "with_history", quarantine: true, trends: map[string]report.Trend{
			"dy_rule__primary_key":     {Failed: []int64{0, 0, 3, 2}, Passed: []bool{true, true, false, false}, LastPassed: "2026-03-12T09:00:00Z"},
			"dy_rule__amount__min":     {Failed: []int64{1, 1}, Passed: []bool{false, false}},
			"dy_rule__order_id__dummy": {Failed: []int64{0}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := fixture(t, tc.quarantine, tc.g)
			run.Trends = tc.trends
			var buf bytes.Buffer
			require.NoError(t, htmlreport.Write(&buf, run))
			golden := filepath.Join("testdata", tc.name+".html")
			if *update {
				require.NoError(t, os.WriteFile(golden, buf.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./report/htmlreport -update to write the golden pages")
			assert.Equal(t, string(want), buf.String(), "the page changed: review it, then run with -update")
		})
	}
}

// TestEscapesAndSelfContained reads the page as text: nothing that came from the data or the
// schema is markup, and nothing refers outside the file.
func TestEscapesAndSelfContained(t *testing.T) {
	for _, quarantine := range []bool{true, false} {
		run := fixture(t, quarantine, runner.PerRule)
		var buf bytes.Buffer
		require.NoError(t, htmlreport.Write(&buf, run))
		page := buf.String()
		assert.NotContains(t, page, "<script", "no script element, hostile or not")
		assert.Contains(t, page, "&lt;script&gt;alert(&#34;owned&#34;)&lt;/script&gt;", "the hostile value shows as text")
		for _, ref := range []string{"http:", "https:", "//", "@import", "url("} {
			for _, line := range strings.Split(page, "\n") {
				if strings.Contains(line, ref) && !strings.Contains(line, "regexp_full_match") {
					assert.NotContains(t, line, ref, "a reference outside the file")
				}
			}
		}
		assert.Contains(t, page, "日本語")
		assert.Contains(t, page, "NULL", "a NULL in a sample shows as NULL")
	}
}

func TestDeclaredSeverity(t *testing.T) {
	run := fixture(t, true, runner.PerRule)
	for name, want := range map[string]outcome.Severity{
		"dy_schema__columns":   outcome.SeverityError,
		"dy_rule__primary_key": outcome.SeverityError,
		"dy_rule__amount__min": outcome.SeverityError,
		"dy_rule__amount__max": outcome.SeverityWarn,
	} {
		c, ok := run.Check(name)
		require.True(t, ok, name)
		assert.Equal(t, want, c.Declared, name)
	}
	col := fixture(t, false, runner.PerColumn)
	c, ok := col.Check("dy_col__amount")
	require.True(t, ok)
	assert.Equal(t, outcome.SeverityError, c.Declared, "one of its rules is error")
	assert.Len(t, c.Rules, 5, "nullability, min, max, inf and NaN")
}

func TestInvalidByRulesCapped(t *testing.T) {
	run := fixture(t, true, runner.PerRule)
	for i := range 25 {
		run.Report.InvalidByRules = append(run.Report.InvalidByRules, outcome.RuleSet{Rules: "r" + strings.Repeat("x", i), Count: 1})
	}
	n := len(run.Report.InvalidByRules)
	var buf bytes.Buffer
	require.NoError(t, htmlreport.Write(&buf, run))
	assert.Contains(t, buf.String(), "… "+strconv.Itoa(n-htmlreport.MaxRuleSets)+" more")
}

func TestWriteFileReplacesWhole(t *testing.T) {
	run := fixture(t, true, runner.PerRule)
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	require.NoError(t, htmlreport.WriteFile(path, run))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "<!DOCTYPE html>"))
	entries, _ := os.ReadDir(filepath.Dir(path))
	assert.Len(t, entries, 1, "no temporary file left beside it")
	assert.Error(t, htmlreport.WriteFile(filepath.Join(t.TempDir(), "missing", "r.html"), run))
}

func render(t *testing.T, run *report.Run) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, htmlreport.Write(&buf, run))
	return buf.String()
}

// TestPageLeadsWithFailures: the failing checks come first (ERROR before WARN), a passing check's
// declared chip is neutral, the filter counts the checks, and counts have thousands separators.
func TestPageLeadsWithFailures(t *testing.T) {
	run := fixture(t, true, runner.PerRule)
	page := render(t, run)
	order := regexp.MustCompile(`data-check="([^"]+)" data-passed="(true|false)"`).FindAllStringSubmatch(page, -1)
	require.NotEmpty(t, order)
	seenPassing := false
	for _, m := range order {
		if m[2] == "true" {
			seenPassing = true
		}
		assert.False(t, seenPassing && m[2] == "false", "failing check %s after a passing one", m[1])
	}
	assert.Equal(t, "false", order[0][2])
	for _, row := range strings.Split(page, `<tr class="check"`)[1:] {
		if strings.Contains(row, `data-passed="true"`) {
			assert.Contains(t, row, `<span class="sev neutral">`, "a passing check's chip is neutral")
			assert.NotContains(t, row, `class="sev ERROR"`)
		}
	}
	assert.Regexp(t, `<label for="show-all">all \d+</label>`, page)
	assert.Regexp(t, `<label for="show-failing">failing [1-9]\d*</label>`, page)

	// 1,860 of 1,078,800 rows: a bar that shows, and the counts spelt as the CLI spells them.
	run.Report.Rows.Input, run.Report.Rows.Valid = 1078800, 1076940
	for i := range run.Report.Checks {
		if !run.Report.Checks[i].Passed {
			run.Report.Checks[i].Failed = 1860
		}
	}
	page = render(t, run)
	assert.Contains(t, page, `<div class="n">1,078,800</div>`)
	assert.Contains(t, page, `<td class="num">1,860<div class="muted">50%</div></td>`)
	assert.Contains(t, page, `aria-label="1,860 of 1,078,800 rows"><rect width="80" height="10" rx="2" fill="#eaeef2"/><rect width="2.0"`)
}

// TestPageVerdict: the banner says the text output's verdict (an all-valid run whose warn rule
// failed is WARN on both), one run of history is "last 1 run", a page of a run that read no
// rows says so rather than "0 rows in", and the input's columns not written are listed.
func TestPageVerdict(t *testing.T) {
	run := fixture(t, true, runner.PerRule)
	allValid, mismatch := outcome.AllValid, outcome.ColumnSchemaMismatch
	run.Report.Outcome, run.Report.Health = &allValid, outcome.Warning
	page := render(t, run)
	assert.Contains(t, page, `class="banner warn" data-verdict="WARN" data-outcome="all_valid" data-health="Warning"`)
	assert.Equal(t, "WARN", report.Verdict(run.Report))

	run.Trends = map[string]report.Trend{"dy_rule__primary_key": {Failed: []int64{3}, Passed: []bool{false}}}
	assert.Contains(t, render(t, run), "<th>last 1 run</th>")
	run.Trends["dy_rule__primary_key"] = report.Trend{Failed: []int64{3, 0}, Passed: []bool{false, true}}
	assert.Contains(t, render(t, run), "<th>last 2 runs</th>")

	run.Report.DroppedColumns = []string{"wind", hostile}
	page = render(t, run)
	assert.Contains(t, page, `2 input columns not in the schema, not written: <code>wind</code>, <code>&lt;script&gt;`)

	run.Report.Outcome, run.Report.Health, run.Report.Rows = &mismatch, outcome.Degraded, outcome.Rows{}
	page = render(t, run)
	assert.Contains(t, page, "no rows read: the input&#39;s columns do not match the schema")
	assert.NotContains(t, page, "rows in")
	assert.Contains(t, page, `data-verdict="FAIL"`)
}
