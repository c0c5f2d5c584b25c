package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	duckdbgo "github.com/duckdb/duckdb-go/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/internal/pipes"
	"github.com/tablegate/tablegate/schema"
)

// splitTable splits FILE.duckdb:[schema.]table.
func splitTable(addr string) (file, schemaName, table string, ok bool) {
	return schema.SplitTableAddress(addr)
}

func parseInput(in string) (tablegate.Input, error) {
	if file, s, t, ok := splitTable(in); ok {
		return tablegate.TableInput{File: file, Schema: s, Table: t}, nil
	}
	switch tablegate.DataExt(in) {
	case ".parquet":
		if !strings.EqualFold(filepath.Ext(in), ".parquet") {
			break // a compressed Parquet file: its pages are compressed already
		}
		return tablegate.ParquetInput{Path: in}, nil
	case ".csv", ".tsv":
		return tablegate.CSVInput{Path: in}, nil
	case ".ndjson", ".jsonl", ".json":
		return tablegate.NDJSONInput{Path: in}, nil
	}
	return nil, usagef("--input %q: use a Parquet file or glob (.parquet), a CSV (.csv, .tsv), NDJSON (.ndjson, .jsonl), either compressed (.gz, .zst), or DBFILE.duckdb:[schema.]table", in)
}

func parseOutput(out string) (tablegate.Output, error) {
	if file, s, t, ok := splitTable(out); ok {
		return tablegate.TableOutput{File: file, Schema: s, Table: t}, nil
	}
	if strings.EqualFold(filepath.Ext(out), ".parquet") && !strings.ContainsAny(out, "*?[") {
		return tablegate.ParquetOutput{Path: out}, nil
	}
	return nil, usagef("--out %q: use PATH.parquet or DBFILE.duckdb:[schema.]table", out)
}

type validateFlags struct {
	schema                        schemaFlags
	collection                    collectionFlags
	inputs, outs                  []string // --input and --out as given (several with --collection)
	input, query, out, name, db   string
	quarantineName                string
	quarantine, cast, skipMissing bool
	granularity, schemaRules      string
	samples, rowSample            int
	memoryLimit, tempDir          string
	timeout                       time.Duration
	storageVersion                string
	allowDirs                     []string
	threads                       int
	report, format                string
	csv                           csvFlags
	progress                      string
	stderrTTY                     bool
	// textSamples is the failing rows per check the text shows: 0 for its default, else the
	// --samples or TABLEGATE_MAX_FAILURE_SAMPLES value.
	textSamples   int
	html, history string
}

func validateCmd(con console, stdout, stderr io.Writer, code *int) *cobra.Command {
	var f validateFlags
	var checkEngine func() error
	cmd := &cobra.Command{
		Use:   "validate --schema S [--input IN | --query SQL] [--out OUT] [flags]",
		Short: "Validate an input, write the valid rows and the quarantine, report one check per rule",
		Long: "Validate an input, write the valid rows and the quarantine, report one check per rule.\n\n" +
			"Launched by Dagster (DAGSTER_PIPES_CONTEXT set), it also reports the checks and the table over Dagster Pipes.",
		Example: `  tablegate validate --schema orders.yaml --input orders.parquet
  tablegate validate --schema orders.yaml --input raw/*.parquet --out clean/orders.parquet --quarantine
  tablegate validate --schema orders.yaml --input shop.duckdb:raw_orders --format json --report report.json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) (runErr error) {
			if err := checkEngine(); err != nil {
				return err
			}
			if f.collection.path == "" {
				if err := f.single(); err != nil {
					return err
				}
			}
			// Opened first, so that Dagster hears of every run that got this far, failing ones too.
			sess, err := pipes.Open(con.env, stdout, stderr)
			if err != nil {
				*code = exitUsage
				return fmt.Errorf("%w; see docs/dagster.md", err)
			}
			// A collection's run is bounded as a single table's.
			var timeout *tablegate.TimeoutError
			if f.timeout > 0 {
				timeout = &tablegate.TimeoutError{Limit: f.timeout}
				ctx, cancel := context.WithTimeoutCause(cmd.Context(), f.timeout, timeout)
				defer cancel()
				cmd.SetContext(ctx)
				defer watchdog(ctx, func(err error) {
					if f.collection.path != "" {
						writeCollectionReport(f.format, f.report, stdout, nil, err)
					} else {
						writeErrorReport(f.format, f.report, stdout, err)
					}
					fmt.Fprintf(stderr, "tablegate: %v\n", err)
				})()
			}
			if f.collection.path != "" {
				return validateCollection(cmd, &f, sess, con, stdout, stderr, code, timeout)
			}
			var rep *tablegate.Report
			if sess != nil {
				defer func() {
					if runErr = reportToDagster(sess, rep, runErr); runErr != nil && *code == exitOK {
						*code = exitUsage // the run succeeded, Dagster did not hear of it
					}
				}()
			}
			if f.timeout < 0 {
				return usagef("--timeout %s: give a positive duration, such as 10m", f.timeout)
			}
			rep, err = validate(cmd, &f, stderr)
			if err != nil && timeout != nil && errors.Is(context.Cause(cmd.Context()), timeout) {
				// Whatever the interrupted statement said, the run ended because its time was up.
				err = timeout
				if rep != nil {
					rep.Error = nil
				}
			}
			// Also when validate failed before its run (which refuses them first): a report
			// written then would overwrite the data all the same.
			if refused := (*tablegate.ReportFileError)(nil); !errors.As(err, &refused) {
				if rerr := checkReportFiles(f.paths(cmd)); rerr != nil {
					err = errors.Join(err, rerr)
				}
			}
			if refused := (*tablegate.ReportFileError)(nil); errors.As(err, &refused) {
				f.report = ""
			}
			// Like --report: a page that cannot be written is exit 2, before the report is printed.
			if pageErr := (*tablegate.PageError)(nil); errors.As(err, &pageErr) {
				return pageErr
			}
			if f.format == "json" || f.report != "" {
				rep = tablegate.WithError(rep, err)
				if werr := tablegate.WriteReport(rep, nil, f.report, jsonTo(f.format, stdout)); werr != nil {
					return werr
				}
			}
			if f.format != "json" && rep != nil && rep.Outcome != nil {
				printText(stdout, rep, textStyle{colour: con.colour(), samples: f.textSamples})
			}
			if err != nil {
				*code = exitCode(err)
			}
			return err
		},
	}
	fl := cmd.Flags()
	f.schema.add(cmd)
	fl.StringArrayVar(&f.inputs, "input", nil, "input: Parquet file or glob, CSV, NDJSON, or DBFILE.duckdb:[schema.]table; with --collection, member=INPUT for each member")
	f.collection.add(cmd, true)
	f.csv.add(cmd)
	progressFlag(cmd, &f.progress)
	f.stderrTTY = con.stderrTTY
	fl.StringVar(&f.query, "query", "", "SQL whose result is the input (runs in --db when given)")
	fl.StringVar(&f.db, "db", "", "DuckDB database file the --query runs in")
	fl.StringArrayVar(&f.outs, "out", nil, "table: PATH.parquet or DBFILE.duckdb:[schema.]table; without it, validate in place; with --collection, member=OUT")
	fl.StringVar(&f.name, "name", "", "asset name (default: OUT's base name); the quarantine is <name>_quarantine")
	fl.BoolVar(&f.quarantine, "quarantine", false, "write invalid rows to the quarantine and the valid rows to the table")
	fl.StringVar(&f.quarantineName, "quarantine-name", "", "the quarantine's name beside the table (default <name>_quarantine; orders__error_rows is dagster-dataframely's)")
	fl.StringVar(&f.granularity, "granularity", "", "checks per rule, column or schema (env TABLEGATE_CHECK_GRANULARITY; default rule)")
	fl.StringVar(&f.schemaRules, "schema-rules", "", "at column granularity: collapsed or per_rule (env TABLEGATE_SCHEMA_RULES; default collapsed)")
	fl.IntVar(&f.samples, "samples", 0, "failing rows per check in the report, 0 for none (env TABLEGATE_MAX_FAILURE_SAMPLES; default 5, of which the text shows 3)")
	fl.IntVar(&f.rowSample, "row-sample", 0, "valid and invalid rows shown in the report and the text (env TABLEGATE_ROW_SAMPLE)")
	fl.BoolVar(&f.cast, "cast", false, "cast mismatched columns to the declared dtypes, strictly")
	fl.BoolVar(&f.skipMissing, "skip-missing", false, "an input that matches no file is the skipped outcome, not an error")
	fl.StringVar(&f.memoryLimit, "memory-limit", "", "DuckDB memory limit, e.g. 4GB; DuckDB spills to disk past it")
	fl.StringVar(&f.tempDir, "temp-dir", "", "where DuckDB spills (default: DuckDB's)")
	fl.DurationVar(&f.timeout, "timeout", 0, "stop the run past this time (e.g. 10m), exit 2 with a TimeoutError; 0 for no limit")
	storageVersionFlag(fl, &f.storageVersion)
	fl.StringArrayVar(&f.allowDirs, "allow-dir", nil, "a folder DuckDB may read besides those of --input, --out and --db (for files a --query reads; repeatable)")
	fl.IntVar(&f.threads, "threads", 0, "DuckDB worker threads for every statement (default: every core, and 3 for key aggregates on 1-2 cores)")
	fl.StringVar(&f.report, "report", "", "write the JSON report to this file")
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	fl.StringVar(&f.html, "html", "", "write the report as one self-contained HTML page to this file")
	fl.StringVar(&f.history, "history", "", "append the run to the run history in this DuckDB file (env "+historyEnv+")")
	checkEngine = engineFlags(cmd)
	return cmd
}

// single takes the one --input and --out of a single table's run.
func (f *validateFlags) single() error {
	switch {
	case len(f.inputs) > 1:
		return usagef("--input is given %d times: a single table has one input (several related tables: --collection)", len(f.inputs))
	case len(f.outs) > 1:
		return usagef("--out is given %d times: a single table has one output (several related tables: --collection)", len(f.outs))
	case f.collection.inputDir != "" || f.collection.outDir != "":
		return usagef("--input-dir and --out-dir name a collection's member files: give --collection too")
	}
	if len(f.inputs) == 1 {
		f.input = f.inputs[0]
	}
	if len(f.outs) == 1 {
		f.out = f.outs[0]
	}
	return nil
}

// writeEarlyReport prints the error report of a validate command line that failed before its
// flags were parsed (an unknown flag, a stray argument) or that a signal ended, when it asks for
// --format json or --report: there is one JSON object with outcome null for every exit-2 error.
func writeEarlyReport(args []string, stdout io.Writer, err error) {
	if len(args) == 0 || args[0] != "validate" {
		return
	}
	given := map[string]string{}
	for i := 1; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		if !strings.HasPrefix(name, "--") || hasValue {
			given[name] = value
			continue
		}
		if i+1 < len(args) && (name == "--format" || name == "--report" || !strings.HasPrefix(args[i+1], "-")) {
			i++
			given[name] = args[i]
		}
	}
	format, report := given["--format"], given["--report"]
	p := cliPaths{input: given["--input"], db: given["--db"], out: given["--out"], name: given["--name"], quarantineName: given["--quarantine-name"],
		schema: given["--schema"], contract: given["--contract"], collection: given["--collection"],
		html: given["--html"], report: report, history: given["--history"], historyRole: "--history"}
	if rerr := checkReportFiles(p); report != "" && rerr != nil {
		err, report = errors.Join(err, rerr), "" // the report would overwrite data
	}
	writeErrorReport(format, report, stdout, err)
}

// cliPaths are the paths of a validate command line that name data, declarations or report
// files.
type cliPaths struct {
	input, db, out, name, quarantineName string
	schema, contract, collection         string
	// memberInputs and memberOuts are a collection's --input and --out values (member=ADDRESS).
	memberInputs, memberOuts           []string
	html, report, history, historyRole string
}

// paths are the command line's paths (the history's from TABLEGATE_HISTORY when --history is
// not given).
func (f *validateFlags) paths(cmd *cobra.Command) cliPaths {
	p := cliPaths{input: f.input, db: f.db, out: f.out, name: f.name, quarantineName: f.quarantineName,
		schema: f.schema.path, contract: f.schema.contract.path, collection: f.collection.path,
		html: f.html, report: f.report, history: historyFile(cmd, f.history), historyRole: "--history"}
	if f.collection.path != "" {
		p.memberInputs, p.memberOuts = f.inputs, f.outs
	}
	if f.history == "" && !cmd.Flags().Changed("history") {
		p.historyRole = historyEnv
	}
	return p
}

func (p cliPaths) reportFiles() []tablegate.ReportFile {
	return []tablegate.ReportFile{{Role: "--html", Path: p.html}, {Role: "--report", Path: p.report}, {Role: p.historyRole, Path: p.history}}
}

// checkReportFiles refuses report files that would overwrite the command line's data or
// declarations, as a run does; for a command line that fails before its run, or before its
// flags are parsed. Addresses that do not parse name no data.
func checkReportFiles(p cliPaths) error {
	declared := []tablegate.DataFile{{What: "the schema file", Path: p.schema}, {What: "the data contract", Path: p.contract},
		{What: "the collection file", Path: p.collection}}
	if p.collection != "" {
		// The members' schema files and contracts, as far as the collection file reads.
		if c, _ := tablegate.LoadCollection(context.Background(), p.collection); c != nil {
			for _, m := range c.Members {
				if m.Contract != nil {
					declared = append(declared, tablegate.DataFile{What: "the data contract of member " + m.Name, Path: m.Contract.Path})
				} else if m.Schema != nil {
					declared = append(declared, tablegate.DataFile{What: "the schema file of member " + m.Name, Path: m.Schema.File})
				}
			}
		}
	}
	opts := tablegate.Options{Name: p.name, QuarantineName: p.quarantineName, RunOptions: tablegate.RunOptions{ReportFiles: p.reportFiles()}}
	var in tablegate.Input
	var out tablegate.Output
	if p.input != "" {
		in, _ = parseInput(p.input)
	} else if p.db != "" {
		in = tablegate.QueryInput{File: p.db}
	}
	if p.out != "" {
		out, _ = parseOutput(p.out)
	}
	if err := tablegate.CheckReportFiles(in, out, opts, declared...); err != nil {
		return err
	}
	opts = tablegate.Options{RunOptions: tablegate.RunOptions{ReportFiles: p.reportFiles()}}
	for _, m := range p.memberInputs {
		_, addr, _ := strings.Cut(m, "=")
		in, _ := parseInput(addr)
		if err := tablegate.CheckReportFiles(in, nil, opts); err != nil {
			return err
		}
	}
	for _, m := range p.memberOuts {
		_, addr, _ := strings.Cut(m, "=")
		out, _ := parseOutput(addr)
		if err := tablegate.CheckReportFiles(nil, out, opts); err != nil {
			return err
		}
	}
	return nil
}

// writeErrorReport writes the report of a run that ended with err and nothing else to say, to
// stdout (format json) and the report file (when given).
func writeErrorReport(format, report string, stdout io.Writer, err error) {
	if format == "json" || report != "" {
		_ = tablegate.WriteReport(nil, err, report, jsonTo(format, stdout))
	}
}

// jsonTo is where --format prints the JSON report: stdout for json, nowhere for text.
func jsonTo(format string, stdout io.Writer) io.Writer {
	if format == "json" {
		return stdout
	}
	return nil
}

func validate(cmd *cobra.Command, f *validateFlags, stderr io.Writer) (*tablegate.Report, error) {
	ctx := cmd.Context()
	if f.format != "text" && f.format != "json" {
		return nil, usagef("--format %q: use text or json", f.format)
	}
	if !f.schema.given() {
		return nil, usagef("--schema (or --contract) is required")
	}
	if err := checkProgress(f.progress); err != nil {
		return nil, err
	}
	var in tablegate.Input
	switch {
	case f.input != "" && f.query != "":
		return nil, usagef("give --input or --query, not both")
	case f.db != "" && f.query == "":
		return nil, usagef("--db names the database a --query runs in; with --input, address a table as DBFILE.duckdb:table")
	case f.input != "":
		var err error
		if in, err = f.csv.input(cmd, f.input); err != nil {
			return nil, err
		}
	case f.query != "":
		if f.csv.given(cmd) {
			return nil, usagef("--csv-null, --csv-delimiter and --csv-header apply to a CSV --input, not to --query (give read_csv's options in the query)")
		}
		in = tablegate.QueryInput{SQL: f.query, File: f.db}
	default:
		return nil, usagef("validate needs --input or --query")
	}
	var out tablegate.Output
	if f.out != "" {
		var err error
		if out, err = parseOutput(f.out); err != nil {
			return nil, err
		}
	} else if f.quarantine {
		return nil, usagef("--quarantine needs --out: the quarantine goes beside the table")
	}
	if f.name != "" {
		if err := tablegate.CheckAssetName(f.name); err != nil {
			return nil, usagef("--name: %v", err)
		}
	}
	if f.quarantineName != "" && !f.quarantine {
		return nil, usagef("--quarantine-name names the quarantine: give --quarantine too")
	}
	settings, err := resolveSettings(cmd, f)
	if err != nil {
		return nil, err
	}
	if _, env := os.LookupEnv(envName(tablegate.SettingMaxFailureSamples)); env || cmd.Flags().Changed("samples") {
		f.textSamples = max(settings.MaxFailureSamples, 0)
		if settings.MaxFailureSamples == 0 {
			f.textSamples = 5
		}
	}
	plan, err := loadPlan(ctx, f.schema)
	if err != nil {
		return nil, err
	}
	if f.threads < 0 {
		return nil, usagef("--threads %d: give a number of threads, or 0 for every core", f.threads)
	}
	cfg := tablegate.Config{MemoryLimit: f.memoryLimit, TempDirectory: f.tempDir, Threads: f.threads, StorageVersion: f.storageVersion,
		Confined: true, AllowedDirectories: allowedDirs(in, out, append(referenceDirs(plan), f.allowDirs...))}
	traced(&cfg, stderr)
	eng, err := tablegate.Open(cfg)
	if err != nil {
		return nil, engineFlagError(err, f.memoryLimit, f.storageVersion)
	}
	defer eng.Close()
	prog := newProgress(stderr, f.progress, f.stderrTTY, inputBytes(in))
	defer prog.finish()
	opts := settings
	opts.Name, opts.QuarantineName, opts.Quarantine = f.name, f.quarantineName, f.quarantine
	opts.Cast, opts.SkipMissing, opts.Progress, opts.Warnings = f.cast, f.skipMissing, prog.update, stderr
	opts.HTML, opts.History = f.html, historyFile(cmd, f.history)
	opts.ReportFiles = f.paths(cmd).reportFiles()
	opts.Facts = &tablegate.RunFacts{Input: inputText(f), Flags: givenFlags(cmd)}
	opts.AnnotateError = func(err error) error {
		if de := (*duckdbgo.Error)(nil); errors.As(err, &de) && de.Type == duckdbgo.ErrorTypeOutOfMemory {
			return outOfMemory(err, f)
		}
		return confinedHint(err)
	}
	res, err := eng.Validate(ctx, plan, in, out, opts)
	if res == nil {
		return nil, err
	}
	return res.Report, err
}

func inputText(f *validateFlags) string {
	if f.input != "" {
		return f.input
	}
	return "--query " + f.query
}

// givenFlags are the flags of the command line, as --name=value, for the page's run facts.
func givenFlags(cmd *cobra.Command) []string {
	var out []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		switch fl.Name {
		case "input", "query":
			return // shown as the input
		}
		out = append(out, "--"+fl.Name+"="+fl.Value.String())
	})
	return out
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
	const unchanged = " (the previous table is unchanged)"
	tail := ""
	if strings.HasSuffix(msg, unchanged) {
		tail = unchanged
	}
	if strings.Contains(msg, "max_temp_directory_size") {
		// DuckDB could not spill: its temp folder's disk is full. Its message names a setting
		// the CLI does not expose.
		dir := "DuckDB's default temp folder (beside the database, or .tmp in the working folder)"
		if f.tempDir != "" {
			dir = "--temp-dir " + f.tempDir
		}
		return &oomError{err: err, msg: fmt.Sprintf("%s. DuckDB spills what does not fit in %s to %s, and that disk is full: "+
			"free space there, point --temp-dir at a folder on a disk with more room, or raise --memory-limit so that less spills. "+
			"See docs/reliability.md.%s", strings.TrimRight(strings.SplitN(msg, "\n", 2)[0], ". "), limit, dir, tail)}
	}
	if i := strings.Index(msg, "\n\nPossible solutions"); i >= 0 {
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
