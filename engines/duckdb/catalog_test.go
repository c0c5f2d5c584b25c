package duckdb_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
)

// TestParseCatalogOutput reads FORMAT:[catalog.]namespace.table and refuses malformed names;
// anything else is not a catalog output.
func TestParseCatalogOutput(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]duckdb.CatalogOutput{
		"delta:sales.orders":              {Format: "delta", Namespace: "sales", Table: "orders"},
		"iceberg:lake.sales.orders":       {Format: "iceberg", Catalog: "lake", Namespace: "sales", Table: "orders"},
		"delta:spark_catalog.db.Ärger_t1": {Format: "delta", Catalog: "spark_catalog", Namespace: "db", Table: "Ärger_t1"},
	} {
		got, ok, err := duckdb.ParseCatalogOutput(in)
		require.NoError(t, err, in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
		assert.Equal(t, in, got.String())
	}
	got, _, _ := duckdb.ParseCatalogOutput("iceberg:lake.sales.orders")
	assert.Equal(t, "iceberg:lake.sales.orders_quarantine", got.QuarantineAddress("orders_quarantine"))
	assert.Equal(t, "orders", got.DefaultAssetName())
	for _, in := range []string{"delta:orders", "delta:a.b.c.d", "iceberg:lake..orders", "delta:db.`x`", "iceberg:a/b.c"} {
		_, ok, err := duckdb.ParseCatalogOutput(in)
		assert.True(t, ok, in)
		assert.Error(t, err, in)
	}
	for _, in := range []string{"out/orders.parquet", "shop.duckdb:orders", "/tmp/delta:x/t.parquet", "hudi:db.t"} {
		_, ok, err := duckdb.ParseCatalogOutput(in)
		assert.False(t, ok, in)
		assert.NoError(t, err, in)
	}
}

// TestDuckDBRefusesCatalogOutput: only the Spark engine writes Delta and Iceberg tables; the
// DuckDB engine says so before it reads anything.
func TestDuckDBRefusesCatalogOutput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out := duckdb.CatalogOutput{Format: duckdb.FormatDelta, Catalog: "spark_catalog", Namespace: "db", Table: "orders"}
	rep, err := run(t, ordersSchema(), duckdb.Asset{Input: duckdb.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(mixedRows))}, Output: out, Quarantine: true}, duckdb.Options{})
	var oe *outcome.OutputError
	require.True(t, errors.As(err, &oe), "error %v", err)
	assert.True(t, strings.Contains(err.Error(), "--engine spark"), err.Error())
	assert.Nil(t, rep.Outcome)
	p, err := compile.Compile(ordersSchema())
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	defer eng.Close()
	_, err = eng.ExplainAsset(context.Background(), duckdb.Asset{Plan: p, Input: duckdb.ParquetInput{Path: e.path("raw.parquet")}, Output: out}, duckdb.Options{})
	require.True(t, errors.As(err, &oe), "explain: %v", err)
}
