package spark

import (
	gosql "database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// TestFooterOrdinal numbers a directory's files from their footers (offsets in name order,
// hidden files skipped) and leaves to Spark's count a directory that Spark may read otherwise
// than listed.
func TestFooterOrdinal(t *testing.T) {
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	write := func(path string, rows int) {
		t.Helper()
		if _, err := db.Exec(fmt.Sprintf("COPY (SELECT i FROM range(%d) t(i)) TO '%s' (FORMAT parquet)", rows, path)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		files map[string]int // name: rows ("" for a subdirectory's name, -1 for a file that is not Parquet)
		want  string         // the CASE's branches; "" when Spark counts
	}{
		{name: "three files", files: map[string]int{"part-1.parquet": 7, "part-0.parquet": 5, "part-2.parquet": 0},
			want: "WHEN 'part-0.parquet' THEN 0 WHEN 'part-1.parquet' THEN 5 WHEN 'part-2.parquet' THEN 12 ELSE"},
		{name: "hidden files", files: map[string]int{"a.parquet": 3, "b.parquet": 4, "_SUCCESS": -1, ".a.parquet.crc": -1},
			want: "WHEN 'a.parquet' THEN 0 WHEN 'b.parquet' THEN 3 ELSE"},
		{name: "a subdirectory", files: map[string]int{"a.parquet": 3, "b.parquet": 4, "k=1": -2}},
		{name: "a file Spark reads that is not named .parquet", files: map[string]int{"a.parquet": 3, "b.parquet": 4, "c.snappy": -1}},
		{name: "a name Spark may escape", files: map[string]int{"a b.parquet": 3, "b.parquet": 4}},
		{name: "a Unicode name", files: map[string]int{"é.parquet": 3, "b.parquet": 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, rows := range tc.files {
				path := filepath.Join(dir, name)
				switch rows {
				case -1:
					err = os.WriteFile(path, []byte("x"), 0o644)
				case -2:
					err = os.Mkdir(path, 0o755)
				default:
					write(path, rows)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			files, err := parquetFiles(dir)
			if err != nil {
				t.Fatal(err)
			}
			expr, err := footerOrdinal(dir, files)
			if err != nil {
				t.Fatal(err)
			}
			if (expr != "") != (tc.want != "") {
				t.Fatalf("ordinal %q, want one: %v", expr, tc.want != "")
			}
			if expr != "" && !strings.Contains(expr, "CASE __tg_name "+tc.want+" raise_error(") {
				t.Errorf("ordinal %s, want the branches %s", expr, tc.want)
			}
		})
	}
}
