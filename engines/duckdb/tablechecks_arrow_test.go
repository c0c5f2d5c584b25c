//go:build duckdb_arrow

package duckdb_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestFilterRefusesFailingTableCheck: Filter hands on no row of a batch whose table check fails.
func TestFilterRefusesFailingTableCheck(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p, err := compile.Compile(ordersWithTableChecks(schema.Condition("enough_rows", "count(*) >= 1000")))
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	_, err = eng.Filter(context.Background(), p, runner.ParquetInput{Path: e.parquet("in.parquet", ordersSelect(allValidRows))}, runner.Options{})
	var tce *outcome.TableCheckError
	require.ErrorAs(t, err, &tce)
}
