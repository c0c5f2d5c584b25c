package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
)

// historyEnv names the run history file when --history is not given.
const historyEnv = "TABLEGATE_HISTORY"

// historyTime is how tablegate history prints a time: UTC, to the second.
const historyTime = "2006-01-02 15:04:05"

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
		path, format  string
		f             tablegate.HistoryFilter
		failing       bool
		collectionRun string
	)
	cmd := &cobra.Command{
		Use:   "history --history DB.duckdb [--asset A] [--check C] [--last N] [--failing] [--collection-run ID] [--format text|json]",
		Short: "List recent runs from the run history, and each check's trend; or show one collection's run",
		Example: `  tablegate history --history runs.duckdb
  tablegate history --history runs.duckdb --asset orders --last 30 --failing
  tablegate history --history runs.duckdb --collection-run 20261202T150000Z-9f1c2b7a0d3e4f51`,
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
			if collectionRun != "" {
				for _, n := range []string{"asset", "check", "last", "failing"} {
					if cmd.Flags().Changed(n) {
						return usagef("--%s lists runs; --collection-run shows one collection's run, every member of it", n)
					}
				}
				return showCollectionRun(cmd, p, collectionRun, format, stdout)
			}
			runs, err := tablegate.HistoryRuns(cmd.Context(), p, f)
			if err != nil {
				return err
			}
			checks, err := tablegate.HistoryChecks(cmd.Context(), p, f)
			if err != nil {
				return err
			}
			colls, err := tablegate.HistoryCollectionRuns(cmd.Context(), p, f)
			if err != nil {
				return err
			}
			if failing {
				runs, checks = onlyFailing(runs, checks)
				colls = slices.DeleteFunc(colls, func(c tablegate.CollectionRun) bool { return c.Outcome == string(tablegate.CollectionPassed) })
			}
			if format == "json" {
				if runs == nil {
					runs = []tablegate.HistoryRun{}
				}
				if checks == nil {
					checks = []tablegate.CheckTrend{}
				}
				if colls == nil {
					colls = []tablegate.CollectionRun{}
				}
				data, err := indentJSON(map[string]any{"runs": runs, "checks": checks, "collection_runs": colls})
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
			printCollectionRuns(stdout, colls)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&collectionRun, "collection-run", "", "show one collection's run: its outcome, every member's and each filter's failed rows per member")
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
func onlyFailing(runs []tablegate.HistoryRun, checks []tablegate.CheckTrend) ([]tablegate.HistoryRun, []tablegate.CheckTrend) {
	runs = slices.DeleteFunc(runs, func(r tablegate.HistoryRun) bool {
		return r.Outcome != "" && r.Health == string(tablegate.Healthy)
	})
	checks = slices.DeleteFunc(checks, func(c tablegate.CheckTrend) bool { return !slices.Contains(c.Passed, false) })
	return runs, checks
}

func printHistory(w io.Writer, runs []tablegate.HistoryRun, checks []tablegate.CheckTrend, none string) {
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2fs\t%s\n", r.StartedAt.UTC().Format(historyTime), r.Asset, out, r.Health,
			count(r.Rows.Input), count(r.Rows.Valid), count(r.Rows.Invalid), r.DurationS, r.RunID)
	}
	_ = tw.Flush()
	if len(checks) == 0 {
		return
	}
	var rules, tables []tablegate.CheckTrend
	for _, c := range checks {
		if c.Values != nil {
			tables = append(tables, c)
		} else {
			rules = append(rules, c)
		}
	}
	printTrends(w, "FAILED ROWS, OLDEST FIRST", rules, func(c tablegate.CheckTrend, i int) string { return count(c.Failed[i]) })
	printTrends(w, "VALUES, OLDEST FIRST", tables, func(c tablegate.CheckTrend, i int) string {
		if c.Values[i] == nil {
			return "-"
		}
		return tablegate.FormatNumber(*c.Values[i])
	})
}

// printTrends prints the checks' series, one line each: its points, oldest first, as point
// prints them, and how often it passed.
func printTrends(w io.Writer, series string, checks []tablegate.CheckTrend, point func(c tablegate.CheckTrend, i int) string) {
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
		last := "never"
		if c.LastPassed != "" {
			last = c.LastPassed
			if t, err := time.Parse(time.RFC3339, c.LastPassed); err == nil {
				last = t.UTC().Format(historyTime)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\n", c.Asset, c.Check, strings.Join(counts, " "), passed, len(c.Passed), last)
	}
	_ = tw.Flush()
}

// printCollectionRuns lists the collections' runs: outcome, members and the run id that
// --collection-run shows.
func printCollectionRuns(w io.Writer, colls []tablegate.CollectionRun) {
	if len(colls) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COLLECTION RUNS\tCOLLECTION\tOUTCOME\tWRITTEN\tMEMBERS\tDURATION\tRUN ID")
	for _, c := range colls {
		out := c.Outcome
		if out == "" {
			out = "error: " + c.ErrorType
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.2fs\t%s\n", c.StartedAt.UTC().Format(historyTime), c.Collection, out,
			yesNo(c.Written), strings.Join(c.Members, ","), c.DurationS, c.RunID)
	}
	_ = tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// showCollectionRun prints one recorded collection's run: as JSON, its report as the run printed
// it (every member's included); as text, its outcome, a line per member and each filter's failed
// rows per member.
func showCollectionRun(cmd *cobra.Command, path, runID, format string, stdout io.Writer) error {
	crep, err := tablegate.LoadCollectionRun(cmd.Context(), path, runID)
	if err != nil {
		if errors.Is(err, tablegate.ErrNoCollectionRun) {
			return usagef("%s has no collection run %q: `tablegate history --history %s` lists them under COLLECTION RUNS", path, runID, path)
		}
		return err
	}
	if format == "json" {
		data, err := indentJSON(crep)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(data))
		return nil
	}
	out := "error"
	if crep.Outcome != nil {
		out = strings.ToUpper(string(*crep.Outcome))
	}
	written := "nothing written"
	if crep.Written {
		written = "every member written"
	}
	fmt.Fprintf(stdout, "collection %s, run %s: %s (%s), started %s, %.2fs", crep.Collection, crep.RunID, out, written, crep.StartedAt, crep.DurationS)
	if len(crep.CommonPrimaryKey) > 0 {
		fmt.Fprintf(stdout, ", common primary key %s", strings.Join(crep.CommonPrimaryKey, ", "))
	}
	fmt.Fprintln(stdout)
	if crep.Error != nil {
		msg, _, _ := strings.Cut(crep.Error.Message, "\n")
		fmt.Fprintf(stdout, "error: %s: %s\n", crep.Error.Type, msg)
	}
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MEMBER\tOUTCOME\tHEALTH\tINPUT\tVALID\tINVALID\tFAILING CHECKS\tTABLE\tRUN ID")
	for _, name := range crep.MemberOrder {
		rep := crep.Members[name]
		if rep == nil || (rep.Outcome == nil && rep.Error == nil) {
			fmt.Fprintf(tw, "%s\tnot run\t\t\t\t\t\t\t\n", name)
			continue
		}
		var o string
		if rep.Outcome != nil {
			o = string(*rep.Outcome)
		} else {
			o = "error: " + rep.Error.Type
		}
		failed := 0
		for _, c := range rep.Checks {
			if !c.Passed {
				failed++
			}
		}
		table := "-"
		if rep.Table.Address != "" {
			table = rep.Table.Address
			if !rep.Table.Written {
				table += " (not written)"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", name, o, rep.Health, count(rep.Rows.Input), count(rep.Rows.Valid), count(rep.Rows.Invalid),
			failed, table, rep.RunID)
	}
	_ = tw.Flush()
	if len(crep.Filters) == 0 {
		return nil
	}
	fmt.Fprintln(stdout)
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FILTER\tKIND\tCHECK\tFAILED ROWS PER MEMBER")
	for _, fr := range crep.Filters {
		rows := "skipped: " + fr.Skipped
		if fr.Skipped == "" {
			var parts []string
			for _, m := range crep.MemberOrder {
				if n, ok := fr.Failed[m]; ok {
					parts = append(parts, m+" "+count(n))
				}
			}
			rows = strings.Join(parts, ", ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", fr.Name, fr.Kind, fr.Check, rows)
	}
	return tw.Flush()
}

func reportCmd() *cobra.Command {
	var path, runID, html string
	cmd := &cobra.Command{
		Use:   "report --history DB.duckdb --run ID --html FILE",
		Short: "Write the HTML page of a past run (a single table's or a collection's) from the run history alone",
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
	fl.StringVar(&runID, "run", "", "the run's id (its JSON report's run_id; a collection's run id writes the collection's page)")
	fl.StringVar(&html, "html", "", "the HTML file to write")
	return cmd
}
