package spark_test

import (
	"context"
	gosql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/engines/spark"
	"github.com/tablegate/tablegate/engines/spark/internal/sparktest"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// The catalog table tests start a Spark Connect server of their own for each format, from pip's
// pyspark of the version the format's newest release is built for, the format's jars on its
// class path (as .ci/run resolves them from Maven Central into an Ivy folder).
const (
	deltaHomeVar   = "TABLEGATE_SPARK_DELTA_HOME"   // pyspark 4.2.1's package directory
	deltaJarsVar   = "TABLEGATE_SPARK_DELTA_JARS"   // a folder holding delta-spark_2.13 and delta-storage 4.4.0
	icebergHomeVar = "TABLEGATE_SPARK_ICEBERG_HOME" // pyspark 4.1.4's package directory
	icebergJarsVar = "TABLEGATE_SPARK_ICEBERG_JARS" // a folder holding iceberg-spark-runtime-4.1_2.13 1.12.0
)

// tableServer is a Spark Connect server with a catalog of one table format.
type tableServer struct {
	*sparktest.Server
	format, catalog string
}

// startTableServer starts a local-mode server whose catalog holds the format's tables, its
// warehouse under dir.
func startTableServer(t *testing.T, format, dir string) *tableServer {
	t.Helper()
	homeVar, jarsVar, jars := deltaHomeVar, deltaJarsVar, []string{"io.delta_delta-spark_2.13-*.jar", "io.delta_delta-storage-*.jar"}
	if format == runner.FormatIceberg {
		homeVar, jarsVar, jars = icebergHomeVar, icebergJarsVar, []string{"org.apache.iceberg_iceberg-spark-runtime-*.jar"}
	}
	testenv.Slow(t)
	home, folder := os.Getenv(homeVar), os.Getenv(jarsVar)
	if home == "" || folder == "" {
		t.Skipf("set %s and %s to run the %s table tests (.ci/run installs them)", homeVar, jarsVar, format)
	}
	cfg := sparktest.Config{Ready: 10 * time.Minute, PIDFile: os.Getenv(pidFileVar), Conf: map[string]string{}}
	for _, pattern := range jars {
		m, _ := filepath.Glob(filepath.Join(folder, pattern))
		if len(m) != 1 {
			t.Fatalf("%s=%s: want one %s there, found %v", jarsVar, folder, pattern, m)
		}
		cfg.ClassPath = append(cfg.ClassPath, m[0])
	}
	s := &tableServer{format: format}
	if format == runner.FormatDelta {
		s.catalog = "spark_catalog"
		cfg.Conf["spark.sql.extensions"] = "io.delta.sql.DeltaSparkSessionExtension"
		cfg.Conf["spark.sql.catalog.spark_catalog"] = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
		cfg.Conf["spark.sql.warehouse.dir"] = filepath.Join(dir, "warehouse")
		// Delta rebuilds a table's state in 50 tasks by default: seconds each on a loaded machine.
		cfg.Conf["spark.databricks.delta.snapshotPartitions"] = "2"
	} else {
		s.catalog = "lake"
		cfg.Conf["spark.sql.extensions"] = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
		cfg.Conf["spark.sql.catalog.lake"] = "org.apache.iceberg.spark.SparkCatalog"
		cfg.Conf["spark.sql.catalog.lake.type"] = "hadoop"
		cfg.Conf["spark.sql.catalog.lake.warehouse"] = "file://" + filepath.Join(dir, "lake")
	}
	start := time.Now()
	srv, err := sparktest.Start(home, filepath.Join(dir, "server"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s server on %s after %.1fs", format, srv.Remote, time.Since(start).Seconds())
	s.Server = srv
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the server's output (tail):\n%s", srv.Log())
		}
		srv.Stop()
	})
	return s
}

// out is the catalog output of table in namespace db.
func (s *tableServer) out(table string) runner.CatalogOutput {
	return runner.CatalogOutput{Format: s.format, Catalog: s.catalog, Namespace: "db", Table: table}
}

func (s *tableServer) engine(lockDir string) *spark.Engine {
	return spark.New(s.Remote, spark.WithLockDir(lockDir))
}

// tableRows reads a catalog table's rows as DuckDB's JSON text, in the order of its data files'
// names (their task number) and each file's rows: the files of its current version, listed by
// Spark, read by DuckDB from the local warehouse.
func tableRows(t *testing.T, db *gosql.DB, sess spark.Session, format, name string) []string {
	t.Helper()
	q := "SELECT DISTINCT _metadata.file_path FROM " + name
	if format == runner.FormatIceberg {
		q = "SELECT DISTINCT _file FROM " + name
	}
	// The session's Iceberg catalog caches tables for 30 s after each use: other sessions' commits
	// show after a refresh.
	table, _, _ := strings.Cut(name, " VERSION AS OF ")
	if err := sess.Exec(context.Background(), "REFRESH TABLE "+table); err != nil {
		t.Fatalf("refresh %s: %v", table, err)
	}
	rows, err := sess.Rows(context.Background(), q)
	if err != nil {
		t.Fatalf("list the files of %s: %v", name, err)
	}
	var files []string
	for _, r := range rows {
		files = append(files, "'"+strings.TrimPrefix(strings.TrimPrefix(fmt.Sprint(r[0]), "file://"), "file:")+"'")
	}
	if len(files) == 0 {
		return nil
	}
	sort.Strings(files)
	res, err := db.Query(fmt.Sprintf("SELECT CAST(to_json(t) AS VARCHAR) FROM read_parquet([%s]) AS t", strings.Join(files, ", ")))
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	defer res.Close()
	var out []string
	for res.Next() {
		var s string
		if err := res.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

const tableSchema = `schema: Orders
columns:
  - name: id
    type: Int64
    primary_key: true
  - name: amount
    type: Float64
    min: 0
  - name: code
    type: String
    nullable: true
    regex: '^ORD-\d+$'
  - name: day
    type: Date
    nullable: true
    min: 2020-01-01
`

// tableData is tableSchema's input: n rows, shift of them negative amounts, every seventh code
// bad, every eleventh day too early.
func tableData(n, shift int) string {
	return fmt.Sprintf(`SELECT i::BIGINT AS id, (i - %d)::DOUBLE AS amount,
  CASE WHEN i %% 7 = 3 THEN 'bad' WHEN i %% 5 = 0 THEN NULL ELSE 'ORD-' || i END AS code,
  DATE '2019-12-20' + (i %% 11 * 3)::INTEGER AS day FROM range(%d) t(i)`, shift, n)
}

// TestSlowCatalogTables runs, on a Delta (Spark 4.2.1, Delta 4.4.0) and an Iceberg (Spark 4.1.4,
// Iceberg 1.12.0) catalog, a validation that writes a catalog table and its quarantine, and
// requires the DuckDB engine's report, table rows and quarantine rows in input order; a failing
// write that leaves the previous tables as they were; a run killed between its two commits,
// recovered by the next; a run without invalid rows that empties the quarantine and says where
// its rows are kept; two concurrent runs, one waiting for the other; `tablegate validate --engine
// spark --out FORMAT:…` through the CLI; and clear refusals of a catalog the server lacks and of
// a table of another format.
func TestSlowCatalogTables(t *testing.T) {
	for _, format := range []string{runner.FormatDelta, runner.FormatIceberg} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			s := startTableServer(t, format, dir)
			ctx := context.Background()
			sess, err := spark.Connect(ctx, s.Remote)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			db := duck(t)
			p := plan(t, tableSchema)
			locks := filepath.Join(dir, "locks")
			first, second := filepath.Join(dir, "first.parquet"), filepath.Join(dir, "second.parquet")
			writeParquet(t, db, tableData(400, 30), first)
			writeParquet(t, db, tableData(300, 120), second)
			out := s.out("orders")
			tName, qName := fmt.Sprintf("`%s`.`db`.`orders`", s.catalog), fmt.Sprintf("`%s`.`db`.`orders_quarantine`", s.catalog)

			// The reference: the DuckDB engine's outputs of each input.
			duckRows := map[string][2][]string{}
			var duckReps = map[string]*outcome.Report{}
			for _, in := range []string{first, second} {
				eng, err := duckdb.Open(duckdb.Config{})
				if err != nil {
					t.Fatal(err)
				}
				o := filepath.Join(dir, "duck", filepath.Base(in), "orders.parquet")
				rep, err := eng.Run(ctx, runner.Asset{Plan: p, Input: runner.ParquetInput{Path: in}, Output: runner.ParquetOutput{Path: o}, Quarantine: true}, runner.Options{})
				eng.Close()
				if err != nil {
					t.Fatal(err)
				}
				duckReps[in] = rep
				duckRows[in] = [2][]string{rowsOf(t, db, o), rowsOf(t, db, filepath.Join(filepath.Dir(o), "orders_quarantine.parquet"))}
			}
			// pairIs requires the catalog's table and quarantine to be DuckDB's outputs of in.
			pairIs := func(t *testing.T, in, when string) {
				t.Helper()
				want := duckRows[in]
				if got := tableRows(t, db, sess, format, tName); !reflect.DeepEqual(got, want[0]) {
					t.Errorf("%s: the table is not DuckDB's table of %s (%d and %d rows)%s", when, filepath.Base(in), len(got), len(want[0]), firstDiff(got, want[0]))
				}
				if got := tableRows(t, db, sess, format, qName); !reflect.DeepEqual(got, want[1]) {
					t.Errorf("%s: the quarantine is not DuckDB's quarantine of %s (%d and %d rows)%s", when, filepath.Base(in), len(got), len(want[1]), firstDiff(got, want[1]))
				}
			}
			run := func(eng *spark.Engine, in string) (*outcome.Report, error) {
				return eng.Run(ctx, runner.Asset{Plan: p, Input: runner.ParquetInput{Path: in}, Output: out, Quarantine: true}, runner.Options{})
			}

			t.Run("equal to DuckDB", func(t *testing.T) {
				for _, in := range []string{second, first} { // made, then replaced
					rep, err := run(s.engine(locks), in)
					if err != nil {
						t.Fatal(err)
					}
					d := duckReps[in]
					if *rep.Outcome != *d.Outcome || rep.Rows != d.Rows || !reflect.DeepEqual(rep.InvalidByRules, d.InvalidByRules) ||
						!reflect.DeepEqual(checkContract(rep), checkContract(d)) {
						t.Fatalf("Spark %s %+v %v, DuckDB %s %+v %v", *rep.Outcome, rep.Rows, rep.InvalidByRules, *d.Outcome, d.Rows, d.InvalidByRules)
					}
					if rep.Table.Address != out.String() || rep.Quarantine.Address != s.format+":"+s.catalog+".db.orders_quarantine" {
						t.Errorf("addresses %q %q", rep.Table.Address, rep.Quarantine.Address)
					}
					pairIs(t, in, "after a run on "+filepath.Base(in))
				}
			})

			t.Run("failed write keeps the previous pair", func(t *testing.T) {
				// The quarantine's job fails; then the table's, after the quarantine committed.
				for _, match := range []string{"orders_quarantine", "`orders` USING"} {
					eng := spark.NewWith(func(ctx context.Context) (spark.Session, error) {
						c, err := spark.Connect(ctx, s.Remote)
						return failingWrites{c, match}, err
					}, spark.WithLockDir(locks))
					rep, err := run(eng, second)
					var oe *outcome.OutputError
					if !errors.As(err, &oe) || !strings.Contains(err.Error(), "a job failing mid-write") || rep.Outcome != nil {
						t.Fatalf("error %v (outcome %v), want the injected write failure", err, rep.Outcome)
					}
					pairIs(t, first, "after a failed write of "+match)
				}
			})

			t.Run("killed between the commits", func(t *testing.T) {
				// kill runs a child on second that is killed once its quarantine committed: the
				// new quarantine is left beside the old table.
				kill := func(t *testing.T) {
					t.Helper()
					cmd := osexec.Command(os.Args[0], "-test.run=^TestTableKillHelper$", "-test.count=1")
					cmd.Env = append(os.Environ(), "TG_TABLE_REMOTE="+s.Remote, "TG_TABLE_FORMAT="+format, "TG_TABLE_CATALOG="+s.catalog,
						"TG_TABLE_INPUT="+second, "TG_TABLE_LOCKS="+locks, testenv.SlowVar+"=")
					got, err := cmd.CombinedOutput()
					var exit *osexec.ExitError
					if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
						t.Fatalf("the child was not killed: %v\n%s", err, got)
					}
					if q := tableRows(t, db, sess, format, qName); !reflect.DeepEqual(q, duckRows[second][1]) {
						t.Fatalf("the killed run's quarantine was not committed (%d rows): the kill came elsewhere", len(q))
					}
				}
				// rolledBack requires a warning that the killed run's quarantine was rolled back.
				rolledBack := func(t *testing.T, warnings []string) {
					t.Helper()
					for _, w := range warnings {
						if strings.Contains(w, "the quarantine "+qName+" but not its table; it is rolled back to version") {
							return
						}
					}
					t.Errorf("no warning tells that the killed run's quarantine was rolled back: %q", warnings)
				}
				kill(t)
				// The next run rolls the quarantine back before it reads anything; explain is such a run.
				var warnings strings.Builder
				text, err := runner.NewOn(s.engine(locks)).ExplainAsset(ctx, runner.Asset{Plan: p, Input: runner.ParquetInput{Path: first}, Output: out, Quarantine: true}, runner.Options{Warnings: &warnings})
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(text, "CREATE OR REPLACE TABLE "+qName+" USING "+format+" TBLPROPERTIES ('tablegate.run' = $1, 'tablegate.pair' = $2) AS SELECT") {
					t.Errorf("explain does not show the quarantine's write:\n%s", text)
				}
				rolledBack(t, strings.Split(strings.ReplaceAll(warnings.String(), "warning: ", ""), "\n"))
				pairIs(t, first, "after the recovery")
				// A run's report warns of the rollback.
				kill(t)
				rep, err := run(s.engine(locks), second)
				if err != nil {
					t.Fatal(err)
				}
				rolledBack(t, rep.Warnings)
				pairIs(t, second, "after the next run")
			})

			t.Run("no invalid rows empties the quarantine", func(t *testing.T) {
				clean := filepath.Join(dir, "clean.parquet")
				writeParquet(t, db, "SELECT i::BIGINT AS id, i::DOUBLE AS amount, 'ORD-1' AS code, DATE '2021-01-01' AS day FROM range(20) t(i)", clean)
				var warnings strings.Builder
				rep, err := s.engine(locks).Run(ctx, runner.Asset{Plan: p, Input: runner.ParquetInput{Path: clean}, Output: out, Quarantine: true}, runner.Options{Warnings: &warnings})
				if err != nil || *rep.Outcome != outcome.AllValid {
					t.Fatalf("outcome %v, error %v", rep.Outcome, err)
				}
				if n := len(tableRows(t, db, sess, format, tName)); n != 20 {
					t.Errorf("the table has %d rows, want 20", n)
				}
				if q := tableRows(t, db, sess, format, qName); len(q) != 0 {
					t.Errorf("the quarantine kept %d rows", len(q))
				}
				var kept string
				for _, w := range rep.Warnings {
					if _, rest, ok := strings.Cut(w, " is kept as "); ok && strings.Contains(rest, "VERSION AS OF") {
						kept, _, _ = strings.Cut(rest, ": ")
					}
				}
				if kept == "" {
					t.Fatalf("no warning names the older quarantine's version: %q", rep.Warnings)
				}
				if old := tableRows(t, db, sess, format, kept); len(old) == 0 {
					// The old version's files are listed through time travel.
					t.Errorf("%s reads no rows", kept)
				}
			})

			t.Run("two writers", func(t *testing.T) {
				// Both runs write; the lock makes the later one wait, so the pair is whole.
				errs := make(chan error, 2)
				for _, in := range []string{first, second} {
					go func() {
						_, err := run(s.engine(locks), in)
						errs <- err
					}()
				}
				for range 2 {
					if err := <-errs; err != nil {
						t.Fatal(err)
					}
				}
				tbl := tableRows(t, db, sess, format, tName)
				in := first
				if !reflect.DeepEqual(tbl, duckRows[first][0]) {
					in = second
				}
				pairIs(t, in, "after two concurrent runs")
			})

			t.Run("cli", func(t *testing.T) {
				// tablegate delegates to tablegate-spark, which reads the FORMAT:… address.
				cctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
				defer cancel()
				cdir, _, in, schemaFile := cliFixture(cctx, t)
				addr := fmt.Sprintf("%s:%s.db.cli", format, s.catalog)
				cmd := osexec.CommandContext(cctx, filepath.Join(cdir, "tablegate"), "validate", "--engine", "spark", "--spark-remote", s.Remote,
					"--schema", schemaFile, "--input", in, "--out", addr, "--quarantine", "--format", "json")
				stdout, err := cmd.Output()
				var rep outcome.Report
				if jerr := json.Unmarshal(stdout, &rep); err != nil || jerr != nil {
					t.Fatalf("exit %v, stdout %s", err, stdout)
				}
				if *rep.Outcome != outcome.Quarantined || rep.Table.Address != addr || rep.Quarantine.Address != addr+"_quarantine" {
					t.Errorf("outcome %s, table %q, quarantine %q", *rep.Outcome, rep.Table.Address, rep.Quarantine.Address)
				}
				if n, q := len(tableRows(t, db, sess, format, s.catalog+".db.cli")), len(tableRows(t, db, sess, format, s.catalog+".db.cli_quarantine")); n != 7 || q != 3 {
					t.Errorf("the table has %d rows and the quarantine %d, want 7 and 3", n, q)
				}
			})

			t.Run("refusals", func(t *testing.T) {
				other := runner.CatalogOutput{Format: runner.FormatIceberg, Catalog: "lake", Namespace: "db", Table: "t"}
				want := "no Iceberg catalog lake"
				if format == runner.FormatIceberg {
					other = runner.CatalogOutput{Format: runner.FormatDelta, Catalog: "spark_catalog", Namespace: "db", Table: "t"}
					want = "no Delta catalog"
				}
				_, err := run2(s.engine(locks), p, first, other)
				var oe *outcome.OutputError
				if !errors.As(err, &oe) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "docs/spark.md") {
					t.Errorf("error %v, want an output error saying %q", err, want)
				}
				if _, err := run2(s.engine(""), p, first, out); err == nil || !strings.Contains(err.Error(), "spark.WithLockDir") {
					t.Errorf("an engine without a lock folder: %v", err)
				}
				if format == runner.FormatIceberg {
					return // an Iceberg catalog makes only Iceberg tables (USING parquet is their file format)
				}
				if err := sess.Exec(ctx, "CREATE TABLE spark_catalog.db.plain (id BIGINT) USING parquet"); err != nil {
					t.Fatal(err)
				}
				_, err = run2(s.engine(locks), p, first, s.out("plain"))
				if !errors.As(err, &oe) || !strings.Contains(err.Error(), "is a parquet table, not "+format) {
					t.Errorf("error %v, want a refusal of the parquet table", err)
				}
			})
		})
	}
}

func run2(eng *spark.Engine, p *compile.Plan, in string, out runner.Output) (*outcome.Report, error) {
	return eng.Run(context.Background(), runner.Asset{Plan: p, Input: runner.ParquetInput{Path: in}, Output: out, Quarantine: true}, runner.Options{})
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("; first difference at row %d:\nSpark  %s\nDuckDB %s", i, got[i], want[i])
		}
	}
	return ""
}

// TestTableKillHelper is the child of the kill test: it validates into the catalog and kills
// itself once the quarantine committed, before the table's write.
func TestTableKillHelper(t *testing.T) {
	remote := os.Getenv("TG_TABLE_REMOTE")
	if remote == "" {
		t.Skip("the child of TestSlowCatalogTables")
	}
	defer durable.SetCrashPoint(func(at string) {
		if at == "quarantine committed" {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	})()
	out := runner.CatalogOutput{Format: os.Getenv("TG_TABLE_FORMAT"), Catalog: os.Getenv("TG_TABLE_CATALOG"), Namespace: "db", Table: "orders"}
	_, err := spark.New(remote, spark.WithLockDir(os.Getenv("TG_TABLE_LOCKS"))).Run(context.Background(),
		runner.Asset{Plan: plan(t, tableSchema), Input: runner.ParquetInput{Path: os.Getenv("TG_TABLE_INPUT")}, Output: out, Quarantine: true}, runner.Options{})
	t.Fatalf("the run was not killed (error %v)", err)
}
