package spark_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/engines/spark"
	"github.com/tablegate/tablegate/runner"
)

// TestGranularityAndSamples: what the engine-neutral run gives every backend, Spark has as
// DuckDB has it: checks per column and for the schema (collapsed checks counted by the program),
// each check's failing rows (the same rows: their first column), and the valid and invalid row
// samples.
func TestGranularityAndSamples(t *testing.T) {
	needSpark(t)
	dir := t.TempDir()
	db := duck(t)
	duckEng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer duckEng.Close()
	for _, tc := range differentials[:2] {
		p := plan(t, tc.schema)
		in := filepath.Join(dir, tc.name+".parquet")
		writeParquet(t, db, tc.data, in)
		for _, g := range []runner.Granularity{runner.PerColumn, runner.PerSchema} {
			t.Run(tc.name+"/"+string(g), func(t *testing.T) {
				opts := runner.Options{Granularity: g, RowSample: 3, MaxFailureSamples: 4}
				a := runner.Asset{Name: "t", Plan: p, Input: runner.ParquetInput{Path: in}, Quarantine: true}
				a.Output = runner.ParquetOutput{Path: filepath.Join(dir, "duck", tc.name, string(g), "t.parquet")}
				drep, _ := duckEng.Run(context.Background(), a, opts)
				a.Output = runner.ParquetOutput{Path: filepath.Join(dir, "spark", tc.name, string(g), "t.parquet")}
				srep, serr := spark.New(server.Remote).Run(context.Background(), a, opts)
				if srep.Outcome == nil || *srep.Outcome != *drep.Outcome {
					t.Fatalf("Spark outcome %v (%v), DuckDB %s", srep.Outcome, serr, *drep.Outcome)
				}
				if d, s := checkContract(drep), checkContract(srep); !reflect.DeepEqual(d, s) {
					t.Errorf("checks differ:\nDuckDB %q\nSpark  %q", d, s)
				}
				sampled := 0
				for i, dc := range drep.Checks {
					sc := srep.Checks[i]
					if d, s := firstValues(t, dc.Samples), firstValues(t, sc.Samples); !reflect.DeepEqual(d, s) {
						t.Errorf("check %s shows other rows: DuckDB %v, Spark %v", dc.Name, d, s)
					}
					sampled += len(sc.Samples)
					if dc.Failed != sc.Failed {
						t.Errorf("check %s: DuckDB %d failed, Spark %d", dc.Name, dc.Failed, sc.Failed)
					}
				}
				if sampled == 0 {
					t.Error("no check shows failing rows: nothing compared")
				}
				if d, s := firstValues(t, drep.InvalidSample), firstValues(t, srep.InvalidSample); len(s) != 3 || !reflect.DeepEqual(d, s) {
					t.Errorf("invalid rows' sample: DuckDB %v, Spark %v", d, s)
				}
				if d, s := firstValues(t, drep.ValidSample), firstValues(t, srep.ValidSample); len(s) != 3 || !reflect.DeepEqual(d, s) {
					t.Errorf("valid rows' sample: DuckDB %v, Spark %v", d, s)
				}
				if srep.RunID == "" || srep.StartedAt == "" || srep.TablegateVersion == "" {
					t.Errorf("report stamps: %q %q %q", srep.RunID, srep.StartedAt, srep.TablegateVersion)
				}
			})
		}
	}
}

// firstValues are the first column's values of sampled rows (JSON objects), as JSON text: an
// integer key both engines render alike.
func firstValues(t *testing.T, rows []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, r := range rows {
		dec := json.NewDecoder(strings.NewReader(string(r)))
		dec.UseNumber()
		if _, err := dec.Token(); err != nil { // {
			t.Fatalf("sample %s: %v", r, err)
		}
		if _, err := dec.Token(); err != nil { // the first key
			t.Fatalf("sample %s: %v", r, err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("sample %s: %v", r, err)
		}
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// recorder is a Spark session that keeps every statement it runs.
type recorder struct {
	spark.Session
	mu    *sync.Mutex
	stmts *[]string
}

func (r recorder) keep(q string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.stmts = append(*r.stmts, q)
}

func (r recorder) Exec(ctx context.Context, q string) error { r.keep(q); return r.Session.Exec(ctx, q) }
func (r recorder) Rows(ctx context.Context, q string) ([][]any, error) {
	r.keep(q)
	return r.Session.Rows(ctx, q)
}

// TestExplainIsWhatRuns: on Spark too, explain prints every statement a run executes, in its order:
// the statements that opened the input (a remote input's footer read through Spark, the views, the
// rows of each file of a directory, the columns, the custom rules' typing), the count, the program
// with its samples, writes and cleanup; but for the session's settings and the views dropped when
// the session closes, which explain's first line summarises. A step whose condition did not hold
// did not run; every unconditional step ran; a step's parameters ($1) ran bound to literals. So
// too for table checks (their statement, and the analyzer's typing of their Spark SQL) and
// references (the reference's types, the semi-join).
func TestExplainIsWhatRuns(t *testing.T) {
	needSpark(t)
	dir := t.TempDir()
	db := duck(t)
	in := filepath.Join(dir, "in.parquet")
	writeParquet(t, db, differentials[1].data, in)
	parts := filepath.Join(dir, "parts")
	if err := os.MkdirAll(parts, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, where := range []string{"id % 2 = 0", "id % 2 = 1"} {
		writeParquet(t, db, fmt.Sprintf("SELECT * FROM (%s) WHERE %s", differentials[1].data, where), filepath.Join(parts, fmt.Sprintf("part-%d.parquet", i)))
	}
	p := plan(t, differentials[1].schema)
	// Table checks (reading the rule counts, and a Spark form) and a reference.
	orders, customers := filepath.Join(dir, "orders.parquet"), filepath.Join(dir, "customers.parquet")
	writeParquet(t, db, checksData, orders)
	writeParquet(t, db, "SELECT i::BIGINT - 1 AS id FROM range(30) t(i)", customers)
	checked := plan(t, strings.Replace(checksSchema, "    min: 0\n", "    min: 0\n    references: {input: "+customers+", column: id}\n", 1)+`table_checks:
  - name: few_invalid
    sql: invalid_rows() <= 0.5 * count(*)
  - name: id_total
    metric: sum(id)
    spark: sum(CAST(id AS DECIMAL(38, 0)))
`)
	type testCase struct {
		name string
		a    runner.Asset
		opts runner.Options
	}
	cases := []testCase{
		{"parquet to a directory, quarantined", runner.Asset{Name: "t", Plan: p, Input: runner.ParquetInput{Path: in},
			Output: runner.ParquetOutput{Path: filepath.Join(dir, "out", "t.parquet")}, Quarantine: true}, runner.Options{RowSample: 2}},
		{"in place, per column", runner.Asset{Plan: p, Input: runner.ParquetInput{Path: in}}, runner.Options{Granularity: runner.PerColumn}},
		{"a directory of two files", runner.Asset{Plan: p, Input: runner.ParquetInput{Path: parts}}, runner.Options{}},
		{"table checks and a reference", runner.Asset{Name: "orders", Plan: checked, Input: runner.ParquetInput{Path: orders},
			Output: runner.ParquetOutput{Path: filepath.Join(dir, "out", "orders.parquet")}, Quarantine: true}, runner.Options{}},
	}
	if server.S3 != nil {
		if err := server.S3.CreateBucket(context.Background(), "tablegate-test"); err != nil && !strings.Contains(err.Error(), "BucketAlready") {
			t.Fatal(err)
		}
		remote := putFile(t, "tablegate-test", "explain/in.parquet", in)
		cases = append(cases, testCase{"on S3", runner.Asset{Plan: p, Input: runner.ParquetInput{Path: remote}}, runner.Options{}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var ran []string
			eng := spark.NewWith(func(ctx context.Context) (spark.Session, error) {
				s, err := spark.Connect(ctx, server.Remote)
				return recorder{Session: s, mu: &mu, stmts: &ran}, err
			})
			text, err := runner.NewOn(eng).ExplainAsset(context.Background(), tc.a, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(text, "-- Besides these statements, the run sets its Spark session's SQL settings") {
				t.Errorf("explain's first line: %.200s", text)
			}
			ran = nil
			rep, _ := runner.NewOn(eng).Run(context.Background(), tc.a, tc.opts)
			if rep.Outcome == nil {
				t.Fatalf("the run reached no outcome: %+v", rep.Error)
			}
			steps := explained(text)
			for len(ran) > 0 && strings.HasPrefix(ran[len(ran)-1], "DROP VIEW IF EXISTS __tg_") {
				ran = ran[:len(ran)-1] // the views dropped when the session closes, summarised in explain's first line
			}
			next, done := 0, map[int]bool{}
			for _, stmt := range ran {
				if strings.HasPrefix(stmt, "SET spark.sql.") {
					continue // the settings, summarised in explain's first line
				}
				i := next
				for i < len(steps) && !steps[i].re.MatchString(stmt) {
					i++
				}
				if i == len(steps) {
					t.Fatalf("a statement that ran is not the next step of explain (after step %d):\n%s\nexplain:\n%s", next, stmt, text)
				}
				for j := next; j < i; j++ {
					if !steps[j].conditional {
						t.Errorf("unconditional step %d did not run: %s", j+1, steps[j].header)
					}
				}
				done[i], next = true, i+1
			}
			for j := next; j < len(steps); j++ {
				if !steps[j].conditional {
					t.Errorf("unconditional step %d did not run: %s", j+1, steps[j].header)
				}
			}
			typing := "type the custom rule's Spark SQL"
			if len(tc.a.Plan.TableChecks) > 0 {
				typing = "type the table check's Spark SQL"
			}
			for _, want := range []string{"open the input", "read the column types", typing} {
				if !strings.Contains(text, ". "+want+":") {
					t.Errorf("explain shows no statement to %s", want)
				}
			}
			// A local input needs no count of each file's rows through Spark (one file has none to
			// count, a directory's come from its footers); a remote input, whose files this
			// process does not open, does.
			if want := tc.name == "on S3"; strings.Contains(text, ". count the rows of each file:") != want {
				t.Errorf("explain counts the rows of each file: %t, want %t", !want, want)
			}
			if want := tc.name == "on S3"; strings.Contains(text, ". read the first file's footer:") != want {
				t.Errorf("explain reads the footer through Spark: %t, want %t", !want, want)
			}
			ops := []compile.Op{compile.SamplePicks, compile.Cleanup}
			if len(tc.a.Plan.TableChecks) > 0 {
				ops = append(ops, compile.TableChecks)
				if !strings.Contains(text, "DESCRIBE QUERY SELECT * FROM parquet.`file://"+customers+"`") ||
					!strings.Contains(text, "IN (SELECT `id` FROM parquet.`file://"+customers+"` WHERE `id` IS NOT NULL)") {
					t.Errorf("explain does not show the reference's type check and semi-join:\n%s", text)
				}
			}
			for _, op := range ops {
				found := false
				for i, s := range steps {
					found = found || done[i] && strings.Contains(s.header, op.String())
				}
				if !found {
					t.Errorf("no step %q ran", op)
				}
			}
		})
	}
}

type explainedStep struct {
	header      string
	conditional bool
	re          *regexp.Regexp // the statement, its parameters standing for any literal
}

// explained are the steps explain printed.
func explained(text string) []explainedStep {
	_, text, _ = strings.Cut(text, "\n") // the first line, the summary
	var steps []explainedStep
	for _, chunk := range strings.Split(strings.TrimSpace(text), ";\n\n-- ") {
		header, stmt, _ := strings.Cut(strings.TrimPrefix(chunk, "-- "), "\n")
		stmt = strings.TrimSuffix(stmt, ";")
		pattern := regexp.MustCompile(`\\\$[0-9]+`).ReplaceAllString(regexp.QuoteMeta(stmt), `CAST\(array\(.*?\) AS ARRAY<[A-Z]+>\)`)
		steps = append(steps, explainedStep{header: header, conditional: strings.Contains(header, "; when "), re: regexp.MustCompile(`^(?s)` + pattern + `$`)})
	}
	return steps
}
