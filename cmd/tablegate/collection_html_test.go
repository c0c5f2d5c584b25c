package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shipped example's page: the collection's outcome, members and filters first, then a
// section per member drawn as the single-table page draws a run, failures leading.
func TestCollectionHTMLShop(t *testing.T) {
	dir := copyShop(t)
	html := filepath.Join(dir, "shop.html")
	code, _, stderr := cli(t, "validate", "--collection", filepath.Join(dir, "shop.yaml"), "--input-dir", dir, "--out-dir", filepath.Join(dir, "out"), "--quarantine", "--html", html)
	require.Equal(t, exitOK, code, stderr)
	data, err := os.ReadFile(html)
	require.NoError(t, err)
	page := string(data)

	assert.Contains(t, page, "<title>Shop: passed · tablegate</title>")
	assert.Regexp(t, `(?s)<header id="banner" class="banner warn" data-verdict="WARN" data-outcome="passed">.*every member written.*0 of 5 members failing`, page,
		"passed with quarantined members: the verdict is WARN, as the members' own")
	// The members table, those with warnings before the all-valid products; each links to its section.
	assert.Equal(t, []string{"orders WARN", "items WARN", "invoices WARN", "refunds WARN", "products PASS"},
		matches(page, `<tr class="member" data-member="(\w+)" data-verdict="(\w+)">`))
	assert.Regexp(t, `(?s)data-member="orders".*<a href="#member-orders">orders</a>.*quarantined.*>6</td><td class="num">3</td><td class="num fail">3</td>.*out/orders.parquet`, page)
	// The filters with their failed rows per member, in member order; the common key.
	assert.Contains(t, page, `common primary key: <code>order_id</code>`)
	assert.Equal(t, []string{"orders_have_items false", "one_invoice false", "items_have_quantity false", "refunds|failure_propagation false", "item_product false"},
		matches(page, `<tr class="filter-row" data-filter="([^"]+)" data-passed="(\w+)">`))
	assert.Regexp(t, `(?s)data-filter="items_have_quantity".*sum\(quantity\) &gt; 0.*<span class="mono">orders</span> <span class="fail">2</span>, <span class="mono">items</span> <span class="fail">1</span>, <span class="mono">invoices</span> <span class="fail">1</span>, <span class="mono">refunds</span> <span class="muted">0</span>`, page)
	// A section per member, in the members table's order, each with the single-table report's parts.
	assert.Equal(t, []string{"orders", "items", "invoices", "refunds", "products"}, matches(page, `<section class="member" id="member-(\w+)"`))
	for _, part := range []string{"banner", "rows", "filter", "checks", "schema", "sql", "facts"} {
		assert.Contains(t, page, `id="member-items-`+part+`"`)
	}
	items := page[strings.Index(page, `id="member-items"`):strings.Index(page, `id="member-invoices"`)]
	assert.Contains(t, items, `data-outcome="quarantined"`)
	assert.Contains(t, items, `<label for="member-items-show-failing">failing `, "the section's filter is its own")
	checks := matches(items[strings.Index(items, `id="member-items-checks"`):], `<tr class="check" data-check="[^"]+" data-passed="(\w+)">`)
	require.NotEmpty(t, checks)
	assert.Equal(t, "false", checks[0], "the failing checks lead")
	assert.Equal(t, "true", checks[len(checks)-1])
	assert.Contains(t, items, `data-check="dy_rule__item_product" data-passed="false"`, "the reference's check")
	assert.Contains(t, items, `data-samples="dy_rule__item_product"`, "its failing row")
	// Every element id is the page's once: the sections do not clash.
	seen := map[string]bool{}
	for _, id := range matches(page, ` id="([^"]+)"`) {
		assert.False(t, seen[id], "id %s twice", id)
		seen[id] = true
	}
	assert.NotContains(t, page, "<script", "the page has no script")

	// Without a quarantine the run fails and writes nothing; the page says so, failing members first.
	failed := filepath.Join(dir, "failed.html")
	code, _, _ = cli(t, "validate", "--collection", filepath.Join(dir, "shop.yaml"), "--input-dir", dir, "--out-dir", filepath.Join(dir, "out2"), "--html", failed)
	require.Equal(t, exitDataFailed, code)
	data, err = os.ReadFile(failed)
	require.NoError(t, err)
	assert.Regexp(t, `<header id="banner" class="banner bad" data-verdict="FAIL" data-outcome="failed">`, string(data))
	assert.Contains(t, string(data), "nothing written")
	assert.Equal(t, []string{"orders FAIL", "items FAIL", "invoices FAIL", "refunds FAIL", "products PASS"},
		matches(string(data), `<tr class="member" data-member="(\w+)" data-verdict="(\w+)">`))

	// A page that would overwrite a member's input is refused before anything runs.
	code, _, stderr = cli(t, "validate", "--collection", filepath.Join(dir, "shop.yaml"), "--input-dir", dir, "--out-dir", filepath.Join(dir, "out3"), "--quarantine",
		"--html", filepath.Join(dir, "items.parquet"))
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, stderr, "--html")
	_, err = os.Stat(filepath.Join(dir, "out3", "orders.parquet"))
	assert.True(t, os.IsNotExist(err), "nothing written")
}

// matches are the submatches of every match of re in s, each joined by a space.
func matches(s, re string) []string {
	var out []string
	for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(s, -1) {
		out = append(out, strings.Join(m[1:], " "))
	}
	return out
}
