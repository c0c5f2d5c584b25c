// Package spark renders a compiled plan's rules in Spark SQL: the same rule columns, in the same
// order and with the same verdicts as the DuckDB plan query, over a Spark relation that has the
// schema's columns and the row ordinal __tg_rid. The DuckDB text is not translated; each rule is
// rendered again from the schema, with the Spark forms whose results equal DuckDB's (byte
// lengths, typed literals, RE2 regexes as exact Java regexes, NULL-safe keys). Custom SQL is the
// schema's own Spark form (`spark:` beside `sql:`).
package spark

import (
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// RowID is the row-ordinal column the source relation must have.
const RowID = compile.RowIDColumn

// Program is a plan in Spark SQL. It is immutable.
type Program struct {
	Plan  *compile.Plan
	Rules []Rule // parallel to Plan.Rules
	keyed []keyGroup
}

// Rule is one rule's Spark SQL.
type Rule struct {
	Name string
	// Expr is the rule's boolean SQL (before the NULL-is-valid wrap), for reports.
	Expr string
	// Custom is set for rules written by the user: Probe then holds a query that Spark's analyzer
	// must type as one BOOLEAN column before the run (its parser and binder check the SQL).
	Custom bool
	Probe  string

	value string
}

type keyGroup struct {
	keys  []string
	conds []string
}

// Compile renders the plan for Spark. It refuses, all at once in a *schema.Errors, what a Spark
// run cannot do exactly: dtypes Spark cannot read or tell apart, custom rules without a Spark
// form, regexes that Java cannot match the same way, table checks (the DuckDB engine's alone).
func Compile(p *compile.Plan) (*Program, error) {
	c := &compiler{s: p.Schema(), prog: &Program{Plan: p}}
	for _, col := range c.s.Columns {
		if why := unsupported(col.DType); why != "" {
			c.fail(col.Name, "type", "column '%s' cannot be validated on Spark: %s", col.Name, why)
		}
	}
	for _, r := range p.Rules {
		if r.Kind == schema.RuleReferences {
			c.fail(r.Column, "references", "rule '%s' reads other data (a foreign key), which runs on the DuckDB engine only; validate without --engine spark", r.Name)
		}
	}
	for _, t := range p.TableChecks {
		c.fail("", "table_checks", "table check '%s' cannot run on Spark yet: table checks run on the DuckDB engine (validate without --engine spark), or leave them out of the schema for Spark", t.Name)
	}
	if len(c.problems) > 0 {
		return nil, &schema.Errors{Schema: c.s.Name, Problems: c.problems}
	}
	for _, r := range p.Rules {
		c.prog.Rules = append(c.prog.Rules, c.rule(r))
	}
	if len(c.problems) > 0 {
		return nil, &schema.Errors{Schema: c.s.Name, Problems: c.problems}
	}
	return c.prog, nil
}

// unsupported says why Spark cannot carry a dtype exactly, or "".
func unsupported(d schema.DType) string {
	switch {
	case d.Kind.IsUnsigned():
		return "Spark has no unsigned integers (it reads them as wider signed types, so the dtype cannot be told apart)"
	case d.Kind == schema.KindDatetime && d.TimeUnit != "" && d.TimeUnit != schema.Micros:
		return "Spark timestamps are microseconds; it reads milliseconds as microseconds and cannot read nanoseconds"
	case d.Kind == schema.KindTime:
		return "Spark 4.0 cannot read TIME columns"
	case d.Kind == schema.KindDuration:
		return "Spark cannot read INTERVAL columns from Parquet"
	case d.Kind == schema.KindEnum:
		return "Parquet stores an Enum as a string, so Spark cannot check its categories; declare String with is_in"
	case d.Kind == schema.KindArray:
		return "Spark reads a fixed-size array as a list without its size; declare List"
	case d.Kind == schema.KindList:
		return unsupported(d.Inner.DType)
	case d.Kind == schema.KindStruct:
		for _, f := range d.Fields {
			if why := unsupported(f.DType); why != "" {
				return "field '" + f.Name + "': " + why
			}
		}
	}
	return ""
}

type compiler struct {
	s        *schema.Schema
	prog     *Program
	problems []error
	depth    int
}

func (c *compiler) fail(column, key, format string, args ...any) {
	c.problems = append(c.problems, &schema.DeclarationError{Schema: c.s.Name, Pos: schema.Pos{File: c.s.File}, Column: column, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// rule renders one rule of the plan from the schema declaration it came from.
func (c *compiler) rule(r compile.Rule) Rule {
	out := Rule{Name: r.Name}
	switch {
	case r.Column == "" && r.Kind == schema.RulePrimaryKey:
		keys := quoteAll(c.s.PrimaryKey())
		out.Expr = fmt.Sprintf("count(*) = 1 per (%s)", strings.Join(keys, ", "))
		out.value = c.keyedRule(keys, "count(*) > 1", "")
	case r.Column == "":
		c.schemaRule(r, &out)
	default:
		col := c.s.Column(r.Column)
		name := strings.TrimPrefix(r.Name, r.Column+"|")
		for _, cr := range col.Rules() {
			if cr.Name == name {
				c.columnRule(col, cr, r, &out)
				return out
			}
		}
		c.fail(r.Column, name, "rule '%s' is not in the schema", r.Name)
	}
	return out
}

func (c *compiler) schemaRule(r compile.Rule, out *Rule) {
	var decl *schema.Rule
	for _, sr := range c.s.Rules {
		if sr.Name == r.Name {
			decl = sr
		}
	}
	if decl == nil {
		c.fail("", "rules", "rule '%s' is not in the schema", r.Name)
		return
	}
	if strings.TrimSpace(decl.Spark) == "" {
		c.fail("", "rules", "rule '%s' has no Spark SQL: custom SQL is DuckDB SQL, so a run on Spark needs the rule's Spark form as `spark:` beside `sql:`", r.Name)
		return
	}
	expr, err := bindSQL(decl.Spark, "")
	if err != nil {
		c.fail("", "rules", "rule '%s': spark: %v", r.Name, err)
		return
	}
	out.Expr, out.Custom = expr, true
	keys := decl.GroupBy
	if len(keys) == 1 && keys[0] == schema.RulePrimaryKey {
		keys = c.s.PrimaryKey()
	}
	if r.Keyed() {
		q := quoteAll(keys)
		cond := fmt.Sprintf("NOT COALESCE(%s, TRUE)", expr)
		out.value = c.keyedRule(q, cond, "")
		out.Probe = probe(expr, q)
		return
	}
	out.value = fmt.Sprintf("COALESCE(%s, TRUE)", expr)
	out.Probe = probe(expr, nil)
}

// probe is the query whose single column Spark must type BOOLEAN: the expression over the source,
// per group of keys when it aggregates.
func probe(expr string, keys []string) string {
	q := fmt.Sprintf("SELECT %s AS __tg_v FROM __tg_src", expr)
	if len(keys) > 0 {
		q += " GROUP BY " + strings.Join(keys, ", ")
	}
	return q
}

func (c *compiler) columnRule(col *schema.Column, cr schema.ColumnRule, r compile.Rule, out *Rule) {
	ref := Ident(col.Name)
	if cr.Kind == schema.RuleUnique && allFields(cr.Path) {
		key, guard := ref, ""
		cur := col
		var guards []string
		for _, st := range cr.Path {
			guards = append(guards, key+" IS NULL")
			cur = field(cur, st.Field)
			key = key + "." + Ident(cur.Name)
		}
		if len(guards) > 0 {
			guard = "(" + strings.Join(guards, " OR ") + ")"
		}
		key = uniqueKey(cur, key)
		out.Expr = fmt.Sprintf("count(*) = 1 per (%s)", key)
		out.value = c.keyedRule([]string{key}, "count(*) > 1", guard)
		return
	}
	if cr.Kind == schema.RuleCheck && len(cr.Path) == 0 && r.Keyed() {
		// An aggregate check (DuckDB's binder found it aggregating): over the whole column.
		expr, err := c.check(cr, ref)
		if err != nil {
			c.fail(col.Name, cr.Name, "%v", err)
			return
		}
		out.Expr, out.Custom = expr, true
		out.value = c.keyedRule(nil, fmt.Sprintf("NOT COALESCE(%s, TRUE)", expr), "")
		out.Probe = probe(expr, nil)
		return
	}
	c.depth = 0
	expr, err := c.nested(col, cr, cr.Path, ref)
	if err != nil {
		c.fail(col.Name, cr.Name, "%v", err)
		return
	}
	out.Expr = expr
	out.value = fmt.Sprintf("COALESCE(%s, TRUE)", expr)
	if cr.Kind == schema.RuleCheck {
		out.Custom = true
		out.Probe = probe(expr, nil)
	}
}

func (c *compiler) check(cr schema.ColumnRule, ref string) (string, error) {
	if strings.TrimSpace(cr.Check.Spark) == "" {
		return "", fmt.Errorf("check rule '%s' has no Spark SQL: custom SQL is DuckDB SQL, so a run on Spark needs the check's Spark form ({sql: …, spark: …})", cr.Name)
	}
	expr, err := bindSQL(cr.Check.Spark, ref)
	if err != nil {
		return "", fmt.Errorf("check rule '%s': spark: %w", cr.Name, err)
	}
	return expr, nil
}

// keyedRule registers a keyed rule and returns the SQL of its rule column (see compile).
func (c *compiler) keyedRule(keys []string, failCond, guard string) string {
	id := strings.Join(keys, "\x00")
	g := -1
	for i, kg := range c.prog.keyed {
		if strings.Join(kg.keys, "\x00") == id {
			g = i
			break
		}
	}
	if g < 0 {
		c.prog.keyed = append(c.prog.keyed, keyGroup{keys: keys})
		g = len(c.prog.keyed) - 1
	}
	m := len(c.prog.keyed[g].conds)
	c.prog.keyed[g].conds = append(c.prog.keyed[g].conds, failCond)
	value := fmt.Sprintf("COALESCE(NOT __tg_k%d.__tg_m%d, TRUE)", g, m)
	if guard != "" {
		value = fmt.Sprintf("(%s OR %s)", guard, value)
	}
	return value
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = Ident(n)
	}
	return out
}

func allFields(path []schema.Step) bool {
	for _, st := range path {
		if st.Kind != schema.StepField {
			return false
		}
	}
	return true
}

func field(c *schema.Column, name string) *schema.Column {
	for _, f := range c.DType.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// uniqueKey compares a struct by its fields, so that a NULL struct and one of NULL fields are the
// same key, as in the DuckDB plan.
func uniqueKey(c *schema.Column, ref string) string {
	if c.DType.Kind != schema.KindStruct {
		return ref
	}
	parts := make([]string, len(c.DType.Fields))
	for i, f := range c.DType.Fields {
		parts[i] = fmt.Sprintf("%s, %s.%s", String(f.Name), ref, Ident(f.Name))
	}
	return "named_struct(" + strings.Join(parts, ", ") + ")"
}

// Query is the plan's statement over source (a relation with the schema's columns and __tg_rid):
// the columns, the ordinal, and one boolean column per rule, named by the rule (TRUE = valid).
func (p *Program) Query(source string) string {
	var b strings.Builder
	b.WriteString("WITH __tg_src AS (\n  SELECT ")
	for _, col := range p.Plan.Columns {
		b.WriteString(Ident(col.Name) + ", ")
	}
	b.WriteString(RowID + " FROM " + source + "\n)")
	for g, kg := range p.keyed {
		fmt.Fprintf(&b, ",\n__tg_k%d AS (\n  SELECT ", g)
		for i, k := range kg.keys {
			fmt.Fprintf(&b, "%s AS __tg_k%d_%d, ", k, g, i)
		}
		for m, cond := range kg.conds {
			if m > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(%s) AS __tg_m%d", cond, m)
		}
		b.WriteString("\n  FROM __tg_src")
		if len(kg.keys) > 0 {
			b.WriteString("\n  GROUP BY " + strings.Join(kg.keys, ", "))
		}
		b.WriteString("\n  HAVING ")
		for m, cond := range kg.conds {
			if m > 0 {
				b.WriteString(" OR ")
			}
			b.WriteString("(" + cond + ")")
		}
		b.WriteString("\n)")
	}
	b.WriteString("\nSELECT\n  ")
	for _, col := range p.Plan.Columns {
		b.WriteString("__tg_src." + Ident(col.Name) + ", ")
	}
	b.WriteString("__tg_src." + RowID)
	for _, r := range p.Rules {
		fmt.Fprintf(&b, ",\n  %s AS %s", r.value, Ident(r.Name))
	}
	b.WriteString("\nFROM __tg_src")
	for g, kg := range p.keyed {
		fmt.Fprintf(&b, "\nLEFT JOIN __tg_k%d ON ", g)
		if len(kg.keys) == 0 {
			b.WriteString("TRUE")
			continue
		}
		for i, k := range kg.keys {
			if i > 0 {
				b.WriteString(" AND ")
			}
			q := "__tg_src."
			if !strings.HasPrefix(k, "`") {
				q = "" // a struct key (named_struct(…)) names its columns unqualified
			}
			fmt.Fprintf(&b, "%s%s <=> __tg_k%d.__tg_k%d_%d", q, k, g, g, i)
		}
	}
	return b.String()
}

// ValidExpr is TRUE when a row passes every rule (errorsOnly: every error rule).
func (p *Program) ValidExpr(errorsOnly bool) string {
	var parts []string
	for i, r := range p.Rules {
		if errorsOnly && !p.Plan.Rules[i].IsError() {
			continue
		}
		parts = append(parts, Ident(r.Name))
	}
	if len(parts) == 0 {
		return "TRUE"
	}
	return "(" + strings.Join(parts, " AND ") + ")"
}
