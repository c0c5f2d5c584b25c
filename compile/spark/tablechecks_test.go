package spark_test

import (
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/schema"
)

// TestTableChecksRefused: a schema with table checks is refused for Spark, naming each check.
func TestTableChecksRefused(t *testing.T) {
	s := schema.New("Orders", schema.Int64("id")).AddTableCheck(schema.Condition("enough_rows", "count(*) >= 10"))
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	_, err = spark.Compile(p)
	if err == nil || !strings.Contains(err.Error(), "table check 'enough_rows' cannot run on Spark") {
		t.Fatalf("want the table check refused, got %v", err)
	}
}
