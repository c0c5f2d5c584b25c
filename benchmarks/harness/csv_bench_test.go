package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// BenchmarkCSVInput measures a counts-only validation of bench15 over a CSV file (the generated
// data, exported with a header; its time is ns/op) and, in the same iterations, its floor:
// DuckDB reading the file into a temp table with the types it detects itself. It reports
// csv/floor: what reading the declared columns as text, finding the first value that does not
// read as its dtype (the run's clear error, naming its line) and casting the others strictly
// adds to DuckDB's own reading, plus the rules. The two take turns, in reverse order every
// other iteration.
func BenchmarkCSVInput(b *testing.B) {
	d := generate(b)
	ctx := context.Background()
	plan := benchPlan(b, 15)
	eng, err := openEngine()
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	csv := filepath.Join(dataDir, "data.csv")
	if _, err := os.Stat(csv); err != nil {
		if _, err := eng.DB().ExecContext(ctx, fmt.Sprintf("COPY (SELECT * FROM read_parquet('%s')) TO '%s' (HEADER)", d.parquet, csv)); err != nil {
			b.Fatal(err)
		}
	}
	conn, err := eng.DB().Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	floor := func() error {
		_, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE floor AS SELECT * FROM read_csv('%s')", csv))
		return errors.Join(err, func() error { _, err := conn.ExecContext(ctx, "DROP TABLE floor"); return err }())
	}
	counts := func() error {
		rep, err := eng.Run(ctx, runner.Asset{Plan: plan, Input: runner.CSVInput{Path: csv}}, runner.Options{MaxFailureSamples: -1})
		var abort *outcome.ValidationAbortError
		if !errors.As(err, &abort) {
			return fmt.Errorf("counts-only: want the aborted outcome, got %v", err)
		}
		if rep.Rows.Input != d.rows {
			return fmt.Errorf("counts-only: read %d rows of %d", rep.Rows.Input, d.rows)
		}
		return nil
	}
	if err := errors.Join(floor(), counts()); err != nil { // warm up, and check
		b.Fatal(err)
	}
	steps := [2]func() error{floor, func() error {
		b.StartTimer()
		defer b.StopTimer()
		return counts()
	}}
	var took [2]time.Duration
	b.StopTimer()
	b.ResetTimer()
	for i := range b.N {
		order := []int{0, 1}
		if i%2 == 1 {
			order = []int{1, 0}
		}
		for _, s := range order {
			start := time.Now()
			if err := steps[s](); err != nil {
				b.Fatal(err)
			}
			took[s] += time.Since(start)
		}
	}
	b.ReportMetric(float64(took[0].Nanoseconds())/float64(b.N), "floor-ns/op")
	b.ReportMetric(took[1].Seconds()/took[0].Seconds(), "csv/floor")
}
