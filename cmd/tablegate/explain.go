package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
)

func explainCmd(stdout io.Writer) *cobra.Command {
	var (
		sf         schemaFlags
		input      string
		output     string
		quarantine bool
		// checkEngine refuses --engine and --spark-remote but for DuckDB (spark is delegated).
		checkEngine func() error
	)
	cmd := &cobra.Command{
		Use:   "explain --schema S [--input IN [--out OUT [--quarantine]]]",
		Short: "Print the compiled SQL; with an input, check its column types first and print every statement a run executes",
		Example: `  tablegate explain --schema orders.yaml
  tablegate explain --schema orders.yaml --input orders.parquet
  tablegate explain --schema orders.yaml --input orders.parquet --out clean/orders.parquet --quarantine`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkEngine(); err != nil {
				return err
			}
			plan, err := loadPlan(cmd.Context(), sf)
			if err != nil {
				return err
			}
			if input == "" {
				fmt.Fprint(stdout, plan.Explain())
				return nil
			}
			in, err := parseInput(input)
			if err != nil {
				return err
			}
			var out tablegate.Output
			if output != "" {
				if out, err = parseOutput(output); err != nil {
					return err
				}
			}
			eng, err := tablegate.Open(tablegate.Config{Confined: true, AllowedDirectories: allowedDirs(in, out, referenceDirs(plan))})
			if err != nil {
				return err
			}
			defer eng.Close()
			q, err := eng.Explain(cmd.Context(), plan, in, out, tablegate.Options{Quarantine: quarantine})
			if err != nil {
				return err
			}
			fmt.Fprint(stdout, q)
			return nil
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVar(&input, "input", "", "input whose column types are checked first")
	cmd.Flags().StringVar(&output, "out", "", "table the run writes (the program then holds the rows it writes)")
	cmd.Flags().BoolVar(&quarantine, "quarantine", false, "the run quarantines invalid rows beside the output")
	checkEngine = engineFlags(cmd)
	return cmd
}
