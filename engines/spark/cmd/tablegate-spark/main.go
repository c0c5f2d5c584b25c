// Command tablegate-spark is `tablegate validate` on Apache Spark through Spark Connect. The
// tablegate CLI runs it for `validate --engine spark`; it takes the same flags that apply on Spark,
// prints the same text or JSON report and exits with the same statuses (0 passed, 1 data failed,
// 2 usage or run error, 3 column check).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/spark"
	"github.com/tablegate/tablegate/exec"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/schema"
)

const (
	exitOK          = 0
	exitDataFailed  = 1
	exitUsage       = 2
	exitColumnCheck = 3
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

type flags struct {
	schema, schemaRoot, input, out, name string
	engine, remote, report, format       string
	quarantine                           bool
	samples                              int
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	code := exitOK
	var f flags
	root := &cobra.Command{Use: "tablegate-spark", SilenceUsage: true, SilenceErrors: true}
	validate := &cobra.Command{
		Use:   "validate --engine spark --spark-remote sc://HOST:PORT --schema S --input IN [--out OUT] [flags]",
		Short: "Validate a Parquet input on Spark, write the valid rows and the quarantine, report one check per rule",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep, err := validate(cmd.Context(), &f, getenv, stderr)
			if f.format == "json" || f.report != "" {
				if rep == nil {
					rep = &outcome.Report{Checks: []outcome.Check{}, InvalidByRules: []outcome.RuleSet{}}
				}
				if err != nil && rep.Error == nil {
					rep.Error = &outcome.ErrorInfo{Type: outcome.TypeName(err), Message: err.Error()}
				}
				data, jerr := json.MarshalIndent(rep, "", "  ")
				if jerr != nil {
					return jerr
				}
				if f.report != "" {
					if werr := os.WriteFile(f.report, append(data, '\n'), 0o644); werr != nil {
						return fmt.Errorf("write the report: %w", werr)
					}
				}
				if f.format == "json" {
					fmt.Fprintln(stdout, string(data))
				}
			}
			if f.format != "json" && rep != nil && rep.Outcome != nil {
				printText(stdout, rep)
			}
			code = exitCode(err)
			return err
		},
	}
	fl := validate.Flags()
	fl.StringVar(&f.schema, "schema", "", "schema file (YAML or JSON)")
	fl.StringVar(&f.schemaRoot, "schema-root", "", "folder the schema's extends may read from")
	fl.StringVar(&f.input, "input", "", "a Parquet file or a directory of Parquet files, on a filesystem the Spark driver sees")
	fl.StringVar(&f.out, "out", "", "the table: a directory Spark writes Parquet part files into")
	fl.StringVar(&f.name, "name", "", "asset name (default: OUT's base name); the quarantine is <name>_quarantine.parquet")
	fl.BoolVar(&f.quarantine, "quarantine", false, "write invalid rows to the quarantine and the valid rows to the table")
	fl.IntVar(&f.samples, "samples", 5, "failing rows shown per check, 0 for none")
	fl.StringVar(&f.engine, "engine", "spark", "spark (the only engine of this binary)")
	fl.StringVar(&f.remote, "spark-remote", "", "the Spark Connect server, sc://HOST:PORT (default: env SPARK_REMOTE)")
	fl.StringVar(&f.report, "report", "", "write the JSON report to this file")
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	root.AddCommand(validate)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		if code == exitOK {
			code = exitUsage
		}
		fmt.Fprintln(stderr, "tablegate: "+err.Error())
	}
	return code
}

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func validate(ctx context.Context, f *flags, getenv func(string) string, stderr io.Writer) (*outcome.Report, error) {
	switch {
	case f.engine != "spark":
		return nil, &usageError{fmt.Sprintf("--engine %q: this is the Spark engine's binary; run tablegate for DuckDB", f.engine)}
	case f.format != "text" && f.format != "json":
		return nil, &usageError{fmt.Sprintf("--format %q: use text or json", f.format)}
	case f.schema == "":
		return nil, &usageError{"--schema is required"}
	case f.quarantine && f.out == "":
		return nil, &usageError{"--quarantine needs --out: the quarantine goes beside the table"}
	}
	remote := f.remote
	if remote == "" {
		remote = getenv("SPARK_REMOTE")
	}
	if remote == "" {
		return nil, &usageError{"--engine spark needs --spark-remote sc://HOST:PORT (or env SPARK_REMOTE)"}
	}
	var opts []schema.LoadOption
	if f.schemaRoot != "" {
		opts = append(opts, schema.WithRoot(f.schemaRoot))
	}
	s, err := schema.LoadFileContext(ctx, f.schema, opts...)
	if err != nil {
		return nil, err
	}
	p, err := compile.CompileContext(ctx, s)
	if err != nil {
		return nil, err
	}
	samples := f.samples
	if samples == 0 {
		samples = -1
	}
	a := exec.Asset{Name: f.name, Plan: p, Quarantine: f.quarantine}
	if f.input != "" {
		a.Input = exec.ParquetInput{Path: f.input}
	}
	if f.out != "" {
		a.Output = exec.ParquetOutput{Path: f.out}
	}
	return spark.New(remote).Run(ctx, a, exec.Options{MaxFailureSamples: samples, Warnings: stderr})
}

func exitCode(err error) int {
	var (
		colErr   *outcome.ColumnSchemaError
		unsup    *spark.UnsupportedColumnError
		abortErr *outcome.ValidationAbortError
		noValid  *outcome.NoValidRowsError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &colErr), errors.As(err, &unsup):
		return exitColumnCheck
	case errors.As(err, &abortErr), errors.As(err, &noValid):
		return exitDataFailed
	}
	return exitUsage
}

// printText prints the outcome, the row counts and the failing checks.
func printText(w io.Writer, rep *outcome.Report) {
	fmt.Fprintf(w, "%s on Spark: %s (%d rows, %d valid, %d invalid)\n", rep.Asset, *rep.Outcome, rep.Rows.Input, rep.Rows.Valid, rep.Rows.Invalid)
	for _, c := range rep.Checks {
		if c.Passed {
			continue
		}
		n := any(c.Failed)
		if c.Failed == 0 {
			n = "-"
		}
		fmt.Fprintf(w, "  FAILED %-5s %s: %v rows (%s)\n", c.Severity, c.Name, n, c.Description)
	}
	if rep.Table.Written {
		fmt.Fprintf(w, "table: %s\n", rep.Table.Address)
	}
	if rep.Quarantine.Written {
		fmt.Fprintf(w, "quarantine: %s (%d rows)\n", rep.Quarantine.Address, rep.Quarantine.Rows)
	}
}
