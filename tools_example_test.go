package tablegate_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/tablegate/tablegate"
)

// Write a starting schema from existing data, then validate the data with it: an inferred
// schema accepts the data it came from.
func ExampleEngine_InferSchema() {
	ctx := context.Background()
	eng, err := tablegate.Open(tablegate.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	rows := tablegate.FromQuery(`SELECT * FROM (VALUES (1, 'placed'), (2, 'paid'), (3, NULL)) t(order_id, status)`)
	inferred, err := eng.InferSchema(ctx, rows, tablegate.InferOptions{Name: "orders", MaxCategories: 5})
	if err != nil {
		log.Fatal(err)
	}
	s, err := tablegate.ParseSchema(inferred.YAML, "orders.yaml")
	if err != nil {
		log.Fatal(err)
	}
	plan, err := tablegate.Compile(ctx, s)
	if err != nil {
		log.Fatal(err)
	}
	res, err := eng.Validate(ctx, plan, rows, nil, tablegate.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(inferred.Rows, "rows:", res.Outcome)
	for _, c := range plan.Columns {
		fmt.Println(c.Name, c.DType)
	}
	// Output:
	// 3 rows: all_valid
	// order_id Int32
	// status String
}

// Generate a sample that fits a schema with a share of rows that break its rules, write it, and
// measure the plain copy of its columns that validation's cost is compared with.
func ExampleSampleQuery() {
	ctx := context.Background()
	orders := tablegate.NewSchema("orders",
		tablegate.Int64("order_id").PrimaryKey(),
		tablegate.Float64("amount").Min(0),
	)
	query, rules, err := tablegate.SampleQuery(orders, tablegate.SampleSpec{Rows: 1000, InvalidRate: 0.1, Seed: 7})
	if err != nil {
		log.Fatal(err)
	}
	eng, err := tablegate.Open(tablegate.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	dir, _ := os.MkdirTemp("", "sample")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "orders.parquet")
	if err := eng.WriteQuery(ctx, query, tablegate.ToParquet(path)); err != nil {
		log.Fatal(err)
	}
	plan, err := tablegate.Compile(ctx, orders)
	if err != nil {
		log.Fatal(err)
	}
	if err := eng.CopyColumns(ctx, plan, tablegate.FromParquet(path), filepath.Join(dir, "floor.parquet")); err != nil {
		log.Fatal(err)
	}
	res, err := eng.Validate(ctx, plan, tablegate.FromParquet(path), nil, tablegate.Options{RunOptions: tablegate.RunOptions{MaxFailureSamples: -1}})
	var abort *tablegate.ValidationAbortError
	if !errors.As(err, &abort) {
		log.Fatal(err)
	}
	fmt.Println("breaks", strings.Join(rules, ", "))
	fmt.Println(res.Rows.Input, "rows,", res.Rows.Invalid, "invalid")
	// Output:
	// breaks order_id|nullability, primary_key, amount|nullability, amount|min, amount|inf, amount|nan
	// 1000 rows, 131 invalid
}

// Read the run history back: each run, newest first, and each check's trend.
func ExampleHistoryRuns() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "history")
	defer os.RemoveAll(dir)
	hist := filepath.Join(dir, "runs.duckdb")
	plan, err := tablegate.Compile(ctx, tablegate.NewSchema("orders", tablegate.Float64("amount").Min(0)))
	if err != nil {
		log.Fatal(err)
	}
	eng, err := tablegate.Open(tablegate.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	for _, amounts := range []string{"(1.0::DOUBLE), (2.0)", "(1.0::DOUBLE), (-2.0)"} {
		in := tablegate.FromQuery("SELECT * FROM (VALUES " + amounts + ") t(amount)")
		_, _ = eng.Validate(ctx, plan, in, nil, tablegate.Options{History: hist})
	}
	runs, err := tablegate.HistoryRuns(ctx, hist, tablegate.HistoryFilter{Asset: "orders"})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range runs {
		fmt.Println(r.Asset, r.Outcome, r.Rows.Invalid, "invalid")
	}
	checks, err := tablegate.HistoryChecks(ctx, hist, tablegate.HistoryFilter{Check: "dy_rule__amount__min"})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range checks {
		fmt.Println(c.Check, c.Failed)
	}
	// Output:
	// orders aborted 1 invalid
	// orders all_valid 0 invalid
	// dy_rule__amount__min [0 1]
}

// Spell counts, values and shares as the HTML page and the CLI's text do, and suggest the name a
// mistyped one meant.
func ExampleFormatCount() {
	fmt.Println(tablegate.FormatCount(1234567))
	fmt.Println(tablegate.FormatNumber(1234.5))
	fmt.Println(tablegate.FormatPercent(0.0125), tablegate.FormatPercent(0.00001))
	fmt.Println(tablegate.FormatValues([]tablegate.ValueCount{{Value: []byte("-1"), Count: 2}, {Value: []byte(`"x"`), Count: 1}}))
	fmt.Println(tablegate.Nearest("quarantne", []string{"quarantine", "query"}))
	// Output:
	// 1,234,567
	// 1,234.5
	// 1.25% <0.01%
	// -1 (2 rows), "x" (1 row)
	// quarantine
}

// A report file that is the same file as the run's data is refused before anything is read or
// written.
func ExampleCheckReportFiles() {
	opts := tablegate.Options{HTML: "orders.parquet"}
	err := tablegate.CheckReportFiles(tablegate.FromParquet("landing/x.parquet"), tablegate.ToParquet("orders.parquet"), opts)
	var refused *tablegate.ReportFileError
	fmt.Println(errors.As(err, &refused))
	fmt.Println(err)
	// Output:
	// true
	// Options.HTML orders.parquet is the same file as the table orders.parquet: writing it would overwrite that; give another path (nothing was read or written)
}

// A schema file's declaration problems come at once, its custom SQL's among them.
func ExampleLoadSchemaContext() {
	dir, _ := os.MkdirTemp("", "schema")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "orders.yaml")
	yaml := "schema: orders\ncolumns:\n  - {name: amount, type: Float64, min: x}\n  - {name: status, type: String, check: {known: {sql: \"_ IN ('a'\"}}}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		log.Fatal(err)
	}
	_, err := tablegate.LoadSchemaContext(context.Background(), path)
	var errs *tablegate.SchemaErrors
	if errors.As(err, &errs) {
		for _, p := range errs.Problems {
			fmt.Println(strings.ReplaceAll(p.Error(), dir, "DIR"))
		}
	}
	// Output:
	// DIR/orders.yaml:3: orders, column 'amount', key 'min': "x" is not a number
	// DIR/orders.yaml:4: orders, column 'status', key 'check__known': check check__known: not a single SQL expression: syntax error at or near "AS"
}

// Read the addresses that name a catalog table and a data file's format.
func ExampleParseCatalogOutput() {
	out, ok, err := tablegate.ParseCatalogOutput("delta:spark_catalog.sales.orders")
	fmt.Println(out.Format, out.Catalog, out.Namespace, out.Table, ok, err)
	fmt.Println(tablegate.DataExt("landing/orders.csv.gz"))
	// Output:
	// delta spark_catalog sales orders true <nil>
	// .csv
}

// Write a schema file whole, without replacing one that exists.
func ExampleWriteFile() {
	dir, _ := os.MkdirTemp("", "write")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "orders.yaml")
	fmt.Println(tablegate.WriteFile(path, []byte("schema: orders\ncolumns: []\n"), false))
	err := tablegate.WriteFile(path, []byte("schema: other\ncolumns: []\n"), false)
	fmt.Println(errors.Is(err, os.ErrExist))
	// Output:
	// <nil>
	// true
}
