// Package duckdb is the DuckDB engine, the local one: its Engine is a runner.Connector whose
// sessions open an asset's input (the input addresses of package runner), run the statements of
// the engine-neutral run on a connection of their own, and write the table and the quarantine
// atomically (Parquet files swapped in under a lock and journal, DuckDB tables in one
// transaction). It also runs what only DuckDB does: collections (every member in one session,
// written all or none), Filter's Arrow rows, Inspect and WriteQuery. It registers itself with
// runner when imported, as a database/sql driver does (tablegate.Open finds it), and links the
// run history (package history). It holds no SQL of the evaluation (compile.Program) and imports
// no other engine.
package duckdb

import (
	"context"
	gosql "database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	duckdbgo "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/duckdbtune"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/internal/trace"
	"github.com/tablegate/tablegate/runner"
)

// Engine runs assets on one DuckDB database. It is safe for concurrent runs of different assets.
type Engine struct {
	db     *gosql.DB
	owned  bool
	nextID atomic.Int64
	spill  *durable.SpillDir // the engine's own spill folder when it opened the database
	// boost gives DuckDB more threads while key aggregates run (the program's KeyAggregate steps): only on a
	// database the engine opened without a thread count, since the setting is global.
	boost threadBoost
	trace *trace.Tracer
}

// threadBoost raises DuckDB's global thread count while runs aggregate keys, and gives it back
// once none does and no other run is open: lowering the count makes DuckDB stop and join every
// worker, which would wait for the tasks of other runs' statements.
type threadBoost struct {
	allowed bool
	mu      sync.Mutex
	runs    int   // runs open on the engine
	users   int   // runs aggregating keys
	raised  int64 // the count set; 0 while not raised
	restore int64 // the count to give back
}

// Config configures an engine's DuckDB (runner.Config, which the facade's Open takes).
type Config = runner.Config

// DefaultStorageVersion is the storage format of new database files unless Config says
// otherwise (runner.DefaultStorageVersion).
const DefaultStorageVersion = runner.DefaultStorageVersion

// sandbox are the settings Open gives every engine's DuckDB before anything runs on it: no
// extension is installed or loaded on demand (a function of an extension that is not built in
// fails instead of being downloaded), and no community extension can be loaded. They are global
// settings: an Engine made by New on a caller's database runs with whatever that database has,
// so callers set them there (SET autoinstall_known_extensions = false, and so on).
//
// Config.AllowedDirectories also confines DuckDB's file access. The configuration stays
// unlocked: every run sets perfect_ht_threshold, and key aggregates raise threads, which
// lock_configuration forbids. Rules cannot change settings anyway: custom SQL is refused at
// compile time unless it is one expression without subqueries, table functions or functions
// that read the engine.
var sandbox = []string{
	"autoinstall_known_extensions",
	"autoload_known_extensions",
	"allow_community_extensions",
}

// Open opens an engine on a new DuckDB database (in memory unless cfg.Path is set).
func Open(cfg Config) (*Engine, error) {
	if err := filekind.Regular(cfg.Path); err != nil {
		return nil, err
	}
	if err := filekind.Directory(cfg.TempDirectory); err != nil {
		return nil, fmt.Errorf("temp directory: %w", err)
	}
	version := cfg.StorageVersion
	if version == "" {
		version = DefaultStorageVersion
	}
	// At start-up, so that it also applies to the file at Path when DuckDB creates it.
	connector, err := duckdbgo.NewConnector(cfg.Path+"?storage_compatibility_version="+url.QueryEscape(version), nil)
	if err != nil {
		if cfg.StorageVersion != "" && strings.Contains(err.Error(), "storage_compatibility_version") {
			return nil, &runner.SettingError{Setting: "storage_compatibility_version", Value: cfg.StorageVersion, Source: "argument Config.StorageVersion",
				Allowed: "a DuckDB storage version such as v1.5.0 or v2.0.0, or latest", Err: err}
		}
		return nil, openError(cfg.Path, err)
	}
	db := gosql.OpenDB(connector)
	for _, name := range sandbox {
		if _, err := db.Exec(duckdbtune.Disable(name)); err != nil {
			db.Close()
			return nil, fmt.Errorf("configure DuckDB: %w", err)
		}
	}
	// DuckDB checks each value as it is set; a refusal names the Config field it came from.
	type setting struct{ name, value, field, allowed string }
	var settings []setting
	if cfg.MemoryLimit != "" {
		settings = append(settings, setting{"memory_limit", cfg.MemoryLimit, "MemoryLimit", "a size DuckDB accepts, such as 4GB"})
	}
	base := cfg.TempDirectory
	switch {
	case base != "":
	case cfg.Path == "":
		base = ".tmp" // DuckDB's default for an in-memory database
	default:
		base = cfg.Path + ".tmp"
	}
	spill := durable.NewSpillDir(base, cfg.TempDirectory == "")
	const folder = "a folder DuckDB can spill to"
	if spill != nil {
		settings = append(settings, setting{"temp_directory", spill.Path(), "TempDirectory", folder})
	} else if cfg.TempDirectory != "" {
		settings = append(settings, setting{"temp_directory", cfg.TempDirectory, "TempDirectory", folder})
	}
	if cfg.Threads > 0 {
		settings = append(settings, setting{"threads", strconv.Itoa(cfg.Threads), "Threads", "a number of threads, or 0 for every core"})
	}
	for _, s := range settings {
		if _, err := db.Exec(duckdbtune.Set(s.name, s.value)); err != nil {
			db.Close()
			spill.Release()
			return nil, &runner.SettingError{Setting: s.name, Value: s.value, Source: "argument Config." + s.field, Allowed: s.allowed, Err: err}
		}
	}
	if cfg.Confined {
		dirs := cfg.AllowedDirectories
		if cfg.TempDirectory != "" {
			dirs = append(slices.Clip(dirs), cfg.TempDirectory)
		}
		if err := confine(db, dirs, spill); err != nil {
			db.Close()
			spill.Release()
			return nil, err
		}
	}
	eng := &Engine{db: db, owned: true, spill: spill, boost: threadBoost{allowed: cfg.Threads == 0}}
	if cfg.Trace != nil {
		eng.trace = trace.New(cfg.Trace, cfg.TraceFull)
	}
	return eng, nil
}

// confine turns DuckDB's external access off but for dirs and the spill folder. DuckDB takes
// the folders only while access is still on.
func confine(db *gosql.DB, dirs []string, spill *durable.SpillDir) error {
	var list []string
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return fmt.Errorf("allowed directory %q: %w", d, err)
		}
		list = append(list, strings.TrimSuffix(abs, string(filepath.Separator))+string(filepath.Separator))
	}
	if spill != nil {
		list = append(list, spill.Path()+string(filepath.Separator))
	}
	for _, stmt := range duckdbtune.Confine(list) {
		if _, err := db.Exec(stmt); err != nil {
			return fmt.Errorf("configure DuckDB: %w", err)
		}
	}
	return nil
}

// New wraps a DuckDB *sql.DB the caller owns; Close leaves it open. It leaves the database's
// settings as they are; Open turns off extension auto-install, auto-load and community
// extensions, which the caller should turn off on db too.
func New(db *gosql.DB) *Engine { return &Engine{db: db} }

// DB is the engine's database, for callers that prepare inputs in it. A thread count set on it
// while a run aggregates keys is kept; the engine gives back only the count it replaced.
func (e *Engine) DB() *gosql.DB { return e.db }

// Close closes the database if the engine opened it.
func (e *Engine) Close() error {
	if e.owned && e.db != nil {
		err := e.db.Close()
		e.spill.Release()
		return err
	}
	return nil
}

// conn is a run's connection; with a tracer, it writes every statement it runs to it.
type conn struct {
	*gosql.Conn
	trace *trace.Tracer // nil: not traced
}

// ExecContext runs a statement.
func (c conn) ExecContext(ctx context.Context, query string, args ...any) (gosql.Result, error) {
	defer c.trace.Log(c.trace.Begin(), query)
	return c.Conn.ExecContext(ctx, query, args...)
}

// QueryContext runs a query; DuckDB has built the whole result when it returns.
func (c conn) QueryContext(ctx context.Context, query string, args ...any) (*gosql.Rows, error) {
	defer c.trace.Log(c.trace.Begin(), query)
	return c.Conn.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query for one row.
func (c conn) QueryRowContext(ctx context.Context, query string, args ...any) *gosql.Row {
	defer c.trace.Log(c.trace.Begin(), query)
	return c.Conn.QueryRowContext(ctx, query, args...)
}

// run is the state of one run on its own connection (temp tables are per connection).
type run struct {
	conn     conn
	id       int64
	attached map[string]string // absolute database file -> alias
	// temps are the temp tables the run's input made; prog the run's program, whose cleanup
	// steps drop its own temp tables and variables.
	temps []string
	// views are the reference views (compile.ReferenceView) the run made.
	views []string
	prog  *compile.Program
	// callerPerfectHash is perfect_ht_threshold as the run found it (0: not read, left alone).
	callerPerfectHash int64
	// perfectHashBits is the threshold the run set when it opened (0: left alone), the most a
	// program fits to its rows; sessionBits the one the connection has now, shared by sibling
	// runs, whose programs each set their own. memoryLimit is DuckDB's, in bytes (0: unknown),
	// from which duckdbtune.MemoryBudget gives what one structure of the run may take.
	perfectHashBits int
	sessionBits     *int
	memoryLimit     int64
	// threads is DuckDB's thread count; keyThreads the count key aggregates run with.
	threads, keyThreads int64
	boost               *threadBoost
	closed              bool
	// afterOpen, when set, gives back what the input held until it was open (an Arrow view's
	// registration).
	afterOpen func()
	// set, when not nil, is the write set the run's outputs join: their writers take no lock of
	// their own and put nothing in place; the set does it for every member at once.
	set *writeSet
	// sibling runs share another run's connection (a collection's members): closing one drops
	// only what it made.
	sibling bool
	// setTables, for a collection's runs (shared by the siblings), is per database file
	// (absolute; "" the engine's own) the transaction its members' table writes share.
	setTables map[string]setTable
}

// setTable is the transaction a collection's members writing tables of one database file share:
// the catalog the file is attached as, the run whose write attaches it and begins, and the file
// as given.
type setTable struct {
	catalog string
	opener  int64
	file    string
}

// sibling is a run on r's connection with its own number, so that its temp tables are its own
// (a collection's member): it shares r's settings, threads and attached databases (DuckDB
// attaches a file once per connection, and two members may read or write one file), and r
// detaches them and closes the connection.
func (e *Engine) sibling(r *run) *run {
	return &run{conn: r.conn, id: e.nextID.Add(1), attached: r.attached, boost: r.boost, sibling: true, setTables: r.setTables,
		perfectHashBits: r.perfectHashBits, sessionBits: r.sessionBits, memoryLimit: r.memoryLimit, threads: r.threads, keyThreads: r.keyThreads}
}

func (e *Engine) newRun(ctx context.Context) (*run, error) {
	c, err := e.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to DuckDB: %w", err)
	}
	r := &run{conn: conn{Conn: c, trace: e.trace}, id: e.nextID.Add(1), attached: map[string]string{}}
	// Key rules group by the key columns. For an integer key whose values span a range DuckDB
	// knows from statistics, an array indexed by the value (a perfect hash) is much faster than
	// DuckDB's hash table and, for dense keys, smaller (measured, 2 threads: a 10M-row primary
	// key 0.92 s -> 0.38 s; 30M rows 3.5 s and 1.7 GB -> 0.9 s and 0.9 GB). Each thread
	// allocates the whole array, so its size follows the threads and the memory limit. Reset
	// when the run ends: the connection may be the caller's.
	r.boost = &e.boost
	threads, terr := r.boost.opened(ctx, r)
	var limit string
	// A memory limit too small for even this query fails the run later, where the error names
	// the input being read; DuckDB's default threshold stays.
	if err := r.conn.QueryRowContext(ctx, duckdbtune.ReadSettings).Scan(&limit, &r.callerPerfectHash); err == nil && terr == nil {
		r.threads, r.keyThreads = threads, threads
		if r.boost.allowed && r.threads <= duckdbtune.GrowThreads {
			r.keyThreads = duckdbtune.GrowThreads + 1
		}
		r.memoryLimit = duckdbtune.ParseSize(limit)
		bits := duckdbtune.PerfectHashBits(r.keyThreads, r.memoryLimit, 0)
		if _, err := r.conn.ExecContext(ctx, compile.DuckDBTuning.SetPerfectHash(bits)); err != nil {
			r.boost.closed(r)
			_ = c.Close()
			return nil, fmt.Errorf("configure DuckDB: %w", err)
		}
		r.perfectHashBits, r.sessionBits = bits, &bits
	}
	return r, nil
}

// opened counts a new run and returns DuckDB's thread count as the run should see it: while
// raised, the count that will be given back.
func (b *threadBoost) opened(ctx context.Context, r *run) (int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.runs++
	if b.raised > 0 {
		return b.restore, nil
	}
	return currentThreads(ctx, r)
}

// closed counts a run's end, giving the count back if it was the last one open.
func (b *threadBoost) closed(r *run) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.runs--
	b.lower(r, 0)
}

// raise gives DuckDB n threads for the caller until it calls the returned release; runs that
// overlap share one raise. A count of n or more, set by anyone, is left as it is.
func (b *threadBoost) raise(ctx context.Context, r *run, n int64) (release func(), err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.raised == 0 {
		now, err := currentThreads(ctx, r)
		if err != nil {
			return nil, fmt.Errorf("configure DuckDB: %w", err)
		}
		if now >= n {
			return func() {}, nil
		}
		if _, err := r.conn.ExecContext(ctx, compile.DuckDBTuning.SetThreads(n)); err != nil {
			return nil, fmt.Errorf("configure DuckDB: %w", err)
		}
		b.raised, b.restore = n, now
	}
	b.users++
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.users--
		b.lower(r, 1)
	}, nil
}

// lower gives the count back when no run aggregates keys and at most open runs (the caller's)
// are open, so that no other statement is running. A count someone changed meanwhile is theirs;
// a refused SET is tried again at the next chance. The caller holds b.mu.
func (b *threadBoost) lower(r *run, open int) {
	if b.raised == 0 || b.users > 0 || b.runs > open {
		return
	}
	// Even when the run was cancelled: the setting is the engine's, not the run's.
	ctx := context.Background()
	if now, err := currentThreads(ctx, r); err != nil || now == b.raised {
		if _, err := r.conn.ExecContext(ctx, compile.DuckDBTuning.RestoreThreads(), b.restore); err != nil {
			return
		}
	}
	b.raised, b.restore = 0, 0
}

func currentThreads(ctx context.Context, r *run) (int64, error) {
	var n int64
	err := r.conn.QueryRowContext(ctx, compile.DuckDBTuning.ReadThreads()).Scan(&n)
	return n, err
}

// fitPerfectHash returns the perfect-hash threshold for that many input rows
// (duckdbtune.PerfectHashBits), at most the one set when the run opened, and the one the
// connection has now, which the program changes when the two differ
// (compile.Facts.SessionPerfectHash): a collection's member runs after a smaller one on the
// same connection.
func (r *run) fitPerfectHash(rows int64) (fit, session int) {
	if r.perfectHashBits == 0 {
		return 0, 0 // the threshold was left alone
	}
	fit, session = min(r.perfectHashBits, duckdbtune.PerfectHashBits(r.keyThreads, r.memoryLimit, rows)), *r.sessionBits
	*r.sessionBits = fit
	return fit, session
}

// close drops what the run created and detaches its databases; it runs even when ctx is done,
// once.
func (r *run) close() {
	if r.closed {
		return
	}
	r.closed = true
	ctx := context.Background()
	if r.prog != nil {
		runner.Cleanup(&backend{r: r}, r.prog)
	}
	for _, t := range r.temps {
		_, _ = r.conn.ExecContext(ctx, compile.DropTemp(t))
	}
	for _, v := range r.views {
		_, _ = r.conn.ExecContext(ctx, compile.DropReferenceView(v))
	}
	if r.sibling {
		return
	}
	for _, alias := range r.attached {
		_, _ = r.conn.ExecContext(ctx, compile.DetachIfExists(alias))
	}
	r.restorePerfectHash(ctx)
	if r.boost != nil {
		r.boost.closed(r)
	}
	_ = r.conn.Close()
}

// restorePerfectHash gives the connection back the perfect-hash threshold it had: the global
// one, or the caller's own session value, which a plain RESET would have dropped.
func (r *run) restorePerfectHash(ctx context.Context) {
	if r.callerPerfectHash == 0 {
		return // never changed
	}
	_, _ = r.conn.ExecContext(ctx, duckdbtune.ResetPerfectHash)
	var now int64
	if err := r.conn.QueryRowContext(ctx, duckdbtune.ReadPerfectHash).Scan(&now); err == nil && now != r.callerPerfectHash {
		_, _ = r.conn.ExecContext(ctx, compile.DuckDBTuning.SetPerfectHash(int(r.callerPerfectHash)))
	}
}

// attachAs runs stmt, which attaches the file path (abs) as alias.
func (r *run) attachAs(ctx context.Context, path, abs, alias, stmt string) error {
	if err := filekind.Regular(path); err != nil {
		return err
	}
	if _, err := r.conn.ExecContext(ctx, stmt); err != nil {
		return openError(path, err)
	}
	r.attached[abs] = alias
	return nil
}

// alias is the catalog name the database file has, or will have once attached: the run's
// attachments are numbered in order.
func (r *run) alias(path string) string {
	abs, err := filepath.Abs(path)
	if err == nil {
		if alias, ok := r.attached[abs]; ok {
			return alias
		}
	}
	return fmt.Sprintf("__tg_db%d_%d", r.id, len(r.attached))
}

func (r *run) exec(ctx context.Context, query string) error {
	_, err := r.conn.ExecContext(ctx, query)
	return err
}
