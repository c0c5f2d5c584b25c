package duckdb

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/duckdb/duckdb-go/v2/mapping"
	"github.com/tablegate/tablegate/runner"
)

// DuckDBVersion is the version of the DuckDB library tablegate embeds ("v2.0.0").
func DuckDBVersion() string { return mapping.LibraryVersion() }

// DuckDB: "Trying to read a database file with storage version number 70, but we can only read
// storage versions between 64 and 69."
var storageVersionRe = regexp.MustCompile(`version number (\d+), but we can only read (?:storage )?versions between (\d+) and (\d+)`)

// openError is the error of opening or attaching the database file at path.
func openError(path string, err error) error {
	if m := storageVersionRe.FindStringSubmatch(err.Error()); m != nil {
		v, _ := strconv.Atoi(m[1])
		lo, _ := strconv.Atoi(m[2])
		hi, _ := strconv.Atoi(m[3])
		return &runner.StorageVersionError{Path: path, DuckDB: DuckDBVersion(), Version: v, Min: lo, Max: hi, Err: err}
	}
	return fmt.Errorf("open database %s: %w", path, err)
}
