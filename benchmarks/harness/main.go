// Command harness measures tablegate against the floor (a plain DuckDB copy of the same columns)
// and its peers in one run, each as a whole process (wall time, peak RSS and CPU time, median of
// runs), and writes into -results (by default the scratch folder's results/): a Markdown table
// of ratios with the speed and memory targets, where traced runs spend their time, the raw JSON and an
// SVG plot.
//
//	go run ./benchmarks/harness                          # 1M and 10M rows x 5/15/40 rules x both storages
//	go run ./benchmarks/harness -rows 1M,10M,30M -runs 3      # the full grid (52 min)
//	go run ./benchmarks/harness -input data.parquet -schema s.yaml   # your own data and rules
//	go run ./benchmarks/harness -render -results DIR     # redo DIR/results.md from its results.json
//	go run ./benchmarks/harness -guard 2.0               # CI: 1M rows, fail if full/floor > 2.0
//
// It re-executes itself for the floor and the per-rule-query approach (subcommands `floor`,
// `perrule`, `load`), so every approach runs as its own process on the same DuckDB build.
package main

import (
	"context"
	"crypto/sha256"
	gosql "database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

func main() {
	if len(os.Args) > 1 {
		var err error
		switch os.Args[1] {
		case "floor":
			err = floorMain(os.Args[2:])
		case "perrule":
			err = perRuleMain(os.Args[2:])
		case "load":
			err = loadMain(os.Args[2:])
		default:
			err = benchMain(os.Args[1:])
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "harness:", err)
			os.Exit(1)
		}
		return
	}
	if err := benchMain(nil); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
}

type config struct {
	rows        []int64
	rules       []int
	sets        []string // named rule sets keyed on strings (order15, …), on stringSchema's rows
	storages    []string
	approaches  []string
	runs        int
	work        string
	results     string
	guard       float64
	invalidRate float64
	memoryLimit string
	profile     bool
	traces      int          // traced runs per profiled cell
	custom      *customInput // -input and -schema: the user's data instead of the grid
}

type customInput struct{ input, schema string }

// measurement is one approach on one cell, over several runs.
type measurement struct {
	Rows     int64     `json:"rows"`
	Rules    int       `json:"rules"`
	Set      string    `json:"set,omitempty"` // a named rule set on the string-keyed data; "" for benchN
	Storage  string    `json:"storage"`
	Approach string    `json:"approach"`
	Seconds  []float64 `json:"seconds"`
	RSSMB    []float64 `json:"rss_mb"`
	// CPU is the process's user plus system time: how much work the run did, however well it
	// kept the cores busy.
	CPU    []float64 `json:"cpu_s,omitempty"`
	Median float64   `json:"median_s"`
	MedRSS float64   `json:"median_rss_mb"`
	MedCPU float64   `json:"median_cpu_s,omitempty"`
	Error  string    `json:"error,omitempty"`
}

func parseInts(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ToUpper(f))
		mult := int64(1)
		switch {
		case strings.HasSuffix(f, "M"):
			mult, f = 1_000_000, strings.TrimSuffix(f, "M")
		case strings.HasSuffix(f, "K"):
			mult, f = 1_000, strings.TrimSuffix(f, "K")
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a count", f)
		}
		out = append(out, n*mult)
	}
	return out, nil
}

func benchMain(args []string) error {
	fs := flag.NewFlagSet("harness", flag.ExitOnError)
	rows := fs.String("rows", "1M,10M", "row counts (1M, 10M, 30M, …)")
	rules := fs.String("rules", "5,15,40,"+strings.Join(stringSets, ","), "rule sets: 5, 15, 40 (benchmarks/schemas/benchN.yaml) and the string-keyed "+strings.Join(stringSets, ", "))
	storages := fs.String("storage", "parquet,duckdb", "parquet (Parquet -> Parquet) and/or duckdb (table -> table)")
	approaches := fs.String("approaches", "floor,counts,full,perrule,dataframely", "what to measure; also counts-checks and full-checks: the 15-rule cells' counts and full runs with five table checks and a reference of 1M keys, each reported over the run without them")
	runs := fs.Int("runs", 3, "runs per measurement (the median is reported)")
	work := fs.String("work", filepath.Join(os.TempDir(), "tablegate-bench"), "scratch folder for data and outputs")
	results := fs.String("results", "", "where the results go (default: WORK/results; -results benchmarks/results for the published run)")
	guard := fs.Float64("guard", 0, "regression guard: measure 1M rows x 15 rules Parquet->Parquet and fail when full/floor exceeds this")
	rate := fs.Float64("invalid-rate", 0.03, "share of generated rows that break a rule")
	mem := fs.String("memory-limit", "", "DuckDB memory limit for tablegate (e.g. 4GB)")
	renderOnly := fs.Bool("render", false, "only redo results.md and the plot from the results.json in -results (no measuring)")
	prof := fs.Bool("profile", true, "after measuring, trace full runs per storage (15 rules) into phases and check the valid rows' order")
	traces := fs.Int("traces", 3, "traced runs per profiled cell; the one with the median wall time is reported")
	input := fs.String("input", "", "measure your own data instead of the grid: a Parquet file or glob, or FILE.duckdb:table (with -schema)")
	schemaFile := fs.String("schema", "", "the schema to validate -input with")
	collectionRows := fs.String("collection", "", "instead of the grid: N orders, 3N items and N/10 customers (schemas/collection/shop.yaml), the collection run against its three single-member runs summed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *results == "" {
		// Never into the source tree unless asked: a run from a clone leaves the repository as it was.
		*results = filepath.Join(*work, "results")
	}
	if *renderOnly {
		return renderMain(*results)
	}
	if *traces < 1 {
		return fmt.Errorf("-traces %d: at least 1 (-profile=false traces none)", *traces)
	}
	// Absolute, so that the binary built there is the one run: a bare name would be looked up
	// in PATH.
	workDir, err := filepath.Abs(*work)
	if err != nil {
		return err
	}
	cfg := config{runs: *runs, work: workDir, results: *results, guard: *guard, invalidRate: *rate, memoryLimit: *mem, profile: *prof, traces: *traces}
	if cfg.rows, err = parseInts(*rows); err != nil {
		return err
	}
	for _, r := range strings.Split(*rules, ",") {
		r = strings.TrimSpace(r)
		if n, err := strconv.Atoi(r); err == nil {
			cfg.rules = append(cfg.rules, n)
		} else if slices.Contains(stringSets, r) {
			cfg.sets = append(cfg.sets, r)
		} else {
			return fmt.Errorf("-rules: %q is neither a count of benchN.yaml nor one of %s", r, strings.Join(stringSets, ", "))
		}
	}
	cfg.storages = strings.Split(*storages, ",")
	cfg.approaches = strings.Split(*approaches, ",")
	if (*input == "") != (*schemaFile == "") {
		return fmt.Errorf("-input and -schema go together")
	}
	if *input != "" && cfg.guard > 0 {
		return fmt.Errorf("-guard measures the generated 1M rows; it does not take -input")
	}
	if *collectionRows != "" {
		n, err := parseInts(*collectionRows)
		if err != nil || len(n) != 1 || n[0] < 10 {
			return fmt.Errorf("-collection %q: one count of orders, at least 10", *collectionRows)
		}
		return benchCollection(context.Background(), cfg, n[0])
	}
	if *input != "" {
		cfg.custom = &customInput{input: *input, schema: *schemaFile}
		// dataframely needs a schema of its own, written for the grid's rule sets.
		cfg.approaches = slices.DeleteFunc(cfg.approaches, func(a string) bool { return a == "dataframely" })
	}
	if cfg.guard > 0 {
		cfg.rows, cfg.rules, cfg.sets, cfg.storages, cfg.approaches = []int64{1_000_000}, []int{15}, nil, []string{"parquet"}, []string{"floor", "full"}
		if cfg.runs < 7 {
			cfg.runs = 7
		}
	}
	return bench(context.Background(), cfg)
}

type tools struct {
	tablegate string
	harness   string
	python    string
}

// buildTablegate builds the CLI into work.
func buildTablegate(ctx context.Context, work string) (tools, error) {
	t := tools{tablegate: filepath.Join(work, "tablegate")}
	// Without VCS stamping, the same source builds the same bytes whatever the commit or a dirty
	// tree, so the generated data's stamp (prepare) changes only with the code.
	build := exec.CommandContext(ctx, "go", "build", "-buildvcs=false", "-o", t.tablegate, "./cmd/tablegate")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return t, fmt.Errorf("build tablegate (run the harness from the repository root): %w", err)
	}
	return t, nil
}

func bench(ctx context.Context, cfg config) error {
	if err := os.MkdirAll(cfg.work, 0o755); err != nil {
		return err
	}
	t, err := buildTablegate(ctx, cfg.work)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	t.harness = self
	if slices.Contains(cfg.approaches, "dataframely") {
		t.python = findDataframely()
		if t.python == "" {
			fmt.Fprintln(os.Stderr, "harness: dataframely/polars not importable by python3; skipping that peer (pip install dataframely polars)")
		}
	}

	var cells []cell
	if cfg.custom != nil {
		cells, err = customCell(ctx, *cfg.custom)
	} else {
		cells, err = gridCells(ctx, t, cfg)
	}
	if err != nil {
		return err
	}
	var all []measurement
	for _, c := range cells {
		all = append(all, measureCell(ctx, t, cfg, c, measure)...)
	}
	if cfg.guard > 0 {
		return checkGuard(all, cfg.guard)
	}
	r := results{
		Machine: machine(), Cores: cores(), Peers: pyVersions(t.python), DuckDB: duckdb.DuckDBVersion(), Runs: cfg.runs, InvalidRate: cfg.invalidRate,
		Rows: cfg.rows, Rules: cfg.rules, Sets: cfg.sets, Storages: cfg.storages, Measurements: all,
	}
	if cfg.custom != nil {
		c := cells[0]
		r.Schema, r.Input = c.schema, c.in
		r.Rows, r.Rules, r.Sets, r.Storages = []int64{c.rows}, []int{c.rules}, nil, []string{c.storage}
	}
	if cfg.profile && slices.Contains(cfg.approaches, "full") {
		for _, c := range cells {
			if !c.profile {
				continue
			}
			p, err := profile(ctx, command(t, cfg, "full", c), c, outPath(cfg.work, c.storage, "orders"), cfg.traces, func() { cleanOutputs(cfg.work) })
			if err != nil {
				// The measurements stand without the traced run: keep them.
				return errors.Join(err, writeResults(cfg.results, r))
			}
			fmt.Fprintf(os.Stderr, "%9d rows %2d rules %-7s traced run   %7.2fs (of %d), order: %s\n", c.rows, c.rules, c.storage, p.Wall, cfg.traces, p.order())
			r.Profiles = append(r.Profiles, p)
		}
	}
	if err := writeResults(cfg.results, r); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "harness: results in %s\n", cfg.results)
	return nil
}

// cell is one input under one rule set, measured by every approach.
type cell struct {
	rows    int64
	rules   int
	set     string // a named rule set (stringSets), "" for benchN
	storage string // parquet or duckdb
	schema  string // the schema file
	in      string // the input as tablegate takes it
	profile bool   // traced after the measurements
	orderBy string // a column unique among the valid rows, to check their order by; "" skips the check
	// checks is the schema the counts-checks and full-checks approaches run: the cell's, with
	// five table checks and a reference of 1M keys (checkedSchema); "" for the cells without one.
	checks string
}

// gridCells generates the data of each row count (once; same seed, same bytes) and lists the
// grid's cells. The 15-rule cells at the targets' row count are the ones traced.
func gridCells(ctx context.Context, t tools, cfg config) ([]cell, error) {
	var cells []cell
	for _, n := range cfg.rows {
		var data, db string
		var err error
		if len(cfg.rules) > 0 {
			// Only the benchN rule sets read this data: a run of the string-keyed sets alone
			// generates none.
			if data, db, err = gridData(ctx, t, cfg, n, benchSchema, fmt.Sprintf("data_%d", n)); err != nil {
				return nil, err
			}
		}
		for _, rules := range cfg.rules {
			for _, storage := range cfg.storages {
				schemaFile := filepath.Join("benchmarks", "schemas", fmt.Sprintf("bench%d.yaml", rules))
				s, err := schema.LoadFile(schemaFile)
				if err != nil {
					return nil, err
				}
				c := cell{rows: n, rules: rules, storage: storage, in: data, schema: schemaFile,
					profile: rules == 15 && n == targetRows(cfg.rows), orderBy: orderKey(s)}
				if rules == 15 && (slices.Contains(cfg.approaches, "counts-checks") || slices.Contains(cfg.approaches, "full-checks")) {
					if c.checks, err = checkedSchema(ctx, cfg, schemaFile, data, n); err != nil {
						return nil, err
					}
				}
				if storage == "duckdb" {
					c.in = db + ":t"
				}
				cells = append(cells, c)
			}
		}
		if len(cfg.sets) == 0 {
			continue
		}
		data, db, err = gridData(ctx, t, cfg, n, stringSchema, fmt.Sprintf("strings_%d", n))
		if err != nil {
			return nil, err
		}
		for _, set := range cfg.sets {
			schemaFile := filepath.Join("benchmarks", "schemas", set+".yaml")
			s, err := schema.LoadFile(schemaFile)
			if err != nil {
				return nil, err
			}
			plan, err := compile.Compile(s)
			if err != nil {
				return nil, err
			}
			for _, storage := range cfg.storages {
				c := cell{rows: n, rules: len(plan.Rules), set: set, storage: storage, in: data, schema: schemaFile, orderBy: orderKey(s)}
				if storage == "duckdb" {
					c.in = db + ":t"
				}
				cells = append(cells, c)
			}
		}
	}
	return cells, nil
}

// The schemas the grid's data is generated from: benchSchema for the benchN rule sets, stringSchema
// for the string-keyed stringSets (extra columns in the data are no matter to a rule set).
const (
	benchSchema  = "benchmarks/schemas/bench40.yaml"
	stringSchema = "benchmarks/schemas/strings.yaml"
)

// stringSets are the rule sets keyed on strings: an order number primary key under a regex, a
// UUID one, a (String, Date) one, each with a group rule on a String column of about 1M values.
var stringSets = []string{"order15", "uuid15", "pair15"}

// gridData generates a row count's data from the schema file (once; same seed, same bytes) as
// NAME.parquet in the scratch folder and, when the grid has DuckDB cells, loads it into
// NAME.duckdb (table t).
func gridData(ctx context.Context, t tools, cfg config, n int64, schemaFile, name string) (data, db string, err error) {
	data = filepath.Join(cfg.work, name+".parquet")
	db = filepath.Join(cfg.work, name+".duckdb")
	// The DuckDB copy goes with the data: made again with it, and renamed into place only
	// once loaded, so an interrupted load leaves nothing to reuse.
	if err := prepare(ctx, t, cfg, n, schemaFile, data, db, db+".wal"); err != nil {
		return "", "", err
	}
	if slices.Contains(cfg.storages, "duckdb") {
		if _, err := os.Stat(db); err != nil {
			tmp := db + ".loading"
			if err := removeAll(tmp, tmp+".wal"); err != nil {
				return "", "", err
			}
			if err := runQuiet(ctx, t.harness, "load", data, tmp); err != nil {
				return "", "", fmt.Errorf("load %s into DuckDB: %w", data, err)
			}
			if err := os.Rename(tmp, db); err != nil {
				return "", "", err
			}
		}
	}
	return data, db, nil
}

// customCell is the user's own input and schema (-input, -schema): its rows are counted, and the
// order check keys on the schema's primary key when it is one column.
func customCell(ctx context.Context, c customInput) ([]cell, error) {
	s, err := schema.LoadFile(c.schema)
	if err != nil {
		return nil, err
	}
	plan, err := compile.Compile(s)
	if err != nil {
		return nil, err
	}
	storage := "parquet"
	if parseTarget(c.input).table != "" {
		storage = "duckdb"
	}
	rows, err := countRows(ctx, storage, c.input)
	if err != nil {
		return nil, fmt.Errorf("count the rows of %s: %w", c.input, err)
	}
	return []cell{{rows: rows, rules: len(plan.Rules), storage: storage, schema: c.schema, in: c.input, profile: true, orderBy: orderKey(s)}}, nil
}

// orderKey is the column the order check finds each valid row's input row by: the primary key
// when it is one column (the primary key rule leaves its values unique among the valid rows).
func orderKey(s *schema.Schema) string {
	if pk := s.PrimaryKey(); len(pk) == 1 {
		return pk[0]
	}
	return ""
}

// prepare generates the data once per row count and generator. The same seed gives the same
// bytes only from the same generator, so a file beside a stamp of another build, schema or
// arguments (or none) is made again rather than silently reused, and the files derived from it
// are removed first.
func prepare(ctx context.Context, t tools, cfg config, n int64, schemaFile, data string, derived ...string) error {
	args := []string{"sample", "--schema", schemaFile,
		"--rows", fmt.Sprint(n), "--invalid-rate", fmt.Sprint(cfg.invalidRate), "--seed", "1", "--out", data}
	stamp, err := dataStamp([]string{t.tablegate, schemaFile}, args)
	if err != nil {
		return err
	}
	stampFile := data + ".stamp"
	if old, err := os.ReadFile(stampFile); err == nil && string(old) == stamp {
		if _, err := os.Stat(data); err == nil {
			return nil
		}
	}
	if err := removeAll(append([]string{stampFile, data}, derived...)...); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "harness: generating %d rows into %s\n", n, data)
	if err := runQuiet(ctx, t.tablegate, args...); err != nil {
		return fmt.Errorf("generate %s: %w", data, err)
	}
	return os.WriteFile(stampFile, []byte(stamp), 0o644)
}

// removeAll removes the files; one that does not exist is no error.
func removeAll(files ...string) error {
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// dataStamp identifies what generates a data file: the tablegate binary, the schemas' text and
// the arguments.
func dataStamp(files []string, args []string) (string, error) {
	h := sha256.New()
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, in)
		in.Close()
		if err != nil {
			return "", fmt.Errorf("read %s: %w", f, err)
		}
	}
	for _, a := range args {
		h.Write([]byte(a + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func outPath(work, storage, name string) string {
	if storage == "duckdb" {
		return filepath.Join(work, "out.duckdb") + ":" + name
	}
	return filepath.Join(work, "out", name+".parquet")
}

// command is the process that measures one approach on a cell, or nil when it does not apply.
func command(t tools, cfg config, approach string, c cell) []string {
	out := outPath(cfg.work, c.storage, "orders")
	switch approach {
	case "floor":
		return []string{t.harness, "floor", c.storage, c.schema, c.in, out}
	case "counts":
		return withMem(cfg, []string{t.tablegate, "validate", "--schema", c.schema, "--input", c.in, "--samples", "0"})
	case "full":
		return withMem(cfg, []string{t.tablegate, "validate", "--schema", c.schema, "--input", c.in, "--out", out, "--quarantine", "--samples", "0"})
	case "counts-checks":
		if c.checks == "" {
			return nil
		}
		return withMem(cfg, []string{t.tablegate, "validate", "--schema", c.checks, "--input", c.in, "--samples", "0"})
	case "full-checks":
		if c.checks == "" {
			return nil
		}
		return withMem(cfg, []string{t.tablegate, "validate", "--schema", c.checks, "--input", c.in, "--out", out, "--quarantine", "--samples", "0"})
	case "perrule":
		return []string{t.harness, "perrule", c.storage, c.schema, c.in, out}
	case "dataframely":
		if t.python == "" || c.storage != "parquet" {
			return nil
		}
		set := c.set
		if set == "" {
			set = fmt.Sprint(c.rules)
		}
		return []string{t.python, filepath.Join("benchmarks", "peers", "dataframely_bench.py"), "--rules", set, "--input", c.in, "--out", filepath.Join(cfg.work, "out")}
	}
	return nil
}

func withMem(cfg config, args []string) []string {
	if cfg.memoryLimit != "" {
		args = append(args, "--memory-limit", cfg.memoryLimit)
	}
	return args
}

func cleanOutputs(work string) {
	_ = os.RemoveAll(filepath.Join(work, "out"))
	_ = os.Remove(filepath.Join(work, "out.duckdb"))
	_ = os.Remove(filepath.Join(work, "out.duckdb.wal"))
	_ = os.MkdirAll(filepath.Join(work, "out"), 0o755)
}

// usage is what one process took.
type usage struct {
	secs, rssMB, cpuSecs float64
}

// measure runs a process and returns its wall time, peak RSS and CPU time. Exit status 1 (the
// data failed) is a normal result for validation runs.
func measure(ctx context.Context, args []string) (usage, error) {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	secs := time.Since(start).Seconds()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			return usage{}, fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, lastLine(stderr.String()))
		}
	}
	u := usage{secs: secs, cpuSecs: (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		u.rssMB = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	return u, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func runQuiet(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = os.Stderr
	return cmd.Run()
}

// measureCell runs a cell's approaches in rounds, one run of each per round, rather than one
// approach's runs back to back: the machine's speed drifts over minutes, and rounds let the
// drift reach every approach alike, so their ratios hold still better than their times. Every
// other round goes in reverse order, so that what one process leaves behind (dirty pages, a
// warm cache) does not always fall on the same approach.
func measureCell(ctx context.Context, t tools, cfg config, c cell, measure func(context.Context, []string) (usage, error)) []measurement {
	var ms []measurement
	var cmds [][]string
	for _, approach := range cfg.approaches {
		if cmd := command(t, cfg, approach, c); cmd != nil {
			ms = append(ms, measurement{Rows: c.rows, Rules: c.rules, Set: c.set, Storage: c.storage, Approach: approach})
			cmds = append(cmds, cmd)
		}
	}
	for run := 0; run < cfg.runs; run++ {
		for k := range ms {
			i := k
			if run%2 == 1 {
				i = len(ms) - 1 - k
			}
			m := &ms[i]
			if m.Error != "" {
				continue
			}
			cleanOutputs(cfg.work)
			u, err := measure(ctx, cmds[i])
			if err != nil {
				m.Error = err.Error()
				continue
			}
			m.Seconds = append(m.Seconds, u.secs)
			m.RSSMB = append(m.RSSMB, u.rssMB)
			m.CPU = append(m.CPU, u.cpuSecs)
		}
	}
	for i := range ms {
		m := &ms[i]
		m.Median, m.MedRSS, m.MedCPU = median(m.Seconds), median(m.RSSMB), median(m.CPU)
		fmt.Fprintf(os.Stderr, "%9d rows %2d rules %-7s %-7s %-12s %7.2fs %7.0f MB %7.2f CPU s %s\n", c.rows, c.rules, c.set, c.storage, m.Approach, m.Median, m.MedRSS, m.MedCPU, m.Error)
	}
	for _, pair := range [][2]string{{"counts-checks", "counts"}, {"full-checks", "full"}} {
		with, without := findIn(ms, c.rows, c.rules, c.set, c.storage, pair[0]), findIn(ms, c.rows, c.rules, c.set, c.storage, pair[1])
		if with == nil || without == nil || len(with.Seconds) == 0 || len(with.Seconds) != len(without.Seconds) {
			continue
		}
		wall, wlo, whi := pairedRatio(with.Seconds, without.Seconds)
		cpu, clo, chi := pairedRatio(with.CPU, without.CPU)
		fmt.Fprintf(os.Stderr, "%9d rows %2d rules %-7s %-7s %s / %s: wall %.2fx (%.2f-%.2f), CPU %.2fx (%.2f-%.2f), median of %d rounds\n",
			c.rows, c.rules, c.set, c.storage, pair[0], pair[1], wall, wlo, whi, cpu, clo, chi, len(with.Seconds))
	}
	return ms
}

// checkedSchema writes, beside a copy of the rule set schemaFile (a schema extends only files in
// its own folder), a schema that extends it with five table checks (volume, freshness, a bounded
// mean, an anomaly metric, the invalid share) and a reference of customer_id to 1M keys (every
// customer of the data, padded with absent ones), for the counts-checks and full-checks
// approaches; it returns the schema's path.
func checkedSchema(ctx context.Context, cfg config, schemaFile, data string, n int64) (string, error) {
	dir := filepath.Join(cfg.work, fmt.Sprintf("checks_%d", n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	base, err := os.ReadFile(schemaFile)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(schemaFile)), base, 0o644); err != nil {
		return "", err
	}
	ref := filepath.Join(dir, "customers.parquet")
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, fmt.Sprintf(`COPY (SELECT id FROM (SELECT DISTINCT customer_id AS id FROM read_parquet(%s) WHERE customer_id IS NOT NULL
		UNION ALL SELECT -1 - range FROM range(1000000)) LIMIT 1000000) TO %s (FORMAT parquet)`, sql.String(data), sql.String(ref))); err != nil {
		return "", fmt.Errorf("write the reference %s: %w", ref, err)
	}
	doc := fmt.Sprintf(`schema: Checked
extends: %s
rules:
  - name: known_customer
    references: {columns: [customer_id], input: customers.parquet, to: [id]}
table_checks:
  - {name: enough_rows, sql: "count(*) >= 1000"}
  - {name: fresh, sql: "max(created_at) >= TIMESTAMP '2020-01-01'"}
  - {name: amount_mean, metric: "avg(amount) FILTER (WHERE isfinite(amount))", min: -1e9, max: 1e9}
  - {name: volume, metric: "count(*)", anomaly: {}}
  - {name: few_invalid, sql: "invalid_rows() <= 0.5 * count(*)"}
`, filepath.Base(schemaFile))
	out := filepath.Join(dir, "checked.yaml")
	return out, os.WriteFile(out, []byte(doc), 0o644)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func findDataframely() string {
	for _, py := range []string{"python3", "python"} {
		path, err := exec.LookPath(py)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import dataframely, polars").Run() == nil {
			return path
		}
	}
	return ""
}

func checkGuard(all []measurement, limit float64) error {
	var floor, full []float64
	for _, m := range all {
		if m.Error != "" {
			return fmt.Errorf("%s failed: %s", m.Approach, m.Error)
		}
		switch m.Approach {
		case "floor":
			floor = m.Seconds
		case "full":
			full = m.Seconds
		}
	}
	if len(full) == 0 || len(full) != len(floor) {
		return fmt.Errorf("the guard needs as many full runs as floor runs, and some: got %d and %d", len(full), len(floor))
	}
	ratio, lo, hi := pairedRatio(full, floor)
	fmt.Printf("regression guard: 1M rows x 15 rules Parquet->Parquet: full %.2fs, floor %.2fs, ratio %.2f (runs %.2f-%.2f, limit %.2f)\n", median(full), median(floor), ratio, lo, hi, limit)
	if ratio > limit {
		return fmt.Errorf("full validation is %.2fx the plain copy, past the guard's %.2fx: a window function or a per-rule scan may have crept into the hot path", ratio, limit)
	}
	return nil
}

// pairedRatio is the median of num[i]/den[i] over runs measured in the same round, with its
// range; num and den are equally long and not empty. On a busy machine the fastest runs of each
// approach may come from different moments (a guard run's minimums ranged 1.52-1.89x with
// nothing changed); paired runs share their moment.
func pairedRatio(num, den []float64) (ratio, lo, hi float64) {
	rs := make([]float64, len(num))
	for i := range rs {
		rs[i] = num[i] / den[i]
	}
	return median(rs), slices.Min(rs), slices.Max(rs)
}

func machine() string {
	mem := ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		line, _, _ := strings.Cut(string(data), "\n")
		f := strings.Fields(line)
		if len(f) >= 2 {
			kb, _ := strconv.ParseFloat(f[1], 64)
			mem = fmt.Sprintf(", %.0f GiB memory", kb/1024/1024)
		}
	}
	return fmt.Sprintf("%d cores%s, %s/%s, %s", cores(), mem, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// cores is how many CPUs the runs may use: GOMAXPROCS's default follows a container's CPU quota
// (Go 1.25+), where runtime.NumCPU counts the machine's.
func cores() int { return runtime.GOMAXPROCS(0) }

// results is one harness run as results.json keeps it; results.md and the plot are rendered from
// it, so -render can redo them without measuring again.
type results struct {
	Machine      string        `json:"machine"`
	Cores        int           `json:"cores,omitempty"`  // 0 in runs from before it was recorded
	Peers        string        `json:"peers"`            // dataframely and polars versions
	DuckDB       string        `json:"duckdb,omitempty"` // the DuckDB of tablegate and the floor; "" in runs from before it was recorded (1.5.6)
	Runs         int           `json:"runs"`
	InvalidRate  float64       `json:"invalid_rate"`
	Rows         []int64       `json:"rows"`
	Rules        []int         `json:"rules"`
	Sets         []string      `json:"sets,omitempty"` // named rule sets on the string-keyed data
	Storages     []string      `json:"storages"`
	Schema       string        `json:"schema,omitempty"` // a run over -input: its schema and input
	Input        string        `json:"input,omitempty"`
	Measurements []measurement `json:"measurements"`
	Profiles     []profileRun  `json:"profiles,omitempty"`
}

func writeResults(dir string, r results) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), data, 0o644); err != nil {
		return err
	}
	return render(dir, r)
}

func render(dir string, r results) error {
	if err := os.WriteFile(filepath.Join(dir, "results.md"), []byte(markdown(r)), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "time_vs_rows.svg"), []byte(plot(r.Measurements)), 0o644)
}

// renderMain redoes results.md and the plot from the results.json in dir.
func renderMain(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		return err
	}
	var r results
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, "results.json"), err)
	}
	return render(dir, r)
}

// find is the measurement of a benchN cell (rules rules), findSet that of a named set's.
func find(all []measurement, rows int64, rules int, storage, approach string) *measurement {
	return findIn(all, rows, rules, "", storage, approach)
}

func findSet(all []measurement, rows int64, set, storage, approach string) *measurement {
	return findIn(all, rows, -1, set, storage, approach)
}

func findIn(all []measurement, rows int64, rules int, set, storage, approach string) *measurement {
	for i := range all {
		m := &all[i]
		if m.Rows == rows && (rules < 0 || m.Rules == rules) && m.Set == set && m.Storage == storage && m.Approach == approach && m.Error == "" && m.Median > 0 {
			return m
		}
	}
	return nil
}

func ratio(a, b *measurement) string {
	if a == nil || b == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a.Median/b.Median)
}

func markdown(r results) string {
	all := r.Measurements
	var b strings.Builder
	var sources []string
	if len(r.Rules) > 0 {
		sources = append(sources, fmt.Sprintf("`tablegate sample --schema %s --invalid-rate %g --seed 1` (13 columns)", benchSchema, r.InvalidRate))
	}
	if len(r.Sets) > 0 {
		sources = append(sources, fmt.Sprintf("for %s, `tablegate sample --schema %s --invalid-rate %g --seed 1` (14 columns, 13 of them read)", strings.Join(r.Sets, ", "), stringSchema, r.InvalidRate))
	}
	data := strings.Join(sources, "; ")
	if r.Input != "" {
		data = fmt.Sprintf("`%s`, validated with `%s`", r.Input, r.Schema)
	}
	duck := r.DuckDB
	if duck == "" {
		duck = "v1.5.6"
	}
	fmt.Fprintf(&b, "# Benchmark results\n\nMachine: %s. DuckDB %s. Runs per cell: %d, medians; whole-process wall time, peak RSS and CPU time (user + system). Data: %s.\n\n",
		r.Machine, duck, r.Runs, data)
	fmt.Fprintf(&b, "Approaches: **floor** = plain DuckDB COPY (Parquet) or CREATE TABLE AS (DuckDB) of the same columns; **counts** = `tablegate validate` in place (no outputs); **full** = table + quarantine + counts; **perrule** = one `count(*) … WHERE NOT rule` query per rule, then the two outputs (the Soda / Great Expectations / dbt shape), from the same compiled rules; **dataframely** = dataframely %s on polars, `filter` + write valid rows and failures (Parquet only; it needs a schema of its own, so not for -input).\n\n", r.Peers)
	b.WriteString("| rows | rules | storage | floor s | counts s | full s | perrule s | dataframely s | full / floor | counts / floor | perrule / full | dataframely / full | full RSS MB | dataframely RSS MB | floor CPU s | full CPU s | dataframely CPU s |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	secs := func(m *measurement) string {
		if m == nil {
			return "–"
		}
		return fmt.Sprintf("%.2f", m.Median)
	}
	rss := func(m *measurement) string {
		if m == nil {
			return "–"
		}
		return fmt.Sprintf("%.0f", m.MedRSS)
	}
	cpu := func(m *measurement) string {
		if m == nil || m.MedCPU == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", m.MedCPU)
	}
	row := func(n int64, rules string, s string, get func(approach string) *measurement) {
		floor, counts, full, per, dy := get("floor"), get("counts"), get("full"), get("perrule"), get("dataframely")
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			n, rules, s, secs(floor), secs(counts), secs(full), secs(per), secs(dy),
			ratio(full, floor), ratio(counts, floor), ratio(per, full), ratio(dy, full), rss(full), rss(dy), cpu(floor), cpu(full), cpu(dy))
	}
	for _, n := range r.Rows {
		for _, rules := range r.Rules {
			for _, s := range r.Storages {
				row(n, fmt.Sprint(rules), s, func(a string) *measurement { return find(all, n, rules, s, a) })
			}
		}
		for _, set := range r.Sets {
			for _, s := range r.Storages {
				row(n, set, s, func(a string) *measurement { return findSet(all, n, set, s, a) })
			}
		}
	}
	if r.Input == "" {
		b.WriteString(goalsMarkdown(all, r.Rows, r.Cores))
	}
	b.WriteString(profileMarkdown(r.Profiles, all))
	var errs []string
	for _, m := range all {
		if m.Error != "" {
			errs = append(errs, fmt.Sprintf("- %d rows, %d rules %s, %s, %s: %s", m.Rows, m.Rules, m.Set, m.Storage, m.Approach, m.Error))
		}
	}
	if len(errs) > 0 {
		b.WriteString("\nFailed measurements:\n\n" + strings.Join(errs, "\n") + "\n")
	}
	return b.String()
}

// pyVersions names the peer's versions; py is the Python the run used for it, "" when it ran
// without dataframely (not asked for, or not installed).
func pyVersions(py string) string {
	if py == "" {
		return "(not measured)"
	}
	out, err := exec.Command(py, "-c", "import dataframely, polars; print(dataframely.__version__, '/ polars', polars.__version__)").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
