// Command tablegate validates tables with DuckDB: `validate` runs a schema over an input and
// writes the valid rows and the quarantine, `explain` prints the compiled SQL, `check` reports
// declaration errors, `checks` lists the checks a run would report.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/internal/pipes"
)

// Exit statuses (the README's table).
const (
	exitOK          = tablegate.ExitOK
	exitDataFailed  = tablegate.ExitDataFailed
	exitUsage       = tablegate.ExitUsage
	exitColumnCheck = tablegate.ExitColumnCheck
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	args := os.Args[1:]
	endWatch := func() {}
	if !sparkRequested(args) { // the Spark binary interrupts its server's jobs before it exits
		endWatch = watchdog(ctx, func(error) {
			err := fmt.Errorf("interrupted by a signal")
			writeEarlyReport(args, os.Stdout, err)
			fmt.Fprintf(os.Stderr, "tablegate: %v; DuckDB was still in the middle of one call %s later, so tablegate exits without it\n", err, exitGrace)
		})
	}
	code := run(ctx, args, os.Stdout, os.Stderr)
	endWatch()
	stop()
	os.Exit(code)
}

// exitGrace is how long a command has, once told to stop (a signal, --timeout), to end on its
// own. DuckDB notices an interrupt between pieces of work, not inside one call that builds a
// large value; past the grace the process exits anyway, as it would on SIGKILL, which the
// outputs' swap journal makes safe.
const exitGrace = 300 * time.Millisecond

// watchdog ends the process with exit status 2 when ctx ends and the command has not returned
// (called the returned end) within exitGrace; last first writes what the command owes, given
// ctx's cause.
func watchdog(ctx context.Context, last func(cause error)) (end func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		t := time.NewTimer(exitGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			last(context.Cause(ctx))
			os.Exit(exitUsage)
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}

// usageError marks command-line mistakes (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// run executes one command line in the process's console and returns its exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if sparkRequested(args) {
		if _, dagster := os.LookupEnv(pipes.ContextVar); dagster && args[0] == "validate" {
			return runSparkUnderDagster(ctx, os.LookupEnv, args, stdout, stderr)
		}
		return runSpark(ctx, args, stdout, stderr)
	}
	return runIn(ctx, processConsole(stdout, stderr), args, stdout, stderr)
}

// runIn executes one command line in a given console (environment and terminals).
func runIn(ctx context.Context, con console, args []string, stdout, stderr io.Writer) int {
	code := exitOK
	root := newRoot(con, stdout, stderr, &code)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		if code == exitOK {
			code = exitCode(err)
			// validate stopped before its RunE (a bad flag or argument): still one JSON object.
			writeEarlyReport(args, stdout, err)
		}
		fmt.Fprintln(stderr, "tablegate: "+err.Error())
		if code == exitUsage && isUsage(err) {
			path := root.CommandPath()
			if c, _, ferr := root.Find(args); ferr == nil {
				path = c.CommandPath()
			}
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", path)
		}
	}
	return code
}

// newRoot builds the command tree; a command that fails sets *code.
func newRoot(con console, stdout, stderr io.Writer, code *int) *cobra.Command {
	root := &cobra.Command{
		Use:   "tablegate",
		Short: "Validate tables with DuckDB: one query, a quarantine, one check per rule.",
		Example: `  tablegate init --input orders.parquet --out orders.yaml
  tablegate validate --schema orders.yaml --input orders.parquet --out clean/orders.parquet --quarantine
  tablegate bench --schema orders.yaml --input orders.parquet`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Version = "set" // enables --version; the template prints the whole text
	root.SetVersionTemplate(versionText())
	root.SetUsageTemplate(usageTemplate)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(validateCmd(con, stdout, stderr, code), explainCmd(stdout), checkCmd(stdout), checksCmd(stdout),
		sampleCmd(con, stdout, stderr), initCmd(stdout, stderr), importCmd(stdout, stderr), exportCmd(stdout, stderr), benchCmd(stdout, stderr),
		historyCmd(stdout), reportCmd(),
		versionCmd(stdout))
	return root
}

func isUsage(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

// exitCode maps an error to its exit status (tablegate.ExitStatus).
func exitCode(err error) int { return tablegate.ExitStatus(err) }

// schemaFlags are the flags that name a schema: a schema file, or an object of a data contract.
type schemaFlags struct {
	path, root string
	contract   contractFlags
	cmd        *cobra.Command
}

func (f *schemaFlags) add(cmd *cobra.Command) {
	f.cmd = cmd
	fs := cmd.Flags()
	fs.StringVar(&f.path, "schema", "", "schema file (YAML or JSON)")
	fs.StringVar(&f.root, "schema-root", "", "folder the schema's extends may read from (default: the schema file's folder)")
	fs.StringVar(&f.contract.path, "contract", "", "an ODCS v3 data contract to read as the schema (instead of --schema; a collection file names its members' contracts itself)")
	f.contract.add(cmd)
}

// given reports whether a schema or a contract was named.
func (f *schemaFlags) given() bool { return f.path != "" || f.contract.path != "" }

// load loads the schema file, or imports the contract, stopped by ctx (a signal).
func (f *schemaFlags) load(ctx context.Context) (*tablegate.Schema, error) {
	switch {
	case f.path != "" && f.contract.path != "":
		return nil, usagef("give --schema or --contract, not both")
	case f.contract.path != "":
		if f.root != "" {
			return nil, usagef("--schema-root applies to --schema")
		}
		res, err := f.contract.load(ctx, f.contract.path, true)
		if err != nil {
			return nil, err
		}
		if f.cmd != nil {
			printNotices(f.cmd.ErrOrStderr(), res.Notices)
		}
		return res.Schema, nil
	case f.path == "":
		return nil, usagef("--schema (or --contract) is required")
	}
	if f.contract.changed(f.cmd) {
		return nil, usagef("--object, --lengths, --allow-lossy and --reference apply to --contract")
	}
	var opts []tablegate.LoadOption
	if f.root != "" {
		opts = append(opts, tablegate.WithSchemaRoot(f.root))
	}
	// Custom SQL is checked with the other declaration errors, not after they are fixed.
	return tablegate.LoadSchemaContext(ctx, f.path, opts...)
}

// loadPlan loads and compiles the schema file.
func loadPlan(ctx context.Context, f schemaFlags) (*tablegate.Plan, error) {
	s, err := f.load(ctx)
	if err != nil {
		return nil, err
	}
	return tablegate.Compile(ctx, s)
}

func checkCmd(stdout io.Writer) *cobra.Command {
	var sf schemaFlags
	var cf collectionFlags
	cmd := &cobra.Command{
		Use:   "check --schema S | --collection C",
		Short: "Report the schema's (or the collection's) declaration errors; exit 0 when it is valid",
		Example: `  tablegate check --schema orders.yaml
  tablegate check --schema child.yaml --schema-root schemas/
  tablegate check --collection shop.yaml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cf.path != "" {
				if err := refuseSingleTable(cmd, "schema", "schema-root"); err != nil {
					return err
				}
				cp, err := loadCollection(cmd, cf.path)
				if err != nil {
					return err
				}
				c := cp.Collection
				fmt.Fprintf(stdout, "%s is valid: %d members, %d filters, %d references; common primary key: %s.\n", c.Name, len(c.Members), len(c.Filters),
					len(c.References), orNone(strings.Join(cp.Key, ", ")))
				return nil
			}
			plan, err := loadPlan(cmd.Context(), sf)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s is valid: %d columns, %d rules.\n", plan.Name, len(plan.Columns), len(plan.Rules))
			for _, r := range plan.Rules {
				if !r.Tolerance.IsZero() {
					fmt.Fprintf(stdout, "  %s (%s) tolerates %s\n", r.Name, r.Severity, toleranceText(r.Tolerance.Warn.String(), r.Tolerance.Error.String()))
				}
			}
			return nil
		},
	}
	sf.add(cmd)
	cf.add(cmd, false)
	return cmd
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// noArgs refuses positional arguments as a usage error (exit 2).
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q; every input is given by a flag", args[0])
	}
	return nil
}

// TypeName names the error in the JSON report.
func (e *usageError) TypeName() string { return "UsageError" }
