package compile_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// Every rule's semantics, pinned against a real in-process DuckDB (docs/semantics.md).
// Expectations are per input row, in input order: T = valid, F = invalid.

func TestNullability(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name:   "default is not null",
			schema: rtOne(schema.Int64("a")),
			data:   rtData{cols: "a BIGINT", rows: []string{"1", "NULL", "0"}},
			rules:  []string{"a|nullability"},
			want:   map[string]string{"a|nullability": "TFT"},
		},
		{
			name:   "nullable has no rule",
			schema: rtOne(schema.Int64("a").Nullable()),
			data:   rtData{cols: "a BIGINT", rows: []string{"1", "NULL"}},
			rules:  []string{},
		},
		{
			name:   "string empty is not null",
			schema: rtOne(schema.String("a")),
			data:   rtData{cols: "a VARCHAR", rows: []string{"''", "NULL", "'x'"}},
			want:   map[string]string{"a|nullability": "TFT"},
		},
		{
			name:   "NULL passes every other rule",
			schema: rtOne(schema.String("a").Nullable().MinLength(3).Regex("^x")),
			data:   rtData{cols: "a VARCHAR", rows: []string{"NULL", "'xyz'", "'ab'"}},
			rules:  []string{"a|min_length", "a|regex"},
			want:   map[string]string{"a|min_length": "TTF", "a|regex": "TTF"},
		},
		{
			name:   "NULL fails nullability only",
			schema: rtOne(schema.Int64("a").Min(5)),
			data:   rtData{cols: "a BIGINT", rows: []string{"NULL", "4"}},
			want:   map[string]string{"a|nullability": "FT", "a|min": "TF"},
		},
		{
			name:   "default float has nullability, inf, nan",
			schema: rtOne(schema.Float64("a")),
			data:   rtData{cols: "a DOUBLE", rows: []string{"NULL", "1"}},
			rules:  []string{"a|nullability", "a|inf", "a|nan"},
			want:   map[string]string{"a|nullability": "FT", "a|inf": "TT", "a|nan": "TT"},
		},
		{
			name:   "nullable float has inf and nan",
			schema: rtOne(schema.Float64("a").Nullable()),
			data:   rtData{cols: "a DOUBLE", rows: []string{"NULL"}},
			rules:  []string{"a|inf", "a|nan"},
			want:   map[string]string{"a|inf": "T", "a|nan": "T"},
		},
		{
			name:   "Any has no nullability",
			schema: rtOne(schema.Any("a")),
			data:   rtData{cols: "a INTEGER", rows: []string{"NULL"}},
			rules:  []string{},
		},
		{
			name: "bool binary enum",
			schema: schema.New("T", schema.Bool("b"), schema.Binary("y"),
				schema.Enum("e", "x", "y")),
			data: rtData{cols: "b BOOLEAN, y BLOB, e ENUM('x', 'y')", rows: []string{
				"true, '\\x00'::BLOB, 'x'", "NULL, NULL, NULL", "false, ''::BLOB, 'y'"}},
			rules: []string{"b|nullability", "y|nullability", "e|nullability"},
			want:  map[string]string{"b|nullability": "TFT", "y|nullability": "TFT", "e|nullability": "TFT"},
		},
	})
}

func TestUnique(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name:   "integers: every member of a duplicate set fails, NULLs are equal",
			schema: rtOne(schema.Int64("a").Nullable().Unique()),
			data:   rtData{cols: "a BIGINT", rows: []string{"1", "2", "2", "NULL", "NULL", "3", "2"}},
			rules:  []string{"a|unique"},
			want:   map[string]string{"a|unique": "TFFFFTF"},
		},
		{
			name:   "single NULL is unique",
			schema: rtOne(schema.Int64("a").Nullable().Unique()),
			data:   rtData{cols: "a BIGINT", rows: []string{"1", "NULL"}},
			want:   map[string]string{"a|unique": "TT"},
		},
		{
			name:   "floats: NaN equals NaN, -0.0 equals 0.0",
			schema: rtOne(schema.Float64("a").AllowNaN().Unique()),
			data: rtData{cols: "a DOUBLE", rows: []string{
				"'nan'", "'nan'", "'-0.0'", "0.0", "1.5", "'inf'", "'-inf'"}},
			want: map[string]string{"a|unique": "FFFFTTT"},
		},
		{
			name:   "float32 NaN and signed zero",
			schema: rtOne(schema.Float32("a").AllowNaN().Unique()),
			data:   rtData{cols: "a FLOAT", rows: []string{"'nan'", "'-0.0'", "0.0", "'nan'", "2"}},
			want:   map[string]string{"a|unique": "FFFFT"},
		},
		{
			name:   "strings are case-sensitive",
			schema: rtOne(schema.String("a").Unique()),
			data:   rtData{cols: "a VARCHAR", rows: []string{"'a'", "'A'", "'a'", "''", "'é'"}},
			want:   map[string]string{"a|unique": "FTFTT"},
		},
		{
			name:   "decimals compare by value",
			schema: rtOne(schema.Decimal("a", 10, 2).Unique()),
			data:   rtData{cols: "a DECIMAL(10,2)", rows: []string{"1.10", "1.1", "1.2"}},
			want:   map[string]string{"a|unique": "FFT"},
		},
		{
			name:   "datetimes",
			schema: rtOne(schema.Datetime("a", schema.Micros, "").Unique()),
			data: rtData{cols: "a TIMESTAMP", rows: []string{
				"'2020-01-01 00:00:00'", "'2020-01-01 00:00:00.000001'", "'2020-01-01'"}},
			want: map[string]string{"a|unique": "FTF"},
		},
		{
			name: "unique and primary key on one column agree",
			schema: schema.New("T", schema.Int64("a").PrimaryKey().Unique(),
				schema.Int64("b").Nullable().Unique()),
			data:  rtData{cols: "a BIGINT, b BIGINT", rows: []string{"1, 1", "1, 2", "2, 2", "3, NULL"}},
			rules: []string{"primary_key", "a|nullability", "a|unique", "b|unique"},
			want:  map[string]string{"primary_key": "FFTT", "a|unique": "FFTT", "b|unique": "TFFT"},
		},
		{
			name:   "no rows",
			schema: rtOne(schema.Int64("a").Unique()),
			data:   rtData{cols: "a BIGINT"},
			want:   map[string]string{"a|unique": ""},
		},
	})
}

func TestPrimaryKey(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name:   "single column: every duplicate fails",
			schema: rtOne(schema.Int64("a").PrimaryKey()),
			data:   rtData{cols: "a BIGINT", rows: []string{"1", "2", "2"}},
			rules:  []string{"primary_key", "a|nullability"},
			want:   map[string]string{"primary_key": "TFF", "a|nullability": "TTT"},
		},
		{
			name: "composite key",
			schema: schema.New("T", schema.Int64("a").PrimaryKey(), schema.String("b").PrimaryKey(),
				schema.Int64("c").Nullable()),
			data: rtData{cols: "a BIGINT, b VARCHAR, c BIGINT", rows: []string{
				"1, 'x', 1", "1, 'y', 1", "1, 'x', 2", "2, 'x', 3", "2, 'y', 3", "1, 'x', 4"}},
			rules: []string{"primary_key", "a|nullability", "b|nullability"},
			want:  map[string]string{"primary_key": "FTFTTF"},
		},
		{
			name:   "NULL keys collide",
			schema: schema.New("T", schema.Int64("a").PrimaryKey(), schema.String("b").PrimaryKey()),
			data: rtData{cols: "a BIGINT, b VARCHAR", rows: []string{
				"NULL, 'x'", "NULL, 'x'", "1, 'x'", "NULL, NULL", "NULL, NULL", "1, NULL"}},
			want: map[string]string{
				"primary_key":   "FFTFFT",
				"a|nullability": "FFTFFT",
				"b|nullability": "TTTFFF",
			},
		},
		{
			name:   "NaN keys collide",
			schema: rtOne(schema.Float64("a").AllowNaN().PrimaryKey()),
			data:   rtData{cols: "a DOUBLE", rows: []string{"'nan'", "'nan'", "'-0.0'", "0", "1"}},
			want:   map[string]string{"primary_key": "FFFFT"},
		},
		{
			name: "key columns in schema order, not adjacent",
			schema: schema.New("T", schema.String("b").PrimaryKey(), schema.Int64("x").Nullable(),
				schema.Int64("a").PrimaryKey()),
			data:  rtData{cols: "b VARCHAR, x BIGINT, a BIGINT", rows: []string{"'p', 1, 1", "'p', 2, 1", "'q', 2, 1"}},
			rules: []string{"primary_key", "b|nullability", "a|nullability"},
			want:  map[string]string{"primary_key": "FFT"},
		},
	})
}

func TestPrimaryKeyRule(t *testing.T) {
	p := rtCompile(t, schema.New("T", schema.String("b").PrimaryKey(), schema.Int64("a").PrimaryKey()))
	r := p.Rules[0]
	if r.Name != "primary_key" || r.Check != "dy_rule__primary_key" || r.Column != "" || r.Kind != "primary_key" {
		t.Errorf("primary key rule = %+v", r)
	}
	if !strings.Contains(r.Expr, `"b", "a"`) {
		t.Errorf("primary key expr %q does not list the key columns in schema order", r.Expr)
	}
}

func TestIntegerBounds(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name:   "Int8 inner bounds",
			schema: rtOne(schema.Int8("a").Min(-5).Max(5)),
			data:   rtData{cols: "a TINYINT", rows: []string{"-128", "-6", "-5", "0", "5", "6", "127"}},
			rules:  []string{"a|nullability", "a|min", "a|max"},
			want:   map[string]string{"a|min": "FFTTTTT", "a|max": "TTTTTFF"},
		},
		{
			name:   "Int8 type bounds",
			schema: rtOne(schema.Int8("a").Min(-128).Max(127)),
			data:   rtData{cols: "a TINYINT", rows: []string{"-128", "127"}},
			want:   map[string]string{"a|min": "TT", "a|max": "TT"},
		},
		{
			name:   "Int8 exclusive type bounds",
			schema: rtOne(schema.Int8("a").MinExclusive(-128).MaxExclusive(127)),
			data:   rtData{cols: "a TINYINT", rows: []string{"-128", "-127", "126", "127"}},
			rules:  []string{"a|nullability", "a|min_exclusive", "a|max_exclusive"},
			want:   map[string]string{"a|min_exclusive": "FTTT", "a|max_exclusive": "TTTF"},
		},
		{
			name:   "Int16",
			schema: rtOne(schema.Int16("a").Min(-300).MaxExclusive(300)),
			data:   rtData{cols: "a SMALLINT", rows: []string{"-32768", "-301", "-300", "299", "300", "32767"}},
			want:   map[string]string{"a|min": "FFTTTT", "a|max_exclusive": "TTTTFF"},
		},
		{
			name:   "Int16 type bounds",
			schema: rtOne(schema.Int16("a").MinExclusive(-32768).Max(32767)),
			data:   rtData{cols: "a SMALLINT", rows: []string{"-32768", "32767"}},
			want:   map[string]string{"a|min_exclusive": "FT", "a|max": "TT"},
		},
		{
			name:   "Int32 type bounds",
			schema: rtOne(schema.Int32("a").Min(-2147483648).MaxExclusive(2147483647)),
			data:   rtData{cols: "a INTEGER", rows: []string{"-2147483648", "0", "2147483647"}},
			want:   map[string]string{"a|min": "TTT", "a|max_exclusive": "TTF"},
		},
		{
			name:   "Int32",
			schema: rtOne(schema.Int32("a").MinExclusive(0).Max(100000)),
			data:   rtData{cols: "a INTEGER", rows: []string{"0", "1", "100000", "100001"}},
			want:   map[string]string{"a|min_exclusive": "FTTT", "a|max": "TTTF"},
		},
		{
			name:   "Int64 type bounds",
			schema: rtOne(schema.Int64("a").MinExclusive(int64(-9223372036854775808)).Max(int64(9223372036854775807))),
			data:   rtData{cols: "a BIGINT", rows: []string{"-9223372036854775808", "-9223372036854775807", "9223372036854775807"}},
			want:   map[string]string{"a|min_exclusive": "FTT", "a|max": "TTT"},
		},
		{
			name:   "Int64 max exclusive at type max",
			schema: rtOne(schema.Int64("a").Min(int64(-9223372036854775808)).MaxExclusive(int64(9223372036854775807))),
			data:   rtData{cols: "a BIGINT", rows: []string{"-9223372036854775808", "9223372036854775806", "9223372036854775807"}},
			want:   map[string]string{"a|min": "TTT", "a|max_exclusive": "TTF"},
		},
		{
			name:   "UInt8",
			schema: rtOne(schema.UInt8("a").Min(10).MaxExclusive(255)),
			data:   rtData{cols: "a UTINYINT", rows: []string{"0", "9", "10", "254", "255"}},
			want:   map[string]string{"a|min": "FFTTT", "a|max_exclusive": "TTTTF"},
		},
		{
			name:   "UInt8 type bounds",
			schema: rtOne(schema.UInt8("a").Min(0).Max(255)),
			data:   rtData{cols: "a UTINYINT", rows: []string{"0", "255"}},
			want:   map[string]string{"a|min": "TT", "a|max": "TT"},
		},
		{
			name:   "UInt16",
			schema: rtOne(schema.UInt16("a").MinExclusive(0).MaxExclusive(65535)),
			data:   rtData{cols: "a USMALLINT", rows: []string{"0", "1", "65534", "65535"}},
			want:   map[string]string{"a|min_exclusive": "FTTT", "a|max_exclusive": "TTTF"},
		},
		{
			name:   "UInt32",
			schema: rtOne(schema.UInt32("a").Min(1).Max(uint32(4294967295))),
			data:   rtData{cols: "a UINTEGER", rows: []string{"0", "1", "4294967295"}},
			want:   map[string]string{"a|min": "FTT", "a|max": "TTT"},
		},
		{
			name:   "UInt32 max exclusive",
			schema: rtOne(schema.UInt32("a").MaxExclusive(uint32(4294967295))),
			data:   rtData{cols: "a UINTEGER", rows: []string{"4294967294", "4294967295"}},
			want:   map[string]string{"a|max_exclusive": "TF"},
		},
		{
			name:   "UInt64 max",
			schema: rtOne(schema.UInt64("a").Min(uint64(1)).Max(uint64(18446744073709551615))),
			data:   rtData{cols: "a UBIGINT", rows: []string{"0", "1", "18446744073709551614", "18446744073709551615"}},
			want:   map[string]string{"a|min": "FTTT", "a|max": "TTTT"},
		},
		{
			name:   "UInt64 max exclusive",
			schema: rtOne(schema.UInt64("a").MinExclusive(uint64(9223372036854775807)).MaxExclusive(uint64(18446744073709551615))),
			data: rtData{cols: "a UBIGINT", rows: []string{
				"9223372036854775807", "9223372036854775808", "18446744073709551614", "18446744073709551615"}},
			want: map[string]string{"a|min_exclusive": "FTTT", "a|max_exclusive": "TTTF"},
		},
		{
			name:   "Integer family on a SMALLINT column",
			schema: rtOne(schema.Integer("a").Min(-1).Max(1)),
			data:   rtData{cols: "a SMALLINT", rows: []string{"-2", "-1", "1", "2"}},
			want:   map[string]string{"a|min": "FTTT", "a|max": "TTTF"},
		},
		{
			name:   "Integer family on a UBIGINT column with Int64 range bound",
			schema: rtOne(schema.Integer("a").Max(int64(9223372036854775807))),
			data:   rtData{cols: "a UBIGINT", rows: []string{"9223372036854775807", "9223372036854775808"}},
			want:   map[string]string{"a|max": "TF"},
		},
		{
			name:   "min equals max",
			schema: rtOne(schema.Int32("a").Min(7).Max(7)),
			data:   rtData{cols: "a INTEGER", rows: []string{"6", "7", "8"}},
			want:   map[string]string{"a|min": "FTT", "a|max": "TTF"},
		},
	})
}

func TestFloatBounds(t *testing.T) {
	rtRun(t, []rtCase{
		{
			// 0.1 stored as FLOAT is 0.100000001…; the bound is FLOAT too, so it passes.
			name:   "Float32 bound compares as FLOAT",
			schema: rtOne(schema.Float32("a").Max(0.1)),
			data:   rtData{cols: "a FLOAT", rows: []string{"0.1", "0.2", "0.09"}},
			rules:  []string{"a|nullability", "a|max", "a|inf", "a|nan"},
			want:   map[string]string{"a|max": "TFT"},
		},
		{
			name:   "Float32 min 0.1 and exclusive",
			schema: rtOne(schema.Float32("a").Min(0.1).MaxExclusive(0.3)),
			data:   rtData{cols: "a FLOAT", rows: []string{"0.1", "0.3", "0.29999998"}},
			want:   map[string]string{"a|min": "TTT", "a|max_exclusive": "TFT"},
		},
		{
			name:   "Float32 bound given as float32",
			schema: rtOne(schema.Float32("a").MinExclusive(float32(0.1))),
			data:   rtData{cols: "a FLOAT", rows: []string{"0.1", "0.11"}},
			want:   map[string]string{"a|min_exclusive": "FT"},
		},
		{
			name:   "Float64",
			schema: rtOne(schema.Float64("a").Min(0).Max(1)),
			data: rtData{cols: "a DOUBLE", rows: []string{
				"'-0.0'", "0", "'-1e-300'", "'5e-324'", "1", "'1.0000000000000002'"}},
			want: map[string]string{"a|min": "TTFTTT", "a|max": "TTTTTF"},
		},
		{
			name:   "Float64 exclusive",
			schema: rtOne(schema.Float64("a").MinExclusive(-1.5).MaxExclusive(2.5)),
			data:   rtData{cols: "a DOUBLE", rows: []string{"-1.5", "-1.4999999", "2.4999999", "2.5"}},
			want:   map[string]string{"a|min_exclusive": "FTTT", "a|max_exclusive": "TTTF"},
		},
		{
			name:   "Float64 0.1 is the double 0.1",
			schema: rtOne(schema.Float64("a").Max(0.1)),
			data:   rtData{cols: "a DOUBLE", rows: []string{"0.1", "CAST(CAST(0.1 AS FLOAT) AS DOUBLE)"}},
			want:   map[string]string{"a|max": "TF"},
		},
		{
			name:   "Float family on a DOUBLE column",
			schema: rtOne(schema.Float("a").Max(0.1)),
			data:   rtData{cols: "a DOUBLE", rows: []string{"0.1", "0.10000001"}},
			want:   map[string]string{"a|max": "TF"},
		},
		{
			// The bound takes the column's own type, as polars types a literal.
			name:   "Float family on a FLOAT column compares as FLOAT",
			schema: rtOne(schema.Float("a").Max(0.1).MinExclusive(-0.1)),
			data:   rtData{cols: "a FLOAT", rows: []string{"0.1", "0.2", "-0.1", "-0.09"}},
			want:   map[string]string{"a|max": "TFTT", "a|min_exclusive": "TTFT"},
		},
		{
			name:   "Float family: bounds beyond the FLOAT range",
			schema: rtOne(schema.Float("a").Max(1e300).Min(-1e300).AllowInf()),
			data:   rtData{cols: "a FLOAT", rows: []string{"3.4e38", "'inf'", "'-inf'"}},
			want:   map[string]string{"a|max": "TFT", "a|min": "TTF"},
		},
		{
			name:   "NaN passes min and fails max",
			schema: rtOne(schema.Float64("a").AllowNaN().Min(3).Max(5)),
			data:   rtData{cols: "a DOUBLE", rows: []string{"'nan'", "4", "'inf'", "'-inf'", "2", "6"}},
			rules:  []string{"a|nullability", "a|min", "a|max", "a|inf"},
			want: map[string]string{
				"a|min": "TTTFFT",
				"a|max": "FTFTTF",
				"a|inf": "TTFFTT",
			},
		},
		{
			name:   "NaN passes min_exclusive and fails max_exclusive",
			schema: rtOne(schema.Float64("a").AllowNaN().AllowInf().MinExclusive(3).MaxExclusive(5)),
			data:   rtData{cols: "a DOUBLE", rows: []string{"'nan'", "'inf'", "4"}},
			rules:  []string{"a|nullability", "a|min_exclusive", "a|max_exclusive"},
			want:   map[string]string{"a|min_exclusive": "TTT", "a|max_exclusive": "FFT"},
		},
		{
			name:   "NaN without AllowNaN fails nan but still orders above everything",
			schema: rtOne(schema.Float32("a").Min(3).Max(5)),
			data:   rtData{cols: "a FLOAT", rows: []string{"'nan'", "4"}},
			want:   map[string]string{"a|min": "TT", "a|max": "FT", "a|nan": "FT", "a|inf": "TT"},
		},
	})
}

func TestInfNaN(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name:   "defaults",
			schema: rtOne(schema.Float64("a").Nullable()),
			data:   rtData{cols: "a DOUBLE", rows: []string{"'nan'", "'inf'", "'-inf'", "1", "NULL", "'-nan'"}},
			rules:  []string{"a|inf", "a|nan"},
			want:   map[string]string{"a|inf": "TFFTTT", "a|nan": "FTTTTF"},
		},
		{
			name:   "Float32",
			schema: rtOne(schema.Float32("a")),
			data:   rtData{cols: "a FLOAT", rows: []string{"'nan'", "'inf'", "'-inf'", "3.4e38"}},
			want:   map[string]string{"a|inf": "TFFT", "a|nan": "FTTT"},
		},
		{
			name:   "allow inf",
			schema: rtOne(schema.Float64("a").AllowInf()),
			data:   rtData{cols: "a DOUBLE", rows: []string{"'inf'", "'nan'"}},
			rules:  []string{"a|nullability", "a|nan"},
			want:   map[string]string{"a|nan": "TF"},
		},
		{
			name:   "allow nan",
			schema: rtOne(schema.Float64("a").AllowNaN()),
			data:   rtData{cols: "a DOUBLE", rows: []string{"'inf'", "'nan'"}},
			rules:  []string{"a|nullability", "a|inf"},
			want:   map[string]string{"a|inf": "FT"},
		},
		{
			name:   "allow both",
			schema: rtOne(schema.Float("a").AllowInf().AllowNaN().Nullable()),
			data:   rtData{cols: "a FLOAT", rows: []string{"'inf'", "'nan'"}},
			rules:  []string{},
		},
	})
}

func TestDecimalBounds(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name:   "exact at the bound",
			schema: rtOne(schema.Decimal("a", 10, 2).Min(3.14).Max("3.15")),
			data:   rtData{cols: "a DECIMAL(10,2)", rows: []string{"3.13", "3.14", "3.15", "3.16"}},
			rules:  []string{"a|nullability", "a|min", "a|max"},
			want:   map[string]string{"a|min": "FTTT", "a|max": "TTTF"},
		},
		{
			name:   "exclusive",
			schema: rtOne(schema.Decimal("a", 10, 2).MinExclusive("3.14").MaxExclusive(5)),
			data:   rtData{cols: "a DECIMAL(10,2)", rows: []string{"3.14", "3.15", "4.99", "5.00"}},
			want:   map[string]string{"a|min_exclusive": "FTTT", "a|max_exclusive": "TTTF"},
		},
		{
			name:   "wide decimal stays exact",
			schema: rtOne(schema.Decimal("a", 38, 10).Max("1234567890123456789012345678.0123456789")),
			data: rtData{cols: "a DECIMAL(38,10)", rows: []string{
				"1234567890123456789012345678.0123456789", "1234567890123456789012345678.0123456790"}},
			want: map[string]string{"a|max": "TF"},
		},
		{
			name:   "negative bound",
			schema: rtOne(schema.Decimal("a", 5, 3).Min("-1.005")),
			data:   rtData{cols: "a DECIMAL(5,3)", rows: []string{"-1.006", "-1.005", "-1.004"}},
			want:   map[string]string{"a|min": "FTT"},
		},
		{
			name:   "scale 0",
			schema: rtOne(schema.Decimal("a", 18, 0).Max(100)),
			data:   rtData{cols: "a DECIMAL(18,0)", rows: []string{"100", "101"}},
			want:   map[string]string{"a|max": "TF"},
		},
		{
			name:   "any precision",
			schema: rtOne(schema.Decimal("a", 0, 2).Min("3.14").Max("100.5")),
			data:   rtData{cols: "a DECIMAL(5,2)", rows: []string{"3.13", "3.14", "100.50", "100.51"}},
			want:   map[string]string{"a|min": "FTTT", "a|max": "TTTF"},
		},
	})
}

func TestTemporalBounds(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name:   "Date",
			schema: rtOne(schema.Date("a").Min("2020-01-01").Max("2020-12-31")),
			data: rtData{cols: "a DATE", rows: []string{
				"'2019-12-31'", "'2020-01-01'", "'2020-12-31'", "'2021-01-01'"}},
			rules: []string{"a|nullability", "a|min", "a|max"},
			want:  map[string]string{"a|min": "FTTT", "a|max": "TTTF"},
		},
		{
			name:   "Date exclusive",
			schema: rtOne(schema.Date("a").MinExclusive("2020-01-01").MaxExclusive("2020-01-03")),
			data:   rtData{cols: "a DATE", rows: []string{"'2020-01-01'", "'2020-01-02'", "'2020-01-03'"}},
			want:   map[string]string{"a|min_exclusive": "FTT", "a|max_exclusive": "TTF"},
		},
		{
			name:   "Time",
			schema: rtOne(schema.Time("a").Min("08:00").MaxExclusive("17:30:00")),
			data: rtData{cols: "a TIME", rows: []string{
				"'07:59:59.999999'", "'08:00:00'", "'17:29:59.999999'", "'17:30:00'"}},
			want: map[string]string{"a|min": "FTTT", "a|max_exclusive": "TTTF"},
		},
		{
			name:   "Time with fraction",
			schema: rtOne(schema.Time("a").MinExclusive("00:00:00.5").Max("23:59:59.999999")),
			data:   rtData{cols: "a TIME", rows: []string{"'00:00:00.5'", "'00:00:00.500001'", "'23:59:59.999999'"}},
			want:   map[string]string{"a|min_exclusive": "FTT", "a|max": "TTT"},
		},
		{
			name:   "Datetime us",
			schema: rtOne(schema.Datetime("a", schema.Micros, "").Min("2020-01-01 00:00:00").Max("2020-01-01 12:00:00.5")),
			data: rtData{cols: "a TIMESTAMP", rows: []string{
				"'2019-12-31 23:59:59.999999'", "'2020-01-01 00:00:00'", "'2020-01-01 12:00:00.5'", "'2020-01-01 12:00:00.500001'"}},
			want: map[string]string{"a|min": "FTTT", "a|max": "TTTF"},
		},
		{
			name:   "Datetime us date-only bound",
			schema: rtOne(schema.Datetime("a", "", "").MinExclusive("2020-01-01")),
			data:   rtData{cols: "a TIMESTAMP", rows: []string{"'2020-01-01 00:00:00'", "'2020-01-01 00:00:00.000001'"}},
			want:   map[string]string{"a|min_exclusive": "FT"},
		},
		{
			name:   "Datetime ms",
			schema: rtOne(schema.Datetime("a", schema.Millis, "").Min("2020-01-01 00:00:00.001").MaxExclusive("2020-01-01 00:00:00.003")),
			data: rtData{cols: "a TIMESTAMP_MS", rows: []string{
				"'2020-01-01 00:00:00.000'", "'2020-01-01 00:00:00.001'", "'2020-01-01 00:00:00.002'", "'2020-01-01 00:00:00.003'"}},
			want: map[string]string{"a|min": "FTTT", "a|max_exclusive": "TTTF"},
		},
		{
			name:   "Datetime ns",
			schema: rtOne(schema.Datetime("a", schema.Nanos, "").MinExclusive("2020-01-01 00:00:00").Max("2020-01-01 00:00:00.000000002")),
			data: rtData{cols: "a TIMESTAMP_NS", rows: []string{
				"'2020-01-01 00:00:00'", "'2020-01-01 00:00:00.000000001'", "'2020-01-01 00:00:00.000000002'", "'2020-01-01 00:00:00.000000003'"}},
			want: map[string]string{"a|min_exclusive": "FTTT", "a|max": "TTTF"},
		},
		{
			name:   "Datetime zoned",
			schema: rtOne(schema.Datetime("a", schema.Micros, "Europe/Berlin").Min("2020-03-01 12:00:00+01:00").MaxExclusive("2020-07-01 12:00:00+02:00")),
			data: rtData{cols: "a TIMESTAMPTZ", rows: []string{
				"'2020-03-01 10:59:59.999999+00'", "'2020-03-01 12:00:00+01'", "'2020-03-01 11:00:01+00'",
				"'2020-07-01 09:59:59+00'", "'2020-07-01 10:00:00+00'", "'2020-07-01 12:00:00+02'"}},
			want: map[string]string{"a|min": "FTTTTT", "a|max_exclusive": "TTTTFF"},
		},
		{
			name:   "Duration",
			schema: rtOne(schema.Duration("a").Min("1h").Max("1d")),
			data: rtData{cols: "a INTERVAL", rows: []string{
				"INTERVAL '59 minutes'", "INTERVAL '1 hour'", "INTERVAL '24 hours'", "INTERVAL '1 day'",
				"INTERVAL '1 day 1 microsecond'", "INTERVAL '1 month'", "INTERVAL '-2 hours'"}},
			want: map[string]string{"a|min": "FTTTTTF", "a|max": "TTTTFFT"},
		},
		{
			name:   "Duration exclusive, compound and sub-second",
			schema: rtOne(schema.Duration("a").MinExclusive("500ms").MaxExclusive("1d4h")),
			data: rtData{cols: "a INTERVAL", rows: []string{
				"INTERVAL '500 milliseconds'", "INTERVAL '501 milliseconds'", "INTERVAL '27 hours 59 minutes'", "INTERVAL '28 hours'", "INTERVAL '1 day 4 hours'"}},
			want: map[string]string{"a|min_exclusive": "FTTTT", "a|max_exclusive": "TTTFF"},
		},
		{
			name:   "Duration negative bounds",
			schema: rtOne(schema.Duration("a").Min("-1h30m").MaxExclusive("-1s")),
			data: rtData{cols: "a INTERVAL", rows: []string{
				"INTERVAL '-2 hours'", "INTERVAL '-90 minutes'", "INTERVAL '-1 hour'", "INTERVAL '-1 second'", "INTERVAL '0 seconds'"}},
			want: map[string]string{"a|min": "FTTTT", "a|max_exclusive": "TTTFF"},
		},
	})
}

func TestIsIn(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name:   "integers",
			schema: rtOne(schema.Int64("a").Nullable().IsIn(1, 3, 5)),
			data:   rtData{cols: "a BIGINT", rows: []string{"1", "2", "5", "NULL", "-1"}},
			rules:  []string{"a|is_in"},
			want:   map[string]string{"a|is_in": "TFTTF"},
		},
		{
			name:   "integer type edges",
			schema: rtOne(schema.UInt64("a").IsIn(uint64(0), uint64(18446744073709551615))),
			data:   rtData{cols: "a UBIGINT", rows: []string{"0", "1", "18446744073709551615"}},
			want:   map[string]string{"a|is_in": "TFT"},
		},
		{
			name:   "Int8 negative edge",
			schema: rtOne(schema.Int8("a").IsIn(-128, 127).MinExclusive(-128)),
			data:   rtData{cols: "a TINYINT", rows: []string{"-128", "127", "0"}},
			rules:  []string{"a|nullability", "a|min_exclusive", "a|is_in"},
			want:   map[string]string{"a|is_in": "TTF", "a|min_exclusive": "FTT"},
		},
		{
			name:   "strings with quotes and backslashes",
			schema: rtOne(schema.String("a").Nullable().IsIn("it's", `a"b`, "x", "", "ü🇩🇪", `c:\n`)),
			data: rtData{cols: "a VARCHAR", rows: []string{
				"'it''s'", `'a"b'`, "'its'", "NULL", "''", "'X'", "'ü🇩🇪'", `'c:\n'`, `'c:
'`, "'c:' || chr(10)"}},
			rules: []string{"a|is_in"},
			want:  map[string]string{"a|is_in": "TTFTTFTTFF"},
		},
		{
			name:   "strings that look like numbers",
			schema: rtOne(schema.String("a").IsIn("1", "01")),
			data:   rtData{cols: "a VARCHAR", rows: []string{"'1'", "'01'", "'1.0'"}},
			want:   map[string]string{"a|is_in": "TTF"},
		},
		{
			name:   "empty list: non-NULL fails, NULL passes",
			schema: rtOne(schema.Int64("a").Nullable().IsIn()),
			data:   rtData{cols: "a BIGINT", rows: []string{"1", "NULL", "0"}},
			rules:  []string{"a|is_in"},
			want:   map[string]string{"a|is_in": "FTF"},
		},
		{
			name:   "empty string list",
			schema: rtOne(schema.String("a").Nullable().IsIn()),
			data:   rtData{cols: "a VARCHAR", rows: []string{"''", "NULL", "'x'"}},
			want:   map[string]string{"a|is_in": "FTF"},
		},
	})
}

func TestRegex(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name:   "search, not full match",
			schema: rtOne(schema.String("a").Nullable().Regex("[0-9][a-z]$")),
			data:   rtData{cols: "a VARCHAR", rows: []string{"'33x'", "'3x'", "'44'", "'a3xb'", "NULL", "'zz9q'"}},
			rules:  []string{"a|regex"},
			want:   map[string]string{"a|regex": "TTFFTT"},
		},
		{
			name:   "substring anywhere",
			schema: rtOne(schema.String("a").Regex("b")),
			data:   rtData{cols: "a VARCHAR", rows: []string{"'abc'", "'b'", "'ac'", "''"}},
			want:   map[string]string{"a|regex": "TTFF"},
		},
		{
			name:   "start anchor",
			schema: rtOne(schema.String("a").Regex("^ab")),
			data:   rtData{cols: "a VARCHAR", rows: []string{"'abc'", "'cab'"}},
			want:   map[string]string{"a|regex": "TF"},
		},
		{
			name:   "full anchors",
			schema: rtOne(schema.String("a").Regex("^ab$")),
			data:   rtData{cols: "a VARCHAR", rows: []string{"'ab'", "'abc'", "'xab'", "'ab' || chr(10)"}},
			want:   map[string]string{"a|regex": "TFFF"},
		},
		{
			name:   "dollar is end of text without multiline",
			schema: rtOne(schema.String("a").Regex("a$")),
			data:   rtData{cols: "a VARCHAR", rows: []string{"'a' || chr(10)", "'ba'"}},
			want:   map[string]string{"a|regex": "FT"},
		},
		{
			name:   "quotes and escapes",
			schema: rtOne(schema.String("a").Regex(`^it's \d+\.\d$`)),
			data:   rtData{cols: "a VARCHAR", rows: []string{"'it''s 12.5'", "'its 12.5'", "'it''s 12x5'", "'it''s 1.55'"}},
			want:   map[string]string{"a|regex": "TFFF"},
		},
		{
			name:   "literal backslash",
			schema: rtOne(schema.String("a").Regex(`\\`)),
			data:   rtData{cols: "a VARCHAR", rows: []string{`'a\b'`, "'ab'", `'\'`}},
			want:   map[string]string{"a|regex": "TFT"},
		},
		{
			name:   "double quotes and escaped dollar",
			schema: rtOne(schema.String("a").Regex(`"q"\$`)),
			data:   rtData{cols: "a VARCHAR", rows: []string{`'x"q"$'`, `'"q"'`, `'''q''$'`}},
			want:   map[string]string{"a|regex": "TFF"},
		},
		{
			name:   "case-insensitive flag",
			schema: rtOne(schema.String("a").Regex("(?i)^abc$")),
			data:   rtData{cols: "a VARCHAR", rows: []string{"'ABC'", "'aBc'", "'abd'"}},
			want:   map[string]string{"a|regex": "TTF"},
		},
		{
			name:   "unicode",
			schema: rtOne(schema.String("a").Regex(`^\p{L}+$`)),
			data:   rtData{cols: "a VARCHAR", rows: []string{"'über'", "'ü1'", "'日本'"}},
			want:   map[string]string{"a|regex": "TFT"},
		},
	})
}

func TestStringLength(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name:   "UTF-8 bytes",
			schema: rtOne(schema.String("a").Nullable().MinLength(2).MaxLength(4)),
			data: rtData{cols: "a VARCHAR", rows: []string{
				"'é'", "'a'", "''", "'🇩🇪'", "'abcd'", "'abcde'", "NULL", "'éé'", "'aé'", "'ééa'"}},
			rules: []string{"a|min_length", "a|max_length"},
			want: map[string]string{
				"a|min_length": "TFFTTTTTTT",
				"a|max_length": "TTTFTFTTTF",
			},
		},
		{
			name:   "é is 2 bytes",
			schema: rtOne(schema.String("a").MaxLength(1)),
			data:   rtData{cols: "a VARCHAR", rows: []string{"'é'", "'e'", "''"}},
			want:   map[string]string{"a|max_length": "FTT"},
		},
		{
			name:   "flag is 8 bytes",
			schema: rtOne(schema.String("a").MinLength(8).MaxLength(8)),
			data:   rtData{cols: "a VARCHAR", rows: []string{"'🇩🇪'", "'🇩'", "'abcdefgh'", "'🇩🇪a'"}},
			want:   map[string]string{"a|min_length": "TFTT", "a|max_length": "TTTF"},
		},
		{
			name:   "empty string has length 0",
			schema: rtOne(schema.String("a").MinLength(0).MaxLength(0)),
			data:   rtData{cols: "a VARCHAR", rows: []string{"''", "' '"}},
			want:   map[string]string{"a|min_length": "TT", "a|max_length": "TF"},
		},
		{
			name:   "min_length 1 rejects empty",
			schema: rtOne(schema.String("a").MinLength(1)),
			data:   rtData{cols: "a VARCHAR", rows: []string{"''", "'x'"}},
			want:   map[string]string{"a|min_length": "FT"},
		},
	})
}

func TestResolution(t *testing.T) {
	dt := func(res string) *schema.Schema {
		return rtOne(schema.Datetime("a", schema.Micros, "").Resolution(res))
	}
	ts := func(vals ...string) rtData {
		rows := make([]string, len(vals))
		for i, v := range vals {
			rows[i] = "'" + v + "'"
		}
		return rtData{cols: "a TIMESTAMP", rows: rows}
	}
	rtRun(t, []rtCase{
		{
			name:   "Datetime 1h",
			schema: dt("1h"),
			data: ts("2020-01-01 10:00:00", "2020-01-01 10:00:00.000001", "2020-01-01 10:30:00",
				"1969-12-31 23:00:00", "1969-12-31 23:59:59", "1900-01-01 00:00:00"),
			rules: []string{"a|nullability", "a|resolution"},
			want:  map[string]string{"a|resolution": "TFFTFT"},
		},
		{
			name:   "Datetime 7h is epoch-based",
			schema: dt("7h"),
			// 2000-01-03 00:00 is time_bucket's default origin but 263016 h = 37573 × 7 h + 5 h
			// after the epoch, so it is off polars' grid.
			data: ts("1970-01-01 07:00:00", "1970-01-01 14:00:00", "1970-01-01 08:00:00", "2000-01-03 00:00:00", "2000-01-02 19:00:00"),
			want: map[string]string{"a|resolution": "TTFFT"},
		},
		{
			name:   "Datetime 1d",
			schema: dt("1d"),
			data:   ts("2020-01-01 00:00:00", "2020-01-01 01:00:00", "1969-12-31 00:00:00", "1969-12-31 12:00:00"),
			want:   map[string]string{"a|resolution": "TFTF"},
		},
		{
			name:   "Datetime 1w is Monday-based",
			schema: dt("1w"),
			// 2024-01-01 and 2024-01-08 are Mondays; 1970-01-01 was a Thursday.
			data: ts("2024-01-01 00:00:00", "2024-01-07 00:00:00", "2024-01-08 00:00:00", "1970-01-05 00:00:00",
				"1970-01-01 00:00:00", "1969-12-29 00:00:00", "2024-01-01 00:00:01"),
			want: map[string]string{"a|resolution": "TFTTFTF"},
		},
		{
			name:   "Datetime 2w from 1970-01-05",
			schema: dt("2w"),
			data:   ts("1970-01-05 00:00:00", "1970-01-12 00:00:00", "1970-01-19 00:00:00", "1969-12-22 00:00:00", "1969-12-29 00:00:00"),
			want:   map[string]string{"a|resolution": "TFTTF"},
		},
		{
			name:   "Datetime 1mo",
			schema: dt("1mo"),
			data:   ts("2020-02-01 00:00:00", "2020-02-02 00:00:00", "2020-02-01 00:00:01", "2020-02-01 00:00:00.000001", "1969-12-01 00:00:00"),
			want:   map[string]string{"a|resolution": "TFFFT"},
		},
		{
			name:   "Datetime 2mo by month index",
			schema: dt("2mo"),
			data:   ts("2020-01-01 00:00:00", "2020-02-01 00:00:00", "2020-03-01 00:00:00", "1969-11-01 00:00:00", "1969-12-01 00:00:00"),
			want:   map[string]string{"a|resolution": "TFTTF"},
		},
		{
			name:   "Datetime 1q",
			schema: dt("1q"),
			data: ts("2020-01-01 00:00:00", "2020-04-01 00:00:00", "2020-02-01 00:00:00", "2020-07-01 00:00:00",
				"2020-10-01 00:00:00", "2020-11-01 00:00:00", "2020-04-02 00:00:00"),
			want: map[string]string{"a|resolution": "TTFTTFF"},
		},
		{
			name:   "Datetime 1y",
			schema: dt("1y"),
			data:   ts("2020-01-01 00:00:00", "2020-02-01 00:00:00", "1969-01-01 00:00:00", "2020-01-01 00:00:00.000001"),
			want:   map[string]string{"a|resolution": "TFTF"},
		},
		{
			name:   "Datetime ms 15m",
			schema: rtOne(schema.Datetime("a", schema.Millis, "").Resolution("15m")),
			data: rtData{cols: "a TIMESTAMP_MS", rows: []string{
				"'2020-01-01 10:15:00'", "'2020-01-01 10:15:00.001'", "'2020-01-01 10:20:00'", "'1969-12-31 23:45:00'"}},
			want: map[string]string{"a|resolution": "TFFT"},
		},
		{
			name:   "Datetime ms 1w",
			schema: rtOne(schema.Datetime("a", schema.Millis, "").Resolution("1w")),
			data:   rtData{cols: "a TIMESTAMP_MS", rows: []string{"'2024-01-01 00:00:00'", "'2024-01-02 00:00:00'"}},
			want:   map[string]string{"a|resolution": "TF"},
		},
		{
			name:   "Datetime ns 1s",
			schema: rtOne(schema.Datetime("a", schema.Nanos, "").Resolution("1s")),
			data: rtData{cols: "a TIMESTAMP_NS", rows: []string{
				"'2020-01-01 10:15:01'", "'2020-01-01 10:15:01.000000001'", "'1969-12-31 23:59:59'", "'1969-12-31 23:59:59.999999999'"}},
			want: map[string]string{"a|resolution": "TFTF"},
		},
		{
			name:   "Datetime ns 1w and 1mo",
			schema: rtOne(schema.Datetime("a", schema.Nanos, "").Resolution("1w")),
			data:   rtData{cols: "a TIMESTAMP_NS", rows: []string{"'2024-01-08 00:00:00'", "'2024-01-08 00:00:00.000000001'"}},
			want:   map[string]string{"a|resolution": "TF"},
		},
		{
			name:   "Datetime ns 1mo",
			schema: rtOne(schema.Datetime("a", schema.Nanos, "").Resolution("1mo")),
			data:   rtData{cols: "a TIMESTAMP_NS", rows: []string{"'2024-03-01 00:00:00'", "'2024-03-01 00:00:00.000000001'"}},
			want:   map[string]string{"a|resolution": "TF"},
		},
		{
			name:   "zoned 1d on Berlin wall time",
			schema: rtOne(schema.Datetime("a", schema.Micros, "Europe/Berlin").Resolution("1d")),
			data: rtData{cols: "a TIMESTAMPTZ", rows: []string{
				"'2020-01-01 00:00:00+01'", "'2020-01-01 00:00:00+00'", "'2020-07-01 00:00:00+02'", "'2020-06-30 23:00:00+00'", "'2020-07-01 00:00:00+00'"}},
			want: map[string]string{"a|resolution": "TFTFF"},
		},
		{
			name:   "zoned 1h on a half-hour offset",
			schema: rtOne(schema.Datetime("a", schema.Micros, "Asia/Kolkata").Resolution("1h")),
			data: rtData{cols: "a TIMESTAMPTZ", rows: []string{
				"'2020-01-01 10:00:00+05:30'", "'2020-01-01 10:00:00+00'", "'2020-01-01 04:30:00+00'"}},
			want: map[string]string{"a|resolution": "TFT"},
		},
		{
			// Santiago skips 2022-09-11 00:00-01:00, Lord Howe 2022-10-02 02:00-02:30. As polars
			// truncates, a grid point in a gap moves to the first instant after it (01:00, 02:30),
			// which is aligned; Berlin's repeated 02:00 is aligned both times.
			name: "zoned grid points in a DST gap or fold",
			schema: schema.New("T",
				schema.Datetime("s", schema.Micros, "America/Santiago").Resolution("1d"),
				schema.Datetime("l", schema.Micros, "Australia/Lord_Howe").Resolution("1h"),
				schema.Datetime("b", schema.Micros, "Europe/Berlin").Resolution("1h"),
				schema.Datetime("m", schema.Micros, "America/Santiago").Resolution("1mo")),
			data: rtData{cols: "s TIMESTAMPTZ, l TIMESTAMPTZ, b TIMESTAMPTZ, m TIMESTAMPTZ", rows: []string{
				"'2022-09-11 04:00:00+00', '2022-10-01 15:30:00+00', '2022-10-30 01:00:00+00', '2022-09-01 04:00:00+00'",
				"'2022-09-11 04:30:00+00', '2022-10-01 15:31:00+00', '2022-10-30 00:00:00+00', '2022-09-01 03:00:00+00'",
				"'2022-09-10 04:00:00+00', '2022-10-01 15:00:00+00', '2022-10-30 01:30:00+00', '2022-10-01 03:00:00+00'",
				"'2022-09-10 04:00:01+00', '2022-10-01 16:00:00+00', '2022-10-30 00:30:00+00', '2022-09-11 04:00:00+00'"}},
			rules: []string{"s|nullability", "s|resolution", "l|nullability", "l|resolution", "b|nullability", "b|resolution", "m|nullability", "m|resolution"},
			want:  map[string]string{"s|resolution": "TFTF", "l|resolution": "TFFT", "b|resolution": "TTFF", "m|resolution": "TFTF"},
		},
		{
			// TIMESTAMPTZ_NS (pandas' to_datetime(…, utc=True), polars Datetime("ns", "UTC")):
			// bounds and the grid to the nanosecond, the DST-gap rule one nanosecond back.
			name: "zoned nanoseconds",
			schema: schema.New("T",
				schema.Datetime("a", schema.Nanos, "UTC").Min("2024-01-01 00:00:00.000000001+00:00"),
				schema.Datetime("r", schema.Nanos, "UTC").Resolution("1us"),
				schema.Datetime("s", schema.Nanos, "America/Santiago").Resolution("1d")),
			data: rtData{cols: "a TIMESTAMPTZ_NS, r TIMESTAMPTZ_NS, s TIMESTAMPTZ_NS", rows: []string{
				"'2024-01-01 00:00:00.000000001+00', '2024-01-01 00:00:00.000000001+00', '2022-09-11 04:00:00+00'",
				"'2024-01-01 00:00:00+00', '2024-01-01 00:00:00+00', '2022-09-11 04:00:00.0000005+00'",
				"'2024-01-01 00:00:00.000001+00', '2024-01-01 00:00:00.000001+00', '2022-09-10 04:00:00+00'"}},
			rules: []string{"a|nullability", "a|min", "r|nullability", "r|resolution", "s|nullability", "s|resolution"},
			want:  map[string]string{"a|min": "TFT", "r|resolution": "FTT", "s|resolution": "TFT"},
		},
		{
			name:   "zoned 1mo",
			schema: rtOne(schema.Datetime("a", schema.Micros, "Europe/Berlin").Resolution("1mo")),
			data: rtData{cols: "a TIMESTAMPTZ", rows: []string{
				"'2020-03-01 00:00:00+01'", "'2020-03-01 00:00:00+00'", "'2020-02-29 23:00:00+00'"}},
			want: map[string]string{"a|resolution": "TFT"},
		},
		{
			name:   "zoned 1w",
			schema: rtOne(schema.Datetime("a", schema.Micros, "America/New_York").Resolution("1w")),
			data: rtData{cols: "a TIMESTAMPTZ", rows: []string{
				"'2024-01-01 00:00:00-05'", "'2024-01-01 00:00:00+00'", "'2024-01-01 05:00:00+00'"}},
			want: map[string]string{"a|resolution": "TFT"},
		},
		{
			name:   "resolution and aligned bounds",
			schema: rtOne(schema.Datetime("a", schema.Micros, "").Resolution("1d").Min("2020-01-01")),
			data:   ts("2019-12-31 00:00:00", "2020-01-01 00:00:00", "2020-01-01 06:00:00"),
			rules:  []string{"a|nullability", "a|min", "a|resolution"},
			want:   map[string]string{"a|min": "FTT", "a|resolution": "TTF"},
		},
		{
			name:   "Date 1d",
			schema: rtOne(schema.Date("a").Resolution("1d")),
			data:   rtData{cols: "a DATE", rows: []string{"'2020-01-01'", "'1969-12-31'"}},
			want:   map[string]string{"a|resolution": "TT"},
		},
		{
			name:   "Date 2d",
			schema: rtOne(schema.Date("a").Resolution("2d")),
			data:   rtData{cols: "a DATE", rows: []string{"'1970-01-01'", "'1970-01-02'", "'1970-01-03'", "'1969-12-30'", "'1969-12-31'"}},
			want:   map[string]string{"a|resolution": "TFTTF"},
		},
		{
			name:   "Date 1w",
			schema: rtOne(schema.Date("a").Resolution("1w")),
			data:   rtData{cols: "a DATE", rows: []string{"'2024-01-01'", "'2024-01-03'", "'1969-12-29'", "'1970-01-01'", "'2024-01-08'"}},
			want:   map[string]string{"a|resolution": "TFTFT"},
		},
		{
			name:   "Date 1mo",
			schema: rtOne(schema.Date("a").Resolution("1mo")),
			data:   rtData{cols: "a DATE", rows: []string{"'2020-02-01'", "'2020-02-15'", "'1969-12-01'", "'2020-02-29'"}},
			want:   map[string]string{"a|resolution": "TFTF"},
		},
		{
			name:   "Date 1q and 1y",
			schema: schema.New("T", schema.Date("q").Resolution("1q"), schema.Date("y").Resolution("1y")),
			data: rtData{cols: "q DATE, y DATE", rows: []string{
				"'2020-04-01', '2020-01-01'", "'2020-05-01', '2020-04-01'", "'2020-10-01', '1969-01-01'"}},
			want: map[string]string{"q|resolution": "TFT", "y|resolution": "TFT"},
		},
		{
			name:   "Time 15m",
			schema: rtOne(schema.Time("a").Resolution("15m")),
			data: rtData{cols: "a TIME", rows: []string{
				"'10:15:00'", "'10:20:00'", "'10:15:00.000001'", "'00:00:00'", "'23:45:00'"}},
			want: map[string]string{"a|resolution": "TFFTT"},
		},
		{
			name:   "Time 1s",
			schema: rtOne(schema.Time("a").Resolution("1s")),
			data:   rtData{cols: "a TIME", rows: []string{"'10:15:07'", "'10:15:07.5'"}},
			want:   map[string]string{"a|resolution": "TF"},
		},
		{
			name:   "Duration 1h",
			schema: rtOne(schema.Duration("a").Resolution("1h")),
			data: rtData{cols: "a INTERVAL", rows: []string{
				"INTERVAL '2 hours'", "INTERVAL '90 minutes'", "INTERVAL '1 day'", "INTERVAL '1 month'",
				"INTERVAL '1 hour 1 microsecond'", "INTERVAL '-3 hours'", "INTERVAL '0 seconds'"}},
			want: map[string]string{"a|resolution": "TFTTFTT"},
		},
		{
			name:   "Duration 1d",
			schema: rtOne(schema.Duration("a").Resolution("1d")),
			data:   rtData{cols: "a INTERVAL", rows: []string{"INTERVAL '48 hours'", "INTERVAL '36 hours'", "INTERVAL '3 days'"}},
			want:   map[string]string{"a|resolution": "TFT"},
		},
	})
}

func TestColumnChecks(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name:   "lone unnamed check is rule check",
			schema: rtOne(schema.Int64("a").Nullable().Check("", "_ % 2 = 0")),
			data:   rtData{cols: "a BIGINT", rows: []string{"2", "3", "NULL"}},
			rules:  []string{"a|check"},
			want:   map[string]string{"a|check": "TFT"},
		},
		{
			name:   "list of checks",
			schema: rtOne(schema.Int64("a").Check("", "_ > 0").Check("", "_ < 10")),
			data:   rtData{cols: "a BIGINT", rows: []string{"0", "5", "10"}},
			rules:  []string{"a|nullability", "a|check__0", "a|check__1"},
			want:   map[string]string{"a|check__0": "FTT", "a|check__1": "TTF"},
		},
		{
			name:   "named checks in declaration order",
			schema: rtOne(schema.String("email").Check("lowercase", "lower(_) = _").Check("at", "_ LIKE '%@%'")),
			data:   rtData{cols: "email VARCHAR", rows: []string{"'a@b'", "'A@b'", "'ab'"}},
			rules:  []string{"email|nullability", "email|check__lowercase", "email|check__at"},
			want:   map[string]string{"email|check__lowercase": "TFT", "email|check__at": "TTF"},
		},
		{
			name:   "checks come after unique and before bounds",
			schema: rtOne(schema.Int64("a").Unique().Check("", "_ <> 3").Min(0)),
			data:   rtData{cols: "a BIGINT", rows: []string{"3", "-1", "-1"}},
			rules:  []string{"a|nullability", "a|unique", "a|check", "a|min"},
			want:   map[string]string{"a|unique": "TFF", "a|check": "FTT", "a|min": "TFF"},
		},
		{
			name:   "underscore inside literals and names is not the value",
			schema: rtOne(schema.String("a").Check("", "_ <> '_' AND _ NOT LIKE 'x_%'")),
			data:   rtData{cols: "a VARCHAR", rows: []string{"'_'", "'xyz'", "'ab'", "'x'"}},
			want:   map[string]string{"a|check": "FFTT"},
		},
		{
			name:   "check may use other columns",
			schema: schema.New("T", schema.Int64("a").Check("", "_ < b"), schema.Int64("b")),
			data:   rtData{cols: "a BIGINT, b BIGINT", rows: []string{"1, 2", "2, 2", "3, NULL"}},
			want:   map[string]string{"a|check": "TFT"},
		},
		{
			name:   "aggregate check true: every row passes",
			schema: rtOne(schema.Int64("a").Check("", "sum(_) < 3")),
			data:   rtData{cols: "a BIGINT", rows: []string{"1", "1"}},
			want:   map[string]string{"a|check": "TT"},
		},
		{
			name:   "aggregate check false fails every row",
			schema: rtOne(schema.Int64("a").Check("", "sum(_) < 3")),
			data:   rtData{cols: "a BIGINT", rows: []string{"1", "2", "-5", "5"}},
			want:   map[string]string{"a|check": "FFFF"},
		},
		{
			name:   "aggregate with NULL rtResult is valid",
			schema: rtOne(schema.Int64("a").Nullable().Check("", "sum(_) > 0")),
			data:   rtData{cols: "a BIGINT", rows: []string{"NULL", "NULL"}},
			want:   map[string]string{"a|check": "TT"},
		},
		{
			name: "aggregate and row checks side by side",
			schema: schema.New("T",
				schema.Int64("a").Check("rows", "_ > 0").Check("total", "sum(_) <= 10").Check("max", "max(_) < 100"),
				schema.Int64("b").Check("", "count(*) = 3")),
			data:  rtData{cols: "a BIGINT, b BIGINT", rows: []string{"-1, 0", "5, 0", "7, 0"}},
			rules: []string{"a|nullability", "a|check__rows", "a|check__total", "a|check__max", "b|nullability", "b|check"},
			want: map[string]string{
				"a|check__rows": "FTT", "a|check__total": "FFF", "a|check__max": "TTT", "b|check": "TTT",
			},
		},
		{
			name:   "NULL check rtResult is valid",
			schema: rtOne(schema.Int64("a").Check("", "_ > NULL")),
			data:   rtData{cols: "a BIGINT", rows: []string{"1"}},
			want:   map[string]string{"a|check": "T"},
		},
	})
}

func TestSchemaRules(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name: "row-level rule, NULL rtResult valid",
			schema: schema.New("T", schema.Int64("a").Nullable(), schema.Int64("b").Nullable()).
				AddRule("a_lt_b", "a < b"),
			data:  rtData{cols: "a BIGINT, b BIGINT", rows: []string{"1, 2", "2, 1", "NULL, 1", "2, 2"}},
			rules: []string{"a_lt_b"},
			want:  map[string]string{"a_lt_b": "TFTF"},
		},
		{
			name: "always NULL is valid",
			schema: schema.New("T", schema.Int64("a").Nullable()).
				AddRule("unknown", "CAST(NULL AS BOOLEAN)"),
			data: rtData{cols: "a BIGINT", rows: []string{"1", "NULL"}},
			want: map[string]string{"unknown": "TT"},
		},
		{
			name: "Kleene logic",
			schema: schema.New("T", schema.Bool("p").Nullable(), schema.Bool("q").Nullable()).
				AddRule("p_or_q", "p OR q").AddRule("p_and_q", "p AND q"),
			data: rtData{cols: "p BOOLEAN, q BOOLEAN", rows: []string{
				"true, NULL", "false, NULL", "NULL, NULL", "false, false", "true, true"}},
			want: map[string]string{"p_or_q": "TTTFT", "p_and_q": "TFTFT"},
		},
		{
			name: "aggregate without group fails every row",
			schema: schema.New("T", schema.Int64("a")).
				AddRule("total", "sum(a) < 10").AddRule("pos", "a > 0"),
			data:  rtData{cols: "a BIGINT", rows: []string{"5", "6", "-1"}},
			rules: []string{"total", "pos", "a|nullability"},
			want:  map[string]string{"total": "FFF", "pos": "TTF"},
		},
		{
			name: "aggregate without group passes",
			schema: schema.New("T", schema.Int64("a")).
				AddRule("total", "sum(a) < 10"),
			data: rtData{cols: "a BIGINT", rows: []string{"5", "4"}},
			want: map[string]string{"total": "TT"},
		},
		{
			name: "group rule: NULL keys form one group",
			schema: schema.New("T", schema.Int64("a").Nullable(), schema.Int64("b")).
				AddGroupRule("b_unique_within_a", "count(DISTINCT b) = 1", "a"),
			data:  rtData{cols: "a BIGINT, b BIGINT", rows: []string{"NULL, 1", "NULL, 2"}},
			rules: []string{"b_unique_within_a", "b|nullability"},
			want:  map[string]string{"b_unique_within_a": "FF"},
		},
		{
			name: "group rule: every row of a failing group fails",
			schema: schema.New("T", schema.Int64("a").Nullable(), schema.Int64("b")).
				AddGroupRule("b_unique_within_a", "count(DISTINCT b) = 1", "a"),
			data: rtData{cols: "a BIGINT, b BIGINT", rows: []string{
				"1, 1", "2, 1", "1, 1", "2, 2", "NULL, 1", "3, 5", "NULL, 2", "2, 1"}},
			want: map[string]string{"b_unique_within_a": "TFTFFTFF"},
		},
		{
			name: "group rule over several keys",
			schema: schema.New("T", schema.String("k1").Nullable(), schema.Int64("k2").Nullable(), schema.Int64("v")).
				AddGroupRule("small", "sum(v) < 10", "k1", "k2"),
			data: rtData{cols: "k1 VARCHAR, k2 BIGINT, v BIGINT", rows: []string{
				"'x', 1, 5", "'x', 2, 5", "'x', 1, 5", "NULL, NULL, 9", "NULL, NULL, 1", "'x', NULL, 20"}},
			want: map[string]string{"small": "FTFFFF"},
		},
		{
			name: "group rule with NULL aggregate is valid",
			schema: schema.New("T", schema.Int64("a"), schema.Int64("b").Nullable()).
				AddGroupRule("positive", "sum(b) > 0", "a"),
			data: rtData{cols: "a BIGINT, b BIGINT", rows: []string{"1, NULL", "1, NULL", "2, -1"}},
			want: map[string]string{"positive": "TTF"},
		},
		{
			name: "two group rules on the same keys stay independent",
			schema: schema.New("T", schema.Int64("a"), schema.Int64("b")).
				AddGroupRule("single", "count(*) = 1", "a").
				AddGroupRule("small", "sum(b) < 5", "a"),
			data: rtData{cols: "a BIGINT, b BIGINT", rows: []string{"1, 1", "1, 1", "2, 10", "3, 1"}},
			want: map[string]string{"single": "FFTT", "small": "TTFT"},
		},
		{
			name: "group by primary_key",
			schema: schema.New("T", schema.Int64("a").PrimaryKey(), schema.Int64("b")).
				AddGroupRule("small", "sum(b) < 10", schema.RulePrimaryKey),
			data:  rtData{cols: "a BIGINT, b BIGINT", rows: []string{"1, 5", "1, 6", "2, 1", "3, 10"}},
			rules: []string{"small", "primary_key", "a|nullability", "b|nullability"},
			want:  map[string]string{"small": "FFTF", "primary_key": "FFTT"},
		},
		{
			name: "group rule and primary key on the same key",
			schema: schema.New("T", schema.Int64("a").PrimaryKey(), schema.Int64("b")).
				AddGroupRule("sorted", "min(b) >= 0", "a"),
			data: rtData{cols: "a BIGINT, b BIGINT", rows: []string{"1, 5", "1, -6", "2, 1"}},
			want: map[string]string{"sorted": "FFT", "primary_key": "FFT"},
		},
	})
}

func TestRuleNamesAndOrder(t *testing.T) {
	s := schema.New("Orders",
		schema.String("order_id").PrimaryKey().Regex(`^ORD-\d{4}$`),
		schema.Float64("amount").Min(0).Check("", "_ < 1e6"),
		schema.String("email").Nullable().Unique().Check("lowercase", "lower(_) = _").MaxLength(100).MinLength(3),
		schema.Int32("qty").PrimaryKey().IsIn(1, 2, 3).MaxExclusive(4),
		schema.Datetime("at", schema.Micros, "").Resolution("1d").Min("2020-01-01").Max("2030-01-01"),
		schema.List("tags", schema.String("").MinLength(1)).MinLength(1),
		schema.Struct("address", schema.String("city"), schema.String("zip").Nullable().Regex("^[0-9]+$")),
	).
		AddRule("amount_is_rounded", "round(amount * 100) = amount * 100").
		AddGroupRule("customer_total_bounded", "sum(amount) < 1000000", "email").
		AddRule("positive_qty", "qty > 0")
	want := []string{
		"amount_is_rounded", "customer_total_bounded", "positive_qty",
		"primary_key",
		"order_id|nullability", "order_id|regex",
		"amount|nullability", "amount|check", "amount|min", "amount|inf", "amount|nan",
		"email|unique", "email|check__lowercase", "email|min_length", "email|max_length",
		"qty|nullability", "qty|max_exclusive", "qty|is_in",
		"at|nullability", "at|min", "at|max", "at|resolution",
		"tags|nullability", "tags|min_length", "tags|inner_nullability", "tags|inner_min_length",
		"address|nullability", "address|inner_city_nullability", "address|inner_zip_regex",
	}
	if got := s.AllRuleNames(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("AllRuleNames = %q\nwant %q", got, want)
	}
	res := rtEval(t, s, rtData{
		cols: `order_id VARCHAR, amount DOUBLE, email VARCHAR, qty INTEGER, "at" TIMESTAMP, tags VARCHAR[], address STRUCT(city VARCHAR, zip VARCHAR)`,
		rows: []string{
			"'ORD-0001', 10.5, 'a@x', 1, '2021-01-01', ['x'], {'city': 'B', 'zip': '1'}",
			"'ORD-0002', 10.555, 'A@x', 3, '2021-01-01 01:00', [''], {'city': NULL, 'zip': 'x'}",
			"'ORD-0001', -1, 'a@x', 1, '2019-01-01', [], NULL",
		},
	})
	res.expectRules(t, want...)
	res.expect(t, map[string]string{
		"amount_is_rounded":              "TFT",
		"customer_total_bounded":         "TTT",
		"positive_qty":                   "TTT",
		"primary_key":                    "FTF",
		"order_id|regex":                 "TTT",
		"amount|min":                     "TTF",
		"email|unique":                   "FTF",
		"email|check__lowercase":         "TFT",
		"qty|is_in":                      "TTT",
		"at|min":                         "TTF",
		"at|resolution":                  "TFT",
		"tags|min_length":                "TTF",
		"tags|inner_min_length":          "TFT",
		"address|nullability":            "TTF",
		"address|inner_city_nullability": "TFT",
		"address|inner_zip_regex":        "TFT",
	})
	for _, r := range res.plan.Rules {
		wantCheck := "dy_rule__" + strings.ReplaceAll(r.Name, "|", "__")
		if r.Check != wantCheck {
			t.Errorf("rule %s has check %s, want %s", r.Name, r.Check, wantCheck)
		}
		col, _, isCol := strings.Cut(r.Name, "|")
		if isCol && r.Column != col || !isCol && r.Column != "" {
			t.Errorf("rule %s has column %q", r.Name, r.Column)
		}
		if r.Expr == "" || r.Description == "" {
			t.Errorf("rule %s has no expr or description: %+v", r.Name, r)
		}
	}
	kinds := map[string]string{
		"amount_is_rounded": "custom", "customer_total_bounded": "group", "primary_key": "primary_key",
		"amount|check": "check", "email|check__lowercase": "check", "tags|inner_min_length": "min_length",
		"address|inner_city_nullability": "nullability",
	}
	for _, r := range res.plan.Rules {
		if k, ok := kinds[r.Name]; ok && r.Kind != k {
			t.Errorf("rule %s has kind %q, want %q", r.Name, r.Kind, k)
		}
	}
}

func TestIdentifiers(t *testing.T) {
	rtRun(t, []rtCase{
		{
			name: "reserved words and mixed case",
			schema: schema.New("T",
				schema.Int64("select").Min(0).Check("", "_ < 100"),
				schema.String("order").Unique().Regex("^[a-z]"),
				schema.Int64("CamelCase").PrimaryKey(),
				schema.Int64("group").Nullable(),
			).
				AddRule("select_lt_camel", `"select" < "CamelCase"`).
				AddGroupRule("one_per_group", `count(*) = 1`, "group"),
			data: rtData{cols: `"select" BIGINT, "order" VARCHAR, "CamelCase" BIGINT, "group" BIGINT`, rows: []string{
				"1, 'a', 5, NULL", "-1, 'a', 6, NULL", "200, 'B', 5, 1"}},
			rules: []string{"select_lt_camel", "one_per_group", "primary_key",
				"select|nullability", "select|check", "select|min",
				"order|nullability", "order|unique", "order|regex",
				"CamelCase|nullability"},
			want: map[string]string{
				"select_lt_camel": "TTF",
				"one_per_group":   "FFT",
				"primary_key":     "FTF",
				"select|check":    "TTF",
				"select|min":      "TFT",
				"order|unique":    "FFT",
				"order|regex":     "TTF",
			},
		},
		{
			name:   "unicode values and table name",
			schema: rtOne(schema.String("name").Unique().MaxLength(5).IsIn("Ä", "日本", "🇩🇪")),
			data:   rtData{name: `"tä🇩🇪"`, cols: "name VARCHAR", rows: []string{"'Ä'", "'日本'", "'Ä'", "'🇩🇪'", "'ä'"}},
			want: map[string]string{
				"name|unique":     "FTFTT",
				"name|max_length": "TFTFT",
				"name|is_in":      "TTTTF",
			},
		},
	})
}

func TestUnicodeColumnNameRefused(t *testing.T) {
	// Column names outside [A-Za-z0-9_] are refused at declaration, since check names
	// derive from them; the user renames them in the input query.
	_, err := compileShared(rtOne(schema.Int64("größe").Min(0)))
	var bad *schema.InvalidColumnNameError
	if !errors.As(err, &bad) || bad.Column != "größe" {
		t.Fatalf("Compile = %v, want an InvalidColumnNameError for 'größe'", err)
	}
}

func TestRowOrderFollowsRowID(t *testing.T) {
	// Keyed rules are joined back; the results must stay attached to their rows, and the
	// ordinal must be the input's rowid.
	s := schema.New("T", schema.Int64("a").PrimaryKey(), schema.Int64("i").Min(0), schema.Int64("g")).
		AddGroupRule("small_group", "count(*) < 3", "g")
	const n = 3000
	db := rtDB(t)
	if _, err := db.Exec(fmt.Sprintf(`CREATE OR REPLACE TABLE big AS
		SELECT CASE WHEN i %% 10 = 0 THEN 0 ELSE i END AS a, i, i %% 1000 AS g
		FROM range(%d) r(i) ORDER BY i`, n)); err != nil {
		t.Fatal(err)
	}
	p := rtCompile(t, s)
	rows, err := db.Query("SELECT a, i, g, " + compile.RowIDColumn + `, "primary_key", "small_group", "i|min" FROM (` +
		p.Query(compile.Relation{From: "big", RowID: "rowid"}) + ") ORDER BY " + compile.RowIDColumn)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	k := int64(0)
	for rows.Next() {
		var a, i, g, rid int64
		var pk, small, min bool
		if err := rows.Scan(&a, &i, &g, &rid, &pk, &small, &min); err != nil {
			t.Fatal(err)
		}
		if rid != k || i != k {
			t.Fatalf("row %d: rid %d, i %d", k, rid, i)
		}
		if pk != (i%10 != 0) {
			t.Errorf("row %d (a=%d): primary_key = %v", k, a, pk)
		}
		if small {
			t.Errorf("row %d (g=%d): small_group = true, but every group has 3 rows", k, g)
		}
		if !min {
			t.Errorf("row %d: i|min false", k)
		}
		k++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if k != n {
		t.Fatalf("got %d rows, want %d", k, n)
	}
}

func TestZonedRulesIgnoreSessionTimeZone(t *testing.T) {
	// A zoned Datetime is judged on wall time in the declared zone, whatever the session's
	// TimeZone setting is.
	db := rtDB(t)
	var prev string
	if err := db.QueryRow("SELECT current_setting('TimeZone')").Scan(&prev); err != nil {
		t.Fatal(err)
	}
	for _, tz := range []string{"Asia/Tokyo", "America/Los_Angeles"} {
		if _, err := db.Exec(fmt.Sprintf("SET TimeZone = '%s'", tz)); err != nil {
			t.Fatal(err)
		}
		t.Run(tz, func(t *testing.T) {
			rtRun(t, []rtCase{
				{
					name: "zoned",
					schema: rtOne(schema.Datetime("a", schema.Micros, "Europe/Berlin").Resolution("1d").
						Min("2020-01-01 00:00:00+01:00").Max("2020-12-01 00:00:00+01:00")),
					data: rtData{cols: "a TIMESTAMPTZ", rows: []string{
						"'2020-01-01 00:00:00+01'", "'2019-12-31 23:00:00+00'", "'2019-12-31 22:00:00+00'",
						"'2020-07-01 00:00:00+02'", "'2020-07-01 00:00:00+09'", "'2020-12-01 00:00:00+01'", "'2020-12-01 00:00:00+00'"}},
					want: map[string]string{
						"a|min":        "TTFTTTT",
						"a|max":        "TTTTTTF",
						"a|resolution": "TTFTFTF",
					},
				},
				{
					name:   "zoned months",
					schema: rtOne(schema.Datetime("a", schema.Micros, "Europe/Berlin").Resolution("1mo")),
					data:   rtData{cols: "a TIMESTAMPTZ", rows: []string{"'2020-02-29 23:00:00+00'", "'2020-03-01 00:00:00+09'"}},
					want:   map[string]string{"a|resolution": "TF"},
				},
				{
					name:   "naive",
					schema: rtOne(schema.Datetime("a", schema.Micros, "").Resolution("1d").Min("2020-01-01")),
					data:   rtData{cols: "a TIMESTAMP", rows: []string{"'2020-01-01 00:00:00'", "'2019-12-31 23:00:00'"}},
					want:   map[string]string{"a|min": "TF", "a|resolution": "TF"},
				},
			})
		})
	}
	if _, err := db.Exec(fmt.Sprintf("SET TimeZone = '%s'", prev)); err != nil {
		t.Fatal(err)
	}
}

func TestUniqueFloatsAtScale(t *testing.T) {
	// Enough rows for hash aggregates and hash joins: NaNs of either sign and signed zeros must
	// hash alike.
	s := rtOne(schema.Float64("a").AllowNaN().AllowInf().Unique())
	db := rtDB(t)
	if _, err := db.Exec(`CREATE OR REPLACE TABLE big AS SELECT CASE i
			WHEN 0 THEN CAST('-0.0' AS DOUBLE) WHEN 1 THEN CAST('0.0' AS DOUBLE)
			WHEN 2 THEN CAST('nan' AS DOUBLE) WHEN 3 THEN -CAST('nan' AS DOUBLE)
			WHEN 4 THEN CAST('inf' AS DOUBLE) - CAST('inf' AS DOUBLE)
			ELSE i + 0.5 END AS a FROM range(20000) r(i) ORDER BY i`); err != nil {
		t.Fatal(err)
	}
	p := rtCompile(t, s)
	rows, err := db.Query(`SELECT ` + compile.RowIDColumn + `, "a|unique" FROM (` +
		p.Query(compile.Relation{From: "big", RowID: "rowid"}) + ") ORDER BY " + compile.RowIDColumn)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var rid int64
		var ok bool
		if err := rows.Scan(&rid, &ok); err != nil {
			t.Fatal(err)
		}
		if want := rid > 4; ok != want {
			t.Errorf("row %d: a|unique = %v, want %v", rid, ok, want)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 20000 {
		t.Fatalf("read %d rows: %v", n, err)
	}
}
