// Package benchmarks holds tablegate's Go benchmarks: the compiler, and validation measured in
// process against the floor (a plain DuckDB copy of the same columns) in the same run, as
// ratios. The harness (benchmarks/harness) measures whole processes over the full grid; these
// are for comparing two builds with benchstat:
//
//	go test ./benchmarks -run '^$' -bench . -count 6 | tee new.txt   # -bench.rows 10000000 for 10M
//	benchstat old.txt new.txt
package benchmarks

import (
	"context"
	gosql "database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/exec"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/sample"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

var benchRows = flag.Int64("bench.rows", 1_000_000, "rows of generated data for BenchmarkValidate")

// ruleSets are the harness's rule sets, by rule count.
var ruleSets = []int{5, 15, 40}

func loadPlan(tb testing.TB, rules int) *compile.Plan {
	tb.Helper()
	s, err := schema.LoadFile(fmt.Sprintf("schemas/bench%d.yaml", rules))
	if err != nil {
		tb.Fatal(err)
	}
	p, err := compile.Compile(s)
	if err != nil {
		tb.Fatal(err)
	}
	if len(p.Rules) != rules {
		tb.Fatalf("bench%d.yaml compiles to %d rules", rules, len(p.Rules))
	}
	return p
}

// BenchmarkCompile measures compiling each rule set from its parsed schema.
func BenchmarkCompile(b *testing.B) {
	for _, rules := range ruleSets {
		b.Run(fmt.Sprintf("%d_rules", rules), func(b *testing.B) {
			s, err := schema.LoadFile(fmt.Sprintf("schemas/bench%d.yaml", rules))
			if err != nil {
				b.Fatal(err)
			}
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
	gen, err := schema.LoadFile("schemas/bench40.yaml")
	if err != nil {
		b.Fatal(err)
	}
	q, _, err := sample.Query(gen, sample.Spec{Rows: d.rows, InvalidRate: 0.03, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	eng, err := exec.Open(exec.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()
	if err := eng.WriteQuery(ctx, q, exec.ParquetOutput{Path: d.parquet}); err != nil {
		b.Fatal(err)
	}
	load := fmt.Sprintf("SELECT * FROM read_parquet(%s)", sql.String(d.parquet))
	if err := eng.WriteQuery(ctx, load, exec.TableOutput{File: d.dbFile, Table: "t"}); err != nil {
		b.Fatal(err)
	}
	data = d
	return d
}

// storage is one cell's input, output and floor.
type storage struct {
	name   string
	input  exec.Input
	output func(dir string) exec.Output
	// floor is the plain copy's statements, for an output folder.
	floor func(dir, columns string) []string
}

func storages(d *benchData) []storage {
	return []storage{{
		name:   "parquet",
		input:  exec.ParquetInput{Path: d.parquet},
		output: func(dir string) exec.Output { return exec.ParquetOutput{Path: filepath.Join(dir, "orders.parquet")} },
		floor: func(dir, columns string) []string {
			return []string{fmt.Sprintf("COPY (SELECT %s FROM read_parquet(%s)) TO %s (FORMAT parquet)",
				columns, sql.String(d.parquet), sql.String(filepath.Join(dir, "floor.parquet")))}
		},
	}, {
		name:  "duckdb",
		input: exec.TableInput{File: d.dbFile, Table: "t"},
		output: func(dir string) exec.Output {
			return exec.TableOutput{File: filepath.Join(dir, "out.duckdb"), Table: "orders"}
		},
		floor: func(dir, columns string) []string {
			return []string{
				fmt.Sprintf("ATTACH %s AS floor_src (READ_ONLY)", sql.String(d.dbFile)),
				fmt.Sprintf("ATTACH %s AS floor_dst", sql.String(filepath.Join(dir, "floor.duckdb"))),
				fmt.Sprintf("CREATE TABLE floor_dst.main.orders AS SELECT %s FROM floor_src.main.t", columns),
				"DETACH floor_src",
				"DETACH floor_dst",
			}
		},
	}}
}

// BenchmarkValidate measures a full validation (valid rows, quarantine and counts; its time is
// ns/op) and, in the same iterations, the floor and a counts-only validation (no outputs). It
// reports their times and the ratios full/floor and counts/floor, as the harness states its
// targets. The three take turns, in reverse order every other iteration, so that the machine's
// drift reaches them alike. The first iteration checks the results: every input row is valid or
// quarantined, some are invalid, and the full run finds the same failures per rule as the
// counts-only run.
func BenchmarkValidate(b *testing.B) {
	d := generate(b)
	ctx := context.Background()
	for _, st := range storages(d) {
		for _, rules := range ruleSets {
			b.Run(fmt.Sprintf("%s/%d_rules", st.name, rules), func(b *testing.B) {
				plan := loadPlan(b, rules)
				eng, err := exec.Open(exec.Config{})
				if err != nil {
					b.Fatal(err)
				}
				defer eng.Close()
				columns := make([]string, len(plan.Columns))
				for i, c := range plan.Columns {
					columns[i] = sql.Ident(c.Name)
				}
				floorDir, outDir := b.TempDir(), b.TempDir()
				floorSQL := st.floor(floorDir, strings.Join(columns, ", "))
				var want map[string]int64 // the counts-only run's failures per rule
				steps := [3]func(check bool) error{
					func(bool) error { return runFloor(ctx, eng.DB(), floorSQL) },
					func(check bool) error {
						rep, err := eng.Run(ctx, exec.Asset{Plan: plan, Input: st.input}, exec.Options{MaxFailureSamples: -1})
						var abort *outcome.ValidationAbortError
						if !errors.As(err, &abort) {
							return fmt.Errorf("counts-only: want the aborted outcome, got %v", err)
						}
						if check {
							if rep.Rows.Input != d.rows || rep.Rows.Invalid == 0 {
								return fmt.Errorf("counts-only: want %d input rows, some invalid; got %+v", d.rows, rep.Rows)
							}
							want = ruleCounts(rep)
						}
						return nil
					},
					func(check bool) error {
						b.StartTimer()
						rep, err := eng.Run(ctx, exec.Asset{Plan: plan, Input: st.input, Output: st.output(outDir), Quarantine: true}, exec.Options{MaxFailureSamples: -1})
						b.StopTimer()
						if err != nil {
							return fmt.Errorf("full: %w", err)
						}
						if check {
							return checkFull(rep, d.rows, want)
						}
						return nil
					},
				}
				var took [3]time.Duration
				b.ResetTimer()
				b.StopTimer()
				for i := 0; i < b.N; i++ {
					order := []int{0, 1, 2} // counts-only before full: the check compares them
					if i%2 == 1 {
						order = []int{2, 1, 0}
					}
					for _, s := range order {
						start := time.Now()
						if err := steps[s](i == 0); err != nil {
							b.Fatal(err)
						}
						took[s] += time.Since(start)
					}
					// Each iteration writes fresh outputs, as the harness's runs do.
					for _, dir := range []string{floorDir, outDir} {
						if err := emptyDir(dir); err != nil {
							b.Fatal(err)
						}
					}
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

// runFloor runs the floor's statements on one connection of the engine's database.
func runFloor(ctx context.Context, db *gosql.DB, stmts []string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("floor: %w", err)
		}
	}
	return nil
}

// ruleCounts is a report's failing rows per rule check.
func ruleCounts(rep *outcome.Report) map[string]int64 {
	m := map[string]int64{}
	for _, c := range rep.Checks {
		if n, ok := c.Metadata["dy_failed_count"].(int64); ok {
			m[c.Name] = n
		}
	}
	return m
}

// checkFull checks a full run's report against the input's rows and the counts-only run's
// failures per rule.
func checkFull(rep *outcome.Report, rows int64, want map[string]int64) error {
	switch {
	case rep.Outcome == nil || *rep.Outcome != outcome.Quarantined:
		return fmt.Errorf("full: want the quarantined outcome, got %v", rep.Outcome)
	case rep.Rows.Valid+rep.Rows.Invalid != rows || rep.Rows.Invalid == 0 || rep.Quarantine.Rows != rep.Rows.Invalid:
		return fmt.Errorf("full: %d input rows, got %+v and a quarantine of %d", rows, rep.Rows, rep.Quarantine.Rows)
	}
	got := ruleCounts(rep)
	if len(got) == 0 || len(got) != len(want) {
		return fmt.Errorf("full: %d rule counts, counts-only had %d", len(got), len(want))
	}
	for name, n := range got {
		if want[name] != n {
			return fmt.Errorf("full: %s failed %d rows, counts-only %d", name, n, want[name])
		}
	}
	return nil
}

// emptyDir removes what a folder holds.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
