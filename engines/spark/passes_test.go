package spark_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/engines/spark"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/sample"
	"github.com/tablegate/tablegate/schema"
)

var bench40Rows = flag.String("spark.bench40.rows", "1000000", "rows of BenchmarkBench40's inputs, comma-separated (a sub-benchmark each)")

// forSpark loads a benchmark schema with each custom SQL given the same text as its Spark form
// (the benchmark schemas' custom SQL means the same on both engines).
func forSpark(tb testing.TB, name string) *schema.Schema {
	tb.Helper()
	s, err := schema.LoadFile(filepath.Join("..", "..", "benchmarks", "schemas", name))
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range s.Rules {
		r.Spark = r.SQL
	}
	for _, c := range s.Columns {
		for i := range c.Args.Checks {
			c.Args.Checks[i].Spark = c.Args.Checks[i].SQL
		}
	}
	return s
}

// bench40Input writes the sample generator's bench40 data (10% invalid rows) and returns the plan.
func bench40Input(tb testing.TB, rows int64, path string) *compile.Plan {
	tb.Helper()
	s := forSpark(tb, "bench40.yaml")
	p, err := compile.Compile(s)
	if err != nil {
		tb.Fatal(err)
	}
	q, _, err := sample.Query(s, sample.Spec{Rows: rows, InvalidRate: 0.1, Seed: 3})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := duck(tb).Exec(fmt.Sprintf("COPY (%s) TO '%s' (FORMAT parquet)", q, path)); err != nil {
		tb.Fatal(err)
	}
	return p
}

// counting counts the statements a run sends to Spark: its round trips.
type counting struct {
	spark.Session
	n *atomic.Int64
}

func (c counting) Exec(ctx context.Context, q string) error {
	c.n.Add(1)
	return c.Session.Exec(ctx, q)
}

func (c counting) Rows(ctx context.Context, q string) ([][]any, error) {
	c.n.Add(1)
	return c.Session.Rows(ctx, q)
}

// passes is what one Spark run cost the cluster, from the driver's REST API.
type passes struct {
	jobs, stages, roundTrips int64
	inputRows                int64    // rows the run's stages read from files (inputRecords)
	reads                    []string // the stages that read rows, and how many
}

// measuredRun runs the asset on the shared cluster and reads from the Spark UI's REST API the
// jobs it ran and the rows its stages read from the input files.
func measuredRun(tb testing.TB, a runner.Asset) passes {
	tb.Helper()
	ctx := context.Background()
	before, err := server.Jobs(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	last := -1
	if len(before) > 0 {
		last = before[0].ID
	}
	var trips atomic.Int64
	eng := spark.NewWith(func(ctx context.Context) (spark.Session, error) {
		s, err := spark.Connect(ctx, server.Remote)
		return counting{s, &trips}, err
	})
	rep, err := eng.Run(ctx, a, runner.Options{})
	if rep.Outcome == nil {
		tb.Fatalf("Spark run: %v", err)
	}
	// The REST API is updated by a listener: wait until no job of the run is still running.
	var p passes
	var stageIDs map[int]bool
	for deadline := time.Now().Add(time.Minute); ; {
		jobs, err := server.Jobs(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		p, stageIDs = passes{roundTrips: trips.Load()}, map[int]bool{}
		running := false
		for _, j := range jobs {
			if j.ID <= last {
				continue
			}
			p.jobs++
			running = running || j.Status == "RUNNING"
			for _, s := range j.StageIDs {
				stageIDs[s] = true
			}
		}
		if !running || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	stages, err := server.Stages(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range stages {
		if stageIDs[s.ID] {
			p.stages++
			p.inputRows += s.InputRecords
			if s.InputRecords > 0 {
				p.reads = append(p.reads, fmt.Sprintf("stage %d: %d", s.ID, s.InputRecords))
			}
		}
	}
	return p
}

// passShapes are the schema shapes TestPasses runs, over passesData's columns: every way the key
// groups (primary key, unique columns, rules grouped by columns, whole-table aggregates) can
// aggregate the input, with and without outputs, on a file and on a directory of files.
var passShapes = []struct {
	name, columns, rules string
	out, quarantine      bool
	dir                  bool // the input is a directory of two files
}{
	{name: "no keys", columns: "", out: false},
	{name: "primary key, outputs", columns: "id: {primary_key: true}", out: true, quarantine: true},
	{name: "primary key, a directory of files", columns: "id: {primary_key: true}", dir: true},
	{name: "no keys, a directory of files, outputs", columns: "", out: true, quarantine: true, dir: true},
	{name: "one unique column, outputs", columns: "code: {unique: true}", out: true, quarantine: true},
	{name: "one group rule", rules: "  - {name: customer_total, sql: sum(amount) < 3000, spark: sum(amount) < 3000, group_by: [customer]}\n"},
	{name: "one whole-table aggregate, outputs", rules: "  - {name: total, sql: sum(amount) > 0, spark: sum(amount) > 0}\n", out: true, quarantine: true},
	{name: "three key groups", columns: "id: {primary_key: true}", rules: "  - {name: customer_total, sql: sum(amount) < 3000, spark: sum(amount) < 3000, group_by: [customer]}\n  - {name: total, sql: sum(amount) > 0, spark: sum(amount) > 0}\n"},
}

// passesData is TestPasses' input: 20,000 rows in row groups of 2,000 (so that both executors
// read), some ids and codes duplicated, some amounts negative.
const passesData = `SELECT CASE WHEN i % 997 = 0 THEN i - 1 ELSE i END AS id, 'K-' || CASE WHEN i % 1999 = 0 THEN i - 1 ELSE i END AS code,
  i % 1000 AS customer, CAST(i % 300 - 3 AS DOUBLE) AS amount FROM range(20000) t(i)`

// passesSchema is a shape's schema: id, code, customer and amount, the shape's column properties
// ("column: {…}; …") added to the columns' own, and its rules.
func passesSchema(columns, rules string) string {
	props := map[string]string{}
	for _, c := range strings.Split(columns, ";") {
		if name, p, ok := strings.Cut(strings.TrimSpace(c), ":"); ok {
			props[name] = strings.Trim(strings.TrimSpace(p), "{}") + ", "
		}
	}
	s := "schema: Shape\ncolumns:\n" +
		"  - {name: id, type: Int64, " + props["id"] + "min: 0}\n" +
		"  - {name: code, type: String, " + props["code"] + "regex: '^K-'}\n" +
		"  - {name: customer, type: Int64, " + props["customer"] + "nullable: true}\n" +
		"  - {name: amount, type: Float64, " + props["amount"] + "min: 0}\n"
	if rules != "" {
		s += "rules:\n" + rules
	}
	return s
}

// TestPasses reports, from the Spark UI's REST API, the jobs and the input rows one validation
// costs on the cluster, for every shape of key groups (passShapes) and for bench40, and fails when
// a run reads the input files more than twice.
func TestPasses(t *testing.T) {
	needCluster(t)
	const rows = 20000
	dir := t.TempDir()
	in, files := filepath.Join(dir, "in.parquet"), filepath.Join(dir, "files")
	writeSplittable(t, passesData, in)
	if err := os.Mkdir(files, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, where := range []string{"id < 10000", "id >= 10000"} {
		writeSplittable(t, fmt.Sprintf("SELECT * FROM (%s) WHERE %s", passesData, where), filepath.Join(files, fmt.Sprintf("part-%d.parquet", i)))
	}
	for i, shape := range passShapes {
		t.Run(shape.name, func(t *testing.T) {
			input := in
			if shape.dir {
				input = files
			}
			a := runner.Asset{Name: "t", Plan: plan(t, passesSchema(shape.columns, shape.rules)), Input: runner.ParquetInput{Path: input}}
			if shape.out {
				a.Output = runner.ParquetOutput{Path: filepath.Join(dir, fmt.Sprint("out", i), "t.parquet")}
				a.Quarantine = shape.quarantine
			}
			checkPasses(t, shape.name, measuredRun(t, a), rows)
		})
	}
	t.Run("bench40", func(t *testing.T) {
		const rows = 200000
		in := filepath.Join(dir, "bench40.parquet")
		p := bench40Input(t, rows, in)
		got := measuredRun(t, runner.Asset{Name: "t", Plan: p, Input: runner.ParquetInput{Path: in},
			Output: runner.ParquetOutput{Path: filepath.Join(dir, "out", "t.parquet")}, Quarantine: true})
		checkPasses(t, "bench40", got, rows)
	})
}

// checkPasses logs a run's cost and fails when its stages read the input files more than twice
// (maxScans) or fewer than once (then the REST API's counts are not the run's).
func checkPasses(t *testing.T, name string, got passes, rows int64) {
	t.Helper()
	t.Logf("%s, %d rows: %d jobs, %d stages, %d round trips, %d input rows read (%.2f scans of the input)",
		name, rows, got.jobs, got.stages, got.roundTrips, got.inputRows, float64(got.inputRows)/float64(rows))
	if got.inputRows < rows {
		t.Errorf("the stages read %d input rows, fewer than the input's %d: the REST API's counts are not the run's", got.inputRows, rows)
	}
	// A read of the cached rows counts one input record per cached batch (10,000 rows or fewer),
	// not per row: allow 1% of the rows for those.
	if limit := maxScans*rows + rows/100; got.inputRows > limit {
		t.Errorf("the stages read %d input rows, more than %d scans of the %d rows (%d with the cached batches' records): %s",
			got.inputRows, maxScans, rows, limit, strings.Join(got.reads, "; "))
	}
}

// maxScans bounds the full reads of the input files one validation may make: with key groups,
// their aggregates' and the cached rule columns'; the rows are counted from the cache.
const maxScans = 2

// BenchmarkBench40 validates bench40's sample data (10% invalid rows) with quarantine and output
// on DuckDB and on the shared Spark (a cluster with TABLEGATE_SPARK_WORKERS=2), at each size of
// -spark.bench40.rows; the Spark side reports its jobs, round trips and input scans per run. Run:
// TABLEGATE_SLOW=1 TABLEGATE_SPARK_WORKERS=2 go test -run '^$' -bench Bench40 -benchtime 1x
// -spark.bench40.rows 1000000,5000000.
func BenchmarkBench40(b *testing.B) {
	if server == nil {
		b.Skip("needs Spark: TABLEGATE_SLOW=1 and TABLEGATE_SPARK_HOME")
	}
	for _, n := range strings.Split(*bench40Rows, ",") {
		rows, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
		if err != nil || rows <= 0 {
			b.Fatalf("-spark.bench40.rows %q: want row counts, comma-separated", *bench40Rows)
		}
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) { bench40(b, rows) })
	}
}

func bench40(b *testing.B, rows int64) {
	dir := b.TempDir()
	in := filepath.Join(dir, "in.parquet")
	p := bench40Input(b, rows, in)
	asset := func(engine string, i int) runner.Asset {
		return runner.Asset{Name: "t", Plan: p, Input: runner.ParquetInput{Path: in}, Quarantine: true,
			Output: runner.ParquetOutput{Path: filepath.Join(dir, fmt.Sprintf("%s%d", engine, i), "t.parquet")}}
	}
	b.Run("duckdb", func(b *testing.B) {
		eng, err := duckdb.Open(duckdb.Config{})
		if err != nil {
			b.Fatal(err)
		}
		defer eng.Close()
		for i := 0; i < b.N; i++ {
			if rep, err := eng.Run(context.Background(), asset("duck", i), runner.Options{}); rep.Outcome == nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spark", func(b *testing.B) {
		var total passes
		for i := 0; i < b.N; i++ {
			if server.UI == "" {
				if rep, err := spark.New(server.Remote).Run(context.Background(), asset("spark", i), runner.Options{}); rep.Outcome == nil {
					b.Fatal(err)
				}
				continue
			}
			got := measuredRun(b, asset("spark", i))
			total.jobs += got.jobs
			total.roundTrips += got.roundTrips
			total.inputRows += got.inputRows
		}
		if server.UI != "" {
			n := float64(b.N)
			b.ReportMetric(float64(total.jobs)/n, "jobs/op")
			b.ReportMetric(float64(total.roundTrips)/n, "roundtrips/op")
			b.ReportMetric(float64(total.inputRows)/n/float64(rows), "scans/op")
		}
	})
}
