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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/engines/spark"
	"github.com/tablegate/tablegate/history"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/runner"
)

// checksSchema is the schema of the table-check comparisons, before its table_checks: a
// reserved word ("order") and Unicode values among its columns.
const checksSchema = `schema: Orders
columns:
  - name: id
    type: Int64
    min: 0
  - name: order
    type: String
    nullable: true
  - name: amount
    type: Float64
    nullable: true
  - name: placed_at
    type: Datetime
`

// checksData is 40 orders: ids 0 to 2 twice (duplicates) and two negative ones, a quarter of the
// orders NULL and a quarter 'Zürich ✓', one NaN amount and some NULL ones.
const checksData = `SELECT (i % 37)::BIGINT - 2 AS id,
  CASE WHEN i % 4 = 0 THEN NULL WHEN i % 4 = 1 THEN 'Zürich ✓' ELSE 'order ' || (i % 3) END AS "order",
  CASE WHEN i = 5 THEN 'NaN'::DOUBLE WHEN i % 5 = 0 THEN NULL ELSE i * 1.5 END AS amount,
  TIMESTAMP '2026-01-01 00:00:00' + INTERVAL (i) HOUR AS placed_at
FROM range(40) t(i)`

// TestTableChecksLikeDuckDB: table checks run on Spark with DuckDB's results on the same data:
// every check's value, bounds, sides, anomaly band (drawn from the same history file), pass or
// failure, the outcome, the error and what was written.
func TestTableChecksLikeDuckDB(t *testing.T) {
	needSpark(t)
	db := duck(t)
	dir := t.TempDir()
	hist := filepath.Join(dir, "history.duckdb")
	for _, tc := range []struct {
		name, checks, data string
		seed               map[string][]float64 // check → earlier values, oldest first
		outcome            outcome.Outcome
	}{
		{name: "bounds, shares, duplicates, rule results, spark forms", data: checksData, outcome: outcome.Quarantined, checks: `
  - name: row_count
    metric: count(*)
    min: 10
    max: 1000
  - name: order_null_share
    metric: count_if("order" IS NULL) / count(*)
    max: 0.2
    severity: warn
  - name: duplicate_ids
    metric: count(*) - count(DISTINCT id)
    max: 0
    severity: warn
  - name: ids_unique
    sql: count(DISTINCT id) = count(*)
    severity: warn
  - name: zurich
    sql: count_if("ORDER" = 'Zürich ✓') >= 10
  - name: few_invalid
    sql: invalid_rows() <= 0.05 * count(*)
    severity: warn
  - name: negative_ids
    metric: failed_rows('id|min')
    max: 5
  - name: amount_max
    metric: max(amount)
  - name: amount_nulls
    metric: count_if(amount IS NULL)
    max: 10
  - name: id_total
    metric: sum(id)
    spark: sum(CAST(id AS DECIMAL(38, 0)))
    min: 0
  - name: newest
    sql: max(placed_at) >= TIMESTAMP '2026-01-02 00:00:00'
    spark: max(placed_at) >= TIMESTAMP_NTZ '2026-01-02 00:00:00'
`},
		{name: "an error check fails", data: checksData, outcome: outcome.TableCheckFailed, checks: `
  - name: enough_rows
    sql: count(*) >= 1000
  - name: mean_amount
    metric: avg(amount)
    spark: avg(amount)
    severity: warn
`},
		{name: "NULL values", data: "SELECT i::BIGINT AS id, NULL::VARCHAR AS \"order\", NULL::DOUBLE AS amount, TIMESTAMP '2026-01-01' AS placed_at FROM range(5) t(i)",
			outcome: outcome.TableCheckFailed, checks: `
  - name: amount_max
    metric: max(amount)
    min: 0
  - name: amount_positive
    sql: max(amount) > 0
    severity: warn
  - name: no_orders
    metric: count("order")
    max: 0
`},
		{name: "anomaly bands from the same history", data: checksData, outcome: outcome.TableCheckFailed,
			seed: map[string][]float64{"dy_table__volume": {100, 102, 98, 101, 99}, "dy_table__null_orders": {8, 12, 10}}, checks: `
  - name: volume
    metric: count(*)
    anomaly: {lookback: 10, min_history: 3}
  - name: null_orders
    metric: count_if("order" IS NULL)
    anomaly: {direction: up, min_history: 3}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plan(t, checksSchema+"table_checks:"+tc.checks)
			in := filepath.Join(t.TempDir(), "in.parquet")
			writeParquet(t, db, tc.data, in)
			opts := runner.Options{}
			if tc.seed != nil {
				seedHistory(t, hist, "out", p, tc.seed)
				opts.Baselines = runner.BaselinesOf(hist)
			}
			drep, srep, outs, derr, serr := runBoth(t, p, in, opts)
			compareReports(t, drep, srep, derr, serr)
			if got := *srep.Outcome; got != tc.outcome {
				t.Errorf("outcome %s, want %s (%v)", got, tc.outcome, serr)
			}
			compareOutputs(t, db, srep, outs)
			tables := 0
			for _, c := range srep.Checks {
				if c.Table != nil {
					tables++
				}
			}
			if tables != len(p.TableChecks) || tables == 0 {
				t.Errorf("%d table checks reported, want %d", tables, len(p.TableChecks))
			}
			if tc.seed != nil {
				for _, c := range srep.Checks {
					if c.Table != nil && (c.Table.Baseline == nil || c.Table.Baseline.Median == nil) {
						t.Errorf("check %s has no band: %+v", c.Name, c.Table)
					}
				}
			}
			t.Logf("%d table checks identical on DuckDB and Spark (outcome %s)", tables, *srep.Outcome)
		})
	}
}

// outputs are where the two runs wrote: the DuckDB engine's files, the Spark engine's directories.
type outputs struct{ duckTable, duckQuar, sparkTable, sparkQuar string }

// runBoth validates the Parquet input with p on DuckDB and on Spark, with a quarantine.
func runBoth(t *testing.T, p *compile.Plan, in string, opts runner.Options) (drep, srep *outcome.Report, o outputs, derr, serr error) {
	t.Helper()
	dir := t.TempDir()
	o = outputs{filepath.Join(dir, "duck", "out.parquet"), filepath.Join(dir, "duck", "out_quarantine.parquet"),
		filepath.Join(dir, "spark", "out.parquet"), filepath.Join(dir, "spark", "out_quarantine.parquet")}
	eng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	drep, derr = eng.Run(context.Background(), runner.Asset{Name: "out", Plan: p, Input: runner.ParquetInput{Path: in}, Output: runner.ParquetOutput{Path: o.duckTable}, Quarantine: true}, opts)
	srep, serr = spark.New(server.Remote).Run(context.Background(), runner.Asset{Name: "out", Plan: p, Input: runner.ParquetInput{Path: in}, Output: runner.ParquetOutput{Path: o.sparkTable}, Quarantine: true}, opts)
	return drep, srep, o, derr, serr
}

// compareReports requires the same outcome, rows, checks (with each table check's value, bounds,
// band and sides) and error from both engines.
func compareReports(t *testing.T, drep, srep *outcome.Report, derr, serr error) {
	t.Helper()
	if (derr == nil) != (serr == nil) || derr != nil && derr.Error() != serr.Error() {
		t.Fatalf("errors differ:\nDuckDB %v\nSpark  %v", derr, serr)
	}
	if drep.Outcome == nil || srep.Outcome == nil {
		t.Fatalf("no outcome: DuckDB %v, Spark %v (%v)", drep.Outcome, srep.Outcome, serr)
	}
	if *drep.Outcome != *srep.Outcome || drep.Rows != srep.Rows {
		t.Fatalf("DuckDB %s %+v, Spark %s %+v", *drep.Outcome, drep.Rows, *srep.Outcome, srep.Rows)
	}
	if d, s := checkContract(drep), checkContract(srep); !reflect.DeepEqual(d, s) {
		t.Errorf("checks differ:\nDuckDB %q\nSpark  %q", d, s)
	}
	for i, dc := range drep.Checks {
		sc := srep.Checks[i]
		if d, s := tableJSON(t, dc), tableJSON(t, sc); d != s {
			t.Errorf("check %s: DuckDB %s, Spark %s", dc.Name, d, s)
		}
		if dc.Failed != sc.Failed {
			t.Errorf("check %s: DuckDB %d failed, Spark %d", dc.Name, dc.Failed, sc.Failed)
		}
	}
}

// tableJSON is a table check's result as the report's JSON has it; a side's age may differ by the
// seconds between the two runs, and is left out.
func tableJSON(t *testing.T, c outcome.Check) string {
	t.Helper()
	if c.Table == nil {
		return ""
	}
	r := *c.Table
	r.Compared = append([]outcome.Compared(nil), r.Compared...)
	for i := range r.Compared {
		r.Compared[i].AgeS = nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// compareOutputs requires the same table and quarantine rows from both engines, or neither
// written.
func compareOutputs(t *testing.T, db *gosql.DB, srep *outcome.Report, o outputs) {
	t.Helper()
	for _, pair := range [][2]string{{o.duckTable, o.sparkTable}, {o.duckQuar, o.sparkQuar}} {
		_, derr := os.Stat(pair[0])
		_, serr := os.Stat(pair[1])
		if (derr == nil) != (serr == nil) {
			t.Errorf("written by one engine only: %s (%v), %s (%v)", pair[0], derr, pair[1], serr)
			continue
		}
		if derr != nil {
			continue
		}
		if d, s := rowsOf(t, db, pair[0]), rowsOf(t, db, pair[1]); !reflect.DeepEqual(d, s) {
			t.Errorf("%s and %s differ (%d and %d rows)", pair[0], pair[1], len(d), len(s))
		}
	}
	if *srep.Outcome == outcome.TableCheckFailed && (srep.Table.Written || srep.Quarantine.Written) {
		t.Errorf("a failed table check wrote: %+v %+v", srep.Table, srep.Quarantine)
	}
}

// seedHistory records earlier runs of the asset in the history file, each with the given values
// of its table checks (the i-th run the i-th value of each).
func seedHistory(t *testing.T, path, asset string, p *compile.Plan, values map[string][]float64) {
	t.Helper()
	n := 0
	for _, vs := range values {
		n = max(n, len(vs))
	}
	pass := outcome.AllValid
	for i := range n {
		rep := &outcome.Report{Asset: asset, Schema: p.Name, Outcome: &pass, RunID: fmt.Sprintf("seed-%s-%d", asset, i),
			StartedAt: time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC).Format(time.RFC3339Nano)}
		for check, vs := range values {
			if i < len(vs) {
				rep.Checks = append(rep.Checks, outcome.Check{Name: check, Passed: true, Table: &outcome.TableResult{Value: vs[i]}})
			}
		}
		if err := history.Append(context.Background(), path, report.New(rep, p, report.Facts{Input: "seed"})); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReferencesLikeDuckDB: foreign keys run on Spark with DuckDB's results: the orphans (keys
// not in the reference) fail and are quarantined, a NULL key passes, a composite key and a
// reserved-word column are read alike; a reference whose key column has another type is the
// column_schema_mismatch outcome before any row is read.
func TestReferencesLikeDuckDB(t *testing.T) {
	needSpark(t)
	db := duck(t)
	dir := t.TempDir()
	customers, products, wrong := filepath.Join(dir, "customers.parquet"), filepath.Join(dir, "products.parquet"), filepath.Join(dir, "wrong.parquet")
	writeParquet(t, db, "SELECT i::BIGINT AS id FROM range(30) t(i)", customers)
	writeParquet(t, db, `SELECT 'v' || (i % 3) AS vendor, 'sku-ü' || i AS "select" FROM range(10) t(i)`, products)
	writeParquet(t, db, "SELECT i::VARCHAR AS id FROM range(30) t(i)", wrong)
	unsigned := filepath.Join(dir, "unsigned.parquet") // read by Spark as bigint: its footer tells
	writeParquet(t, db, "SELECT i::UINTEGER AS id FROM range(30) t(i)", unsigned)
	in := filepath.Join(dir, "in.parquet")
	writeParquet(t, db, `SELECT i::BIGINT AS id, (CASE WHEN i % 7 = 0 THEN NULL ELSE i END)::BIGINT AS customer_id,
		CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || (i % 3) END AS vendor, 'sku-ü' || (i % 13) AS sku FROM range(40) t(i)`, in)
	schemaOf := func(ref string) string {
		return fmt.Sprintf(`schema: Orders
columns:
  - name: id
    type: Int64
  - name: customer_id
    type: Int64
    nullable: true
    references: {input: %s, column: id}
  - name: vendor
    type: String
    nullable: true
  - name: sku
    type: String
rules:
  - name: known_product
    references: {columns: [vendor, sku], input: %s, to: [vendor, select]}
`, ref, products)
	}

	t.Run("orphans quarantined, NULL keys pass", func(t *testing.T) {
		p := plan(t, schemaOf(customers))
		drep, srep, outs, derr, serr := runBoth(t, p, in, runner.Options{})
		compareReports(t, drep, srep, derr, serr)
		compareOutputs(t, db, srep, outs)
		counts := ruleCounts(srep)
		// customer_id 30 to 39 but for 35 (NULL: it passes) are not customers.
		if counts["dy_rule__customer_id__references"] != 9 || counts["dy_rule__known_product"] == 0 || srep.Rows.Invalid == 0 {
			t.Errorf("orphans: %v, %d invalid rows", counts, srep.Rows.Invalid)
		}
		if !srep.Quarantine.Written {
			t.Error("the orphans were not quarantined")
		}
		t.Logf("%d rows, %d orphans quarantined: identical on DuckDB and Spark (%v)", srep.Rows.Input, srep.Rows.Invalid, counts)
	})

	for _, ref := range []string{wrong, unsigned} {
		t.Run("a reference key of another type, before any row: "+filepath.Base(ref), func(t *testing.T) {
			referenceMismatch(t, schemaOf(ref), in)
		})
	}
}

// referenceMismatch requires the column_schema_mismatch outcome on both engines, naming the same
// reference key, before Spark reads any row.
func referenceMismatch(t *testing.T, yaml, in string) {
	t.Helper()
	p := plan(t, yaml)
	var mu sync.Mutex
	var ran []string
	eng := spark.NewWith(func(ctx context.Context) (spark.Session, error) {
		s, err := spark.Connect(ctx, server.Remote)
		return recorder{Session: s, mu: &mu, stmts: &ran}, err
	})
	a := runner.Asset{Name: "out", Plan: p, Input: runner.ParquetInput{Path: in}, Output: runner.ParquetOutput{Path: filepath.Join(t.TempDir(), "out.parquet")}, Quarantine: true}
	srep, serr := runner.NewOn(eng).Run(context.Background(), a, runner.Options{})
	duckEng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer duckEng.Close()
	a.Output = runner.ParquetOutput{Path: filepath.Join(t.TempDir(), "out.parquet")}
	drep, derr := duckEng.Run(context.Background(), a, runner.Options{})
	var se, de *outcome.ColumnSchemaError
	if !errors.As(serr, &se) || !errors.As(derr, &de) {
		t.Fatalf("want column schema errors: DuckDB %v, Spark %v", derr, serr)
	}
	if len(se.References) != 1 || len(de.References) != 1 {
		t.Fatalf("references: DuckDB %+v, Spark %+v", de.References, se.References)
	}
	d, s := de.References[0], se.References[0]
	if d.Rule != s.Rule || d.Key != s.Key || d.Column != s.Column || d.DType != s.DType || d.Input != s.Input || s.Rule != "customer_id|references" {
		t.Errorf("the mismatch: DuckDB %+v, Spark %+v", d, s)
	}
	if srep.Outcome == nil || *srep.Outcome != outcome.ColumnSchemaMismatch || *drep.Outcome != *srep.Outcome || srep.Rows != drep.Rows {
		t.Errorf("outcome: DuckDB %v %+v, Spark %v %+v", drep.Outcome, drep.Rows, srep.Outcome, srep.Rows)
	}
	if len(srep.Checks) != 1 || srep.Checks[0].Passed || srep.Checks[0].Name != drep.Checks[0].Name {
		t.Errorf("checks: %+v", srep.Checks)
	}
	for _, stmt := range ran {
		if strings.HasPrefix(stmt, "CACHE TABLE") || strings.Contains(stmt, "count(") {
			t.Errorf("a statement read rows before the mismatch was found: %s", stmt)
		}
	}
}
