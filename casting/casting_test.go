package casting_test

import (
	"context"
	gosql "database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/schema"
)

// duckColumns declares one column per DuckDB type; the tests read DuckDB's own spelling of each
// through DESCRIBE instead of guessing it.
var duckColumns = []struct{ name, decl string }{
	{"bool", "BOOLEAN"},
	{"i8", "TINYINT"}, {"i16", "SMALLINT"}, {"i32", "INTEGER"}, {"i64", "BIGINT"},
	{"u8", "UTINYINT"}, {"u16", "USMALLINT"}, {"u32", "UINTEGER"}, {"u64", "UBIGINT"},
	{"i128", "HUGEINT"}, {"u128", "UHUGEINT"},
	{"f32", "FLOAT"}, {"f64", "DOUBLE"}, {"real", "REAL"},
	{"dec18_3", "DECIMAL(18,3)"}, {"dec10_2", "DECIMAL(10,2)"}, {"dec4_1", "DECIMAL(4,1)"}, {"numeric", "NUMERIC"},
	{"str", "VARCHAR"}, {"json", "JSON"}, {"uuid", "UUID"}, {"blob", "BLOB"}, {"bit", "BIT"},
	{"date", "DATE"}, {"time", "TIME"}, {"timetz", "TIME WITH TIME ZONE"},
	{"ts", "TIMESTAMP"}, {"ts_s", "TIMESTAMP_S"}, {"ts_ms", "TIMESTAMP_MS"}, {"ts_ns", "TIMESTAMP_NS"},
	{"tstz", "TIMESTAMP WITH TIME ZONE"}, {"tstz2", "TIMESTAMPTZ"}, {"tstz_ns", "TIMESTAMPTZ_NS"},
	{"interval", "INTERVAL"},
	{"enum", "ENUM('x', 'it''s')"}, {"enum_xy", "ENUM('x', 'y')"}, {"enum_yx", "ENUM('y', 'x')"}, {"enum_xyz", "ENUM('x', 'y', 'z')"},
	{"enum_odd", "ENUM('a,b', 'c)', ' d')"},
	{"int_list", "INTEGER[]"}, {"big_list", "BIGINT[]"}, {"str_list", "VARCHAR[]"}, {"list_list", "INTEGER[][]"},
	{"int_arr3", "INTEGER[3]"}, {"big_arr3", "BIGINT[3]"}, {"big_arr2", "BIGINT[2]"}, {"dbl_arr2", "DOUBLE[2]"}, {"flt_arr2", "FLOAT[2]"},
	{"int_arr2x3", "INTEGER[2][3]"}, {"int_arr3x2", "INTEGER[3][2]"}, {"list_arr", "BIGINT[][2]"},
	{"struct", `STRUCT(a INTEGER, "B c" VARCHAR[])`},
	{"struct_ab", "STRUCT(a BIGINT, b VARCHAR)"}, {"struct_ba", "STRUCT(b VARCHAR, a BIGINT)"},
	{"struct_abc", "STRUCT(a BIGINT, b VARCHAR, c BOOLEAN)"}, {"struct_a32", "STRUCT(a INTEGER, b VARCHAR)"},
	{"struct_odd", `STRUCT("x,y" INTEGER, "a""b" VARCHAR)[]`},
	{"struct_deep", `STRUCT("with space" STRUCT("inner" INTEGER[2]))[3][]`},
	{"map", "MAP(VARCHAR, INTEGER)"},
	{"union", "UNION(a INTEGER, b VARCHAR)"},
}

var (
	describeOnce sync.Once
	describeErr  error
	described    map[string]string // column -> DuckDB's spelling of its type
	describeCols []casting.ColumnType
)

// duckTypes creates a table with every type once per test binary and returns DuckDB's spellings.
func duckTypes(t *testing.T) map[string]string {
	t.Helper()
	describeOnce.Do(func() {
		db, err := gosql.Open("duckdb", "")
		if err != nil {
			describeErr = err
			return
		}
		defer db.Close()
		parts := make([]string, len(duckColumns))
		for i, c := range duckColumns {
			parts[i] = fmt.Sprintf("%q %s", c.name, c.decl)
		}
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, "CREATE TABLE every_type ("+strings.Join(parts, ", ")+")"); err != nil {
			describeErr = err
			return
		}
		describeCols, describeErr = casting.Describe(ctx, db, "every_type")
		described = map[string]string{}
		for _, c := range describeCols {
			described[c.Name] = c.Type
		}
	})
	if describeErr != nil {
		t.Fatal(describeErr)
	}
	return described
}

// shape renders a parsed type's structure for comparison.
func shape(t *casting.DuckType) string {
	switch t.Name {
	case "LIST":
		return "LIST<" + shape(t.Elem) + ">"
	case "ARRAY":
		return fmt.Sprintf("ARRAY%d<%s>", t.Size, shape(t.Elem))
	case "ENUM":
		return "ENUM" + fmt.Sprintf("%q", t.Enum)
	case "STRUCT", "MAP", "UNION":
		var f []string
		for _, x := range t.Fields {
			f = append(f, x.Name+":"+shape(x.Type))
		}
		return t.Name + "{" + strings.Join(f, ",") + "}"
	}
	if len(t.Params) > 0 {
		return fmt.Sprintf("%s%v", t.Name, t.Params)
	}
	return t.Name
}

func TestDescribeSpellings(t *testing.T) {
	types := duckTypes(t)
	if len(describeCols) != len(duckColumns) {
		t.Fatalf("DESCRIBE gave %d columns, want %d", len(describeCols), len(duckColumns))
	}
	for i, c := range describeCols {
		if c.Name != duckColumns[i].name {
			t.Errorf("column %d is %q, want %q (DESCRIBE keeps table order)", i, c.Name, duckColumns[i].name)
		}
	}
	// The spellings the column-check messages show, as DuckDB gives them.
	want := map[string]string{
		"dec18_3":    "DECIMAL(18,3)",
		"tstz":       "TIMESTAMP WITH TIME ZONE",
		"tstz2":      "TIMESTAMP WITH TIME ZONE",
		"tstz_ns":    "TIMESTAMPTZ_NS",
		"ts_ms":      "TIMESTAMP_MS",
		"enum":       "ENUM('x', 'it''s')",
		"int_list":   "INTEGER[]",
		"int_arr3":   "INTEGER[3]",
		"int_arr2x3": "INTEGER[2][3]",
		"struct":     `STRUCT(a INTEGER, "B c" VARCHAR[])`,
		"map":        "MAP(VARCHAR, INTEGER)",
		"uuid":       "UUID",
		"json":       "JSON",
		"interval":   "INTERVAL",
		"i128":       "HUGEINT",
		"real":       "FLOAT",
		"numeric":    "DECIMAL(18,3)",
	}
	for col, spelled := range want {
		if types[col] != spelled {
			t.Errorf("DESCRIBE %s = %q, want %q", col, types[col], spelled)
		}
	}
}

func TestParseTypeOnDescribe(t *testing.T) {
	types := duckTypes(t)
	want := map[string]string{
		"bool":        "BOOLEAN",
		"i8":          "TINYINT",
		"u64":         "UBIGINT",
		"i128":        "HUGEINT",
		"f32":         "FLOAT",
		"dec18_3":     "DECIMAL[18 3]",
		"dec4_1":      "DECIMAL[4 1]",
		"str":         "VARCHAR",
		"json":        "JSON",
		"uuid":        "UUID",
		"timetz":      "TIME WITH TIME ZONE",
		"ts_ns":       "TIMESTAMP_NS",
		"tstz":        "TIMESTAMP WITH TIME ZONE",
		"interval":    "INTERVAL",
		"enum":        `ENUM["x" "it's"]`,
		"enum_odd":    `ENUM["a,b" "c)" " d"]`,
		"int_list":    "LIST<INTEGER>",
		"list_list":   "LIST<LIST<INTEGER>>",
		"int_arr3":    "ARRAY3<INTEGER>",
		"int_arr2x3":  "ARRAY3<ARRAY2<INTEGER>>",
		"list_arr":    "ARRAY2<LIST<BIGINT>>",
		"struct":      "STRUCT{a:INTEGER,B c:LIST<VARCHAR>}",
		"struct_odd":  `LIST<STRUCT{x,y:INTEGER,a"b:VARCHAR}>`,
		"struct_deep": "LIST<ARRAY3<STRUCT{with space:STRUCT{inner:ARRAY2<INTEGER>}}>>",
		"map":         "MAP{key:VARCHAR,value:INTEGER}",
		"union":       "UNION{a:INTEGER,b:VARCHAR}",
	}
	for col := range types {
		pt, err := casting.ParseType(types[col])
		if err != nil {
			t.Errorf("ParseType(%q): %v", types[col], err)
			continue
		}
		if pt.Raw != types[col] || pt.String() != types[col] {
			t.Errorf("ParseType(%q).Raw = %q", types[col], pt.Raw)
		}
		if w, ok := want[col]; ok && shape(pt) != w {
			t.Errorf("ParseType(%q) = %s, want %s", types[col], shape(pt), w)
		}
	}
	// Element types keep their own spelling.
	pt, _ := casting.ParseType(types["int_arr2x3"])
	if pt.Elem.Raw != "INTEGER[2]" || pt.Elem.Elem.Raw != "INTEGER" || pt.Size != 3 || pt.Elem.Size != 2 {
		t.Errorf("INTEGER[2][3] = %+v / %+v", pt, pt.Elem)
	}
}

func TestParseTypeErrors(t *testing.T) {
	for _, s := range []string{"", "   ", "DECIMAL(18", "DECIMAL(a,b)", "ENUM('x", "ENUM(x)", "INTEGER[x]", "INTEGER[3", "STRUCT(a)", "STRUCT(\"a INTEGER)", "MAP(VARCHAR)", "INTEGER)", "INTEGER]"} {
		if pt, err := casting.ParseType(s); err == nil {
			t.Errorf("ParseType(%q) accepted: %s", s, shape(pt))
		}
	}
}

func dt(k schema.Kind) schema.DType { return schema.DType{Kind: k} }

func TestMatches(t *testing.T) {
	types := duckTypes(t)
	col := func(c *schema.Column) schema.DType { return c.DType }
	// For each dtype, the DuckDB columns (by name above) it accepts. Every other column of
	// duckColumns must be refused.
	cases := []struct {
		d       schema.DType
		accepts []string
	}{
		{dt(schema.KindBool), []string{"bool"}},
		{dt(schema.KindInt8), []string{"i8"}},
		{dt(schema.KindInt16), []string{"i16"}},
		{dt(schema.KindInt32), []string{"i32"}},
		{dt(schema.KindInt64), []string{"i64"}},
		{dt(schema.KindUInt8), []string{"u8"}},
		{dt(schema.KindUInt16), []string{"u16"}},
		{dt(schema.KindUInt32), []string{"u32"}},
		{dt(schema.KindUInt64), []string{"u64"}},
		{dt(schema.KindInteger), []string{"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "i128"}},
		{dt(schema.KindFloat32), []string{"f32", "real"}},
		{dt(schema.KindFloat64), []string{"f64"}},
		{dt(schema.KindFloat), []string{"f32", "f64", "real"}},
		{col(schema.Decimal("x", 18, 3)), []string{"dec18_3", "numeric"}},
		{col(schema.Decimal("x", 0, 3)), []string{"dec18_3", "numeric"}},
		{col(schema.Decimal("x", 10, 3)), nil},
		{col(schema.Decimal("x", 0, 2)), []string{"dec10_2"}},
		{col(schema.Decimal("x", 10, 2)), []string{"dec10_2"}},
		{col(schema.Decimal("x", 0, 1)), []string{"dec4_1"}},
		{dt(schema.KindString), []string{"str", "json"}},
		{dt(schema.KindBinary), []string{"blob"}},
		{dt(schema.KindDate), []string{"date"}},
		{dt(schema.KindTime), []string{"time"}},
		{col(schema.Datetime("x", "", "")), []string{"ts"}},
		{col(schema.Datetime("x", "us", "")), []string{"ts"}},
		{col(schema.Datetime("x", "ms", "")), []string{"ts_ms"}},
		{col(schema.Datetime("x", "ns", "")), []string{"ts_ns"}},
		{col(schema.Datetime("x", "us", "Europe/Berlin")), []string{"tstz", "tstz2"}},
		{col(schema.Datetime("x", "us", "UTC")), []string{"tstz", "tstz2"}},
		{col(schema.Datetime("x", "ms", "UTC")), []string{"tstz", "tstz2"}}, // DuckDB has no zoned ms
		{col(schema.Datetime("x", "ns", "UTC")), []string{"tstz_ns"}},
		{col(schema.Datetime("x", "ns", "America/New_York")), []string{"tstz_ns"}},
		{col(schema.Duration("x")), []string{"interval"}},
		{col(schema.Enum("x", "x", "it's")), []string{"enum"}},
		{col(schema.Enum("x", "x", "y")), []string{"enum_xy"}},
		{col(schema.Enum("x", "y", "x")), []string{"enum_yx"}},
		{col(schema.Enum("x", "x")), nil},
		{col(schema.Enum("x", "a,b", "c)", " d")), []string{"enum_odd"}},
		{col(schema.List("x", schema.Int32(""))), []string{"int_list"}},
		{col(schema.List("x", schema.Int64(""))), []string{"big_list"}},
		{col(schema.List("x", schema.Integer(""))), []string{"int_list", "big_list"}},
		{col(schema.List("x", schema.String(""))), []string{"str_list"}},
		{col(schema.List("x", schema.List("", schema.Integer("")))), []string{"list_list"}},
		{col(schema.List("x", schema.Any(""))), []string{"int_list", "big_list", "str_list", "list_list", "struct_odd", "struct_deep"}},
		{col(schema.Array("x", schema.Int32(""), 3)), []string{"int_arr3"}},
		{col(schema.Array("x", schema.Int64(""), 3)), []string{"big_arr3"}},
		{col(schema.Array("x", schema.Int64(""), 2)), []string{"big_arr2"}},
		{col(schema.Array("x", schema.Integer(""), 3)), []string{"big_arr3"}}, // Array is exact: Integer means Int64
		{col(schema.Array("x", schema.Float(""), 2)), []string{"dbl_arr2"}},
		{col(schema.Array("x", schema.Float32(""), 2)), []string{"flt_arr2"}},
		{col(schema.Array("x", schema.Int32(""), 3, 2)), []string{"int_arr2x3"}},
		{col(schema.Array("x", schema.Int32(""), 2, 3)), []string{"int_arr3x2"}},
		{col(schema.Array("x", schema.List("", schema.Int64("")), 2)), []string{"list_arr"}},
		{col(schema.Struct("x", schema.Int32("a"), schema.List("B c", schema.String("")))), []string{"struct"}},
		{col(schema.Struct("x", schema.Int64("a"), schema.String("b"))), []string{"struct_ab", "struct_ba"}},
		{col(schema.Struct("x", schema.String("b"), schema.Int64("a"))), []string{"struct_ab", "struct_ba"}},
		{col(schema.Struct("x", schema.Integer("a"), schema.String("b"))), []string{"struct_ab", "struct_ba", "struct_a32"}},
		{col(schema.Struct("x", schema.Int64("a"))), nil},
		{col(schema.Struct("x", schema.Int64("a"), schema.String("b"), schema.Bool("c"))), []string{"struct_abc"}},
		{col(schema.List("x", schema.Struct("", schema.Int32("x,y"), schema.String(`a"b`)))), []string{"struct_odd"}},
		{col(schema.List("x", schema.Array("", schema.Struct("", schema.Struct("with space", schema.Array("inner", schema.Int32(""), 2))), 3))), []string{"struct_deep"}},
	}
	for _, tc := range cases {
		accepted := map[string]bool{}
		for _, c := range tc.accepts {
			if _, ok := types[c]; !ok {
				t.Fatalf("test bug: no column %s", c)
			}
			accepted[c] = true
		}
		for _, c := range duckColumns {
			pt, err := casting.ParseType(types[c.name])
			if err != nil {
				t.Fatalf("ParseType(%q): %v", types[c.name], err)
			}
			if got := casting.Matches(tc.d, pt); got != accepted[c.name] {
				t.Errorf("Matches(%s, %s) = %v, want %v", tc.d, types[c.name], got, accepted[c.name])
			}
		}
	}
	// Any accepts everything.
	for _, c := range duckColumns {
		pt, _ := casting.ParseType(types[c.name])
		if !casting.Matches(dt(schema.KindAny), pt) {
			t.Errorf("Any refused %s", types[c.name])
		}
	}
}

func TestCheckColumns(t *testing.T) {
	actual := []casting.ColumnType{
		{Name: "extra", Type: "VARCHAR"},
		{Name: "quantity", Type: "BIGINT"},
		{Name: "amount", Type: "DECIMAL(18,3)"},
		{Name: "order_id", Type: "VARCHAR"},
		{Name: "qty_small", Type: "INTEGER"},
		{Name: "tags", Type: "INTEGER[]"},
		{Name: "price", Type: "DECIMAL(10,2)"},
		{Name: "ts", Type: "TIMESTAMP_MS"},
		{Name: "anything", Type: "FUTURE(x"},
	}
	cols := []*schema.Column{
		schema.String("order_id"),
		schema.Float64("amount"),
		schema.Int32("quantity"),
		schema.String("email"),
		schema.Int64("qty_small"),
		schema.List("tags", schema.String("")),
		schema.Decimal("price", 10, 2),
		schema.Datetime("ts", "", ""),
		schema.Date("shipped"),
		schema.Any("anything"),
	}
	got := casting.CheckColumns(cols, actual)
	want := []casting.Mismatch{
		{Column: "amount", Expected: "Float64", Actual: "DECIMAL(18,3)", Cast: "lossy"},
		{Column: "quantity", Expected: "Int32", Actual: "BIGINT", Cast: "lossy"},
		{Column: "email", Expected: "String", Actual: "<missing>"},
		{Column: "qty_small", Expected: "Int64", Actual: "INTEGER", Cast: "lossless"},
		{Column: "tags", Expected: "List(String)", Actual: "INTEGER[]", Cast: "lossy"},
		{Column: "ts", Expected: "Datetime(us)", Actual: "TIMESTAMP_MS", Cast: "lossless"},
		{Column: "shipped", Expected: "Date", Actual: "<missing>"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("CheckColumns\n got: %+v\nwant: %+v", got, want)
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("mismatch %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if s := want[0].String(); s != "'amount' (expected Float64, got DECIMAL(18,3))" {
		t.Errorf("String() = %s", s)
	}
	if s := want[2].String(); s != "'email' (expected String, got <missing>)" {
		t.Errorf("String() = %s", s)
	}

	// Matching columns in any order, with extras, are no mismatch at all.
	ok := casting.CheckColumns(
		[]*schema.Column{schema.Int32("b"), schema.Integer("a"), schema.Decimal("c", 0, 3)},
		[]casting.ColumnType{{Name: "c", Type: "DECIMAL(18,3)"}, {Name: "z", Type: "BLOB"}, {Name: "a", Type: "UTINYINT"}, {Name: "b", Type: "INTEGER"}},
	)
	if len(ok) != 0 {
		t.Errorf("unexpected mismatches: %v", ok)
	}
	if got := casting.CheckColumns(nil, nil); len(got) != 0 {
		t.Errorf("empty schema: %v", got)
	}
	// Every column missing is reported, in schema order.
	all := casting.CheckColumns([]*schema.Column{schema.Int64("b"), schema.Int64("a")}, nil)
	if len(all) != 2 || all[0].Column != "b" || all[1].Column != "a" || all[0].Actual != casting.Missing {
		t.Errorf("all missing: %v", all)
	}
}

// TestCheckColumnsOnDuckDB runs the column check against DuckDB's own DESCRIBE output.
func TestCheckColumnsOnDuckDB(t *testing.T) {
	duckTypes(t)
	cols := []*schema.Column{
		schema.Decimal("dec18_3", 0, 3),
		schema.Float64("dec18_3b"),
		schema.Datetime("tstz", "us", "Europe/Berlin"),
		schema.Enum("enum", "x", "it's"),
		schema.Array("int_arr2x3", schema.Int32(""), 3, 2),
		schema.Struct("struct", schema.List("B c", schema.String("")), schema.Int32("a")),
		schema.Int64("i32"),
		schema.Any("map"),
	}
	// dec18_3b does not exist; i32 is the wrong width.
	got := casting.CheckColumns(cols, describeCols)
	var names []string
	for _, m := range got {
		names = append(names, m.String())
	}
	sort.Strings(names)
	want := []string{"'dec18_3b' (expected Float64, got <missing>)", "'i32' (expected Int64, got INTEGER)"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", names, want)
	}
}

// TestCastHints: what an explicit cast from the actual to the declared type would do.
func TestCastHints(t *testing.T) {
	cases := []struct {
		actual string
		col    *schema.Column
		want   string
	}{
		{"DECIMAL(18,3)", schema.Float64("x"), "lossy"},
		{"INTEGER", schema.Int64("x"), "lossless"},
		{"TIMESTAMP WITH TIME ZONE", schema.Datetime("x", schema.Nanos, "UTC"), "lossless"},
		{"TIMESTAMPTZ_NS", schema.Datetime("x", schema.Micros, "UTC"), "lossy"},
		{"TINYINT", schema.Int16("x"), "lossless"},
		{"BIGINT", schema.Int32("x"), "lossy"},
		{"UTINYINT", schema.Int16("x"), "lossless"},
		{"UTINYINT", schema.Int8("x"), "lossy"},
		{"TINYINT", schema.UInt64("x"), "lossy"},
		{"UINTEGER", schema.UInt64("x"), "lossless"},
		{"INTEGER", schema.Float64("x"), "lossless"},
		{"BIGINT", schema.Float64("x"), "lossy"},
		{"SMALLINT", schema.Float32("x"), "lossless"},
		{"INTEGER", schema.Float32("x"), "lossy"},
		{"INTEGER", schema.Decimal("x", 10, 0), "lossless"},
		{"INTEGER", schema.Decimal("x", 9, 0), "lossy"},
		{"INTEGER", schema.String("x"), "lossless"},
		{"FLOAT", schema.Float64("x"), "lossless"},
		{"DOUBLE", schema.Float32("x"), "lossy"},
		{"DOUBLE", schema.Int64("x"), "lossy"},
		{"DECIMAL(10,2)", schema.Decimal("x", 12, 3), "lossless"},
		{"DECIMAL(10,2)", schema.Decimal("x", 10, 3), "lossy"},
		{"DECIMAL(10,2)", schema.Decimal("x", 12, 1), "lossy"},
		{"VARCHAR", schema.Int64("x"), "lossy"},
		{"BLOB", schema.String("x"), "lossy"},
		{"DATE", schema.Datetime("x", "", ""), "lossless"},
		{"TIMESTAMP_MS", schema.Datetime("x", "", ""), "lossless"},
		{"TIMESTAMP_S", schema.Datetime("x", "ns", ""), "lossless"},
		{"TIMESTAMP", schema.Datetime("x", "ms", ""), "lossy"},
		{"TIMESTAMP_NS", schema.Datetime("x", "", ""), "lossy"},
		{"ENUM('y', 'x')", schema.Enum("x", "x", "y"), "exact"},
		{"ENUM('x')", schema.Enum("x", "x", "y"), "lossy"},
		{"VARCHAR", schema.Enum("x", "x", "y"), "lossy"},
		{"STRUCT(b VARCHAR, a INTEGER)", schema.Struct("x", schema.Int64("a"), schema.String("b")), "exact"},
	}
	for _, tc := range cases {
		got := casting.CheckColumns([]*schema.Column{tc.col}, []casting.ColumnType{{Name: "x", Type: tc.actual}})
		if len(got) != 1 {
			t.Errorf("%s -> %s: %d mismatches", tc.actual, tc.col.DType, len(got))
			continue
		}
		if got[0].Cast != tc.want {
			t.Errorf("%s -> %s: cast %q, want %q", tc.actual, tc.col.DType, got[0].Cast, tc.want)
		}
	}
}

// TestCastExprRuns: the explicit casts are valid DuckDB and reach the declared type.
func TestCastExprRuns(t *testing.T) {
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE src ("amount" DECIMAL(18,3), "my ""q""" INTEGER, "d" VARCHAR)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO src VALUES (1.5, 1, '2020-01-01'), (2, 2, 'not a date')`); err != nil {
		t.Fatal(err)
	}
	cols := []*schema.Column{schema.Float64("amount"), schema.Int64(`my "q"`), schema.Date("d")}
	var exprs []string
	for _, c := range cols {
		exprs = append(exprs, casting.CastExpr(c))
	}
	if exprs[1] != `CAST("my ""q""" AS BIGINT)` {
		t.Errorf("CastExpr = %s", exprs[1])
	}
	got, err := casting.Describe(ctx, db, "(SELECT "+exprs[0]+" AS amount, "+exprs[1]+" AS q FROM src)")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[{amount DOUBLE} {q BIGINT}]" {
		t.Errorf("cast types = %v", got)
	}
	var a, b, c gosql.NullString
	if err := db.QueryRowContext(ctx, casting.FailedCastProbe(cols, "src")).Scan(&a, &b, &c); err != nil {
		t.Fatal(err)
	}
	if a.Valid || b.Valid || !c.Valid || c.String != "not a date" {
		t.Errorf("probe = %v %v %v", a, b, c)
	}
}

// TestLibraryTimestamps reads the timestamps pandas, polars and pyarrow write to Parquet (every
// time unit each has, naive, UTC and Europe/Berlin; testdata/timestamps/gen.py): DuckDB's type,
// the dtype init declares, the declaration that matches, and that a cast to it runs.
func TestLibraryTimestamps(t *testing.T) {
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	// Parquet stores seconds and milliseconds as microseconds or milliseconds, which DuckDB
	// reads as TIMESTAMP; the zone is not kept, only that the values are instants.
	want := map[string]struct{ duck, dtype string }{
		"s_naive": {"TIMESTAMP", "Datetime(us)"}, "s_utc": {"TIMESTAMP WITH TIME ZONE", "Datetime(us, UTC)"},
		"ms_naive": {"TIMESTAMP", "Datetime(us)"}, "ms_utc": {"TIMESTAMP WITH TIME ZONE", "Datetime(us, UTC)"},
		"us_naive": {"TIMESTAMP", "Datetime(us)"}, "us_utc": {"TIMESTAMP WITH TIME ZONE", "Datetime(us, UTC)"},
		"ns_naive": {"TIMESTAMP_NS", "Datetime(ns)"}, "ns_utc": {"TIMESTAMPTZ_NS", "Datetime(ns, UTC)"},
		"default_utc": {"TIMESTAMPTZ_NS", "Datetime(ns, UTC)"}, // pandas' to_datetime(…, utc=True)
	}
	for _, unit := range []string{"s", "ms", "us", "ns"} {
		want[unit+"_berlin"] = want[unit+"_utc"]
	}
	files := map[string]int{"pandas": 13, "polars": 9, "pyarrow": 12}
	for file, n := range files {
		from := fmt.Sprintf("read_parquet('testdata/timestamps/%s.parquet')", file)
		cols, err := casting.Describe(ctx, db, from)
		if err != nil {
			t.Fatal(err)
		}
		if len(cols) != n {
			t.Errorf("%s: %d columns, want %d", file, len(cols), n)
		}
		for _, c := range cols {
			w, ok := want[c.Name]
			if !ok {
				t.Fatalf("%s: no expectation for column %s", file, c.Name)
			}
			if c.Type != w.duck {
				t.Errorf("%s.%s reads as %s, want %s", file, c.Name, c.Type, w.duck)
				continue
			}
			pt, err := casting.ParseType(c.Type)
			if err != nil {
				t.Fatal(err)
			}
			d, ok := casting.DTypeOf(pt)
			if !ok || d.String() != w.dtype {
				t.Errorf("%s.%s (%s): init declares %s (%v), want %s", file, c.Name, c.Type, d, ok, w.dtype)
				continue
			}
			declared := schema.Datetime(c.Name, d.TimeUnit, d.TimeZone)
			if strings.HasSuffix(c.Name, "_berlin") {
				declared = schema.Datetime(c.Name, d.TimeUnit, "Europe/Berlin")
			}
			if m := casting.CheckColumns([]*schema.Column{declared}, []casting.ColumnType{c}); len(m) != 0 {
				t.Errorf("%s.%s: %s does not match: %v", file, c.Name, declared.DType, m)
			}
			// The declared type spelled back: a cast to it keeps the nanoseconds where the file has them.
			var text gosql.NullString
			q := fmt.Sprintf("SELECT CAST(%s AS VARCHAR) FROM %s WHERE %s IS NOT NULL",
				casting.CastExpr(declared), from, `"`+c.Name+`"`)
			if err := db.QueryRowContext(ctx, q).Scan(&text); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if d.TimeUnit == schema.Nanos && !strings.Contains(text.String, ".123456789") {
				t.Errorf("%s.%s cast to %s = %q, lost the nanoseconds", file, c.Name, declared.DType.DuckDBType(), text.String)
			}
		}
	}
}
