package report

import (
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
)

// MarkContract names, in the report of a run of plan p, the data contract p's schema was
// imported from, and gives each check the contract quality entries its rules came from
// (metadata odcs/quality), so that a catalog can match results to its contract. A schema with no
// contract leaves the report as it is.
func MarkContract(rep *outcome.Report, p *compile.Plan) {
	s := p.Schema()
	if rep == nil || s == nil || s.Contract == nil {
		return
	}
	c := s.Contract
	rep.Contract = &outcome.Contract{ID: c.ID, Name: c.Name, Version: c.Version, APIVersion: c.APIVersion, Object: c.Object}
	rules := map[string][]outcome.ContractQuality{}
	tables := map[string][]outcome.ContractQuality{}
	for _, q := range c.Quality {
		entry := outcome.ContractQuality{Rule: q.Rule, ID: q.ID, Name: q.Name}
		if q.Table {
			tables[q.Rule] = append(tables[q.Rule], entry)
		} else {
			rules[q.Rule] = append(rules[q.Rule], entry)
		}
	}
	for i := range rep.Checks {
		ch := &rep.Checks[i]
		ch.Contract = nil
		if ch.Table != nil {
			ch.Contract = append(ch.Contract, tables[strings.TrimPrefix(ch.Name, "dy_table__")]...)
			continue
		}
		if ch.Rule != "" {
			ch.Contract = append(ch.Contract, rules[ch.Rule]...)
		}
		for _, m := range ch.Rules {
			ch.Contract = append(ch.Contract, rules[m.Rule]...)
		}
	}
}
