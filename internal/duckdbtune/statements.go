package duckdbtune

import (
	"slices"
	"strings"

	"github.com/tablegate/tablegate/sql"
)

// The statements with which the engine reads and resets DuckDB's tuning around a run (those of
// the programs it runs are compile.DuckDBTuning's).
const (
	// ReadSettings reads the memory limit (text) and the perfect-hash threshold (BIGINT).
	ReadSettings = "SELECT current_setting('memory_limit'), CAST(current_setting('perfect_ht_threshold') AS BIGINT)"
	// ReadPerfectHash reads the connection's perfect-hash threshold (one BIGINT).
	ReadPerfectHash = "SELECT CAST(current_setting('perfect_ht_threshold') AS BIGINT)"
	// ResetPerfectHash drops the connection's own perfect-hash threshold.
	ResetPerfectHash = "RESET SESSION perfect_ht_threshold"
)

// The engine's own settings, applied when it opens a database: not a run's, so in no program.

// Disable turns a boolean setting off (the sandbox: extension installs and loads).
func Disable(setting string) string { return "SET " + setting + " = false" }

// Set gives a setting a value, rendered as a string literal (DuckDB checks it as it is set).
func Set(setting, value string) string { return "SET " + setting + " = " + sql.String(value) }

// Confine limits DuckDB's file access to the given directories (absolute, each ending in the
// path separator) and then turns external access off, which freezes the list.
func Confine(dirs []string) []string {
	list := make([]string, len(dirs))
	for i, d := range dirs {
		list[i] = sql.String(d)
	}
	return []string{"SET allowed_directories = [" + strings.Join(list, ", ") + "]", "SET enable_external_access = false"}
}

// Lockdown are the start-up settings (connection-string options) of a DuckDB database that
// answers tablegate's own statements only: no extension is installed or loaded on demand, no
// file or network is reachable but the database's own file, and nothing can change that
// afterwards. The compiler's parser runs under them, and so does the run history, a file anyone
// with write access to it could have filled with views and macros.
var Lockdown = []string{
	"autoinstall_known_extensions=false",
	"autoload_known_extensions=false",
	"allow_community_extensions=false",
	"enable_external_access=false",
	"lock_configuration=true",
}

// LockedDSN is the connection string of the database file at path ("": in memory) under
// Lockdown, with the extra options (key=value) given.
func LockedDSN(path string, extra ...string) string {
	return path + "?" + strings.Join(append(slices.Clone(Lockdown), extra...), "&")
}
