package schema_test

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/tablegate/tablegate/schema"
)

func TestParseDuration(t *testing.T) {
	const (
		h  = int64(time.Hour)
		m  = int64(time.Minute)
		s  = int64(time.Second)
		ms = int64(time.Millisecond)
		us = int64(time.Microsecond)
	)
	cases := []struct {
		in   string
		want schema.Span
	}{
		{"1d", schema.Span{Days: 1}},
		{"4h", schema.Span{Nanos: 4 * h}},
		{"30m", schema.Span{Nanos: 30 * m}},
		{"1d4h", schema.Span{Days: 1, Nanos: 4 * h}},
		{"500ms", schema.Span{Nanos: 500 * ms}},
		{"15s", schema.Span{Nanos: 15 * s}},
		{"250us", schema.Span{Nanos: 250 * us}},
		{"7ns", schema.Span{Nanos: 7}},
		{"1w", schema.Span{Weeks: 1}},
		{"2w", schema.Span{Weeks: 2}},
		{"1mo", schema.Span{Months: 1}},
		{"1q", schema.Span{Months: 3}},
		{"1y", schema.Span{Months: 12}},
		{"1y6mo", schema.Span{Months: 18}},
		{"1h30m", schema.Span{Nanos: h + 30*m}},
		{"1m30s", schema.Span{Nanos: m + 30*s}},
		{"2h2h", schema.Span{Nanos: 4 * h}},
		{" 6h ", schema.Span{Nanos: 6 * h}},
		{"2562047h", schema.Span{Nanos: 2562047 * h}},
		{"9223372036854775807ns", schema.Span{Nanos: 9223372036854775807}},
		{"999999999999d", schema.Span{Days: 999999999999}},
	}
	for _, tc := range cases {
		got, err := schema.ParseDuration(tc.in)
		if err != nil {
			t.Errorf("ParseDuration(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseDuration(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	bad := map[string]string{
		"":                         "empty",
		"   ":                      "empty",
		"d":                        "not a duration",
		"1":                        "unknown unit",
		"1x":                       "unknown unit",
		"1H":                       "unknown unit",
		"1.5h":                     "unknown unit",
		"-1h":                      "not a duration",
		"1 d":                      "unknown unit",
		"0d":                       "zero",
		"0h0m":                     "zero",
		"1d 4h":                    "not a duration",
		"1234567890123h":           "too long",
		"1234567890123d":           "too long",
		"99999999999999999999ns":   "too long",
		"9223372036854775807ns1ns": "too long",
		"3000000h":                 "too long",
		"9223372037s":              "too long",
	}
	for in, want := range bad {
		_, err := schema.ParseDuration(in)
		if err == nil {
			t.Errorf("ParseDuration(%q) accepted", in)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDuration(%q) error %q does not contain %q", in, err, want)
		}
	}
}

func TestSpanClassifyAndAlign(t *testing.T) {
	mustSpan := func(s string) schema.Span {
		t.Helper()
		d, err := schema.ParseDuration(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	kinds := map[string]schema.ResolutionKind{
		"1h": schema.ResolutionFixed, "1d": schema.ResolutionFixed, "3d": schema.ResolutionFixed,
		"1h30m": schema.ResolutionFixed, "500ms": schema.ResolutionFixed,
		"1w": schema.ResolutionWeeks, "2w": schema.ResolutionWeeks,
		"1mo": schema.ResolutionMonths, "1q": schema.ResolutionMonths, "1y": schema.ResolutionMonths,
	}
	for in, want := range kinds {
		got, err := mustSpan(in).Classify()
		if err != nil || got != want {
			t.Errorf("Classify(%s) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"1d6h", "1w1d", "1mo1w", "1y1h"} {
		if _, err := mustSpan(in).Classify(); err == nil {
			t.Errorf("Classify(%s) accepted a mixed resolution", in)
		}
	}
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse("2006-01-02 15:04:05", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	aligned := []struct {
		res, at string
		want    bool
	}{
		{"1h", "2020-03-01 12:00:00", true},
		{"1h", "2020-03-01 12:30:00", false},
		{"7h", "1970-01-01 07:00:00", true},
		{"7h", "2000-01-03 00:00:00", false}, // epoch origin, not time_bucket's 2000-01-03
		{"1d", "2020-03-01 00:00:00", true},
		{"1d", "2020-03-01 00:00:01", false},
		{"2d", "1970-01-03 00:00:00", true},
		{"2d", "1970-01-02 00:00:00", false},
		{"1w", "2020-01-06 00:00:00", true}, // a Monday
		{"1w", "2020-01-05 00:00:00", false},
		{"2w", "1970-01-19 00:00:00", true},
		{"2w", "1970-01-12 00:00:00", false},
		{"1w", "1969-12-29 00:00:00", true}, // before the epoch
		{"1mo", "2020-02-01 00:00:00", true},
		{"1mo", "2020-02-02 00:00:00", false},
		{"1mo", "2020-02-01 01:00:00", false},
		{"1q", "2020-04-01 00:00:00", true},
		{"1q", "2020-05-01 00:00:00", false},
		{"1y", "2020-01-01 00:00:00", true},
		{"1y", "2020-07-01 00:00:00", false},
		{"2mo", "1969-11-01 00:00:00", true},
		{"1h", "1969-12-31 23:00:00", true},
		{"1h", "1969-12-31 23:30:00", false},
	}
	for _, tc := range aligned {
		if got := mustSpan(tc.res).Aligned(at(tc.at)); got != tc.want {
			t.Errorf("%s.Aligned(%s) = %v, want %v", tc.res, tc.at, got, tc.want)
		}
	}
	if !mustSpan("30m").AlignedNanos(big.NewInt(int64(90 * time.Minute))) {
		t.Errorf("90m not aligned to 30m")
	}
	if mustSpan("1h").AlignedNanos(big.NewInt(int64(90 * time.Minute))) {
		t.Errorf("90m aligned to 1h")
	}
	if got := mustSpan("1w2d3h").FixedNanos().String(); got != big.NewInt(int64(9*24*time.Hour+3*time.Hour)).String() {
		t.Errorf("FixedNanos = %s", got)
	}
}

func TestParseValue(t *testing.T) {
	dec := func(p, s int) schema.DType { return schema.DType{Kind: schema.KindDecimal, Precision: p, Scale: s} }
	dt := func(unit schema.TimeUnit, zone string) schema.DType {
		return schema.DType{Kind: schema.KindDatetime, TimeUnit: unit, TimeZone: zone}
	}
	k := func(kind schema.Kind) schema.DType { return schema.DType{Kind: kind} }
	cases := []struct {
		d    schema.DType
		in   string
		want string // Parsed.Text, or "" with errHas
		err  string
	}{
		{k(schema.KindInt8), "-128", "-128", ""},
		{k(schema.KindInt8), "127", "127", ""},
		{k(schema.KindInt8), "128", "", "outside the range of Int8 (-128 to 127)"},
		{k(schema.KindInt16), "-32768", "-32768", ""},
		{k(schema.KindInt16), "32768", "", "Int16"},
		{k(schema.KindInt32), "2147483647", "2147483647", ""},
		{k(schema.KindInt32), "-2147483649", "", "Int32"},
		{k(schema.KindInt64), "-9223372036854775808", "-9223372036854775808", ""},
		{k(schema.KindInt64), "9223372036854775808", "", "Int64"},
		{k(schema.KindInteger), "9223372036854775807", "9223372036854775807", ""},
		{k(schema.KindInteger), "9223372036854775808", "", "Integer"},
		{k(schema.KindUInt8), "255", "255", ""},
		{k(schema.KindUInt8), "-1", "", "UInt8 (0 to 255)"},
		{k(schema.KindUInt16), "65535", "65535", ""},
		{k(schema.KindUInt32), "4294967295", "4294967295", ""},
		{k(schema.KindUInt32), "4294967296", "", "UInt32"},
		{k(schema.KindUInt64), "18446744073709551615", "18446744073709551615", ""},
		{k(schema.KindUInt64), "18446744073709551616", "", "UInt64"},
		{k(schema.KindInt64), " 42 ", "42", ""},
		{k(schema.KindInt64), "+7", "7", ""},
		{k(schema.KindInt64), "1.0", "", "not an integer"},
		{k(schema.KindInt64), "1e3", "", "not an integer"},
		{k(schema.KindInt64), "abc", "", "not an integer"},
		{k(schema.KindFloat64), "0.1", "0.1", ""},
		{k(schema.KindFloat64), "-2.5e-3", "-0.0025", ""},
		{k(schema.KindFloat64), "3", "3", ""},
		{k(schema.KindFloat), "1e300", "1e+300", ""},
		{k(schema.KindFloat64), "inf", "", "finite"},
		{k(schema.KindFloat64), "-inf", "", "finite"},
		{k(schema.KindFloat64), "nan", "", "finite"},
		{k(schema.KindFloat64), "1e309", "", "finite"},
		{k(schema.KindFloat64), "x", "", "not a number"},
		{k(schema.KindFloat32), "0.1", "0.1", ""},
		{k(schema.KindFloat32), "3.4e38", "3.4e+38", ""},
		{k(schema.KindFloat32), "3.5e38", "", "Float32"},
		{k(schema.KindFloat32), "-1e39", "", "Float32"},
		{dec(10, 2), "3.14", "3.14", ""},
		{dec(10, 2), "3", "3.00", ""},
		{dec(10, 2), "-0.5", "-0.50", ""},
		{dec(10, 2), "3.140", "3.14", ""},
		{dec(10, 2), "3.141", "", "more than the scale 2"},
		{dec(5, 2), "999.99", "999.99", ""},
		{dec(5, 2), "1000", "", "precision 5 minus scale 2"},
		{dec(5, 2), "0001.5", "1.50", ""},
		{dec(0, 3), "123456789012345678901234567890.123", "123456789012345678901234567890.123", ""},
		{dec(0, 3), "12345678901234567890123456789012345", "12345678901234567890123456789012345.000", ""},
		{dec(0, 3), "123456789012345678901234567890123456", "", "precision 38 minus scale 3"},
		{dec(0, 0), "99999999999999999999999999999999999999", "99999999999999999999999999999999999999", ""},
		{dec(10, 2), "1e2", "", "not a decimal"},
		{dec(10, 2), "1/2", "", "not a decimal"},
		{dec(10, 2), "inf", "", "not a decimal"},
		{dec(10, 2), "x", "", "not a decimal"},
		{k(schema.KindDate), "2020-04-01", "2020-04-01", ""},
		{k(schema.KindDate), "2020-02-29", "2020-02-29", ""},
		{k(schema.KindDate), "2021-02-29", "", "not a date"},
		{k(schema.KindDate), "2020-4-1", "", "not a date"},
		{k(schema.KindDate), "2020-04-01 00:00:00", "", "not a date"},
		{k(schema.KindTime), "12:00:00", "12:00:00", ""},
		{k(schema.KindTime), "12:00", "12:00:00", ""},
		{k(schema.KindTime), "00:00:00", "00:00:00", ""},
		{k(schema.KindTime), "23:59:59.5", "23:59:59.5", ""},
		{k(schema.KindTime), "23:59:59.123456", "23:59:59.123456", ""},
		{k(schema.KindTime), "25:00:00", "", "not a time"},
		{k(schema.KindTime), "noon", "", "not a time"},
		{dt(schema.Micros, ""), "2020-03-01 12:00:00", "2020-03-01 12:00:00", ""},
		{dt(schema.Micros, ""), "2020-03-01T12:00:00", "2020-03-01 12:00:00", ""},
		{dt(schema.Micros, ""), "2020-03-01 12:00", "2020-03-01 12:00:00", ""},
		{dt(schema.Micros, ""), "2020-03-01", "2020-03-01 00:00:00", ""},
		{dt(schema.Nanos, ""), "2020-03-01 12:00:00.123456789", "2020-03-01 12:00:00.123456789", ""},
		{dt(schema.Micros, ""), "2020-03-01 12:00:00+01:00", "", "has a UTC offset"},
		{dt(schema.Micros, ""), "2020-03-01 12:00:00Z", "", "has a UTC offset"},
		{dt(schema.Micros, ""), "March 1", "", "not a datetime"},
		{dt(schema.Micros, "Europe/Berlin"), "2020-03-01 12:00:00+01:00", "2020-03-01 11:00:00+00", ""},
		{dt(schema.Micros, "Europe/Berlin"), "2020-03-01T12:00:00+01", "2020-03-01 11:00:00+00", ""},
		{dt(schema.Micros, "Europe/Berlin"), "2020-03-01 12:00:00Z", "2020-03-01 12:00:00+00", ""},
		{dt(schema.Micros, "Europe/Berlin"), "2020-03-01 12:00+05:30", "2020-03-01 06:30:00+00", ""},
		{dt(schema.Micros, "Europe/Berlin"), "2020-03-01 12:00:00", "", "needs a UTC offset"},
		{k(schema.KindDuration), "1d", "86400000000", ""},
		{k(schema.KindDuration), "1d4h", "100800000000", ""},
		{k(schema.KindDuration), "500ms", "500000", ""},
		{k(schema.KindDuration), "1w", "604800000000", ""},
		{k(schema.KindDuration), "1us", "1", ""},
		{k(schema.KindDuration), "-1h30m", "-5400000000", ""},
		{k(schema.KindDuration), " -1d", "-86400000000", ""},
		{k(schema.KindDuration), "-0s", "0", ""},
		{k(schema.KindDuration), "--1h", "", "not a duration"},
		{k(schema.KindDuration), "-", "", "empty duration"},
		{k(schema.KindDuration), "1h-30m", "", "not a duration"},
		{k(schema.KindDuration), "1mo", "", "months"},
		{k(schema.KindDuration), "1y", "", "months"},
		{k(schema.KindDuration), "1ns", "", "microseconds"},
		{k(schema.KindDuration), "abc", "", "not a duration"},
		{k(schema.KindString), "a", "", "takes no bounds"},
		{k(schema.KindBool), "true", "", "takes no bounds"},
		{k(schema.KindEnum), "a", "", "takes no bounds"},
	}
	for _, tc := range cases {
		p, err := schema.ParseValue(tc.d, schema.Value{Text: tc.in})
		name := tc.d.String() + " " + tc.in
		if tc.err != "" {
			if err == nil {
				t.Errorf("%s: accepted as %q", name, p.Text)
			} else if !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %q does not contain %q", name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if p.Text != tc.want {
			t.Errorf("%s: Text = %q, want %q", name, p.Text, tc.want)
		}
	}
}

func TestParsedCompare(t *testing.T) {
	cases := []struct {
		d    schema.DType
		a, b string
		want int
	}{
		{schema.DType{Kind: schema.KindInt64}, "1", "2", -1},
		{schema.DType{Kind: schema.KindUInt64}, "18446744073709551615", "18446744073709551614", 1},
		{schema.DType{Kind: schema.KindFloat64}, "0.1", "0.10", 0},
		{schema.DType{Kind: schema.KindFloat64}, "-1", "0", -1},
		{schema.DType{Kind: schema.KindDecimal, Precision: 38, Scale: 20}, "0.30000000000000000001", "0.3", 1},
		{schema.DType{Kind: schema.KindDate}, "2020-01-01", "2019-12-31", 1},
		{schema.DType{Kind: schema.KindTime}, "00:00:00", "00:00:01", -1},
		{schema.DType{Kind: schema.KindTime}, "00:00:00", "00:00", 0},
		{schema.DType{Kind: schema.KindDatetime, TimeUnit: schema.Micros}, "2020-01-01 00:00:00", "2020-01-01", 0},
		{schema.DType{Kind: schema.KindDatetime, TimeUnit: schema.Micros, TimeZone: "UTC"}, "2020-01-01 01:00:00+01:00", "2020-01-01 00:00:00Z", 0},
		{schema.DType{Kind: schema.KindDuration}, "1d", "24h", 0},
		{schema.DType{Kind: schema.KindDuration}, "1h", "59m", 1},
	}
	for _, tc := range cases {
		a, err1 := schema.ParseValue(tc.d, schema.Value{Text: tc.a})
		b, err2 := schema.ParseValue(tc.d, schema.Value{Text: tc.b})
		if err1 != nil || err2 != nil {
			t.Errorf("%s: %v %v", tc.d, err1, err2)
			continue
		}
		if got := a.Compare(b); got != tc.want {
			t.Errorf("%s: Compare(%s, %s) = %d, want %d", tc.d, tc.a, tc.b, got, tc.want)
		}
	}
}

func TestIntRange(t *testing.T) {
	cases := map[schema.Kind][2]string{
		schema.KindInt8:    {"-128", "127"},
		schema.KindInt16:   {"-32768", "32767"},
		schema.KindInt32:   {"-2147483648", "2147483647"},
		schema.KindInt64:   {"-9223372036854775808", "9223372036854775807"},
		schema.KindInteger: {"-9223372036854775808", "9223372036854775807"},
		schema.KindUInt8:   {"0", "255"},
		schema.KindUInt16:  {"0", "65535"},
		schema.KindUInt32:  {"0", "4294967295"},
		schema.KindUInt64:  {"0", "18446744073709551615"},
	}
	for k, want := range cases {
		lo, hi := schema.IntRange(k)
		if lo.String() != want[0] || hi.String() != want[1] {
			t.Errorf("IntRange(%s) = %s..%s, want %s..%s", k, lo, hi, want[0], want[1])
		}
	}
}

// TestValueOf: Go values given to the builder become rule arguments that parse for the column.
func TestValueOf(t *testing.T) {
	cases := []struct {
		in       any
		text     string
		isString bool
	}{
		{5, "5", false},
		{int8(-3), "-3", false},
		{int64(-9223372036854775808), "-9223372036854775808", false},
		{uint64(18446744073709551615), "18446744073709551615", false},
		{0.1, "0.1", false},
		{float32(0.1), "0.1", false},
		{1e21, "1e+21", false},
		{"2020-01-01", "2020-01-01", true},
		{90 * time.Minute, "5400000000000ns", true},
		{schema.Value{Text: "7"}, "7", false},
		{time.Date(2020, 4, 1, 0, 0, 0, 0, time.UTC), "2020-04-01", true},
		{time.Date(2020, 4, 1, 12, 30, 0, 5000, time.FixedZone("", 2*3600)), "2020-04-01 12:30:00.000005+02:00", true},
	}
	for _, tc := range cases {
		v := schema.ValueOf(tc.in)
		if v.Text != tc.text || v.IsString != tc.isString {
			t.Errorf("ValueOf(%#v) = %+v, want {%s %v}", tc.in, v, tc.text, tc.isString)
		}
	}
	// Builder bounds from Go values must validate for their dtypes.
	day := time.Date(2020, 4, 1, 0, 0, 0, 0, time.UTC)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	valid := []*schema.Column{
		schema.Int8("a").Min(int8(-128)).Max(127),
		schema.UInt64("b").Max(uint64(18446744073709551615)),
		schema.Float32("c").Max(float32(3.4e38)),
		schema.Float64("d").Min(0.1),
		schema.Duration("e").Max(90 * time.Minute).Resolution("30m"),
		schema.Duration("e2").Min(time.Microsecond).Max(time.Duration(1<<63 - 1).Truncate(time.Microsecond)),
		schema.Date("f").Min(day),
		schema.Datetime("g", "us", "").Min(day),
		schema.Datetime("h", "us", "Europe/Berlin").Min(time.Date(2020, 4, 1, 12, 0, 0, 0, berlin)),
	}
	for _, c := range valid {
		mustValid(t, schema.New("S", c))
	}
}

func TestKindNames(t *testing.T) {
	names := schema.KindNames()
	if len(names) != 25 || names[0] != "Bool" || names[len(names)-1] != "Any" {
		t.Fatalf("KindNames = %v", names)
	}
	for _, n := range names {
		k, ok := schema.ParseKind(n)
		if !ok || k.String() != n {
			t.Errorf("ParseKind(%q) = %v, %v", n, k, ok)
		}
	}
	for _, n := range []string{"int64", "string", "VARCHAR", "", "Timestamp"} {
		if _, ok := schema.ParseKind(n); ok {
			t.Errorf("ParseKind(%q) accepted", n)
		}
	}
}

func TestDTypeSpelling(t *testing.T) {
	cases := []struct {
		col        *schema.Column
		lang, duck string
	}{
		{schema.Bool("x"), "Bool", "BOOLEAN"},
		{schema.Int8("x"), "Int8", "TINYINT"},
		{schema.Int16("x"), "Int16", "SMALLINT"},
		{schema.Int32("x"), "Int32", "INTEGER"},
		{schema.Int64("x"), "Int64", "BIGINT"},
		{schema.UInt8("x"), "UInt8", "UTINYINT"},
		{schema.UInt16("x"), "UInt16", "USMALLINT"},
		{schema.UInt32("x"), "UInt32", "UINTEGER"},
		{schema.UInt64("x"), "UInt64", "UBIGINT"},
		{schema.Integer("x"), "Integer", "BIGINT"},
		{schema.Float32("x"), "Float32", "FLOAT"},
		{schema.Float64("x"), "Float64", "DOUBLE"},
		{schema.Float("x"), "Float", "DOUBLE"},
		{schema.Decimal("x", 10, 2), "Decimal(10,2)", "DECIMAL(10,2)"},
		{schema.Decimal("x", 0, 2), "Decimal(scale=2)", "DECIMAL(38,2)"},
		{schema.String("x"), "String", "VARCHAR"},
		{schema.Binary("x"), "Binary", "BLOB"},
		{schema.Date("x"), "Date", "DATE"},
		{schema.Time("x"), "Time", "TIME"},
		{schema.Datetime("x", "", ""), "Datetime(us)", "TIMESTAMP"},
		{schema.Datetime("x", "ms", ""), "Datetime(ms)", "TIMESTAMP_MS"},
		{schema.Datetime("x", "ns", ""), "Datetime(ns)", "TIMESTAMP_NS"},
		{schema.Datetime("x", "us", "Europe/Berlin"), "Datetime(us, Europe/Berlin)", "TIMESTAMP WITH TIME ZONE"},
		{schema.Duration("x"), "Duration", "INTERVAL"},
		{schema.Enum("x", "a", "it's"), "Enum('a', 'it''s')", "ENUM('a', 'it''s')"},
		{schema.List("x", schema.String("")), "List(String)", "VARCHAR[]"},
		{schema.List("x", schema.List("", schema.Int32(""))), "List(List(Int32))", "INTEGER[][]"},
		{schema.Array("x", schema.Int32(""), 3), "Array(Int32, 3)", "INTEGER[3]"},
		{schema.Array("x", schema.Int32(""), 3, 2), "Array(Int32, 3x2)", "INTEGER[2][3]"},
		{schema.Struct("x", schema.Int32("a"), schema.List("b", schema.String(""))), "Struct(a: Int32, b: List(String))", `STRUCT("a" INTEGER, "b" VARCHAR[])`},
		{schema.Any("x"), "Any", "VARCHAR"},
	}
	for _, tc := range cases {
		if got := tc.col.DType.String(); got != tc.lang {
			t.Errorf("String() = %q, want %q", got, tc.lang)
		}
		if tc.col.DType.Kind == schema.KindAny {
			continue
		}
		if got := tc.col.DType.DuckDBType(); got != tc.duck {
			t.Errorf("%s DuckDBType() = %q, want %q", tc.lang, got, tc.duck)
		}
	}
}
