package exec

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/sql"
)

// ColumnsCheckName is the name of the column-schema check.
const ColumnsCheckName = "dy_schema__columns"

func columnsCheck(p *compile.Plan, mm []casting.Mismatch) outcome.Check {
	c := outcome.Check{
		Name: ColumnsCheckName, Passed: len(mm) == 0, Severity: outcome.SeverityError, Blocking: true,
		Description: fmt.Sprintf("Columns and dtypes match %s.", p.Name), Metadata: map[string]any{},
	}
	cols := make([]string, len(mm))
	for i, m := range mm {
		cols[i] = m.Column
	}
	c.ResultDescription = outcome.ColumnsDescription(cols)
	if len(mm) > 0 {
		c.Metadata[outcome.MetaColumnSchemaErrors] = mm
	}
	return c
}

// failureDetail is what the report needs besides the counts: per-rule samples and, for
// collapsed checks, how many rows failed any member.
type failureDetail struct {
	samples     map[int][]any
	groupFailed map[string]int64
}

// report fills the checks, invalid_by_rules, samples and health from the failed-rows table.
func (e *Engine) report(ctx context.Context, r *run, rep *outcome.Report, a Asset, opts Options, failed string, stats ruleStats) error {
	p := a.Plan
	groups := checkGroups(p, opts)
	detail := failureDetail{samples: map[int][]any{}, groupFailed: map[string]int64{}}
	if failed != "" {
		// Each check shows at most n rows: a collapsed check takes them from its members in rule
		// order and takes no more once it has n. A rule's first k failing rows are min(k, its
		// failures), so the rows each member gives are known before any is read.
		take := map[int]int{}
		for _, g := range groups {
			budget := opts.samples()
			for _, m := range g.members {
				if k := int(min(int64(budget), stats.failed[m.index])); k > 0 {
					take[m.index] = max(take[m.index], k)
					budget -= k
				}
			}
		}
		firsts, rows, err := failureSamples(ctx, r, p, failed, take)
		if err != nil {
			return fmt.Errorf("sample failing rows: %w", err)
		}
		for i, rids := range firsts {
			sample := make([]any, len(rids))
			for j, rid := range rids {
				sample[j] = rows[rid]
			}
			detail.samples[i] = sample
		}
		if err := e.groupCounts(ctx, r, failed, groups, stats, detail.groupFailed); err != nil {
			return err
		}
		if stats.invalid > 0 {
			sets, err := invalidByRules(ctx, r, p, failed)
			if err != nil {
				return err
			}
			rep.InvalidByRules = sets
		}
		if opts.RowSample > 0 && stats.invalid > 0 {
			q := fmt.Sprintf("SELECT %s FROM %s WHERE NOT %s ORDER BY %s LIMIT %d", rowJSON(p, ""), sql.Ident(failed), p.ValidExpr(true), compile.RowIDColumn, opts.RowSample)
			rows, err := rowsJSON(ctx, r, q)
			if err != nil {
				return fmt.Errorf("sample invalid rows: %w", err)
			}
			rep.InvalidSample = rows
		}
	}
	rep.Checks = buildChecks(p, a, opts, stats, &detail, groups)
	rep.Health = outcome.HealthOf(rep.Checks)
	return nil
}

// failureSamples reads the first take[i] failing rows of rule i, for every rule in take: their
// ordinals (one statement: each failing row with the sampled rules it fails, numbered per rule)
// and those rows as JSON (one more). A statement per rule, each rendering every column, cost
// rules × columns; one aggregate per rule ran out of memory at 10,000 rules.
func failureSamples(ctx context.Context, r *run, p *compile.Plan, failed string, take map[int]int) (map[int][]string, map[string]any, error) {
	// Ordinals by their decimal text: a source's ordinal may be any integer type.
	firsts := map[int][]string{}
	rows := map[string]any{}
	var rules []int
	var fails, takes []string
	for i, rule := range p.Rules {
		if k := take[i]; k > 0 {
			rules = append(rules, i)
			fails = append(fails, fmt.Sprintf("CASE WHEN NOT %s THEN %d END", sql.Ident(rule.Name), len(rules)))
			takes = append(takes, strconv.Itoa(k))
		}
	}
	if len(rules) == 0 {
		return firsts, rows, nil
	}
	q := fmt.Sprintf("SELECT k, CAST(%[1]s AS VARCHAR) FROM (SELECT %[1]s, unnest(list_filter([%[2]s], lambda x: x IS NOT NULL)) AS k FROM %[3]s) "+
		"QUALIFY row_number() OVER (PARTITION BY k ORDER BY %[1]s) <= [%[4]s][k] ORDER BY k, %[1]s",
		compile.RowIDColumn, strings.Join(fails, ", "), sql.Ident(failed), strings.Join(takes, ", "))
	picks, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	defer picks.Close()
	var all []string
	for picks.Next() {
		var k int
		var rid string
		if err := picks.Scan(&k, &rid); err != nil {
			return nil, nil, err
		}
		if k < 1 || k > len(rules) || !wholeNumber(rid) {
			return nil, nil, fmt.Errorf("sampled row %q of rule %d is out of range", rid, k)
		}
		i := rules[k-1]
		firsts[i] = append(firsts[i], rid)
		if _, seen := rows[rid]; !seen {
			rows[rid] = nil
			all = append(all, rid)
		}
	}
	if err := picks.Err(); err != nil {
		return nil, nil, err
	}
	// The rows in batches of about sampleCells values: a result is built whole before it is
	// read, and 2,000 rows of 5,000 columns as JSON needed more than a 1 GB limit.
	batch := max(1, sampleCells/max(1, len(p.Columns)))
	for len(all) > 0 {
		n := min(batch, len(all))
		if err := sampleRows(ctx, r, p, failed, all[:n], rows); err != nil {
			return nil, nil, err
		}
		all = all[n:]
	}
	return firsts, rows, nil
}

// sampleCells is about how many values one statement renders for the samples.
const sampleCells = 1 << 20

// sampleRows renders the rows with the ordinals rids as JSON into rows.
func sampleRows(ctx context.Context, r *run, p *compile.Plan, failed string, rids []string, rows map[string]any) error {
	q := fmt.Sprintf("SELECT CAST(%s AS VARCHAR), %s FROM %s WHERE %s IN (%s)", compile.RowIDColumn, rowJSON(p, ""), sql.Ident(failed), compile.RowIDColumn, strings.Join(rids, ", "))
	res, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer res.Close()
	for res.Next() {
		var rid, text string
		if err := res.Scan(&rid, &text); err != nil {
			return err
		}
		rows[rid] = json.RawMessage(sanitizeJSON(text))
	}
	return res.Err()
}

// wholeNumber reports whether s is the decimal text of an integer, which an ordinal pasted into
// SQL must be.
func wholeNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func (e *Engine) groupCounts(ctx context.Context, r *run, failed string, groups []checkGroup, stats ruleStats, into map[string]int64) error {
	var parts []string
	var names []string
	for _, g := range groups {
		if len(g.members) == 1 && !g.collapsed {
			continue
		}
		any := false
		conds := make([]string, len(g.members))
		for i, m := range g.members {
			conds[i] = sql.Ident(m.rule.Name)
			any = any || stats.failed[m.index] > 0
		}
		if !any {
			continue
		}
		parts = append(parts, fmt.Sprintf("count_if(NOT (%s))", strings.Join(conds, " AND ")))
		names = append(names, g.name)
	}
	if len(parts) == 0 {
		return nil
	}
	vals := make([]int64, len(parts))
	dest := make([]any, len(parts))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := r.conn.QueryRowContext(ctx, "SELECT "+strings.Join(parts, ", ")+" FROM "+sql.Ident(failed)).Scan(dest...); err != nil {
		return fmt.Errorf("count failures per check: %w", err)
	}
	for i, n := range names {
		into[n] = vals[i]
	}
	return nil
}

// invalidByRules counts the invalid rows by the exact set of rules each failed.
func invalidByRules(ctx context.Context, r *run, p *compile.Plan, failed string) ([]outcome.RuleSet, error) {
	rules := append([]compile.Rule(nil), p.Rules...)
	sort.Slice(rules, func(i, j int) bool { return rules[i].Check < rules[j].Check })
	parts := make([]string, len(rules))
	for i, rule := range rules {
		parts[i] = fmt.Sprintf("CASE WHEN NOT %s THEN %s END", sql.Ident(rule.Name), sql.String(rule.Check))
	}
	q := fmt.Sprintf("SELECT concat_ws(', ', %s) AS rules, count(*) AS n FROM %s WHERE NOT %s GROUP BY ALL ORDER BY n DESC, rules",
		strings.Join(parts, ", "), sql.Ident(failed), p.ValidExpr(true))
	rows, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("count invalid rows by rules: %w", err)
	}
	defer rows.Close()
	out := []outcome.RuleSet{}
	for rows.Next() {
		var s outcome.RuleSet
		if err := rows.Scan(&s.Rules, &s.Count); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

type member struct {
	index int
	rule  compile.Rule
}

// checkGroup is one rule check: a single rule, or the collapsed rules of a column or schema.
type checkGroup struct {
	name        string
	description string
	collapsed   bool
	members     []member
}

// checkGroups arranges the rules into checks for the granularity.
func checkGroups(p *compile.Plan, opts Options) []checkGroup {
	single := func(i int, r compile.Rule) checkGroup {
		return checkGroup{name: r.Check, description: r.Description, members: []member{{i, r}}}
	}
	var groups []checkGroup
	switch opts.Granularity {
	case PerSchema:
		if len(p.Rules) == 0 {
			return nil
		}
		g := checkGroup{name: "dy_schema__rules", collapsed: true, description: fmt.Sprintf("Every rule of %s.", p.Name)}
		for i, r := range p.Rules {
			g.members = append(g.members, member{i, r})
		}
		return []checkGroup{g}
	case PerColumn:
		byColumn := map[string]int{}
		schemaRules := checkGroup{name: "dy_schema__rules", collapsed: true}
		var perRule []checkGroup
		for i, r := range p.Rules {
			if r.Column == "" {
				schemaRules.members = append(schemaRules.members, member{i, r})
				perRule = append(perRule, single(i, r))
				continue
			}
			k, ok := byColumn[r.Column]
			if !ok {
				groups = append(groups, checkGroup{name: "dy_col__" + r.Column, collapsed: true})
				k = len(groups) - 1
				byColumn[r.Column] = k
			}
			groups[k].members = append(groups[k].members, member{i, r})
		}
		for k := range groups {
			col := strings.TrimPrefix(groups[k].name, "dy_col__")
			groups[k].description = fmt.Sprintf("Every rule on %s: %s.", col, shortDescriptions(groups[k].members))
		}
		switch {
		case len(schemaRules.members) == 0:
		case opts.SchemaRulesPerRule:
			groups = append(groups, perRule...)
		default:
			schemaRules.description = fmt.Sprintf("Every schema-level rule of %s: %s.", p.Name, shortDescriptions(schemaRules.members))
			groups = append(groups, schemaRules)
		}
		return groups
	}
	for i, r := range p.Rules {
		groups = append(groups, single(i, r))
	}
	return groups
}

// shortDescriptions lists the members of a collapsed check: a column's rules relative to the
// column (`not null, lowercase, length <= 254 bytes`), schema-level rules by name.
func shortDescriptions(members []member) string {
	parts := make([]string, len(members))
	for i, m := range members {
		parts[i] = m.rule.Short
		if parts[i] == "" {
			parts[i] = m.rule.Name
		}
	}
	return strings.Join(parts, ", ")
}

// buildChecks reports the column-schema check and the rule checks of a run that got past it.
func buildChecks(p *compile.Plan, a Asset, opts Options, stats ruleStats, detail *failureDetail, groups []checkGroup) []outcome.Check {
	if groups == nil {
		groups = checkGroups(p, opts)
	}
	if detail == nil {
		detail = &failureDetail{}
	}
	checks := []outcome.Check{columnsCheck(p, nil)}
	for _, g := range groups {
		c := outcome.Check{Name: g.name, Passed: true, Description: g.description, Metadata: map[string]any{}}
		errorFailed, hasError := false, false
		var listed []map[string]any
		var failures []outcome.RuleFailure
		var sample []any
		for _, m := range g.members {
			failed := stats.failed[m.index]
			c.Passed = c.Passed && failed == 0
			errorFailed = errorFailed || failed > 0 && m.rule.IsError()
			hasError = hasError || m.rule.IsError()
			if !g.collapsed {
				c.Metadata[outcome.MetaRule] = m.rule.Name
				c.Metadata[outcome.MetaRuleExpr] = m.rule.Expr
				if failed > 0 {
					c.Metadata[outcome.MetaFailedRowCount] = failed
				}
				if s := detail.samples[m.index]; len(s) > 0 {
					c.Metadata[outcome.MetaFailedExamples] = s
				}
				c.ResultDescription = outcome.RowsDescription(failed)
				continue
			}
			listed = append(listed, map[string]any{"rule": m.rule.Name, "failed": failed, "expr": m.rule.Expr})
			failures = append(failures, outcome.RuleFailure{Rule: m.rule.Name, Failed: failed})
			// report() already read at most opts.samples() rows for the whole group.
			for _, row := range detail.samples[m.index] {
				sample = append(sample, withRule(m.rule.Name, row))
			}
		}
		c.Severity = outcome.FailedSeverity(errorFailed)
		c.Blocking = outcome.Blocks(a.Quarantine, hasError)
		if g.collapsed {
			c.Metadata[outcome.MetaRules] = listed
			if n := detail.groupFailed[g.name]; n > 0 {
				c.Metadata[outcome.MetaFailedRowCount] = n
			}
			if len(sample) > 0 {
				c.Metadata[outcome.MetaFailedExamples] = sample
			}
			c.ResultDescription = outcome.RulesDescription(failures)
		}
		checks = append(checks, c)
	}
	return checks
}

// withRule puts a dy_rule field first in a sample row of a collapsed check.
func withRule(rule string, row any) any {
	raw, ok := row.(json.RawMessage)
	name, _ := json.Marshal(rule)
	if !ok || len(raw) < 2 || raw[0] != '{' {
		return row
	}
	body := strings.TrimSpace(string(raw[1:]))
	if body == "}" {
		return json.RawMessage(`{"dy_rule":` + string(name) + `}`)
	}
	return json.RawMessage(`{"dy_rule":` + string(name) + `,` + body)
}
