// Package spark runs tablegate schemas on Apache Spark through Spark Connect: its Engine is a
// runner.Connector, one engine of the engine-neutral run (package runner), with the same
// report, checks at every granularity, samples, outcomes and publishing as on DuckDB. It imports
// runner, compile and casting, and no other engine. The plan is rendered in Spark SQL
// (package compile/spark), the program's statements too (compile.ProgramDialect); the column
// types are checked before any row is read; the valid rows and the quarantine are Parquet
// directories that Spark writes into temporaries of the output's Store (a local folder, S3), put
// in place under the output's lock and journal only after Spark finished them, or Delta and
// Iceberg tables of the server's catalog, each replaced in one commit and kept one run's pair by
// their properties (table.go).
//
// It is a module of its own so that gRPC and the Spark Connect client stay out of the
// DuckDB-only build.
package spark

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	dialect "github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/internal/store"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// sessionConf pins what the dialect's results and a run's passes depend on, whatever the
// server's defaults are.
var sessionConf = [][2]string{
	{"spark.sql.session.timeZone", "UTC"},
	{"spark.sql.ansi.enabled", "true"},
	{"spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS"},
	{"spark.sql.caseSensitive", "true"},
	// The dialect escapes backslashes in string literals (regexes, is_in values) as Spark's
	// default parser reads them; the legacy setting would read them as written.
	{"spark.sql.parser.escapedStringLiterals", "false"},
	// Temporary views keep their analyzed plan: otherwise each statement over the run's cached
	// rows analyzes their query again, and with it the input's view, for which Spark infers the
	// Parquet schema once more (a job reading the footers, per view of the input the query names:
	// 2 to 6 jobs per statement).
	{"spark.sql.legacy.storeAnalyzedPlanForView", "true"},
}

// Engine runs assets on one Spark Connect server: it is an runner.Connector, and Run is
// runner.NewOn(e).Run.
type Engine struct {
	connect func(ctx context.Context) (Session, error)
	hdfs    *HDFSOptions
	s3      *S3Options
	// lockDir holds the locks of catalog table outputs.
	lockDir string
}

// Option configures an engine.
type Option func(*Engine)

// WithS3 gives the engine its own access to the object store of s3a:// outputs (S3Options: an
// aws.Config, from config.LoadDefaultConfig for the default credential chain); the Spark server
// reads and writes them with its own s3a settings.
func WithS3(o S3Options) Option {
	return func(e *Engine) { e.s3 = &o }
}

// WithHDFS gives the engine its own access to the HDFS of hdfs:// outputs (HDFSOptions); the
// Spark server reads and writes them with its own Hadoop settings.
func WithHDFS(o HDFSOptions) Option {
	return func(e *Engine) { e.hdfs = &o }
}

// New returns an engine that opens a session on remote (sc://HOST:PORT) for each run.
func New(remote string, opts ...Option) *Engine {
	return NewWith(func(ctx context.Context) (Session, error) { return Connect(ctx, remote) }, opts...)
}

// NewWith returns an engine over sessions that connect opens (another Spark client).
func NewWith(connect func(ctx context.Context) (Session, error), opts ...Option) *Engine {
	e := &Engine{connect: connect}
	for _, o := range opts {
		o(e)
	}
	return e
}

// WithLockDir keeps the locks of catalog table outputs (runner.CatalogOutput) in dir: runs that
// share dir wait for each other before they write the same table. An engine without one
// refuses catalog outputs (tablegate-spark uses tablegate/spark-locks in the user's cache
// folder).
func WithLockDir(dir string) Option {
	return func(e *Engine) { e.lockDir = dir }
}

// Run validates the asset and applies the failure policy, as the DuckDB engine does, with the
// same report (its duckdb_version empty). The asset's input is an runner.ParquetInput (a Parquet
// file or a directory of Parquet files) and its output an runner.ParquetOutput (a directory of part
// files) or an runner.CatalogOutput (a Delta or Iceberg table); what Spark cannot run, of the asset
// and of opts, is refused before anything connects (*RefusedError), and ops of the program it
// cannot run before any runs (*runner.Refusal).
//
// Cancelling ctx interrupts the session's operations on the server (Spark Connect's Interrupt)
// and stops the run; nothing is swapped into place after a cancellation.
func (e *Engine) Run(ctx context.Context, a runner.Asset, opts runner.Options) (*outcome.Report, error) {
	return runner.NewOn(e).Run(ctx, a, opts)
}

// Prepare renders the plan in Spark SQL, makes the output absolute (checked writable, its
// folder made) and completes what a killed run left at it, and refuses what Spark cannot run.
// A local input that is missing with opts.SkipMissing is no input (the skipped outcome).
func (e *Engine) Prepare(ctx context.Context, a runner.Asset, opts runner.Options) (runner.Asset, []string, error) {
	if err := refuse(a, opts); err != nil {
		return a, nil, err
	}
	for _, name := range []string{a.Name, a.QuarantineName} {
		// A name makes the quarantine's path: no separators, no "..".
		if name != "" {
			if err := runner.CheckAssetName(name); err != nil {
				return a, nil, err
			}
		}
	}
	var st store.Store
	if out, ok := a.Output.(runner.ParquetOutput); ok {
		// Checked writable before any work.
		table, err := normalizeOutput(out.Path)
		if err != nil {
			return a, nil, &outcome.OutputError{Output: out.Path, Err: err}
		}
		a.Output = runner.ParquetOutput{Path: table}
		if st, err = e.store(a); err == nil {
			err = st.Check(ctx)
		}
		if err != nil {
			return a, nil, &outcome.OutputError{Output: out.Path, Err: err}
		}
	}
	prog, err := dialect.CompileContext(ctx, a.Plan)
	if err != nil {
		return a, nil, err
	}
	a.Plan = prog.Spark()
	if in, ok := a.Input.(runner.ParquetInput); ok && opts.SkipMissing {
		if _, local, err := fileURL(in.Path); err == nil && local != "" {
			if _, err := os.Stat(local); errors.Is(err, os.ErrNotExist) {
				a.Input = nil // no source data: skipped
			}
		}
	}
	switch out := a.Output.(type) {
	case runner.ParquetOutput:
		rolledBack, err := store.Recover(ctx, st)
		if err != nil {
			return a, nil, &outcome.OutputError{Output: a.Output.String(), Err: err}
		}
		if rolledBack != nil {
			return a, []string{rolledBack.Error()}, nil
		}
	case runner.CatalogOutput:
		// The catalog and format are checked before any work, and a killed run's lone
		// quarantine rolled back.
		if e.lockDir == "" {
			return a, nil, &outcome.OutputError{Output: out.String(), Err: errors.New("the Spark engine has no folder for the catalog tables' locks: give it one (spark.WithLockDir)")}
		}
		rolledBack, err := e.recoverTables(ctx, out, quarantineTable(a))
		if err != nil {
			return a, nil, &outcome.OutputError{Output: out.String(), Err: err}
		}
		if rolledBack != nil {
			return a, []string{rolledBack.Error()}, nil
		}
	}
	return a, nil, nil
}

// Connect opens the run's session (no I/O until its first statement); cancelling ctx interrupts
// its operations on the server.
func (e *Engine) Connect(ctx context.Context, a runner.Asset, id int64) (runner.Backend, error) {
	s, err := e.connect(ctx)
	if err != nil {
		return nil, err
	}
	b := &backend{s: s, a: a, id: id, rules: dialect.RulesOf(a.Plan)}
	switch out := a.Output.(type) {
	case runner.ParquetOutput:
		if b.store, err = e.store(a); err != nil {
			_ = s.Close()
			return nil, err
		}
		b.out = a.Output.String()
		if a.Quarantine {
			b.quarantine = a.QuarantineAddress(runner.AssetName(a))
		}
	case runner.CatalogOutput:
		b.table = &tableOutput{out: out, lockDir: e.lockDir}
		if a.Quarantine {
			b.table.quarantine = quarantineTable(a)
		}
	}
	b.stop = context.AfterFunc(ctx, b.interrupt)
	return b, nil
}

// Note is explain's first line for a Spark run.
func (e *Engine) Note() string {
	return "-- Besides these statements, the run sets its Spark session's SQL settings (time zone UTC, ANSI mode, microsecond timestamps, " +
		"case-sensitive names, escaped string literals) when it opens, and drops the input's views when it closes. " +
		"A Delta or Iceberg output's writer also reads the catalog's settings and both tables' properties, the quarantine's version, " +
		"makes the namespace, binds the run's token and that version to $1 and $2, and rolls back a quarantine written without its table.\n"
}

// RefusedError is what a Spark run cannot do, of its asset or options; nothing ran.
type RefusedError struct {
	What    string // what Spark cannot do: "read CSV inputs"
	Instead string // what the user can do instead
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the Spark engine cannot %s: %s", e.What, e.Instead)
}

// refuse returns the first of the asset's inputs, outputs and the options a Spark run cannot
// honour.
func refuse(a runner.Asset, opts runner.Options) error {
	switch a.Input.(type) {
	case nil, runner.ParquetInput:
	default:
		return &RefusedError{What: fmt.Sprintf("read %T inputs", a.Input), Instead: "give it Parquet (a file or a directory of files), or validate with the DuckDB engine"}
	}
	switch a.Output.(type) {
	case nil, runner.ParquetOutput, runner.CatalogOutput:
	default:
		return &RefusedError{What: "write DuckDB tables", Instead: "write a Parquet directory (--out DIR) or a Delta or Iceberg table (--out delta:… or iceberg:…), or validate with the DuckDB engine"}
	}
	if opts.Cast {
		return &RefusedError{What: "cast columns (--cast)", Instead: "write the input with the declared types, or validate with the DuckDB engine"}
	}
	return nil
}

// quarantineTable is the name of the quarantine table beside a catalog output's table.
func quarantineTable(a runner.Asset) string {
	if a.QuarantineName != "" {
		return a.QuarantineName
	}
	return runner.QuarantineName(runner.AssetName(a))
}

// fileURL turns the input into the URL Spark reads and, for a local path, the path this process
// checks the Parquet footers of ("" for a remote URL such as hdfs:// or s3a://).
func fileURL(in string) (string, string, error) {
	if u, err := url.Parse(in); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		if u.Scheme == "file" {
			return in, u.Path, nil
		}
		return in, "", nil
	}
	abs, err := filepath.Abs(in)
	if err != nil {
		return "", "", err
	}
	return dialect.Location(abs), abs, nil
}

// store is the store of the asset's output (a Parquet directory, its address normalized).
func (e *Engine) store(a runner.Asset) (store.Store, error) {
	quarantine := ""
	if a.Quarantine {
		quarantine = a.QuarantineAddress(runner.AssetName(a))
	}
	return e.newStore(a.Output.String(), quarantine)
}

// The Engine is the engine-neutral run's Connector to Spark; its backend a runner.Backend with
// the capabilities a Spark run has.
var (
	_ runner.Connector  = (*Engine)(nil)
	_ runner.Writing    = (*backend)(nil)
	_ runner.TypeParser = (*backend)(nil)
	_ runner.Analyzer   = (*backend)(nil)
	_ runner.Opener     = (*backend)(nil)
)
