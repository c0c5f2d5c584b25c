package duckdb_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/collection"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/sql"
)

// dbTable reads a table of a database file, ordered by its first column; ok is false when the
// table does not exist.
func (e *env) dbTable(file, schemaName, table string) (rows [][]any, ok bool) {
	e.t.Helper()
	if !exists(e.t, file) {
		return nil, false
	}
	e.exec("ATTACH " + lit(file) + " AS r (READ_ONLY)")
	defer e.exec("DETACH r")
	var n int
	require.NoError(e.t, e.db.QueryRow(
		"SELECT count(*) FROM duckdb_tables() WHERE database_name = 'r' AND schema_name = ? AND table_name = ?", schemaName, table).Scan(&n))
	if n == 0 {
		return nil, false
	}
	return e.query("SELECT * FROM " + sql.QualifiedIdent("r", schemaName, table) + " ORDER BY ALL"), true
}

// tablesCollection is orders, items and refunds, orders having items.
func tablesCollection() *collection.Collection {
	return collection.New("c").Member("orders", colOrders()).Member("items", colItems()).Member("refunds", colRefunds()).
		OneToAtLeastOne("has_items", "orders", "items")
}

// TestCollectionTablesOfOneDatabase: members writing tables of one DuckDB file (here under a
// reserved word, a Unicode name and another schema) write them in one transaction: after a run
// every member's new table and quarantine are there (NULL keys quarantined); when one member's
// write fails after another's ran (a view is where items' quarantine goes), every member keeps
// its previous table and quarantine, and the file is usable by the next run.
func TestCollectionTablesOfOneDatabase(t *testing.T) {
	e := newEnv(t)
	db := e.path("out", "wh.duckdb")
	c := tablesCollection()
	outs := map[string]runner.TableOutput{
		"orders":  {File: db, Table: "select"},
		"items":   {File: db, Table: "Positionen_ä_注文"},
		"refunds": {File: db, Schema: "money", Table: "order"},
	}
	run := func(orders, items, refunds string) (*outcome.CollectionReport, error) {
		assets := map[string]runner.Asset{}
		for m, rows := range map[string]string{"orders": orders, "items": items, "refunds": refunds} {
			in := e.parquet("in/"+m+".parquet", fmt.Sprintf(colSelects[m], rows))
			assets[m] = runner.Asset{Input: runner.ParquetInput{Path: in}, Output: outs[m], Quarantine: true}
		}
		return runCollection(t, c, assets, runner.Options{})
	}
	type state map[string][2]int // member -> rows of its table and its quarantine (-1: none)
	read := func() state {
		st := state{}
		for m, o := range outs {
			schemaName := o.Schema
			if schemaName == "" {
				schemaName = "main"
			}
			counts := [2]int{-1, -1}
			for i, name := range []string{o.Table, m + "_quarantine"} {
				if rows, ok := e.dbTable(db, schemaName, name); ok {
					counts[i] = len(rows)
				}
			}
			st[m] = counts
		}
		return st
	}

	rep, err := run("(1, 1.0), (2, 1.0), (NULL, 1.0)", "(1, 1, 'p', 1), (NULL, 2, 'p', 1)", "(1, 1, 1.0), (2, NULL, 1.0)")
	require.NoError(t, err)
	require.True(t, rep.Written)
	first := state{"orders": {1, 2}, "items": {1, 1}, "refunds": {1, 1}}
	require.Equal(t, first, read())
	rows, _ := e.dbTable(db, "main", "orders_quarantine")
	assert.Equal(t, []any{nil, 1.0}, rows[len(rows)-1][:2], "the NULL key is quarantined")

	// items' quarantine cannot replace a view: its write fails after orders' ran.
	e.withDB(db, "DROP TABLE d.items_quarantine", "CREATE VIEW d.items_quarantine AS SELECT 1 AS x")
	first["items"] = [2]int{1, -1}
	_, err = run("(1, 1.0), (3, 1.0)", "(1, 1, 'p', 1), (3, 1, 'p', 1), (3, 2, 'p', 0)", "(1, 1, 1.0), (1, 2, 1.0)")
	var merr *outcome.MemberError
	require.ErrorAs(t, err, &merr)
	assert.Equal(t, "items", merr.Member)
	assert.Equal(t, first, read(), "no member written")

	e.withDB(db, "DROP VIEW d.items_quarantine")
	rep, err = run("(1, 1.0), (3, 1.0)", "(1, 1, 'p', 1), (3, 1, 'p', 1), (3, 2, 'p', 0)", "(1, 1, 1.0), (1, 2, 1.0)")
	require.NoError(t, err)
	require.True(t, rep.Written)
	assert.Equal(t, state{"orders": {2, -1}, "items": {2, 1}, "refunds": {2, -1}}, read())
}

// TestCollectionTablesReadAndWriteOneDatabase: members reading tables of the database file the
// members write (one reads the table it replaces) attach it once, for writing.
func TestCollectionTablesReadAndWriteOneDatabase(t *testing.T) {
	e := newEnv(t)
	db := e.path("wh.duckdb")
	e.table(db, "raw_orders", fmt.Sprintf(colSelects["orders"], "(1, 1.0), (2, -1.0)"))
	e.table(db, "items", fmt.Sprintf(colSelects["items"], "(1, 1, 'p', 1), (2, 1, 'p', 1)"))
	c := collection.New("c").Member("orders", colOrders()).Member("items", colItems()).OneToAtLeastOne("has_items", "orders", "items")
	rep, err := runCollection(t, c, map[string]runner.Asset{
		"orders": {Input: runner.TableInput{File: db, Table: "raw_orders"}, Output: runner.TableOutput{File: db, Table: "orders"}, Quarantine: true},
		"items":  {Input: runner.TableInput{File: db, Table: "items"}, Output: runner.TableOutput{File: db, Table: "items"}, Quarantine: true},
	}, runner.Options{})
	require.NoError(t, err)
	require.True(t, rep.Written)
	rows, _ := e.dbTable(db, "main", "orders")
	assert.Equal(t, [][]any{{int64(1), 1.0}}, rows)
	rows, _ = e.dbTable(db, "main", "items")
	assert.Equal(t, [][]any{{int64(1), int64(1), "p", int64(1)}}, rows, "items keeps the rows of the orders kept")
	rows, _ = e.dbTable(db, "main", "items_quarantine")
	assert.Len(t, rows, 1)
}

// TestCollectionTablesExplainIsWhatRuns: explain prints what a collection's run writing tables
// of one database file executes: one ATTACH of the file, one BEGIN, every member's writes, one
// COMMIT.
func TestCollectionTablesExplainIsWhatRuns(t *testing.T) {
	e := newEnv(t)
	db := e.path("wh.duckdb")
	e.table(db, "orders_quarantine", fmt.Sprintf(colSelects["orders"], "(9, -1.0)"))
	in := func(m, rows string) runner.Input {
		return runner.ParquetInput{Path: e.parquet("in/"+m+".parquet", fmt.Sprintf(colSelects[m], rows))}
	}
	ca := runner.CollectionAsset{Plan: compileCollection(t, tablesCollection()), Members: map[string]runner.Asset{
		"orders":  {Input: in("orders", "(1, 1.0), (2, 1.0)"), Output: runner.TableOutput{File: db, Table: "orders"}, Quarantine: true},
		"items":   {Input: in("items", "(1, 1, 'p', 1), (1, 2, 'p', 0)"), Output: runner.TableOutput{File: db, Schema: "lines", Table: "select"}, Quarantine: true},
		"refunds": {Input: in("refunds", "(1, 1, 1.0)"), Output: runner.TableOutput{File: db, Table: "refunds"}, Quarantine: true},
	}}
	explainer, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	defer explainer.Close()
	text, err := explainer.ExplainCollection(context.Background(), ca, runner.Options{})
	require.NoError(t, err)

	var trace bytes.Buffer
	eng, err := duckdb.Open(duckdb.Config{Trace: &trace, TraceFull: true})
	require.NoError(t, err)
	defer eng.Close()
	rep, err := eng.RunCollection(context.Background(), ca, runner.Options{})
	require.NoError(t, err)
	require.True(t, rep.Written)
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		if !sectionTitle.MatchString(line) {
			lines = append(lines, line)
		}
	}
	checkTraceIsProgram(t, strings.Join(lines, "\n"), trace.String())
	// Not one conditional step more than runs: the statements of the transaction, as many in the
	// explained program as in the run.
	explained := explainedSteps(t, strings.Join(lines, "\n"))
	count := func(prefix string) (inText, inTrace int) {
		for _, s := range explained {
			if strings.HasPrefix(s.sql, prefix) {
				inText++
			}
		}
		for _, line := range strings.Split(trace.String(), "\n") {
			if m := traceLine.FindStringSubmatch(line); m != nil && strings.HasPrefix(m[1], prefix) {
				inTrace++
			}
		}
		return inText, inTrace
	}
	for _, stmt := range []string{"ATTACH " + lit(db), "BEGIN TRANSACTION", "COMMIT"} {
		inText, inTrace := count(stmt)
		assert.Equal(t, 1, inText, "%s in the explained program", stmt)
		assert.Equal(t, 1, inTrace, "%s in the run", stmt)
	}
	assert.Contains(t, text, "-- collection c: the one commit of every member's tables")
	rows, _ := e.dbTable(db, "lines", "select")
	assert.Len(t, rows, 1)
	rows, _ = e.dbTable(db, "main", "orders_quarantine_prev")
	assert.Nil(t, rows, "no quarantine kept: the input is not the table")
}

// Members writing tables of the engine's own database share its one transaction too.
func TestCollectionTablesOfTheEnginesDatabase(t *testing.T) {
	e := newEnv(t)
	c := collection.New("c").Member("orders", colOrders()).Member("items", colItems()).OneToAtLeastOne("has_items", "orders", "items")
	eng, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	defer eng.Close()
	in := func(m, rows string) runner.Input {
		return runner.ParquetInput{Path: e.parquet("in/"+m+".parquet", fmt.Sprintf(colSelects[m], rows))}
	}
	ca := runner.CollectionAsset{Plan: compileCollection(t, c), Members: map[string]runner.Asset{
		"orders": {Input: in("orders", "(1, 1.0), (2, 1.0)"), Output: runner.TableOutput{Table: "orders"}, Quarantine: true},
		"items":  {Input: in("items", "(1, 1, 'p', 1)"), Output: runner.TableOutput{Table: "items"}, Quarantine: true},
	}}
	text, err := eng.ExplainCollection(context.Background(), ca, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(text, "\nBEGIN TRANSACTION;"), text)
	assert.Contains(t, text, "-- 1. commit every member's tables: write (commit)")
	rep, err := eng.RunCollection(context.Background(), ca, runner.Options{})
	require.NoError(t, err)
	require.True(t, rep.Written)
	var orders, items, quarantined int
	require.NoError(t, eng.DB().QueryRow("SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM items), (SELECT count(*) FROM orders_quarantine)").Scan(&orders, &items, &quarantined))
	assert.Equal(t, [3]int{1, 1, 1}, [3]int{orders, items, quarantined})
}

// TestCollectionTablesDetachedAfterTheRun: the database file members write is detached when the
// run ends, written or not, though a later member attached another file (its input) after the
// first member's write was compiled; a failed write gives back the space it took.
func TestCollectionTablesDetachedAfterTheRun(t *testing.T) {
	e := newEnv(t)
	db, other := e.path("out", "wh.duckdb"), e.path("other.duckdb")
	c := collection.New("c").Member("orders", colOrders()).Member("items", colItems()).OneToAtLeastOne("has_items", "orders", "items")
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	attached := func() []string {
		rows, err := eng.DB().Query("SELECT path FROM duckdb_databases() WHERE path IS NOT NULL ORDER BY path")
		require.NoError(t, err)
		defer rows.Close()
		var paths []string
		for rows.Next() {
			var p string
			require.NoError(t, rows.Scan(&p))
			paths = append(paths, p)
		}
		require.NoError(t, rows.Err())
		return paths
	}
	// run writes orders 1..n, but 2 (its amount fails), each with one item.
	run := func(n int) error {
		e.table(other, "items", fmt.Sprintf("SELECT i AS order_id, 1::BIGINT AS line, 'p' AS product_id, 1::BIGINT AS qty FROM range(1, %d) t(i)", n+1))
		orders := fmt.Sprintf("SELECT i AS order_id, CASE WHEN i = 2 THEN -1.0 ELSE 1.0 END::DOUBLE AS amount FROM range(1, %d) t(i)", n+1)
		ca := runner.CollectionAsset{Plan: compileCollection(t, c), Members: map[string]runner.Asset{
			"orders": {Input: runner.ParquetInput{Path: e.parquet("in/orders.parquet", orders)},
				Output: runner.TableOutput{File: db, Table: "orders"}, Quarantine: true},
			"items": {Input: runner.TableInput{File: other, Table: "items"}, Output: runner.TableOutput{File: db, Table: "items"}, Quarantine: true},
		}}
		_, err := eng.RunCollection(context.Background(), ca, runner.Options{})
		return err
	}

	require.NoError(t, run(2))
	assert.Empty(t, attached(), "every file the run attached is detached")
	rows, _ := e.dbTable(db, "main", "items")
	assert.Len(t, rows, 1)

	// items' quarantine cannot replace a view: its write fails after orders' ran.
	e.withDB(db, "DROP TABLE d.items_quarantine", "CREATE VIEW d.items_quarantine AS SELECT 1 AS x")
	before, err := os.Stat(db)
	require.NoError(t, err)
	var merr *outcome.MemberError
	require.ErrorAs(t, run(200000), &merr)
	assert.Equal(t, "items", merr.Member)
	assert.Empty(t, attached(), "the file is detached after the failed write")
	after, err := os.Stat(db)
	require.NoError(t, err)
	assert.Equal(t, before.Size(), after.Size(), "the failed write gave back the space it took")
}
