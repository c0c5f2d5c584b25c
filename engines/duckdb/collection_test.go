package duckdb_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/collection"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// The members of the test collections: orders by order_id, items and refunds by order_id and a
// number, products (by product_id) outside the common key.
var (
	colOrders = func() *schema.Schema {
		return schema.New("orders", schema.Int64("order_id").PrimaryKey(), schema.Float64("amount").Min(0))
	}
	colItems = func() *schema.Schema {
		return schema.New("items", schema.Int64("order_id").PrimaryKey(), schema.Int64("line").PrimaryKey(),
			schema.String("product_id").Nullable(), schema.Int64("qty").Min(1))
	}
	colRefunds = func() *schema.Schema {
		return schema.New("refunds", schema.Int64("order_id").PrimaryKey(), schema.Int64("refund_id").PrimaryKey(), schema.Float64("amount").Min(0))
	}
	colProducts = func() *schema.Schema {
		return schema.New("products", schema.String("product_id").PrimaryKey(), schema.String("name"))
	}
	colSelects = map[string]string{
		"orders":   "SELECT CAST(a AS BIGINT) AS order_id, CAST(b AS DOUBLE) AS amount FROM (VALUES %s) t(a, b)",
		"items":    "SELECT CAST(a AS BIGINT) AS order_id, CAST(b AS BIGINT) AS line, CAST(c AS VARCHAR) AS product_id, CAST(d AS BIGINT) AS qty FROM (VALUES %s) t(a, b, c, d)",
		"refunds":  "SELECT CAST(a AS BIGINT) AS order_id, CAST(b AS BIGINT) AS refund_id, CAST(c AS DOUBLE) AS amount FROM (VALUES %s) t(a, b, c)",
		"products": "SELECT CAST(a AS VARCHAR) AS product_id, CAST(b AS VARCHAR) AS name FROM (VALUES %s) t(a, b)",
	}
)

func compileCollection(t *testing.T, c *collection.Collection) *compile.CollectionPlan {
	t.Helper()
	cp, err := compile.CompileCollection(context.Background(), c)
	require.NoError(t, err)
	return cp
}

func runCollection(t *testing.T, c *collection.Collection, assets map[string]runner.Asset, opts runner.Options) (*outcome.CollectionReport, error) {
	t.Helper()
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	rep, err := eng.RunCollection(context.Background(), runner.CollectionAsset{Plan: compileCollection(t, c), Members: assets}, opts)
	require.NotNil(t, rep)
	return rep, err
}

// TestCollectionRelationships checks what each member keeps, and what each filter fails, against
// dataframely's Collection.filter: filters over the members' valid rows, duplicates dropped, NULL
// keys never matching, optional and ignored members, failure propagation, references.
func TestCollectionRelationships(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func() *collection.Collection
		data  map[string]string // member -> VALUES rows; absent: the member is not given
		kept  map[string][]any  // member -> the first column of its kept rows, in input order
		fail  map[string]map[string]int64
	}{{
		name: "one to at least one",
		build: func() *collection.Collection {
			return collection.New("c").Member("orders", colOrders()).Member("items", colItems()).OneToAtLeastOne("has_items", "orders", "items")
		},
		// order 2 has no item, 3 is invalid (its item then fails the filter), 4's only item is
		// invalid, item 5 has no order.
		data: map[string]string{"orders": "(1, 1.0), (2, 1.0), (3, -1.0), (4, 1.0)", "items": "(1, 1, 'p', 1), (1, 2, 'p', 2), (3, 1, 'p', 1), (4, 1, 'p', 0), (5, 1, 'p', 1)"},
		kept: map[string][]any{"orders": {int64(1)}, "items": {int64(1), int64(1)}},
		fail: map[string]map[string]int64{"has_items": {"orders": 2, "items": 2}},
	}, {
		name: "one to one drops duplicates on both sides",
		build: func() *collection.Collection {
			return collection.New("c").Member("orders", colOrders()).Member("items", colItems()).OneToOne("one_item", "orders", "items")
		},
		// order 1 has two items (not one to one), 2 one, 3 none; item 9 has no order.
		data: map[string]string{"orders": "(1, 1.0), (2, 1.0), (3, 1.0)", "items": "(1, 1, 'p', 1), (1, 2, 'p', 1), (2, 1, 'p', 1), (9, 1, 'p', 1)"},
		kept: map[string][]any{"orders": {int64(2)}, "items": {int64(2)}},
		fail: map[string]map[string]int64{"one_item": {"orders": 2, "items": 3}},
	}, {
		name: "a warn primary key leaves duplicate keys valid",
		build: func() *collection.Collection {
			orders := colOrders().SeverityOf(schema.RulePrimaryKey, schema.Warn)
			return collection.New("c").Member("orders", orders).Member("items", colItems()).OneToAtLeastOne("has_items", "orders", "items")
		},
		// order 1's two rows are valid, so its key occurs twice: the filter keeps only order 2.
		data: map[string]string{"orders": "(1, 1.0), (1, 2.0), (2, 1.0)", "items": "(1, 1, 'p', 1), (2, 1, 'p', 1)"},
		kept: map[string][]any{"orders": {int64(2)}, "items": {int64(2)}},
		fail: map[string]map[string]int64{"has_items": {"orders": 2, "items": 1}},
	}, {
		name: "duplicate keys are member-invalid and count for no filter",
		build: func() *collection.Collection {
			return collection.New("c").Member("orders", colOrders()).Member("items", colItems()).OneToAtLeastOne("has_items", "orders", "items")
		},
		data: map[string]string{"orders": "(1, 1.0), (1, 2.0), (2, 1.0), (3, 1.0)", "items": "(1, 1, 'p', 1), (2, 1, 'p', 1), (2, 1, 'q', 1), (3, 1, 'p', 1)"},
		kept: map[string][]any{"orders": {int64(3)}, "items": {int64(3)}},
		// orders 1 twice (primary key) and items (2, 1) twice: order 2's items are invalid, so
		// order 2 fails the filter; order 1 is invalid, so item 1 fails it.
		fail: map[string]map[string]int64{"has_items": {"orders": 1, "items": 1}},
	}, {
		name: "propagation, and a NULL key drops nothing",
		build: func() *collection.Collection {
			return collection.New("c").Member("orders", colOrders()).Member("items", colItems()).
				Member("refunds", colRefunds(), collection.PropagateRowFailures())
		},
		// refund (2, 1) is invalid: order 2 and its items go; the refund with a NULL order_id
		// is invalid too, and drops nothing.
		data: map[string]string{"orders": "(1, 1.0), (2, 1.0), (3, 1.0)", "items": "(1, 1, 'p', 1), (2, 1, 'p', 1), (2, 2, 'p', 1)",
			"refunds": "(2, 1, -5.0), (2, 2, 1.0), (NULL, 3, 1.0), (1, 1, 1.0)"},
		kept: map[string][]any{"orders": {int64(1), int64(3)}, "items": {int64(1)}, "refunds": {int64(1)}},
		fail: map[string]map[string]int64{"refunds|failure_propagation": {"orders": 1, "items": 2, "refunds": 1}},
	}, {
		name: "optional member absent: its filter is skipped",
		build: func() *collection.Collection {
			return collection.New("c").Member("orders", colOrders()).Member("refunds", colRefunds(), collection.Optional(), collection.PropagateRowFailures()).
				OneToAtLeastOne("refunded", "orders", "refunds")
		},
		data: map[string]string{"orders": "(1, 1.0), (2, 1.0)"},
		kept: map[string][]any{"orders": {int64(1), int64(2)}},
		fail: map[string]map[string]int64{"refunded": {"orders": 0}, "refunds|failure_propagation": {"orders": 0}},
	}, {
		name: "ignored member and a reference, NULL passes",
		build: func() *collection.Collection {
			return collection.New("c").Member("orders", colOrders()).Member("items", colItems()).
				Member("products", colProducts(), collection.IgnoredInFilters()).
				OneToAtLeastOne("has_items", "orders", "items").Reference("known_product", "items.product_id", "products.product_id")
		},
		// item (2, 1) names an unknown product, (2, 2) an invalid one (a duplicate), (1, 2) none.
		// A reference fails the row alone: order 2 still has valid items for the filter.
		data: map[string]string{"orders": "(1, 1.0), (2, 1.0)", "items": "(1, 1, 'p1', 1), (1, 2, NULL, 1), (2, 1, 'zz', 1), (2, 2, 'dup', 1)",
			"products": "('p1', 'mug'), ('dup', 'a'), ('dup', 'b')"},
		kept: map[string][]any{"orders": {int64(1), int64(2)}, "items": {int64(1), int64(1)}, "products": {"p1"}},
		fail: map[string]map[string]int64{"has_items": {"orders": 0, "items": 0}, "known_product": {"items": 2}},
	}, {
		name: "a warn reference and a warn filter keep their failing rows",
		build: func() *collection.Collection {
			return collection.New("c").Member("orders", colOrders()).Member("items", colItems()).
				Member("products", colProducts(), collection.IgnoredInFilters()).
				OneToAtLeastOne("has_items", "orders", "items").Reference("known_product", "items.product_id", "products.product_id").
				Warn("known_product").Warn("has_items")
		},
		// item (2, 1) names an unknown product and order 3 has no items: both stay, counted.
		data: map[string]string{"orders": "(1, 1.0), (2, 1.0), (3, 1.0)", "items": "(1, 1, 'p1', 1), (2, 1, 'zz', 1)",
			"products": "('p1', 'mug')"},
		kept: map[string][]any{"orders": {int64(1), int64(2), int64(3)}, "items": {int64(1), int64(2)}, "products": {"p1"}},
		fail: map[string]map[string]int64{"has_items": {"orders": 1, "items": 0}, "known_product": {"items": 1}},
	}, {
		name: "sql filter over the members' valid rows",
		build: func() *collection.Collection {
			return collection.New("c").Member("orders", colOrders()).Member("items", colItems()).SQLFilter("two_units", "items", "sum(qty) >= 2")
		},
		// order 1: 1 + 1 units; order 2: 1 unit, and an invalid line that would have made 2;
		// order 3: no items at all.
		data: map[string]string{"orders": "(1, 1.0), (2, 1.0), (3, 1.0)", "items": "(1, 1, 'p', 1), (1, 2, 'p', 1), (2, 1, 'p', 1), (2, 2, 'p', 0)"},
		kept: map[string][]any{"orders": {int64(1)}, "items": {int64(1), int64(1)}},
		fail: map[string]map[string]int64{"two_units": {"orders": 2, "items": 1}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			assets := map[string]runner.Asset{}
			for m, rows := range tc.data {
				in := e.parquet("in/"+m+".parquet", fmt.Sprintf(colSelects[m], rows))
				assets[m] = runner.Asset{Input: runner.ParquetInput{Path: in}, Output: runner.ParquetOutput{Path: e.path("out", m+".parquet")}, Quarantine: true}
			}
			rep, err := runCollection(t, tc.build(), assets, runner.Options{})
			require.NoError(t, err)
			require.Equal(t, outcome.CollectionPassed, *rep.Outcome)
			require.True(t, rep.Written)
			for m, want := range tc.kept {
				var got []any
				for _, row := range e.parquetRows(e.path("out", m+".parquet")) {
					got = append(got, row[0])
				}
				require.ElementsMatch(t, want, got, m)
				if len(want) == 0 {
					require.Empty(t, got, m)
				}
			}
			for _, fr := range rep.Filters {
				want, ok := tc.fail[fr.Name]
				if !ok {
					continue
				}
				require.Equal(t, want, fr.Failed, fr.Name)
				delete(tc.fail, fr.Name)
			}
			require.Empty(t, tc.fail, "filters the report did not list")
		})
	}
}

// Without a quarantine, an invalid row in one member writes no member; the report says why.
func TestCollectionAllOrNothing(t *testing.T) {
	e := newEnv(t)
	orders := e.parquet("in/orders.parquet", fmt.Sprintf(colSelects["orders"], "(1, 1.0), (2, 1.0)"))
	items := e.parquet("in/items.parquet", fmt.Sprintf(colSelects["items"], "(1, 1, 'p', 1), (2, 1, 'p', 0)"))
	c := collection.New("c").Member("orders", colOrders()).Member("items", colItems())
	assets := map[string]runner.Asset{
		"orders": {Input: runner.ParquetInput{Path: orders}, Output: runner.ParquetOutput{Path: e.path("out", "orders.parquet")}},
		"items":  {Input: runner.ParquetInput{Path: items}, Output: runner.ParquetOutput{Path: e.path("out", "items.parquet")}},
	}
	rep, err := runCollection(t, c, assets, runner.Options{})
	var cerr *outcome.CollectionError
	require.ErrorAs(t, err, &cerr)
	var abort *outcome.ValidationAbortError
	require.ErrorAs(t, err, &abort, "the member's typed error decides the exit code")
	require.Equal(t, outcome.CollectionFailed, *rep.Outcome)
	require.False(t, rep.Written)
	require.Equal(t, outcome.AllValid, *rep.Members["orders"].Outcome)
	require.False(t, rep.Members["orders"].Table.Written, "a valid member is not written when another fails")
	require.Equal(t, outcome.Aborted, *rep.Members["items"].Outcome)
	for _, m := range []string{"orders", "items"} {
		_, err := os.Stat(e.path("out", m+".parquet"))
		require.True(t, errors.Is(err, os.ErrNotExist), m)
	}

	// Fixed, both are written.
	e.parquet("in/items.parquet", fmt.Sprintf(colSelects["items"], "(1, 1, 'p', 1), (2, 1, 'p', 3)"))
	rep, err = runCollection(t, c, assets, runner.Options{})
	require.NoError(t, err)
	require.True(t, rep.Written)
	require.Len(t, e.parquetRows(e.path("out", "orders.parquet")), 2)
	require.Len(t, e.parquetRows(e.path("out", "items.parquet")), 2)
}

// The quarantine of a member holds the collection's rule columns.
func TestCollectionQuarantineColumns(t *testing.T) {
	e := newEnv(t)
	orders := e.parquet("in/orders.parquet", fmt.Sprintf(colSelects["orders"], "(1, 1.0), (2, 1.0)"))
	items := e.parquet("in/items.parquet", fmt.Sprintf(colSelects["items"], "(1, 1, 'p', 1)"))
	c := collection.New("c").Member("orders", colOrders()).Member("items", colItems()).OneToAtLeastOne("has_items", "orders", "items")
	_, err := runCollection(t, c, map[string]runner.Asset{
		"orders": {Input: runner.ParquetInput{Path: orders}, Output: runner.ParquetOutput{Path: e.path("out", "orders.parquet")}, Quarantine: true},
		"items":  {Input: runner.ParquetInput{Path: items}, Output: runner.ParquetOutput{Path: e.path("out", "items.parquet")}, Quarantine: true},
	}, runner.Options{})
	require.NoError(t, err)
	cols := e.parquetColumns(e.path("out", "orders_quarantine.parquet"))
	require.Contains(t, cols, "dy_rule__has_items VARCHAR")
	rows := e.query("SELECT order_id, dy_rule__has_items::VARCHAR FROM " + lit(e.path("out", "orders_quarantine.parquet")))
	require.Equal(t, [][]any{{int64(2), "invalid"}}, rows)
}

func TestCollectionMissingMember(t *testing.T) {
	c := collection.New("c").Member("orders", colOrders()).Member("items", colItems())
	eng, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	defer eng.Close()
	cp := compileCollection(t, c)
	_, err = eng.RunCollection(context.Background(), runner.CollectionAsset{Plan: cp, Members: map[string]runner.Asset{"orders": {Input: runner.ParquetInput{Path: "x.parquet"}}}}, runner.Options{})
	require.ErrorContains(t, err, "no input for member items, which is not optional")
	_, err = eng.RunCollection(context.Background(), runner.CollectionAsset{Plan: cp, Members: map[string]runner.Asset{"order": {}}}, runner.Options{})
	require.ErrorContains(t, err, "collection c has no member order; its members are orders, items")
}

// Two members read tables of one DuckDB file: the file is attached once for both.
func TestCollectionMembersInOneDatabase(t *testing.T) {
	e := newEnv(t)
	db := e.path("shop.duckdb")
	e.table(db, "orders", fmt.Sprintf(colSelects["orders"], "(1, 1.0), (2, 1.0)"))
	e.table(db, "items", fmt.Sprintf(colSelects["items"], "(1, 1, 'p', 1)"))
	c := collection.New("c").Member("orders", colOrders()).Member("items", colItems()).OneToAtLeastOne("has_items", "orders", "items")
	rep, err := runCollection(t, c, map[string]runner.Asset{
		"orders": {Input: runner.TableInput{File: db, Table: "orders"}, Output: runner.ParquetOutput{Path: e.path("out", "orders.parquet")}, Quarantine: true},
		"items":  {Input: runner.TableInput{File: db, Table: "items"}, Output: runner.ParquetOutput{Path: e.path("out", "items.parquet")}, Quarantine: true},
	}, runner.Options{})
	require.NoError(t, err)
	require.True(t, rep.Written)
	require.Equal(t, [][]any{{int64(1), 1.0}}, e.parquetRows(e.path("out", "orders.parquet")))
}

var sectionTitle = regexp.MustCompile(`^-- (member|collection|cleanup)\b`)

// Every statement a collection's run executes is the explained one, in its order: each
// member's program up to its counts, the collection's steps, each member's rest, the cleanup.
func TestCollectionExplainIsWhatRuns(t *testing.T) {
	e := newEnv(t)
	db := e.path("shop.duckdb")
	e.table(db, "items", fmt.Sprintf(colSelects["items"], "(1, 1, 'p1', 1), (2, 1, 'zz', 1), (3, 1, 'p1', 0)"))
	orders := e.parquet("in/orders.parquet", fmt.Sprintf(colSelects["orders"], "(1, 1.0), (2, 1.0), (4, -1.0)"))
	refunds := e.parquet("in/refunds.parquet", fmt.Sprintf(colSelects["refunds"], "(1, 1, 1.0), (2, 1, -1.0)"))
	products := e.parquet("in/products.parquet", fmt.Sprintf(colSelects["products"], "('p1', 'mug')"))
	c := collection.New("c").Member("orders", colOrders()).Member("items", colItems()).
		Member("refunds", colRefunds(), collection.PropagateRowFailures()).
		Member("products", colProducts(), collection.IgnoredInFilters()).
		OneToAtLeastOne("has_items", "orders", "items").SQLFilter("units", "items", "sum(qty) > 0").
		Reference("known_product", "items.product_id", "products.product_id")
	cp := compileCollection(t, c)
	ca := runner.CollectionAsset{Plan: cp, Members: map[string]runner.Asset{
		"orders":   {Input: runner.ParquetInput{Path: orders}, Output: runner.ParquetOutput{Path: e.path("out", "orders.parquet")}, Quarantine: true},
		"items":    {Input: runner.TableInput{File: db, Table: "items"}, Output: runner.ParquetOutput{Path: e.path("out", "items.parquet")}, Quarantine: true},
		"refunds":  {Input: runner.ParquetInput{Path: refunds}, Output: runner.ParquetOutput{Path: e.path("out", "refunds.parquet")}, Quarantine: true},
		"products": {Input: runner.ParquetInput{Path: products}, Output: runner.ParquetOutput{Path: e.path("out", "products.parquet")}, Quarantine: true},
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
	// The sections' titles are comments of their own, which the single table's listing has not.
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		if !sectionTitle.MatchString(line) {
			lines = append(lines, line)
		}
	}
	stmts := checkTraceIsProgram(t, strings.Join(lines, "\n"), trace.String())
	joined := strings.Join(stmts, "\n")
	for _, want := range []string{`INSERT INTO "__tg_failed_`, `UPDATE "__tg_failed_`, "GROUP BY ALL HAVING coalesce(", "sum(qty)", "COPY (SELECT s."} {
		require.Contains(t, joined, want)
	}
}

// An optional member whose input matches no file is absent: its filter is skipped, the others run.
func TestCollectionOptionalMemberWithoutData(t *testing.T) {
	e := newEnv(t)
	orders := e.parquet("in/orders.parquet", fmt.Sprintf(colSelects["orders"], "(1, 1.0), (2, 1.0)"))
	c := collection.New("c").Member("orders", colOrders()).Member("refunds", colRefunds(), collection.Optional()).
		OneToAtLeastOne("refunded", "orders", "refunds")
	rep, err := runCollection(t, c, map[string]runner.Asset{
		"orders":  {Input: runner.ParquetInput{Path: orders}, Output: runner.ParquetOutput{Path: e.path("out", "orders.parquet")}},
		"refunds": {Input: runner.ParquetInput{Path: e.path("in", "refunds-*.parquet")}, Output: runner.ParquetOutput{Path: e.path("out", "refunds.parquet")}},
	}, runner.Options{})
	require.NoError(t, err)
	require.Equal(t, outcome.Skipped, *rep.Members["refunds"].Outcome)
	require.Contains(t, rep.Members["refunds"].Warnings[0], "matches no data: the member is absent")
	require.Equal(t, "member refunds is absent", rep.Filters[0].Skipped)
	require.Len(t, e.parquetRows(e.path("out", "orders.parquet")), 2)
}
