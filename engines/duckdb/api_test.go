package duckdb_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// bigRun runs a rule over 2e9 generated rows into a Parquet output, which takes far longer than
// the tests let it: it returns the run's report, how long it took, the output path and the error.
func bigRun(t *testing.T, ctx context.Context, opts runner.Options) (*outcome.Report, time.Duration, string, error) {
	t.Helper()
	eng, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	plan, err := compile.Compile(schema.New("Big", schema.Int64("a").Min(0)).
		AddRule("slow", "a % 7 <> 3 OR a % 11 <> 5"))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "big.parquet")
	start := time.Now()
	rep, err := eng.Run(ctx, runner.Asset{
		Plan:   plan,
		Input:  runner.QueryInput{SQL: "SELECT range AS a FROM range(2000000000)"},
		Output: runner.ParquetOutput{Path: out},
	}, opts)
	return rep, time.Since(start), out, err
}

// A cancelled run stops promptly, reports the cancellation and writes nothing.
func TestCancelStopsPromptlyAndWritesNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, took, out, err := bigRun(t, ctx, runner.Options{})
	require.Error(t, err)
	require.Less(t, took, 5*time.Second, "the run must stop soon after the context ends")
	_, statErr := os.Stat(out)
	require.True(t, os.IsNotExist(statErr), "nothing is written")
	entries, _ := os.ReadDir(filepath.Dir(out))
	for _, e := range entries {
		require.NotContains(t, e.Name(), ".tmp", "no temporary file is left")
	}
}

// Options.Timeout bounds the run: past it the run ends with *outcome.TimeoutError, in the report
// too, and writes nothing.
func TestTimeoutStopsTheRun(t *testing.T) {
	rep, took, out, err := bigRun(t, context.Background(), runner.Options{Timeout: 300 * time.Millisecond})
	var timeout *outcome.TimeoutError
	require.ErrorAs(t, err, &timeout)
	require.Equal(t, 300*time.Millisecond, timeout.Limit)
	require.Less(t, took, 5*time.Second, "the run must stop soon after its timeout")
	require.NotNil(t, rep.Error)
	require.Equal(t, "TimeoutError", rep.Error.Type)
	_, statErr := os.Stat(out)
	require.True(t, os.IsNotExist(statErr), "nothing is written")
}

// One engine runs different assets at once; each gets its own result (run with -race in CI).
func TestConcurrentRunsOnOneEngine(t *testing.T) {
	eng, err := duckdb.Open(duckdb.Config{})
	require.NoError(t, err)
	defer eng.Close()
	plan, err := compile.Compile(schema.New("Nums", schema.Int64("n").PrimaryKey().Max(900)))
	require.NoError(t, err)
	dir := t.TempDir()
	const assets = 6
	for i := range assets {
		q := fmt.Sprintf("SELECT range AS n FROM range(%d)", 1000+i*10)
		require.NoError(t, eng.WriteQuery(context.Background(), q, runner.ParquetOutput{Path: filepath.Join(dir, fmt.Sprintf("in%d.parquet", i))}))
	}
	var wg sync.WaitGroup
	errs := make([]error, assets)
	reps := make([]*outcome.Report, assets)
	for i := range assets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], errs[i] = eng.Run(context.Background(), runner.Asset{
				Name:       fmt.Sprintf("nums%d", i),
				Plan:       plan,
				Input:      runner.ParquetInput{Path: filepath.Join(dir, fmt.Sprintf("in%d.parquet", i))},
				Output:     runner.ParquetOutput{Path: filepath.Join(dir, "out", fmt.Sprintf("nums%d.parquet", i))},
				Quarantine: true,
			}, runner.Options{})
		}()
	}
	wg.Wait()
	for i := range assets {
		require.NoError(t, errs[i])
		want := int64(1000 + i*10)
		require.Equal(t, outcome.Rows{Input: want, Valid: 901, Invalid: want - 901}, reps[i].Rows, "asset %d", i)
		require.True(t, reps[i].Quarantine.Written)
	}
}

// TestCallerConnectionLeftAsFound: on an engine over the caller's database (duckdb.New), a run
// leaves the connection as it found it: the caller's own perfect-hash setting back, no session
// variable (the ordinal bitmaps) and no temp table (failing keys, suspects, failing rows) left
// behind, after the staged path (Parquet) and the one-statement path (a table) alike.
func TestCallerConnectionLeftAsFound(t *testing.T) {
	// One connection: what a run leaves on it is what the caller sees. The caller's own
	// threshold is neither DuckDB's default nor what a run sets.
	e := newEnv(t)
	e.exec("SET SESSION perfect_ht_threshold = 14")
	state := func() []any {
		return e.query(`SELECT current_setting('perfect_ht_threshold'),
			(SELECT count(*) FROM duckdb_variables()),
			(SELECT count(*) FROM duckdb_tables() WHERE temporary)`)[0]
	}
	before := state()
	require.Equal(t, "14", fmt.Sprint(before[0]))
	require.Equal(t, int64(0), before[1])

	e.exec("CREATE TABLE orders AS " + ordersSelect(mixedRows))
	p, err := compile.Compile(ordersSchema())
	require.NoError(t, err)
	eng := duckdb.New(e.db)
	for _, in := range []runner.Input{
		runner.ParquetInput{Path: e.parquet("in.parquet", ordersSelect(mixedRows))},
		runner.TableInput{Table: "orders"},
	} {
		out := runner.ParquetOutput{Path: e.path("out", in.String()+".parquet")}
		rep, err := eng.Run(context.Background(), runner.Asset{Plan: p, Input: in, Output: out, Quarantine: true}, runner.Options{})
		require.NoError(t, err, in.String())
		require.Greater(t, rep.Rows.Invalid, int64(0), "the bitmaps and temp tables were used")
		require.Equal(t, before, state(), in.String())
	}
}
