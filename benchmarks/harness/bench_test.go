// The Go benchmarks: the compiler, and validation measured in process against the harness's
// floor (a plain DuckDB copy of the same columns) in the same run, as ratios. The harness itself
// measures whole processes over the full grid; these are for comparing two builds with
// benchstat:
//
//	go test ./benchmarks/harness -run '^$' -bench . -benchtime 4x -count 6 -timeout 0 | tee new.txt   # -bench.rows 10000000: 10M
//	benchstat old.txt new.txt

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/sample"
	"github.com/tablegate/tablegate/schema"
)

var benchRows = flag.Int64("bench.rows", 1_000_000, "rows of generated data for BenchmarkValidate")

// ruleSets are the harness's rule sets, by rule count.
var ruleSets = []int{5, 15, 40}

// ruleSetFile is the harness's rule set with this many rules.
func ruleSetFile(rules int) string { return fmt.Sprintf("../schemas/bench%d.yaml", rules) }

// benchPlan compiles the rule set with this many rules (loadPlan).
func benchPlan(tb testing.TB, rules int) *compile.Plan {
	tb.Helper()
	p, err := loadPlan(ruleSetFile(rules))
	if err != nil {
		tb.Fatal(err)
	}
	if len(p.Rules) != rules {
		tb.Fatalf("%s compiles to %d rules", ruleSetFile(rules), len(p.Rules))
	}
	return p
}

// BenchmarkCompile measures compiling each rule set from its parsed schema.
func BenchmarkCompile(b *testing.B) {
	for _, rules := range ruleSets {
		b.Run(fmt.Sprintf("%d_rules", rules), func(b *testing.B) {
			s, err := schema.LoadFile(ruleSetFile(rules))
			if err != nil {
				b.Fatal(err)
			}
			// The first compile sets up DuckDB's parser for custom SQL, once per process.
			benchPlan(b, rules)
			b.ReportAllocs()
			for b.Loop() {
				p, err := compile.Compile(s)
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Rules) != rules {
					b.Fatalf("%d rules, want %d", len(p.Rules), rules)
				}
			}
		})
	}
}

// benchData is the generated input: the harness's data (bench40's columns, 3% of rows breaking
// a rule, seed 1) as a Parquet file and as a table of a DuckDB file.
type benchData struct {
	parquet string
	dbFile  string
	rows    int64
}

// data is the input once generated; dataDir holds it, removed when the benchmarks end.
var (
	data    *benchData
	dataDir string
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if dataDir != "" {
		os.RemoveAll(dataDir)
	}
	os.Exit(code)
}

// generate makes the input once per process.
func generate(b *testing.B) *benchData {
	b.Helper()
	if data != nil {
		return data
	}
	dir, err := os.MkdirTemp("", "tablegate-gobench-")
	if err != nil {
		b.Fatal(err)
	}
	dataDir = dir
	d := &benchData{parquet: filepath.Join(dir, "data.parquet"), dbFile: filepath.Join(dir, "data.duckdb"), rows: *benchRows}
	gen, err := schema.LoadFile(ruleSetFile(40))
	if err != nil {
		b.Fatal(err)
	}
	q, _, err := sample.Query(gen, sample.Spec{Rows: d.rows, InvalidRate: 0.03, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	eng, err := openEngine()
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()
	if err := eng.WriteQuery(ctx, q, runner.ParquetOutput{Path: d.parquet}); err != nil {
		b.Fatal(err)
	}
	if err := loadMain([]string{d.parquet, d.dbFile}); err != nil {
		b.Fatal(err)
	}
	data = d
	return d
}

// openEngine opens an engine that spills into the data's folder, not the working directory.
func openEngine() (*duckdb.Engine, error) {
	return duckdb.Open(duckdb.Config{TempDirectory: filepath.Join(dataDir, "spill")})
}

// storage is one cell's input, and how the engine writes to an output address (outPath).
type storage struct {
	name   string // the harness's storage name
	in     string // the input's address, as the harness takes it
	input  runner.Input
	output func(out target) runner.Output
}

func storages(d *benchData) []storage {
	return []storage{{
		name:   "parquet",
		in:     d.parquet,
		input:  runner.ParquetInput{Path: d.parquet},
		output: func(out target) runner.Output { return runner.ParquetOutput{Path: out.file} },
	}, {
		name:   "duckdb",
		in:     d.dbFile + ":t",
		input:  runner.TableInput{File: d.dbFile, Table: "t"},
		output: func(out target) runner.Output { return runner.TableOutput{File: out.file, Table: out.table} },
	}}
}

// BenchmarkValidate measures a full validation (valid rows, quarantine and counts; its time is
// ns/op) and, in the same iterations, the floor and a counts-only validation (no outputs). It
// reports their times and the ratios full/floor and counts/floor, as the harness states its
// targets. The three take turns, in reverse order every other iteration, so that the machine's
// drift reaches them alike (an even -benchtime Nx balances the two orders). An untimed pass
// first warms the engine up and checks the results: the outputs hold the valid and the invalid
// rows the report counts, some rows are invalid, the floor copied every row, and the full run
// finds the same failures per rule as the counts-only run.
func BenchmarkValidate(b *testing.B) {
	d := generate(b)
	ctx := context.Background()
	for _, st := range storages(d) {
		for _, rules := range ruleSets {
			b.Run(fmt.Sprintf("%s/%d_rules", st.name, rules), func(b *testing.B) {
				plan := benchPlan(b, rules)
				eng, err := openEngine()
				if err != nil {
					b.Fatal(err)
				}
				defer eng.Close()
				// The floor and the full run write to folders of their own, as the harness lays
				// out its outputs (outPath, cleanOutputs).
				floorDir, outDir := b.TempDir(), b.TempDir()
				floor := func() error { return copyFloor(st, plan, floorDir) }
				counts := func() (*outcome.Report, error) {
					rep, err := eng.Run(ctx, runner.Asset{Plan: plan, Input: st.input}, runner.Options{MaxFailureSamples: -1})
					var abort *outcome.ValidationAbortError
					if !errors.As(err, &abort) {
						return nil, fmt.Errorf("counts-only: want the aborted outcome, got %v", err)
					}
					return rep, nil
				}
				full := func() (*outcome.Report, error) {
					rep, err := eng.Run(ctx, runner.Asset{Plan: plan, Input: st.input, Output: st.output(parseTarget(outPath(outDir, st.name, "orders"))), Quarantine: true}, runner.Options{MaxFailureSamples: -1})
					if err != nil {
						return nil, fmt.Errorf("full: %w", err)
					}
					return rep, nil
				}
				// Each run writes fresh outputs, as the harness's runs do.
				clean := func() {
					cleanOutputs(floorDir)
					cleanOutputs(outDir)
				}

				clean()
				if err := checkCell(ctx, st, d.rows, floorDir, outDir, floor, counts, full); err != nil {
					b.Fatal(err)
				}
				clean()

				steps := [3]func() error{
					floor,
					func() error { _, err := counts(); return err },
					func() error {
						b.StartTimer()
						_, err := full()
						b.StopTimer()
						return err
					},
				}
				var took [3]time.Duration
				b.StopTimer()
				b.ResetTimer()
				for i := range b.N {
					order := []int{0, 1, 2}
					if i%2 == 1 {
						order = []int{2, 1, 0}
					}
					for _, s := range order {
						start := time.Now()
						if err := steps[s](); err != nil {
							b.Fatal(err)
						}
						took[s] += time.Since(start)
					}
					clean()
				}
				n := float64(b.N)
				b.ReportMetric(float64(took[0].Nanoseconds())/n, "floor-ns/op")
				b.ReportMetric(float64(took[1].Nanoseconds())/n, "counts-ns/op")
				b.ReportMetric(took[2].Seconds()/took[0].Seconds(), "full/floor")
				b.ReportMetric(took[1].Seconds()/took[0].Seconds(), "counts/floor")
			})
		}
	}
}

// checkCell runs the floor, counts-only and full once and checks what they did: the floor
// copied every row; counts-only saw every row and some invalid; the full run quarantined, wrote
// as many valid and invalid rows as it reports, and found the same failures per rule.
func checkCell(ctx context.Context, st storage, rows int64, floorDir, outDir string,
	floor func() error, counts, full func() (*outcome.Report, error)) error {
	if err := floor(); err != nil {
		return err
	}
	if n, err := countRows(ctx, st.name, outPath(floorDir, st.name, "orders")); err != nil || n != rows {
		return fmt.Errorf("floor: copied %d rows of %d (%v)", n, rows, err)
	}
	c, err := counts()
	if err != nil {
		return err
	}
	if c.Rows.Input != rows || c.Rows.Invalid == 0 {
		return fmt.Errorf("counts-only: want %d input rows, some invalid; got %+v", rows, c.Rows)
	}
	f, err := full()
	if err != nil {
		return err
	}
	if f.Outcome == nil || *f.Outcome != outcome.Quarantined || !f.Table.Written || !f.Quarantine.Written {
		return fmt.Errorf("full: want the quarantined outcome with both outputs written, got %v, %+v, %+v", f.Outcome, f.Table, f.Quarantine)
	}
	if f.Rows != c.Rows {
		return fmt.Errorf("full: rows %+v, counts-only %+v", f.Rows, c.Rows)
	}
	for table, want := range map[string]int64{"orders": f.Rows.Valid, "orders_quarantine": f.Rows.Invalid} {
		if n, err := countRows(ctx, st.name, outPath(outDir, st.name, table)); err != nil || n != want {
			return fmt.Errorf("full: %s holds %d rows, the report says %d (%v)", table, n, want, err)
		}
	}
	got, want := ruleCounts(f), ruleCounts(c)
	if len(got) == 0 || len(got) != len(want) {
		return fmt.Errorf("full: %d rule counts, counts-only had %d", len(got), len(want))
	}
	for name, n := range got {
		if w, ok := want[name]; !ok || w != n {
			return fmt.Errorf("full: %s failed %d rows, counts-only %d", name, n, want[name])
		}
	}
	return nil
}

// copyFloor writes the floor to a folder, as the harness's floor process does (floorMain).
func copyFloor(st storage, plan *compile.Plan, dir string) error {
	out := parseTarget(outPath(dir, st.name, "orders"))
	db, rel, err := open(st.name, st.in, out)
	if err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	// Closing checkpoints the DuckDB file: part of the copy, as in the floor's process.
	if err := errors.Join(writeFloor(db, st.name, plan, rel, out), db.Close()); err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	return nil
}

// ruleCounts is a report's failing rows per rule (dy_rule), for the rules with a count.
func ruleCounts(rep *outcome.Report) map[string]int64 {
	m := map[string]int64{}
	for _, c := range rep.Checks {
		if c.Failed > 0 && c.Rule != "" {
			m[c.Rule] = c.Failed
		}
	}
	return m
}
