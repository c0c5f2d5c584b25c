package runner_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/runner"
)

// TestParseCatalogOutput reads FORMAT:[catalog.]namespace.table and refuses malformed names;
// anything else is not a catalog output.
func TestParseCatalogOutput(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]runner.CatalogOutput{
		"delta:sales.orders":              {Format: "delta", Namespace: "sales", Table: "orders"},
		"iceberg:lake.sales.orders":       {Format: "iceberg", Catalog: "lake", Namespace: "sales", Table: "orders"},
		"delta:spark_catalog.db.Ärger_t1": {Format: "delta", Catalog: "spark_catalog", Namespace: "db", Table: "Ärger_t1"},
	} {
		got, ok, err := runner.ParseCatalogOutput(in)
		require.NoError(t, err, in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
		assert.Equal(t, in, got.String())
	}
	got, _, _ := runner.ParseCatalogOutput("iceberg:lake.sales.orders")
	assert.Equal(t, "iceberg:lake.sales.orders_quarantine", got.QuarantineAddress("orders_quarantine"))
	assert.Equal(t, "orders", got.DefaultAssetName())
	for _, in := range []string{"delta:orders", "delta:a.b.c.d", "iceberg:lake..orders", "delta:db.`x`", "iceberg:a/b.c"} {
		_, ok, err := runner.ParseCatalogOutput(in)
		assert.True(t, ok, in)
		assert.Error(t, err, in)
	}
	for _, in := range []string{"out/orders.parquet", "shop.duckdb:orders", "/tmp/delta:x/t.parquet", "hudi:db.t"} {
		_, ok, err := runner.ParseCatalogOutput(in)
		assert.False(t, ok, in)
		assert.NoError(t, err, in)
	}
}
