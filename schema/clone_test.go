package schema

import (
	"reflect"
	"testing"
)

// TestCloneIsDeep: changing every part of a schema that a pointer or slice holds leaves its
// clone as it was.
func TestCloneIsDeep(t *testing.T) {
	build := func() *Schema {
		s := New("Orders",
			String("id").PrimaryKey().Regex(`^ORD-\d+$`).MinLength(3).MaxLength(12).Check("lowercase", "lower(_) = _"),
			Float64("amount").Min(0).MaxExclusive(1e6).Severity(Warn).ToleranceOf("min", Tolerance{Warn: Rows(3)}).Tolerance(Tolerance{Warn: Share(0.1)}),
			Enum("status", "placed", "paid").IsIn("placed"),
			List("tags", String("").MinLength(1)),
			Struct("address", String("city"), Array("geo", Float64("").Max(90), 2)),
		)
		s.Rules = append(s.Rules, &Rule{Name: "per_customer", SQL: "sum(amount) < 10", GroupBy: []string{"id"}})
		s.Severity = SeveritySpec{PerRule: []SeverityEntry{{Rule: "per_customer", Severity: Warn}}}
		s.ToleranceOf("per_customer", Tolerance{Warn: Rows(1)})
		return s
	}
	s, want := build(), build()
	c := s.Clone()
	s.Name = "changed"
	s.Columns[0].Args.Checks[0].SQL = "TRUE"
	*s.Columns[0].Args.Regex = "x"
	*s.Columns[0].Args.MinLength = 0
	*s.Columns[0].Args.MaxLength = 0
	s.Columns[1].Args.Min.Text = "-1"
	s.Columns[1].Args.MaxExclusive.Text = "1"
	s.Columns[1].Args.Severity.All = Error
	*s.Columns[1].Args.Tolerance.All.Warn.Share = 0.9
	*s.Columns[1].Args.Tolerance.PerRule[0].Tolerance.Warn.Rows = 9
	s.Columns[2].DType.Categories[0] = "x"
	s.Columns[2].Args.IsIn[0].Text = "x"
	s.Columns[3].DType.Inner.Args.MinLength = nil
	s.Columns[4].DType.Fields[0].Name = "town"
	s.Columns[4].DType.Fields[1].DType.Shape[0] = 9
	s.Columns[4].DType.Fields[1].DType.Inner.Args.Max.Text = "1"
	s.Columns = append(s.Columns[:1], String("extra"))
	s.Rules[0].GroupBy[0] = "amount"
	s.Rules[0].SQL = "TRUE"
	s.Severity.PerRule[0].Severity = Error
	*s.Tolerance.PerRule[0].Tolerance.Warn.Rows = 9
	if !reflect.DeepEqual(c, want) {
		t.Errorf("the clone changed with the schema:\n got %+v\nwant %+v", c, want)
	}
}
