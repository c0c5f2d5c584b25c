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

// TestReferencesRefused: a foreign key is refused for Spark, naming the rule.
func TestReferencesRefused(t *testing.T) {
	s := schema.New("Orders", schema.String("customer_id").References("/data/customers.parquet", "id"), schema.String("vendor")).
		AddReference("known_vendor", []string{"vendor"}, "/data/vendors.parquet", []string{"id"})
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	_, err = spark.Compile(p)
	if err == nil || !strings.Contains(err.Error(), "customer_id") || !strings.Contains(err.Error(), "known_vendor") {
		t.Fatalf("want both references refused, got %v", err)
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
