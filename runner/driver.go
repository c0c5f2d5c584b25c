package runner

import (
	"context"
	gosql "database/sql"
	"errors"
	"io"
	"sync"
)

// Config configures the local engine's database, DuckDB (engines/duckdb), which Open opens.
type Config struct {
	// Path is a DuckDB database file; "" is an in-memory database.
	Path string
	// MemoryLimit caps DuckDB's memory (DuckDB syntax: "4GB"); "" keeps DuckDB's default (80% of
	// RAM). Past it DuckDB spills to TempDirectory.
	MemoryLimit string
	// TempDirectory is where DuckDB spills; "" uses DuckDB's default (<Path>.tmp next to the
	// database, or .tmp in the working directory for in-memory databases). Each engine spills to
	// a folder of its own inside it (tablegate-<pid>-*), removed on Close; the folder of an
	// engine that died is removed by the next engine on the same TempDirectory.
	TempDirectory string
	// Threads limits DuckDB's worker threads; 0 uses every core, and on 1 or 2 cores lets the
	// engine raise DuckDB's (global) thread count to 3 while key aggregates run.
	Threads int
	// Trace, when set, gets a line per statement the engine runs, with its wall time and the
	// process's CPU time over it (the CLI's TABLEGATE_TRACE); TraceFull writes whole statements,
	// not their first 160 characters.
	Trace     io.Writer
	TraceFull bool
	// Confined limits DuckDB's file access to AllowedDirectories (and their subfolders),
	// TempDirectory and the engine's spill folder: inputs, outputs and database files elsewhere
	// are refused with DuckDB's permission error. Without it, access is as DuckDB has it.
	Confined           bool
	AllowedDirectories []string
	// StorageVersion is the storage format of the database files the engine creates (Path when
	// it does not exist yet, and DuckDB-table outputs in new files): "" is DefaultStorageVersion,
	// which DuckDB 1.5 and later read; "latest" is the embedded DuckDB's own format. A file that
	// exists keeps the format it has.
	StorageVersion string
}

// DefaultStorageVersion is the storage format of the database files the local engine creates
// unless Config.StorageVersion says otherwise: one DuckDB 1.5 and later read.
const DefaultStorageVersion = "v1.5.0"

// Driver opens the local engine: DuckDB's (engines/duckdb), which registers itself when a
// program imports it, as a database/sql driver does.
type Driver interface {
	// Open opens an engine on a new database (in memory unless cfg.Path is set).
	Open(cfg Config) (Connector, error)
	// New wraps a database the caller opened and owns.
	New(db *gosql.DB) Connector
	// Version is the engine's version, which reports of runs that never started name.
	Version() string
}

var (
	driverMu sync.RWMutex
	driver   Driver
)

// Register makes d the local engine that Open opens. It panics when called twice, as
// database/sql's Register does for one name.
func Register(d Driver) {
	driverMu.Lock()
	defer driverMu.Unlock()
	if d == nil {
		panic("runner: Register driver is nil")
	}
	if driver != nil {
		panic("runner: Register called twice")
	}
	driver = d
}

// ErrNoDriver is Open's error in a program that links no local engine.
var ErrNoDriver = errors.New(`no local engine is linked into this program: import _ "github.com/tablegate/tablegate/engines/duckdb" (or run on another engine with NewOn)`)

// Registered is the local engine's driver (ErrNoDriver without one).
func Registered() (Driver, error) {
	driverMu.RLock()
	defer driverMu.RUnlock()
	if driver == nil {
		return nil, ErrNoDriver
	}
	return driver, nil
}

// Open opens an engine on the local engine's new database (Driver.Open).
func Open(cfg Config) (*Engine, error) {
	d, err := Registered()
	if err != nil {
		return nil, err
	}
	c, err := d.Open(cfg)
	if err != nil {
		return nil, err
	}
	return NewOn(c), nil
}

// New wraps a database the caller owns on the local engine (Driver.New); without one linked,
// every run of the engine fails with ErrNoDriver.
func New(db *gosql.DB) *Engine {
	d, err := Registered()
	if err != nil {
		return NewOn(unlinked{})
	}
	return NewOn(d.New(db))
}

// unlinked is the Connector of New in a program that links no local engine: it refuses every
// run.
type unlinked struct{}

func (unlinked) Prepare(_ context.Context, a Asset, _ Options) (Asset, []string, error) {
	return a, nil, ErrNoDriver
}
func (unlinked) Connect(context.Context, Asset, int64) (Backend, error) { return nil, ErrNoDriver }
func (unlinked) Note() string                                           { return "" }

// Close closes the engine's connector when it holds something (its database, when Open opened
// it).
func (e *Engine) Close() error {
	if c, ok := e.c.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// DB is the engine's database, when its engine has one (nil on another engine).
func (e *Engine) DB() *gosql.DB {
	if d, ok := e.c.(interface{ DB() *gosql.DB }); ok {
		return d.DB()
	}
	return nil
}
