package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/tablegate/tablegate/exec"
	"github.com/tablegate/tablegate/outcome"
)

// dbSuffixes mark DuckDB database files in addresses like db.duckdb:schema.table.
var dbSuffixes = []string{".duckdb:", ".ddb:", ".db:"}

// splitTable splits FILE.duckdb:[schema.]table.
func splitTable(addr string) (file, schemaName, table string, ok bool) {
	for _, suf := range dbSuffixes {
		if i := strings.LastIndex(addr, suf); i >= 0 {
			file = addr[:i+len(suf)-1]
			name := addr[i+len(suf):]
			if name == "" {
				return "", "", "", false
			}
			if s, t, found := strings.Cut(name, "."); found {
				return file, s, t, true
			}
			return file, "", name, true
		}
	}
	return "", "", "", false
}

func parseInput(in string) (exec.Input, error) {
	if file, s, t, ok := splitTable(in); ok {
		return exec.TableInput{File: file, Schema: s, Table: t}, nil
	}
	switch strings.ToLower(filepath.Ext(in)) {
	case ".parquet":
		return exec.ParquetInput{Path: in}, nil
	case ".csv", ".tsv":
		return exec.CSVInput{Path: in}, nil
	case ".ndjson", ".jsonl", ".json":
		return exec.NDJSONInput{Path: in}, nil
	}
	return nil, usagef("--input %q: use a Parquet file or glob (.parquet), a CSV (.csv), NDJSON (.ndjson, .jsonl) or DBFILE.duckdb:[schema.]table", in)
}

func parseOutput(out string) (exec.Output, error) {
	if file, s, t, ok := splitTable(out); ok {
		return exec.TableOutput{File: file, Schema: s, Table: t}, nil
	}
	if strings.EqualFold(filepath.Ext(out), ".parquet") && !strings.ContainsAny(out, "*?[") {
		return exec.ParquetOutput{Path: out}, nil
	}
	return nil, usagef("--out %q: use PATH.parquet or DBFILE.duckdb:[schema.]table", out)
}

type validateFlags struct {
	schema                        schemaFlags
	input, query, out, name, db   string
	quarantine, cast, skipMissing bool
	granularity, schemaRules      string
	samples, rowSample            int
	memoryLimit, tempDir          string
	storageVersion                string
	allowDirs                     []string
	threads                       int
	report, format                string
}

func validateCmd(stdout, stderr io.Writer, code *int) *cobra.Command {
	var f validateFlags
	var checkEngine func() error
	cmd := &cobra.Command{
		Use:   "validate --schema S [--input IN | --query SQL] [--out OUT] [flags]",
		Short: "Validate an input, write the valid rows and the quarantine, report one check per rule",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkEngine(); err != nil {
				return err
			}
			rep, err := validate(cmd, &f, stderr)
			if f.format == "json" || f.report != "" {
				if rep == nil {
					rep = exec.NewReport("", "")
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
			if err != nil {
				*code = exitCode(err)
			}
			return err
		},
	}
	fl := cmd.Flags()
	f.schema.add(cmd)
	fl.StringVar(&f.input, "input", "", "input: Parquet file or glob, CSV, NDJSON, or DBFILE.duckdb:[schema.]table")
	fl.StringVar(&f.query, "query", "", "SQL whose result is the input (runs in --db when given)")
	fl.StringVar(&f.db, "db", "", "DuckDB database file the --query runs in")
	fl.StringVar(&f.out, "out", "", "table: PATH.parquet or DBFILE.duckdb:[schema.]table; without it, validate in place")
	fl.StringVar(&f.name, "name", "", "asset name (default: OUT's base name); the quarantine is <name>_quarantine")
	fl.BoolVar(&f.quarantine, "quarantine", false, "write invalid rows to the quarantine and the valid rows to the table")
	fl.StringVar(&f.granularity, "granularity", "", "checks per rule, column or schema (env TABLEGATE_CHECK_GRANULARITY; default rule)")
	fl.StringVar(&f.schemaRules, "schema-rules", "", "at column granularity: collapsed or per_rule (env TABLEGATE_SCHEMA_RULES; default collapsed)")
	fl.IntVar(&f.samples, "samples", -1, "failing rows shown per check, 0 for none (env TABLEGATE_MAX_FAILURE_SAMPLES; default 5)")
	fl.IntVar(&f.rowSample, "row-sample", -1, "valid and invalid rows shown in the report (env TABLEGATE_ROW_SAMPLE; default 0)")
	fl.BoolVar(&f.cast, "cast", false, "cast mismatched columns to the declared dtypes, strictly")
	fl.BoolVar(&f.skipMissing, "skip-missing", false, "an input that matches no file is the skipped outcome, not an error")
	fl.StringVar(&f.memoryLimit, "memory-limit", "", "DuckDB memory limit, e.g. 4GB; DuckDB spills to disk past it")
	fl.StringVar(&f.tempDir, "temp-dir", "", "where DuckDB spills (default: DuckDB's)")
	storageVersionFlag(fl, &f.storageVersion)
	fl.StringArrayVar(&f.allowDirs, "allow-dir", nil, "a folder DuckDB may read besides those of --input, --out and --db (for files a --query reads; repeatable)")
	fl.IntVar(&f.threads, "threads", 0, "DuckDB worker threads for every statement (default: every core, and 3 for key aggregates on 1-2 cores)")
	fl.StringVar(&f.report, "report", "", "write the JSON report to this file")
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	checkEngine = engineFlags(cmd)
	return cmd
}

// writeEarlyReport prints the error report of a validate command line that failed before its
// flags were parsed (an unknown flag, a stray argument), when it asks for --format json or
// --report: there is one JSON object with outcome null for every exit-2 error.
func writeEarlyReport(args []string, stdout io.Writer, err error) {
	if len(args) == 0 || args[0] != "validate" {
		return
	}
	var format, report string
	for i := 1; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		if name != "--format" && name != "--report" {
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				continue
			}
			i++
			value = args[i]
		}
		if name == "--format" {
			format = value
		} else {
			report = value
		}
	}
	if format != "json" && report == "" {
		return
	}
	rep := exec.NewReport("", "")
	rep.Error = &outcome.ErrorInfo{Type: outcome.TypeName(err), Message: err.Error()}
	data, jerr := json.MarshalIndent(rep, "", "  ")
	if jerr != nil {
		return
	}
	if report != "" {
		_ = os.WriteFile(report, append(data, '\n'), 0o644)
	}
	if format == "json" {
		fmt.Fprintln(stdout, string(data))
	}
}

func validate(cmd *cobra.Command, f *validateFlags, stderr io.Writer) (*outcome.Report, error) {
	ctx := cmd.Context()
	if f.format != "text" && f.format != "json" {
		return nil, usagef("--format %q: use text or json", f.format)
	}
	if f.schema.path == "" {
		return nil, usagef("--schema is required")
	}
	var in exec.Input
	switch {
	case f.input != "" && f.query != "":
		return nil, usagef("give --input or --query, not both")
	case f.db != "" && f.query == "":
		return nil, usagef("--db names the database a --query runs in; with --input, address a table as DBFILE.duckdb:table")
	case f.input != "":
		var err error
		if in, err = parseInput(f.input); err != nil {
			return nil, err
		}
	case f.query != "":
		in = exec.QueryInput{SQL: f.query, File: f.db}
	default:
		return nil, usagef("validate needs --input or --query")
	}
	var out exec.Output
	if f.out != "" {
		var err error
		if out, err = parseOutput(f.out); err != nil {
			return nil, err
		}
	} else if f.quarantine {
		return nil, usagef("--quarantine needs --out: the quarantine goes beside the table")
	}
	if f.name != "" {
		if err := exec.CheckAssetName(f.name); err != nil {
			return nil, usagef("--name: %v", err)
		}
	}
	settings, err := resolveSettings(cmd, f)
	if err != nil {
		return nil, err
	}
	plan, err := loadPlan(ctx, f.schema)
	if err != nil {
		return nil, err
	}
	if f.threads < 0 {
		return nil, usagef("--threads %d: give a number of threads, or 0 for every core", f.threads)
	}
	cfg := exec.Config{MemoryLimit: f.memoryLimit, TempDirectory: f.tempDir, Threads: f.threads, StorageVersion: f.storageVersion,
		Confined: true, AllowedDirectories: allowedDirs(in, out, f.allowDirs)}
	traced(&cfg, stderr)
	eng, err := exec.Open(cfg)
	if err != nil {
		return nil, engineFlagError(err, f.memoryLimit, f.storageVersion)
	}
	defer eng.Close()
	prog := newProgress(stderr)
	defer prog.finish()
	opts := settings
	opts.Cast, opts.SkipMissing, opts.Progress, opts.Warnings = f.cast, f.skipMissing, prog.update, stderr
	rep, err := eng.Run(ctx, exec.Asset{Name: f.name, Plan: plan, Input: in, Output: out, Quarantine: f.quarantine}, opts)
	if de := (*duckdb.Error)(nil); errors.As(err, &de) && de.Type == duckdb.ErrorTypeOutOfMemory {
		err = outOfMemory(err, f)
	} else {
		err = confinedHint(err)
	}
	if err != nil && rep != nil && rep.Error != nil {
		rep.Error.Message = err.Error()
	}
	return rep, err
}

// outOfMemory adds what to do to DuckDB's out-of-memory error, whose own advice (SET threads,
// SET memory_limit) is SQL a CLI user cannot type.
func outOfMemory(err error, f *validateFlags) error {
	limit := "the default memory limit (80% of RAM)"
	if f.memoryLimit != "" {
		limit = "--memory-limit " + f.memoryLimit
	}
	threads := "every core"
	if f.threads > 0 {
		threads = fmt.Sprintf("%d threads", f.threads)
	}
	msg := err.Error()
	if i := strings.Index(msg, "\n\nPossible solutions"); i >= 0 {
		const unchanged = " (the previous table is unchanged)"
		tail := ""
		if strings.HasSuffix(msg, unchanged) {
			tail = unchanged
		}
		msg = msg[:i] + tail
	}
	return &oomError{err: err, msg: fmt.Sprintf("%s. DuckDB ran out of memory under %s with %s: raise --memory-limit, or lower --threads "+
		"(DuckDB's hash aggregates need a floor of memory per thread; past it they spill to --temp-dir). "+
		"See docs/reliability.md.", strings.TrimRight(msg, ". \n"), limit, threads)}
}

// oomError keeps the original error (and its type) under the message with advice.
type oomError struct {
	msg string
	err error
}

func (e *oomError) Error() string { return e.msg }
func (e *oomError) Unwrap() error { return e.err }

// progress shows the run's phase on a terminal once a run has taken over a second.
type progress struct {
	mu      sync.Mutex // sample updates it from a timer
	done    bool       // finished: a late update shows nothing
	bar     *progressbar.ProgressBar
	started time.Time
	tty     bool
	out     io.Writer
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{started: time.Now(), tty: ok && term.IsTerminal(int(f.Fd())), out: w}
}

func (p *progress) update(pr exec.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done || !p.tty || time.Since(p.started) < time.Second && pr.Phase == "reading input" {
		return
	}
	desc := pr.Phase
	if pr.Rows > 0 {
		desc = fmt.Sprintf("%s (%d rows)", pr.Phase, pr.Rows)
	}
	if p.bar == nil {
		bar := progressbar.NewOptions(-1, progressbar.OptionSetWriter(p.out), progressbar.OptionSpinnerType(14),
			progressbar.OptionSetDescription(desc), progressbar.OptionClearOnFinish())
		p.bar = bar
		go func() {
			for !bar.IsFinished() {
				_ = bar.Add(1)
				time.Sleep(100 * time.Millisecond)
			}
		}()
		return
	}
	p.bar.Describe(desc)
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

func printText(w io.Writer, rep *outcome.Report) {
	fmt.Fprintf(w, "%s (%s): %s\n", rep.Asset, rep.Schema, *rep.Outcome)
	if *rep.Outcome != outcome.ColumnSchemaMismatch && *rep.Outcome != outcome.Skipped {
		fmt.Fprintf(w, "  rows: %d input, %d valid, %d invalid\n", rep.Rows.Input, rep.Rows.Valid, rep.Rows.Invalid)
	}
	if rep.Table.Address != "" {
		state := "not written"
		if rep.Table.Written {
			state = "written"
		}
		fmt.Fprintf(w, "  table: %s (%s)\n", rep.Table.Address, state)
	} else {
		fmt.Fprintln(w, "  table: none (validated in place)")
	}
	if rep.Quarantine.Address != "" {
		state := "not written"
		if rep.Quarantine.Written {
			state = fmt.Sprintf("written, %d rows", rep.Quarantine.Rows)
		}
		fmt.Fprintf(w, "  quarantine: %s (%s)\n", rep.Quarantine.Address, state)
	}
	failing := 0
	for _, c := range rep.Checks {
		if !c.Passed {
			failing++
		}
	}
	fmt.Fprintf(w, "  checks: %d, %d failing\n", len(rep.Checks), failing)
	for _, c := range rep.Checks {
		if c.Passed {
			continue
		}
		count := ""
		if n, ok := c.Metadata["dy_failed_count"]; ok {
			count = fmt.Sprintf("%v failed", n)
		}
		fmt.Fprintf(w, "    %-5s %-40s %-12s %s\n", c.Severity, c.Name, count, c.Description)
		if errs, ok := c.Metadata["dy_schema__errors"]; ok {
			data, _ := json.Marshal(errs)
			fmt.Fprintf(w, "          %s\n", data)
		}
	}
	if len(rep.InvalidByRules) > 0 {
		fmt.Fprintln(w, "  invalid rows by rules:")
		for _, s := range rep.InvalidByRules {
			fmt.Fprintf(w, "    %6d  %s\n", s.Count, s.Rules)
		}
	}
	fmt.Fprintf(w, "  health: %s\n", rep.Health)
}
