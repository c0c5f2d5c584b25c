package compile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tablegate/tablegate/compile"
)

// programCases are the inputs and sinks each example schema's program is printed for, one case
// directory compile/testdata/program/<schema>.<case> each: a single Parquet file written to a
// Parquet output with a quarantine (the perfect-hash threshold fitted to the rows, the threads
// raised for the key aggregates, the scan-filtered stages, sized row groups, the COPYs to
// temporary files), a DuckDB table written to a table in an attached database with row samples
// (key aggregates, then every row; the write's transaction), and a multi-file Parquet
// scan handed to the caller (a copy of integer key columns whose footer ranges fit a perfect
// hash). Each case covers 2.5M rows, so that the bitmaps of ordinals take three blocks.
var programCases = []struct {
	name string
	rel  compile.Relation
	f    compile.Facts
	o    compile.ProgramOptions
}{
	{"parquet", compile.Relation{From: "read_parquet('in.parquet', can_have_nan = true)", RowID: "file_row_number", ScanFilters: true,
		DenseRowIDs: true, RowGroups: []int64{1_000_000, 1_000_000, 500_000}},
		compile.Facts{Rows: 2_500_000, LastRowID: 2_499_999, PerfectHashBits: 20, MemoryBudget: 1 << 30, SessionPerfectHash: 26, Threads: 2, KeyThreads: 3},
		compile.ProgramOptions{ID: 1, Samples: 5, Sink: compile.ToParquet,
			Output: compile.Output{TableFile: "out/.orders.parquet.tablegate-1-table.tmp", QuarantineFile: "out/.orders.parquet.tablegate-1-quarantine.tmp"}}},
	{"table", compile.Relation{From: `"main"."input"`, RowID: "rowid"},
		compile.Facts{Rows: 2_500_000, FirstRowID: 0, LastRowID: 2_499_999, PerfectHashBits: 20, MemoryBudget: 1 << 30},
		compile.ProgramOptions{ID: 1, Samples: 5, RowSample: 3, Sink: compile.ToOutput,
			Output: compile.Output{Catalog: "__tg_db1_0", Schema: "clean", Table: "orders", Quarantine: "orders_quarantine"}}},
	{"files", compile.Relation{From: "read_parquet('in/*.parquet', can_have_nan = true)", RowID: "(([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number)",
		ScanFilters: true, DenseRowIDs: true, NoStatistics: true, PlainColumns: map[string]bool{},
		Ranges: map[string][2]int64{"order_id": {1, 2_500_000}, "id": {1, 2_500_000}, "customer_id": {0, 9999}, "cust": {0, 9999}}},
		compile.Facts{Rows: 2_500_000, LastRowID: 2_499_999, PerfectHashBits: 23, MemoryBudget: 1 << 30},
		compile.ProgramOptions{ID: 1, Samples: 5, Sink: compile.ToCaller}},
}

// goldenPrograms compares the plan's program for each case with its golden.
func goldenPrograms(t *testing.T, schema string, p *compile.Plan) {
	t.Helper()
	for _, c := range programCases {
		dir := filepath.Join("testdata", "program", schema+"."+c.name)
		if *goldenUpdate {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		prog := p.Program(c.rel, c.f, c.o)
		goldenCompare(t, filepath.Join(dir, "program.sql"), prog.String())
	}
}
