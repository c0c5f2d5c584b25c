package spark

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/file"

	dialect "github.com/tablegate/tablegate/compile/spark"
)

// footerOrdinal is the row ordinal of a local directory of Parquet files (files, in name order),
// from the row counts of their footers: a file's row index (__tg_row) offset by the rows of the
// files before it, picked by the file's name (__tg_name). Spark then need not read the input to
// count each file's rows (a scan of its own before the run's). It is "" when Spark may read
// other files than these (a subdirectory, a file not named .parquet) or a name might be spelled
// otherwise by Spark than by the file system (any but letters, digits and -_.=): the caller
// counts through Spark then. A file the expression does not know stops the run rather than
// number its rows wrong.
func footerOrdinal(dir string, files []string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	listed := make(map[string]bool, len(files))
	for _, f := range files {
		listed[filepath.Base(f)] = true
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") && !strings.Contains(name, "=") {
			continue // Spark skips hidden files (_SUCCESS, .crc)
		}
		if e.IsDir() || !listed[name] || strings.IndexFunc(name, unusualNameRune) >= 0 {
			return "", nil
		}
	}
	var s strings.Builder
	s.WriteString("__tg_row + CASE __tg_name")
	var offset int64
	for _, f := range files {
		r, err := file.OpenParquetFile(f, false)
		if err != nil {
			return "", fmt.Errorf("read the Parquet footer of %s: %w", f, err)
		}
		n := r.NumRows()
		r.Close()
		fmt.Fprintf(&s, " WHEN %s THEN %d", dialect.String(filepath.Base(f)), offset)
		offset += n
	}
	s.WriteString(" ELSE raise_error(concat('the input changed while the run read it: Spark read ', __tg_file, ', a file the run did not list')) END")
	return s.String(), nil
}

// unusualNameRune is true for a rune of a file name that Spark might spell otherwise (escaped
// in its paths).
func unusualNameRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == '=')
}
