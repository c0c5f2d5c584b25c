package tablegate

import (
	"github.com/tablegate/tablegate/internal/buildinfo"
	"github.com/tablegate/tablegate/runner"
)

// Version is the version of tablegate in this program: its module version when the program
// depends on a released tablegate, "(devel)" when built from a checkout (with the commit, when
// the build recorded it). Result.TablegateVersion says the same.
func Version() string { return buildinfo.Tablegate() }

// DuckDBVersion is the version of the DuckDB library in this program ("" when it links no
// DuckDB engine).
func DuckDBVersion() string {
	d, err := runner.Registered()
	if err != nil {
		return ""
	}
	return d.Version()
}

// DefaultStorageVersion is the storage format of the database files an engine creates unless
// Config.StorageVersion says otherwise: one DuckDB 1.5 and later read.
const DefaultStorageVersion = runner.DefaultStorageVersion
