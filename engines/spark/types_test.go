package spark

import (
	gosql "database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/schema"
)

func TestMatches(t *testing.T) {
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
		{"st", "struct<`select`:int,c:array<float>>", true},
		{"st", "struct<c:array<float>,`select`:int>", true},
		{"st", "struct<`select`:int,c:array<double>>", false},
		{"st", "struct<`select`:int>", false},
		{"st", "map<string,int>", false},
	} {
		typ, err := parseSparkType(tc.typ)
		if err != nil {
			t.Fatalf("parse %q: %v", tc.typ, err)
		}
		if got := matches(s.Column(tc.col).DType, typ); got != tc.want {
			t.Errorf("%s (%s) against %s: %v, want %v", tc.col, s.Column(tc.col).DType, tc.typ, got, tc.want)
		}
	}
	for _, bad := range []string{"decimal(10", "struct<a int>", "array<int", "`x"} {
		if _, err := parseSparkType(bad); err == nil {
			t.Errorf("parse %q: no error", bad)
		}
	}
	mm := checkColumns(s.Columns[:2], [][2]string{{"i8", "smallint"}})
	if len(mm) != 2 || mm[0].String() != "'i8' (expected Int8, got smallint)" || mm[1].Actual != "<missing>" {
		t.Errorf("mismatches %v", mm)
	}
	// An Any column takes any type, even one the parser cannot read.
	anything := schema.New("A", schema.Any("x"))
	if mm := checkColumns(anything.Columns, [][2]string{{"x", "struct<a int>"}}); len(mm) != 0 {
		t.Errorf("Any against an unreadable type: %v", mm)
	}
}

// TestStoredTypes reads real Parquet footers (written by DuckDB) and names every column stored in
// a type Spark cannot carry exactly, and none of the others.
func TestStoredTypes(t *testing.T) {
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f := filepath.Join(t.TempDir(), "t.parquet")
	if _, err := db.Exec(fmt.Sprintf(`COPY (SELECT 1::UTINYINT AS u8, 1::UBIGINT AS u64, TIMESTAMP_NS '2020-01-01' AS ns,
		TIMESTAMP_MS '2020-01-01' AS ms, uuid() AS id, INTERVAL 1 DAY AS dur, TIME '12:00' AS tm,
		1::BIGINT AS ok, TIMESTAMP '2020-01-01' AS us, [1::UINTEGER] AS nested) TO '%s' (FORMAT parquet)`, f)); err != nil {
		t.Fatal(err)
	}
	var cols []*schema.Column
	for _, n := range []string{"u8", "u64", "ns", "ms", "id", "dur", "tm", "ok", "us", "nested"} {
		cols = append(cols, schema.Any(n))
	}
	err = storedTypes([]string{f}, cols)
	var uc *UnsupportedColumnError
	if !errors.As(err, &uc) {
		t.Fatalf("error %v, want *UnsupportedColumnError", err)
	}
	got := strings.Join(uc.Columns, "; ")
	for _, want := range []string{"'u8' (unsigned 8-bit", "'u64' (unsigned 64-bit", "'ns' (nanosecond", "'ms' (millisecond", "'id' (UUID)", "'dur' (INTERVAL)", "'tm' (TIME)", "'nested' (unsigned 32-bit"} {
		if !strings.Contains(got, want) {
			t.Errorf("refusal %q does not name %s", got, want)
		}
	}
	for _, fine := range []string{"'ok'", "'us'"} {
		if strings.Contains(got, fine) {
			t.Errorf("refusal %q names %s", got, fine)
		}
	}
	if err := storedTypes([]string{f}, cols[7:9]); err != nil {
		t.Errorf("bigint and µs timestamps: %v", err)
	}
}
