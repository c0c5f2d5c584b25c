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
	"github.com/tablegate/tablegate/runner"
)

// TestDuckDBRefusesCatalogOutput: only the Spark engine writes Delta and Iceberg tables; the
// DuckDB engine says so before it reads anything.
func TestDuckDBRefusesCatalogOutput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out := runner.CatalogOutput{Format: runner.FormatDelta, Catalog: "spark_catalog", Namespace: "db", Table: "orders"}
	rep, err := run(t, ordersSchema(), runner.Asset{Input: runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(mixedRows))}, Output: out, Quarantine: true}, runner.Options{})
	var oe *outcome.OutputError
	require.True(t, errors.As(err, &oe), "error %v", err)
	assert.True(t, strings.Contains(err.Error(), "--engine spark"), err.Error())
	assert.Nil(t, rep.Outcome)
	p, err := compile.Compile(ordersSchema())
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	defer eng.Close()
	_, err = eng.ExplainAsset(context.Background(), runner.Asset{Plan: p, Input: runner.ParquetInput{Path: e.path("raw.parquet")}, Output: out}, runner.Options{})
	require.True(t, errors.As(err, &oe), "explain: %v", err)
}
