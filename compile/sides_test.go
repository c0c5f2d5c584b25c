package compile_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// TestConditionSides: a condition that is one comparison keeps its two sides as written (also
// after non-ASCII text), and marks the newest value of a temporal column; others have none.
func TestConditionSides(t *testing.T) {
	s := schema.New("E", schema.String("note"), schema.Date("day"), schema.Int64("n")).AddTableCheck(
		schema.Condition("a", "max(note) <> 'ééé' || 'x'"),
		schema.Condition("b", "'ü' <= min(note)"),
		schema.Condition("c", "max(day) >= current_date - 2"),
		schema.Condition("d", "count(*) > 0 AND max(n) < 10"),
		schema.Condition("e", "(max(n) + 1) * 2 >= (sum(n))"),
	)
	p, err := compile.Compile(s)
	require.NoError(t, err)
	got := map[string][]compile.Side{}
	for _, tc := range p.TableChecks {
		got[tc.Name] = tc.Sides
	}
	text := func(sides []compile.Side) []string {
		var out []string
		for _, sd := range sides {
			out = append(out, sd.Text)
		}
		return out
	}
	require.Equal(t, []string{"max(note)", "'ééé' || 'x'"}, text(got["a"]))
	require.Equal(t, []string{"min(note)"}, text(got["b"]), "a constant side is left out")
	require.Equal(t, []string{"max(day)", "current_date - 2"}, text(got["c"]))
	require.True(t, got["c"][0].Newest)
	require.False(t, got["c"][1].Newest)
	require.Empty(t, got["d"])
	require.Len(t, got["e"], 2)
}
