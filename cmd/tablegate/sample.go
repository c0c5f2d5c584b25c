package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/exec"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/sample"
	"github.com/tablegate/tablegate/schema"
)

func sampleCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		sf             schemaFlags
		out            string
		memoryLimit    string
		storageVersion string
		spec           sample.Spec
	)
	cmd := &cobra.Command{
		Use:   "sample --schema S --rows N --invalid-rate R --seed K --out FILE",
		Short: "Write deterministic synthetic data that fits the schema, with a share of rows that break its rules",
		Example: `  tablegate sample --schema orders.yaml --rows 100000 --out orders.parquet
  tablegate sample --schema orders.yaml --rows 1000000 --invalid-rate 0.05 --seed 7 --out test.duckdb:orders`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sf.path == "" || out == "" {
				return usagef("sample needs --schema and --out")
			}
			s, err := sf.load(cmd.Context())
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
			eng, err := exec.Open(exec.Config{MemoryLimit: memoryLimit, StorageVersion: storageVersion, Confined: true, AllowedDirectories: allowedDirs(nil, target, nil)})
			if err != nil {
				return engineFlagError(err, memoryLimit, storageVersion)
			}
			defer eng.Close()
			// One statement, so one phase; on a terminal it shows once it has taken a second.
			prog := newProgress(stderr)
			show := time.AfterFunc(time.Second, func() {
				prog.update(exec.Progress{Phase: "writing " + out, Rows: spec.Rows})
			})
			err = eng.WriteQuery(cmd.Context(), query, target)
			show.Stop()
			prog.finish()
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %d rows of %s to %s; about %.2f%% break one of %d rules\n",
				spec.Rows, s.Name, out, spec.InvalidRate*100, len(rules))
			if p, ok := target.(exec.ParquetOutput); ok {
				if note := readBackNote(cmd.Context(), eng, s, p.Path); note != "" {
					fmt.Fprintln(stdout, note)
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	sf.add(cmd)
	fl.StringVar(&out, "out", "", "PATH.parquet or DBFILE.duckdb:[schema.]table")
	fl.Int64Var(&spec.Rows, "rows", 1000, "number of rows")
	fl.Float64Var(&spec.InvalidRate, "invalid-rate", 0.01, "share of rows that break a rule (0..1)")
	fl.Uint64Var(&spec.Seed, "seed", 1, "seed: the same seed gives the same data")
	fl.StringVar(&memoryLimit, "memory-limit", "", "DuckDB memory limit, e.g. 4GB (DuckDB spills past it)")
	storageVersionFlag(fl, &storageVersion)
	return cmd
}

// readBackNote checks the written Parquet file's column types against the schema, as validate
// will: Parquet stores Enum columns as strings, Arrays as lists and millisecond timestamps as
// microseconds, so such a schema does not match its own sample. It returns what to do then, or
// "" when the file matches (or cannot be checked: the write itself succeeded).
func readBackNote(ctx context.Context, eng *exec.Engine, s *schema.Schema, path string) string {
	p, err := compile.Compile(s)
	if err != nil {
		return ""
	}
	var mismatch *outcome.ColumnSchemaError
	if _, err := eng.Explain(ctx, p, exec.ParquetInput{Path: path}); !errors.As(err, &mismatch) {
		return ""
	}
	cols := make([]string, len(mismatch.Mismatches))
	for i, m := range mismatch.Mismatches {
		cols[i] = m.String()
	}
	return fmt.Sprintf("note: Parquet cannot carry every dtype, so %s read back as other types; validate the file with --cast, or sample to a DuckDB table (FILE.duckdb:table)",
		strings.Join(cols, ", "))
}
