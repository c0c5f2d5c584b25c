package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReferenceTableCLI: a schema's reference to a table of a DuckDB file in another folder,
// relative to the schema file, is read by the confined engine (its folder is allowed) in
// validate and explain; the orphan fails the run, a missing table is an input error.
func TestReferenceTableCLI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	shop := f.path("ref", "shop.duckdb")
	f.write("ref/.keep", "")
	f.withDB(shop, "CREATE TABLE d.customers AS SELECT * FROM (VALUES ('c1'), ('c2')) t(id)")
	s := f.write("schemas/orders.yaml", `schema: Orders
columns:
  - {name: customer_id, type: String, nullable: true, references: {input: ../ref/shop.duckdb:customers, column: id}}
`)
	in := f.parquet("data/orders.parquet", "SELECT * FROM (VALUES ('c1'), ('c9'), (NULL)) t(customer_id)")

	code, stdout, stderr := cli(t, "validate", "--schema", s, "--input", in, "--format", "json")
	assert.Equal(t, exitDataFailed, code, stderr)
	assert.Contains(t, stdout, `"dy_rule__customer_id__references"`)

	code, stdout, stderr = cli(t, "explain", "--schema", s, "--input", in)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "ATTACH "+quoteLit(shop)+" AS ")
	assert.Contains(t, stdout, `"customer_id" IN (SELECT "id" FROM "temp"."main"."__tg_ref_0"`)

	missing := f.write("schemas/missing.yaml", `schema: Orders
columns:
  - {name: customer_id, type: String, nullable: true, references: {input: ../ref/shop.duckdb:clients, column: id}}
`)
	code, _, stderr = cli(t, "validate", "--schema", missing, "--input", in)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "no table main.clients in "+shop)
}
