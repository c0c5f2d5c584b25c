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
