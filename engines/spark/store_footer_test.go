package spark

import (
	gosql "database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/metadata"
	_ "github.com/duckdb/duckdb-go/v2"

	dialect "github.com/tablegate/tablegate/compile/spark"
)

// TestParquetFooter cuts footers out of file ends of every length: whole, short by one byte,
// not Parquet, encrypted.
func TestParquetFooter(t *testing.T) {
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	path := filepath.Join(t.TempDir(), "f.parquet")
	if _, err := db.Exec(fmt.Sprintf("COPY (SELECT i::UBIGINT AS \"select\", 'é' || i AS s FROM range(1000) t(i)) TO '%s' (FORMAT parquet)", path)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(data))
	full, err := parquetFooter(data, size)
	if err != nil {
		t.Fatal(err)
	}
	md, err := metadata.NewFileMetaData(full, nil)
	if err != nil || md.NumRows != 1000 || md.Schema.Column(0).Name() != "select" {
		t.Fatalf("footer %v: %v", md, err)
	}
	exact := int64(len(full)) + 8
	for _, tc := range []struct {
		name string
		end  []byte
		want error
		msg  string
	}{
		{"exactly the footer", data[size-exact:], nil, ""},
		{"one byte short", data[size-exact+1:], dialect.ErrShortTail, ""},
		{"8 bytes only", data[size-8:], dialect.ErrShortTail, ""},
		{"empty", nil, nil, "not a Parquet file"},
		{"not parquet", []byte("hello, world"), nil, "not a Parquet file"},
		{"encrypted", append([]byte("xxxxxxxx"), "PARE"...), nil, "encrypted"},
		{"length past the file", append([]byte{0xff, 0xff, 0xff, 0x7f}, "PAR1"...), nil, "does not fit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parquetFooter(tc.end, size)
			switch {
			case tc.msg != "":
				if err == nil || !strings.Contains(err.Error(), tc.msg) {
					t.Fatalf("error %v, want %q", err, tc.msg)
				}
			case tc.want != nil:
				if !errors.Is(err, tc.want) {
					t.Fatalf("error %v, want %v", err, tc.want)
				}
			case err != nil || string(got) != string(full):
				t.Fatalf("footer of %d bytes, error %v; want the %d-byte footer", len(got), err, len(full))
			}
		})
	}
}
