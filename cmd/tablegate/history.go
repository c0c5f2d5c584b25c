package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/history"
)

// historyEnv names the run history file when --history is not given.
const historyEnv = "TABLEGATE_HISTORY"

// historyFile is --history, or TABLEGATE_HISTORY when the flag is not given; "" for neither.
func historyFile(cmd *cobra.Command, flag string) string {
	if flag == "" && !cmd.Flags().Changed("history") {
		return os.Getenv(historyEnv)
	}
	return flag
}

// historyPath is historyFile, required.
func historyPath(cmd *cobra.Command, flag string) (string, error) {
	flag = historyFile(cmd, flag)
	if flag == "" {
		return "", usagef("--history is required (or set %s): the DuckDB file validate --history appends to", historyEnv)
	}
	return flag, nil
}

func historyCmd(stdout io.Writer) *cobra.Command {
	var (
		path, format string
		f            history.Filter
		failing      bool
	)
	cmd := &cobra.Command{
		Use:   "history --history DB.duckdb [--asset A] [--check C] [--last N] [--failing] [--format text|json]",
		Short: "List recent runs from the run history, and each check's trend",
		Example: `  tablegate history --history runs.duckdb
  tablegate history --history runs.duckdb --asset orders --last 30 --failing
  tablegate history --history runs.duckdb --check dy_rule__amount__min --format json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return usagef("--format %q: use text or json", format)
			}
			if f.Last < 0 {
				return usagef("--last %d: give a number of runs, 1 or more", f.Last)
			}
			p, err := historyPath(cmd, path)
			if err != nil {
				return err
			}
			runs, err := history.Runs(cmd.Context(), p, f)
			if err != nil {
				return err
			}
			checks, err := history.Checks(cmd.Context(), p, f)
			if err != nil {
				return err
			}
			if failing {
				runs, checks = onlyFailing(runs, checks)
			}
			if format == "json" {
				if runs == nil {
					runs = []history.Run{}
				}
				if checks == nil {
					checks = []history.CheckTrend{}
				}
				data, err := indentJSON(map[string]any{"runs": runs, "checks": checks})
				if err != nil {
					return err
				}
				fmt.Fprintln(stdout, string(data))
				return nil
			}
			none := "no runs recorded"
			if failing {
				none = fmt.Sprintf("no failing runs among the newest %d of each asset", f.Last)
			}
			printHistory(stdout, runs, checks, none)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&path, "history", "", "the run history: a DuckDB file validate --history appends to (env "+historyEnv+")")
	fl.StringVar(&f.Asset, "asset", "", "only this asset's runs")
	fl.StringVar(&f.Check, "check", "", "only this check's trend")
	fl.IntVar(&f.Last, "last", 10, "the newest N runs of each asset")
	fl.BoolVar(&failing, "failing", false, "of those runs, only the ones that failed a check or stopped with an error, and the checks that failed in any")
	fl.StringVar(&format, "format", "text", "output: text or json")
	return cmd
}

// onlyFailing keeps the runs that failed a check (health not Healthy) or ended in an error, and
// the checks that failed in at least one run.
func onlyFailing(runs []history.Run, checks []history.CheckTrend) ([]history.Run, []history.CheckTrend) {
	runs = slices.DeleteFunc(runs, func(r history.Run) bool {
		return r.Outcome != "" && r.Health == string(tablegate.Healthy)
	})
	checks = slices.DeleteFunc(checks, func(c history.CheckTrend) bool { return !slices.Contains(c.Passed, false) })
	return runs, checks
}

func printHistory(w io.Writer, runs []history.Run, checks []history.CheckTrend, none string) {
	if len(runs) == 0 {
		fmt.Fprintln(w, none)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STARTED\tASSET\tOUTCOME\tHEALTH\tINPUT\tVALID\tINVALID\tDURATION\tRUN ID")
	for _, r := range runs {
		out := r.Outcome
		if out == "" {
			out = "error: " + r.ErrorType
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%.2fs\t%s\n", r.StartedAt.UTC().Format("2006-01-02 15:04:05"), r.Asset, out, r.Health,
			r.Rows.Input, r.Rows.Valid, r.Rows.Invalid, r.DurationS, r.RunID)
	}
	_ = tw.Flush()
	if len(checks) == 0 {
		return
	}
	var rules, tables []history.CheckTrend
	for _, c := range checks {
		if c.Values != nil {
			tables = append(tables, c)
		} else {
			rules = append(rules, c)
		}
	}
	printTrends(w, "FAILED ROWS, OLDEST FIRST", rules, func(c history.CheckTrend, i int) string { return strconv.FormatInt(c.Failed[i], 10) })
	printTrends(w, "VALUES, OLDEST FIRST", tables, func(c history.CheckTrend, i int) string {
		if c.Values[i] == nil {
			return "-"
		}
		return strconv.FormatFloat(*c.Values[i], 'g', -1, 64)
	})
}

// printTrends prints the checks' series, one line each: its points, oldest first, as point
// prints them, and how often it passed.
func printTrends(w io.Writer, series string, checks []history.CheckTrend, point func(c history.CheckTrend, i int) string) {
	if len(checks) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ASSET\tCHECK\t"+series+"\tPASSED\tLAST PASSED")
	for _, c := range checks {
		counts := make([]string, len(c.Failed))
		passed := 0
		for i := range c.Failed {
			counts[i] = point(c, i)
			if c.Passed[i] {
				passed++
			}
		}
		last := c.LastPassed
		if last == "" {
			last = "never"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\n", c.Asset, c.Check, strings.Join(counts, " "), passed, len(c.Passed), last)
	}
	_ = tw.Flush()
}

func reportCmd() *cobra.Command {
	var path, runID, html string
	cmd := &cobra.Command{
		Use:   "report --history DB.duckdb --run ID --html FILE",
		Short: "Write the HTML page of a past run from the run history alone",
		Example: `  tablegate history --history runs.duckdb --last 5
  tablegate report --history runs.duckdb --run 20261201T232903Z-9f1c2b7a0d3e4f51 --html past.html`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := historyPath(cmd, path)
			if err != nil {
				return err
			}
			if runID == "" || html == "" {
				return usagef("report needs --run ID (tablegate history lists them) and --html FILE")
			}
			return tablegate.WriteRunPage(cmd.Context(), p, runID, html)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&path, "history", "", "the run history (env "+historyEnv+")")
	fl.StringVar(&runID, "run", "", "the run's id (its JSON report's run_id)")
	fl.StringVar(&html, "html", "", "the HTML file to write")
	return cmd
}
