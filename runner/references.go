package runner

import (
	"context"
	"fmt"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/schema"
)

// checkReferences opens each foreign-key rule's other data and compares its key columns' types
// with the keys' declared dtypes, before any row is read: a reference that cannot be read is an
// input error naming it, one whose types differ a column-schema mismatch. Its statements are
// steps of the input's opening (OpenSource), which explain lists.
func checkReferences(ctx context.Context, b Referencer, rep *outcome.Report, p *compile.Plan) error {
	var problems []outcome.ReferenceMismatch
	for _, ref := range p.References() {
		actual, err := b.OpenReference(ctx, ref)
		if err != nil {
			return Fail(rep, &outcome.InputError{Input: fmt.Sprintf("%s (the reference data of rule %s)", ref.Input, ref.Rule), Err: err})
		}
		want := make([]*schema.Column, len(ref.To))
		key := make(map[string]*schema.Column, len(ref.To))
		for i, to := range ref.To {
			col := p.Schema().Column(ref.Columns[i])
			want[i] = &schema.Column{Name: to, DType: col.DType}
			key[to] = col
		}
		names := make([]string, len(actual))
		for i, c := range actual {
			names[i] = c.Name
		}
		for _, m := range casting.CheckColumns(want, actual) {
			problems = append(problems, outcome.ReferenceMismatch{Rule: ref.Rule, Input: ref.Input, Key: key[m.Column].Name,
				DType: m.Expected, Column: m.Column, Actual: m.Actual, Columns: names})
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return referenceMismatch(rep, p, &outcome.ColumnSchemaError{Schema: p.Name, References: problems})
}

// referenceMismatch reports references whose key types differ from the keys' dtypes, found once
// the input's columns matched (by the references' own opening, or by an engine's Analyze): the
// column check fails on the references, which it names.
func referenceMismatch(rep *outcome.Report, p *compile.Plan, err *outcome.ColumnSchemaError) error {
	out := outcome.ColumnSchemaMismatch
	rep.Outcome = &out
	c := columnsCheck(p, nil)
	c.Passed, c.ResultDescription = false, err.Error()
	rep.Checks = []outcome.Check{c}
	return Fail(rep, err)
}
