package compile_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// TestReferencesDeclared: the YAML forms, paths from the schema file's folder, rule names and
// the declaration errors.
func TestReferencesDeclared(t *testing.T) {
	doc := `
schema: Orders
columns:
  - {name: customer_id, type: String, nullable: true, references: {input: ref/customers.parquet, column: id}}
  - {name: vendor, type: String}
  - {name: sku, type: Int64}
rules:
  - name: known_product
    references: {columns: [vendor, sku], input: /data/products.parquet, to: [vendor, sku]}
`
	s, err := schema.Parse([]byte(doc), "/schemas/orders.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	refs := p.References()
	if len(refs) != 2 || refs[0].Rule != "known_product" || refs[1].Rule != "customer_id|references" {
		t.Fatalf("references %+v", refs)
	}
	if refs[1].Input != filepath.FromSlash("/schemas/ref/customers.parquet") || refs[0].Input != "/data/products.parquet" {
		t.Errorf("inputs %q %q", refs[1].Input, refs[0].Input)
	}
	if refs[0].Source != "read_parquet('/data/products.parquet')" {
		t.Errorf("source %q", refs[0].Source)
	}
	var names []string
	for _, r := range p.Rules {
		names = append(names, r.Check)
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "dy_rule__customer_id__references") || !strings.Contains(got, "dy_rule__known_product") {
		t.Errorf("checks %s", got)
	}

	for _, tc := range []struct{ doc, want string }{
		{"schema: X\ncolumns: [{name: a, type: String, references: {input: r.parquet}}]\n", "names no column"},
		{"schema: X\ncolumns: [{name: a, type: String, references: {input: r.xlsx, column: id}}]\n", "Parquet file or glob"},
		{"schema: X\ncolumns: [{name: a, type: String, references: {column: id}}]\n", "no input"},
		{"schema: X\ncolumns: [{name: a, type: String, references: {input: \"r\\0.parquet\", column: id}}]\n", "holds a NUL character"},
		{"schema: X\ncolumns: [{name: a, type: String}]\nrules: [{name: k, references: {columns: [a], input: \"w.duckdb\\0:t\", to: [x]}}]\n", "holds a NUL character"},
		{"schema: X\ncolumns: [{name: a, type: List, inner: {type: String}, references: {input: r.parquet, column: id}}]\n", "scalar columns"},
		{"schema: X\ncolumns: [{name: a, type: String}]\nrules: [{name: k, references: {columns: [a, b], input: r.parquet, to: [x]}}]\n", "as many of each"},
		{"schema: X\ncolumns: [{name: a, type: String}]\nrules: [{name: k, references: {columns: [b], input: r.parquet, to: [x]}}]\n", "'b' is not a column"},
		{"schema: X\ncolumns: [{name: a, type: String}]\nrules: [{name: k, sql: a > 0, references: {columns: [a], input: r.parquet, to: [x]}}]\n", "no sql"},
	} {
		_, err := schema.Parse([]byte(tc.doc), "x.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: want %q, got %v", tc.doc, tc.want, err)
		}
	}
}

// TestReferenceTablesDeclared: a reference to FILE.duckdb:[schema.]table, relative to the schema
// file's folder, reads through the run's temp view of the attached table.
func TestReferenceTablesDeclared(t *testing.T) {
	doc := `
schema: Orders
columns:
  - {name: customer_id, type: String, references: {input: ref/shop.duckdb:crm.customers, column: id}}
  - {name: vendor, type: String}
rules:
  - name: known_vendor
    references: {columns: [vendor], input: /data/shop.db:vendors, to: [id]}
`
	s, err := schema.Parse([]byte(doc), "/schemas/orders.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	refs := p.References()
	if len(refs) != 2 {
		t.Fatalf("references %+v", refs)
	}
	want := []compile.Reference{
		{Rule: "known_vendor", Input: "/data/shop.db:vendors", Source: `"temp"."main"."__tg_ref_0"`, Columns: []string{"vendor"}, To: []string{"id"}, File: "/data/shop.db", Table: "vendors"},
		{Rule: "customer_id|references", Input: filepath.FromSlash("/schemas/ref/shop.duckdb:crm.customers"), Source: `"temp"."main"."__tg_ref_1"`,
			Columns: []string{"customer_id"}, To: []string{"id"}, File: filepath.FromSlash("/schemas/ref/shop.duckdb"), DBSchema: "crm", Table: "customers"},
	}
	for i := range want {
		if got := refs[i]; got.Rule != want[i].Rule || got.Input != want[i].Input || got.Source != want[i].Source || got.File != want[i].File ||
			got.DBSchema != want[i].DBSchema || got.Table != want[i].Table {
			t.Errorf("reference %d: got %+v, want %+v", i, got, want[i])
		}
	}
	if _, err := schema.Parse([]byte("schema: X\ncolumns: [{name: a, type: String, references: {input: 'r.duckdb:', column: id}}]\n"), "x.yaml"); err == nil ||
		!strings.Contains(err.Error(), "FILE.duckdb:[schema.]table") {
		t.Errorf("a database file without a table: %v", err)
	}
}

// TestReferenceLooksUpDistinctKeys: a reference is looked up once per distinct key, in the key
// aggregate of a group rule on the same key when there is one (one aggregate, not two), never
// per row in the failing rows' pass; a reference on a key no rule groups by has its own.
func TestReferenceLooksUpDistinctKeys(t *testing.T) {
	doc := `
schema: Orders
columns:
  - {name: id, type: Int64, primary_key: true}
  - {name: customer_id, type: Int64, nullable: true, references: {input: /data/customers.parquet, column: id}}
  - {name: vendor, type: String}
  - {name: sku, type: Int64}
rules:
  - {name: small_customer, sql: count(*) < 1000, group_by: [customer_id]}
  - name: known_product
    references: {columns: [vendor, sku], input: /data/products.parquet, to: [vendor, sku]}
`
	s, err := schema.Parse([]byte(doc), "/schemas/orders.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []compile.Relation{
		{From: "read_parquet('in.parquet')", RowID: "file_row_number", ScanFilters: true, DenseRowIDs: true},
		{From: `"main"."input"`, RowID: "rowid"},
	} {
		var aggregates []string
		for _, st := range p.Program(rel, compile.Facts{Rows: 10, LastRowID: 9}, compile.ProgramOptions{ID: 1, Sink: compile.Nowhere}).Steps() {
			switch {
			case st.Op == compile.KeyAggregate:
				aggregates = append(aggregates, st.SQL)
			case strings.Contains(st.SQL, "read_parquet('/data/"):
				t.Errorf("%s: %s reads a reference:\n%s", rel.From, st.What, st.SQL)
			}
		}
		if len(aggregates) != 3 {
			t.Fatalf("%s: %d key aggregates, want 3 (customer_id, id, (vendor, sku)):\n%s", rel.From, len(aggregates), strings.Join(aggregates, "\n"))
		}
		find := func(parts ...string) string {
			for _, a := range aggregates {
				found := true
				for _, part := range parts {
					found = found && strings.Contains(a, part)
				}
				if found {
					return a
				}
			}
			return ""
		}
		customers := find(`"customer_id" IN (SELECT "id" FROM read_parquet('/data/customers.parquet') WHERE "id" IS NOT NULL)`, "count_star() < 1000", `GROUP BY "customer_id"`)
		if customers == "" {
			t.Errorf("%s: the customer reference and the group rule are not one aggregate:\n%s", rel.From, strings.Join(aggregates, "\n"))
		}
		// Looked up once per key: the marks are filtered on, not written again in a HAVING.
		if n := strings.Count(customers, "IN (SELECT"); n != 1 || strings.Contains(customers, "HAVING") {
			t.Errorf("%s: the reference is written %d times:\n%s", rel.From, n, customers)
		}
		if find(`GROUP BY "vendor", "sku"`, `("vendor", "sku") IN (SELECT "vendor", "sku" FROM read_parquet('/data/products.parquet')`) == "" {
			t.Errorf("%s: the product reference has no aggregate of its own:\n%s", rel.From, strings.Join(aggregates, "\n"))
		}
	}
}
