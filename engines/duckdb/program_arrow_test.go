//go:build duckdb_arrow

package duckdb_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/runner"
)

// caller reports whether the step hands its rows to the caller (Filter).
func (s explainedStep) caller() bool { return strings.Contains(s.header, "to the caller") }

// TestExplainIsWhatFilterRuns: Filter runs its explained program too, statement for statement,
// and the Arrow readers it returns are the program's statements for the invalid and the valid
// rows (traced as they start).
func TestExplainIsWhatFilterRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	glob := filepath.Join(e.path("files"), "*.parquet")
	e.parquet(filepath.Join("files", "a.parquet"), ordersSelect(mixedRows))
	e.parquet(filepath.Join("files", "b.parquet"), ordersSelect(`('z', 7.0, NULL), ('a', 1.0, NULL)`))
	for _, c := range []struct {
		name  string
		in    runner.Input
		valid int64
	}{
		{"some rows invalid", runner.ParquetInput{Path: glob}, 3},
		{"every row valid", runner.ParquetInput{Path: e.parquet("ok.parquet", ordersSelect(allValidRows))}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := compile.Compile(ordersSchema())
			require.NoError(t, err)
			explainer, err := duckdb.Open(duckdb.Config{Threads: 2})
			require.NoError(t, err)
			defer explainer.Close()
			text, err := explainer.ExplainFilter(context.Background(), p, c.in, runner.Options{RowSample: 1})
			require.NoError(t, err)

			var trace bytes.Buffer
			filterer, err := duckdb.Open(duckdb.Config{Threads: 2, Trace: &trace, TraceFull: true})
			require.NoError(t, err)
			defer filterer.Close()
			f, err := filterer.Filter(context.Background(), p, c.in, runner.Options{RowSample: 1})
			require.NoError(t, err)
			var valid int64
			for f.Valid.Next() {
				valid += f.Valid.RecordBatch().NumRows()
			}
			require.NoError(t, f.Valid.Err())
			f.Close()
			assert.Equal(t, c.valid, valid, "the valid rows")

			stmts := checkTraceIsProgram(t, text, trace.String())
			steps := explainedSteps(t, text)
			var read []string
			for _, s := range steps {
				if s.caller() {
					read = append(read, s.sql)
				}
			}
			require.NotEmpty(t, read)
			var ran []string
			for _, s := range stmts {
				for _, r := range read {
					if s == r {
						ran = append(ran, s)
					}
				}
			}
			assert.Len(t, ran, 2, "Filter reads the invalid rows, then the valid ones, through the program's statements")
		})
	}
}
