package casting_test

import (
	"testing"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/schema"
)

// TestSparkTypes matches Spark's spelling of column types against dtypes with the same rules as
// DuckDB's: families, decimal scale and precision, zoned and naive timestamps, nested types.
func TestSparkTypes(t *testing.T) {
	s, err := schema.Parse([]byte(`schema: T
columns:
  - {name: i8, type: Int8}
  - {name: any_int, type: Integer}
  - {name: f, type: Float}
  - {name: dec, type: Decimal, scale: 2}
  - {name: dec_p, type: Decimal, precision: 10, scale: 2}
  - {name: ts, type: Datetime}
  - {name: tz, type: Datetime, time_zone: UTC}
  - {name: tags, type: List, inner: {type: String}}
  - {name: b, type: Bool}
  - {name: raw, type: Binary}
  - name: st
    type: Struct
    fields:
      - {name: select, type: Int32}
      - {name: c, type: List, inner: {type: Float32}}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		col, typ string
		want     bool
	}{
		{"i8", "tinyint", true}, {"i8", "smallint", false},
		{"any_int", "bigint", true}, {"any_int", "decimal(20,0)", false}, {"any_int", "double", false},
		{"f", "float", true}, {"f", "double", true}, {"f", "decimal(3,1)", false},
		{"dec", "decimal(12,2)", true}, {"dec", "decimal(12,3)", false},
		{"dec_p", "decimal(10,2)", true}, {"dec_p", "decimal(12,2)", false},
		{"ts", "timestamp_ntz", true}, {"ts", "timestamp", false},
		{"tz", "timestamp", true}, {"tz", "timestamp_ntz", false},
		{"tags", "array<string>", true}, {"tags", "array<int>", false}, {"tags", "string", false},
		{"b", "boolean", true}, {"b", "BOOLEAN", true}, {"b", "tinyint", false},
		{"raw", "binary", true}, {"raw", "string", false},
		{"st", "struct<`select`:int,c:array<float>>", true},
		{"st", "struct<c:array<float>,`select`:int>", true},
		{"st", "struct<`select`:int,c:array<double>>", false},
		{"st", "struct<`select`:int>", false},
		{"st", "map<string,int>", false},
		{"tags", "map<string,array<int>>", false},
	} {
		typ, err := casting.ParseSparkType(tc.typ)
		if err != nil {
			t.Fatalf("parse %q: %v", tc.typ, err)
		}
		if got := casting.Matches(s.Column(tc.col).DType, typ); got != tc.want {
			t.Errorf("%s (%s) against %s: %v, want %v", tc.col, s.Column(tc.col).DType, tc.typ, got, tc.want)
		}
		if typ.Raw != tc.typ {
			t.Errorf("%s: Raw %q", tc.typ, typ.Raw)
		}
	}
	for _, bad := range []string{"decimal(10", "struct<a int>", "array<int", "`x", "int<x>", "struct<`a`:int"} {
		if _, err := casting.ParseSparkType(bad); err == nil {
			t.Errorf("parse %q: no error", bad)
		}
	}
	mm := casting.CheckColumnsWith(s.Columns[:2], []casting.ColumnType{{"i8", "smallint"}}, casting.ParseSparkType)
	if len(mm) != 2 || mm[0].String() != "'i8' (expected Int8, got smallint)" || mm[1].Actual != casting.Missing {
		t.Errorf("mismatches %v", mm)
	}
	// An Any column takes any type, even one the parser cannot read.
	anything := schema.New("A", schema.Any("x"))
	if mm := casting.CheckColumnsWith(anything.Columns, []casting.ColumnType{{"x", "struct<a int>"}}, casting.ParseSparkType); len(mm) != 0 {
		t.Errorf("Any against an unreadable type: %v", mm)
	}
}
