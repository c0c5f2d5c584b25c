package sql_test

import (
	"context"
	gosql "database/sql"
	"fmt"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

func openDB(t *testing.T) *gosql.DB {
	t.Helper()
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestIdent(t *testing.T) {
	cases := map[string]string{
		"a":          `"a"`,
		"order_id":   `"order_id"`,
		`a"b`:        `"a""b"`,
		`"`:          `""""`,
		`""`:         `""""""`,
		"":           `""`,
		"a|min":      `"a|min"`,
		"x; DROP t":  `"x; DROP t"`,
		"it's":       `"it's"`,
		"é ü":        `"é ü"`,
		`a"; --`:     `"a""; --"`,
		"line\nfeed": "\"line\nfeed\"",
	}
	for in, want := range cases {
		if got := sql.Ident(in); got != want {
			t.Errorf("Ident(%q) = %s, want %s", in, got, want)
		}
	}
	if got := sql.QualifiedIdent("db", "", `my"schema`, "t"); got != `"db"."my""schema"."t"` {
		t.Errorf("QualifiedIdent = %s", got)
	}
	if got := sql.QualifiedIdent("t"); got != `"t"` {
		t.Errorf("QualifiedIdent = %s", got)
	}
}

func TestString(t *testing.T) {
	cases := map[string]string{
		"":          `''`,
		"abc":       `'abc'`,
		"it's":      `'it''s'`,
		"''":        `''''''`,
		`a\b`:       `'a\b'`,
		`a\'`:       `'a\'''`,
		`"x"`:       `'"x"'`,
		"$$":        `'$$'`,
		"x'; DROP":  `'x''; DROP'`,
		"line\nend": "'line\nend'",
	}
	for in, want := range cases {
		if got := sql.String(in); got != want {
			t.Errorf("String(%q) = %s, want %s", in, got, want)
		}
	}
	if got := sql.StringList([]string{"a", "it's"}); got != `('a', 'it''s')` {
		t.Errorf("StringList = %s", got)
	}
	if got := sql.StringList(nil); got != `()` {
		t.Errorf("StringList(nil) = %s", got)
	}
}

// TestQuotingRoundTrips: DuckDB reads each quoted identifier and literal back as the original.
func TestQuotingRoundTrips(t *testing.T) {
	db := openDB(t)
	values := []string{"plain", "it's", `a"b`, `back\slash`, "$$dollar$$", "semi; DROP TABLE t; --", "é 🇩🇪", "new\nline", `''`, `""`, "/* c */"}
	for _, v := range values {
		q := fmt.Sprintf("SELECT %s AS %s", sql.String(v), sql.Ident(v))
		rows, err := db.QueryContext(context.Background(), q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		cols, _ := rows.Columns()
		var got string
		if rows.Next() {
			if err := rows.Scan(&got); err != nil {
				t.Error(err)
			}
		}
		rows.Close()
		if len(cols) != 1 || cols[0] != v || got != v {
			t.Errorf("%s: column %q value %q, want %q", q, cols, got, v)
		}
	}
}

// TestLiteralsRun: every literal form is accepted by DuckDB and compares in the column's type.
func TestLiteralsRun(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	cases := []struct {
		col   *schema.Column
		bound string
		lit   string
		holds string // a DuckDB comparison that must be true, with %s for the literal
	}{
		{schema.Int8("x"), "-5", "-5", "CAST(-5 AS TINYINT) = %s"},
		{schema.UInt64("x"), "18446744073709551615", "18446744073709551615", "CAST(18446744073709551615 AS UBIGINT) <= %s"},
		{schema.Float32("x"), "0.1", "CAST('0.1' AS FLOAT)", "CAST(0.1 AS FLOAT) <= %s"},
		{schema.Float64("x"), "0.1", "CAST('0.1' AS DOUBLE)", "0.1::DOUBLE = %s"},
		{schema.Decimal("x", 10, 2), "3.1", "CAST('3.10' AS DECIMAL(10,2))", "3.10::DECIMAL(10,2) = %s"},
		{schema.Decimal("x", 0, 3), "12.5", "CAST('12.500' AS DECIMAL(5,3))", "12.5 = %s"},
		{schema.Decimal("x", 0, 3), "12345678901234567890123456789012345", "CAST('12345678901234567890123456789012345.000' AS DECIMAL(38,3))", "1.5::DECIMAL(18,3) <= %s"},
		{schema.Date("x"), "2020-04-01", "DATE '2020-04-01'", "DATE '2020-04-01' = %s"},
		{schema.Time("x"), "12:00", "TIME '12:00:00'", "TIME '12:00:00' = %s"},
		{schema.Datetime("x", "", ""), "2020-03-01 12:00:00", "TIMESTAMP '2020-03-01 12:00:00'", "TIMESTAMP '2020-03-01 12:00:00' = %s"},
		{schema.Datetime("x", "ms", ""), "2020-03-01 12:00:00", "TIMESTAMP_MS '2020-03-01 12:00:00'", "TIMESTAMP_MS '2020-03-01 12:00:00' = %s"},
		{schema.Datetime("x", "ns", ""), "2020-03-01 12:00:00.000000001", "TIMESTAMP_NS '2020-03-01 12:00:00.000000001'", "epoch_ns(%s) %% 1000 = 1"},
		{schema.Datetime("x", "us", "Europe/Berlin"), "2020-03-01 12:00:00+01:00", "TIMESTAMPTZ '2020-03-01 11:00:00+00'", "TIMESTAMPTZ '2020-03-01 12:00:00+01:00' = %s"},
		{schema.Duration("x"), "1d4h", "to_microseconds(100800000000)", "epoch_us(INTERVAL '28 hours') = epoch_us(%s)"},
	}
	for _, tc := range cases {
		p, err := schema.ParseValue(tc.col.DType, schema.Value{Text: tc.bound})
		if err != nil {
			t.Errorf("%s %s: %v", tc.col.DType, tc.bound, err)
			continue
		}
		lit := sql.Literal(tc.col.DType, p)
		if lit != tc.lit {
			t.Errorf("%s %s: literal %s, want %s", tc.col.DType, tc.bound, lit, tc.lit)
		}
		q := "SELECT " + strings.ReplaceAll(fmt.Sprintf(tc.holds, lit), "%%", "%")
		var ok bool
		if err := db.QueryRowContext(ctx, q).Scan(&ok); err != nil || !ok {
			t.Errorf("%s: %v %v", q, ok, err)
		}
	}
}
