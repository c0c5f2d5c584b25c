package compile_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

func tableCheckBase() *schema.Schema {
	return schema.New("Orders",
		schema.Int64("id"),
		schema.Float64("amount").Nullable().Min(0),
		schema.Datetime("placed_at", schema.Micros, "").Nullable(),
		schema.String("select").Nullable(), // a reserved word as a column
	)
}

func TestTableChecksCompile(t *testing.T) {
	cases := []struct {
		label  string
		check  *schema.TableCheck
		reject []string // the declaration error has every one; nil: it compiles
		expr   string   // the checked SQL, when it compiles
		counts bool
	}{
		{label: "count", check: schema.Condition("enough", "count(*) >= 1000"), expr: "(count_star() >= 1000)"},
		{label: "freshness", check: schema.Condition("fresh", "max(placed_at) >= TIMESTAMP '2026-01-01' - INTERVAL 1 DAY")},
		{label: "metric", check: schema.Metric("mean", "avg(amount)").Min(10).Max(500)},
		{label: "metric count", check: schema.Metric("volume", "count(*)").Anomaly(schema.Anomaly{})},
		{label: "reserved word", check: schema.Metric("distinct_select", `count(DISTINCT "select")`)},
		{label: "invalid share", check: schema.Condition("few_invalid", "invalid_rows() <= 0.05 * count(*)"), counts: true},
		{label: "one rule", check: schema.Condition("few_min", "failed_rows('amount|min') = 0"), counts: true},
		{label: "counts alone", check: schema.Condition("none", "invalid_rows() = 0"), counts: true},
		{label: "row expression", check: schema.Condition("row", "amount > 0"), reject: []string{"not an aggregate", "write a rule"}},
		{label: "mixed", check: schema.Condition("mixed", "amount > avg(amount)"), reject: []string{"GROUP BY", "aggregate"}},
		{label: "not boolean", check: schema.Condition("nb", "count(*)"), reject: []string{"BIGINT", "not a boolean", "metric"}},
		{label: "metric not number", check: schema.Metric("mx", "max(placed_at)"), reject: []string{"not a number"}},
		{label: "subquery", check: schema.Condition("sq", "(SELECT count(*) FROM orders) > 0"), reject: []string{"subqueries"}},
		{label: "file", check: schema.Condition("file", "(SELECT count(*) FROM read_csv('/etc/passwd')) > 0"), reject: []string{"subqueries"}},
		{label: "setting", check: schema.Condition("set", "current_setting('threads') IS NOT NULL AND count(*) > 0"), reject: []string{"current_setting"}},
		{label: "window", check: schema.Condition("w", "count(*) OVER () > 0"), reject: []string{"window"}},
		{label: "two statements", check: schema.Condition("inj", "count(*) > 0; DROP TABLE x"), reject: []string{"SQL expression"}},
		{label: "unknown rule", check: schema.Condition("u", "failed_rows('amount|mni') = 0"), reject: []string{"names no rule", "amount|min"}},
		{label: "rule name not literal", check: schema.Condition("u", "failed_rows(lower('amount|min')) = 0"), reject: []string{"string literal"}},
		{label: "invalid rows args", check: schema.Condition("u", "invalid_rows(1) = 0"), reject: []string{"takes no argument"}},
		{label: "reserved prefix", check: schema.Condition("u", "count(*) > __tg_x"), reject: []string{"__tg_"}},
	}
	for _, tc := range cases {
		t.Run(tc.label, func(t *testing.T) {
			s := tableCheckBase().AddTableCheck(tc.check)
			p, err := compile.Compile(s)
			if tc.reject != nil {
				var decl *schema.DeclarationError
				if !errors.As(err, &decl) {
					t.Fatalf("want a declaration error, got %v", err)
				}
				for _, w := range tc.reject {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				if !strings.Contains(err.Error(), "table check '"+tc.check.Name+"'") {
					t.Errorf("error %q does not name the check", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(p.TableChecks) != 1 {
				t.Fatalf("table checks %+v", p.TableChecks)
			}
			got := p.TableChecks[0]
			if got.Check != "dy_table__"+tc.check.Name || got.Severity != schema.Error {
				t.Errorf("check %+v", got)
			}
			if tc.expr != "" && got.Expr != tc.expr {
				t.Errorf("expr %q, want %q", got.Expr, tc.expr)
			}
			if p.TableChecksReadCounts() != tc.counts {
				t.Errorf("reads counts %v, want %v", p.TableChecksReadCounts(), tc.counts)
			}
		})
	}
}

func TestTableChecksDeclarations(t *testing.T) {
	cases := []struct {
		label string
		check *schema.TableCheck
		want  string
	}{
		{"no sql", &schema.TableCheck{Name: "x"}, "neither sql"},
		{"both", &schema.TableCheck{Name: "x", SQL: "count(*) > 0", Metric: "count(*)"}, "not both"},
		{"bounds on sql", schema.Condition("x", "count(*) > 0").Min(1), "bound a metric"},
		{"min above max", schema.Metric("x", "count(*)").Min(5).Max(1), "above max"},
		{"bad severity", &schema.TableCheck{Name: "x", Metric: "count(*)", Level: "fatal"}, "severity"},
		{"bad name", schema.Condition("a b", "count(*) > 0"), "letters, digits"},
		{"bad direction", schema.Metric("x", "count(*)").Anomaly(schema.Anomaly{Direction: "sideways"}), "direction"},
		{"min history above lookback", schema.Metric("x", "count(*)").Anomaly(schema.Anomaly{Lookback: 3, MinHistory: 4}), "min_history"},
		{"threshold", schema.Metric("x", "count(*)").Anomaly(schema.Anomaly{Threshold: -1}), "threshold"},
		{"threshold 1e308", schema.Metric("x", "count(*)").Anomaly(schema.Anomaly{Threshold: 1e308}), "up to 1000"},
		{"threshold inf", schema.Metric("x", "count(*)").Anomaly(schema.Anomaly{Threshold: math.Inf(1)}), "up to 1000"},
		{"max inf", schema.Metric("x", "count(*)").Max(math.Inf(1)), "max is +Inf; give a finite number"},
		{"min -inf", schema.Metric("x", "count(*)").Min(math.Inf(-1)), "min is -Inf; give a finite number"},
	}
	for _, tc := range cases {
		t.Run(tc.label, func(t *testing.T) {
			err := tableCheckBase().AddTableCheck(tc.check).Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error with %q, got %v", tc.want, err)
			}
		})
	}
	dup := tableCheckBase().AddTableCheck(schema.Condition("a", "count(*) > 0"), schema.Condition("A", "count(*) > 1"))
	if err := dup.Validate(); err == nil || !strings.Contains(err.Error(), "two table checks") {
		t.Fatalf("duplicate names: %v", err)
	}
}

func TestTableChecksYAML(t *testing.T) {
	doc := `
schema: Orders
columns:
  - {name: id, type: Int64}
  - {name: amount, type: Float64, nullable: true}
table_checks:
  - name: enough_rows
    sql: count(*) >= 1000
  - name: amount_mean
    metric: avg(amount)
    min: 10
    max: 500.5
    severity: warn
    description: The mean order
  - name: volume
    metric: count(*)
    anomaly: {lookback: 30, min_history: 5, threshold: 3, direction: up}
`
	s, err := schema.Parse([]byte(doc), "orders.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.TableChecks) != 3 {
		t.Fatalf("%+v", p.TableChecks)
	}
	mean, vol := p.TableChecks[1], p.TableChecks[2]
	if !mean.Metric || *mean.Min != 10 || *mean.Max != 500.5 || mean.Severity != schema.Warn || mean.Description != "The mean order" {
		t.Errorf("amount_mean %+v", mean)
	}
	if vol.Anomaly == nil || *vol.Anomaly != (schema.Anomaly{Lookback: 30, MinHistory: 5, Threshold: 3, Direction: "up"}) {
		t.Errorf("volume %+v", vol.Anomaly)
	}
	// Bounds are 64-bit floats: an integer none holds is refused, not moved; so is an absurd
	// threshold.
	for _, bad := range []struct{ decl, want string }{
		{"max: 9007199254740993", "max 9007199254740993 is not a 64-bit float (integers are exact up to 2^53); the nearest is 9007199254740992"},
		{"min: -100000000000000000000001", "min -100000000000000000000001 is not a 64-bit float"},
		{"anomaly: {threshold: 1e308}", "threshold is 1e+308; give a positive number of scaled MADs up to 1000"},
		{"anomaly: {threshold: 1001}", "up to 1000"},
	} {
		_, err := schema.Parse([]byte("schema: X\ncolumns: [{name: a, type: Int64}]\ntable_checks: [{name: x, metric: count(*), "+bad.decl+"}]\n"), "x.yaml")
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: want an error with %q, got %v", bad.decl, bad.want, err)
		}
	}
	for _, good := range []string{"max: 9007199254740992", "max: 9007199254741992", "min: -1_000", "anomaly: {threshold: 1000}", "max: 1e23"} {
		if _, err := schema.Parse([]byte("schema: X\ncolumns: [{name: a, type: Int64}]\ntable_checks: [{name: x, metric: count(*), "+good+"}]\n"), "x.yaml"); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
	_, err = schema.Parse([]byte("schema: X\ncolumns: [{name: a, type: Int64}]\ntable_checks: [{name: x, sql: count(*) > 0, mni: 3}]\n"), "x.yaml")
	if err == nil || !strings.Contains(err.Error(), "unknown key 'mni'") || !strings.Contains(err.Error(), "min") {
		t.Fatalf("unknown key: %v", err)
	}
	// A child schema keeps its parent's table checks.
	child := schema.Extends(s, "Child", schema.String("note").Nullable())
	if len(child.TableChecks) != 3 {
		t.Fatalf("child table checks %d", len(child.TableChecks))
	}
}

func TestTableChecksProgramStep(t *testing.T) {
	s := tableCheckBase().AddTableCheck(schema.Condition("few_invalid", "invalid_rows() <= 0.05 * count(*)"))
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	prog := p.Program(compile.Relation{From: "t", RowID: "rowid"}, compile.Facts{Rows: 10, LastRowID: 9}, compile.ProgramOptions{ID: 1, Sink: compile.Nowhere})
	var ops []compile.Op
	for _, st := range prog.Steps() {
		ops = append(ops, st.Op)
		if st.Op == compile.TableChecks && !strings.Contains(st.SQL, "CAST($1 AS BIGINT[])[1]") {
			t.Errorf("table checks statement %s", st.SQL)
		}
	}
	counts, checks := -1, -1
	for i, op := range ops {
		switch op {
		case compile.Counts, compile.RuleCounts:
			counts = i
		case compile.TableChecks:
			checks = i
		}
	}
	if counts < 0 || checks != counts+1 {
		t.Fatalf("the table checks come right after the counts (per rule too): %v", ops)
	}
	if !strings.Contains(prog.String(), "evaluate the table checks") {
		t.Errorf("explain lacks the table checks:\n%s", prog)
	}
}
