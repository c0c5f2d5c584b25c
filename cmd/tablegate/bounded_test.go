package main

import (
	"bytes"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/internal/testenv"
)

// wideChecksYAML is a schema of n columns with one custom check each: compiling it asks DuckDB
// to parse and bind 2n statements, seconds of work a signal must be able to stop.
func wideChecksYAML(n int) string {
	var b strings.Builder
	b.WriteString("schema: Wide\ncolumns:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - {name: c%d, type: Int64, check: _ >= 0}\n", i)
	}
	return b.String()
}

// TestSlowSignalStopsCompile: SIGINT or SIGTERM while a schema compiles ends the process within a
// second, with an error, for every command that compiles one.
func TestSlowSignalStopsCompile(t *testing.T) {
	testenv.Slow(t) // signals a compile of thousands of checks
	require.NoError(t, buildErr)
	f := newFixture(t)
	schemaPath := f.write("wide.yaml", wideChecksYAML(4000))
	in := f.path("in.parquet")
	f.exec("COPY (SELECT 1::BIGINT AS c0) TO " + quoteLit(in) + " (FORMAT parquet)")
	cases := []struct {
		name string
		sig  syscall.Signal
		args []string
	}{
		{"check, SIGINT", syscall.SIGINT, []string{"check", "--schema", schemaPath}},
		{"explain, SIGTERM", syscall.SIGTERM, []string{"explain", "--schema", schemaPath}},
		{"validate, SIGINT", syscall.SIGINT, []string{"validate", "--schema", schemaPath, "--input", in, "--format", "json"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := osexec.Command(binary, tc.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Loading takes milliseconds; compiling 8,000 statements takes seconds.
			time.Sleep(1500 * time.Millisecond)
			select {
			case err := <-done:
				t.Fatalf("the process ended before the signal (%v): compiling was too fast to test\n%s", err, stderr.String())
			default:
			}
			sent := time.Now()
			require.NoError(t, cmd.Process.Signal(tc.sig))
			select {
			case err := <-done:
				took := time.Since(sent)
				t.Logf("exited %v after the signal", took.Round(time.Millisecond))
				assert.Less(t, took, time.Second, "exit after the signal")
				var ee *osexec.ExitError
				require.ErrorAs(t, err, &ee, "a stopped compile is not a success")
				assert.Equal(t, exitUsage, ee.ExitCode())
				assert.Contains(t, stderr.String(), "context canceled")
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatal("the process ignored the signal for 5 s")
			}
		})
	}
}

// TestExtendsUnreadable: a schema that extends a named pipe, a device, a file outside its folder
// or a file too large fails at once with a clear error; --schema-root widens the folder.
func TestExtendsUnreadable(t *testing.T) {
	require.NoError(t, buildErr)
	f := newFixture(t)
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "base.yaml"), []byte(ordersYAML), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("hunter2-SECRET-token\n"), 0o600))
	require.NoError(t, syscall.Mkfifo(f.path("fifo.yaml"), 0o644))
	rel, err := filepath.Rel(f.dir, filepath.Join(outside, "base.yaml"))
	require.NoError(t, err)
	cases := []struct {
		name, extends string
		flags         []string
		code          int
		want          string
	}{
		{"a named pipe", "fifo.yaml", nil, exitUsage, "not a regular file"},
		{"a device", "/dev/zero", []string{"--schema-root", "/"}, exitUsage, "not a regular file"},
		{"an absolute path outside", filepath.Join(outside, "secret.txt"), nil, exitUsage, "is outside"},
		{"dot-dot outside", rel, nil, exitUsage, "is outside"},
		{"dot-dot with the root widened", rel, []string{"--schema-root", filepath.Dir(outside)}, exitOK, "is valid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			child := f.write("child.yaml", "schema: Child\nextends: "+tc.extends+"\n")
			cmd := osexec.Command(binary, append([]string{"check", "--schema", child}, tc.flags...)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(time.Minute): // a hang guard: reading a FIFO or /dev/zero never ends; a busy machine's start-up is slow
				_ = cmd.Process.Kill()
				<-done
				t.Fatal("check still running after a minute")
			}
			assert.Equal(t, tc.code, cmd.ProcessState.ExitCode(), stderr.String())
			assert.Contains(t, stdout.String()+stderr.String(), tc.want)
			assert.NotContains(t, stderr.String(), "SECRET")
		})
	}
}
