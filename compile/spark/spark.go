// Package spark renders a compiled plan in Spark SQL: the same rule columns, in the same order and
// with the same verdicts as the DuckDB plan query, over a Spark relation that has the schema's
// columns and the row ordinal __tg_rid. The DuckDB text is not translated: package compile's
// renderer writes each rule again from the schema in the Spark dialect (Dialect), whose forms give
// DuckDB's results (byte lengths, typed literals, RE2 regexes as exact Java regexes, NULL-safe
// keys). Custom SQL is the schema's own Spark form (`spark:` beside `sql:`).
package spark

import (
	"context"
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// RowID is the row-ordinal column the source relation must have.
const RowID = compile.RowIDColumn

// Program is a plan in Spark SQL. It is immutable.
type Program struct {
	Plan  *compile.Plan // the DuckDB plan: names, checks and severities
	Rules []Rule        // parallel to Plan.Rules
	spark *compile.Plan // the same rules rendered in Spark SQL
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
}

// Compile renders the plan for Spark. It refuses, all at once in a *schema.Errors, what a Spark
// run cannot do exactly: dtypes Spark cannot read or tell apart, custom rules without a Spark
// form, regexes that Java cannot match the same way, table checks whose DuckDB SQL is not
// portable and that have no Spark form (TableCheck).
func Compile(p *compile.Plan) (*Program, error) { return CompileContext(context.Background(), p) }

// CompileContext is Compile; cancelling ctx stops the rendering.
func CompileContext(ctx context.Context, p *compile.Plan) (*Program, error) {
	s := p.Schema()
	var problems []error
	for _, col := range s.Columns {
		if why := unsupported(col.DType); why != "" {
			problems = append(problems, &schema.DeclarationError{Schema: s.Name, Pos: schema.Pos{File: s.File}, Column: col.Name, Key: "type",
				Msg: fmt.Sprintf("column '%s' cannot be validated on Spark: %s", col.Name, why)})
		}
	}
	if len(problems) > 0 {
		return nil, &schema.Errors{Schema: s.Name, Problems: problems}
	}
	sp, err := p.In(ctx, Dialect, bind)
	if err != nil {
		return nil, err
	}
	return &Program{Plan: p, Rules: RulesOf(sp), spark: sp}, nil
}

// Spark is the plan rendered in Spark SQL (compile.Plan.In with Dialect): its Program is the
// Spark run's (compile.ProgramDialect).
func (p *Program) Spark() *compile.Plan { return p.spark }

// RulesOf is each rule's Spark SQL of a plan rendered in Spark SQL (Spark), with the probe that
// Spark's analyzer types for a custom rule.
func RulesOf(sp *compile.Plan) []Rule {
	s := sp.Schema()
	var rules []Rule
	for _, r := range sp.Rules {
		out := Rule{Name: r.Name, Expr: r.Expr}
		switch r.Kind {
		case "custom", "group", schema.RuleCheck:
			out.Custom = true
			out.Probe = fmt.Sprintf("SELECT %s AS __tg_v FROM __tg_src", r.Expr)
			if keys := groupKeys(s, r.Name); len(keys) > 0 {
				out.Probe += " GROUP BY " + strings.Join(keys, ", ")
			}
		}
		rules = append(rules, out)
	}
	return rules
}

// bind is a custom rule's Spark form, checked to be one expression, `_` bound to ref.
func bind(forms schema.Check, ref string) (string, error) {
	if strings.TrimSpace(forms.Spark) == "" {
		return "", fmt.Errorf("it has no Spark SQL: custom SQL is DuckDB SQL, so a run on Spark needs its Spark form (`spark:` beside `sql:` in a rule, {sql: …, spark: …} for a check)")
	}
	expr, err := bindSQL(forms.Spark, ref)
	if err != nil {
		return "", fmt.Errorf("spark: %w", err)
	}
	return expr, nil
}

// groupKeys are the quoted keys a schema rule groups by (its probe's GROUP BY); none for others.
func groupKeys(s *schema.Schema, rule string) []string {
	for _, r := range s.Rules {
		if r.Name != rule {
			continue
		}
		keys := r.GroupBy
		if len(keys) == 1 && keys[0] == schema.RulePrimaryKey {
			keys = s.PrimaryKey()
		}
		out := make([]string, len(keys))
		for i, k := range keys {
			out[i] = Ident(k)
		}
		return out
	}
	return nil
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

// Query is the plan's statement over source (a relation with the schema's columns and __tg_rid):
// the columns, the ordinal, and one boolean column per rule, named by the rule (TRUE = valid).
func (p *Program) Query(source string) string {
	return p.spark.Query(compile.Relation{From: source, RowID: RowID})
}

// ValidExpr is TRUE when a row passes every rule (errorsOnly: every error rule).
func (p *Program) ValidExpr(errorsOnly bool) string { return p.spark.ValidExpr(errorsOnly) }
