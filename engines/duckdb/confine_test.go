package duckdb_test

import (
	"context"
	"errors"
	"testing"

	duckdbgo "github.com/duckdb/duckdb-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// TestConfined: a confined engine validates inputs and writes outputs inside its allowed
// folders, spills into its own folder, and refuses every file elsewhere with DuckDB's
// permission error, the files of a query input included.
func TestConfined(t *testing.T) {
	e := newEnv(t)
	inside := e.parquet("in/raw.parquet", ordersSelect(mixedRows))
	outside := e.parquet("secret/raw.parquet", ordersSelect(mixedRows))
	e.withDB(e.path("secret", "wh.duckdb"), "CREATE TABLE d.orders AS "+ordersSelect(mixedRows))
	p, err := compile.Compile(ordersSchema())
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{Confined: true, AllowedDirectories: []string{e.path("in"), e.path("out")}, MemoryLimit: "100MB", TempDirectory: e.path("spill")})
	require.NoError(t, err)
	defer eng.Close()
	ctx := context.Background()

	rep, err := eng.Run(ctx, runner.Asset{Plan: p, Input: runner.ParquetInput{Path: inside}, Output: runner.ParquetOutput{Path: e.path("out", "orders.parquet")}, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, outcome.Quarantined, *rep.Outcome)
	assert.Len(t, e.parquetRows(e.path("out", "orders.parquet")), 3)

	for name, in := range map[string]runner.Input{
		"a Parquet file":         runner.ParquetInput{Path: outside},
		"a query reading a file": runner.QueryInput{SQL: "SELECT * FROM read_parquet('" + outside + "')"},
		"a query reading /etc":   runner.QueryInput{SQL: "SELECT * FROM read_csv('/etc/passwd')"},
		"a database file":        runner.TableInput{File: e.path("secret", "wh.duckdb"), Table: "orders"},
	} {
		_, err := eng.Run(ctx, runner.Asset{Plan: p, Input: in}, runner.Options{})
		var de *duckdbgo.Error
		if assert.True(t, errors.As(err, &de), "%s: %v", name, err) {
			assert.Equal(t, duckdbgo.ErrorTypePermission, de.Type, name)
		}
	}
	_, err = eng.Run(ctx, runner.Asset{Plan: p, Input: runner.ParquetInput{Path: inside}, Output: runner.ParquetOutput{Path: e.path("secret", "orders.parquet")}, Quarantine: true}, runner.Options{})
	var oe *outcome.OutputError
	assert.True(t, errors.As(err, &oe), "an output outside: %v", err)
	assert.NoFileExists(t, e.path("secret", "orders.parquet"))
}
