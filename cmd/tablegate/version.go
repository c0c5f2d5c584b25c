package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tablegate/tablegate/exec"
	"github.com/tablegate/tablegate/internal/buildinfo"
)

// versionText is what `tablegate version` and `tablegate --version` print.
func versionText() string {
	return fmt.Sprintf("tablegate %s\nDuckDB %s (new database files are written in storage version %s unless --storage-version says otherwise)\n",
		buildinfo.Tablegate(), exec.DuckDBVersion(), exec.DefaultStorageVersion)
}

func versionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print tablegate's version and the version of the DuckDB inside it",
		Example: `  tablegate version
  tablegate --version`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := io.WriteString(stdout, versionText())
			return err
		},
	}
}

func storageVersionFlag(fl *pflag.FlagSet, v *string) {
	fl.StringVar(v, "storage-version", "", "storage format of database files tablegate creates: v1.5.0 (default: DuckDB 1.5 and later read it) or latest (DuckDB "+exec.DuckDBVersion()+"'s own); existing files keep theirs")
}

// engineFlagError turns a DuckDB setting that a flag gave and DuckDB refused into a usage error
// naming the flag.
func engineFlagError(err error, memoryLimit, storageVersion string) error {
	var se *exec.SettingError
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
