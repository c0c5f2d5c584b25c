// Package compile turns a validated schema into a Plan: the rules in Dataframely order with their
// names, check names, severities and SQL, and the single DuckDB statement that evaluates them all.
// A Plan is immutable and safe to share between goroutines.
package compile

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/schema"
)

// Rule is one compiled rule.
type Rule struct {
	Name     string          // amount|min, primary_key, amount_is_rounded
	Check    string          // dy_rule__amount__min
	Column   string          // the column of a column rule; "" for schema-level rules
	Kind     string          // the rule kind (min, regex, …); "custom" or "group" for schema rules
	Severity schema.Severity // error or warn
	// Tolerance is how many failing rows the rule tolerates (Judge).
	Tolerance   schema.Tolerance
	Expr        string // the rule's SQL (before the NULL-is-valid wrap), for reports
	Description string // what the rule requires, for people: `amount >= 0`, `tags elements not null`
	// Short is a column rule's description relative to its column, for the column's collapsed
	// check (`>= 0`, `elements not null`, `city not null`, a check's name); "" for schema rules.
	Short string

	value string // the SQL of the rule column in the plan query
	group int    // the failing-keys aggregate the rule reads, or -1
	mark  int    // the rule's failure condition in that aggregate
	// collection marks a collection's rule in a member's plan: TRUE in the member's own
	// evaluation, set in its failing rows by the collection's steps (CollectionPlan.Steps).
	collection bool
}

// IsError reports whether a failure of the rule makes the row invalid.
func (r Rule) IsError() bool { return r.Severity == schema.Error }

// Judgement is how a run judges a rule by its failing rows.
type Judgement int

// Judgements, from the mildest.
const (
	// Passes: no row failed, or no more than the warn tolerance.
	Passes Judgement = iota
	// FailsWarn: a warn rule failed, or an error rule within its error tolerance (tolerated: its
	// failures do not fail the run).
	FailsWarn
	// FailsError: an error rule failed beyond its error tolerance.
	FailsError
)

// Judge judges the rule by its failed rows out of input rows, by its severity and tolerance.
func (r Rule) Judge(failed, input int64) Judgement {
	switch {
	case failed == 0 || r.Tolerance.Warn.Allows(failed, input):
		return Passes
	case !r.IsError() || r.Tolerance.Error.Allows(failed, input):
		return FailsWarn
	}
	return FailsError
}

// Tolerated reports whether the rule is an error rule whose failures the run tolerates: some row
// failed it, within its tolerance.
func (r Rule) Tolerated(failed, input int64) bool {
	return r.IsError() && failed > 0 && r.Judge(failed, input) != FailsError
}

// Column is a schema column as the plan sees it.
type Column struct {
	Name  string
	DType schema.DType
}

// Plan is a compiled schema.
type Plan struct {
	Name    string // the schema's name
	Columns []Column
	Rules   []Rule
	// TableChecks judge the whole input, once per run, after the rules are counted.
	TableChecks []TableCheck

	// tableCounts tells that a table check reads the rule counts (TableChecksReadCounts).
	tableCounts bool
	// references are the foreign-key rules' other data (References).
	references []Reference

	schema *schema.Schema
	// dialect renders the plan's SQL: DuckDB's (nil) unless the plan came from In.
	dialect Dialect
	keyed   []keyGroup
	// unused marks key groups no rule of this plan reads (in a Subset).
	unused map[int]bool
}

// Schema returns the schema the plan was compiled from. Treat it as read-only.
func (p *Plan) Schema() *schema.Schema { return p.schema }

// Compile validates the schema and compiles it. The error lists every declaration problem at
// once (*schema.Errors), custom SQL that is not exactly one boolean expression included.
func Compile(s *schema.Schema) (*Plan, error) {
	return CompileContext(context.Background(), s)
}

// CompileContext is Compile stopped by ctx: between columns and in the parser calls that check
// custom SQL. Custom SQL, regexes and table checks are checked by the process's parser (Parser),
// opened on first use; a program that links none gets ErrNoParser for them.
func CompileContext(ctx context.Context, s *schema.Schema) (*Plan, error) {
	return CompileWith(ctx, s, nil)
}

// CompileWith is CompileContext with the caller's parser of custom SQL and regexes; nil uses the
// process's.
func CompileWith(ctx context.Context, s *schema.Schema, parser Parser) (*Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s = s.Clone() // the plan's own: a caller changing s afterwards changes nothing here
	c := &compiler{ctx: ctx, s: s, plan: &Plan{Name: s.Name, schema: s}, pendingGroup: -1, parser: parser, d: DuckDB}
	return c.compile()
}

// In renders the plan again in another SQL dialect: the same rules, names, severities, checks
// and key groups, each rule's SQL written anew from the schema. Custom SQL is DuckDB SQL, so
// custom gives each custom rule's SQL in d from its declaration (a schema rule's SQL and Spark
// forms come as a Check named after the rule; ref is the checked value, "" for a schema rule);
// its error, or one of d's, refuses the rule. Table checks are rendered by d when it is a
// TableCheckDialect, and refused otherwise. Every problem is returned at once (*schema.Errors).
func (p *Plan) In(ctx context.Context, d Dialect, custom func(forms schema.Check, ref string) (string, error)) (*Plan, error) {
	c := &compiler{ctx: ctx, s: p.schema, plan: &Plan{Name: p.Name, schema: p.schema, dialect: d}, pendingGroup: -1,
		d: d, from: p, bind: custom}
	return c.compile()
}

// Custom is a custom rule's SQL in an engine's own dialect, as the engine gives it (CompileIn).
type Custom struct {
	SQL string
	// Aggregate tells that it calls an aggregate: evaluated over every row, or per group.
	Aggregate bool
}

// CompileIn compiles s straight into the dialect d of an engine that checks its own form of
// custom SQL, with no SQL parser (Parser) in the process: custom gives each custom rule's SQL in
// d from its declaration (as for In) and whether it aggregates; its error, or one of d's (a
// regex d cannot match exactly), refuses the rule. DuckDB's custom SQL (sql:) is neither read
// nor checked, so the plan is d's engine's alone; table checks, whose SQL only the parser checks,
// are refused. Every problem is returned at once (*schema.Errors).
func CompileIn(ctx context.Context, s *schema.Schema, d Dialect, custom func(forms schema.Check, ref string) (Custom, error)) (*Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s = s.Clone()
	c := &compiler{ctx: ctx, s: s, plan: &Plan{Name: s.Name, schema: s, dialect: d}, pendingGroup: -1, d: d, own: custom}
	return c.compile()
}

func (c *compiler) compile() (*Plan, error) {
	ctx, s := c.ctx, c.s
	for _, col := range s.Columns {
		c.plan.Columns = append(c.plan.Columns, Column{Name: col.Name, DType: col.DType})
	}
	c.schemaRules()
	c.primaryKey()
	for _, col := range s.Columns {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c.columnRules(col)
	}
	if c.from == nil {
		c.tableChecks()
	} else {
		c.tableChecksIn()
	}
	if err := ctx.Err(); err != nil {
		// A cancelled parser call reads as a problem of the rule it checked: report the cause.
		return nil, err
	}
	if errors.Is(c.parserErr, ErrNoParser) {
		return nil, fmt.Errorf("schema %s: %w", s.Name, c.parserErr)
	}
	if c.parserErr != nil {
		// Not the rules' fault: the DuckDB that checks them did not open (out of address space).
		return nil, fmt.Errorf("open the DuckDB that checks custom SQL: %w", c.parserErr)
	}
	if len(c.problems) > 0 {
		return nil, &schema.Errors{Schema: s.Name, Problems: c.problems}
	}
	return c.plan, nil
}

type compiler struct {
	ctx      context.Context
	s        *schema.Schema
	plan     *Plan
	problems []error
	// pendingGroup is the key group registered for the rule being compiled, or -1.
	pendingGroup int
	// parser checks custom SQL and regexes: the caller's, nil for the process's. ps is the one
	// in use, once a rule needed it, and parserErr why there is none.
	parser    Parser
	ps        *sqlParser
	parserErr error
	// d renders the SQL. from and bind are set when In renders a compiled plan again in
	// another dialect: from is that plan (its rules already checked), bind
	// gives a custom rule's SQL in d.
	d    Dialect
	from *Plan
	bind func(forms schema.Check, ref string) (string, error)
	// own gives a custom rule's SQL in d when CompileIn compiles without a parser.
	own func(forms schema.Check, ref string) (Custom, error)
}

// checks tells whether the compilation checks DuckDB's custom SQL, regexes and table checks
// with the parser: not when it renders a compiled plan again (In), nor in CompileIn.
func (c *compiler) checks() bool { return c.from == nil && c.own == nil }

// custom is a custom rule's SQL (a check's when value is set; ref is the checked value): the
// DuckDB SQL checked by the parser, the engine's own (CompileIn), or in another dialect bind's,
// aggregating as the compiled plan's rule does.
func (c *compiler) custom(rule string, forms *schema.Check, value *schema.DType, ref string, groupBy []string) (sqlInfo, error) {
	if c.own != nil {
		got, err := c.own(*forms, ref)
		return sqlInfo{text: strings.TrimSpace(forms.SQL), sql: got.SQL, aggregate: got.Aggregate}, err
	}
	if c.from == nil {
		return c.checkSQL(forms.SQL, value, ref, groupBy)
	}
	expr, err := c.bind(*forms, ref)
	info := sqlInfo{text: strings.TrimSpace(forms.SQL), sql: expr}
	for _, r := range c.from.Rules {
		if r.Name == rule {
			info.aggregate = r.Keyed()
		}
	}
	return info, err
}

// fail records a problem declared at pos (the schema's file when pos is unknown).
func (c *compiler) fail(pos schema.Pos, column, key, format string, args ...any) {
	if pos.File == "" {
		pos = schema.Pos{File: c.s.File}
	}
	c.problems = append(c.problems, &schema.DeclarationError{Schema: c.s.Name, Pos: pos, Column: column, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// severityOf resolves a rule's severity: the per-rule entry wins over the one value for all.
func severityOf(spec schema.SeveritySpec, rule string, ruleNames []string) schema.Severity {
	return spec.Of(rule, ruleNames)
}

func (c *compiler) add(r Rule) {
	r.Check = schema.CheckName(r.Name)
	if !r.IsError() {
		r.Tolerance.Error = nil // a warn rule never fails at ERROR: a column's one tolerance gives it none
	}
	r.group, c.pendingGroup = c.pendingGroup, -1
	if r.group >= 0 {
		r.mark = len(c.plan.keyed[r.group].conds) - 1
	}
	c.plan.Rules = append(c.plan.Rules, r)
}

func (c *compiler) schemaRules() {
	names := c.s.SchemaRuleNames()
	for _, r := range c.s.Rules {
		if r.References != nil {
			c.referenceRule(r, names)
			continue
		}
		rule := Rule{Name: r.Name, Kind: "custom", Severity: severityOf(c.s.Severity, r.Name, names), Tolerance: c.s.Tolerance.Of(r.Name, names),
			Description: r.Description}
		keys := r.GroupBy
		if len(keys) == 1 && keys[0] == schema.RulePrimaryKey {
			keys = c.s.PrimaryKey()
		}
		info, err := c.custom(r.Name, &schema.Check{Name: r.Name, SQL: r.SQL, Spark: r.Spark}, nil, "", keys)
		if err != nil {
			c.fail(r.Pos(), "", "rules", "rule '%s': %v", r.Name, err)
			continue
		}
		rule.Expr = info.sql
		switch {
		case len(keys) > 0 || info.aggregate:
			if len(keys) > 0 {
				rule.Kind = "group"
			}
			keyExprs := make([]string, len(keys))
			for i, k := range keys {
				keyExprs[i] = c.d.Ident(k)
			}
			rule.value = c.keyedRule(keyExprs, fmt.Sprintf("NOT COALESCE(%s, TRUE)", info.sql), "")
		default:
			rule.value = fmt.Sprintf("COALESCE(%s, TRUE)", info.sql)
		}
		if rule.Description == "" {
			rule.Description = info.text
			if len(keys) > 0 {
				rule.Description = fmt.Sprintf("%s per group of %s", info.text, strings.Join(keys, ", "))
			}
		}
		c.add(rule)
	}
}

func (c *compiler) primaryKey() {
	pk := c.s.PrimaryKey()
	if len(pk) == 0 {
		return
	}
	keys := make([]string, len(pk))
	for i, k := range pk {
		keys[i] = c.d.Ident(k)
	}
	c.add(Rule{
		Name:        schema.RulePrimaryKey,
		Kind:        schema.RulePrimaryKey,
		Severity:    severityOf(c.s.Severity, schema.RulePrimaryKey, c.s.SchemaRuleNames()),
		Tolerance:   c.s.Tolerance.Of(schema.RulePrimaryKey, c.s.SchemaRuleNames()),
		Expr:        fmt.Sprintf("count(*) = 1 per (%s)", strings.Join(keys, ", ")),
		Description: "PK: " + strings.Join(pk, ", "),
		value:       c.keyedRule(keys, "count(*) > 1", ""),
	})
}
