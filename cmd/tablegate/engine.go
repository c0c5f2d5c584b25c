package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// SparkBinary is the program that runs `validate --engine spark`. It is a build of its own
// (engines/spark, a module of its own) so that gRPC and the Spark Connect client stay out of this
// DuckDB-only binary; tablegate runs it with the same arguments and passes its exit status on.
const SparkBinary = "tablegate-spark"

// engineFlags registers --engine, --spark-remote and the S3 flags of s3a:// outputs on validate
// and explain, for their help and to refuse them where they do not apply; a spark run never
// reaches this binary's commands (delegated).
func engineFlags(cmd *cobra.Command) (check func() error) {
	fl := cmd.Flags()
	var engine, remote string
	fl.StringVar(&engine, "engine", "duckdb", "duckdb, or spark (runs "+SparkBinary+", which must be installed beside tablegate or on PATH)")
	fl.StringVar(&remote, "spark-remote", "", "with --engine spark: the Spark Connect server, sc://HOST:PORT (default: env SPARK_REMOTE)")
	var s3Endpoint, s3Region string
	var s3PathStyle bool
	fl.StringVar(&s3Endpoint, "s3-endpoint", "", "with --engine spark and an s3a:// --out: the S3 store as this process reaches it (default: env AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL; credentials: the AWS credential chain: env, AWS_PROFILE, SSO, web identity, container, instance)")
	fl.StringVar(&s3Region, "s3-region", "", "with --engine spark and an s3a:// --out: the S3 region (default: env AWS_REGION, the profile's region)")
	fl.BoolVar(&s3PathStyle, "s3-path-style", false, "with --engine spark and an s3a:// --out: address buckets path-style (default: with an endpoint given)")
	return func() error {
		switch {
		case engine != "duckdb":
			return usagef("--engine %q: use duckdb or spark", engine)
		case remote != "":
			return usagef("--spark-remote applies to --engine spark only")
		}
		for _, name := range []string{"s3-endpoint", "s3-region", "s3-path-style"} {
			if fl.Changed(name) {
				return usagef("--%s applies to --engine spark only (the DuckDB engine writes local files)", name)
			}
		}
		return nil
	}
}

// sparkRequested reports whether the command line is a validate or explain with --engine spark.
func sparkRequested(args []string) bool {
	if len(args) == 0 || args[0] != "validate" && args[0] != "explain" {
		return false
	}
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			return false
		case a == "--engine" && i+1 < len(args):
			return args[i+1] == "spark"
		case strings.HasPrefix(a, "--engine="):
			return strings.TrimPrefix(a, "--engine=") == "spark"
		}
	}
	return false
}

// findSparkBinary looks beside the running tablegate first, then on PATH.
func findSparkBinary() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), SparkBinary)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	p, err := osexec.LookPath(SparkBinary)
	if err != nil {
		return "", usagef("--engine spark needs %s beside tablegate or on PATH: build it with "+
			"`go build -C engines/spark -o \"$(dirname \"$(command -v tablegate)\")\" ./cmd/tablegate-spark` (docs/spark.md)", SparkBinary)
	}
	return p, nil
}

// runSpark runs the Spark binary with the command line and returns its exit status. The child
// shares the terminal's signals; a cancelled ctx (SIGINT, SIGTERM to tablegate) interrupts it,
// and it interrupts its Spark jobs before it exits.
func runSpark(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	bin, err := findSparkBinary()
	if err != nil {
		fmt.Fprintln(stderr, "tablegate: "+err.Error())
		return exitUsage
	}
	cmd := osexec.CommandContext(ctx, bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute // time to interrupt the server's jobs and clean up
	err = cmd.Run()
	var ee *osexec.ExitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	}
	fmt.Fprintf(stderr, "tablegate: run %s: %v\n", bin, err)
	return exitUsage
}
