package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyShop copies the shipped example collection (examples/shop) to a temporary folder.
func copyShop(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir("../../examples/shop")
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("../../examples/shop", e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644))
	}
	return dir
}

// The shipped example: with a quarantine every member is written, each keeping the rows of the
// common keys every filter holds for.
func TestCollectionExampleShop(t *testing.T) {
	dir := copyShop(t)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := cli(t, "validate", "--collection", filepath.Join(dir, "shop.yaml"), "--input-dir", dir, "--out-dir", out, "--quarantine", "--format", "json")
	require.Equal(t, exitOK, code, stderr)
	rep := oneJSON(t, stdout)
	require.Equal(t, "passed", rep["outcome"])
	require.Equal(t, true, rep["written"])
	require.Equal(t, []any{"orders", "items", "invoices", "refunds", "products"}, rep["member_order"])
	members := rep["members"].(map[string]any)
	require.Equal(t, "quarantined", members["orders"].(map[string]any)["outcome"])
	require.Equal(t, "all_valid", members["products"].(map[string]any)["outcome"])

	f := newFixture(t)
	keys := func(member string) []any {
		var ks []any
		for _, row := range f.parquetRows(filepath.Join(out, member+".parquet")) {
			ks = append(ks, row[0])
		}
		return ks
	}
	// Orders 1, 2 and 5 hold for every filter: 3 is invalid, 4 has no item and two invoices,
	// 6 has no units and an invalid refund.
	require.Equal(t, []any{int64(1), int64(2), int64(5)}, keys("orders"))
	require.Equal(t, []any{int64(1), int64(2), int64(5)}, keys("invoices"))
	// Item 5 names an unknown product.
	require.Equal(t, []any{int64(1), int64(1), int64(2)}, keys("items"))
	require.Equal(t, []any{int64(2)}, keys("refunds"))
	require.Equal(t, []any{"P1", "P2"}, keys("products"))
	q := f.query("SELECT order_id, \"dy_rule__refunds__failure_propagation\"::VARCHAR FROM " + quoteLit(filepath.Join(out, "items_quarantine.parquet")) + " ORDER BY order_id")
	require.Equal(t, [][]any{{int64(3), "valid"}, {int64(5), "valid"}, {int64(6), "invalid"}}, q)

	// The text: a section per member, then the filters.
	code, stdout, _ = cli(t, "validate", "--collection", filepath.Join(dir, "shop.yaml"), "--input-dir", dir, "--out-dir", filepath.Join(dir, "out2"), "--quarantine")
	require.Equal(t, exitOK, code)
	require.Contains(t, stdout, "collection Shop: PASSED (every member written), common primary key order_id")
	require.Contains(t, stdout, "== member refunds ==")
	require.Contains(t, stdout, "items_have_quantity (sql): the rows of items with the same order_id satisfy sum(quantity) > 0; rows failing: invoices 1, items 1, orders 2, refunds 0")
}

// Without a quarantine, any invalid row writes no member: exit 1, as a single table's abort.
func TestCollectionCLIAllOrNothing(t *testing.T) {
	dir := copyShop(t)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := cli(t, "validate", "--collection", filepath.Join(dir, "shop.yaml"), "--input-dir", dir,
		"--out", "orders="+filepath.Join(dir, "o.parquet"), "--out-dir", out, "--format", "json")
	require.Equal(t, exitDataFailed, code, stderr)
	rep := oneJSON(t, stdout)
	require.Equal(t, "failed", rep["outcome"])
	require.Equal(t, "CollectionError", rep["error"].(map[string]any)["type"])
	require.False(t, fileExists(filepath.Join(dir, "o.parquet")))
	require.False(t, fileExists(out))
	require.Equal(t, "all_valid", rep["members"].(map[string]any)["products"].(map[string]any)["outcome"])
}

func TestCollectionCLIErrors(t *testing.T) {
	dir := copyShop(t)
	shop := filepath.Join(dir, "shop.yaml")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing member", []string{"--input", "orders=" + filepath.Join(dir, "orders.parquet")}, "no input for member items, invoices, products of collection Shop: give --input items=FILE"},
		{"unknown member", []string{"--input-dir", dir, "--input", "order=x.parquet"}, "collection Shop has no member order; its members are orders, items, invoices, refunds, products"},
		{"no member name", []string{"--input", filepath.Join(dir, "orders.parquet")}, "with --collection, give member=ADDRESS"},
		{"member twice", []string{"--input-dir", dir, "--out", "orders=a.parquet", "--out", "orders=b.parquet"}, "--out orders=… is given twice"},
		{"single-table flag", []string{"--input-dir", dir, "--schema", "x.yaml"}, "--schema is a single table's flag"},
		{"quarantine without outputs", []string{"--input-dir", dir, "--quarantine"}, "--quarantine needs an output for every member"},
		{"bad input form", []string{"--input-dir", dir, "--input", "orders=orders.txt"}, "member orders: --input \"orders.txt\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := cli(t, append([]string{"validate", "--collection", shop}, tc.args...)...)
			require.Equal(t, exitUsage, code)
			require.Contains(t, stderr, tc.want)
		})
	}
	// Without --collection, several inputs or the member folders are refused.
	code, _, stderr := cli(t, "validate", "--schema", filepath.Join(dir, "orders.yaml"), "--input", "a.parquet", "--input", "b.parquet")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "--input is given 2 times")
	code, _, stderr = cli(t, "validate", "--schema", filepath.Join(dir, "orders.yaml"), "--input-dir", dir)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "give --collection too")
}

func TestCollectionCheckChecksExplain(t *testing.T) {
	dir := copyShop(t)
	shop := filepath.Join(dir, "shop.yaml")
	code, stdout, stderr := cli(t, "check", "--collection", shop)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "Shop is valid: 5 members, 3 filters, 1 references; common primary key: order_id.\n", stdout)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("collection: Bad\nmembers:\n  orders: orders.yaml\n  products: products.yaml\nfilters:\n  - {name: f, one_to_one: [orders, products]}\n  - {name: g, member: orders, sql: \"total >\"}\n"), 0o644))
	code, _, stderr = cli(t, "check", "--collection", filepath.Join(dir, "bad.yaml"))
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "bad.yaml:2: collection Bad, key 'members': the members have no common primary key")
	require.Contains(t, stderr, "bad.yaml:7: collection Bad, key 'sql': filter g:")

	code, stdout, _ = cli(t, "checks", "--collection", shop, "--format", "json")
	require.Equal(t, exitOK, code)
	list := oneJSON(t, stdout)
	first := list["members"].([]any)[0].(map[string]any)
	require.Equal(t, "orders", first["member"])
	var names []string
	for _, c := range first["checks"].([]any) {
		names = append(names, c.(map[string]any)["name"].(string))
	}
	require.Contains(t, names, "dy_rule__orders_have_items")
	require.Contains(t, names, "dy_rule__refunds__failure_propagation")

	code, stdout, stderr = cli(t, "explain", "--collection", shop, "--input-dir", dir)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "-- collection Shop: its filters, propagation and references, on every member's failing rows")
	require.True(t, strings.Index(stdout, "find the keys filter orders_have_items keeps") < strings.Index(stdout, "-- member orders: its counts and report"))
}

// With --history every member's run is recorded under its own run id, the collection's and the
// member's name, and its report names the collection's run.
func TestCollectionHistory(t *testing.T) {
	dir := copyShop(t)
	hist := filepath.Join(t.TempDir(), "runs.duckdb")
	code, stdout, stderr := cli(t, "validate", "--collection", filepath.Join(dir, "shop.yaml"), "--input-dir", dir,
		"--out-dir", filepath.Join(dir, "out"), "--quarantine", "--history", hist, "--format", "json")
	require.Equal(t, exitOK, code, stderr)
	rep := oneJSON(t, stdout)
	runID := rep["run_id"].(string)
	orders := rep["members"].(map[string]any)["orders"].(map[string]any)
	require.Equal(t, runID+".orders", orders["run_id"])
	require.Equal(t, map[string]any{"name": "Shop", "run_id": runID, "member": "orders"}, orders["collection"])

	code, stdout, stderr = cli(t, "history", "--history", hist, "--format", "json")
	require.Equal(t, exitOK, code, stderr)
	var ids []string
	for _, r := range oneJSON(t, stdout)["runs"].([]any) {
		ids = append(ids, r.(map[string]any)["run_id"].(string))
	}
	require.ElementsMatch(t, []string{runID + ".orders", runID + ".items", runID + ".invoices", runID + ".refunds", runID + ".products"}, ids)
}

// The history shows one collection's run whole: its outcome, every member's, and each filter's
// failed rows per member; its page renders from the history as the run wrote it.
func TestCollectionHistoryRun(t *testing.T) {
	dir := copyShop(t)
	hist := filepath.Join(t.TempDir(), "runs.duckdb")
	page := filepath.Join(dir, "run.html")
	// Without a quarantine the collection fails: nothing written.
	code, stdout, stderr := cli(t, "validate", "--collection", filepath.Join(dir, "shop.yaml"), "--input-dir", dir,
		"--out-dir", filepath.Join(dir, "out"), "--history", hist, "--html", page, "--format", "json")
	require.Equal(t, exitDataFailed, code, stderr)
	runID := oneJSON(t, stdout)["run_id"].(string)
	code, stdout, stderr = cli(t, "validate", "--collection", filepath.Join(dir, "shop.yaml"), "--input-dir", dir,
		"--out-dir", filepath.Join(dir, "out"), "--quarantine", "--history", hist, "--format", "json")
	require.Equal(t, exitOK, code, stderr)
	passedID := oneJSON(t, stdout)["run_id"].(string)

	code, stdout, stderr = cli(t, "history", "--history", hist)
	require.Equal(t, exitOK, code, stderr)
	require.Regexp(t, `(?m)^COLLECTION RUNS\s+COLLECTION\s+OUTCOME\s+WRITTEN\s+MEMBERS\s+DURATION\s+RUN ID\n.*Shop\s+passed\s+yes\s+orders,items,invoices,refunds,products\s+\S+\s+`+passedID+`\n.*Shop\s+failed\s+no\s+.*`+runID+`$`, stdout)
	code, stdout, _ = cli(t, "history", "--history", hist, "--failing", "--format", "json")
	require.Equal(t, exitOK, code)
	colls := oneJSON(t, stdout)["collection_runs"].([]any)
	require.Len(t, colls, 1)
	require.Equal(t, runID, colls[0].(map[string]any)["run_id"])

	code, stdout, stderr = cli(t, "history", "--history", hist, "--collection-run", runID)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "collection Shop, run "+runID+": FAILED (nothing written)")
	require.Regexp(t, `(?m)^orders\s+aborted\s+Degraded\s+6\s+3\s+3\s+5\s+\S+orders.parquet \(not written\)\s+`+runID+`\.orders$`, stdout)
	require.Regexp(t, `(?m)^products\s+all_valid\s+Healthy\s+2\s+2\s+0\s+0\s+`, stdout)
	require.Regexp(t, `(?m)^items_have_quantity\s+sql\s+dy_rule__items_have_quantity\s+orders 2, items 1, invoices 1, refunds 0$`, stdout)
	require.Regexp(t, `(?m)^item_product\s+reference\s+dy_rule__item_product\s+items 1$`, stdout)

	code, stdout, stderr = cli(t, "history", "--history", hist, "--collection-run", runID, "--format", "json")
	require.Equal(t, exitOK, code, stderr)
	rep := oneJSON(t, stdout)
	require.Equal(t, "failed", rep["outcome"])
	require.Equal(t, []any{"orders", "items", "invoices", "refunds", "products"}, rep["member_order"])
	require.Equal(t, "aborted", rep["members"].(map[string]any)["orders"].(map[string]any)["outcome"])
	require.Len(t, rep["filters"], 5)

	// The page from the history is the page the run wrote.
	past := filepath.Join(dir, "past.html")
	code, _, stderr = cli(t, "report", "--history", hist, "--run", runID, "--html", past)
	require.Equal(t, exitOK, code, stderr)
	want, err := os.ReadFile(page)
	require.NoError(t, err)
	got, err := os.ReadFile(past)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))

	code, _, stderr = cli(t, "history", "--history", hist, "--collection-run", runID+".orders")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "has no collection run \""+runID+".orders\": `tablegate history --history")
	code, _, stderr = cli(t, "history", "--history", hist, "--collection-run", runID, "--asset", "orders")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "--asset lists runs; --collection-run shows one collection's run")
}

// A report file that is a member's data is refused before anything is read or written.
func TestCollectionReportFileRefused(t *testing.T) {
	dir := copyShop(t)
	items := filepath.Join(dir, "items.parquet")
	before, err := os.ReadFile(items)
	require.NoError(t, err)
	code, _, stderr := cli(t, "validate", "--collection", filepath.Join(dir, "shop.yaml"), "--input-dir", dir, "--report", items)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "--report")
	after, err := os.ReadFile(items)
	require.NoError(t, err)
	require.Equal(t, before, after, "the member's input is untouched")
}

// Members written to tables of one DuckDB file, by --out-dir naming the file and by --out
// member=FILE.duckdb:[schema.]table (a reserved word, a Unicode name): every member's table and
// quarantine after one run, each keeping the rows of the keys every filter holds for; explain
// shows the one attachment, transaction and commit.
func TestCollectionCLITables(t *testing.T) {
	dir := copyShop(t)
	shop := filepath.Join(dir, "shop.yaml")
	db := filepath.Join(dir, "out", "shop.duckdb")
	args := []string{"--collection", shop, "--input-dir", dir, "--out-dir", db,
		"--out", "orders=" + db + ":select", "--out", "items=" + db + ":lignes.Posições_注文", "--quarantine"}
	code, stdout, stderr := cli(t, append([]string{"validate", "--format", "json"}, args...)...)
	require.Equal(t, exitOK, code, stderr)
	rep := oneJSON(t, stdout)
	require.Equal(t, "passed", rep["outcome"])
	require.Equal(t, true, rep["written"])
	members := rep["members"].(map[string]any)
	require.Equal(t, db+":lignes.Posições_注文", members["items"].(map[string]any)["table"].(map[string]any)["address"])

	f := newFixture(t)
	f.exec("ATTACH " + quoteLit(db) + " AS shop (READ_ONLY)")
	keys := func(table string) []any {
		var ks []any
		for _, row := range f.query("SELECT * FROM " + table + " ORDER BY ALL") {
			ks = append(ks, row[0])
		}
		return ks
	}
	require.Equal(t, []any{int64(1), int64(2), int64(5)}, keys(`shop."select"`))
	require.Equal(t, []any{int64(1), int64(2), int64(5)}, keys("shop.invoices"))
	require.Equal(t, []any{int64(1), int64(1), int64(2)}, keys(`shop.lignes."Posições_注文"`))
	require.Equal(t, []any{int64(2)}, keys("shop.refunds"))
	require.Equal(t, []any{"P1", "P2"}, keys("shop.products"))
	require.Equal(t, []any{int64(3), int64(5), int64(6)}, keys("shop.lignes.items_quarantine"))
	require.Len(t, keys("shop.orders_quarantine"), 3)
	f.exec("DETACH shop")

	code, stdout, stderr = cli(t, append([]string{"explain"}, args...)...)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, 1, strings.Count(stdout, "\nATTACH "+quoteLit(db)), stdout)
	require.Equal(t, 1, strings.Count(stdout, "\nBEGIN TRANSACTION;"), stdout)
	require.Equal(t, 1, strings.Count(stdout, "\nCOMMIT;"), stdout)
	require.Contains(t, stdout, "commit every member's tables of "+db)
}

// A history that cannot be written never changes a collection's run: a warning on stderr and in
// the collection's report, every member written as without --history.
func TestCollectionHistoryUnwritable(t *testing.T) {
	dir := copyShop(t)
	notAFile := t.TempDir() // a folder: DuckDB cannot open it as a history
	code, stdout, stderr := cli(t, "validate", "--collection", filepath.Join(dir, "shop.yaml"), "--input-dir", dir,
		"--out-dir", filepath.Join(dir, "out"), "--quarantine", "--history", notAFile, "--format", "json")
	require.Equal(t, exitOK, code, stderr)
	rep := oneJSON(t, stdout)
	require.Equal(t, true, rep["written"])
	require.Len(t, rep["warnings"], 1)
	require.Contains(t, rep["warnings"].([]any)[0], "the collection's run is not recorded, its outcome and outputs are unaffected")
	require.Contains(t, stderr, "warning: append to the run history "+notAFile)
	require.True(t, fileExists(filepath.Join(dir, "out", "orders.parquet")))
}

// TestCollectionTimeout: validate --collection --timeout stops the run past its time, with exit
// 2 and a TimeoutError in the JSON report, and writes no member. Before, --timeout was ignored
// by collection runs.
func TestCollectionTimeout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write("big.yaml", "schema: big\ncolumns:\n  - {name: a, type: Int64, primary_key: true}\nrules:\n  - {name: slow, sql: a % 7 <> 3 OR a % 11 <> 5}\n")
	f.write("small.yaml", "schema: small\ncolumns:\n  - {name: a, type: Int64, primary_key: true}\n")
	coll := f.write("c.yaml", "collection: c\nmembers:\n  big: big.yaml\n  small: small.yaml\nfilters:\n  - {name: known, one_to_at_least_one: [big, small]}\n")
	src := f.path("src.duckdb")
	f.withDB(src, "CREATE VIEW d.big AS SELECT range AS a FROM range(2000000000)", "CREATE TABLE d.small AS SELECT 1::BIGINT AS a")
	out := f.path("out")
	start := time.Now()
	code, stdout, stderr := cliWithin(t, 60*time.Second, nil, "validate", "--collection", coll, "--input", "big="+src+":big", "--input", "small="+src+":small",
		"--out-dir", out, "--timeout", "500ms", "--format", "json")
	assert.Less(t, time.Since(start), 30*time.Second)
	assert.Equal(t, exitUsage, code, stderr)
	rep := oneJSON(t, stdout)
	assert.Nil(t, rep["outcome"])
	typ, msg := errorOf(rep)
	assert.Equal(t, "TimeoutError", typ, msg)
	assert.NoFileExists(t, out)
}
