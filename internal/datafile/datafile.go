// Package datafile names a data file's format from its path, as DuckDB picks its reader.
package datafile

import (
	"path/filepath"
	"strings"
)

// compressions are the compressed-file suffixes DuckDB reads (by extension) and tablegate
// reads through.
var compressions = []string{".gz", ".zst"}

// Ext is the lower-case extension of a file's data format, beneath a compression suffix DuckDB
// reads: ".csv" for both a.csv and a.csv.gz.
func Ext(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	for _, c := range compressions {
		if ext == c {
			return strings.ToLower(filepath.Ext(strings.TrimSuffix(path, filepath.Ext(path))))
		}
	}
	return ext
}
