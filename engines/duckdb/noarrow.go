//go:build !duckdb_arrow

package duckdb

import (
	"context"
	"fmt"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/runner"
)

// otherSource refuses an input this build does not read (Arrow needs the build tag
// duckdb_arrow).
func otherSource(_ context.Context, _ *run, in runner.Input) (compile.Source, error) {
	return compile.Source{}, fmt.Errorf("the DuckDB engine cannot read %T inputs", in)
}
