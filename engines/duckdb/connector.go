package duckdb

import (
	"cmp"
	"context"
	gosql "database/sql"
	"os"
	"path/filepath"
	"strings"

	"github.com/tablegate/tablegate/compile"
	_ "github.com/tablegate/tablegate/history" // the run history, a DuckDB file: linked with the DuckDB engine
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// The DuckDB engine is the local engine: a program that imports this package opens it with
// runner.Open (the facade's tablegate.Open).
func init() { runner.Register(duckdbDriver{}) }

// duckdbDriver opens DuckDB engines for runner.Open and runner.New.
type duckdbDriver struct{}

func (duckdbDriver) Open(cfg runner.Config) (runner.Connector, error) { return Open(cfg) }
func (duckdbDriver) New(db *gosql.DB) runner.Connector                { return New(db) }
func (duckdbDriver) Version() string                                  { return DuckDBVersion() }

// The Engine is the engine-neutral run's Connector to DuckDB, with its optional capabilities.
var (
	_ runner.Connector   = (*Engine)(nil)
	_ runner.Recoverer   = (*Engine)(nil)
	_ runner.Versioned   = (*Engine)(nil)
	_ runner.Collections = (*Engine)(nil)
	_ runner.Inspector   = (*Engine)(nil)
	_ runner.QueryWriter = (*Engine)(nil)
)

// Prepare leaves the asset as it is: DuckDB runs it as given, and refuses an output it does not
// write when it connects.
func (e *Engine) Prepare(_ context.Context, a runner.Asset, _ runner.Options) (runner.Asset, []string, error) {
	return a, nil, nil
}

// Recover checks the output (a folder that is not one, names too long, a format DuckDB does
// not write) and completes what a killed run left at it (RecoverOutput).
func (e *Engine) Recover(ctx context.Context, a runner.Asset, quarantineName string) (rolledBack, err error) {
	if err := checkOutput(a.Output, quarantineName); err != nil {
		return nil, &outcome.OutputError{Output: a.Output.String(), Err: err}
	}
	rolledBack, err = recoverOutput(ctx, a.Output)
	if err != nil {
		return nil, &outcome.OutputError{Output: a.Output.String(), Err: err}
	}
	return rolledBack, nil
}

// Connect opens a run on a connection of its own, numbered among all of the engine's runs (its
// collections' and Filter's too), whatever runner.Engine asks.
func (e *Engine) Connect(ctx context.Context, a runner.Asset, _ int64) (runner.Backend, error) {
	switch a.Output.(type) {
	case nil, runner.ParquetOutput, runner.TableOutput:
	default:
		return nil, &outcome.OutputError{Output: a.Output.String(), Err: runner.RefuseOutput("DuckDB", a.Output)}
	}
	r, err := e.newRun(ctx)
	if err != nil {
		return nil, err
	}
	return newBackend(r, a, outputFiles(a)), nil
}

// Note is explain's first line for a DuckDB run.
func (e *Engine) Note() string { return sessionNote }

// DuckDBVersion is the embedded DuckDB's version, which the run's report names.
func (e *Engine) DuckDBVersion() string { return DuckDBVersion() }

// Run validates the asset on this engine: the engine-neutral run (runner.Engine.Run).
func (e *Engine) Run(ctx context.Context, a runner.Asset, opts runner.Options) (*outcome.Report, error) {
	return runner.NewOn(e).Run(ctx, a, opts)
}

// Explain is runner.Engine.Explain on this engine.
func (e *Engine) Explain(ctx context.Context, p *compile.Plan, in runner.Input) (string, error) {
	return runner.NewOn(e).Explain(ctx, p, in)
}

// ExplainAsset is runner.Engine.ExplainAsset on this engine.
func (e *Engine) ExplainAsset(ctx context.Context, a runner.Asset, opts runner.Options) (string, error) {
	return runner.NewOn(e).ExplainAsset(ctx, a, opts)
}

// sessionNote is explain's one line for the statements of a run that are not its program's: the
// settings it reads and sets when it opens and gives back when it closes, and what it closes.
const sessionNote = "-- Besides these statements, the run reads DuckDB's settings (threads, memory_limit, perfect_ht_threshold) " +
	"and sets its perfect-hash threshold when it opens; when it closes it drops the input's temp tables and the references' views, gives the " +
	"threshold back and detaches the databases it attached.\n"

// outputFiles are the database files the asset's output writes, which its input attaches for
// writing too.
func outputFiles(a runner.Asset) map[string]bool {
	written := map[string]bool{}
	if t, ok := a.Output.(runner.TableOutput); ok && t.File != "" {
		abs, _ := filepath.Abs(t.File)
		written[abs] = true
	}
	return written
}

// readsOutput reports whether the input is the output's table itself.
func readsOutput(in runner.Input, out runner.Output) bool {
	switch o := out.(type) {
	case runner.ParquetOutput:
		i, ok := in.(runner.ParquetInput)
		if !ok {
			return false
		}
		target, err := os.Stat(o.Path)
		if err != nil {
			return false
		}
		matches, _ := filepath.Glob(i.Path)
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && os.SameFile(st, target) {
				return true
			}
		}
	case runner.TableOutput:
		i, ok := in.(runner.TableInput)
		if !ok || !strings.EqualFold(i.Table, o.Table) || !strings.EqualFold(cmp.Or(i.Schema, "main"), o.SchemaName()) {
			return false
		}
		if i.File == "" || o.File == "" {
			return i.File == o.File
		}
		a, aerr := os.Stat(i.File)
		b, berr := os.Stat(o.File)
		return aerr == nil && berr == nil && os.SameFile(a, b)
	}
	return false
}

// The backend is a runner.Backend with every capability the run asks for.
var (
	_ runner.Writing     = (*backend)(nil)
	_ runner.Tuner       = (*backend)(nil)
	_ runner.Opener      = (*backend)(nil)
	_ runner.FileChecker = (*backend)(nil)
	_ runner.Referencer  = (*backend)(nil)
	_ runner.Blamer      = (*backend)(nil)
)
