package duckdb

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/duckdbtune"
)

// TestCountedRowsFitPerfectHash: once the input's rows are counted, a key range too sparse for
// them is aggregated in DuckDB's hash table, not in a perfect hash; a later run on the same
// connection with more rows (a collection's next member) gets the larger threshold back, never
// more than the one set when the run opened.
func TestCountedRowsFitPerfectHash(t *testing.T) {
	ctx := context.Background()
	r := newTestRun(t)
	if r.perfectHashBits < 25 {
		t.Skipf("the memory limit allows a perfect hash of 2^%d values only", r.perfectHashBits)
	}
	opened := r.perfectHashBits
	// A key spanning 20M values: 25 bits with NULL.
	if err := r.exec(ctx, "CREATE TEMP TABLE k AS SELECT * FROM (VALUES (0::BIGINT), (20000000::BIGINT)) t(id)"); err != nil {
		t.Fatal(err)
	}
	// The JSON plan names operators by their type, whatever the text format prints.
	plan := func() string {
		t.Helper()
		var kind, text string
		if err := r.conn.QueryRowContext(ctx, "EXPLAIN (FORMAT json) SELECT id, count(*) FROM k GROUP BY id").Scan(&kind, &text); err != nil {
			t.Fatal(err)
		}
		return text
	}
	if p := plan(); !strings.Contains(p, `"PERFECT_HASH_GROUP_BY"`) {
		t.Fatalf("before counting: want a perfect hash for a 2^25 range, plan:\n%s", p)
	}
	for _, c := range []struct {
		rows          int64
		want, session int
		perfect       bool // the 2^25 range in a perfect hash
	}{
		{10_000_000, 24, opened, false},
		{1_000, 12, 24, false},
		{100_000_000, min(opened, duckdbtune.PerfectHashBits(r.keyThreads, r.memoryLimit, 100_000_000)), 12, true},
	} {
		// As the program does (compile.Facts.SessionPerfectHash): set when it differs.
		fit, session := r.fitPerfectHash(c.rows)
		if fit != c.want || session != c.session {
			t.Fatalf("%d rows: fit 2^%d on a connection at 2^%d, want 2^%d at 2^%d", c.rows, fit, session, c.want, c.session)
		}
		if fit != session {
			if err := r.exec(ctx, compile.DuckDBTuning.SetPerfectHash(fit)); err != nil {
				t.Fatal(err)
			}
		}
		var now int
		if err := r.conn.QueryRowContext(ctx, "SELECT CAST(current_setting('perfect_ht_threshold') AS INTEGER)").Scan(&now); err != nil {
			t.Fatal(err)
		}
		if now != c.want || r.perfectHashBits != opened {
			t.Errorf("after %d rows: DuckDB's setting 2^%d, want 2^%d; the run's ceiling 2^%d, want 2^%d", c.rows, now, c.want, r.perfectHashBits, opened)
		}
		if p := plan(); strings.Contains(p, `"PERFECT_HASH_GROUP_BY"`) != c.perfect {
			t.Errorf("after %d rows: want a perfect hash %v, plan:\n%s", c.rows, c.perfect, p)
		}
	}
}

// TestKeyAggregateThreads: on a database the engine opened with DuckDB's default threads, at
// most duckdbtune.GrowThreads of them, key aggregates run with one thread more (DuckDB then partitions its
// hash tables). Overlapping runs share the raise; the count goes back once no run aggregates and
// no other run is open. A count the caller chose, in Config or on the database meanwhile, is
// left as it is.
func TestKeyAggregateThreads(t *testing.T) {
	ctx := context.Background()
	threadsNow := func(r *run) int64 {
		t.Helper()
		n, err := currentThreads(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// ranWith runs a key aggregate statement that stores the thread count it ran with.
	ranWith := func(e *Engine, r *run) int64 {
		t.Helper()
		if err := aggregateKey(ctx, r, "seen", "SELECT CAST(current_setting('threads') AS BIGINT) AS n"); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := r.conn.QueryRowContext(ctx, "SELECT n FROM seen").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	open := func(cfg Config, threads int) *Engine {
		t.Helper()
		e, err := Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		if threads > 0 { // DuckDB's default is every core: set as a machine with that many would
			if _, err := e.db.Exec(fmt.Sprintf("SET threads = %d", threads)); err != nil {
				t.Fatal(err)
			}
		}
		return e
	}
	newRun := func(e *Engine) *run {
		t.Helper()
		r, err := e.newRun(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(r.close) // a second close does nothing
		return r
	}

	for _, threads := range []int{1, 2} {
		e := open(Config{}, threads)
		a := newRun(e)
		if a.threads != int64(threads) || a.keyThreads != duckdbtune.GrowThreads+1 {
			t.Fatalf("%d threads: run threads %d, key aggregates %d; want %d and %d", threads, a.threads, a.keyThreads, threads, duckdbtune.GrowThreads+1)
		}
		if got := ranWith(e, a); got != duckdbtune.GrowThreads+1 {
			t.Errorf("%d threads: a key aggregate ran with %d threads, want %d", threads, got, duckdbtune.GrowThreads+1)
		}
		if got := threadsNow(a); got != int64(threads) {
			t.Errorf("%d threads: %d after the key aggregates of the only run", threads, got)
		}

		// Overlapping runs share the raise; the count stays up while another run is open.
		b := newRun(e)
		releaseA, err := e.boost.raise(ctx, a, a.keyThreads)
		if err != nil {
			t.Fatal(err)
		}
		releaseB, err := e.boost.raise(ctx, b, b.keyThreads)
		if err != nil {
			t.Fatal(err)
		}
		if c := newRun(e); c.threads != int64(threads) {
			t.Errorf("%d threads: a run opened during a raise sees %d", threads, c.threads)
		} else {
			c.close()
		}
		releaseA()
		releaseB()
		if got := threadsNow(b); got != duckdbtune.GrowThreads+1 {
			t.Errorf("%d threads: %d while two runs are open, want %d still", threads, got, duckdbtune.GrowThreads+1)
		}
		a.close()
		b.close()
		if got := threadsNow(newRun(e)); got != int64(threads) {
			t.Errorf("%d threads: %d once every run closed, want %d", threads, got, threads)
		}
	}

	// A count set on the database during a raise is kept; one of 3 or more is not raised.
	e := open(Config{}, 2)
	r := newRun(e)
	release, err := e.boost.raise(ctx, r, r.keyThreads)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Exec("SET threads = 5"); err != nil {
		t.Fatal(err)
	}
	release()
	if got := threadsNow(r); got != 5 {
		t.Errorf("a count set during the raise: %d afterwards, want 5", got)
	}
	if got := ranWith(e, r); got != 5 {
		t.Errorf("with 5 threads set: a key aggregate ran with %d", got)
	}

	// A thread count the caller chose is theirs.
	e = open(Config{Threads: 2}, 0)
	if got := ranWith(e, newRun(e)); got != 2 {
		t.Errorf("Config.Threads 2: a key aggregate ran with %d threads", got)
	}
}

// TestConcurrentKeyAggregateThreads: runs that open, aggregate keys and close at the same time
// (CI runs this under the race detector) each aggregate with the raised count, and once all
// have closed the database has its own count back.
func TestConcurrentKeyAggregateThreads(t *testing.T) {
	ctx := context.Background()
	e, err := Open(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.db.Exec("SET threads = 2"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := e.newRun(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer r.close()
			err = aggregateKey(ctx, r, "seen", fmt.Sprintf("SELECT CAST(current_setting('threads') AS BIGINT) AS n, %d AS run", i))
			var n int64
			if err == nil {
				err = r.conn.QueryRowContext(ctx, "SELECT n FROM seen").Scan(&n)
			}
			if err == nil && n != duckdbtune.GrowThreads+1 {
				err = fmt.Errorf("run %d aggregated with %d threads, want %d", i, n, duckdbtune.GrowThreads+1)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	r, err := e.newRun(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if n, err := currentThreads(ctx, r); err != nil || n != 2 {
		t.Errorf("after every run closed: %d threads (%v), want 2", n, err)
	}
}

// TestOpenSandbox: an engine's DuckDB neither installs nor loads extensions on demand, so a
// function of an extension that is not built in fails at once instead of being downloaded.
func TestOpenSandbox(t *testing.T) {
	e, err := Open(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, name := range sandbox {
		var v string
		if err := e.db.QueryRow("SELECT CAST(current_setting(?) AS VARCHAR)", name).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v != "false" {
			t.Errorf("%s = %s, want false", name, v)
		}
	}
	_, err = e.db.Exec("SELECT text(1.5, '0.00')")
	if err == nil || !strings.Contains(err.Error(), "excel extension") {
		t.Errorf("a function of the excel extension: %v, want a catalog error naming the extension", err)
	}
	var loaded int
	if err := e.db.QueryRow("SELECT count(*) FROM duckdb_extensions() WHERE extension_name = 'excel' AND (loaded OR installed)").Scan(&loaded); err != nil {
		t.Fatal(err)
	}
	if loaded != 0 {
		t.Error("the excel extension was installed or loaded")
	}
}

// aggregateKey runs a key aggregate step between the steps that raise and restore the threads,
// as a program does, storing query in table.
func aggregateKey(ctx context.Context, r *run, table, query string) error {
	b := &backend{r: r}
	defer func() { _ = b.Tune(ctx, compile.Step{Op: compile.RestoreThreads}) }()
	for _, s := range []compile.Step{
		{Op: compile.ReadThreads, SQL: compile.DuckDBTuning.ReadThreads()},
		{Op: compile.RaiseThreads, SQL: compile.DuckDBTuning.SetThreads(r.keyThreads)},
		{Op: compile.KeyAggregate, SQL: fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS %s", table, query)},
		{Op: compile.ReadThreads, SQL: compile.DuckDBTuning.ReadThreads()},
		{Op: compile.RestoreThreads, SQL: compile.DuckDBTuning.RestoreThreads()},
	} {
		var err error
		if s.Op == compile.KeyAggregate {
			err = b.Exec(ctx, s.SQL)
		} else {
			_ = b.Tune(ctx, s) // a speed setting, as the run takes it
		}
		if err != nil {
			return err
		}
	}
	return nil
}
