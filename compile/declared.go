package compile

import (
	"context"

	"github.com/tablegate/tablegate/schema"
)

// CheckCustomSQL checks the custom SQL of a schema that has other declaration errors (s as a
// loader returns it beside *schema.Errors), so that every problem is reported at once rather
// than the SQL's in a second round. A rule naming a column whose dtype is itself in error is not
// checked: its binding would fail for that reason alone. Compile checks everything again.
func CheckCustomSQL(ctx context.Context, s *schema.Schema) []error {
	c := &compiler{ctx: ctx, s: s, plan: &Plan{Name: s.Name, schema: s}, pendingGroup: -1}
	var broken []string
	for _, col := range s.Columns {
		if col.DType.Kind == schema.KindInvalid || col.DType.Kind.IsNested() {
			broken = append(broken, col.Name)
		}
	}
	usable := func(expr string, own *schema.Column) bool {
		if own != nil && (own.DType.Kind == schema.KindInvalid || own.DType.Kind.IsNested()) {
			return false
		}
		for _, b := range broken {
			if sqlMentions(expr, b) {
				return false
			}
		}
		return true
	}
	for _, r := range s.Rules {
		if ctx.Err() != nil {
			return c.problems
		}
		if r.SQL == "" || len(r.GroupBy) > 0 || !usable(r.SQL, nil) {
			continue
		}
		if _, err := c.checkSQL(r.SQL, nil, "", nil); err != nil {
			c.fail(r.Pos(), "", "rules", "rule '%s': %v", r.Name, err)
		}
	}
	for _, col := range s.Columns {
		for _, r := range col.Rules() {
			if ctx.Err() != nil {
				return c.problems
			}
			if r.Kind != schema.RuleCheck || len(r.Path) > 0 || !usable(r.Check.SQL, col) {
				continue
			}
			if _, err := c.checkSQL(r.Check.SQL, &col.DType, quote(col.Name), nil); err != nil {
				c.fail(col.Pos(), col.Name, r.Name, "check %s: %v", r.Name, err)
			}
		}
	}
	return c.problems
}
