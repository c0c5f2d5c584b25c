package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
)

func exportCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		sf         schemaFlags
		asODCS     bool
		out        string
		force      bool
		exportOpts tablegate.ContractExportOptions
	)
	cmd := &cobra.Command{
		Use:   "export --odcs --schema S [--out contract.yaml]",
		Short: "Write the schema as an Open Data Contract Standard (ODCS v3.2) contract",
		Example: `  tablegate export --odcs --schema orders.yaml --out orders.odcs.yaml
  tablegate export --odcs --schema orders.yaml --id orders --version 2.1.0 > orders.odcs.yaml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !asODCS {
				return usagef("export needs the format: --odcs (an Open Data Contract Standard v3.2 contract)")
			}
			if out != "" && !force {
				if _, err := os.Stat(out); err == nil {
					return usagef("--out %s exists; give --force to replace it", out)
				}
			}
			s, err := sf.load(cmd.Context())
			if err != nil {
				return err
			}
			if out != "" {
				exportOpts.Folder = filepath.Dir(out)
			}
			data, err := tablegate.ExportContract(cmd.Context(), s, exportOpts)
			if err != nil {
				return err
			}
			if out == "" {
				_, err = stdout.Write(data)
				return err
			}
			if err := tablegate.WriteFile(out, data, force); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "wrote %s\n", out)
			return nil
		},
	}
	sf.add(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&asODCS, "odcs", false, "write an Open Data Contract Standard v3.2 contract (the one format)")
	fl.StringVar(&out, "out", "", "contract file to write (default: stdout)")
	fl.BoolVar(&force, "force", false, "replace --out when it exists")
	fl.StringVar(&exportOpts.ID, "id", "", "the contract's id (default: the imported contract's, else the schema's name in lower case)")
	fl.StringVar(&exportOpts.Version, "version", "", "the contract's version (default: the imported contract's, else 1.0.0)")
	fl.StringVar(&exportOpts.Status, "status", "", "the contract's status (default: active)")
	return cmd
}
