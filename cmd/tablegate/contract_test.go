package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const ordersContract = `apiVersion: v3.2.0
kind: DataContract
id: orders-contract
name: Orders contract
version: 1.4.0
schema:
  - name: orders
    properties:
      - {name: order_id, physicalType: VARCHAR, logicalType: string, primaryKey: true, logicalTypeOptions: {pattern: '^ORD-\d{4}$'}}
      - name: customer_id
        physicalType: BIGINT
        required: true
        relationships: [{to: customers.id}]
      - name: amount
        physicalType: DOUBLE
        quality: [{metric: nullValues, mustBe: 0, id: amount_filled, severity: warning}]
      - {name: status, physicalType: VARCHAR, enum: [{value: placed}, {value: paid}]}
      - {name: note, physicalType: VARCHAR(5)}
    quality:
      - {metric: rowCount, mustBeGreaterThan: 0, id: not_empty, name: Orders arrive}
slaProperties:
  - {property: latency, value: 1, unit: d}
`

// TestImportAndValidateContract: import writes a schema that validates as the contract read
// directly does; refusals name the contract path and line, and exit 2.
func TestImportAndValidateContract(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.write("orders.odcs.yaml", ordersContract)
	customers := f.parquet("customers.parquet", "SELECT range AS id FROM range(3)")
	input := f.parquet("orders.parquet", `SELECT * FROM (VALUES ('ORD-0001', 1::BIGINT, 5.0::DOUBLE, 'paid', 'ab'), ('ORD-02', 9, NULL, 'lost', 'abcdé')) t(order_id, customer_id, amount, status, note)`)

	code, _, stderr := cli(t, "import", "--odcs", c, "--out", f.path("imported.yaml"))
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "orders.odcs.yaml:13: schema[0].properties[1].relationships[0].to: the relationship needs the data of customers")
	require.Contains(t, stderr, "orders.odcs.yaml:18: schema[0].properties[4].physicalType: physicalType VARCHAR(5) (at most 5 characters) counts characters")
	require.NoFileExists(t, f.path("imported.yaml"))

	args := []string{"--reference", "customers=" + customers, "--lengths", "chars"}
	code, _, stderr = cli(t, append([]string{"import", "--odcs", c, "--out", f.path("imported.yaml")}, args...)...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "tablegate: not enforced: "+c+":22: slaProperties[0]: service level latency is not enforced")
	require.Contains(t, stderr, "wrote "+f.path("imported.yaml")+": 5 columns, 0 rules, 1 table checks from object orders")
	written, err := os.ReadFile(f.path("imported.yaml"))
	require.NoError(t, err)
	require.Contains(t, string(written), "# Imported by tablegate import from the ODCS v3.2.0 contract Orders contract, version 1.4.0, object orders.")

	fromSchema, outSchema, errSchema := cli(t, "validate", "--schema", f.path("imported.yaml"), "--input", input, "--format", "json")
	fromContract, outContract, errContract := cli(t, append([]string{"validate", "--contract", c, "--input", input, "--format", "json"}, args...)...)
	require.Equal(t, 1, fromSchema, errSchema+outSchema)
	require.Equal(t, 1, fromContract, errContract)
	failedOf := func(stdout string) map[string]any {
		rep := oneJSON(t, stdout)
		out := map[string]any{}
		for _, name := range checkNames(rep) {
			out[name] = checkByName(t, rep, name)["passed"]
		}
		return out
	}
	want := map[string]any{
		"dy_schema__columns": true, "dy_rule__primary_key": true, "dy_rule__order_id__nullability": true,
		"dy_rule__order_id__regex": false, "dy_rule__customer_id__nullability": true, "dy_rule__customer_id__references": false,
		"dy_rule__amount__nullability": false, "dy_rule__status__is_in": false, "dy_rule__note__check__max_chars": true,
		"dy_table__not_empty": true,
	}
	require.Equal(t, want, failedOf(outSchema))
	require.Equal(t, want, failedOf(outContract))
	// Both runs name the contract and report each check under its quality entry.
	for _, stdout := range []string{outSchema, outContract} {
		rep := oneJSON(t, stdout)
		require.Equal(t, map[string]any{"id": "orders-contract", "name": "Orders contract", "version": "1.4.0", "api_version": "v3.2.0", "object": "orders"}, rep["contract"])
		meta := checkByName(t, rep, "dy_rule__amount__nullability")["metadata"].(map[string]any)
		require.Equal(t, []any{map[string]any{"rule": "amount|nullability", "id": "amount_filled"}}, meta["odcs/quality"])
		meta = checkByName(t, rep, "dy_table__not_empty")["metadata"].(map[string]any)
		require.Equal(t, []any{map[string]any{"rule": "not_empty", "id": "not_empty", "name": "Orders arrive"}}, meta["odcs/quality"])
		require.NotContains(t, checkByName(t, rep, "dy_rule__status__is_in")["metadata"], "odcs/quality")
	}
	page := f.path("report.html")
	code, _, stderr = cli(t, append([]string{"validate", "--contract", c, "--input", input, "--html", page, "--granularity", "column"}, args...)...)
	require.Equal(t, 1, code, stderr)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	require.Contains(t, string(html), `<span id="contract">contract <b>Orders contract</b> version <b>1.4.0</b>, object orders (ODCS v3.2.0)</span>`)
	require.Contains(t, string(html), `contract quality <code>amount_filled</code>`)
	require.Contains(t, string(html), `contract quality <code>not_empty</code> Orders arrive`)

	code, stdout, _ := cli(t, append([]string{"checks", "--contract", c}, args...)...)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "dy_rule__amount__nullability")
	code, stdout, _ = cli(t, append([]string{"explain", "--contract", c, "--input", input}, args...)...)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, `(length(note) <= 5)`)
	code, stdout, _ = cli(t, append([]string{"check", "--contract", c}, args...)...)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "orders is valid")

	code, _, stderr = cli(t, "validate", "--contract", c, "--schema", f.path("imported.yaml"), "--input", input)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "give --schema or --contract, not both")
	code, _, stderr = cli(t, "check", "--schema", f.path("imported.yaml"), "--lengths", "chars")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "apply to --contract")
	code, _, stderr = cli(t, "import", "--odcs", c, "--lengths", "runes")
	require.Equal(t, 2, code)
	require.True(t, strings.Contains(stderr, `--lengths "runes": use chars or bytes`), stderr)
}

// TestImportJSONContract: import and validate read a contract written in JSON; a misspelt key
// in one is refused with its line, path and the key meant, exit 2.
func TestImportJSONContract(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	text := `{"apiVersion": "v3.2.0", "kind": "DataContract", "id": "min", "version": "1.0.0",
 "schema": [{"name": "orders", "properties": [
   {"name": "id", "physicalType": "BIGINT", "logicalType": "integer", "required": true}]}]}
`
	c := f.write("min.json", text)
	code, stdout, stderr := cli(t, "import", "--odcs", c)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "schema: orders\n")
	input := f.parquet("orders.parquet", "SELECT * FROM (VALUES (1::BIGINT), (NULL)) t(id)")
	code, _, stderr = cli(t, "validate", "--contract", c, "--input", input)
	require.Equal(t, 1, code, stderr)

	bad := f.write("bad.json", strings.Replace(text, `"required"`, `"requried"`, 1))
	code, _, stderr = cli(t, "import", "--odcs", bad)
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, bad+`:3: schema[0].properties[0].requried: unknown key "requried" (did you mean "required"?)`)
}
