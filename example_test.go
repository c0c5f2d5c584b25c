package tablegate_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/tablegate/tablegate"
	_ "github.com/tablegate/tablegate/engines/duckdb" // registers the DuckDB engine
)

// Validate the shipped orders file against its schema file, keeping the invalid rows apart in a
// quarantine. The README's Go section is this example.
func Example() {
	ctx := context.Background()
	orders, err := tablegate.LoadSchema("examples/orders/orders.yaml")
	if err != nil {
		log.Fatal(err) // every declaration problem at once, with file and line
	}
	plan, err := tablegate.Compile(ctx, orders)
	if err != nil {
		log.Fatal(err)
	}
	eng, err := tablegate.Open(tablegate.Config{}) // in-memory DuckDB; tablegate.New(db) wraps your *sql.DB
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()

	out, _ := os.MkdirTemp("", "orders")
	defer os.RemoveAll(out)
	res, err := eng.Validate(ctx, plan,
		tablegate.FromParquet("examples/orders/orders.parquet"),
		tablegate.ToParquet(filepath.Join(out, "orders.parquet")),
		tablegate.Options{Quarantine: true})
	var noValid *tablegate.NoValidRowsError
	if errors.As(err, &noValid) { // the errors are typed
		log.Fatalf("every row failed; they are in %s", noValid.Quarantine)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Outcome, res.Rows.Valid, "valid,", res.Quarantine.Rows, "quarantined")
	for _, c := range res.Checks {
		if !c.Passed {
			fmt.Println(c.Severity, c.Name, c.Failed)
		}
	}
	// Output:
	// quarantined 8 valid, 8 quarantined
	// WARN dy_rule__amount_is_rounded 2
	// ERROR dy_rule__paid_orders_have_amount 2
	// ERROR dy_rule__primary_key 2
	// WARN dy_rule__order_id__regex 1
	// ERROR dy_rule__customer_id__nullability 1
	// ERROR dy_rule__amount__min 1
	// ERROR dy_rule__status__is_in 1
	// ERROR dy_rule__email__check__lowercase 1
	// WARN dy_rule__note__max_length 1
	// ERROR dy_rule__placed_at__min 1
}

// Build a schema in Go. Without a quarantine, one invalid row aborts the run and nothing is
// written.
func Example_builder() {
	ctx := context.Background()
	orders := tablegate.NewSchema("Orders",
		tablegate.String("order_id").PrimaryKey().Regex(`^ORD-\d{4}$`).SeverityOf("regex", tablegate.Warn),
		tablegate.Float64("amount").Min(0),
	).AddRule("amount_is_rounded", "round(amount * 100) = amount * 100")
	plan, err := tablegate.Compile(ctx, orders)
	if err != nil {
		log.Fatal(err)
	}
	eng, err := tablegate.Open(tablegate.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()

	rows := tablegate.FromQuery(`SELECT * FROM (VALUES ('ORD-0001', 10.0::DOUBLE), ('ORD-2', -1.5), ('ORD-0003', 2.125)) t(order_id, amount)`)
	res, err := eng.Validate(ctx, plan, rows, nil, tablegate.Options{}) // no output: validate in place
	var abort *tablegate.ValidationAbortError
	if !errors.As(err, &abort) {
		log.Fatal(err)
	}
	fmt.Println(res.Outcome, abort.Invalid, "invalid rows, table written:", res.Table.Written)
	for _, c := range res.Checks {
		if !c.Passed {
			fmt.Println(c.Severity, c.Name, c.Failed, string(c.Samples[0]))
		}
	}
	// Output:
	// aborted 2 invalid rows, table written: false
	// ERROR dy_rule__amount_is_rounded 1 {"order_id":"ORD-0003","amount":2.125}
	// WARN dy_rule__order_id__regex 1 {"order_id":"ORD-2","amount":-1.5}
	// ERROR dy_rule__amount__min 1 {"order_id":"ORD-2","amount":-1.5}
}
