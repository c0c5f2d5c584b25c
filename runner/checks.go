package runner

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
)

// ColumnsCheckName is the name of the column-schema check.
const ColumnsCheckName = "dy_schema__columns"

func columnsCheck(p *compile.Plan, mm []casting.Mismatch) outcome.Check {
	c := outcome.Check{
		Name: ColumnsCheckName, Passed: len(mm) == 0, Severity: outcome.SeverityError, Declared: outcome.SeverityError, Blocking: true,
		Description: fmt.Sprintf("Columns and dtypes match %s.", p.Name), Mismatches: mm,
	}
	cols := make([]string, len(mm))
	for i, m := range mm {
		cols[i] = m.Column
	}
	c.ResultDescription = outcome.ColumnsDescription(cols)
	return c
}

// failureDetail is what the report needs besides the counts: per-rule samples and, for
// collapsed checks, how many rows failed any member.
type failureDetail struct {
	samples map[int][]json.RawMessage
	// values are, per rule, its most frequent failing values.
	values      map[int][]outcome.ValueCount
	groupFailed map[string]int64
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
		c := outcome.Check{Name: g.name, Passed: true, Description: g.description}
		judged, hasError := compile.Passes, false
		var failures []outcome.RuleFailure
		for _, m := range g.members {
			failed := stats.failed[m.index]
			j := m.rule.Judge(failed, stats.total)
			c.Passed = c.Passed && j == compile.Passes
			judged = max(judged, j)
			hasError = hasError || m.rule.IsError()
			if !g.collapsed {
				c.Rule, c.Expr, c.Failed, c.Samples = m.rule.Name, m.rule.Expr, failed, detail.samples[m.index]
				c.FailingValues = detail.values[m.index]
				c.Tolerance = toleranceOf(m.rule, stats.total)
				c.ResultDescription = outcome.RowsDescription(failed) + toleranceNote(m.rule, failed, stats.total, j)
				continue
			}
			c.Rules = append(c.Rules, outcome.RuleResult{Rule: m.rule.Name, Failed: failed, Expr: m.rule.Expr})
			failures = append(failures, outcome.RuleFailure{Rule: m.rule.Name, Failed: failed})
			// The program read at most opts.samples() rows for the whole group (sampleTakes).
			for _, row := range detail.samples[m.index] {
				c.Samples = append(c.Samples, withRule(m.rule.Name, row))
			}
		}
		c.Severity, c.Declared = outcome.FailedSeverity(judged == compile.FailsError), outcome.FailedSeverity(hasError)
		c.Blocking = outcome.Blocks(a.Quarantine, hasError)
		if g.collapsed {
			// Until the program counts the group's rows (it had not when a table check failed),
			// its rule failing the most rows is a lower bound.
			c.Failed = detail.groupFailed[g.name]
			if _, ok := detail.groupFailed[g.name]; !ok {
				for _, f := range failures {
					c.Failed = max(c.Failed, f.Failed)
				}
			}
			c.ResultDescription = outcome.RulesDescription(failures)
		}
		if c.Failed > 0 && stats.total > 0 {
			share := float64(c.Failed) / float64(stats.total)
			c.Share = &share
		}
		checks = append(checks, c)
	}
	return checks
}

// toleranceOf is the rule's tolerance as its check reports it, its limits in rows of an input
// of total rows; nil when the rule has none.
func toleranceOf(r compile.Rule, total int64) *outcome.Tolerance {
	t := r.Tolerance
	if t.IsZero() {
		return nil
	}
	out := &outcome.Tolerance{Warn: t.Warn.String(), Error: t.Error.String()}
	if t.Warn != nil {
		n := t.Warn.MaxRows(total)
		out.WarnRows = &n
	}
	if t.Error != nil {
		n := t.Error.MaxRows(total)
		out.ErrorRows = &n
	}
	return out
}

// toleranceNote says, after a rule check's "n rows failed.", how its tolerance judged them.
func toleranceNote(r compile.Rule, failed, total int64, j compile.Judgement) string {
	t := r.Tolerance
	switch {
	case failed == 0 || t.IsZero():
		return ""
	case j == compile.Passes:
		return fmt.Sprintf(" Within the warn tolerance of %s.", t.Warn.Describe())
	case j == compile.FailsWarn && r.IsError():
		return fmt.Sprintf(" Within the error tolerance of %s: tolerated, the run goes on.", t.Error.Describe())
	case j == compile.FailsError && t.Error != nil:
		return fmt.Sprintf(" Above the error tolerance of %s.", t.Error.Describe())
	case t.Warn != nil:
		return fmt.Sprintf(" Above the warn tolerance of %s.", t.Warn.Describe())
	}
	return ""
}

// withRule puts a dy_rule field first in a sample row of a collapsed check.
func withRule(rule string, raw json.RawMessage) json.RawMessage {
	name, _ := json.Marshal(rule)
	if len(raw) < 2 || raw[0] != '{' {
		return raw
	}
	body := strings.TrimSpace(string(raw[1:]))
	if body == "}" {
		return json.RawMessage(`{"dy_rule":` + string(name) + `}`)
	}
	return json.RawMessage(`{"dy_rule":` + string(name) + `,` + body)
}
