package tablegate

import (
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/internal/buildinfo"
)

// Version is the version of tablegate in this program: its module version when the program
// depends on a released tablegate, "(devel)" when built from a checkout (with the commit, when
// the build recorded it). Result.TablegateVersion says the same.
func Version() string { return buildinfo.Tablegate() }

// DuckDBVersion is the version of the DuckDB library in this program.
func DuckDBVersion() string { return duckdb.DuckDBVersion() }

// DefaultStorageVersion is the storage format of the database files an engine creates unless
// Config.StorageVersion says otherwise: one DuckDB 1.5 and later read.
const DefaultStorageVersion = duckdb.DefaultStorageVersion
