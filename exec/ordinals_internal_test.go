package exec

import (
	"context"
	"fmt"
	"testing"

	"github.com/tablegate/tablegate/compile"
)

// newTestRun is a run on a fresh in-memory engine, closed with the test.
func newTestRun(t *testing.T) *run {
	t.Helper()
	e, err := Open(Config{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	r, err := e.newRun(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.close)
	return r
}

// TestValidRowGroupSize: the valid rows' Parquet row groups take the size that lets DuckDB write
// the most batches as they come, only where that beats its default without small row groups.
func TestValidRowGroupSize(t *testing.T) {
	ctx := context.Background()
	r := newTestRun(t)

	// every returns one invalid ordinal in every step rows of [0, total).
	every := func(step, total int64) string {
		return fmt.Sprintf("SELECT range AS __tg_rid FROM range(0, %d, %d)", total, step)
	}
	full := []int64{compile.ParquetRowGroup, compile.ParquetRowGroup, compile.ParquetRowGroup, 1000}
	for _, c := range []struct {
		name    string
		groups  []int64
		invalid string
		want    int64
	}{
		// 1 row in 50 invalid: 2457 or 2458 of 122,880 rows per group (more than 2048); of two
		// sizes that take as many batches, the larger.
		{"2% invalid", full, every(50, 3*compile.ParquetRowGroup+1000), compile.ParquetRowGroup - 2457},
		{"invalid rows in one group only", full, "SELECT range AS __tg_rid FROM range(0, 5000)", 0},
		{"1% invalid: DuckDB takes the batches as they are", full, every(100, 3*compile.ParquetRowGroup+1000), 0},
		{"60% invalid: the row groups would be small", full, "SELECT range AS __tg_rid FROM range(0, 3*122880+1000) WHERE range % 5 < 3", 0},
		{"row groups unknown", nil, every(50, 1000), 0},
		{"row groups far larger than DuckDB's: no larger output groups", []int64{1_000_000}, every(50, 1_000_000), 0},
		// polars writes 123,457 rows a group: 1 row in 30 invalid leaves 119,341 or 119,342.
		{"row groups a little larger than DuckDB's", []int64{123457, 123457, 123457, 1000}, every(30, 3*123457+1000), 119342},
		{"a little larger, 1% invalid: DuckDB takes the batches as they are", []int64{123457, 123457, 123457, 1000}, every(100, 3*123457+1000), 0},
		// Batches far over the default are not taken as they come by it, nor a size to choose,
		// even when more of them agree than of the others.
		{"larger groups beside more far larger ones", []int64{123457, 123457, 123457, 123457, 130000, 130000, 130000, 130000, 130000, 1000},
			every(30, 4*123457), 119342},
		{"no invalid rows at all in the median group", []int64{compile.ParquetRowGroup, compile.ParquetRowGroup, compile.ParquetRowGroup},
			"SELECT range AS __tg_rid FROM range(0, 122880, 10)", 0},
		{"one row group", []int64{100_000}, every(40, 100_000), 100_000 - 2500},
		{"the last group, a remainder, is not counted", []int64{compile.ParquetRowGroup, compile.ParquetRowGroup, 500},
			every(50, 2*compile.ParquetRowGroup) + " UNION ALL SELECT range FROM range(245760, 246260)", compile.ParquetRowGroup - 2458},
		{"the count fails", full, "SELECT no_such_column AS __tg_rid", 0},
		// Two groups lose 1 row in 40 (119,808 valid), three 1 in 10 (110,592): the size of the three.
		{"two sizes: the one most batches are near", []int64{compile.ParquetRowGroup, compile.ParquetRowGroup, compile.ParquetRowGroup, compile.ParquetRowGroup, compile.ParquetRowGroup, 10},
			"SELECT range AS __tg_rid FROM range(0, 2*122880, 40) UNION ALL SELECT range FROM range(2*122880, 5*122880, 10)", compile.ParquetRowGroup - 12288},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := r.validRowGroupSize(ctx, compile.ValidRowGroupSize(c.groups, c.invalid)); got != c.want {
				t.Errorf("validRowGroupSize = %d, want %d", got, c.want)
			}
		})
	}
}
