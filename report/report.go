// Package report gathers what a run's page shows beyond the JSON report: the rules of each
// check with their SQL and declared severity, the schema's columns, the compiled SQL and the
// run's input and flags. A Run is plain data, so the run history stores it and a past run's page
// renders from the history alone.
package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
)

// Run is one run: its JSON report and the plan-side facts about it.
type Run struct {
	// Report is the run's JSON report; it is stored apart from the rest (json:"-").
	Report *outcome.Report `json:"-"`
	// Checks are the report's checks, in its order, with the rules behind each.
	Checks []Check `json:"checks"`
	// Columns are the schema's columns in order.
	Columns []Column `json:"columns"`
	// SQL is the compiled query, with the input as a placeholder.
	SQL string `json:"sql"`
	// Fingerprint changes when a column, dtype, rule or severity of the schema changes.
	Fingerprint string `json:"schema_fingerprint"`
	Input       string `json:"input"`
	// Flags are the settings the run was given, as name=value.
	Flags []string `json:"flags"`
	// Trends are the checks' recent history by check name, when there is a history; they are
	// read from it, not stored in it.
	Trends map[string]Trend `json:"-"`
}

// Check is what the plan says about one check of the report.
type Check struct {
	Name string `json:"name"`
	// Declared is ERROR when one of the check's rules has severity error (and for the column
	// check), else WARN: what a failure means, whatever the run did with it.
	Declared outcome.Severity `json:"declared_severity"`
	Rules    []Rule           `json:"rules"`
}

// Rule is one rule of a check.
type Rule struct {
	Name        string `json:"name"`
	Severity    string `json:"severity"` // error or warn
	SQL         string `json:"sql"`
	Description string `json:"description"`
}

// Column is one schema column.
type Column struct {
	Name        string   `json:"name"`
	DType       string   `json:"dtype"`
	Nullable    bool     `json:"nullable"`
	Description string   `json:"description"`
	Rules       []string `json:"rules"`
}

// Facts are what the caller knows about the run that the plan and report do not say.
type Facts struct {
	Input string
	Flags []string
}

// New describes the run whose report rep is, of plan p. rep is kept, not copied.
func New(rep *outcome.Report, p *compile.Plan, f Facts) *Run {
	r := &Run{Report: rep, SQL: p.Explain(), Fingerprint: Fingerprint(p), Input: f.Input, Flags: f.Flags}
	byColumn := map[string][]string{}
	for _, rule := range p.Rules {
		if rule.Column != "" {
			byColumn[rule.Column] = append(byColumn[rule.Column], rule.Name)
		}
	}
	if s := p.Schema(); s != nil {
		for _, c := range s.Columns {
			r.Columns = append(r.Columns, Column{Name: c.Name, DType: c.DType.String(), Nullable: c.Args.Nullable,
				Description: c.Args.Description, Rules: byColumn[c.Name]})
		}
	}
	if rep != nil {
		r.Checks = checksOf(rep.Checks, p)
	}
	return r
}

// checksOf finds the rules behind each check from its name: a per-rule check is named after its
// rule, dy_col__<column> collapses the column's rules, and dy_schema__rules collapses the
// schema-level rules when there are column checks beside it, else every rule (a run at schema
// granularity, or one whose rules are all schema-level, where both are the same).
func checksOf(checks []outcome.Check, p *compile.Plan) []Check {
	perColumn := false
	for _, c := range checks {
		perColumn = perColumn || strings.HasPrefix(c.Name, "dy_col__")
	}
	out := make([]Check, 0, len(checks))
	for _, c := range checks {
		var rules []compile.Rule
		for _, rule := range p.Rules {
			switch {
			case c.Name == rule.Check,
				c.Name == "dy_col__"+rule.Column && rule.Column != "",
				c.Name == "dy_schema__rules" && (!perColumn || rule.Column == ""):
				rules = append(rules, rule)
			}
		}
		ch := Check{Name: c.Name, Declared: outcome.SeverityWarn, Rules: []Rule{}}
		if c.Name == columnsCheck {
			ch.Declared = outcome.SeverityError
		}
		for _, rule := range rules {
			if rule.IsError() {
				ch.Declared = outcome.SeverityError
			}
			ch.Rules = append(ch.Rules, Rule{Name: rule.Name, Severity: string(rule.Severity), SQL: rule.Expr, Description: rule.Description})
		}
		out = append(out, ch)
	}
	return out
}

// columnsCheck is the column-schema check's name (runner.ColumnsCheckName; runner is not imported
// for one constant).
const columnsCheck = "dy_schema__columns"

// Fingerprint is a short hash of what the schema checks: its columns and dtypes, and each rule's
// name, severity, SQL and tolerance.
func Fingerprint(p *compile.Plan) string {
	h := sha256.New()
	for _, c := range p.Columns {
		fmt.Fprintf(h, "column %q %s\n", c.Name, c.DType)
	}
	for _, r := range p.Rules {
		fmt.Fprintf(h, "rule %q %s %q\n", r.Name, r.Severity, r.Expr)
		if !r.Tolerance.IsZero() {
			// What fails the run changed; a schema without tolerances keeps its fingerprint.
			fmt.Fprintf(h, "tolerance %q %s\n", r.Name, r.Tolerance)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Check returns the plan-side facts of the report's check named name.
func (r *Run) Check(name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// Verdict is a run's one word, the same in the text output and on the page: FAIL when the run
// failed (or ended before an outcome), WARN when it succeeded with failing checks (an all-valid
// run whose warn rules failed included), else PASS.
func Verdict(rep *outcome.Report) string {
	switch {
	case rep.Outcome == nil || !rep.Outcome.Succeeded():
		return "FAIL"
	case rep.Health != outcome.Healthy:
		return "WARN"
	}
	return "PASS"
}

// Count spells a count with thousands separators (1,078,800), as the text output, the page and
// tablegate history print counts.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	if digits, ok := strings.CutPrefix(s, "-"); ok {
		return "-" + group(digits)
	}
	return group(s)
}

// Number spells a value as the page and tablegate history print values: to 10 significant
// digits, without an exponent below 10^21, its whole part with thousands separators
// (336,776; 1,234.5; 0.000012).
func Number(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= 1e21 {
		return strconv.FormatFloat(f, 'g', 10, 64)
	}
	rounded, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 10, 64), 64)
	s := strconv.FormatFloat(rounded, 'f', -1, 64)
	sign := ""
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		sign, s = "-", rest
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	if hasFrac {
		return sign + group(whole) + "." + frac
	}
	return sign + group(whole)
}

// group puts a comma between each three digits of a run of digits, from the right.
func group(digits string) string {
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Percent spells a share of the input (0 to 1) as a percentage of at most two decimals, the
// same in the text output and on the page: 20%, 1.25%; a share that rounds to 0% or 100% but is
// not says so (<0.01%, >99.99%).
func Percent(share float64) string {
	p := share * 100
	switch {
	case p <= 0:
		return "0%"
	case p < 0.005:
		return "<0.01%"
	case p < 100 && p >= 99.995:
		return ">99.99%"
	}
	s := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(p, 'f', 2, 64), "0"), ".")
	return s + "%"
}

// Values spells a column check's most frequent failing values with their counts: `-1 (2 rows),
// "x" (1 row)`.
func Values(values []outcome.ValueCount) string {
	parts := make([]string, len(values))
	for i, v := range values {
		noun := "rows"
		if v.Count == 1 {
			noun = "row"
		}
		parts[i] = fmt.Sprintf("%s (%s %s)", v.Value, Count(v.Count), noun)
	}
	return strings.Join(parts, ", ")
}
