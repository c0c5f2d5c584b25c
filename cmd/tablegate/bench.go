package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/schema"
)

// benchResult is what `tablegate bench` measures, as its JSON file has it. Times are medians
// over the runs, in seconds.
type benchResult struct {
	Schema string  `json:"schema"`
	Input  string  `json:"input"`
	Rows   int64   `json:"rows"`
	Runs   int     `json:"runs"`
	Floor  float64 `json:"floor_s"`  // a plain DuckDB copy of the same columns to Parquet
	Counts float64 `json:"counts_s"` // validate in place: every rule, counts, no outputs
	Full   float64 `json:"full_s"`   // validate to Parquet with a quarantine
	// CountsRatio and FullRatio are Counts and Full over Floor.
	CountsRatio float64      `json:"counts_over_floor"`
	FullRatio   float64      `json:"full_over_floor"`
	Families    []familyCost `json:"rule_families"`
	// Noise is half the spread of the counts-only runs: a family that adds less is not told
	// apart from the run-to-run variation.
	Noise float64 `json:"noise_s"`
}

// familyCost is what one rule family adds to a counts-only run: the run without it, subtracted.
type familyCost struct {
	Family string   `json:"family"` // a column rule kind (min, regex, …) or a schema-level rule's name
	Rules  []string `json:"rules"`
	// Without is the counts-only time without the family; Adds is Counts minus Without.
	Without float64 `json:"without_s"`
	Adds    float64 `json:"adds_s"`
	Error   string  `json:"error,omitempty"` // why the family could not be measured
}

func benchCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		sf                schemaFlags
		input, outDir     string
		memoryLimit, mode string
		runs, threads     int
		csv               csvFlags
	)
	cmd := &cobra.Command{
		Use:   "bench --schema S --input IN [--runs N] [--out-dir D]",
		Short: "Time validation against a plain DuckDB copy of the same columns, and what each rule family adds",
		Long: `bench times, in one process and one run, a plain DuckDB copy of the input's columns to Parquet (the
floor), a counts-only validation (every rule, no outputs) and a full validation (table and
quarantine to Parquet), and prints their ratios. Then it times a counts-only run without each
rule family (a column rule kind such as min or regex, or one schema-level rule) and prints what
each adds. Outputs go to a scratch folder that is removed; the JSON goes to --out-dir only.`,
		Example: `  tablegate bench --schema orders.yaml --input orders.parquet
  tablegate bench --schema orders.yaml --input shop.duckdb:orders --runs 5 --out-dir /tmp/bench
  tablegate bench --schema penguins.yaml --input penguins.csv --csv-null NA --progress none`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if input == "" {
				return usagef("bench needs --schema and --input")
			}
			if runs < 1 {
				return usagef("--runs %d: at least 1", runs)
			}
			if err := checkProgress(mode); err != nil {
				return err
			}
			in, err := csv.input(cmd, input)
			if err != nil {
				return err
			}
			s, err := sf.load(cmd.Context())
			if err != nil {
				return err
			}
			scratch, err := os.MkdirTemp("", "tablegate-bench-")
			if err != nil {
				return fmt.Errorf("scratch folder: %w", err)
			}
			defer os.RemoveAll(scratch)
			eng, err := tablegate.Open(tablegate.Config{MemoryLimit: memoryLimit, Threads: threads, Confined: true,
				AllowedDirectories: allowedDirs(in, tablegate.ParquetOutput{Path: filepath.Join(scratch, "x.parquet")}, nil)})
			if err != nil {
				return engineFlagError(err, memoryLimit, "")
			}
			defer eng.Close()
			b := &bench{eng: eng, in: in, scratch: scratch, runs: runs, log: stderr, quiet: mode == progressNone}
			res, err := b.measure(cmd.Context(), s, input)
			if err != nil {
				return err
			}
			printBench(stdout, res)
			if outDir != "" {
				if err := os.MkdirAll(outDir, 0o755); err != nil {
					return fmt.Errorf("--out-dir: %w", err)
				}
				data, _ := indentJSON(res)
				path := filepath.Join(outDir, "bench.json")
				if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
					return fmt.Errorf("write %s: %w", path, err)
				}
				fmt.Fprintf(stdout, "results in %s\n", path)
			}
			return nil
		},
	}
	sf.add(cmd)
	fl := cmd.Flags()
	fl.StringVar(&input, "input", "", "input: Parquet file or glob, CSV, NDJSON, or DBFILE.duckdb:[schema.]table")
	fl.IntVar(&runs, "runs", 3, "runs of each measurement; the median is reported")
	fl.StringVar(&outDir, "out-dir", "", "folder for bench.json (default: print only)")
	fl.StringVar(&memoryLimit, "memory-limit", "", "DuckDB memory limit, e.g. 4GB; DuckDB spills to disk past it")
	fl.IntVar(&threads, "threads", 0, "DuckDB worker threads (default: every core)")
	progressFlag(cmd, &mode)
	csv.add(cmd)
	return cmd
}

type bench struct {
	eng     *tablegate.Engine
	in      tablegate.Input
	scratch string
	runs    int
	log     io.Writer
	quiet   bool
}

// median runs f b.runs times and returns the median wall time, logging each run.
func (b *bench) median(ctx context.Context, what string, f func(ctx context.Context, i int) error) (float64, error) {
	times := make([]float64, 0, b.runs)
	for i := range b.runs {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		start := time.Now()
		if err := f(ctx, i); err != nil {
			return 0, err
		}
		d := time.Since(start).Seconds()
		times = append(times, d)
		if !b.quiet {
			fmt.Fprintf(b.log, "bench: %s, run %d of %d: %.3fs\n", what, i+1, b.runs, d)
		}
	}
	return median(times), nil
}

func median(times []float64) float64 {
	sorted := slices.Clone(times)
	sort.Float64s(sorted)
	return sorted[len(sorted)/2]
}

func (b *bench) measure(ctx context.Context, s *schema.Schema, input string) (*benchResult, error) {
	plan, err := tablegate.Compile(ctx, s)
	if err != nil {
		return nil, err
	}
	res := &benchResult{Schema: s.Name, Input: input, Runs: b.runs}
	// One run unmeasured first: the first read of a file pays for the page cache.
	if _, err := b.eng.Validate(ctx, plan, b.in, nil, countsOnly); err != nil && !isDataFailure(err) {
		return nil, err
	}
	if res.Floor, err = b.median(ctx, "floor (plain DuckDB copy)", func(ctx context.Context, i int) error {
		return b.eng.CopyColumns(ctx, plan, b.in, filepath.Join(b.scratch, fmt.Sprintf("floor%d.parquet", i)))
	}); err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	counts := func(ctx context.Context, p *tablegate.Plan) error {
		r, err := b.eng.Validate(ctx, p, b.in, nil, countsOnly)
		if err != nil && !isDataFailure(err) {
			return err
		}
		res.Rows = r.Rows.Input
		return nil
	}
	if res.Full, err = b.median(ctx, "full validation", func(ctx context.Context, i int) error {
		out := tablegate.ParquetOutput{Path: filepath.Join(b.scratch, fmt.Sprintf("full%d.parquet", i))}
		_, err := b.eng.Validate(ctx, plan, b.in, out, tablegate.Options{Name: fmt.Sprintf("full%d", i), Quarantine: true, RunOptions: tablegate.RunOptions{MaxFailureSamples: -1}})
		if err != nil && !isDataFailure(err) {
			return err
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("full: %w", err)
	}
	// The counts-only run and the runs without each family go in rounds, every other round in
	// reverse order, so that the machine's drift reaches them alike.
	variants := []*tablegate.Plan{plan}
	names := []string{"counts-only validation"}
	for _, fam := range families(plan) {
		fc := familyCost{Family: fam.name, Rules: fam.rules}
		variant, err := tablegate.Compile(ctx, without(s, fam.name))
		if err != nil {
			fc.Error = err.Error()
		} else {
			variants = append(variants, variant)
			names = append(names, "counts-only without "+fam.name)
		}
		res.Families = append(res.Families, fc)
	}
	times := make([][]float64, len(variants))
	for round := range b.runs {
		order := make([]int, len(variants))
		for i := range order {
			order[i] = i
		}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			start := time.Now()
			if err := counts(ctx, variants[i]); err != nil {
				return nil, fmt.Errorf("%s: %w", names[i], err)
			}
			d := time.Since(start).Seconds()
			times[i] = append(times[i], d)
			if !b.quiet {
				fmt.Fprintf(b.log, "bench: %s, run %d of %d: %.3fs\n", names[i], round+1, b.runs, d)
			}
		}
	}
	res.Counts = median(times[0])
	res.Noise = (slices.Max(times[0]) - slices.Min(times[0])) / 2
	next := 1
	for i := range res.Families {
		if res.Families[i].Error != "" {
			continue
		}
		res.Families[i].Without = median(times[next])
		res.Families[i].Adds = res.Counts - res.Families[i].Without
		next++
	}
	if res.Floor > 0 {
		res.CountsRatio, res.FullRatio = res.Counts/res.Floor, res.Full/res.Floor
	}
	sort.SliceStable(res.Families, func(i, j int) bool { return res.Families[i].Adds > res.Families[j].Adds })
	return res, nil
}

// countsOnly are the options of bench's counts-only runs: in place, no failing rows.
var countsOnly = tablegate.Options{Name: "bench", RunOptions: tablegate.RunOptions{MaxFailureSamples: -1}}

// isDataFailure reports whether err is a run that read everything and found failing rows.
func isDataFailure(err error) bool { return exitCode(err) == exitDataFailed }

type family struct {
	name  string
	rules []string
}

// families groups the plan's rules: column rules by kind, each schema-level rule alone, the
// primary key alone.
func families(p *tablegate.Plan) []family {
	var out []family
	index := map[string]int{}
	for _, r := range p.Rules {
		name := r.Name
		if r.Column != "" {
			name = r.Kind
		}
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, family{name: name})
		}
		out[i].rules = append(out[i].rules, r.Name)
	}
	return out
}

// without is the schema without one rule family: a schema-level rule removed, or a column rule
// kind turned off on every column, nested ones included.
func without(s *schema.Schema, fam string) *schema.Schema {
	c := s.Clone()
	if fam == schema.RulePrimaryKey {
		for _, col := range c.Columns {
			col.Args.PrimaryKey = false
		}
	}
	c.Rules = slices.DeleteFunc(c.Rules, func(r *schema.Rule) bool { return r.Name == fam })
	// A schema-level severity naming the rule removed would be a declaration error.
	c.Severity.PerRule = slices.DeleteFunc(c.Severity.PerRule, func(e schema.SeverityEntry) bool { return e.Rule == fam })
	for _, col := range c.Columns {
		for _, r := range col.Rules() {
			// A primary-key column is never nullable: its nullability stays.
			if r.Kind != fam || fam == schema.RuleNullability && r.Target.Args.PrimaryKey {
				continue
			}
			a := &r.Target.Args
			switch fam {
			case schema.RuleNullability:
				a.Nullable = true
			case schema.RuleUnique:
				a.Unique = false
			case schema.RuleCheck:
				a.Checks = nil
			case schema.RuleMin:
				a.Min = nil
			case schema.RuleMinExclusive:
				a.MinExclusive = nil
			case schema.RuleMax:
				a.Max = nil
			case schema.RuleMaxExclusive:
				a.MaxExclusive = nil
			case schema.RuleIsIn:
				a.IsIn, a.HasIsIn = nil, false
			case schema.RuleInf:
				a.AllowInf = true
			case schema.RuleNaN:
				a.AllowNaN = true
			case schema.RuleMinLength:
				a.MinLength = nil
			case schema.RuleMaxLength:
				a.MaxLength = nil
			case schema.RuleRegex:
				a.Regex = nil
			case schema.RuleResolution:
				a.Resolution = ""
			case schema.RulePrimaryKey:
				a.PrimaryKey = false
			}
			// A severity may name a rule the variant no longer has.
			a.Severity = schema.SeveritySpec{}
		}
	}
	return c
}

func printBench(w io.Writer, r *benchResult) {
	fmt.Fprintf(w, "%s on %s: %s rows, median of %d runs\n", r.Schema, r.Input, count(r.Rows), r.Runs)
	fmt.Fprintf(w, "  floor (plain DuckDB copy of the columns) %8.3fs\n", r.Floor)
	fmt.Fprintf(w, "  counts-only validation                   %8.3fs  %5.2fx the floor\n", r.Counts, r.CountsRatio)
	fmt.Fprintf(w, "  full validation (table + quarantine)     %8.3fs  %5.2fx the floor\n", r.Full, r.FullRatio)
	if len(r.Families) == 0 {
		return
	}
	fmt.Fprintln(w, "  what each rule family adds to counts-only:")
	width := 0
	for _, f := range r.Families {
		width = max(width, len(f.Family))
	}
	for _, f := range r.Families {
		if f.Error != "" {
			fmt.Fprintf(w, "    %-*s  not measured: %s\n", width, f.Family, f.Error)
			continue
		}
		share := 0.0
		if r.Counts > 0 {
			share = f.Adds / r.Counts * 100
		}
		rules := "1 rule"
		if len(f.Rules) != 1 {
			rules = fmt.Sprintf("%d rules", len(f.Rules))
		}
		fmt.Fprintf(w, "    %-*s  %+8.3fs  %+6.1f%%  (%s)\n", width, f.Family, f.Adds, share, rules)
	}
	if r.Runs > 1 {
		fmt.Fprintf(w, "  the counts-only runs varied by ±%.3fs: a family that adds less is within the noise\n", r.Noise)
	}
	if r.Counts < smallRun {
		fmt.Fprintf(w, "  a counts-only run takes %.3fs here: at this size the per-family figures are mostly noise (timer, caches, scheduling); bench an input of a million rows or more, with more --runs, to rank them\n", r.Counts)
	}
}

// smallRun is the counts-only time under which per-family costs are mostly noise.
const smallRun = 0.5
