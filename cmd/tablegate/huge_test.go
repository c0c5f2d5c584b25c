package main

import (
	"bytes"
	"encoding/json"
	"os"
	osexec "os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/internal/testenv"
)

// hugeChecks are rules that build a value of gigabytes, or seconds of work, for the run: no
// size guard spells them all, so the run itself must be stoppable.
var hugeChecks = []string{
	"length(printf('%1500000000d', 1)) > 0",
	"length(format('{:>1500000000}', 'x')) > 0",
	"length(repeat('x', 1000*1000*1500)) > 0",
	"len(range(TIMESTAMP '1900-01-01', TIMESTAMP '2100-01-01', INTERVAL 1 SECOND)) > 0",
	"length(array_to_string(range(200000000), ',')) > 0",
}

// runStopped starts prog, sends sig after wait (0: none), and returns its exit status,
// stdout and stderr, failing the test when it does not end within limit of the signal (or of its
// start, without one).
func runStopped(t *testing.T, prog string, args []string, sig syscall.Signal, wait, limit time.Duration) (int, string, string) {
	t.Helper()
	cmd := osexec.Command(prog, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	from := time.Now()
	if sig != 0 {
		select {
		case err := <-done:
			t.Fatalf("the run ended before the signal (%v)\n%s", err, stderr.String())
		case <-time.After(wait):
		}
		from = time.Now()
		require.NoError(t, cmd.Process.Signal(sig))
	}
	select {
	case <-done:
		t.Logf("ended %v after the %s", time.Since(from).Round(time.Millisecond), map[bool]string{true: "signal", false: "start"}[sig != 0])
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("still running %v after the %s", limit, map[bool]string{true: "signal", false: "start"}[sig != 0])
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// errorReport reads the JSON report's error.
func errorReport(t *testing.T, stdout, stderr string) (typ, msg string) {
	t.Helper()
	var rep struct {
		Error *struct{ Type, Message string } `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), "stdout:\n%s\nstderr:\n%.3000s", stdout, stderr)
	require.NotNil(t, rep.Error, "the report has no error:\n%s", stdout)
	return rep.Error.Type, rep.Error.Message
}

// TestSlowHugeValueStopped: a run building a huge value ends within a second of SIGINT or SIGTERM,
// and at its --timeout, with exit 2 and the JSON error report, whatever DuckDB is in the middle of.
func TestSlowHugeValueStopped(t *testing.T) {
	testenv.Slow(t) // each case has DuckDB build gigabytes for a second or two
	require.NoError(t, buildErr)
	f := newFixture(t)
	in := f.write("in.csv", "s\nabc\ndef\n")
	for i, expr := range hugeChecks {
		schemaPath := f.write("huge.yaml", "schema: Huge\ncolumns:\n  - name: s\n    type: String\n    check: {huge: \""+expr+"\"}\n")
		args := []string{"validate", "--schema", schemaPath, "--input", in, "--format", "json"}
		sig := []syscall.Signal{syscall.SIGTERM, syscall.SIGINT}[i%2]
		t.Run("signal/"+expr, func(t *testing.T) {
			code, stdout, stderr := runStopped(t, binary, args, sig, 1500*time.Millisecond, time.Second)
			assert.Equal(t, exitUsage, code, stderr)
			errorReport(t, stdout, stderr)
			assert.NotContains(t, stderr, "goroutine ")
		})
		t.Run("timeout/"+expr, func(t *testing.T) {
			code, stdout, stderr := runStopped(t, binary, append(args, "--timeout", "1s"), 0, 0, 3*time.Second)
			assert.Equal(t, exitUsage, code, stderr)
			typ, msg := errorReport(t, stdout, stderr)
			assert.Equal(t, "TimeoutError", typ)
			assert.Contains(t, msg, "timeout of 1s")
		})
	}
}

// TestSlowAddressSpaceLimit: under `ulimit -v`, a run ends with the JSON error report and exit 2,
// never a Go crash dump, and a DuckDB that cannot start is not blamed on the schema's rules.
func TestSlowAddressSpaceLimit(t *testing.T) {
	testenv.Slow(t)
	require.NoError(t, buildErr)
	f := newFixture(t)
	in := f.write("in.csv", "s\nabc\ndef\n")
	for _, limitKB := range []string{"2000000", "3000000"} {
		for _, expr := range hugeChecks[:3] {
			t.Run(limitKB+"/"+expr, func(t *testing.T) {
				schemaPath := f.write("huge.yaml", "schema: Huge\ncolumns:\n  - name: s\n    type: String\n    check: {huge: \""+expr+"\"}\n")
				code, stdout, stderr := runStopped(t, "sh", []string{"-c", "ulimit -v " + limitKB + " && exec \"$0\" \"$@\"", binary,
					"validate", "--schema", schemaPath, "--input", in, "--format", "json", "--timeout", "20s"}, 0, 0, 30*time.Second)
				assert.Equal(t, exitUsage, code, stderr)
				typ, _ := errorReport(t, stdout, stderr)
				assert.NotEqual(t, "DeclarationError", typ)
				assert.NotContains(t, stderr, "goroutine ")
				assert.NotContains(t, stderr, "SIGABRT")
			})
		}
	}
}

// TestSlowTempDirFull: a --temp-dir whose disk fills up (a tmpfs of 2 MB; skipped where none can be
// mounted) is said to be full, naming the folder and what to do, not DuckDB's setting the CLI
// does not expose.
func TestSlowTempDirFull(t *testing.T) {
	testenv.Slow(t) // spills a million rows' unique keys
	require.NoError(t, buildErr)
	f := newFixture(t)
	disk := f.path("spill")
	require.NoError(t, os.MkdirAll(disk, 0o755))
	if out, err := osexec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", disk).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small filesystem: %v %s", err, out)
	}
	t.Cleanup(func() { _ = osexec.Command("umount", disk).Run() })
	in := f.parquet("in/big.parquet", "SELECT md5(i::VARCHAR) || md5((i + 1)::VARCHAR) AS id FROM range(1000000) t(i)")
	schemaPath := f.write("big.yaml", "schema: Big\ncolumns:\n  - {name: id, type: String, unique: true}\n")
	code, stdout, stderr := runStopped(t, binary, []string{"validate", "--schema", schemaPath, "--input", in, "--format", "json",
		"--memory-limit", "100MB", "--threads", "2", "--temp-dir", disk}, 0, 0, 2*time.Minute)
	assert.Equal(t, exitUsage, code, stderr)
	_, msg := errorReport(t, stdout, stderr)
	for _, want := range []string{"--temp-dir " + disk, "disk is full", "free space there"} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, "max_temp_directory_size")
}
