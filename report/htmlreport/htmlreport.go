// Package htmlreport renders a run as one self-contained HTML page: inline CSS and SVG, no
// script, nothing fetched. html/template escapes every value, so a `<script>` in a row or in a
// column's description shows as text.
package htmlreport

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
)

//go:embed page.html
var pageHTML string

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{"when": when, "whenShort": whenShort, "count": report.Count}).Parse(pageHTML))

// when shows an RFC 3339 time to the second, in UTC; other text as it is.
func when(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// whenShort is when to the minute, for the checks table.
func whenShort(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// barWidth is the width of a check's failed-rows bar, in pixels: the whole input. minBar is the
// least a bar with failed rows draws, so that 1,860 of 1,078,800 rows shows.
const (
	barWidth = 80
	minBar   = 2
)

// MaxRuleSets is how many invalid_by_rules entries the page lists; the rest are counted.
const MaxRuleSets = 20

// Write renders the run's page to w.
func Write(w io.Writer, run *report.Run) error {
	if run == nil || run.Report == nil {
		return fmt.Errorf("render the HTML report: no report")
	}
	if err := pageTemplate.Execute(w, newPage(run)); err != nil {
		return fmt.Errorf("render the HTML report: %w", err)
	}
	return nil
}

// WriteFile renders the run's page to the file path, replacing it whole: it is written beside
// and renamed into place, so a reader never sees half a page.
func WriteFile(path string, run *report.Run) error {
	return writeFile(path, func(w io.Writer) error { return Write(w, run) })
}

// writeFile writes the page that write renders to path, beside it first and renamed into place.
func writeFile(path string, write func(io.Writer) error) error {
	if err := filekind.Regular(path); err != nil {
		return fmt.Errorf("write the HTML report: %w", err)
	}
	if err := durable.ReplaceFile(path, write); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary file's name says nothing to the user
		}
		return fmt.Errorf("write the HTML report %s: %w", path, err)
	}
	return nil
}

type page struct {
	// IDPrefix starts every element id of the run's section, so that a collection's page holds
	// several; "" on a single table's page.
	IDPrefix    string
	Run         *report.Run
	Report      *outcome.Report
	OutcomeText string
	Verdict     string // PASS, WARN or FAIL, as the text output says
	Tone        string // ok, warn or bad: the banner's colour, the verdict's
	// NotRead, when set, says why the run read no rows (a column mismatch, no source data, an
	// error first), for the cards to say instead of row counts.
	NotRead string
	Failing int
	Checks  []checkRow
	// TableChecks are shown first, in a section of their own.
	TableChecks  []tableRow
	Failures     []failure
	HasTrends    bool
	TrendRuns    int
	MoreRuleSets int
	SQLLines     int
	Duration     string
}

func (p page) InvalidByRules() []outcome.RuleSet {
	return p.Report.InvalidByRules[:min(len(p.Report.InvalidByRules), MaxRuleSets)]
}

type checkRow struct {
	Name, Description string
	Passed, Blocking  bool
	Severity          outcome.Severity
	Declared          outcome.Severity
	Failed            int64
	// Share is Failed as a percentage of the input ("" when none failed); Judged says how a
	// tolerance judged the count ("" without one).
	Share, Judged string
	BarWidth      string
	Rules         []report.Rule
	Spark         *sparkline
	LastPassed    string
	Contract      []outcome.ContractQuality
}

type failure struct {
	Check   string
	Note    string
	Columns []string
	Rows    [][]cellView
	// Values are a column check's most frequent failing values, with their counts.
	Values []valueView
}

// cellView is a cell of a failing rows' table; Hit marks the value the check failed (its
// column's).
type cellView struct {
	Text string
	Hit  bool
}

// valueView is one of the most frequent failing values, as the page shows it.
type valueView struct{ Value, Count string }

func newPage(run *report.Run) page {
	rep := run.Report
	p := page{Run: run, Report: rep, OutcomeText: "error", Tone: "bad", SQLLines: strings.Count(run.SQL, "\n"),
		Duration: strconv.FormatFloat(rep.DurationS, 'f', 3, 64) + " s", HasTrends: len(run.Trends) > 0}
	p.Verdict = report.Verdict(rep)
	p.Tone = map[string]string{"PASS": "ok", "WARN": "warn", "FAIL": "bad"}[p.Verdict]
	if rep.Outcome != nil {
		p.OutcomeText = string(*rep.Outcome)
	}
	switch {
	case rep.Outcome == nil && rep.Rows.Input == 0:
		p.NotRead = "no rows read: the run stopped with an error first"
	case rep.Outcome != nil && *rep.Outcome == outcome.ColumnSchemaMismatch:
		p.NotRead = "no rows read: the input's columns do not match the schema"
	case rep.Outcome != nil && *rep.Outcome == outcome.Skipped:
		p.NotRead = "no rows read: no source data"
	}
	p.MoreRuleSets = max(0, len(rep.InvalidByRules)-MaxRuleSets)
	for _, c := range rep.Checks {
		if c.Table != nil {
			p.TableChecks = append(p.TableChecks, newTableRow(c))
			if !c.Passed {
				p.Failing++
			}
			continue
		}
		facts, _ := run.Check(c.Name)
		row := checkRow{Name: c.Name, Description: c.Description, Passed: c.Passed, Blocking: c.Blocking, Severity: c.Severity,
			Declared: facts.Declared, Failed: c.Failed, Rules: facts.Rules, Contract: c.Contract}
		if c.Share != nil {
			row.Share = report.Percent(*c.Share)
		}
		if c.Tolerance != nil {
			row.Judged = c.ResultDescription
		}
		if row.Declared == "" {
			row.Declared = outcome.SeverityWarn
		}
		row.BarWidth = "0"
		if rep.Rows.Input > 0 && row.Failed > 0 {
			w := max(minBar, barWidth*float64(min(row.Failed, rep.Rows.Input))/float64(rep.Rows.Input))
			row.BarWidth = strconv.FormatFloat(w, 'f', 1, 64)
		}
		if t, ok := run.Trends[c.Name]; ok {
			row.Spark, row.LastPassed = newSparkline(t), t.LastPassed
			p.TrendRuns = max(p.TrendRuns, len(t.Failed))
		}
		if !c.Passed {
			p.Failing++
			if f, ok := failureOf(c, run.Columns); ok {
				p.Failures = append(p.Failures, f)
			}
		}
		p.Checks = append(p.Checks, row)
	}
	// Failing checks first, those that failed at ERROR before WARN; each group in report order.
	rank := func(c checkRow) int {
		switch {
		case c.Passed:
			return 2
		case c.Severity == outcome.SeverityError:
			return 0
		}
		return 1
	}
	slices.SortStableFunc(p.Checks, func(a, b checkRow) int { return rank(a) - rank(b) })
	return p
}

// ChecksFailing and ChecksPassing count the checks table's rows (the table checks aside), for
// its filter.
func (p page) ChecksFailing() int { return len(p.Checks) - p.ChecksPassing() }

func (p page) ChecksPassing() int {
	n := 0
	for _, c := range p.Checks {
		if c.Passed {
			n++
		}
	}
	return n
}

// failureOf lays out a failing check's samples as a table: the schema's columns in order, after
// any other field (a collapsed check's dy_rule).
func failureOf(c outcome.Check, columns []report.Column) (failure, bool) {
	f := failure{Check: c.Name}
	if mm := report.ColumnErrors(c); len(mm) > 0 {
		f.Note = fmt.Sprintf("%d columns do not match", len(mm))
		f.Columns, f.Rows = table(mm, []string{"column", "expected", "actual", "file", "reference"}, "")
		return f, true
	}
	rows := report.Samples(c)
	if len(rows) == 0 {
		return f, false
	}
	names := make([]string, len(columns))
	for i, col := range columns {
		names[i] = col.Name
	}
	f.Note = fmt.Sprintf("first %d failing rows", len(rows))
	if len(rows) == 1 {
		f.Note = "the first failing row"
	}
	f.Columns, f.Rows = table(rows, names, checkedColumn(c))
	for _, v := range c.FailingValues {
		var val any
		if !decodeValue(v.Value, &val) {
			continue
		}
		f.Values = append(f.Values, valueView{Value: cell(val), Count: report.Count(v.Count)})
	}
	return f, true
}

// checkedColumn is the column whose values a check judges: a column rule's, or a collapsed
// column check's; "" for the others.
func checkedColumn(c outcome.Check) string {
	if col, _, ok := strings.Cut(c.Rule, "|"); ok {
		return col
	}
	return strings.TrimPrefix(c.Name, "dy_col__")
}

// decodeValue decodes one JSON value, its numbers kept as written.
func decodeValue(raw json.RawMessage, into *any) bool {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	return dec.Decode(into) == nil
}

// table turns JSON objects into rows of text under the given columns (those present), with
// fields outside them first; the cells of column hit are marked.
func table(objects []map[string]any, order []string, hit string) ([]string, [][]cellView) {
	present := map[string]bool{}
	for _, o := range objects {
		for k := range o {
			present[k] = true
		}
	}
	var extra []string
	for k := range present {
		if !slices.Contains(order, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	cols := extra
	for _, k := range order {
		if present[k] {
			cols = append(cols, k)
		}
	}
	rows := make([][]cellView, len(objects))
	for i, o := range objects {
		rows[i] = make([]cellView, len(cols))
		for j, k := range cols {
			rows[i][j] = cellView{Text: cell(o[k]), Hit: k == hit}
		}
	}
	return cols, rows
}

// cell is a value as the page shows it: strings as they are, NULL as NULL, the rest as JSON.
func cell(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return v
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

type sparkline struct {
	Width, Height int
	Points        string
	Dots          []dot
	Label         string
}

type dot struct {
	X, Y   string
	Passed bool
}

// newSparkline draws the failed counts, oldest first, scaled to the largest; a passing run is a
// green dot on the baseline.
func newSparkline(t report.Trend) *sparkline {
	if len(t.Failed) == 0 {
		return nil
	}
	const h, pad = 20, 3
	step := 10
	if len(t.Failed) > 1 {
		step = min(10, 90/(len(t.Failed)-1))
	}
	s := &sparkline{Width: pad*2 + step*max(1, len(t.Failed)-1), Height: h}
	peak := int64(0)
	for _, n := range t.Failed {
		peak = max(peak, n)
	}
	pts := make([]string, len(t.Failed))
	labels := make([]string, len(t.Failed))
	for i, n := range t.Failed {
		y := float64(h - pad)
		if peak > 0 {
			y -= float64(h-2*pad) * float64(n) / float64(peak)
		}
		x, ys := strconv.Itoa(pad+step*i), strconv.FormatFloat(y, 'f', 1, 64)
		pts[i] = x + "," + ys
		labels[i] = report.Count(n)
		s.Dots = append(s.Dots, dot{X: x, Y: ys, Passed: i < len(t.Passed) && t.Passed[i]})
	}
	s.Points, s.Label = strings.Join(pts, " "), strings.Join(labels, " ")
	return s
}
