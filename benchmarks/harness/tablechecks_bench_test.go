package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// fiveTableChecks are the table checks BenchmarkTableChecks adds to bench15: volume, freshness,
// a bounded metric, an anomaly metric and the invalid share.
func fiveTableChecks() []*schema.TableCheck {
	return []*schema.TableCheck{
		schema.Condition("enough_rows", "count(*) >= 1000"),
		schema.Condition("fresh", "max(created_at) >= TIMESTAMP '2020-01-01'"),
		schema.Metric("amount_mean", "avg(amount) FILTER (WHERE isfinite(amount))").Min(-1e9).Max(1e9),
		schema.Metric("volume", "count(*)").Anomaly(schema.Anomaly{}),
		schema.Condition("few_invalid", "invalid_rows() <= 0.5 * count(*)"),
	}
}

// BenchmarkTableChecks measures what five table checks, and a reference of 1M keys, cost a full
// run of bench15 on Parquet: the floor (a plain copy), the full run without them, with the table
// checks and with the reference take turns in the same iterations, in reverse order every other
// one. It reports each over the run without and over the floor.
//
//	go test ./benchmarks/harness -run '^$' -bench TableChecks -benchtime 6x -bench.rows 2000000 -timeout 0
func BenchmarkTableChecks(b *testing.B) {
	d := generate(b)
	ctx := context.Background()
	st := storages(d)[0]
	plain := benchPlan(b, 15)
	s, err := schema.LoadFile(ruleSetFile(15))
	if err != nil {
		b.Fatal(err)
	}
	withChecks, err := compile.Compile(s.AddTableCheck(fiveTableChecks()...))
	if err != nil {
		b.Fatal(err)
	}
	eng, err := openEngine()
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	// The reference: every customer of the data, padded with absent ones to 1M keys.
	refFile := filepath.Join(b.TempDir(), "customers.parquet")
	if err := eng.WriteQuery(ctx, fmt.Sprintf(`SELECT id FROM (SELECT DISTINCT customer_id AS id FROM read_parquet(%[1]s) WHERE customer_id IS NOT NULL
		UNION ALL SELECT -1 - range FROM range(1000000)) LIMIT 1000000`, sqlString(d.parquet)), runner.ParquetOutput{Path: refFile}); err != nil {
		b.Fatal(err)
	}
	s2, err := schema.LoadFile(ruleSetFile(15))
	if err != nil {
		b.Fatal(err)
	}
	s2.Column("customer_id").References(refFile, "id")
	withRef, err := compile.Compile(s2)
	if err != nil {
		b.Fatal(err)
	}
	floorDir, outDir := b.TempDir(), b.TempDir()
	full := func(p *compile.Plan) func() error {
		return func() error {
			rep, err := eng.Run(ctx, runner.Asset{Plan: p, Input: st.input, Output: st.output(parseTarget(outPath(outDir, st.name, "orders"))), Quarantine: true},
				runner.Options{MaxFailureSamples: -1})
			if err != nil {
				return fmt.Errorf("full: %w", err)
			}
			if *rep.Outcome != outcome.Quarantined {
				return fmt.Errorf("full: outcome %s", *rep.Outcome)
			}
			return nil
		}
	}
	steps := [4]func() error{func() error { return copyFloor(st, plain, floorDir) }, full(plain), full(withChecks), full(withRef)}
	clean := func() {
		cleanOutputs(floorDir)
		cleanOutputs(outDir)
	}
	// Warm up, and check both runs succeed.
	for _, s := range steps {
		clean()
		if err := s(); err != nil {
			b.Fatal(err)
		}
	}
	clean()
	var took [4]time.Duration
	b.ResetTimer()
	for i := range b.N {
		order := []int{0, 1, 2, 3}
		if i%2 == 1 {
			order = []int{3, 2, 1, 0}
		}
		for _, k := range order {
			start := time.Now()
			if err := steps[k](); err != nil {
				b.Fatal(err)
			}
			took[k] += time.Since(start)
			clean()
		}
	}
	b.StopTimer()
	b.ReportMetric(took[2].Seconds()/took[1].Seconds(), "with/without")
	b.ReportMetric(took[1].Seconds()/took[0].Seconds(), "without/floor")
	b.ReportMetric(took[2].Seconds()/took[0].Seconds(), "with/floor")
	b.ReportMetric(took[3].Seconds()/took[1].Seconds(), "ref/without")
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
