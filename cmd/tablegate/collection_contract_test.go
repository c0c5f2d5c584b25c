package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withOrdersContract is the shipped example with its orders member read from a data contract:
// orders.yaml exported as ODCS, named by {contract: orders.odcs.yaml}.
func withOrdersContract(t *testing.T, dir string) string {
	t.Helper()
	code, contract, stderr := cli(t, "export", "--odcs", "--schema", filepath.Join(dir, "orders.yaml"))
	require.Equal(t, exitOK, code, stderr)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "orders.odcs.yaml"), []byte(contract), 0o644))
	shop, err := os.ReadFile(filepath.Join(dir, "shop.yaml"))
	require.NoError(t, err)
	withContract := strings.Replace(string(shop), "  orders: orders.yaml", "  orders: {contract: orders.odcs.yaml}", 1)
	require.NotEqual(t, string(shop), withContract)
	path := filepath.Join(dir, "shop_contract.yaml")
	require.NoError(t, os.WriteFile(path, []byte(withContract), 0o644))
	return path
}

// memberChecks are each member's outcome and its checks' names and failed rows.
func memberChecks(t *testing.T, rep map[string]any) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for name, m := range rep["members"].(map[string]any) {
		m := m.(map[string]any)
		out[name] = append(out[name], "outcome "+m["outcome"].(string))
		for _, c := range m["checks"].([]any) {
			c := c.(map[string]any)
			meta, _ := c["metadata"].(map[string]any)
			out[name] = append(out[name], fmt.Sprintf("%s %v %v", c["name"], c["passed"], meta["dataframely/failed_row_count"]))
		}
	}
	return out
}

// A member read from a data contract runs as the schema the contract was exported from: the
// same outcomes and checks in validate, the same statements in explain, and check, checks and
// sample take it.
func TestCollectionContractMember(t *testing.T) {
	dir := copyShop(t)
	shop := filepath.Join(dir, "shop.yaml")
	contract := withOrdersContract(t, dir)

	run := func(file, out string) map[string]any {
		code, stdout, stderr := cli(t, "validate", "--collection", file, "--input-dir", dir, "--out-dir", filepath.Join(dir, out), "--quarantine", "--format", "json")
		require.Equal(t, exitOK, code, stderr)
		return oneJSON(t, stdout)
	}
	bySchema, byContract := run(shop, "out1"), run(contract, "out2")
	require.Equal(t, "passed", byContract["outcome"])
	assert.Equal(t, memberChecks(t, bySchema), memberChecks(t, byContract))
	assert.Contains(t, memberChecks(t, byContract)["orders"], "dy_rule__total__min false 1")
	assert.Contains(t, memberChecks(t, byContract)["orders"], "dy_rule__orders_have_items false 1")
	assert.Equal(t, bySchema["filters"], byContract["filters"])

	code, stdout, stderr := cli(t, "check", "--collection", contract)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "Shop is valid: 5 members, 3 filters, 1 references; common primary key: order_id.\n", stdout)

	explain := func(file string) string {
		code, stdout, stderr := cli(t, "explain", "--collection", file, "--input-dir", dir, "--out-dir", filepath.Join(dir, "out3"), "--quarantine")
		require.Equal(t, exitOK, code, stderr)
		return stdout
	}
	assert.Equal(t, explain(shop), explain(contract))

	code, stdout, stderr = cli(t, "checks", "--collection", contract, "--format", "json")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, `"dy_rule__total__min"`)

	code, _, stderr = cli(t, "sample", "--collection", contract, "--rows", "50", "--out-dir", filepath.Join(dir, "sample"))
	require.Equal(t, exitOK, code, stderr)
	assert.True(t, fileExists(filepath.Join(dir, "sample", "orders.parquet")))
}

// A collection file's contract problems come with its own, all at once: the contract's at their
// lines of the contract, the collection's at theirs. What a contract does not enforce is said on
// stderr; --contract and its flags are a single table's.
func TestCollectionContractErrors(t *testing.T) {
	dir := copyShop(t)
	contract := withOrdersContract(t, dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "items.odcs.yaml"), []byte(`apiVersion: v3.0.0
kind: DataContract
id: items
version: 1.0.0
status: active
schema:
  - name: items
    properties:
      - name: order_id
        physicalType: BIGINT
        primaryKey: true
      - name: note
        physicalType: VARCHAR
        logicalType: string
        logicalTypeOptions:
          maxLength: 10
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte(`collection: Bad
members:
  orders: {contract: orders.odcs.yaml, lengths: words}
  items: {contract: items.odcs.yaml}
  both: {schema: invoices.yaml, contract: orders.odcs.yaml}
  nothing: {object: x, optional: true}
  other: {contract: ../elsewhere.odcs.yaml}
filters:
  - {name: f, one_to_one: [orders, ghost]}
`), 0o644))
	code, _, stderr := cli(t, "check", "--collection", filepath.Join(dir, "bad.yaml"))
	require.Equal(t, exitUsage, code)
	for _, want := range []string{
		`bad.yaml:3: collection Bad, key 'lengths': member orders: lengths "words": use chars or bytes`,
		"items.odcs.yaml:16: member items (contract items.odcs.yaml, object items), key 'schema[0].properties[1].logicalTypeOptions.maxLength': maxLength 10 counts characters",
		"in a collection file, the member's lengths: chars or bytes",
		"bad.yaml:5: collection Bad, key 'both': member both names a schema file and a contract: give one of them",
		"bad.yaml:6: collection Bad, key 'nothing': member nothing names no schema file (schema: FILE) and no data contract (contract: FILE)",
		"bad.yaml:6: collection Bad, key 'object': member nothing: object applies to a member read from a data contract",
		"bad.yaml:7: collection Bad, key 'other': member other: contract ../elsewhere.odcs.yaml: is outside the collection's folder",
		`bad.yaml:9: collection Bad, key 'one_to_one': unknown member "ghost"`,
	} {
		assert.Contains(t, stderr, want)
	}
	assert.Equal(t, 1, strings.Count(stderr, "use chars or bytes"), stderr)

	// lengths: chars compiles it; a service level is said not to be enforced.
	items, err := os.ReadFile(filepath.Join(dir, "items.odcs.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "items.odcs.yaml"), append(items, []byte("slaProperties:\n  - property: latency\n    value: 4\n    unit: d\n")...), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.yaml"), []byte(`collection: Ok
members:
  orders: {contract: orders.odcs.yaml}
  items: {contract: items.odcs.yaml, lengths: chars}
filters:
  - {name: f, one_to_at_least_one: [orders, items]}
`), 0o644))
	code, stdout, stderr := cli(t, "check", "--collection", filepath.Join(dir, "ok.yaml"))
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "Ok is valid: 2 members, 1 filters, 0 references; common primary key: order_id.\n", stdout)
	assert.Regexp(t, `tablegate: member items: not enforced: \S*items.odcs.yaml:\d+: .*service level latency is not enforced`, stderr)

	code, _, stderr = cli(t, "validate", "--collection", contract, "--input-dir", dir, "--contract", filepath.Join(dir, "orders.odcs.yaml"))
	require.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--contract is a single table's flag; with --collection, name a member's data contract in the collection file")
	code, _, stderr = cli(t, "explain", "--collection", contract, "--lengths", "chars")
	require.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--lengths is a single table's flag")
}
