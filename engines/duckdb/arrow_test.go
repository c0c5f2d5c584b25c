//go:build duckdb_arrow

package duckdb_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// arrowOrders is an extract as it arrives from a warehouse client: strings, nullable doubles,
// decimals, zoned timestamps and lists.
func arrowOrders(t *testing.T) array.RecordReader {
	t.Helper()
	mem := memory.NewGoAllocator()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "order_id", Type: arrow.BinaryTypes.String},
		{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}},
		{Name: "placed_at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	ids := b.Field(0).(*array.StringBuilder)
	amounts := b.Field(1).(*array.Float64Builder)
	prices := b.Field(2).(*array.Decimal128Builder)
	placed := b.Field(3).(*array.TimestampBuilder)
	tags := b.Field(4).(*array.ListBuilder)
	tagValues := tags.ValueBuilder().(*array.StringBuilder)
	base := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	rows := []struct {
		id     string
		amount *float64
		cents  int64
		tags   []string
	}{
		{"ORD-0001", ptr(10.5), 1050, []string{"gift"}},
		{"ORD-0002", nil, 200, nil},                 // NULL amount: nullability fails
		{"ORD-0003", ptr(-1), 100000, []string{""}}, // min, price max (1000.00) and inner_min_length (empty tag) fail
		{"ORD-0001", ptr(7), 700, []string{}},       // duplicate key: both ORD-0001 rows fail primary_key
		{"ORD-0005", ptr(3), 99900, []string{"a", "b"}},
	}
	for i, r := range rows {
		ids.Append(r.id)
		if r.amount == nil {
			amounts.AppendNull()
		} else {
			amounts.Append(*r.amount)
		}
		prices.Append(decimal128.FromI64(r.cents))
		ts, err := arrow.TimestampFromTime(base.Add(time.Duration(i)*time.Hour), arrow.Microsecond)
		require.NoError(t, err)
		placed.Append(ts)
		if r.tags == nil {
			tags.AppendNull()
			continue
		}
		tags.Append(true)
		for _, tag := range r.tags {
			tagValues.Append(tag)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	reader, err := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	require.NoError(t, err)
	return reader
}

func ptr(f float64) *float64 { return &f }

func arrowPlan(t *testing.T) *compile.Plan {
	t.Helper()
	plan, err := compile.Compile(schema.New("Orders",
		schema.String("order_id").PrimaryKey(),
		schema.Float64("amount").Min(0),
		schema.Decimal("price", 10, 2).Max("999.00"),
		schema.Datetime("placed_at", schema.Micros, "UTC"),
		schema.List("tags", schema.String("").MinLength(1)).Nullable(),
	))
	require.NoError(t, err)
	return plan
}

func TestArrowInputRun(t *testing.T) {
	eng, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	defer eng.Close()
	out := filepath.Join(t.TempDir(), "orders.parquet")
	rep, err := eng.Run(context.Background(), runner.Asset{
		Plan: arrowPlan(t), Input: runner.ArrowInput{Reader: arrowOrders(t)},
		Output: runner.ParquetOutput{Path: out}, Quarantine: true,
	}, runner.Options{})
	require.NoError(t, err)
	require.Equal(t, outcome.Quarantined, *rep.Outcome)
	require.Equal(t, outcome.Rows{Input: 5, Valid: 1, Invalid: 4}, rep.Rows)
	failed := map[string]int64{}
	for _, c := range rep.Checks {
		if c.Failed > 0 {
			failed[c.Rule] = c.Failed
		}
	}
	require.Equal(t, map[string]int64{
		"primary_key": 2, "amount|nullability": 1, "amount|min": 1,
		"price|max": 1, "tags|inner_min_length": 1,
	}, failed)
}

func TestFilterReturnsArrow(t *testing.T) {
	eng, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	defer eng.Close()
	f, err := eng.Filter(context.Background(), arrowPlan(t), runner.ArrowInput{Reader: arrowOrders(t)}, runner.Options{})
	require.NoError(t, err)
	defer f.Close()
	require.Equal(t, map[string]int64{"primary_key": 2, "amount|nullability": 1, "amount|min": 1, "price|max": 1, "tags|inner_min_length": 1}, f.Counts)

	var valid []string
	for f.Valid.Next() {
		rec := f.Valid.RecordBatch()
		require.Equal(t, []string{"order_id", "amount", "price", "placed_at", "tags"}, fieldNames(rec.Schema()))
		col := rec.Column(0).(*array.String)
		for i := 0; i < col.Len(); i++ {
			valid = append(valid, strings.Clone(col.Value(i))) // Value aliases the batch memory
		}
	}
	require.NoError(t, f.Valid.Err())
	require.Equal(t, []string{"ORD-0005"}, valid)

	var invalid []string
	for f.Invalid.Next() {
		rec := f.Invalid.RecordBatch()
		names := fieldNames(rec.Schema())
		require.Contains(t, names, "dy_rule__primary_key")
		col := rec.Column(0).(*array.String)
		for i := 0; i < col.Len(); i++ {
			invalid = append(invalid, strings.Clone(col.Value(i)))
		}
	}
	require.NoError(t, f.Invalid.Err())
	require.Equal(t, []string{"ORD-0001", "ORD-0002", "ORD-0003", "ORD-0001"}, invalid, "input order")
}

func TestFilterColumnMismatch(t *testing.T) {
	eng, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	defer eng.Close()
	plan, err := compile.Compile(schema.New("Orders", schema.Int64("order_id")))
	require.NoError(t, err)
	_, err = eng.Filter(context.Background(), plan, runner.ArrowInput{Reader: arrowOrders(t)}, runner.Options{})
	var col *outcome.ColumnSchemaError
	require.True(t, errors.As(err, &col), "got %v", err)
	require.Equal(t, "VARCHAR", col.Mismatches[0].Actual)
}

func fieldNames(s *arrow.Schema) []string {
	var out []string
	for _, f := range s.Fields() {
		out = append(out, f.Name)
	}
	return out
}
