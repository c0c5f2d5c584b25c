package compile_test

import (
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// TestPlanOwnsItsSchema: a schema changed after Compile leaves the plan, and so its runs, as
// compiled.
func TestPlanOwnsItsSchema(t *testing.T) {
	s := schema.New("T", schema.Float64("amount").Min(0))
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	before := p.Explain()
	s.Columns[0].Args.Min.Text = "100"
	s.Columns = append(s.Columns, schema.String("extra"))
	if got := p.Schema().Columns; len(got) != 1 || got[0].Args.Min.Text != "0" {
		t.Errorf("the plan's schema followed the caller's: %+v", got)
	}
	if p.Explain() != before {
		t.Errorf("the plan's SQL changed with the schema:\n%s", p.Explain())
	}
}
