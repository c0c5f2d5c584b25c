package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// console is what the command line knows about where it runs: the environment and whether its
// outputs are terminals. main reads them from the process; tests inject them.
type console struct {
	lookupEnv func(string) (string, bool)
	// stdoutTTY and stderrTTY say whether stdout and stderr are terminals.
	stdoutTTY, stderrTTY bool
}

// processConsole is the console of the running process.
func processConsole(stdout, stderr io.Writer) console {
	return console{lookupEnv: os.LookupEnv, stdoutTTY: isTerminal(stdout), stderrTTY: isTerminal(stderr)}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// colour says whether the text output is coloured: on a terminal, unless NO_COLOR is set to
// anything (https://no-color.org).
func (c console) colour() bool {
	if v, ok := c.env("NO_COLOR"); ok && v != "" {
		return false
	}
	return c.stdoutTTY
}

func (c console) env(name string) (string, bool) {
	if c.lookupEnv == nil {
		return "", false
	}
	return c.lookupEnv(name)
}
