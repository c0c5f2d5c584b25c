package compile

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tablegate/tablegate/internal/suggest"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// TableCheck is one compiled table check: an aggregate over every input row, evaluated once per
// run in one statement after the rules are counted.
type TableCheck struct {
	Name  string // enough_rows
	Check string // dy_table__enough_rows
	// Severity is error (a failure fails the run) or warn.
	Severity    schema.Severity
	Description string
	// Text is the SQL as written, for messages; Expr the checked SQL as DuckDB prints it. Both
	// may call invalid_rows() and failed_rows('rule').
	Text, Expr string
	// Metric tells a numeric value with bounds or a band from one that passes when true; Exact
	// a metric read as its digits (an integer or DECIMAL), not as a DOUBLE.
	Metric   bool
	Exact    bool
	Min, Max *float64
	// Anomaly is the metric's band from the run history, with its defaults filled; nil for none.
	Anomaly *schema.Anomaly
	// Sides are a condition's two compared expressions (`max(placed_at)`, `now() - INTERVAL 1
	// DAY`) when it is one comparison, whose values the run reads beside the condition's truth;
	// none for other checks.
	Sides []Side

	value  string // the SQL of the check's value in the statement that evaluates them
	counts bool   // value reads the rule counts
}

// Side is one side of a condition that is a comparison.
type Side struct {
	Text string // the side as DuckDB prints it
	// Newest tells that the side is the newest value of a Date or Datetime column (max(col)):
	// the run also reads how old it is.
	Newest bool

	value string // the side's value as text, in the statement
	age   string // how old it is, in whole seconds ("" unless Newest)
}

// Values is how many values the table checks' statement reads per check: the check's value,
// then each side's and, for a side that is a newest value, its age.
func (t TableCheck) Values() int {
	n := 1
	for _, s := range t.Sides {
		n++
		if s.Newest {
			n++
		}
	}
	return n
}

// Names of the rule-result functions a table check may call.
const (
	invalidRowsFunc = "invalid_rows"
	failedRowsFunc  = "failed_rows"
)

// TableChecksReadCounts reports whether the table checks' statement takes the rule counts as
// its one parameter ($1, a BIGINT list: the rows failing an error rule, then the rows failing
// each rule in plan order).
func (p *Plan) TableChecksReadCounts() bool { return p.tableCounts }

// tableChecks compiles the schema's table checks, after the rules (failed_rows names them).
func (c *compiler) tableChecks() {
	if c.own != nil {
		for _, t := range c.s.TableChecks {
			c.fail(t.Pos(), "", "table_checks", "table check '%s': %v", t.Name, ErrNoParser)
		}
		return
	}
	for _, t := range c.s.TableChecks {
		if err := c.ctx.Err(); err != nil {
			return
		}
		tc := TableCheck{Name: t.Name, Check: schema.TableCheckName(t.Name), Severity: t.Severity(), Description: t.Description,
			Metric: t.Metric != "", Min: t.MinValue, Max: t.MaxValue}
		text := t.SQL
		if tc.Metric {
			text = t.Metric
		}
		if t.Band != nil {
			a := t.Band.WithDefaults()
			tc.Anomaly = &a
		}
		expr, value, typ, counts, err := c.checkTableSQL(text, tc.Metric)
		if err != nil {
			key := "sql"
			if tc.Metric {
				key = "metric"
			}
			c.fail(t.Pos(), "", "table_checks."+key, "table check '%s': %v", t.Name, err)
			continue
		}
		tc.Text, tc.Expr = strings.TrimSpace(text), expr
		tc.counts = counts
		if !tc.Metric {
			tc.Sides = c.comparedSides(text)
		}
		c.plan.tableCounts = c.plan.tableCounts || counts
		tc.Exact = tc.Metric && exactType(typ)
		switch {
		case tc.Exact:
			// Read as its digits, every one of them: a BIGINT, HUGEINT or DECIMAL metric is
			// compared with its bounds exactly, and reported as it is.
			tc.value = fmt.Sprintf("CAST((%s) AS VARCHAR)", value)
		case tc.Metric:
			tc.value = fmt.Sprintf("CAST((%s) AS DOUBLE)", value)
		default:
			tc.value = "(" + value + ")"
		}
		if tc.Description == "" {
			tc.Description = describeTableCheck(tc)
		}
		c.plan.TableChecks = append(c.plan.TableChecks, tc)
	}
}

// comparedSides are the sides of a condition that is one comparison (`max(placed_at) >= now() -
// INTERVAL 1 DAY`) but a constant one, each with the SQL of its value as text; nil for another condition
// (or when a side cannot be printed: the check runs without them). The condition was checked
// already, so each side is part of checked SQL.
func (c *compiler) comparedSides(text string) []Side {
	parsed, err := c.parseChecked(strings.TrimSpace(text))
	if err != nil || parsed.node["class"] != "COMPARISON" {
		return nil
	}
	_, runTree, _, err := c.ruleResults(parsed.node)
	if err != nil {
		return nil
	}
	ps := parsed.ps
	texts := sideTexts(parsed.stmt, parsed.node)
	var sides []Side
	for i, key := range []string{"left", "right"} {
		shown, sok := parsed.node[key].(map[string]any)
		run, rok := runTree[key].(map[string]any)
		if !sok || !rok {
			return nil
		}
		if shown["class"] == "CONSTANT" {
			continue // its value is what it says
		}
		txt := texts[i]
		if txt == "" {
			if txt, err = render(c, ps, shown); err != nil {
				return nil
			}
		}
		value, err := render(c, ps, run)
		if err != nil {
			return nil
		}
		sd := Side{Text: txt, value: fmt.Sprintf("CAST((%s) AS VARCHAR)", value)}
		if c.newestOfTemporal(shown) {
			sd.Newest = true
			// Whole seconds: how old the newest row is, not the clock's microseconds.
			sd.age = fmt.Sprintf("CAST(epoch(now()) - epoch(CAST((%s) AS TIMESTAMPTZ)) AS BIGINT)", value)
		}
		sides = append(sides, sd)
	}
	return sides
}

// comparisonOps are the operators a comparison's text may put between its sides.
var comparisonOps = []string{">=", "<=", "<>", "!=", "==", "=", "<", ">"}

// sideTexts are a comparison's two sides as the user wrote them, cut from the statement it was
// parsed in at the parser's locations; "" for a side whose text cannot be told (DuckDB then
// prints it).
func sideTexts(stmt string, cmp map[string]any) [2]string {
	var out [2]string
	loc := func(n map[string]any) (int, int, bool) {
		at, aerr := strconv.ParseInt(fmt.Sprint(n["query_location"]), 10, 64)
		ln, lerr := strconv.ParseInt(fmt.Sprint(n["query_location_length"]), 10, 64)
		if aerr != nil || lerr != nil || at < 0 || ln <= 0 || at+ln > int64(len(stmt)) {
			return 0, 0, false
		}
		return int(at), int(at + ln), true
	}
	start, end, ok := loc(cmp)
	_, leftEnd, lok := loc(mapOf(cmp["left"]))
	if !ok || !lok || leftEnd <= start || leftEnd > end {
		return out
	}
	out[0] = strings.TrimSpace(stmt[start:leftEnd])
	rest := strings.TrimSpace(stmt[leftEnd:end])
	for _, op := range comparisonOps {
		if r, found := strings.CutPrefix(rest, op); found {
			out[1] = strings.TrimSpace(r)
			break
		}
	}
	if strings.Count(out[0], "(") != strings.Count(out[0], ")") || strings.Count(out[1], "(") != strings.Count(out[1], ")") {
		return [2]string{}
	}
	return out
}

// newestOfTemporal reports whether the tree is max(column) of a Date or Datetime column.
func (c *compiler) newestOfTemporal(node map[string]any) bool {
	if node["class"] != "FUNCTION" || !strings.EqualFold(fmt.Sprint(node["function_name"]), "max") {
		return false
	}
	args := asList(node["arguments"])
	if len(args) != 1 {
		return false
	}
	ref := mapOf(mapOf(args[0])["expression"])
	if ref["class"] != "COLUMN_REF" {
		return false
	}
	names := asList(ref["column_names"])
	if len(names) == 0 {
		return false
	}
	col := c.s.Column(fmt.Sprint(names[len(names)-1]))
	return col != nil && (col.DType.Kind == schema.KindDate || col.DType.Kind == schema.KindDatetime)
}

// describeTableCheck is a check's description for people: its SQL, a metric with its bounds.
func describeTableCheck(t TableCheck) string {
	if !t.Metric {
		return t.Text
	}
	var parts []string
	if t.Min != nil {
		parts = append(parts, ">= "+FormatNumber(*t.Min))
	}
	if t.Max != nil {
		parts = append(parts, "<= "+FormatNumber(*t.Max))
	}
	if t.Anomaly != nil {
		parts = append(parts, fmt.Sprintf("within %v scaled MADs of its median in the last %d runs (%s)", t.Anomaly.Threshold, t.Anomaly.Lookback, t.Anomaly.Direction))
	}
	if len(parts) == 0 {
		return t.Text + " (recorded)"
	}
	return t.Text + " " + strings.Join(parts, ", ")
}

// unknownColumn is DuckDB's binder error for a column the probe's table does not have.
var unknownColumn = regexp.MustCompile(`Referenced column "([^"]*)" not found`)

// FormatNumber prints a metric's bound or value as briefly as it reads exactly, a whole number
// with every digit (as JSON has it).
func FormatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// metricTypes are the DuckDB types a metric may have: numbers (and DECIMAL), the integers read
// exactly (as text), the floats as DOUBLE.
var metricTypes = []string{"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
	"UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE"}

// exactType reports whether a metric of DuckDB type typ is read exactly: an integer or a DECIMAL.
func exactType(typ string) bool {
	return strings.HasPrefix(typ, "DECIMAL(") || isMetricType(typ) && typ != "FLOAT" && typ != "DOUBLE"
}

// checkTableSQL checks a table check's SQL as checkSQL checks a rule's (one expression, no
// subquery, window, parameter or refused function, bound by DuckDB's binder) and that it is one
// value for the whole input: an aggregate, or the rule results alone. It returns the checked
// SQL as DuckDB prints it, the SQL that runs (invalid_rows() and failed_rows('rule') replaced
// in the parse tree by the counts parameter), its DuckDB type, and whether it reads the counts.
func (c *compiler) checkTableSQL(expr string, metric bool) (shown, run, typ string, counts bool, err error) {
	expr = strings.TrimSpace(expr)
	parsed, err := c.parseChecked(expr)
	switch {
	case errors.Is(err, errSubquery):
		return "", "", "", false, errors.New("subqueries are not allowed in table checks: a table check is aggregates over the input's rows (count(*), avg(amount)), and reads no other table")
	case errors.Is(err, errWindow):
		return "", "", "", false, errors.New("window functions (… OVER …) are not allowed in table checks: a table check is already one value over every row; write the aggregate alone (sum(x), not sum(x) OVER ())")
	case err != nil:
		return "", "", "", false, err
	}
	ps, node := parsed.ps, parsed.node
	bindTree, runTree, counts, err := c.ruleResults(node)
	if err != nil {
		return "", "", "", false, err
	}
	if !parsed.aggregate && readsColumn(node) {
		return "", "", "", false, fmt.Errorf("%q is not an aggregate: a table check is one value for the whole input (count(*), avg(amount), max(placed_at)); for a condition on each row, write a rule", expr)
	}
	bindExpr, err := c.bindable(ps, bindTree)
	if err != nil {
		return "", "", "", false, err
	}
	var cols []string
	for _, col := range c.s.Columns {
		if sqlMentions(expr, col.Name) {
			cols = append(cols, typedNull(col.DType)+" AS "+sql.Ident(col.Name))
		}
	}
	if len(cols) == 0 {
		cols = append(cols, "NULL AS __tg_none")
	}
	typ, err = describeType(c, ps, "SELECT "+bindExpr+" AS __tg_r FROM (SELECT "+strings.Join(cols, ", ")+") AS "+probeTable)
	if err != nil {
		msg := firstLine(err.Error())
		if m := unknownColumn.FindStringSubmatch(msg); m != nil {
			names := make([]string, len(c.s.Columns))
			for i, col := range c.s.Columns {
				names[i] = col.Name
			}
			declared := ""
			if len(names) <= 12 {
				declared = " (" + strings.Join(names, ", ") + ")"
			}
			return "", "", "", false, fmt.Errorf("%q: '%s' is not a column of %s%s; a table check sees the schema's declared columns%s",
				expr, m[1], c.s.Name, suggest.Hint(m[1], names), declared)
		}
		if strings.Contains(msg, "GROUP BY") {
			msg += " (a table check is one value for the whole input: read every column through an aggregate)"
		}
		return "", "", "", false, fmt.Errorf("DuckDB cannot bind %q: %s", expr, msg)
	}
	switch {
	case !metric && typ != "BOOLEAN":
		return "", "", "", false, fmt.Errorf("%q is %s, not a boolean expression; for a number with bounds, write it as metric with min, max or anomaly", expr, typ)
	case metric && !isMetricType(typ):
		return "", "", "", false, fmt.Errorf("metric %q is %s, not a number", expr, typ)
	}
	if shown, err = render(c, ps, node); err != nil {
		return "", "", "", false, err
	}
	if run, err = render(c, ps, runTree); err != nil {
		return "", "", "", false, err
	}
	return shown, run, typ, counts, nil
}

func isMetricType(typ string) bool {
	if strings.HasPrefix(typ, "DECIMAL(") {
		return true
	}
	for _, t := range metricTypes {
		if typ == t {
			return true
		}
	}
	return false
}

// readsColumn reports whether the tree names a column.
func readsColumn(node any) bool {
	switch t := node.(type) {
	case map[string]any:
		if t["class"] == "COLUMN_REF" {
			return true
		}
		for _, v := range t {
			if readsColumn(v) {
				return true
			}
		}
	case []any:
		for _, v := range t {
			if readsColumn(v) {
				return true
			}
		}
	}
	return false
}

// ruleResults replaces the calls of invalid_rows() and failed_rows('rule') in the tree: by a
// BIGINT constant in the tree the binder checks, by an element of the counts parameter in the
// tree that runs. It reports whether the tree had any.
func (c *compiler) ruleResults(node map[string]any) (bind, run map[string]any, counts bool, err error) {
	zero, err := c.exprNode("CAST(0 AS BIGINT)")
	if err != nil {
		return nil, nil, false, err
	}
	names := make([]string, len(c.plan.Rules))
	for i, r := range c.plan.Rules {
		names[i] = r.Name
	}
	var rec func(v any, forRun bool) (any, error)
	rec = func(v any, forRun bool) (any, error) {
		switch t := v.(type) {
		case map[string]any:
			if t["class"] == "FUNCTION" {
				name := strings.ToLower(fmt.Sprint(t["function_name"]))
				if name == invalidRowsFunc || name == failedRowsFunc {
					k, err := c.countIndex(t, name, names)
					if err != nil {
						return nil, err
					}
					counts = true
					if !forRun {
						return zero, nil
					}
					// The parameter's first element is the invalid rows, then each rule's failures.
					return c.exprNode(fmt.Sprintf("CAST($1 AS BIGINT[])[%d]", k+1))
				}
			}
			out := make(map[string]any, len(t))
			for key, child := range t {
				r, err := rec(child, forRun)
				if err != nil {
					return nil, err
				}
				out[key] = r
			}
			return out, nil
		case []any:
			out := make([]any, len(t))
			for i, child := range t {
				r, err := rec(child, forRun)
				if err != nil {
					return nil, err
				}
				out[i] = r
			}
			return out, nil
		}
		return v, nil
	}
	b, err := rec(node, false)
	if err != nil {
		return nil, nil, false, err
	}
	r, err := rec(node, true)
	if err != nil {
		return nil, nil, false, err
	}
	return b.(map[string]any), r.(map[string]any), counts, nil
}

// countIndex is the position of a rule-result call in the counts: 0 for invalid_rows(), 1 + the
// rule's index for failed_rows('rule').
func (c *compiler) countIndex(call map[string]any, name string, rules []string) (int, error) {
	args := asList(call["arguments"])
	if s, _ := call["schema"].(string); s != "" {
		return 0, fmt.Errorf("%s.%s() is not tablegate's %s()", s, name, name)
	}
	if call["distinct"] == true || call["filter"] != nil || len(asList(mapOf(call["order_bys"])["orders"])) > 0 {
		return 0, fmt.Errorf("%s() takes no DISTINCT, FILTER or ORDER BY", name)
	}
	if name == invalidRowsFunc {
		if len(args) != 0 {
			return 0, fmt.Errorf("invalid_rows() takes no argument: it counts the rows failing an error rule")
		}
		return 0, nil
	}
	if len(args) != 1 {
		return 0, fmt.Errorf("failed_rows() takes one argument, a rule's name as a string: failed_rows('amount|min')")
	}
	arg := mapOf(mapOf(args[0])["expression"])
	if arg["class"] != "CONSTANT" {
		return 0, fmt.Errorf("failed_rows() takes a rule's name as a string literal: failed_rows('amount|min')")
	}
	lit, err := render(c, c.ps, arg)
	if err != nil {
		return 0, err
	}
	// A checked constant: evaluating it reads nothing.
	typ, rule, err := c.ps.Value(c.ctx, lit)
	if err != nil {
		return 0, fmt.Errorf("failed_rows(%s): %s", lit, firstLine(err.Error()))
	}
	if typ != "VARCHAR" {
		return 0, fmt.Errorf("failed_rows() takes a rule's name as a string literal: failed_rows('amount|min')")
	}
	for i, r := range rules {
		if r == rule {
			return i + 1, nil
		}
	}
	list := "it has none"
	if len(rules) > 0 {
		list = "its rules are " + strings.Join(rules, ", ")
	}
	return 0, fmt.Errorf("failed_rows('%s') names no rule of %s%s; %s", rule, c.s.Name, suggest.Hint(rule, rules), list)
}

// exprNode is the parse tree of one SQL expression tablegate writes.
func (c *compiler) exprNode(expr string) (map[string]any, error) {
	trees, err := parseTrees(c.ctx, c.ps, "SELECT "+expr)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", expr, err)
	}
	node, _ := asList(trees[0]["select_list"])[0].(map[string]any)
	if node == nil {
		return nil, fmt.Errorf("parse %s: no expression", expr)
	}
	return node, nil
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// tableChecks adds the statement that evaluates every table check over the input, once, after
// the rules are counted: one row, a value per check (a metric as DOUBLE, a condition as BOOLEAN).
func (b *builder) tableChecks(p *Plan, rel Relation) {
	if len(p.TableChecks) == 0 {
		return
	}
	b.add(TableChecks, 0, "evaluate the table checks", p.tableChecksSQL(rel, p.TableChecks, true))
}

// tableChecksSQL is the statement that evaluates the checks over the input: one row, a value
// per check, and with sides the values of a comparison's sides (and the age of a newest date),
// which the report shows beside the check.
func (p *Plan) tableChecksSQL(rel Relation, checks []TableCheck, sides bool) string {
	return tableValues(DuckDB, checks, sides) + fmt.Sprintf("\nFROM (%s) AS %s", p.SourceSQL(rel), srcName)
}

// tableValues is the SELECT list of the table checks' statement, in dialect d.
func tableValues(d Dialect, checks []TableCheck, sides bool) string {
	var parts []string
	for _, t := range checks {
		parts = append(parts, t.value+" AS "+d.Ident(t.Name))
		if !sides {
			continue
		}
		for i, sd := range t.Sides {
			parts = append(parts, fmt.Sprintf("%s AS %s", sd.value, d.Ident(fmt.Sprintf("%s__side%d", t.Name, i+1))))
			if sd.Newest {
				parts = append(parts, fmt.Sprintf("%s AS %s", sd.age, d.Ident(fmt.Sprintf("%s__age%d", t.Name, i+1))))
			}
		}
	}
	return "SELECT " + strings.Join(parts, ",\n  ")
}

// TableCheckDialect is a dialect that evaluates table checks: In renders the compiled plan's
// table checks with it (a plan rendered in another dialect has none).
type TableCheckDialect interface {
	Dialect
	// TableCheck renders the compiled check t, which the schema declares as decl (its Spark form
	// among others), in the dialect; columns are the schema's, rules the plan's rule names in
	// order (failed_rows('rule') names them). An error refuses the check on the dialect's engine.
	TableCheck(t TableCheck, decl *schema.TableCheck, columns, rules []string) (TableCheckSQL, error)
}

// TableCheckSQL is a table check in a dialect: the SQL of its value over every input row (a
// condition as a BOOLEAN, an Exact metric as its text, another as a DOUBLE), whose rule results
// (invalid_rows(), failed_rows('rule')) are elements of the counts parameter ($1, a BIGINT
// list: the invalid rows, then each rule's failures) when Counts says so.
type TableCheckSQL struct {
	Expr, Value string // the check's SQL as it runs, and its value as the statement reads it
	Counts      bool
	// Sides are the values of the compiled check's Sides, in order, as text, and with the age in
	// whole seconds of a Newest one; nil when the dialect cannot tell them (the check then shows
	// none).
	Sides []SideSQL
}

// SideSQL is one side of a condition in a dialect.
type SideSQL struct{ Value, Age string }

// tableChecksIn renders the compiled plan's table checks in the dialect, or refuses them all
// when the dialect has none.
func (c *compiler) tableChecksIn() {
	d, ok := c.d.(TableCheckDialect)
	names := make([]string, len(c.from.Rules))
	for i, r := range c.from.Rules {
		names[i] = r.Name
	}
	columns := make([]string, len(c.s.Columns))
	for i, col := range c.s.Columns {
		columns[i] = col.Name
	}
	for i, t := range c.from.TableChecks {
		decl := c.s.TableChecks[i]
		if !ok {
			c.fail(decl.Pos(), "", "table_checks", "table check '%s' cannot run on this engine", t.Name)
			continue
		}
		r, err := d.TableCheck(t, decl, columns, names)
		if err != nil {
			c.fail(decl.Pos(), "", "table_checks", "table check '%s' %v", t.Name, err)
			continue
		}
		t.Expr, t.value, t.counts = r.Expr, r.Value, r.Counts
		if len(r.Sides) != len(t.Sides) {
			t.Sides = nil
		} else {
			t.Sides = slices.Clone(t.Sides)
			for k, sd := range r.Sides {
				t.Sides[k].value, t.Sides[k].age = sd.Value, sd.Age
			}
		}
		c.plan.tableCounts = c.plan.tableCounts || r.Counts
		c.plan.TableChecks = append(c.plan.TableChecks, t)
	}
}

// TableChecksIn is the statement that evaluates the plan's table checks in a TableCheckDialect
// over the relation from (every input row, with the schema's columns), as the TableChecks step
// reads it; "" when the plan has none.
func (p *Plan) TableChecksIn(d Dialect, from string) string {
	if len(p.TableChecks) == 0 {
		return ""
	}
	return tableValues(d, p.TableChecks, true) + "\nFROM " + from + " AS " + srcName
}

// TableCheckProbe evaluates the plan's i-th table check alone, and tells whether it takes the
// rule counts as the TableChecks step does: the statement a run executes, only after the table
// checks' statement failed, to find the check whose SQL raises the error on the data.
func (p *Plan) TableCheckProbe(rel Relation, i int) (query string, readsCounts bool) {
	return p.tableChecksSQL(rel, p.TableChecks[i:i+1], false), p.TableChecks[i].counts
}
