//go:build duckdb_arrow

package tablegate_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablegate/tablegate"
)

// Filter hands back the valid and the invalid rows of an Arrow input, with a typed result.
func TestFilterArrow(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{3, -1, 7, -2, 9}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	reader, err := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}

	eng := openEngine(t)
	plan := compileSchema(t, tablegate.NewSchema("Ids", tablegate.Int64("id").Min(0)))
	f, err := eng.Filter(context.Background(), plan, tablegate.FromArrow(reader, "ids"), tablegate.FilterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Outcome != tablegate.Quarantined || f.Rows.Invalid != 2 {
		t.Errorf("outcome %s, rows %+v", f.Outcome, f.Rows)
	}
	if c, _ := f.Check("dy_rule__id__min"); c.Failed != 2 {
		t.Errorf("dy_rule__id__min failed %d rows, want 2", c.Failed)
	}
	count := func(r array.RecordReader) (n int64) {
		for r.Next() {
			n += r.RecordBatch().NumRows()
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The invalid rows were read first; the valid ones stream.
	if inv, val := count(f.Invalid), count(f.Valid); inv != 2 || val != 3 {
		t.Errorf("%d invalid and %d valid rows, want 2 and 3", inv, val)
	}
}
