package spark_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/schema"
)

// TestTableChecksNeedSparkForm: a table check whose DuckDB SQL may read otherwise in Spark is
// refused, naming it, until it has its Spark form; a portable one renders without.
func TestTableChecksNeedSparkForm(t *testing.T) {
	for _, tc := range []struct {
		check *schema.TableCheck
		want  string // the value's Spark SQL, or the refusal's words
		ok    bool
	}{
		{schema.Condition("enough_rows", "count(*) >= 10"), "(count(*) >= 10)", true},
		{schema.Metric("rows", "COUNT(*)").Min(1), "CAST((count(*)) AS STRING)", true},
		{schema.Condition("recent", "max(id) > epoch_ms(now())"), "table check 'recent' cannot run on Spark: epoch_ms() is DuckDB's", false},
		{schema.Condition("recent", "max(id) > epoch_ms(now())").WithSpark("max(id) > unix_millis(current_timestamp())"),
			"(max(id) > unix_millis(current_timestamp()))", true},
		{schema.Metric("mean", "avg(id)").WithSpark("avg(id); DROP TABLE x"), "table check 'mean' cannot run on Spark: spark: a table check is one expression: no ';'", false},
		{schema.Metric("mean", "avg(id)").WithSpark("avg(id) OVER ()"), "window functions", false},
		{schema.Condition("few", "failed_rows('id|min') < 2"), "(element_at($1, 3) < 2)", true},
	} {
		s := schema.New("Orders", schema.Int64("id").Min(0)).AddTableCheck(tc.check)
		p, err := compile.Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := spark.Compile(p)
		if !tc.ok {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: want refused with %q, got %v", tc.check.Name, tc.want, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.check.Name, err)
			continue
		}
		if q := prog.Spark().TableChecksIn(spark.Dialect, "f"); !strings.HasPrefix(q, "SELECT "+tc.want+" AS `"+tc.check.Name+"`") {
			t.Errorf("%s: got %s, want %s", tc.check.Name, q, tc.want)
		}
	}
}

// TestCompileContextCancelled: a cancelled context stops the Spark rendering with its cause.
func TestCompileContextCancelled(t *testing.T) {
	p, err := compile.Compile(schema.New("Orders", schema.Int64("id").Min(0)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := spark.CompileContext(ctx, p); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if _, err := spark.Compile(p); err != nil {
		t.Fatalf("the same plan without a cancel: %v", err)
	}
}
