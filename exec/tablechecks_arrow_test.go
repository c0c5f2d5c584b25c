//go:build duckdb_arrow

package exec_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/exec"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/schema"
)

// TestFilterRefusesFailingTableCheck: Filter hands on no row of a batch whose table check fails.
func TestFilterRefusesFailingTableCheck(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p, err := compile.Compile(ordersWithTableChecks(schema.Condition("enough_rows", "count(*) >= 1000")))
	require.NoError(t, err)
	eng, err := exec.Open(exec.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	_, err = eng.Filter(context.Background(), p, exec.ParquetInput{Path: e.parquet("in.parquet", ordersSelect(allValidRows))}, exec.Options{})
	var tce *outcome.TableCheckError
	require.ErrorAs(t, err, &tce)
}
