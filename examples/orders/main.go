// Command orders is tablegate's runnable example: it validates the shipped orders (16 rows, some
// broken on purpose) against the Orders schema, writes the valid rows and the quarantine, and
// prints the report: each check with the severity it is declared with (what its failure means),
// and whether it passed.
//
//	go run ./examples/orders            # writes out/orders.parquet and out/orders_quarantine.parquet
//	go run ./examples/orders -json      # the JSON report instead of the text summary
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tablegate/tablegate"
	_ "github.com/tablegate/tablegate/engines/duckdb" // the DuckDB engine, which tablegate.Open opens
)

//go:embed orders.yaml
var schemaYAML []byte

//go:embed orders.parquet
var ordersParquet []byte

func main() {
	outDir := flag.String("out", "out", "folder for the table and the quarantine")
	asJSON := flag.Bool("json", false, "print the JSON report")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *outDir, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "orders:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, outDir string, asJSON bool) error {
	s, err := tablegate.ParseSchema(schemaYAML, "orders.yaml")
	if err != nil {
		return err
	}
	plan, err := tablegate.Compile(ctx, s)
	if err != nil {
		return err
	}
	// DuckDB reads files, so the embedded data goes to a temporary file first.
	dir, err := os.MkdirTemp("", "tablegate-orders-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	input := filepath.Join(dir, "orders.parquet")
	if err := os.WriteFile(input, ordersParquet, 0o644); err != nil {
		return err
	}

	eng, err := tablegate.Open(tablegate.Config{})
	if err != nil {
		return err
	}
	defer eng.Close()
	res, err := eng.Validate(ctx, plan, tablegate.FromParquet(input), tablegate.ToParquet(filepath.Join(outDir, "orders.parquet")),
		tablegate.Options{Quarantine: true})
	var noValid *tablegate.NoValidRowsError
	if err != nil && !errors.As(err, &noValid) {
		return err
	}
	if asJSON {
		data, _ := json.MarshalIndent(res.Report, "", "  ")
		fmt.Fprintln(w, string(data))
		return nil
	}
	fmt.Fprintf(w, "%s: %s — %d rows in, %d valid to %s, %d invalid to %s (health %s)\n",
		res.Schema, res.Outcome, res.Rows.Input, res.Rows.Valid, res.Table.Address, res.Rows.Invalid, res.Quarantine.Address, res.Health)
	for _, c := range res.Checks {
		status := "pass"
		if !c.Passed {
			status = fmt.Sprintf("FAIL %d rows", c.Failed)
			if c.Failed == 1 {
				status = "FAIL 1 row"
			}
		}
		// The declared severity: what a failure means, passing or not (Severity is WARN on a
		// passing rule check, whatever its rules).
		fmt.Fprintf(w, "  %-5s %-38s %-14s %s\n", c.Declared, c.Name, status, c.Description)
	}
	fmt.Fprintln(w, "invalid rows by the rules they failed:")
	for _, s := range res.InvalidByRules {
		fmt.Fprintf(w, "  %d  %s\n", s.Count, s.Rules)
	}
	return nil
}
