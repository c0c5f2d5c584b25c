package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
)

func explainCmd(stdout io.Writer) *cobra.Command {
	var (
		sf            schemaFlags
		cf            collectionFlags
		inputs, outs  []string
		input, output string
		quarantine    bool
		csv           csvFlags
		// checkEngine refuses --engine and --spark-remote but for DuckDB (spark is delegated).
		checkEngine func() error
	)
	cmd := &cobra.Command{
		Use:   "explain --schema S [--input IN [--out OUT [--quarantine]]]",
		Short: "Print the compiled SQL; with an input, check its column types first and print every statement a run executes",
		Example: `  tablegate explain --schema orders.yaml
  tablegate explain --schema orders.yaml --input orders.parquet --out clean/orders.parquet --quarantine
  tablegate explain --collection shop.yaml --input-dir in/ --out-dir clean/ --quarantine`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkEngine(); err != nil {
				return err
			}
			if cf.path != "" {
				return explainCollection(cmd, &cf, inputs, outs, quarantine, &csv, stdout)
			}
			switch {
			case len(inputs) > 1 || len(outs) > 1:
				return usagef("--input and --out are given once for a single table (several related tables: --collection)")
			case cf.inputDir != "" || cf.outDir != "":
				return usagef("--input-dir and --out-dir name a collection's member files: give --collection too")
			}
			if len(inputs) == 1 {
				input = inputs[0]
			}
			if len(outs) == 1 {
				output = outs[0]
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
	cmd.Flags().StringArrayVar(&inputs, "input", nil, "input whose column types are checked first (with --collection, member=INPUT)")
	cmd.Flags().StringArrayVar(&outs, "out", nil, "table the run writes (the program then holds the rows it writes; with --collection, member=OUT)")
	cf.add(cmd, true)
	csv.add(cmd)
	cmd.Flags().BoolVar(&quarantine, "quarantine", false, "the run quarantines invalid rows beside the output")
	checkEngine = engineFlags(cmd)
	return cmd
}

// explainCollection prints each member's plan query and the collection's filters; with the
// members' inputs, every statement the collection's run executes.
func explainCollection(cmd *cobra.Command, cf *collectionFlags, inputs, outs []string, quarantine bool, csv *csvFlags, stdout io.Writer) error {
	if err := refuseSingleTable(cmd, "schema", "schema-root"); err != nil {
		return err
	}
	cp, err := loadCollection(cmd, cf.path)
	if err != nil {
		return err
	}
	if len(inputs) == 0 && cf.inputDir == "" {
		for _, m := range cp.Members {
			fmt.Fprintf(stdout, "-- member %s (%s)\n%s\n", m.Name, m.Plan.Name, m.Plan.Explain())
		}
		for _, m := range cp.Members {
			for _, r := range m.Plan.Rules {
				if r.Kind == tablegate.KindFilter || r.Kind == tablegate.KindPropagation || r.Kind == tablegate.KindReference {
					fmt.Fprintf(stdout, "-- %s, rule %s of member %s: %s (set by the collection's steps; give the inputs to see them)\n", r.Kind, r.Name, m.Name, r.Description)
				}
			}
		}
		return nil
	}
	mio, err := cf.memberIO(cmd, cp, inputs, outs, csv)
	if err != nil {
		return err
	}
	eng, err := tablegate.Open(tablegate.Config{Confined: true, AllowedDirectories: collectionDirs(cp, mio, nil)})
	if err != nil {
		return err
	}
	defer eng.Close()
	q, err := eng.ExplainCollection(cmd.Context(), cp, mio, tablegate.Options{Quarantine: quarantine})
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, q)
	return nil
}
