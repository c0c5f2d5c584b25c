package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/schema"
)

func initCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		input, out, name, memoryLimit string
		force                         bool
		csv                           csvFlags
		opts                          = tablegate.InferOptions{SmallTable: 1000}
	)
	cmd := &cobra.Command{
		Use:   "init --input IN [--out schema.yaml] [--bounds] [--max-categories N]",
		Short: "Write a starting schema from existing data; the schema validates its own data",
		Example: `  tablegate init --input flights.parquet --out flights.yaml
  tablegate init --input penguins.csv --csv-null NA --bounds --max-categories 5
  tablegate init --input shop.duckdb:main.orders > orders.yaml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if input == "" {
				return usagef("init needs --input")
			}
			if opts.MaxCategories < 0 {
				return usagef("--max-categories %d: give 0 (no is_in) or more", opts.MaxCategories)
			}
			in, err := csv.input(cmd, input)
			if err != nil {
				return err
			}
			if out != "" && !force {
				if _, err := os.Stat(out); err == nil {
					return usagef("--out %s exists; give --force to replace it", out)
				}
			}
			opts.Name = name
			if opts.Name == "" {
				opts.Name = defaultName(in)
			}
			opts.Source = input
			eng, err := tablegate.Open(tablegate.Config{MemoryLimit: memoryLimit, Confined: true, AllowedDirectories: allowedDirs(in, nil, nil)})
			if err != nil {
				return engineFlagError(err, memoryLimit, "")
			}
			defer eng.Close()
			res, err := eng.InferSchema(cmd.Context(), in, opts)
			if err != nil {
				return err
			}
			file := out
			if file == "" {
				file = "schema.yaml"
			}
			verdict, rejected, err := selfCheck(cmd.Context(), eng, res.YAML, file, in)
			if err != nil {
				return err
			}
			if out == "" {
				_, err = stdout.Write(res.YAML)
			} else {
				err = tablegate.WriteFile(out, res.YAML, force)
				if err == nil {
					fmt.Fprintf(stderr, "wrote %s\n", out)
				}
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(stderr, verdict)
			if rejected != nil {
				// Written as a starting point, but a script must see that it rejects its own data.
				return fmt.Errorf("the inferred schema rejects its own data: %w", rejected)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&input, "input", "", "input: Parquet file or glob, CSV, NDJSON, or DBFILE.duckdb:[schema.]table")
	fl.StringVar(&out, "out", "", "schema file to write (default: stdout)")
	fl.BoolVar(&force, "force", false, "replace --out when it exists")
	fl.StringVar(&name, "name", "", "schema name (default: the input's base name)")
	fl.BoolVar(&opts.Bounds, "bounds", false, "add min and max from the data to number and date columns")
	fl.IntVar(&opts.MaxCategories, "max-categories", 10, "strings with at most N distinct values get is_in; 0 for none")
	fl.StringVar(&memoryLimit, "memory-limit", "", "DuckDB memory limit, e.g. 4GB; DuckDB spills to disk past it")
	csv.add(cmd)
	return cmd
}

// defaultName is the input's base name without extension, or its table's name.
func defaultName(in tablegate.Input) string {
	if t, ok := in.(tablegate.TableInput); ok {
		return t.Table
	}
	base := filepath.Base(in.String())
	if ext := tablegate.DataExt(base); ext != "" {
		base = base[:strings.LastIndex(strings.ToLower(base), ext)]
	}
	if base == "" || strings.ContainsAny(base, "*?[") {
		return "inferred"
	}
	return base
}

// selfCheck validates the input with the inferred schema, in place, and says how it went: the
// schema is meant to accept the data it came from. rejected is the run's abort when it did not
// (exit 1 once the schema is written).
func selfCheck(ctx context.Context, eng *tablegate.Engine, data []byte, file string, in tablegate.Input) (verdict string, rejected error, err error) {
	s, err := schema.ParseContext(ctx, data, file)
	if badName := (*schema.InvalidColumnNameError)(nil); errors.As(err, &badName) {
		return "", nil, fmt.Errorf("init cannot declare every column of the input (nothing was written): %w", err)
	}
	if err != nil {
		return "", nil, fmt.Errorf("the inferred schema does not load (please report it): %w", err)
	}
	plan, err := tablegate.Compile(ctx, s)
	if err != nil {
		return "", nil, fmt.Errorf("the inferred schema does not compile (please report it): %w", err)
	}
	res, err := eng.Validate(ctx, plan, in, nil, tablegate.Options{Name: s.Name, RunOptions: tablegate.RunOptions{MaxFailureSamples: -1}})
	var failed *tablegate.ValidationAbortError
	switch {
	case errors.As(err, &failed):
		return fmt.Sprintf("checked: %s; edit the rules it names before using the schema", failed.Error()), failed, nil
	case err != nil:
		return "", nil, fmt.Errorf("validate the input with the inferred schema: %w", err)
	}
	return fmt.Sprintf("checked: the schema validates its own %d rows as %s", res.Rows.Input, res.Outcome), nil, nil
}
