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
		c.Rules[i] = &rc
	}
	c.Severity = s.Severity.clone()
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

func (col *Column) clone() *Column {
	if col == nil {
		return nil
	}
	c := *col
	c.DType.Categories = slices.Clone(col.DType.Categories)
	c.DType.Shape = slices.Clone(col.DType.Shape)
	c.DType.Inner = col.DType.Inner.clone()
	c.DType.Fields = cloneColumns(col.DType.Fields)
	a := &c.Args
	a.Checks = slices.Clone(col.Args.Checks)
	a.Min, a.MinExclusive = cloneValue(a.Min), cloneValue(a.MinExclusive)
	a.Max, a.MaxExclusive = cloneValue(a.Max), cloneValue(a.MaxExclusive)
	a.IsIn = slices.Clone(col.Args.IsIn)
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
	a.Severity = col.Args.Severity.clone()
	return &c
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
