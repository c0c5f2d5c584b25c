package duckdb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestRuleCountsInChunks: the rows failing each rule are counted in statements of
// compile.RuleCountChunk rules, and only when some row failed; every rule gets its own count, on
// either side of a chunk's edge.
func TestRuleCountsInChunks(t *testing.T) {
	ncols := compile.RuleCountChunk + 4 // two rules each (nullability, min): three chunks
	cols := make([]*schema.Column, ncols)
	for i := range cols {
		cols[i] = schema.Int64(fmt.Sprintf("c%d", i)).Min(0)
	}
	plan, err := compile.Compile(schema.New("Wide", cols...))
	if err != nil {
		t.Fatal(err)
	}
	// Column e fails its min on e%7+1 rows; its rules sit at both edges of the chunks.
	edges := []int{0, compile.RuleCountChunk/2 - 1, compile.RuleCountChunk / 2, compile.RuleCountChunk, ncols - 1}
	var sel []string
	for i := 0; i < ncols; i++ {
		sel = append(sel, fmt.Sprintf("CASE WHEN k = %d THEN -1 ELSE 0 END::BIGINT AS c%d", i, i))
	}
	var keys []string
	for _, e := range edges {
		keys = append(keys, fmt.Sprintf("SELECT %d AS k FROM range(%d)", e, e%7+1))
	}
	query := "SELECT " + strings.Join(sel, ", ") + " FROM (" + strings.Join(keys, " UNION ALL ") + " UNION ALL SELECT -1)"

	eng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	rep, err := eng.Run(context.Background(), runner.Asset{Plan: plan, Input: runner.QueryInput{SQL: query}}, runner.Options{})
	if err == nil {
		t.Fatal("the run passed; rows fail")
	}
	want := map[string]int64{}
	for _, e := range edges {
		want[schema.CheckName(fmt.Sprintf("c%d|min", e))] = int64(e%7 + 1)
	}
	seen := 0
	for _, c := range rep.Checks {
		if w, ok := want[c.Name]; ok {
			seen++
			if c.Failed != w {
				t.Errorf("%s failed %d rows, want %d", c.Name, c.Failed, w)
			}
		} else if c.Failed != 0 {
			t.Errorf("%s failed %d rows, want none", c.Name, c.Failed)
		}
	}
	if seen != len(edges) {
		t.Errorf("%d of the %d failing rules have checks", seen, len(edges))
	}

	var steps []string
	prog := plan.Program(compile.Relation{From: "t", RowID: "rowid"}, compile.Facts{}, compile.ProgramOptions{})
	for _, st := range prog.Steps() {
		if st.Op == compile.RuleCounts {
			steps = append(steps, st.What)
			if st.When&compile.AnyFailure == 0 {
				t.Errorf("step %q runs even when no row failed", st.What)
			}
		}
	}
	if len(steps) != 3 {
		t.Errorf("per-rule count steps %q, want 3 of at most %d rules", steps, compile.RuleCountChunk)
	}
}
