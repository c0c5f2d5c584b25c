package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDroppedColumnsSaid: the input's columns the schema does not declare are not written, and
// the text, the JSON (dropped_columns) and the page say which; an input without such columns has
// no dropped_columns key and no text line.
func TestDroppedColumnsSaid(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := f.parquet("wide.parquet", `SELECT 7 AS "select", *, 'x' AS "Ünïcode col", NULL::INT AS empty FROM (`+ordersSelect(allValidRows)+`)`)
	out := f.path("orders.parquet")
	page := f.path("run.html")
	code, stdout, stderr := cli(t, "validate", "--schema", f.schema, "--input", in, "--out", out, "--html", page)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "  dropped: 3 input columns not in the schema, not written: select, Ünïcode col, empty\n")
	written := f.query("SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet(" + quoteLit(out) + "))")
	assert.Len(t, written, 3, "id, amount, note")

	code, stdout, _ = cli(t, "validate", "--schema", f.schema, "--input", in, "--format", "json")
	require.Equal(t, 0, code)
	assert.Equal(t, []any{"select", "Ünïcode col", "empty"}, oneJSON(t, stdout)["dropped_columns"])

	plain := f.parquet("plain.parquet", ordersSelect(allValidRows))
	code, stdout, _ = cli(t, "validate", "--schema", f.schema, "--input", plain, "--format", "json")
	require.Equal(t, 0, code)
	assert.NotContains(t, oneJSON(t, stdout), "dropped_columns")
	code, stdout, _ = cli(t, "validate", "--schema", f.schema, "--input", plain)
	require.Equal(t, 0, code)
	assert.NotContains(t, stdout, "dropped")
}
