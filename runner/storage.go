package runner

import (
	"fmt"

	"github.com/tablegate/tablegate/sql"
)

// StorageVersionError is a database file whose storage format the embedded DuckDB cannot read:
// written by a newer DuckDB, or by one from before the format DuckDB has read since 0.10.
type StorageVersionError struct {
	Path string
	// Version is the file's storage version number, Min and Max the numbers the embedded DuckDB
	// reads.
	Version, Min, Max int
	DuckDB            string // the embedded DuckDB's version
	Err               error  // DuckDB's own refusal
}

func (e *StorageVersionError) Error() string {
	if e.Version > e.Max {
		return fmt.Sprintf("open database %s: it was written by a DuckDB newer than the one tablegate embeds (DuckDB %s reads storage versions %d to %d; the file has %d). "+
			"Use a tablegate built on that DuckDB, or convert the file with the DuckDB that wrote it: "+
			"ATTACH %s AS src (READ_ONLY); ATTACH 'converted.duckdb' AS dst (STORAGE_VERSION 'v1.5.0'); COPY FROM DATABASE src TO dst;",
			e.Path, e.DuckDB, e.Min, e.Max, e.Version, sql.String(e.Path))
	}
	return fmt.Sprintf("open database %s: it was written by a DuckDB older than 0.10, whose storage format DuckDB %s (inside tablegate) no longer reads (it reads storage versions %d to %d; the file has %d). "+
		"Convert it with the DuckDB that wrote it: EXPORT DATABASE 'dump'; then, with a current DuckDB, IMPORT DATABASE 'dump';",
		e.Path, e.DuckDB, e.Min, e.Max, e.Version)
}

func (e *StorageVersionError) Unwrap() error { return e.Err }

// TypeName names the error in the report.
func (e *StorageVersionError) TypeName() string { return "StorageVersionError" }
