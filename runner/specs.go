package runner

import (
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/schema"
)

// CheckSpecs lists every check a run of the plan reports with these options, in report order,
// without reading any data: dy_schema__columns, the rule checks at the granularity, then the
// table checks. An
// orchestrator declares its checks from it (Dagster needs them before the run).
func CheckSpecs(p *compile.Plan, quarantine bool, opts Options) []outcome.CheckSpec {
	a := Asset{Plan: p, Quarantine: quarantine}
	checks := buildChecks(p, a, opts, ruleStats{failed: make([]int64, len(p.Rules))}, nil, nil)
	groups := checkGroups(p, opts)
	specs := make([]outcome.CheckSpec, len(checks), len(checks)+len(p.TableChecks))
	for _, t := range p.TableChecks {
		specs = append(specs, outcome.CheckSpec{Name: t.Check, Blocking: t.Severity == schema.Error, Description: t.Description,
			Rules: []outcome.SpecRule{{Rule: t.Name, Severity: string(t.Severity), Expr: t.Expr}}})
	}
	for i, c := range checks {
		specs[i] = outcome.CheckSpec{Name: c.Name, Blocking: c.Blocking, Description: c.Description, Rules: []outcome.SpecRule{}}
		if i == 0 {
			continue // dy_schema__columns has no rules
		}
		for _, m := range groups[i-1].members {
			spec := outcome.SpecRule{Rule: m.rule.Name, Severity: string(m.rule.Severity), Expr: m.rule.Expr}
			if t := m.rule.Tolerance; !t.IsZero() {
				spec.Tolerance = &outcome.Tolerance{Warn: t.Warn.String(), Error: t.Error.String()}
			}
			specs[i].Rules = append(specs[i].Rules, spec)
		}
	}
	return specs
}
