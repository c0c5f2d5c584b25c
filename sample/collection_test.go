package sample_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/collection"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/sample"
	"github.com/tablegate/tablegate/sql"
)

func loadCollection(t *testing.T, path string) *collection.Collection {
	t.Helper()
	c, err := collection.LoadFile(context.Background(), path)
	require.NoError(t, err)
	return c
}

// TestSampleCollectionConsistent: the members of a collection's sample share their keys, so at
// invalid rate 0 every member's rows pass its rules, every relationship holds for every key and
// every reference finds its target; at a rate above 0 each relationship and reference fails for
// some rows. The relationships and references are checked here with plain SQL over the
// generated tables.
func TestSampleCollectionConsistent(t *testing.T) {
	c := loadCollection(t, filepath.Join("testdata", "shop", "shop.yaml"))
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	db := eng.DB()
	ctx := context.Background()

	materialise := func(rate float64) map[string]string {
		qs, err := sample.CollectionQueries(c, sample.CollectionSpec{Spec: sample.Spec{Rows: 2000, InvalidRate: rate, Seed: 5}})
		require.NoError(t, err)
		require.Len(t, qs, len(c.Members))
		tables := map[string]string{}
		for _, q := range qs {
			name := fmt.Sprintf("s_%s_%d", q.Member, int(rate*100))
			_, err := db.Exec("CREATE OR REPLACE TABLE " + sql.Ident(name) + " AS " + q.Query)
			require.NoError(t, err, q.Query)
			tables[q.Member] = sql.Ident(name)
		}
		return tables
	}
	count := func(query string) int64 {
		t.Helper()
		var n int64
		require.NoError(t, db.QueryRow(query).Scan(&n), query)
		return n
	}
	// Rows of a's whose order_id has no row in b, or (one) more than one.
	missing := func(tb map[string]string, a, b string) int64 {
		return count(fmt.Sprintf("SELECT count(*) FROM %s AS a WHERE order_id NOT IN (SELECT order_id FROM %s WHERE order_id IS NOT NULL)", tb[a], tb[b]))
	}
	repeated := func(tb map[string]string, m string) int64 {
		return count(fmt.Sprintf("SELECT count(*) FROM (SELECT order_id FROM %s GROUP BY ALL HAVING count(*) > 1)", tb[m]))
	}
	dangling := func(tb map[string]string) int64 {
		return count(fmt.Sprintf("SELECT count(*) FROM %s WHERE product_id IS NOT NULL AND product_id NOT IN (SELECT product_id FROM %s WHERE product_id IS NOT NULL)", tb["items"], tb["products"]))
	}

	clean := materialise(0)
	for _, m := range c.Members {
		p, err := compile.Compile(m.Schema)
		require.NoError(t, err)
		rep, err := eng.Run(ctx, runner.Asset{Name: m.Name, Plan: p, Input: runner.QueryInput{SQL: "SELECT * FROM " + clean[m.Name]}}, runner.Options{Cast: true})
		require.NotNil(t, rep.Outcome, "%s: %v", m.Name, err)
		require.Zero(t, rep.Rows.Invalid, "member %s at rate 0", m.Name)
		require.Positive(t, rep.Rows.Valid, m.Name)
	}
	require.EqualValues(t, 2000, count("SELECT count(*) FROM "+clean["orders"]))
	require.Greater(t, count("SELECT count(*) FROM "+clean["items"]), int64(3000), "1 to 3 items per order")
	require.Positive(t, repeated(clean, "items"), "some orders have several items")
	for _, pair := range [][2]string{{"orders", "items"}, {"items", "orders"}, {"orders", "invoices"}, {"invoices", "orders"}, {"select", "orders"}, {"orders", "select"}} {
		require.Zero(t, missing(clean, pair[0], pair[1]), "%s rows without %s at rate 0", pair[0], pair[1])
	}
	require.Zero(t, repeated(clean, "invoices"))
	require.Zero(t, dangling(clean))
	require.Positive(t, count("SELECT count(*) FROM "+clean["items"]+" WHERE product_id IS NOT NULL"))

	dirty := materialise(0.1)
	require.Positive(t, missing(dirty, "orders", "items"), "orders_have_items never fails")
	require.Positive(t, missing(dirty, "orders", "invoices"), "one_invoice never fails")
	require.Positive(t, missing(dirty, "select", "orders"), "one_select never fails")
	require.Positive(t, dangling(dirty), "item_product never fails")
	// About a tenth of the keys per relationship, not all of them.
	require.Less(t, missing(dirty, "orders", "items"), int64(400))
}

// TestSampleCollectionSizes: --member-rows sizes the members: a member whose key is a superset
// of the common key gets exactly that many rows per key, a member ignored in filters its own
// count; counts that cannot be met are refused with what would fit.
func TestSampleCollectionSizes(t *testing.T) {
	c := loadCollection(t, filepath.Join("..", "benchmarks", "schemas", "collection", "shop.yaml"))
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	db := eng.DB()
	spec := sample.CollectionSpec{Spec: sample.Spec{Rows: 1000, Seed: 1}, MemberRows: map[string]int64{"items": 3000, "customers": 100}}
	qs, err := sample.CollectionQueries(c, spec)
	require.NoError(t, err)
	counts := map[string]int64{}
	for _, q := range qs {
		var n, perKeyMax int64
		require.NoError(t, db.QueryRow("SELECT count(*) FROM ("+q.Query+")").Scan(&n), q.Query)
		counts[q.Member] = n
		if q.Member == "items" {
			require.NoError(t, db.QueryRow("SELECT max(c) FROM (SELECT count(*) AS c FROM ("+q.Query+") GROUP BY order_id)").Scan(&perKeyMax))
			require.EqualValues(t, 3, perKeyMax)
		}
		require.Empty(t, q.Uncontrolled, q.Member)
	}
	require.Equal(t, map[string]int64{"orders": 1000, "items": 3000, "customers": 100}, counts)
	// Every order's customer exists.
	var dangling int64
	require.NoError(t, db.QueryRow(fmt.Sprintf("SELECT count(*) FROM (%s) WHERE customer_id IS NOT NULL AND customer_id NOT IN (SELECT customer_id FROM (%s))", qs[0].Query, qs[2].Query)).Scan(&dangling))
	require.Zero(t, dangling)

	for _, bad := range []struct {
		rows map[string]int64
		want string
	}{
		{map[string]int64{"items": 2500}, "a multiple of the collection's 1000 rows"},
		{map[string]int64{"orders": 999}, "one row per common key, so 1000"},
		{map[string]int64{"refunds": 5}, "no such member"},
	} {
		_, err := sample.CollectionQueries(c, sample.CollectionSpec{Spec: sample.Spec{Rows: 1000}, MemberRows: bad.rows})
		require.ErrorContains(t, err, bad.want)
	}
}
