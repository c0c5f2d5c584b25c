package duckdb_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// Validate a Parquet file and keep the invalid rows apart in a quarantine.
func ExampleEngine_Run() {
	dir, _ := os.MkdirTemp("", "tablegate-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	orders := schema.New("Orders",
		schema.String("order_id").PrimaryKey().Regex(`^ORD-\d{4}$`),
		schema.Float64("amount").Min(0),
	)
	plan, err := compile.Compile(orders)
	if err != nil {
		panic(err)
	}
	eng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	// Some data to validate: one negative amount.
	input := filepath.Join(dir, "raw.parquet")
	_ = eng.WriteQuery(ctx, `SELECT * FROM (VALUES ('ORD-0001', 10.0::DOUBLE), ('ORD-0002', -1.0), ('ORD-0003', 5.5)) t(order_id, amount)`,
		runner.ParquetOutput{Path: input})

	rep, err := eng.Run(ctx, runner.Asset{
		Plan:       plan,
		Input:      runner.ParquetInput{Path: input},
		Output:     runner.ParquetOutput{Path: filepath.Join(dir, "orders.parquet")},
		Quarantine: true,
	}, runner.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(*rep.Outcome, rep.Rows.Valid, "valid,", rep.Rows.Invalid, "invalid")
	for _, c := range rep.Checks {
		if !c.Passed {
			fmt.Println(c.Name, c.Severity, c.Failed)
		}
	}
	// Output:
	// quarantined 2 valid, 1 invalid
	// dy_rule__amount__min ERROR 1
}

// Without a quarantine, one invalid row aborts the run and nothing is written.
func ExampleEngine_Run_abort() {
	ctx := context.Background()
	plan, _ := compile.Compile(schema.New("Orders", schema.Float64("amount").Min(0)))
	eng, _ := duckdb.Open(duckdb.Config{})
	defer eng.Close()
	_, err := eng.Run(ctx, runner.Asset{
		Plan:  plan,
		Input: runner.QueryInput{SQL: "SELECT -1.0::DOUBLE AS amount UNION ALL SELECT 2.0"},
	}, runner.Options{})
	var abort *outcome.ValidationAbortError
	if errors.As(err, &abort) {
		fmt.Println(abort.Invalid, abort.Counts[0].Rule)
	}
	// Output: 1 amount|min
}
