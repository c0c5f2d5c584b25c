package compile_test

import (
	"context"
	"testing"
	"time"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/compile/duckdbparser"
	"github.com/tablegate/tablegate/schema"
)

// TestCheckBuildsNoValue: checking custom SQL evaluates none of it. DuckDB's binder evaluates a
// call of constant arguments when it binds the call around it; these rules each built a value of
// gigabytes (or seconds of work) while the schema was checked.
func TestCheckBuildsNoValue(t *testing.T) {
	exprs := []string{
		"length(printf('%1500000000d', 1)) > 0",
		"length(format('{:>1500000000}', 'x')) > 0",
		"length(repeat('x', 1000*1000*1500)) > 0",
		"len(range(TIMESTAMP '1900-01-01', TIMESTAMP '2100-01-01', INTERVAL 1 SECOND)) > 0",
		"length(concat_ws(repeat('x', 1048576), range(2000)::VARCHAR[])) > 0",
		"length(array_to_string(range(200000000), ',')) > 0",
		"upper(printf('%1500000000d', 1)) <> _",
		"list_bool_and(list_transform(range(200000000), lambda x: x >= 0))",
	}
	p, err := duckdbparser.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, expr := range exprs {
		t.Run(expr, func(t *testing.T) {
			start := time.Now()
			_, err := compile.CompileWith(context.Background(), rtOne(schema.String("s").Check("huge", expr)), p)
			t.Logf("err: %v", err) // accepted or refused, as long as nothing was built
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("checking took %v (err %v); binding built the value", took, err)
			}
		})
	}
}

// TestTableCheckBuildsNoValue: a table check's SQL is bound as a rule's is, so a call of
// constants in a condition or a metric is not evaluated while the schema is checked either.
func TestTableCheckBuildsNoValue(t *testing.T) {
	checks := []*schema.TableCheck{
		schema.Condition("huge_condition", "count(*) >= length(printf('%1500000000d', 1))"),
		schema.Condition("huge_counts", "invalid_rows() <= length(repeat('x', 1000*1000*1500))"),
		schema.Metric("huge_metric", "avg(amount) + length(printf('%1500000000d', 1))").Min(0),
		schema.Metric("huge_list", "max(amount) + len(range(TIMESTAMP '1900-01-01', TIMESTAMP '2100-01-01', INTERVAL 1 SECOND))").Max(1),
	}
	p, err := duckdbparser.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, check := range checks {
		t.Run(check.Name, func(t *testing.T) {
			start := time.Now()
			_, err := compile.CompileWith(context.Background(), schema.New("T", schema.Float64("amount")).AddTableCheck(check), p)
			if err != nil {
				t.Fatalf("the check is valid SQL and must compile: %v", err)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("checking took %v; binding built the value", took)
			}
		})
	}
}
