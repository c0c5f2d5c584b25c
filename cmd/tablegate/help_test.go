package main

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelpEndsWithExamples: every command's --help ends with two or three examples that parse
// (the subcommand and flags exist), and no flag shows two defaults.
func TestHelpEndsWithExamples(t *testing.T) {
	t.Parallel()
	code := 0
	root := newRoot(console{}, io.Discard, io.Discard, &code)
	cmds := root.Commands()
	require.Greater(t, len(cmds), 5)
	for _, c := range append(cmds, root) {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			args := []string{c.Name(), "--help"}
			if c == root {
				args = []string{"--help"}
			}
			code, stdout, _ := cli(t, args...)
			require.Equal(t, 0, code)
			i := strings.LastIndex(stdout, "\nExamples:\n")
			require.Greater(t, i, 0, stdout)
			examples := strings.Split(strings.TrimSpace(stdout[i+len("\nExamples:\n"):]), "\n")
			assert.GreaterOrEqual(t, len(examples), 2)
			assert.LessOrEqual(t, len(examples), 3)
			for _, ex := range examples {
				fields := strings.Fields(strings.SplitN(ex, ">", 2)[0])
				require.Equal(t, "tablegate", fields[0], ex)
				probe := newRoot(console{}, io.Discard, io.Discard, &code)
				probe.InitDefaultVersionFlag()
				sub, rest, err := probe.Find(fields[1:])
				require.NoError(t, err, ex)
				assert.NoError(t, sub.ParseFlags(rest), ex)
			}
			for _, line := range strings.Split(stdout[:i], "\n") {
				assert.LessOrEqual(t, strings.Count(line, "default"), 1, "one default per flag: %q", line)
			}
		})
	}
}
