package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate/exec"
	"github.com/tablegate/tablegate/sample"
	"github.com/tablegate/tablegate/schema"
)

func sampleCmd(stdout io.Writer) *cobra.Command {
	var (
		schemaPath, out string
		memoryLimit     string
		spec            sample.Spec
	)
	cmd := &cobra.Command{
		Use:   "sample --schema S --rows N --invalid-rate R --seed K --out FILE",
		Short: "Write deterministic synthetic data that fits the schema, with a share of rows that break its rules",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if schemaPath == "" || out == "" {
				return usagef("sample needs --schema and --out")
			}
			s, err := schema.LoadFile(schemaPath)
			if err != nil {
				return err
			}
			query, rules, err := sample.Query(s, spec)
			if err != nil {
				return err
			}
			target, err := parseOutput(out)
			if err != nil {
				return err
			}
			// The rows are sorted by their index so the same seed gives the same bytes; a memory
			// limit makes DuckDB spill that sort (100M rows peak at ~20 GB without one).
			eng, err := exec.Open(exec.Config{MemoryLimit: memoryLimit})
			if err != nil {
				return err
			}
			defer eng.Close()
			if err := eng.WriteQuery(cmd.Context(), query, target); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %d rows of %s to %s; about %.2f%% break one of %d rules\n",
				spec.Rows, s.Name, out, spec.InvalidRate*100, len(rules))
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&schemaPath, "schema", "", "schema file")
	fl.StringVar(&out, "out", "", "PATH.parquet or DBFILE.duckdb:[schema.]table")
	fl.Int64Var(&spec.Rows, "rows", 1000, "number of rows")
	fl.Float64Var(&spec.InvalidRate, "invalid-rate", 0.01, "share of rows that break a rule (0..1)")
	fl.Uint64Var(&spec.Seed, "seed", 1, "seed: the same seed gives the same data")
	fl.StringVar(&memoryLimit, "memory-limit", "", "DuckDB memory limit, e.g. 4GB (DuckDB spills past it)")
	return cmd
}
