//go:build duckdb_arrow

// Command etl shows tablegate inside Go ETL: an extract arrives as Arrow record batches (here
// built in memory, as a warehouse client would hand them over), is validated with Filter, the
// valid rows go on to the next stage as Arrow, and the invalid rows are written to a quarantine.
//
//	go run -tags duckdb_arrow ./examples/etl
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/tablegate/tablegate"
	_ "github.com/tablegate/tablegate/engines/duckdb" // the DuckDB engine, which tablegate.Open opens
)

func main() {
	outDir := "out"
	if len(os.Args) > 1 {
		outDir = os.Args[1]
	}
	if err := run(context.Background(), outDir); err != nil {
		fmt.Fprintln(os.Stderr, "etl:", err)
		os.Exit(1)
	}
}

// extract stands in for a warehouse client returning Arrow batches.
func extract() (array.RecordReader, error) {
	mem := memory.NewGoAllocator()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "customer_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "email", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "balance", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	ids := []int64{1, 2, 3, 4, 4, 6}
	emails := []string{"ann@example.com", "BOB@EXAMPLE.COM", "", "dee@example.com", "eve@example.com", "fay@example.com"}
	balances := []float64{120.5, 80, 15, -3, 42, 7.25}
	b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
	b.Field(1).(*array.StringBuilder).AppendValues(emails, []bool{true, true, false, true, true, true})
	b.Field(2).(*array.Float64Builder).AppendValues(balances, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewRecordReader(sc, []arrow.RecordBatch{rec})
}

func run(ctx context.Context, outDir string) error {
	customers := tablegate.NewSchema("Customers",
		tablegate.Int64("customer_id").PrimaryKey(),
		tablegate.String("email").Nullable().Check("lowercase", "lower(_) = _"),
		tablegate.Float64("balance").Min(0),
	)
	plan, err := tablegate.Compile(ctx, customers)
	if err != nil {
		return err
	}
	eng, err := tablegate.Open(tablegate.Config{})
	if err != nil {
		return err
	}
	defer eng.Close()

	reader, err := extract()
	if err != nil {
		return err
	}
	filtered, err := eng.Filter(ctx, plan, tablegate.FromArrow(reader, "customers extract"), tablegate.FilterOptions{})
	if err != nil {
		return err
	}
	defer filtered.Close()
	fmt.Printf("%d rows in, %d valid, %d invalid\n", filtered.Rows.Input, filtered.Rows.Valid, filtered.Rows.Invalid)
	for _, c := range filtered.Checks {
		if !c.Passed {
			fmt.Printf("  %s failed %d rows\n", c.Name, c.Failed)
		}
	}

	// The next stage gets the valid rows as Arrow, without a round trip through files.
	var total float64
	for filtered.Valid.Next() {
		col := filtered.Valid.RecordBatch().Column(2).(*array.Float64)
		for i := 0; i < col.Len(); i++ {
			total += col.Value(i)
		}
	}
	if err := filtered.Valid.Err(); err != nil {
		return err
	}
	fmt.Printf("next stage: total balance of valid customers %.2f\n", total)

	// The invalid rows, with one valid/invalid column per rule, go to the quarantine.
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(outDir, "customers_quarantine.parquet")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := pqarrow.NewFileWriter(filtered.Invalid.Schema(), f, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	for filtered.Invalid.Next() {
		if err := w.WriteBuffered(filtered.Invalid.RecordBatch()); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Println("quarantine written to", path)
	return filtered.Invalid.Err()
}
