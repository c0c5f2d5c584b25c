package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tablegate/tablegate/internal/suggest"
)

// flagError turns a flag parsing error into a usage error (exit 2) and, for an unknown flag,
// names the command's nearest flag.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if n := suggest.Nearest(name, names); n != "" {
			msg += " (did you mean --" + n + "?)"
		}
	}
	return &usageError{msg}
}
