package compile_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// bfShipments is the Go builder form of testdata/builder/shipments.yaml and .json.
func bfShipments() *schema.Schema {
	return schema.New("Shipments",
		schema.String("shipment_id").PrimaryKey().Regex(`^SHP-\d{6}$`).SeverityOf("regex", schema.Warn),
		schema.Int32("line_no").PrimaryKey().Min(1).Max(999),
		schema.Int64("customer_id").Nullable(),
		schema.Float64("weight_kg").MinExclusive(0).AllowNaN().
			SeverityOf("min_exclusive", schema.Warn).SeverityOf("nullable", schema.Error),
		schema.Decimal("price", 10, 2).Min(0.01),
		schema.String("carrier").Nullable().IsIn("DHL", "UPS", "it's"),
		schema.Enum("status", "new", "sent", "lost").Unique(),
		schema.Datetime("shipped_at", schema.Micros, "Europe/Berlin").Nullable().
			Min(time.Date(2020, 1, 1, 0, 0, 0, 0, time.FixedZone("", 3600))).Resolution("1s"),
		schema.Date("due").MaxExclusive(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)),
		schema.List("tags", schema.String("").MinLength(1)).Nullable().MaxLength(3),
		schema.Struct("dest",
			schema.String("city"),
			schema.String("zip").Nullable().Regex(`^\d{5}$`),
		).SeverityOf("inner_zip_regex", schema.Warn),
		schema.String("email").Check("", "lower(_) = _").Check("", "contains(_, '@')").SeverityOf("check", schema.Warn),
	).Describe("Shipments leaving the warehouse.").
		AddRule("sent_has_weight", "status <> 'sent' OR weight_kg > 0").DescribeRule("Sent shipments are weighed.").
		AddGroupRule("few_lines", "count(*) <= 999", "shipment_id").
		AddGroupRule("customer_weight", "sum(weight_kg) < 10000", "customer_id").DescribeRule("A customer ships less than 10 t.").
		SeverityOf("few_lines", schema.Warn).SeverityOf("primary_key", schema.Error)
}

// bfDigest renders everything a plan exposes: the query, the columns with their dtypes and every
// rule's name, check, column, kind, severity, SQL and description.
func bfDigest(p *compile.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "schema %s\n", p.Name)
	for _, c := range p.Columns {
		fmt.Fprintf(&b, "column %s %s %s\n", c.Name, c.DType, c.DType.DuckDBType())
	}
	for _, r := range p.Rules {
		fmt.Fprintf(&b, "rule %s | %s | %s | %s | %s | %q | %q\n", r.Name, r.Check, r.Column, r.Kind, r.Severity, r.Expr, r.Description)
	}
	return b.String()
}

func TestBuilderAndFilesCompileToTheSameQuery(t *testing.T) {
	built, err := compileShared(bfShipments())
	if err != nil {
		t.Fatalf("compile the builder schema: %v", err)
	}
	if len(built.Rules) < 20 {
		t.Fatalf("the builder schema has %d rules; the comparison is meant to cover many", len(built.Rules))
	}
	var warn, errs int
	for _, r := range built.Rules {
		if r.Severity == schema.Warn {
			warn++
		} else {
			errs++
		}
	}
	if warn < 4 || errs < 4 {
		t.Fatalf("the builder schema has %d warn and %d error rules; it should have several of each", warn, errs)
	}
	for _, file := range []string{"shipments.yaml", "shipments.json"} {
		t.Run(file, func(t *testing.T) {
			s, err := schema.LoadFile(filepath.Join("testdata", "builder", file))
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			loaded, err := compileShared(s)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			if got, want := loaded.Explain(), built.Explain(); got != want {
				t.Errorf("Explain() of %s differs from the builder's\n%s", file, goldenFirstDiff(want, got))
			}
			if got, want := bfDigest(loaded), bfDigest(built); got != want {
				t.Errorf("the plan of %s differs from the builder's\n%s", file, goldenFirstDiff(want, got))
			}
			if s.Description != "Shipments leaving the warehouse." {
				t.Errorf("description = %q", s.Description)
			}
		})
	}
	// The shared query runs on DuckDB over a table of the declared types.
	goldenSingleStatement(t, built.Explain())
	goldenRun(t, built)
}

// A different severity or bound in the file must show: the comparison is not vacuous.
func TestBuilderAndFileDifferWhenTheSchemasDo(t *testing.T) {
	built, err := compileShared(bfShipments())
	if err != nil {
		t.Fatal(err)
	}
	s := bfShipments()
	s.Columns[1].Max(998)
	other, err := compileShared(s)
	if err != nil {
		t.Fatal(err)
	}
	if other.Explain() == built.Explain() {
		t.Error("changing a bound did not change the query")
	}
	s = bfShipments()
	s.SeverityOf("customer_weight", schema.Warn)
	other, err = compileShared(s)
	if err != nil {
		t.Fatal(err)
	}
	if bfDigest(other) == bfDigest(built) {
		t.Error("changing a severity did not change the plan digest")
	}
}
