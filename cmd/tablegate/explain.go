package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate/exec"
)

func explainCmd(stdout io.Writer) *cobra.Command {
	var (
		sf    schemaFlags
		input string
	)
	cmd := &cobra.Command{
		Use:   "explain --schema S [--input IN]",
		Short: "Print the compiled SQL; with an input, check its column types first",
		Example: `  tablegate explain --schema orders.yaml
  tablegate explain --schema orders.yaml --input orders.parquet`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			eng, err := exec.Open(exec.Config{Confined: true, AllowedDirectories: allowedDirs(in, nil, nil)})
			if err != nil {
				return err
			}
			defer eng.Close()
			q, err := eng.Explain(cmd.Context(), plan, in)
			if err != nil {
				return err
			}
			fmt.Fprint(stdout, q)
			return nil
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVar(&input, "input", "", "input whose column types are checked first")
	return cmd
}
