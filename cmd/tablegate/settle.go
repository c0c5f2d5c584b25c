package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/history"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
)

// historyEnv names the run history file when --history is not given.
const historyEnv = "TABLEGATE_HISTORY"

// settle runs once the run's outputs are settled: it appends the run to the history and keeps
// the page's data for --html. Neither changes the run: a history that fails is a warning.
func settle(cmd *cobra.Command, f *validateFlags, plan *compile.Plan, rep *outcome.Report, stderr io.Writer) {
	path := historyFile(cmd, f.history)
	if rep == nil || (path == "" && f.html == "") {
		return
	}
	f.run = report.New(rep, plan, report.Facts{Input: inputText(f), Flags: givenFlags(cmd)})
	if path != "" {
		history.Record(cmd.Context(), path, f.run, func(msg string) {
			rep.Warnings = append(rep.Warnings, msg)
			fmt.Fprintln(stderr, "warning: "+msg)
		})
	}
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
