package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tablegate/tablegate"
)

// flagError turns a flag parsing error into a usage error (exit 2) and, for an unknown flag,
// names the command's nearest flag.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if n := nearestFlag(name, names); n != "" {
			msg += " (did you mean --" + n + "?)"
		}
	}
	return &usageError{msg}
}

// nearestFlag is the flag a mistyped one most likely meant: the nearest by spelling, else the
// longest flag that the word begins with or that begins with the word, as other tools spell
// tablegate's flags longer or shorter (--output for --out).
func nearestFlag(word string, names []string) string {
	if n := tablegate.Nearest(word, names); n != "" {
		return n
	}
	best := ""
	for _, n := range names {
		if len(n) >= 3 && len(word) >= 3 && (strings.HasPrefix(word, n) || strings.HasPrefix(n, word)) && len(n) > len(best) {
			best = n
		}
	}
	return best
}
