package duckdb_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestReferences: a row whose key is missing from the reference data is invalid and quarantined
// with its rule column; a NULL key passes; a composite key passes when any part is NULL; the
// reference's own NULLs match nothing.
func TestReferences(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	customers := e.parquet("ref/customers.parquet", "SELECT * FROM (VALUES ('c1'), ('c2'), (NULL)) t(id)")
	products := e.parquet("ref/products.parquet", "SELECT * FROM (VALUES ('v1', 1::BIGINT), ('v2', 2), (NULL, 3)) t(vendor, sku)")
	orders := e.parquet("in/orders.parquet", `SELECT * FROM (VALUES
		(1, 'c1', 'v1', 1::BIGINT), (2, 'c9', 'v1', 1), (3, NULL, 'v2', 2), (4, 'c2', 'v1', 2), (5, 'c2', NULL, 3),
		(6, 'c2', 'v9', NULL), (7, 'c2', NULL, 9)) t(id, customer_id, vendor, sku)`)
	s := schema.New("Orders",
		schema.Int32("id"),
		schema.String("customer_id").Nullable().References(customers, "id"),
		schema.String("vendor").Nullable(),
		schema.Int64("sku").Nullable(),
	).AddReference("known_product", []string{"vendor", "sku"}, products, []string{"vendor", "sku"})
	out := runner.ParquetOutput{Path: e.path("out", "orders.parquet")}
	rep, err := run(t, s, runner.Asset{Input: runner.ParquetInput{Path: orders}, Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, outcome.Quarantined, *rep.Outcome)
	// Row 2's customer c9 and row 4's (v1, 2) are unknown; NULL keys (rows 3, 5, 6, 7) pass.
	assert.Equal(t, int64(2), rep.Rows.Invalid)
	assert.Equal(t, float64(1), metadata(t, rep, "dy_rule__customer_id__references")["dataframely/failed_row_count"])
	assert.Equal(t, float64(1), metadata(t, rep, "dy_rule__known_product")["dataframely/failed_row_count"])
	q := e.query("SELECT id, \"dy_rule__customer_id__references\", \"dy_rule__known_product\" FROM read_parquet(" + lit(e.path("out", "orders_quarantine.parquet")) + ") ORDER BY id")
	assert.Equal(t, [][]any{{int32(2), "invalid", "valid"}, {int32(4), "valid", "invalid"}}, q)

	// The semi-join runs inside the program: explain shows it.
	p, err := compile.Compile(s)
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	text, err := eng.ExplainAsset(context.Background(), runner.Asset{Plan: p, Input: runner.ParquetInput{Path: orders}}, runner.Options{})
	require.NoError(t, err)
	assert.Contains(t, text, `"customer_id" IN (SELECT "id" FROM read_parquet(`+lit(customers)+`) WHERE "id" IS NOT NULL)`)
	assert.Contains(t, text, `("vendor", "sku") IN (SELECT "vendor", "sku" FROM read_parquet(`+lit(products)+`)`)

	// From a DuckDB table, with a group rule on the reference's key (one aggregate looks up
	// each customer and counts its rows): the same rows fail.
	db := e.path("in", "orders.duckdb")
	e.table(db, "orders", "SELECT * FROM read_parquet("+lit(orders)+")")
	grouped := schema.New("Orders",
		schema.Int32("id"),
		schema.String("customer_id").Nullable().References(customers, "id"),
		schema.String("vendor").Nullable(),
		schema.Int64("sku").Nullable(),
	).AddReference("known_product", []string{"vendor", "sku"}, products, []string{"vendor", "sku"}).
		AddGroupRule("few_orders", "count(*) < 10", "customer_id")
	rep, err = run(t, grouped, runner.Asset{Input: runner.TableInput{File: db, Table: "orders"}, Output: runner.TableOutput{File: db, Table: "clean"}, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, outcome.Quarantined, *rep.Outcome)
	assert.Equal(t, int64(2), rep.Rows.Invalid)
	assert.Equal(t, float64(1), metadata(t, rep, "dy_rule__customer_id__references")["dataframely/failed_row_count"])
	assert.Equal(t, float64(1), metadata(t, rep, "dy_rule__known_product")["dataframely/failed_row_count"])
	rows, cols, ok := e.tableRows(db, "clean_quarantine")
	require.True(t, ok)
	var got [][]any
	for _, row := range rows {
		pick := []any{row[0]}
		for _, name := range []string{"dy_rule__customer_id__references", "dy_rule__known_product", "dy_rule__few_orders"} {
			i := slices.IndexFunc(cols, func(c string) bool { return strings.HasPrefix(c, name+" ") })
			require.GreaterOrEqual(t, i, 0, "quarantine columns %v", cols)
			pick = append(pick, row[i])
		}
		got = append(got, pick)
	}
	assert.Equal(t, [][]any{{int32(2), "invalid", "valid", "valid"}, {int32(4), "valid", "invalid", "valid"}}, got)
}

// TestReferenceProblems: a reference whose key type differs is a column-schema mismatch, and one
// that cannot be read an input error naming it, both before any row is read.
func TestReferenceProblems(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ints := e.parquet("ref/ints.parquet", "SELECT range AS id FROM range(3)")
	csv := e.path("ref", "customers.csv")
	e.exec("COPY (SELECT * FROM (VALUES ('c1'), ('c2')) t(id)) TO " + lit(csv) + " (HEADER)")
	orders := e.parquet("in/orders.parquet", "SELECT * FROM (VALUES ('c1'), ('c3')) t(customer_id)")
	in := runner.Asset{Input: runner.ParquetInput{Path: orders}}

	// The problem is the reference's, said as such: no hint to declare the input's column
	// String, which it is.
	rep, err := run(t, schema.New("Orders", schema.String("customer_id").References(ints, "id")), in, runner.Options{})
	var colErr *outcome.ColumnSchemaError
	require.ErrorAs(t, err, &colErr)
	assert.Contains(t, err.Error(), "rule customer_id|references compares customer_id (String) with "+ints+"'s id (BIGINT)")
	assert.NotContains(t, err.Error(), "declare")
	assert.Equal(t, outcome.ColumnSchemaMismatch, *rep.Outcome)
	require.Len(t, rep.Checks, 1)
	assert.False(t, rep.Checks[0].Passed)
	assert.Equal(t, err.Error(), rep.Checks[0].ResultDescription)

	// Every reference's problems at once, a missing column with the reference's nearest one.
	both := schema.New("Orders", schema.String("customer_id").References(ints, "id")).
		AddReference("known", []string{"customer_id"}, csv, []string{"ID_"})
	_, err = run(t, both, in, runner.Options{})
	require.ErrorAs(t, err, &colErr)
	assert.Len(t, colErr.References, 2)
	assert.Contains(t, err.Error(), "rule known looks customer_id up in "+csv+"'s column ID_, which it does not have (did you mean 'id'? it has id); "+
		"rule customer_id|references compares customer_id (String) with "+ints+"'s id (BIGINT). ")

	_, err = run(t, schema.New("Orders", schema.String("customer_id").References(filepath.Join(e.dir, "ref", "absent.parquet"), "id")), in, runner.Options{})
	var inErr *outcome.InputError
	require.ErrorAs(t, err, &inErr)
	assert.Contains(t, err.Error(), "absent.parquet (the reference data of rule customer_id|references)")

	_, err = run(t, schema.New("Orders", schema.String("customer_id").References(ints, "nope")), in, runner.Options{})
	require.ErrorAs(t, err, &colErr)
	assert.Contains(t, err.Error(), "column nope, which it does not have (it has id)")

	rep, err = run(t, schema.New("Orders", schema.String("customer_id").References(csv, "id")), in, runner.Options{})
	var abort *outcome.ValidationAbortError
	require.ErrorAs(t, err, &abort, "a CSV reference works too")
	assert.Equal(t, int64(1), rep.Rows.Invalid)

	gz := e.path("ref", "customers.csv.gz")
	e.exec("COPY (SELECT * FROM (VALUES ('c1'), ('c2')) t(id)) TO " + lit(gz) + " (HEADER, COMPRESSION gzip)")
	rep, err = run(t, schema.New("Orders", schema.String("customer_id").References(gz, "id")), in, runner.Options{})
	require.ErrorAs(t, err, &abort, "a compressed CSV reference is read as CSV")
	assert.Equal(t, int64(1), rep.Rows.Invalid)
}

// TestReferenceFilesGuarded: a reference that is a named pipe is refused before DuckDB opens it
// (it would block the run for good), and a report file that is a reference's data is refused
// before the run reads anything.
func TestReferenceFilesGuarded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	orders := e.parquet("in/orders.parquet", "SELECT * FROM (VALUES ('c1'), ('c3')) t(customer_id)")
	in := runner.Asset{Input: runner.ParquetInput{Path: orders}}
	fifo := e.path("ref", "fifo.parquet")
	require.NoError(t, os.MkdirAll(filepath.Dir(fifo), 0o755))
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	done := make(chan error, 1)
	go func() {
		_, err := run(t, schema.New("Orders", schema.String("customer_id").References(fifo, "id")), in, runner.Options{})
		done <- err
	}()
	select {
	case err := <-done:
		var inErr *outcome.InputError
		require.ErrorAs(t, err, &inErr)
		assert.Contains(t, err.Error(), fifo+" is a named pipe (FIFO), not a regular file")
		assert.Contains(t, err.Error(), "the reference data of rule customer_id|references")
	case <-time.After(60 * time.Second):
		t.Fatal("the run hung on a reference that is a named pipe")
	}

	ref := e.parquet("ref/customers.parquet", "SELECT * FROM (VALUES ('c1'), ('c2')) t(id)")
	before, err := os.ReadFile(ref)
	require.NoError(t, err)
	_, err = run(t, schema.New("Orders", schema.String("customer_id").References(ref, "id")), in,
		runner.Options{ReportFiles: []runner.ReportFile{{Role: "--html", Path: ref}}})
	var refused *runner.ReportFileError
	require.ErrorAs(t, err, &refused)
	assert.Contains(t, err.Error(), "is the same file as the reference data of rule customer_id|references")
	after, err := os.ReadFile(ref)
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

// TestReferenceTables: a reference to a table of a DuckDB database file, single and composite,
// attached read-only; orphans are quarantined with their rule column, NULL keys pass; the
// ATTACH and the semi-join are in explain; the same file can be the input and the reference;
// a type mismatch, a missing file and a missing table are refused before any row is read.
func TestReferenceTables(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	refs := e.path("ref", "shop.duckdb")
	require.NoError(t, os.MkdirAll(filepath.Dir(refs), 0o755))
	e.exec("ATTACH " + lit(refs) + " AS d")
	e.exec("CREATE SCHEMA d.crm")
	e.exec("DETACH d")
	e.table(refs, "crm.customers", "SELECT * FROM (VALUES ('c1'), ('c2'), (NULL)) t(id)")
	e.table(refs, "products", "SELECT * FROM (VALUES ('v1', 1::BIGINT), ('v2', 2), (NULL, 3)) t(vendor, sku)")
	orders := e.parquet("in/orders.parquet", `SELECT * FROM (VALUES
		(1, 'c1', 'v1', 1::BIGINT), (2, 'c9', 'v1', 1), (3, NULL, 'v2', 2), (4, 'c2', 'v1', 2), (5, 'c2', NULL, 3)) t(id, customer_id, vendor, sku)`)
	s := schema.New("Orders",
		schema.Int32("id"),
		schema.String("customer_id").Nullable().References(refs+":crm.customers", "id"),
		schema.String("vendor").Nullable(),
		schema.Int64("sku").Nullable(),
	).AddReference("known_product", []string{"vendor", "sku"}, refs+":products", []string{"vendor", "sku"})
	out := runner.ParquetOutput{Path: e.path("out", "orders.parquet")}
	rep, err := run(t, s, runner.Asset{Input: runner.ParquetInput{Path: orders}, Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, outcome.Quarantined, *rep.Outcome)
	assert.Equal(t, int64(2), rep.Rows.Invalid)
	q := e.query("SELECT id, \"dy_rule__customer_id__references\", \"dy_rule__known_product\" FROM read_parquet(" + lit(e.path("out", "orders_quarantine.parquet")) + ") ORDER BY id")
	assert.Equal(t, [][]any{{int32(2), "invalid", "valid"}, {int32(4), "valid", "invalid"}}, q)

	p, err := compile.Compile(s)
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	text, err := eng.ExplainAsset(context.Background(), runner.Asset{Plan: p, Input: runner.ParquetInput{Path: orders}}, runner.Options{})
	require.NoError(t, err)
	assert.Contains(t, text, "ATTACH "+lit(refs)+" AS ")
	assert.Contains(t, text, "(READ_ONLY)")
	assert.Contains(t, text, `"customer_id" IN (SELECT "id" FROM "temp"."main"."__tg_ref_1" WHERE "id" IS NOT NULL)`)
	assert.Contains(t, text, `."crm"."customers"`)
	assert.Contains(t, text, `("vendor", "sku") IN (SELECT "vendor", "sku" FROM "temp"."main"."__tg_ref_0"`)
	// Explain is what runs: every statement of a traced run, the ATTACH and the views included.
	_, trace, err := runTraced(t, s, runner.Asset{Input: runner.ParquetInput{Path: orders}}, runner.Options{})
	var aborted *outcome.ValidationAbortError
	require.ErrorAs(t, err, &aborted)
	stmts := checkTraceIsProgram(t, text, trace)
	assert.Contains(t, strings.Join(stmts, "\n"), "ATTACH "+lit(refs))

	// The same database file as the input and the reference: attached once.
	e.table(refs, "orders", "SELECT * FROM (VALUES ('c1'), ('c3'), (NULL)) t(customer_id)")
	same := schema.New("Orders", schema.String("customer_id").Nullable().References(refs+":crm.customers", "id"))
	rep, err = run(t, same, runner.Asset{Input: runner.TableInput{File: refs, Table: "orders"}}, runner.Options{})
	var abort *outcome.ValidationAbortError
	require.ErrorAs(t, err, &abort)
	assert.Equal(t, int64(1), rep.Rows.Invalid)

	// The reference's database file is the output's: attached once, for writing.
	rep, err = run(t, same, runner.Asset{Input: runner.ParquetInput{Path: e.parquet("in/k.parquet", "SELECT * FROM (VALUES ('c1'), ('c2')) t(customer_id)")},
		Output: runner.TableOutput{File: refs, Table: "valid_orders"}}, runner.Options{})
	require.NoError(t, err)
	assert.True(t, rep.Table.Written)
	rows, _, ok := e.tableRows(refs, "valid_orders")
	require.True(t, ok)
	assert.Len(t, rows, 2)

	in := runner.Asset{Input: runner.ParquetInput{Path: e.parquet("in/keys.parquet", "SELECT * FROM (VALUES ('c1'), ('c3')) t(customer_id)")}}
	ints := schema.New("Orders", schema.Int64("customer_id").References(refs+":crm.customers", "id"))
	_, err = run(t, ints, runner.Asset{Input: runner.ParquetInput{Path: e.parquet("in/ints.parquet", "SELECT 1::BIGINT AS customer_id")}}, runner.Options{})
	var colErr *outcome.ColumnSchemaError
	require.ErrorAs(t, err, &colErr)
	assert.Contains(t, err.Error(), "rule customer_id|references compares customer_id (Int64) with "+refs+":crm.customers's id (VARCHAR)")

	_, err = run(t, schema.New("Orders", schema.String("customer_id").References(e.path("ref", "absent.duckdb")+":customers", "id")), in, runner.Options{})
	var inErr *outcome.InputError
	require.ErrorAs(t, err, &inErr)
	assert.Contains(t, err.Error(), "absent.duckdb:customers (the reference data of rule customer_id|references)")
	assert.Contains(t, err.Error(), "no such file")
	assert.NoFileExists(t, e.path("ref", "absent.duckdb"), "a missing reference database is not created")

	_, err = run(t, schema.New("Orders", schema.String("customer_id").References(refs+":clients", "id")), in, runner.Options{})
	require.ErrorAs(t, err, &inErr)
	assert.Contains(t, err.Error(), "no table main.clients in "+refs)
	assert.Contains(t, err.Error(), "crm.customers")
}
