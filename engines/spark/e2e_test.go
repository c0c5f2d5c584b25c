package spark_test

import (
	"context"
	gosql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/compile"
	dialect "github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/engines/spark"
	"github.com/tablegate/tablegate/engines/spark/internal/sparktest"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/sample"
	"github.com/tablegate/tablegate/schema"
)

// server is the Spark Connect server the slow tests share, started by TestMain.
var server *sparktest.Server

func TestMain(m *testing.M) {
	code := func() int {
		home := os.Getenv(sparktest.HomeVar)
		if os.Getenv(testenv.SlowVar) == "" || home == "" {
			return m.Run() // the slow tests skip themselves
		}
		dir, err := os.MkdirTemp("", "tablegate-spark-server-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		start := time.Now()
		s, err := startSpark(home, dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "spark connect server on %s (UI %q) after %.1fs\n", s.Remote, s.UI, time.Since(start).Seconds())
		server = s
		defer s.Stop()
		code := m.Run()
		if code != 0 {
			// A failing test may be the server's doing (out of memory, a crash): say what it printed.
			fmt.Fprintf(os.Stderr, "the Spark Connect server's output (tail):\n%s\n", s.Log())
		}
		return code
	}()
	os.Exit(code)
}

func needSpark(t *testing.T) {
	t.Helper()
	testenv.Slow(t)
	if server == nil {
		t.Skipf("set %s to pip's pyspark package directory (SPARK_HOME) to run the Spark tests", sparktest.HomeVar)
	}
}

func duck(t testing.TB) *gosql.DB {
	t.Helper()
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("SET TimeZone='UTC'"); err != nil {
		t.Fatal(err)
	}
	return db
}

// writeParquet writes the rows of a DuckDB query to a Parquet file.
func writeParquet(t *testing.T, db *gosql.DB, query, path string) {
	t.Helper()
	if _, err := db.Exec(fmt.Sprintf("COPY (%s) TO '%s' (FORMAT parquet)", query, path)); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
}

func plan(t testing.TB, yaml string) *compile.Plan {
	t.Helper()
	s, err := schema.Parse([]byte(yaml), "schema.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkContract is what each check says beyond its samples: the two engines must report the same.
func checkContract(rep *outcome.Report) []string {
	var out []string
	for _, c := range rep.Checks {
		out = append(out, fmt.Sprintf("%s passed=%v %s blocking=%v %q %v", c.Name, c.Passed, c.Severity, c.Blocking,
			c.ResultDescription, c.ErrorRowsAddress != ""))
	}
	return out
}

func ruleCounts(rep *outcome.Report) map[string]int64 {
	out := map[string]int64{}
	for _, c := range rep.Checks {
		if c.Failed > 0 {
			out[c.Name] = c.Failed
		}
	}
	return out
}

// rowsOf reads every row of a Parquet file or directory as text, in file order, through DuckDB.
func rowsOf(t *testing.T, db *gosql.DB, path string) []string {
	t.Helper()
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "*.parquet")
	}
	rows, err := db.Query(fmt.Sprintf("SELECT CAST(to_json(t) AS VARCHAR) FROM read_parquet('%s') AS t", path))
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

type differential struct {
	name   string
	schema string
	data   string // a DuckDB query
}

var differentials = []differential{
	{
		name: "families",
		schema: `schema: Families
columns:
  - name: k1
    type: Int32
    primary_key: true
  - name: k2
    type: String
    primary_key: true
  - name: n
    type: Integer
    nullable: true
    min: -3
    max: 1000000000000
  - name: f
    type: Float
    nullable: true
    min: 0.1
    max_exclusive: 3.3
  - name: dec
    type: Decimal
    scale: 3
    nullable: true
    min: -1.5
    max: 2.25
  - name: raw
    type: Binary
    nullable: true
  - name: none
    type: String
    nullable: true
    is_in: []
  - name: week
    type: Date
    nullable: true
    resolution: 2w
  - name: month
    type: Date
    nullable: true
    resolution: 3mo
  - name: at
    type: Datetime
    nullable: true
    resolution: 1mo
  - name: at_tz
    type: Datetime
    time_zone: Europe/Berlin
    nullable: true
    resolution: 1h
  - name: at_gap
    type: Datetime
    time_zone: America/Santiago
    nullable: true
    resolution: 1d
  - name: at_month
    type: Datetime
    time_zone: America/Santiago
    nullable: true
    resolution: 1mo
  - name: lines
    type: List
    nullable: true
    inner:
      type: Struct
      nullable: true
      fields:
        - name: sku
          type: String
          nullable: true
          unique: true
        - name: qty
          type: Int32
          nullable: true
          max: 5
rules:
  - name: k2_total
    sql: sum(n) < 2000000000000
    spark: sum(CAST(n AS DECIMAL(38,0))) < 2000000000000
    group_by: [k2]
`,
		data: `SELECT (i % 30)::INTEGER AS k1, (i % 4)::VARCHAR AS k2,
  CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN -4 WHEN 2 THEN 1000000000001 ELSE i END::BIGINT AS n,
  (CASE i % 6 WHEN 0 THEN 0.1 WHEN 1 THEN 3.3 WHEN 2 THEN 3.2999999 WHEN 3 THEN 'nan'::FLOAT WHEN 4 THEN NULL ELSE 0.10000001 END)::FLOAT AS f,
  CASE i % 4 WHEN 0 THEN -1.5 WHEN 1 THEN -1.501 WHEN 2 THEN 2.25 ELSE NULL END::DECIMAL(9,3) AS dec,
  CASE WHEN i % 3 = 0 THEN NULL ELSE ('\x00ab' || i)::BLOB END AS raw,
  CASE WHEN i % 2 = 0 THEN NULL ELSE 'x' END AS none,
  DATE '1970-01-05' + (i * 3)::INTEGER AS week,
  CASE WHEN i % 3 = 0 THEN NULL ELSE (DATE '2019-01-01' + to_months(i % 14))::DATE + (i % 2)::INTEGER END AS month,
  TIMESTAMP '2020-01-01' + to_months(i % 5) + to_microseconds((i % 3) * (i % 2)) AS at,
  TIMESTAMPTZ '2022-03-27 00:00:00+00' + to_minutes(i * 20) AS at_tz,
  TIMESTAMPTZ '2022-09-10 02:00:00+00' + to_minutes(i * 30) AS at_gap,
  TIMESTAMPTZ '2022-08-01 03:00:00+00' + to_hours((i % 3) * 24 * 31) + to_minutes((i % 2) * 60) AS at_month,
  CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN [] WHEN 2 THEN [{'sku': 'a', 'qty': 1}, {'sku': 'a', 'qty': 9}]
    WHEN 3 THEN [NULL, {'sku': NULL, 'qty': 1}] WHEN 4 THEN [{'sku': NULL, 'qty': NULL}, {'sku': NULL, 'qty': 2}]
    ELSE [{'sku': 'b', 'qty': 5}, {'sku': 'c', 'qty': NULL}] END AS lines
FROM range(90) t(i)
UNION ALL SELECT (1000 + i)::INTEGER, 'v', 5::BIGINT, 1.0::FLOAT, 1.0::DECIMAL(9,3), NULL::BLOB, NULL::VARCHAR,
  DATE '1970-01-05', DATE '2019-01-01', TIMESTAMP '2020-01-01', TIMESTAMPTZ '2022-03-27 00:00:00+00',
  TIMESTAMPTZ '2022-09-11 04:00:00+00', TIMESTAMPTZ '2022-09-01 04:00:00+00', NULL
FROM range(10) t(i)`,
	},
	{
		name: "scalars",
		schema: `schema: Scalars
columns:
  - name: id
    type: Int64
    primary_key: true
  - name: qty
    type: Int32
    nullable: true
    min: 0
    max_exclusive: 100
  - name: kind
    type: Int16
    nullable: true
    is_in: [1, 2, 3]
  - name: score
    type: Float32
    nullable: true
    min_exclusive: 0.1
    max: 1000
  - name: ratio
    type: Float64
    nullable: true
    allow_nan: true
    min: -1
    max: 1
  - name: d
    type: Float64
    nullable: true
    unique: true
    allow_inf: true
  - name: price
    type: Decimal
    precision: 10
    scale: 2
    nullable: true
    min: 0.01
    max: 999.99
  - name: code
    type: String
    nullable: true
    min_length: 3
    max_length: 6
    regex: '^ORD-\d+$'
  - name: email
    type: String
    nullable: true
    regex: '(?i)^[a-z0-9.]+@example\.(com|de)$'
    check: {sql: "lower(_) = _", spark: "lower(_) = _"}
  - name: word
    type: String
    nullable: true
    regex: '\bcat\b'
    is_in: ["cat", "a cat", "écat", "it's", 'back\slash']
  - name: day
    type: Date
    nullable: true
    min: 2020-01-01
    resolution: 1d
  - name: ts
    type: Datetime
    nullable: true
    min: 2020-01-01 00:00:00
    resolution: 1h
  - name: ts_tz
    type: Datetime
    time_zone: Asia/Kolkata
    nullable: true
    min: 2020-02-29 18:30:00+00:00
    resolution: 1d
  - name: flag
    type: Bool
    nullable: true
rules:
  - name: qty_by_kind
    sql: sum(qty) < 150
    spark: sum(CAST(qty AS DECIMAL(38,0))) < 150
    group_by: [kind]
  - name: positive_price
    sql: price > 0 OR qty = 0
    spark: price > 0 OR qty = 0
severity:
  qty_by_kind: warn
`,
		data: `SELECT id::BIGINT AS id, qty::INTEGER AS qty, kind::SMALLINT AS kind, score::FLOAT AS score, ratio::DOUBLE AS ratio,
  d::DOUBLE AS d, price::DECIMAL(10,2) AS price, code, email, word, day::DATE AS day, ts::TIMESTAMP AS ts,
  ts_tz::TIMESTAMPTZ AS ts_tz, flag::BOOLEAN AS flag FROM (
SELECT i::BIGINT AS id,
  CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 7) % 120 END::INTEGER AS qty,
  CASE WHEN i % 13 = 0 THEN NULL ELSE i % 5 END::SMALLINT AS kind,
  (CASE i % 6 WHEN 0 THEN 0.1 WHEN 1 THEN 0.10000001 WHEN 2 THEN 'nan'::DOUBLE WHEN 3 THEN 'inf'::DOUBLE ELSE i * 0.37 END)::FLOAT AS score,
  CASE i % 7 WHEN 0 THEN 'nan'::DOUBLE WHEN 1 THEN -0.0 WHEN 2 THEN 1.5 WHEN 3 THEN NULL ELSE (i % 3) * 0.5 - 0.5 END AS ratio,
  CASE i % 9 WHEN 0 THEN -0.0 WHEN 1 THEN 0.0 WHEN 2 THEN 'nan'::DOUBLE WHEN 3 THEN 'nan'::DOUBLE WHEN 4 THEN 'inf'::DOUBLE ELSE i END AS d,
  CASE WHEN i % 11 = 0 THEN NULL ELSE ((i * 37) % 120000) / 100 END::DECIMAL(10,2) AS price,
  CASE i % 8 WHEN 0 THEN 'ORD-' || i WHEN 1 THEN 'ORD-' || i || chr(10) WHEN 2 THEN 'ORD-' || i || chr(13) WHEN 3 THEN 'ord-1' WHEN 4 THEN 'ORD-١٢' WHEN 5 THEN NULL WHEN 6 THEN 'OR' ELSE 'ORD-日本' END AS code,
  CASE i % 6 WHEN 0 THEN 'carl@example.com' WHEN 1 THEN 'Carl@Example.DE' WHEN 2 THEN 'carl@example.com' || chr(10) WHEN 3 THEN 'x@EXAMPLE.com' WHEN 4 THEN 'ſ@example.com' ELSE NULL END AS email,
  CASE i % 7 WHEN 0 THEN 'cat' WHEN 1 THEN 'a cat' WHEN 2 THEN 'écat' WHEN 3 THEN 'it''s' WHEN 4 THEN 'back\slash' WHEN 5 THEN 'concat' ELSE NULL END AS word,
  CASE WHEN i % 10 = 0 THEN NULL ELSE DATE '2019-12-25' + (i % 40)::INTEGER END AS day,
  CASE WHEN i % 12 = 0 THEN NULL ELSE TIMESTAMP '2019-12-31 22:00:00' + to_minutes((i * 30) % 600) END AS ts,
  CASE WHEN i % 14 = 0 THEN NULL ELSE TIMESTAMPTZ '2020-02-29 18:30:00+00' + to_minutes((i * 90) % 3000) END AS ts_tz,
  CASE WHEN i % 4 = 0 THEN NULL ELSE i % 2 = 0 END AS flag
FROM range(400) t(i)
UNION ALL SELECT 5, 1, 1, 1, 0, 7, 1, 'ORD-5', NULL, NULL, NULL, NULL, NULL, NULL
UNION ALL SELECT 1000 + i, 10, 1, 0.5, 0.5, 1000 + i, 9.99, 'ORD-1', 'carl@example.com', 'cat', DATE '2020-01-02',
  TIMESTAMP '2020-01-01 01:00:00', TIMESTAMPTZ '2020-03-01 18:30:00+00', true FROM range(30) t(i))`,
	},
	{
		name: "nested",
		schema: `schema: Nested
columns:
  - name: id
    type: Int32
  - name: tags
    type: List
    nullable: true
    min_length: 1
    max_length: 3
    inner:
      type: String
      nullable: true
      min_length: 2
      regex: '^[a-zé]+$'
      unique: true
  - name: scores
    type: List
    nullable: true
    inner:
      type: Float64
      nullable: true
      min: 0
      max: 100
    check: {sql: "len(_) < 4", spark: "array_size(_) < 4"}
  - name: grid
    type: List
    nullable: true
    inner:
      type: List
      nullable: true
      inner:
        type: Int8
        nullable: true
        is_in: [0, 1]
  - name: address
    type: Struct
    nullable: true
    fields:
      - name: city
        type: String
        nullable: true
        min_length: 1
      - name: zip
        type: String
        nullable: true
        unique: true
  - name: lines
    type: List
    nullable: true
    inner:
      type: Struct
      nullable: true
      fields:
        - name: sku
          type: String
          primary_key: true
        - name: qty
          type: Int32
          nullable: true
          min: 1
`,
		data: `SELECT i::INTEGER AS id,
  CASE i % 7 WHEN 0 THEN NULL WHEN 1 THEN [] WHEN 2 THEN ['ab', 'ab'] WHEN 3 THEN ['ab', NULL, NULL] WHEN 4 THEN ['x', 'été'] WHEN 5 THEN ['ab', 'cd', 'ef', 'gh'] ELSE ['ab', 'c' || chr(10)] END AS tags,
  CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN [] WHEN 2 THEN [1.0, NULL] WHEN 3 THEN [-1.0, 'nan'::DOUBLE] WHEN 4 THEN [1, 2, 3, 4]::DOUBLE[] ELSE [NULL, 101.0] END AS scores,
  CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN [[0, 1], NULL] WHEN 2 THEN [[0, 2]] WHEN 3 THEN [[], [NULL]] ELSE [[1]] END::TINYINT[][] AS grid,
  CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN {'city': '', 'zip': 'z1'} WHEN 2 THEN {'city': 'B', 'zip': 'z1'} WHEN 3 THEN {'city': NULL, 'zip': NULL} WHEN 4 THEN {'city': 'C', 'zip': 'z' || i} ELSE {'city': 'D', 'zip': NULL} END AS address,
  CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN [{'sku': 'a', 'qty': 1}, {'sku': 'a', 'qty': 2}] WHEN 2 THEN [{'sku': NULL, 'qty': 0}, {'sku': NULL, 'qty': 1}] WHEN 3 THEN [NULL, {'sku': 'b', 'qty': 3}] ELSE [{'sku': 'c', 'qty': 5}] END AS lines
FROM range(120) t(i)`,
	},
}

// TestDifferentialSample runs the benchmark schemas on the sample generator's data (every rule it
// can break, 10% invalid rows), their custom SQL given the same text as its Spark form.
func TestDifferentialSample(t *testing.T) {
	needSpark(t)
	for _, name := range []string{"bench40.yaml"} {
		t.Run(name, func(t *testing.T) {
			s := forSpark(t, name)
			p, err := compile.Compile(s)
			if err != nil {
				t.Fatal(err)
			}
			q, broken, err := sample.Query(s, sample.Spec{Rows: 5000, InvalidRate: 0.1, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("the sample breaks %d rules", len(broken))
			compareEngines(t, p, q, 5)
		})
	}
}

// TestDifferential runs the same schemas and data on DuckDB and on Spark: per-rule counts, the
// valid rows and the quarantine rows (all rule columns) must be identical, in input order.
func TestDifferential(t *testing.T) {
	needSpark(t)
	for _, tc := range differentials {
		t.Run(tc.name, func(t *testing.T) {
			compareEngines(t, plan(t, tc.schema), tc.data, 5)
		})
	}
}

// TestDifferentialWithoutParser: a schema compiled for Spark without DuckDB's parser
// (dialect.CompileSchema, as a tablegate-spark without DuckDB compiles it) runs on Spark exactly as
// its DuckDB plan runs on DuckDB: custom rules, custom checks and an aggregate group rule
// included.
func TestDifferentialWithoutParser(t *testing.T) {
	needSpark(t)
	tc := differentials[1]
	s, err := schema.Parse([]byte(tc.schema), "schema.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := dialect.CompileSchema(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db := duck(t)
	in := filepath.Join(dir, "in.parquet")
	writeParquet(t, db, tc.data, in)
	compareOn(t, db, plan(t, tc.schema), dir, 5, comparison{in: in, sparkPlan: sp})
}

// compareEngines validates the rows of a DuckDB query with p on DuckDB and on Spark and requires
// identical outcomes, per-rule counts, invalid_by_rules, valid rows and quarantine rows (all rule
// columns), in input order, and at least minFailing failing rules.
func compareEngines(t *testing.T, p *compile.Plan, data string, minFailing int) {
	dir := t.TempDir()
	db := duck(t)
	in := filepath.Join(dir, "in.parquet")
	writeParquet(t, db, data, in)
	compareOn(t, db, p, dir, minFailing, comparison{in: in})
}

// comparison is what compareOn runs.
type comparison struct {
	in      string // the local Parquet input DuckDB reads
	sparkIn string // the same input where Spark reads it ("": in)
	// while, if not nil, runs beside the Spark run (to inject a fault mid-run); its context
	// ends with the run.
	while func(ctx context.Context)
	// sparkOut, if not "", is the folder Spark writes its outputs to (an s3a:// URL), read back
	// through fetch; opts are the Spark engine's.
	sparkOut string
	fetch    func(t *testing.T, url string) string
	opts     []spark.Option
	// sparkPlan, if not nil, is the plan Spark runs in place of DuckDB's.
	sparkPlan *compile.Plan
}

// compareOn is compareEngines on an existing Parquet input, the outputs under dir.
func compareOn(t *testing.T, db *gosql.DB, p *compile.Plan, dir string, minFailing int, c comparison) {
	t.Helper()
	in, sparkIn := c.in, c.sparkIn
	if sparkIn == "" {
		sparkIn = in
	}
	eng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	duckOut := filepath.Join(dir, "duck", "out.parquet")
	drep, derr := eng.Run(context.Background(), runner.Asset{Name: "out", Plan: p, Input: runner.ParquetInput{Path: in}, Output: runner.ParquetOutput{Path: duckOut}, Quarantine: true}, runner.Options{})

	sparkOut, sparkQuar := filepath.Join(dir, "spark", "out.parquet"), filepath.Join(dir, "spark", "out_quarantine.parquet")
	if c.sparkOut != "" {
		sparkOut, sparkQuar = c.sparkOut+"/out.parquet", c.sparkOut+"/out_quarantine.parquet"
	}
	ctx, cancel := context.WithCancel(context.Background())
	beside := make(chan struct{})
	go func() {
		defer close(beside)
		if c.while != nil {
			c.while(ctx)
		}
	}()
	sp := p
	if c.sparkPlan != nil {
		sp = c.sparkPlan
	}
	srep, serr := spark.New(server.Remote, c.opts...).Run(context.Background(), runner.Asset{Name: "out", Plan: sp, Input: runner.ParquetInput{Path: sparkIn}, Output: runner.ParquetOutput{Path: sparkOut}, Quarantine: true}, runner.Options{})
	cancel()
	<-beside
	if (derr == nil) != (serr == nil) {
		t.Fatalf("DuckDB error %v, Spark error %v", derr, serr)
	}
	if serr != nil && !strings.Contains(serr.Error(), "rows") {
		t.Fatalf("Spark: %v", serr)
	}
	if *drep.Outcome != *srep.Outcome || drep.Rows != srep.Rows {
		t.Fatalf("DuckDB %s %+v, Spark %s %+v", *drep.Outcome, drep.Rows, *srep.Outcome, srep.Rows)
	}
	dc, sc := ruleCounts(drep), ruleCounts(srep)
	if fmt.Sprint(dc) != fmt.Sprint(sc) {
		t.Errorf("per-rule counts differ:\nDuckDB %v\nSpark  %v", dc, sc)
	}
	if len(dc) < minFailing {
		t.Errorf("only %d rules fail: the data tests too little (%v)", len(dc), dc)
	}
	if d, s := checkContract(drep), checkContract(srep); !reflect.DeepEqual(d, s) {
		t.Errorf("checks differ:\nDuckDB %q\nSpark  %q", d, s)
	}
	if !reflect.DeepEqual(drep.InvalidByRules, srep.InvalidByRules) {
		t.Errorf("invalid_by_rules differ:\nDuckDB %v\nSpark  %v", drep.InvalidByRules, srep.InvalidByRules)
	}
	for _, pair := range []struct {
		duck, spark string
		rows        int64
	}{
		{duckOut, sparkOut, srep.Rows.Valid},
		{filepath.Join(dir, "duck", "out_quarantine.parquet"), sparkQuar, srep.Rows.Invalid},
	} {
		if pair.rows == 0 {
			continue // nothing written on either side
		}
		if c.fetch != nil {
			pair.spark = c.fetch(t, pair.spark)
		}
		d, s := rowsOf(t, db, pair.duck), rowsOf(t, db, pair.spark)
		if len(d) == 0 {
			t.Errorf("%s is empty: nothing compared", pair.duck)
		}
		if !reflect.DeepEqual(d, s) {
			t.Errorf("%s and %s differ (%d and %d rows)", pair.duck, pair.spark, len(d), len(s))
			for i := range min(len(d), len(s)) {
				if d[i] != s[i] {
					t.Errorf("first difference at row %d:\nDuckDB %s\nSpark  %s", i, d[i], s[i])
					break
				}
			}
		}
	}
	t.Logf("%d rows, %d invalid, %d failing rules: identical on DuckDB and Spark", srep.Rows.Input, srep.Rows.Invalid, len(sc))
}

const outcomeSchema = `schema: Small
columns:
  - name: id
    type: Int64
    primary_key: true
  - name: amount
    type: Float64
    min: 0
`

// TestOutcomes drives every outcome on Spark and checks the report and the files.
func TestOutcomes(t *testing.T) {
	needSpark(t)
	db := duck(t)
	dir := t.TempDir()
	p := plan(t, outcomeSchema)
	valid := filepath.Join(dir, "valid.parquet")
	writeParquet(t, db, "SELECT i::BIGINT AS id, i::DOUBLE AS amount FROM range(10) t(i)", valid)
	mixed := filepath.Join(dir, "mixed.parquet")
	writeParquet(t, db, "SELECT i::BIGINT AS id, (i - 3)::DOUBLE AS amount FROM range(10) t(i)", mixed)
	bad := filepath.Join(dir, "bad.parquet")
	writeParquet(t, db, "SELECT 1::BIGINT AS id, -1::DOUBLE AS amount", bad)
	wrong := filepath.Join(dir, "wrong.parquet")
	writeParquet(t, db, "SELECT 1::INTEGER AS id, 'x' AS amount", wrong)
	unsigned := filepath.Join(dir, "unsigned.parquet")
	writeParquet(t, db, "SELECT 1::UBIGINT AS id, 1::DOUBLE AS amount", unsigned)
	eng := spark.New(server.Remote)
	out := filepath.Join(dir, "out", "t.parquet")
	quar := filepath.Join(dir, "out", "t_quarantine.parquet")

	for _, tc := range []struct {
		name       string
		input      string
		quarantine bool
		want       outcome.Outcome
		errType    any
		table      int // rows of the table afterwards (-1: absent)
		quar       int
	}{
		{"skipped", "", true, outcome.Skipped, nil, -1, -1},
		{"all_valid", valid, true, outcome.AllValid, nil, 10, -1},
		{"quarantined", mixed, true, outcome.Quarantined, nil, 7, 3},
		{"aborted", mixed, false, outcome.Aborted, &outcome.ValidationAbortError{}, 7, 3},
		{"no_valid_rows", bad, true, outcome.NoValidRows, &outcome.NoValidRowsError{}, 7, 1},
		{"column_schema_mismatch", wrong, true, outcome.ColumnSchemaMismatch, &outcome.ColumnSchemaError{}, 7, 1},
		{"unsigned refused", unsigned, true, outcome.ColumnSchemaMismatch, &spark.UnsupportedColumnError{}, 7, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := runner.Asset{Name: "t", Plan: p, Output: runner.ParquetOutput{Path: out}, Quarantine: tc.quarantine}
			if tc.input != "" {
				a.Input = runner.ParquetInput{Path: tc.input}
			}
			rep, err := eng.Run(context.Background(), a, runner.Options{})
			if rep.Outcome == nil || *rep.Outcome != tc.want {
				t.Fatalf("outcome %v (err %v), want %s", rep.Outcome, err, tc.want)
			}
			if tc.errType == nil && err != nil {
				t.Fatalf("error %v", err)
			}
			if tc.errType != nil {
				target := reflect.New(reflect.TypeOf(tc.errType)).Interface()
				if !errors.As(err, target) {
					t.Fatalf("error %T %v, want %T", err, err, tc.errType)
				}
				if rep.Error == nil || rep.Error.Message != err.Error() {
					t.Errorf("report error %+v", rep.Error)
				}
			}
			if tc.name == "unsigned refused" && !strings.Contains(err.Error(), "'id' (unsigned 64-bit integers)") {
				t.Errorf("the refusal does not name the column: %v", err)
			}
			if tc.name == "column_schema_mismatch" && !strings.Contains(err.Error(), "'id' (expected Int64, got int)") {
				t.Errorf("mismatch message: %v", err)
			}
			count := func(path string) int {
				if _, err := os.Stat(path); err != nil {
					return -1
				}
				return len(rowsOf(t, db, path))
			}
			if n := count(out); n != tc.table {
				t.Errorf("table has %d rows, want %d", n, tc.table)
			}
			if n := count(quar); n != tc.quar {
				t.Errorf("quarantine has %d rows, want %d", n, tc.quar)
			}
			if tc.want == outcome.Quarantined {
				if rep.Rows != (outcome.Rows{Input: 10, Valid: 7, Invalid: 3}) || !rep.Quarantine.Written || !rep.Table.Written {
					t.Errorf("report %+v %+v %+v", rep.Rows, rep.Table, rep.Quarantine)
				}
				var amount outcome.Check
				for _, c := range rep.Checks {
					if c.Name == "dy_rule__amount__min" {
						amount = c
					}
				}
				if amount.Passed || amount.Failed != 3 || len(amount.Samples) != 3 {
					t.Errorf("amount check %+v", amount)
				}
				if got, _ := json.Marshal(amount.Samples); !strings.Contains(string(got), `{"id":0,"amount":-3.0}`) {
					t.Errorf("samples %s", got)
				}
			}
		})
	}
}

// TestDirectoryInput validates a directory of Parquet files (and a path with a space): the row
// order is the files' by name, then each file's own.
func TestDirectoryInput(t *testing.T) {
	needSpark(t)
	db := duck(t)
	dir := filepath.Join(t.TempDir(), "in put")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeParquet(t, db, "SELECT (20 - i)::BIGINT AS id, (i - 1)::DOUBLE AS amount FROM range(6) t(i)", filepath.Join(dir, "b.parquet"))
	writeParquet(t, db, "SELECT (100 + i)::BIGINT AS id, (1 - i)::DOUBLE AS amount FROM range(4) t(i)", filepath.Join(dir, "a.parquet"))
	out := filepath.Join(filepath.Dir(dir), "out", "t.parquet")
	rep, err := spark.New(server.Remote).Run(context.Background(), runner.Asset{Plan: plan(t, outcomeSchema), Input: runner.ParquetInput{Path: dir}, Output: runner.ParquetOutput{Path: out}, Quarantine: true}, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != (outcome.Rows{Input: 10, Valid: 7, Invalid: 3}) {
		t.Fatalf("rows %+v", rep.Rows)
	}
	got := rowsOf(t, db, out)
	want := []string{`{"id":100,"amount":1.0}`, `{"id":101,"amount":0.0}`, `{"id":19,"amount":0.0}`, `{"id":18,"amount":1.0}`, `{"id":17,"amount":2.0}`, `{"id":16,"amount":3.0}`, `{"id":15,"amount":4.0}`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("valid rows\n%v\nwant\n%v", got, want)
	}
	q := rowsOf(t, db, filepath.Join(filepath.Dir(out), "t_quarantine.parquet"))
	if len(q) != 3 || !strings.HasPrefix(q[0], `{"id":102,`) || !strings.HasPrefix(q[2], `{"id":20,`) {
		t.Errorf("quarantine %v", q)
	}
}

// TestRefusesIncompatibleSchema checks that a schema Spark cannot run is refused before anything
// is read, naming the rule, and that Spark's analyzer refuses a Spark form that is not boolean.
func TestRefusesIncompatibleSchema(t *testing.T) {
	p := plan(t, outcomeSchema+"rules:\n  - name: duck_only\n    sql: amount >= 0\n")
	rep, err := spark.New("sc://127.0.0.1:1").Run(context.Background(), runner.Asset{Plan: p, Input: runner.ParquetInput{Path: "nowhere.parquet"}}, runner.Options{})
	var errs *schema.Errors
	if !errors.As(err, &errs) || !strings.Contains(err.Error(), "rule 'duck_only': it has no Spark SQL") || rep.Error == nil {
		t.Fatalf("error %v, want a refusal naming duck_only", err)
	}

	needSpark(t)
	db := duck(t)
	in := filepath.Join(t.TempDir(), "in.parquet")
	writeParquet(t, db, "SELECT 1::BIGINT AS id, 1::DOUBLE AS amount", in)
	p = plan(t, outcomeSchema+"rules:\n  - name: not_bool\n    sql: amount >= 0\n    spark: amount + 1\n  - name: no_such\n    sql: amount >= 0\n    spark: no_such_function(amount)\n")
	_, err = spark.New(server.Remote).Run(context.Background(), runner.Asset{Plan: p, Input: runner.ParquetInput{Path: in}}, runner.Options{})
	var ce *spark.CustomSQLError
	if !errors.As(err, &ce) || len(ce.Problems) != 2 || !strings.Contains(err.Error(), "'not_bool'") || !strings.Contains(err.Error(), "double, not a boolean") || !strings.Contains(err.Error(), "'no_such'") {
		t.Fatalf("error %v, want both rules refused by Spark's analyzer", err)
	}
}

// failingWrites fails a write job of the real server midway (a directory's or a catalog table's
// write statement that contains match): rows past the tenth raise an error inside the Spark job
// that writes them.
type failingWrites struct {
	spark.Session
	match string
}

func (f failingWrites) Exec(ctx context.Context, q string) error {
	if (strings.HasPrefix(q, "INSERT OVERWRITE DIRECTORY") || strings.HasPrefix(q, "CREATE OR REPLACE TABLE")) && strings.Contains(q, f.match) {
		q = strings.Replace(q, " WHERE ", " WHERE (CASE WHEN __tg_rid >= 10 THEN CAST(raise_error('tablegate test: a job failing mid-write') AS BOOLEAN) ELSE TRUE END) AND ", 1)
	}
	return f.Session.Exec(ctx, q)
}

// TestFailedWriteKeepsLastKnownGood fails the quarantine's write job after the table's was
// written: neither output is swapped, the previous ones are whole, no temporary is left.
func TestFailedWriteKeepsLastKnownGood(t *testing.T) {
	needSpark(t)
	db := duck(t)
	dir := t.TempDir()
	p := plan(t, outcomeSchema)
	first := filepath.Join(dir, "first.parquet")
	writeParquet(t, db, "SELECT i::BIGINT AS id, (i - 2)::DOUBLE AS amount FROM range(50) t(i)", first)
	second := filepath.Join(dir, "second.parquet")
	writeParquet(t, db, "SELECT i::BIGINT AS id, (i - 30)::DOUBLE AS amount FROM range(60) t(i)", second)
	out := filepath.Join(dir, "out", "t.parquet")
	quar := filepath.Join(dir, "out", "t_quarantine.parquet")
	a := runner.Asset{Name: "t", Plan: p, Input: runner.ParquetInput{Path: first}, Output: runner.ParquetOutput{Path: out}, Quarantine: true}
	if _, err := spark.New(server.Remote).Run(context.Background(), a, runner.Options{}); err != nil {
		t.Fatal(err)
	}
	table, quarantine := rowsOf(t, db, out), rowsOf(t, db, quar)
	if len(table) != 48 || len(quarantine) != 2 {
		t.Fatalf("first run wrote %d and %d rows", len(table), len(quarantine))
	}
	for _, match := range []string{"'invalid'", "ORDER BY"} { // the quarantine's job, then the table's
		eng := spark.NewWith(func(ctx context.Context) (spark.Session, error) {
			s, err := spark.Connect(ctx, server.Remote)
			return failingWrites{s, match}, err
		})
		a.Input = runner.ParquetInput{Path: second}
		rep, err := eng.Run(context.Background(), a, runner.Options{})
		var oe *outcome.OutputError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), "a job failing mid-write") || rep.Outcome != nil {
			t.Fatalf("error %v (outcome %v), want the injected write failure", err, rep.Outcome)
		}
		if got := rowsOf(t, db, out); !reflect.DeepEqual(got, table) {
			t.Errorf("the table changed: %d rows", len(got))
		}
		if got := rowsOf(t, db, quar); !reflect.DeepEqual(got, quarantine) {
			t.Errorf("the quarantine changed: %d rows", len(got))
		}
		entries, _ := os.ReadDir(filepath.Dir(out))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		if fmt.Sprint(names) != "[t.parquet t_quarantine.parquet]" {
			t.Errorf("output folder holds %v", names)
		}
	}
}

// TestInterrupt checks that Interrupt stops a query on the server: the query's own context is
// never cancelled, so only the server aborting it can end it early.
func TestInterrupt(t *testing.T) {
	needSpark(t)
	ctx := context.Background()
	s, err := spark.Connect(ctx, server.Remote)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Rows(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := s.Rows(ctx, "SELECT count(*) FROM range(0, 1000000000000, 1, 2) WHERE id % 7 = 3")
		done <- err
	}()
	time.Sleep(3 * time.Second)
	if err := s.Interrupt(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		// Ending before the interrupt (a refused query) would prove nothing.
		if err == nil || time.Since(start) < 3*time.Second {
			t.Fatalf("the query ended before it was interrupted, or without error: %v", err)
		}
		t.Logf("interrupted after %.1fs: %v", time.Since(start).Seconds(), err)
	case <-time.After(60 * time.Second):
		t.Fatal("the query still runs 60 s after Interrupt")
	}

	// A run whose context is cancelled returns promptly, without an outcome.
	db := duck(t)
	in := filepath.Join(t.TempDir(), "in.parquet")
	writeParquet(t, db, "SELECT i::BIGINT AS id, i::DOUBLE AS amount FROM range(1000000) t(i)", in)
	// Slow in CPU, small in memory: 10,000 additions for each of a million rows.
	p := plan(t, outcomeSchema+"rules:\n  - name: slow\n    sql: amount >= 0\n    spark: aggregate(sequence(1, 10000), 0L, (acc, x) -> acc + x) > amount\n")
	cctx, cancel := context.WithTimeout(ctx, 8*time.Second)
	defer cancel()
	start = time.Now()
	rep, err := spark.New(server.Remote).Run(cctx, runner.Asset{Plan: p, Input: runner.ParquetInput{Path: in}}, runner.Options{})
	if !errors.Is(err, context.DeadlineExceeded) || rep.Outcome != nil {
		t.Fatalf("error %v, outcome %v; want the deadline and no outcome", err, rep.Outcome)
	}
	if el := time.Since(start); el > 40*time.Second {
		t.Errorf("the cancelled run took %s to return", el)
	}
}
