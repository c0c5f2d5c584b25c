package duckdb_test

import (
	"context"
	gosql "database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestCorruptParquetFooter: a Parquet file whose footer DuckDB cannot decode is named, and said
// not to be valid Parquet, alone or among the files of a glob (DuckDB's message is its decoder's,
// "don't know what type:", naming no file).
func TestCorruptParquetFooter(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "a.parquet")
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("COPY (SELECT range::VARCHAR AS s FROM range(100)) TO '" + good + "' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	footer := len(data) - 8 - int(uint32(data[len(data)-8])|uint32(data[len(data)-7])<<8|uint32(data[len(data)-6])<<16|uint32(data[len(data)-5])<<24)
	bad := append([]byte{}, data...)
	bad[footer] = 0x1F // a Thrift field of type 15, which does not exist
	badPath := filepath.Join(dir, "b.parquet")
	if err := os.WriteFile(badPath, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := compile.Compile(schema.New("T", schema.String("s")))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, in := range []string{badPath, filepath.Join(dir, "*.parquet")} {
		_, err := eng.Run(context.Background(), runner.Asset{Plan: plan, Input: runner.ParquetInput{Path: in}}, runner.Options{})
		if err == nil || !strings.Contains(err.Error(), badPath+" is not a valid Parquet file") {
			t.Errorf("input %s: error %v, want it to name %s as not valid Parquet", in, err, badPath)
		}
	}
}
