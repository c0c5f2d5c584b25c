package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tablegate/tablegate"
)

// versionText is what `tablegate version` and `tablegate --version` print.
func versionText() string {
	return fmt.Sprintf("tablegate %s\nDuckDB %s (new database files are written in storage version %s unless --storage-version says otherwise)\n",
		tablegate.Version(), tablegate.DuckDBVersion(), tablegate.DefaultStorageVersion)
}

// dagsterIntegration numbers what the Dagster integration (integrations/dagster) reads from this
// binary: `checks --format json`, the JSON report and the Pipes messages. The integration refuses
// a binary whose number differs from its own, so raise it with any change it must follow.
const dagsterIntegration = 1

// versionInfo is `tablegate version --format json`.
type versionInfo struct {
	Tablegate          string `json:"tablegate_version"`
	DuckDB             string `json:"duckdb_version"`
	StorageVersion     string `json:"storage_version"`
	DagsterIntegration int    `json:"dagster_integration"`
}

func versionCmd(stdout io.Writer) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print tablegate's version and the version of the DuckDB inside it",
		Example: `  tablegate version
  tablegate --version
  tablegate version --format json`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			switch format {
			case "text":
				_, err := io.WriteString(stdout, versionText())
				return err
			case "json":
				data, err := indentJSON(versionInfo{
					Tablegate: tablegate.Version(), DuckDB: tablegate.DuckDBVersion(),
					StorageVersion: tablegate.DefaultStorageVersion, DagsterIntegration: dagsterIntegration,
				})
				if err == nil {
					_, err = stdout.Write(append(data, '\n'))
				}
				return err
			}
			return usagef("--format %q: use text or json", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output: text or json")
	return cmd
}

func storageVersionFlag(fl *pflag.FlagSet, v *string) {
	fl.StringVar(v, "storage-version", "", "storage format of database files tablegate creates: v1.5.0 (default: DuckDB 1.5 and later read it) or latest (DuckDB "+tablegate.DuckDBVersion()+"'s own); existing files keep theirs")
}

// engineFlagError turns a DuckDB setting that a flag gave and DuckDB refused into a usage error
// naming the flag.
func engineFlagError(err error, memoryLimit, storageVersion string) error {
	var se *tablegate.SettingError
	if errors.As(err, &se) {
		switch se.Setting {
		case "memory_limit":
			return usagef("--memory-limit %q: %v", memoryLimit, se.Err)
		case "storage_compatibility_version":
			return usagef("--storage-version %q: use a DuckDB storage version such as v1.5.0 or v2.0.0, or latest: %v", storageVersion, se.Err)
		}
	}
	return err
}
