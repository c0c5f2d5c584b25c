package schema

import "slices"

// Clone is a deep copy of the schema: changing one afterwards leaves the other as it was. A
// compiled plan keeps a clone, so a schema changed after Compile does not change the plan's runs.
func (s *Schema) Clone() *Schema {
	if s == nil {
		return nil
	}
	c := *s
	c.Columns = cloneColumns(s.Columns)
	c.Rules = make([]*Rule, len(s.Rules))
	for i, r := range s.Rules {
		rc := *r
		rc.GroupBy = slices.Clone(r.GroupBy)
		rc.References = r.References.clone()
		c.Rules[i] = &rc
	}
	c.Severity = s.Severity.clone()
	c.Tolerance = s.Tolerance.clone()
	c.TableChecks = cloneTableChecks(s.TableChecks)
	c.Contract = s.Contract.clone()
	c.problems = slices.Clone(s.problems)
	return &c
}

func cloneColumns(cols []*Column) []*Column {
	if cols == nil {
		return nil
	}
	out := make([]*Column, len(cols))
	for i, col := range cols {
		out[i] = col.clone()
	}
	return out
}

func (c *Column) clone() *Column {
	if c == nil {
		return nil
	}
	cp := *c
	cp.DType.Categories = slices.Clone(c.DType.Categories)
	cp.DType.Shape = slices.Clone(c.DType.Shape)
	cp.DType.Inner = c.DType.Inner.clone()
	cp.DType.Fields = cloneColumns(c.DType.Fields)
	a := &cp.Args
	a.Checks = slices.Clone(c.Args.Checks)
	a.Min, a.MinExclusive = cloneValue(a.Min), cloneValue(a.MinExclusive)
	a.Max, a.MaxExclusive = cloneValue(a.Max), cloneValue(a.MaxExclusive)
	a.IsIn = slices.Clone(c.Args.IsIn)
	if a.Regex != nil {
		r := *a.Regex
		a.Regex = &r
	}
	if a.MinLength != nil {
		n := *a.MinLength
		a.MinLength = &n
	}
	if a.MaxLength != nil {
		n := *a.MaxLength
		a.MaxLength = &n
	}
	a.Severity = c.Args.Severity.clone()
	a.Tolerance = c.Args.Tolerance.clone()
	a.References = c.Args.References.clone()
	return &cp
}

func cloneValue(v *Value) *Value {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}

func (s SeveritySpec) clone() SeveritySpec {
	s.PerRule = slices.Clone(s.PerRule)
	return s
}
