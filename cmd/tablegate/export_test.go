package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExportODCS: export writes the example schema as an ODCS v3.2 contract, to stdout or to
// --out (refusing to replace a file without --force), with the contract keys given, which
// explain --contract compiles to the schema's SQL; it needs the format flag, and a schema with
// mistakes is reported as check reports it.
func TestExportODCS(t *testing.T) {
	t.Parallel()
	example := filepath.Join("..", "..", "examples", "orders", "orders.yaml")
	code, stdout, stderr := cli(t, "export", "--odcs", "--schema", example, "--id", "shop-orders", "--version", "2.1.0")
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{"apiVersion: v3.2.0\n", "kind: DataContract\n", "id: shop-orders\n", "version: 2.1.0\n",
		"  - name: Orders\n", "physicalType: VARCHAR", "primaryKey: true", "engine: tablegate"} {
		assert.Contains(t, stdout, want)
	}

	out := filepath.Join(t.TempDir(), "orders.odcs.yaml")
	code, _, stderr = cli(t, "export", "--odcs", "--schema", example, "--out", out)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "wrote "+out)
	written, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(written), "apiVersion: v3.2.0\n"), string(written))

	// The contract read directly compiles to what the schema does.
	_, fromSchema, _ := cli(t, "explain", "--schema", example)
	code, fromContract, stderr := cli(t, "explain", "--contract", out)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, fromSchema, fromContract)

	code, _, stderr = cli(t, "export", "--odcs", "--schema", example, "--out", out)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "exists; give --force")
	code, _, stderr = cli(t, "export", "--odcs", "--schema", example, "--out", out, "--force", "--status", "draft")
	require.Equal(t, 0, code, stderr)
	written, err = os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(written), "status: draft\n")

	code, _, stderr = cli(t, "export", "--schema", example)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--odcs")

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("schema: Bad\ncolumns:\n  - {name: a, type: Int64, min: x}\n"), 0o644))
	code, stdout, stderr = cli(t, "export", "--odcs", "--schema", bad)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "column 'a', key 'min'")
}
