package duckdb_test

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	duckdbgo "github.com/duckdb/duckdb-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// The memory test is sized for CI (a few seconds); a longer local run:
//
//	go test ./engines/duckdb/ -run BeyondMemory -v -memory.rows=20000000 -memory.limit=128MB
var (
	memoryRows    = flag.Int("memory.rows", 3_000_000, "rows of the memory test's input")
	memoryLimit   = flag.String("memory.limit", "96MB", "DuckDB memory limit of the memory test (DuckDB syntax)")
	memoryThreads = flag.Int("memory.threads", 2, "DuckDB threads of the memory test")
)

// memorySchema has a VARCHAR primary key: its aggregate cannot use the array DuckDB uses for
// small integer keys, so its hash table grows with the input and must spill past the limit.
func memorySchema() *schema.Schema {
	return schema.New("Events",
		schema.String("id").PrimaryKey(),
		schema.Float64("amount").Min(0),
		schema.String("note").Nullable().MaxLength(40),
	)
}

// memoryInput writes n rows: about one in a thousand ids is a duplicate (both rows fail
// primary_key) and one row in 1009 has a negative amount.
func memoryInput(e *env, n int) string {
	distinct := n - n/1000
	return e.parquet("events.parquet", fmt.Sprintf(`SELECT
		'event-' || lpad(((i * 7919) %% %d)::VARCHAR, 10, '0') AS id,
		(i %% 1000)::DOUBLE - CASE WHEN i %% 1009 = 0 THEN 2000 ELSE 0 END AS amount,
		CASE WHEN i %% 7 = 0 THEN NULL ELSE 'note ' || (i * 31 %% 100000) END AS note
		FROM range(%d) t(i)`, distinct, n))
}

// expectedInvalid counts the invalid rows of a memory input with plain SQL, independently of
// tablegate: a duplicated id or a negative amount.
func expectedInvalid(e *env, in string) int64 {
	e.t.Helper()
	src := "read_parquet(" + lit(in) + ")"
	return e.query(fmt.Sprintf(`SELECT count(*) FROM %s WHERE amount < 0 OR id IN (SELECT id FROM %s GROUP BY id HAVING count(*) > 1)`, src, src))[0][0].(int64)
}

// measured is what a run used at its peak, sampled every 10 ms.
type measured struct {
	duckdbBytes int64 // DuckDB's own accounting (duckdb_memory())
	spillBytes  int64 // the files under the temp directory
	took        time.Duration
}

// runMeasured validates the input on a new engine with cfg, sampling its memory and spill. It
// may run on another goroutine than the test's: it returns its error.
func runMeasured(cfg duckdb.Config, plan *compile.Plan, in, out string) (*outcome.Report, measured, error) {
	eng, err := duckdb.Open(cfg)
	if err != nil {
		return nil, measured{}, err
	}
	defer eng.Close()
	var m measured
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			var used int64
			if err := eng.DB().QueryRow("SELECT COALESCE(sum(memory_usage_bytes), 0)::BIGINT FROM duckdb_memory()").Scan(&used); err == nil {
				m.duckdbBytes = max(m.duckdbBytes, used)
			}
			if cfg.TempDirectory != "" {
				m.spillBytes = max(m.spillBytes, dirBytes(cfg.TempDirectory))
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	rep, err := eng.Run(context.Background(), runner.Asset{Plan: plan, Input: runner.ParquetInput{Path: in},
		Output: runner.ParquetOutput{Path: out}, Quarantine: true}, runner.Options{})
	m.took = time.Since(start)
	close(done)
	wg.Wait()
	if err != nil {
		return nil, m, fmt.Errorf("memory limit %q: %w", cfg.MemoryLimit, err)
	}
	return rep, m, nil
}

func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// sizeBytes reads a DuckDB size setting: kB, MB, GB are powers of 1000, KiB, MiB, GiB of 1024.
func sizeBytes(t *testing.T, s string) int64 {
	t.Helper()
	units := []struct {
		suffix string
		factor int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(strings.TrimSpace(s), u.suffix); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			require.NoError(t, err, s)
			return int64(f * float64(u.factor))
		}
	}
	t.Fatalf("size %q has no unit", s)
	return 0
}

// outputDigest is the row count and an order-insensitive hash of a Parquet output.
func outputDigest(e *env, path string) []any {
	e.t.Helper()
	return e.query("SELECT count(*), sum(hash(id, amount, note) % 1000000007) FROM read_parquet(" + lit(path) + ")")[0]
}

// TestSlowRunBeyondMemoryLimit runs a validation whose working set is larger than the memory limit it
// is given: DuckDB spills to the temp directory and the run ends with exactly the counts and
// outputs of the same run without a limit. The limit is 96MB at 2 threads: DuckDB's hash
// aggregate needs a floor of memory that grows with the threads and, slowly, with the number of
// distinct keys (see docs/reliability.md).
func TestSlowRunBeyondMemoryLimit(t *testing.T) {
	testenv.Slow(t) // writes and validates a few million rows
	e := newEnv(t)
	in := memoryInput(e, *memoryRows)
	plan, err := compile.Compile(memorySchema())
	require.NoError(t, err)

	free, freeUse, err := runMeasured(duckdb.Config{Threads: *memoryThreads}, plan, in, e.path("free", "events.parquet"))
	require.NoError(t, err)
	spill := e.path("spill")
	limited, limitedUse, err := runMeasured(duckdb.Config{Threads: *memoryThreads, MemoryLimit: *memoryLimit, TempDirectory: spill},
		plan, in, e.path("limited", "events.parquet"))
	require.NoError(t, err)
	limit := sizeBytes(t, *memoryLimit)
	t.Logf("%d rows, %d threads, input %.1f MB of Parquet; without a limit: %.2f s, DuckDB peak %.1f MB; with %s: %.2f s, DuckDB peak %.1f MB, spilled peak %.1f MB",
		*memoryRows, *memoryThreads, float64(fileSize(t, in))/1e6, freeUse.took.Seconds(), float64(freeUse.duckdbBytes)/1e6,
		*memoryLimit, limitedUse.took.Seconds(), float64(limitedUse.duckdbBytes)/1e6, float64(limitedUse.spillBytes)/1e6)

	// The working set does not fit: without a limit DuckDB holds more than the limit, and with
	// it DuckDB spilled.
	assert.Greater(t, freeUse.duckdbBytes, limit, "the run needs more memory than the limit")
	assert.Positive(t, limitedUse.spillBytes, "the limited run spilled to its temp directory")
	// DuckDB enforces the limit on its buffers; its accounting may pass it by a block or two.
	assert.LessOrEqual(t, limitedUse.duckdbBytes, limit*5/4, "DuckDB stayed within its limit")

	// Exactly the same outcome, counts and outputs.
	n := int64(*memoryRows)
	dup := 2 * (n / 1000) // both rows of each duplicated id
	assert.Equal(t, outcome.Quarantined, outcomeOf(free))
	assert.Equal(t, outcomeOf(free), outcomeOf(limited))
	assert.Equal(t, free.Rows, limited.Rows)
	invalid := expectedInvalid(e, in)
	assert.Equal(t, outcome.Rows{Input: n, Valid: n - invalid, Invalid: invalid}, limited.Rows)
	assert.Equal(t, dup, failedCounts(t, limited)["primary_key"])
	assert.Equal(t, failedCounts(t, free), failedCounts(t, limited))
	assert.Equal(t, free.InvalidByRules, limited.InvalidByRules)
	assert.Equal(t, outputDigest(e, e.path("free", "events.parquet")), outputDigest(e, e.path("limited", "events.parquet")))
	assert.Equal(t, e.query("SELECT count(*) FROM read_parquet("+lit(e.path("free", "events_quarantine.parquet"))+")"),
		e.query("SELECT count(*) FROM read_parquet("+lit(e.path("limited", "events_quarantine.parquet"))+")"))

	// Closing the engine removed its spill files.
	assert.Zero(t, dirBytes(spill), "spill files left behind")
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return st.Size()
}

// TestSlowConcurrentSpillingEngines: two engines that spill to the same TempDirectory at once. DuckDB
// names its spill files alike in every database, so without a folder per engine each overwrites
// the other's blocks: in one process (this test) DuckDB crashed it with SIGSEGV, in two processes
// both runs failed ("Could not read enough bytes from file duckdb_temp_storage_...").
func TestSlowConcurrentSpillingEngines(t *testing.T) {
	testenv.Slow(t) // validates a few million rows twice at once
	e := newEnv(t)
	in := memoryInput(e, 2_000_000)
	plan, err := compile.Compile(memorySchema())
	require.NoError(t, err)
	spill := e.path("spill")
	reps := make([]*outcome.Report, 2)
	uses := make([]measured, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], uses[i], errs[i] = runMeasured(duckdb.Config{Threads: 1, MemoryLimit: "64MB", TempDirectory: spill},
				plan, in, e.path(fmt.Sprint("out", i), "events.parquet"))
		}()
	}
	wg.Wait()
	invalid := expectedInvalid(e, in)
	for i, rep := range reps {
		require.NoError(t, errs[i], "run %d", i)
		assert.Equal(t, outcome.Rows{Input: 2_000_000, Valid: 2_000_000 - invalid, Invalid: invalid}, rep.Rows, "run %d", i)
		assert.Positive(t, uses[i].spillBytes, "run %d spilled", i)
	}
	assert.Equal(t, outputDigest(e, e.path("out0", "events.parquet")), outputDigest(e, e.path("out1", "events.parquet")))
	// Each engine removed its folder, and the temp directory the engines made is gone when empty.
	entries, err := os.ReadDir(spill)
	if !os.IsNotExist(err) {
		require.NoError(t, err)
		assert.Empty(t, entries, "each engine removed its spill folder")
	}
}

// TestDeadSpillFoldersRemoved: the spill folder of an engine that died (its lock is free) is
// removed by the next engine on the same temp directory; a live engine's folder is kept.
func TestDeadSpillFoldersRemoved(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dead := filepath.Join(base, "tablegate-999999-1")
	require.NoError(t, os.MkdirAll(dead, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dead, ".tablegate.lock"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dead, "duckdb_temp_storage_DEFAULT-0.tmp"), make([]byte, 1<<20), 0o644))
	// A live engine of another process: its lock is held.
	live := filepath.Join(base, "tablegate-1-2")
	require.NoError(t, os.MkdirAll(live, 0o755))
	f, err := os.OpenFile(filepath.Join(live, ".tablegate.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX))
	// Someone else's files in the folder are not tablegate's to remove.
	other := filepath.Join(base, "notes.txt")
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o644))

	eng, err := duckdb.Open(duckdb.Config{TempDirectory: base})
	require.NoError(t, err)
	assert.NoDirExists(t, dead)
	assert.DirExists(t, live)
	var dir string
	require.NoError(t, eng.DB().QueryRow("SELECT current_setting('temp_directory')").Scan(&dir))
	assert.Equal(t, base, filepath.Dir(dir), "the engine spills to a folder of its own inside TempDirectory")
	assert.DirExists(t, dir)
	require.NoError(t, eng.Close())
	assert.NoDirExists(t, dir)
	assert.FileExists(t, other)
	assert.DirExists(t, base, "a folder the user named stays")
}

// TestOpenSettings: Open applies each Config field to DuckDB, and a value DuckDB refuses comes
// back as a *SettingError naming the field, with DuckDB's own error inside.
func TestOpenSettings(t *testing.T) {
	eng, err := duckdb.Open(duckdb.Config{MemoryLimit: "512MB", Threads: 3, TempDirectory: t.TempDir()})
	require.NoError(t, err)
	var threads int
	var limit string
	require.NoError(t, eng.DB().QueryRow("SELECT CAST(current_setting('threads') AS INTEGER), current_setting('memory_limit')").Scan(&threads, &limit))
	assert.Equal(t, 3, threads)
	assert.Equal(t, "488.2 MiB", limit, "512MB, as DuckDB prints it")
	require.NoError(t, eng.Close())

	for _, tc := range []struct {
		name string
		cfg  duckdb.Config
		want runner.SettingError
	}{
		{"memory limit", duckdb.Config{MemoryLimit: "lots"}, runner.SettingError{Setting: "memory_limit", Value: "lots", Source: "argument Config.MemoryLimit", Allowed: "a size DuckDB accepts, such as 4GB"}},
		{"memory limit unit", duckdb.Config{MemoryLimit: "4 parsecs"}, runner.SettingError{Setting: "memory_limit", Value: "4 parsecs", Source: "argument Config.MemoryLimit", Allowed: "a size DuckDB accepts, such as 4GB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, err := duckdb.Open(tc.cfg)
			require.Error(t, err)
			assert.Nil(t, eng)
			var se *runner.SettingError
			require.ErrorAs(t, err, &se)
			require.Error(t, se.Err, "DuckDB's refusal is kept")
			var dberr *duckdbgo.Error
			assert.ErrorAs(t, err, &dberr, "the DuckDB error is reachable through errors.As")
			got := *se
			got.Err = nil
			assert.Equal(t, tc.want, got)
			assert.Contains(t, err.Error(), tc.cfg.MemoryLimit)
		})
	}
}
