package htmlreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"

	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
)

//go:embed collection.html
var collectionHTML string

// collectionTemplate shares the single-table page's style and its "run" section, which renders
// each member.
var collectionTemplate = template.Must(template.Must(pageTemplate.Clone()).New("collection").Parse(collectionHTML))

// Collection is a collection's run: its report and each member's run, by member name. A member
// without a run (an optional member left out, or one the run never got to) is listed as such.
type Collection struct {
	Report  *outcome.CollectionReport
	Members map[string]*report.Run
}

// WriteCollection renders a collection's run as one page: its outcome, members and filters
// first, then a section per member as the single-table page shows a run; failing members and
// filters lead.
func WriteCollection(w io.Writer, c Collection) error {
	if c.Report == nil {
		return fmt.Errorf("render the HTML report: no report")
	}
	if err := collectionTemplate.ExecuteTemplate(w, "collection", newCollectionPage(c)); err != nil {
		return fmt.Errorf("render the HTML report: %w", err)
	}
	return nil
}

// WriteCollectionFile renders a collection's page to the file path, replacing it whole, as
// WriteFile does.
func WriteCollectionFile(path string, c Collection) error {
	return writeFile(path, func(w io.Writer) error { return WriteCollection(w, c) })
}

type collectionPage struct {
	Report      *outcome.CollectionReport
	OutcomeText string
	Verdict     string
	Tone        string
	Failing     int
	Members     []memberRow
	Filters     []filterRow
	Duration    string
}

type memberRow struct {
	Name    string
	Verdict string // PASS, WARN, FAIL, or "" when the member has no run
	Page    *page  // nil when the member has no run
	Absent  string // why there is no page
}

type filterRow struct {
	outcome.FilterResult
	Passed bool
	Failed []memberCount
}

type memberCount struct {
	Member string
	Rows   int64
}

func newCollectionPage(c Collection) collectionPage {
	crep := c.Report
	p := collectionPage{Report: crep, OutcomeText: "error", Verdict: "FAIL", Tone: "bad",
		Duration: strconv.FormatFloat(crep.DurationS, 'f', 3, 64) + " s"}
	if crep.Outcome != nil {
		p.OutcomeText = string(*crep.Outcome)
	}
	order := map[string]int{}
	for i, name := range crep.MemberOrder {
		order[name] = i
		m := memberRow{Name: name, Absent: "not run"}
		rep, run := crep.Members[name], c.Members[name]
		switch {
		case rep == nil:
			m.Absent = "absent: no input given for this optional member"
		case run == nil || run.Report == nil:
			if rep.Error != nil {
				m.Absent = rep.Error.Message
			}
		default:
			pg := newPage(run)
			pg.IDPrefix = "member-" + name + "-"
			m.Page, m.Verdict = &pg, pg.Verdict
			if m.Verdict == "FAIL" {
				p.Failing++
			}
		}
		p.Members = append(p.Members, m)
	}
	if crep.Succeeded() {
		p.Verdict, p.Tone = "PASS", "ok"
		for _, m := range p.Members {
			if m.Verdict == "WARN" {
				p.Verdict, p.Tone = "WARN", "warn"
			}
		}
	}
	// Failing members first, then those with warnings; each group in declaration order.
	rank := map[string]int{"FAIL": 0, "WARN": 1, "PASS": 2, "": 3}
	slices.SortStableFunc(p.Members, func(a, b memberRow) int { return rank[a.Verdict] - rank[b.Verdict] })
	for _, f := range crep.Filters {
		row := filterRow{FilterResult: f, Passed: true}
		for m, n := range f.Failed {
			row.Failed = append(row.Failed, memberCount{Member: m, Rows: n})
			row.Passed = row.Passed && n == 0
		}
		slices.SortFunc(row.Failed, func(a, b memberCount) int { return order[a.Member] - order[b.Member] })
		p.Filters = append(p.Filters, row)
	}
	frank := func(f filterRow) int {
		switch {
		case f.Skipped != "":
			return 2
		case f.Passed:
			return 1
		}
		return 0
	}
	slices.SortStableFunc(p.Filters, func(a, b filterRow) int { return frank(a) - frank(b) })
	return p
}
