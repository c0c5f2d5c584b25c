package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/schema"
)

func sampleCmd(con console, stdout, stderr io.Writer) *cobra.Command {
	var (
		sf             schemaFlags
		out            string
		memoryLimit    string
		storageVersion string
		progressMode   string
		spec           tablegate.SampleSpec
		collectionFile string
		outDir         string
		memberRows     []string
	)
	cmd := &cobra.Command{
		Use:   "sample (--schema S --out FILE | --collection C --out-dir DIR) --rows N --invalid-rate R --seed K",
		Short: "Write deterministic synthetic data that fits the schema (or every member of a collection), with a share of rows that break its rules",
		Long: "Write deterministic synthetic data that fits the schema, with a share of rows that break its rules.\n\n" +
			"With --collection, every member is written to DIR/<member>.parquet, consistent with the others: --rows common keys, " +
			"a row per key in each member that shares the key (1 to 3 when its own key is a superset of it, or --member-rows M=N " +
			"for exactly N/rows per key), the same key values in every member, references drawn from their targets' values, " +
			"and --member-rows M=N rows in a member ignored in filters. At an invalid rate R, each member's rows break its rules " +
			"as a single table's do, each relationship loses a share R of the keys (its second member has no row for them), " +
			"and a reference is one of the rules a bad row may break (it then points at no target value).",
		Example: `  tablegate sample --schema orders.yaml --rows 100000 --out orders.parquet
  tablegate sample --schema orders.yaml --rows 1000000 --invalid-rate 0.05 --seed 7 --out test.duckdb:orders
  tablegate sample --collection shop.yaml --rows 100000 --member-rows items=300000 --invalid-rate 0.02 --out-dir sample/`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if collectionFile != "" || outDir != "" || len(memberRows) > 0 {
				if collectionFile == "" || outDir == "" || sf.given() || out != "" {
					return usagef("sample --collection needs --out-dir (not --schema, --contract or --out); --out-dir and --member-rows go with --collection")
				}
				if err := checkProgress(progressMode); err != nil {
					return err
				}
				rows, err := parseMemberRows(memberRows)
				if err != nil {
					return err
				}
				prog := newCollectionProgress(stderr, progressMode, con.stderrTTY, nil)
				defer prog.finish()
				return sampleCollection(cmd.Context(), stdout, stderr, prog, collectionFile, outDir, tablegate.CollectionSampleSpec{Spec: spec, MemberRows: rows},
					tablegate.Config{MemoryLimit: memoryLimit, StorageVersion: storageVersion, Confined: true})
			}
			if !sf.given() || out == "" {
				return usagef("sample needs --schema (or --contract) and --out, or --collection and --out-dir")
			}
			if err := checkProgress(progressMode); err != nil {
				return err
			}
			s, err := sf.load(cmd.Context())
			if err != nil {
				return err
			}
			query, rules, err := tablegate.SampleQuery(s, spec)
			if err != nil {
				return err
			}
			target, err := parseOutput(out)
			if err != nil {
				return err
			}
			eng, err := tablegate.Open(tablegate.Config{MemoryLimit: memoryLimit, StorageVersion: storageVersion, Confined: true, AllowedDirectories: allowedDirs(nil, target, nil)})
			if err != nil {
				return engineFlagError(err, memoryLimit, storageVersion)
			}
			defer eng.Close()
			// One statement, so one phase; on a terminal it shows once it has taken a second.
			prog := newProgress(stderr, progressMode, con.stderrTTY, 0)
			if progressMode == progressPlain {
				prog.update(tablegate.Progress{Phase: "writing " + out, Rows: spec.Rows})
			}
			show := time.AfterFunc(time.Second, func() {
				prog.update(tablegate.Progress{Phase: "writing " + out, Rows: spec.Rows})
			})
			err = eng.WriteQuery(cmd.Context(), query, target)
			show.Stop()
			prog.finish()
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %d rows of %s to %s, asking for %.2f%% that break one of %d rules\n",
				spec.Rows, s.Name, out, spec.InvalidRate*100, len(rules))
			plan, err := tablegate.Compile(cmd.Context(), s)
			if err != nil {
				return err
			}
			if free := uncontrolled(plan, rules); len(free) > 0 {
				fmt.Fprintf(stdout, "note: the generator does not control %s: they pass or fail as the generated values happen to\n", strings.Join(free, ", "))
			}
			cast := false
			if p, ok := target.(tablegate.ParquetOutput); ok {
				if note := readBackNote(cmd.Context(), eng, s, p.Path); note != "" {
					fmt.Fprintln(stdout, note)
					cast = true
				}
			}
			// What was produced, not what was asked: validate the written rows, counts only.
			res, err := eng.Validate(cmd.Context(), plan, readBack(target), nil, tablegate.Options{Name: s.Name, RunOptions: tablegate.RunOptions{MaxFailureSamples: -1, Cast: cast}})
			var rep *tablegate.Report
			if res != nil {
				rep = res.Report
			}
			if rep == nil || rep.Outcome == nil || *rep.Outcome == tablegate.ColumnSchemaMismatch {
				return fmt.Errorf("validate the written sample: %w", err)
			}
			share := 0.0
			if rep.Rows.Input > 0 {
				share = float64(rep.Rows.Invalid) / float64(rep.Rows.Input) * 100
			}
			fmt.Fprintf(stdout, "validated: %d of %d rows (%.2f%%) are invalid (fail an error rule); %s\n", rep.Rows.Invalid, rep.Rows.Input, share, *rep.Outcome)
			return allInvalid(s.Name, out, spec, rep)
		},
	}
	fl := cmd.Flags()
	sf.add(cmd)
	fl.StringVar(&out, "out", "", "PATH.parquet or DBFILE.duckdb:[schema.]table")
	fl.StringVar(&collectionFile, "collection", "", "a collection file: sample every member, consistent with each other")
	fl.StringVar(&outDir, "out-dir", "", "with --collection: the folder for <member>.parquet")
	fl.StringArrayVar(&memberRows, "member-rows", nil, "with --collection: MEMBER=N rows for a member ignored in filters, or a multiple of --rows for one whose key is a superset of the common key (repeatable)")
	fl.Int64Var(&spec.Rows, "rows", 1000, "number of rows (with --collection: of common keys)")
	fl.Float64Var(&spec.InvalidRate, "invalid-rate", 0.01, "share of rows that break a rule (0..1)")
	fl.Uint64Var(&spec.Seed, "seed", 1, "seed: the same seed gives the same data")
	fl.StringVar(&memoryLimit, "memory-limit", "", "DuckDB memory limit, e.g. 4GB (DuckDB spills past it)")
	storageVersionFlag(fl, &storageVersion)
	progressFlag(cmd, &progressMode)
	return cmd
}

// allInvalid fails a sample whose every row is invalid though the rate asked for valid ones: the
// generator could not fit a rule, and data no row of which passes is no sample of the schema.
func allInvalid(name, out string, spec tablegate.SampleSpec, rep *tablegate.Report) error {
	if rep.Rows.Input == 0 || rep.Rows.Invalid < rep.Rows.Input || spec.InvalidRate >= 1 {
		return nil
	}
	var failing []string
	for _, c := range rep.Checks {
		if !c.Passed && c.Severity == tablegate.CheckError {
			failing = append(failing, c.Name)
		}
	}
	return fmt.Errorf("every one of the %d rows of %s written to %s is invalid, not %.2f%%: sample could not fit %s; fix the schema's rules or report it (the file is kept for a look)",
		rep.Rows.Input, name, out, spec.InvalidRate*100, strings.Join(failing, ", "))
}

// uncontrolled lists the plan's rules the generator does not break on purpose, with their kind.
func uncontrolled(p *tablegate.Plan, broken []string) []string {
	known := map[string]bool{}
	for _, r := range broken {
		known[r] = true
	}
	var out []string
	for _, r := range p.Rules {
		if known[r.Name] {
			continue
		}
		kind := r.Kind
		switch r.Kind {
		case "custom":
			kind = "custom SQL"
		case "group":
			kind = "group rule"
		case schema.RuleCheck:
			kind = "custom check"
		}
		out = append(out, fmt.Sprintf("'%s' (%s)", r.Name, kind))
	}
	return out
}

// readBack is the input that reads what sample wrote.
func readBack(out tablegate.Output) tablegate.Input {
	switch o := out.(type) {
	case tablegate.ParquetOutput:
		return tablegate.ParquetInput(o)
	case tablegate.TableOutput:
		return tablegate.TableInput(o)
	}
	return nil
}

// readBackNote checks the written Parquet file's column types against the schema, as validate
// will: Parquet stores Enum columns as strings, Arrays as lists and millisecond timestamps as
// microseconds, so such a schema does not match its own sample. It returns what to do then, or
// "" when the file matches (or cannot be checked: the write itself succeeded).
func readBackNote(ctx context.Context, eng *tablegate.Engine, s *schema.Schema, path string) string {
	p, err := tablegate.Compile(ctx, s)
	if err != nil {
		return ""
	}
	var mismatch *tablegate.ColumnSchemaError
	if _, err := eng.Explain(ctx, p, tablegate.ParquetInput{Path: path}, nil, tablegate.Options{}); !errors.As(err, &mismatch) {
		return ""
	}
	cols := make([]string, len(mismatch.Mismatches))
	for i, m := range mismatch.Mismatches {
		cols[i] = m.String()
	}
	return fmt.Sprintf("note: Parquet cannot carry every dtype, so %s read back as other types; validate the file with --cast, or sample to a DuckDB table (FILE.duckdb:table)",
		strings.Join(cols, ", "))
}
