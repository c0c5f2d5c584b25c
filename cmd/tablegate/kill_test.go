package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/runner"
)

// The kill test is sized for CI (about a minute on 2 cores); a longer local run:
//
//	go test ./cmd/tablegate/ -run KillMidWrite -v -kill.iterations=500 -kill.rows=5000000
var (
	killIterations = flag.Int("kill.iterations", 25, "SIGKILLs per output kind (Parquet file, DuckDB table) in TestSlowKillMidWrite")
	killRows       = flag.Int("kill.rows", 3_000_000, "rows of the kill test's input")
	killSeed       = flag.Uint64("kill.seed", 1, "seed of the kill moments")
)

const eventsYAML = `schema: Events
columns:
  - {name: id, type: Int64, primary_key: true}
  - {name: amount, type: Float64, min: 0}
  - {name: note, type: String, nullable: true, max_length: 40}
`

// eventsInput writes n rows to a Parquet file; one row in 1009 has a negative amount (invalid)
// and every note carries tag, so that two inputs' outputs differ.
func (f *fixture) eventsInput(name string, n int, tag string) string {
	return f.parquet(name, fmt.Sprintf(`SELECT i AS id,
		(i %% 1000)::DOUBLE - CASE WHEN i %% 1009 = 0 THEN 2000 ELSE 0 END AS amount,
		CASE WHEN i %% 7 = 0 THEN NULL ELSE '%s ' || (i * 31 %% 100000) END AS note
		FROM range(%d) t(i)`, tag, n))
}

// digest is the row count and an order-insensitive hash of a relation's rows; "unreadable: ..."
// when DuckDB cannot read it.
func (f *fixture) digest(from string) string {
	f.t.Helper()
	rows, err := f.db.Query("SELECT count(*), sum(hash(id, amount, note) % 1000000007) FROM " + from)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	defer rows.Close()
	var n, h any
	for rows.Next() {
		if err := rows.Scan(&n, &h); err != nil {
			return "unreadable: " + err.Error()
		}
	}
	if err := rows.Err(); err != nil {
		return "unreadable: " + err.Error()
	}
	return fmt.Sprint(n, "/", h)
}

func (f *fixture) parquetDigest(path string) string {
	return f.digest("read_parquet(" + quoteLit(path) + ")")
}

// tableDigests opens a database file read-only (replaying its WAL) and digests the table and its
// quarantine ("absent" for one that is not there); tables lists every table in it.
func (f *fixture) tableDigests(file, table string) (tab, quar string, tables []string) {
	f.t.Helper()
	if _, err := f.db.Exec("ATTACH " + quoteLit(file) + " AS k (READ_ONLY)"); err != nil {
		// Keep what DuckDB refused, beyond the test's temp folder, for whoever investigates.
		kept, kerr := os.MkdirTemp("", "tablegate-kill-unreadable-")
		if kerr == nil {
			for _, name := range []string{file, file + ".wal"} {
				if data, rerr := os.ReadFile(name); rerr == nil {
					_ = os.WriteFile(filepath.Join(kept, filepath.Base(name)), data, 0o644)
				}
			}
		}
		f.t.Fatalf("the database is unreadable after the kill (kept in %s): %v", kept, err)
	}
	defer f.exec("DETACH k")
	for _, r := range f.query("SELECT schema_name || '.' || table_name FROM duckdb_tables() WHERE database_name = 'k' ORDER BY 1") {
		tables = append(tables, r[0].(string))
	}
	digest := func(name string) string {
		if !slices.Contains(tables, "main."+name) {
			return "absent"
		}
		return f.digest("k.main." + name)
	}
	return digest(table), digest(table + "_quarantine"), tables
}

func sha(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	return fmt.Sprintf("%x", sum[:12])
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, data, 0o644))
}

// traceBuffer keeps a process's stderr and closes seen once it holds n copies of mark.
type traceBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	mark string
	n    int
	seen chan struct{}
}

func (b *traceBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if b.seen != nil && strings.Count(b.buf.String(), b.mark) >= b.n {
		close(b.seen)
		b.seen = nil
	}
	return len(p), nil
}

func (b *traceBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// after returns a channel closed once the trace holds n copies of mark.
func (b *traceBuffer) after(mark string, n int) <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := make(chan struct{})
	b.mark, b.n, b.seen = mark, n, ch
	if strings.Count(b.buf.String(), mark) >= n {
		close(ch)
		b.seen = nil
	}
	return ch
}

// validateProc is a started `tablegate validate` with its statement trace on stderr.
type validateProc struct {
	cmd    *osexec.Cmd
	stderr traceBuffer
	start  time.Time
	exited chan struct{}
	code   int
}

func startValidate(t *testing.T, dir string, args ...string) *validateProc {
	t.Helper()
	p := &validateProc{cmd: osexec.Command(binary, append([]string{"validate"}, args...)...)}
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "TABLEGATE_TRACE=1")
	p.cmd.Stderr = &p.stderr
	p.start = time.Now()
	require.NoError(t, p.cmd.Start())
	p.exited = make(chan struct{})
	go func() {
		err := p.cmd.Wait()
		var exitErr *osexec.ExitError
		switch {
		case err == nil:
			p.code = 0
		case errors.As(err, &exitErr) && exitErr.Sys().(syscall.WaitStatus).Signaled():
			p.code = -1
		case errors.As(err, &exitErr):
			p.code = exitErr.ExitCode()
		default:
			p.code = -2
		}
		close(p.exited)
	}()
	return p
}

// wait returns the exit status, or -1 when a signal ended the process.
func (p *validateProc) wait() int {
	<-p.exited
	return p.code
}

// traceLine is a line of the trace: the wall time (1), the process's CPU time over the
// statement (absent on a background fsync), the statement (2).
var traceLine = regexp.MustCompile(`(?m)^tablegate trace: +([0-9.]+)s(?: +[0-9.]+s cpu)?  (.*)$`)

// phase names the last statement the process completed before it died, with how many of that
// kind it had completed ("COPY #2" is after the second COPY, the table's).
func (p *validateProc) phase() string {
	matches := traceLine.FindAllStringSubmatch(p.stderr.String(), -1)
	if len(matches) == 0 {
		return "before the first statement"
	}
	short := func(stmt string) string {
		for _, k := range []string{"CREATE OR REPLACE TEMP TABLE", "CREATE OR REPLACE TABLE", "SET VARIABLE", "SELECT count(*) FILTER", "DESCRIBE", "ATTACH", "BEGIN", "COMMIT", "COPY", "SELECT", "SET", "DROP", "RESET", "DETACH", "UPDATE", "fsync", copyMark} {
			if strings.HasPrefix(stmt, k) {
				return k
			}
		}
		return stmt
	}
	last := short(matches[len(matches)-1][2])
	n := 0
	for _, m := range matches {
		if short(m[2]) == last {
			n++
		}
	}
	return fmt.Sprintf("after %s #%d", last, n)
}

// copyMark starts the trace line of the copy of the input's bytes, which an all-valid run
// writes as its Parquet table.
const copyMark = "-- copy the input file"

// writing is how long the process spent writing its outputs: the statements from the first COPY,
// copy of the input or ATTACH on (the Parquet files, or the transaction and its commit), as its
// trace tells.
func (p *validateProc) writing() time.Duration {
	var d time.Duration
	started := false
	for _, m := range traceLine.FindAllStringSubmatch(p.stderr.String(), -1) {
		if strings.HasPrefix(m[2], "COPY") || strings.HasPrefix(m[2], copyMark) || strings.HasPrefix(m[2], "ATTACH") {
			started = true
		}
		if started {
			s, _ := time.ParseDuration(m[1] + "s")
			d += s
		}
	}
	return d
}

// TestTraceReading: the kill test reads where a run died and how long it wrote from its trace,
// with CPU times and without (the background fsync), whatever the times' widths.
func TestTraceReading(t *testing.T) {
	var p validateProc
	_, _ = p.stderr.Write([]byte(`tablegate trace:   0.500s   0.900s cpu  CREATE OR REPLACE TEMP TABLE "__tg_failed_1" AS SELECT 1
tablegate trace:   1.250s   2.400s cpu  COPY (SELECT 1) TO 'out/.t.parquet.tmp' (FORMAT parquet)
tablegate trace:   0.250s  fsync out/.t.parquet.tmp
tablegate trace: 100.000s 180.000s cpu  COPY (SELECT 2) TO 'out/.t_quarantine.parquet.tmp' (FORMAT parquet)
t (Orders): quarantined
`))
	assert.Equal(t, "after COPY #2", p.phase())
	assert.Equal(t, 101500*time.Millisecond, p.writing(), "from the first COPY on, the fsync included")

	// An all-valid run's one write is the copy of its input's bytes.
	var c validateProc
	_, _ = c.stderr.Write([]byte(`tablegate trace:   0.500s   0.900s cpu  CREATE OR REPLACE TEMP TABLE "__tg_failed_1" AS SELECT 1
tablegate trace:   0.125s   0.050s cpu  -- copy the input file 'in.parquet' to 'out/.t.parquet.tmp' byte for byte (a reflink or copy_file_range where the file system offers one)
tablegate trace:   0.250s  fsync out/.t.parquet.tmp
`))
	assert.Equal(t, "after fsync #1", c.phase())
	assert.Equal(t, 375*time.Millisecond, c.writing(), "from the copy on")
}

// killAt kills the process at a moment drawn for kill i of a run that takes full, of which the
// last write is writing. A third of the kills fall anywhere in the run; a third in the writing
// phase, which a uniform draw hits less often; a third just after the trace shows the last
// write statement (swap, the nth statement starting so), within the given time: the fsyncs and
// the renames of a Parquet output, the commit and the checkpoint of a DuckDB one, the moments
// atomicity is about and a draw over the whole run rarely hits.
func (p *validateProc) killAt(rng *rand.Rand, i int, full, write time.Duration, swap string, nth int, within time.Duration) {
	var wait <-chan time.Time
	switch i % 3 {
	case 0:
		wait = time.After(time.Duration(rng.Float64() * float64(full)))
	case 1:
		from := max(full-write-50*time.Millisecond, 0)
		wait = time.After(from + time.Duration(rng.Float64()*float64(full-from)))
	case 2:
		delay := time.Duration(rng.Float64() * float64(within))
		select {
		case <-p.stderr.after(swap, nth):
			wait = time.After(delay)
		case <-p.exited:
			return
		}
	}
	select {
	case <-wait:
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
	case <-p.exited:
	}
}

// histogram renders counts by key, sorted by key.
func histogram(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "\n  %4d  %s", m[k], k)
	}
	return b.String()
}

// TestSlowKillMidWrite starts real `tablegate validate` processes that replace a previous good table
// and quarantine with large new outputs, and SIGKILLs each at a random moment of its run (seeded;
// see killAt: over the whole run, over its writing, and just after its last write statement, so
// that every phase is hit: reading, evaluating, writing the quarantine and the table, fsyncing
// and renaming, committing, checkpointing). It logs where each kill landed. Each output kind is
// killed twice over: with an input that has invalid rows (the run writes a new quarantine) and
// with an all-valid one (the run removes the previous quarantine).
//
// After every kill the previous table is intact and readable (byte-identical for Parquet; the
// same rows for DuckDB, opened read-only so the WAL is replayed and an uncommitted write
// discarded), or, when the kill came after the swap, it is the complete new table: never a
// half-written file under the table's name, never a new table beside the previous run's
// quarantine (in DuckDB both change in one transaction), and the hidden temporaries a kill leaves
// behind match no *.parquet glob and are removed by the next run.
func TestSlowKillMidWrite(t *testing.T) {
	require.NoError(t, buildErr)
	testenv.Slow(t) // kills hundreds of runs at random points
	f := newFixture(t)
	schemaPath := f.write("events.yaml", eventsYAML)
	big := f.eventsInput("in/big.parquet", *killRows, "new")
	clean := f.parquet("in/clean.parquet", "SELECT * FROM read_parquet("+quoteLit(big)+") WHERE amount >= 0")
	small := f.eventsInput("in/small.parquet", 5000, "previous")
	rng := rand.New(rand.NewPCG(*killSeed, 42))
	t.Logf("%d rows, seed %d, %d kills per output and input", *killRows, *killSeed, *killIterations)

	for _, c := range []killCase{{"invalid rows", big, true}, {"all valid", clean, false}} {
		t.Run("parquet, "+c.name, func(t *testing.T) { killParquet(t, f, rng, schemaPath, small, c) })
		t.Run("duckdb, "+c.name, func(t *testing.T) { killDuckDB(t, f, rng, schemaPath, small, c) })
	}

	// Killed runs leave their spill folders in .tmp (DuckDB's default for an in-memory database,
	// here the working directory's); the runs after them removed them.
	spills, _ := filepath.Glob(f.path(".tmp", "tablegate-*"))
	assert.Empty(t, spills, "spill folders of killed runs are removed by later runs")
}

// killCase is the input the killed runs validate: with invalid rows they write a table and a
// quarantine; all valid, they write the table and remove the previous quarantine.
type killCase struct {
	name        string
	input       string
	quarantined bool
}

// writes is how many write statements (starting with mark) a run of the case makes: the table's,
// then the quarantine's when there is one.
func (c killCase) writes() int {
	if c.quarantined {
		return 2
	}
	return 1
}

// killLoop starts runs with args, killing each at a moment killAt draws (write statements
// starting with mark are the run's last writes; a trace line has two spaces before its statement
// and none inside it, so "  COPY" counts the statements that start with COPY), until
// iterations of them died; after each run it calls check with the run and the kills so far. It
// logs where the kills landed and requires at least one after the last write statement, where
// atomicity is at stake.
func killLoop(t *testing.T, f *fixture, rng *rand.Rand, iterations int, args []string, full, write time.Duration, mark string, writes int, within time.Duration, check func(p *validateProc, kills int)) {
	t.Helper()
	phases := map[string]int{}
	afterWrites, kills := 0, 0
	for attempt := 0; kills < iterations; attempt++ {
		require.Less(t, attempt, 3*iterations, "too few runs were still running when killed")
		p := startValidate(t, f.dir, args...)
		p.killAt(rng, attempt, full, write, mark, writes, within)
		if code := p.wait(); code == -1 {
			kills++
			phases[p.phase()]++
			if strings.Count(p.stderr.String(), mark) == writes {
				afterWrites++
			}
		} else {
			require.Equal(t, 0, code, "a run that was not killed succeeds\n%s", p.stderr.String())
			phases["finished before the kill"]++
		}
		check(p, kills)
	}
	t.Logf("%d kills; last completed statement when killed:%s", kills, histogram(phases))
	require.Positive(t, afterWrites, "no kill landed after the last write statement, where atomicity is at stake")
}

func killParquet(t *testing.T, f *fixture, rng *rand.Rand, schemaPath, small string, c killCase) {
	dir := f.path("pq " + c.name)
	table, quar := filepath.Join(dir, "events.parquet"), filepath.Join(dir, "events_quarantine.parquet")
	args := func(in, out string) []string {
		return []string{"--schema", schemaPath, "--input", in, "--out", out, "--quarantine"}
	}
	// The complete new output, and how long a whole run takes.
	refDir := f.path("ref pq " + c.name)
	ref := startValidate(t, f.dir, args(c.input, filepath.Join(refDir, "events.parquet"))...)
	require.Equal(t, 0, ref.wait(), ref.stderr.String())
	full := time.Since(ref.start)
	newTab, newQuar := f.parquetDigest(filepath.Join(refDir, "events.parquet")), ""
	if c.quarantined {
		newQuar = f.parquetDigest(filepath.Join(refDir, "events_quarantine.parquet"))
	} else {
		require.NoFileExists(t, filepath.Join(refDir, "events_quarantine.parquet"))
	}
	// The previous good table and its quarantine.
	prev := startValidate(t, f.dir, args(small, table)...)
	require.Equal(t, 0, prev.wait(), prev.stderr.String())
	saved := f.path("saved pq " + c.name)
	require.NoError(t, os.MkdirAll(saved, 0o755))
	copyFile(t, table, filepath.Join(saved, "events.parquet"))
	copyFile(t, quar, filepath.Join(saved, "events_quarantine.parquet"))
	prevTab, prevQuar := sha(t, table), sha(t, quar)
	prevTabRows, prevQuarRows := f.parquetDigest(table), f.parquetDigest(quar)
	write := ref.writing()
	t.Logf("a complete run takes %.2f s, %.2f s of it writing", full.Seconds(), write.Seconds())

	temporary := regexp.MustCompile(`^\.events\.parquet\.tablegate-(\d+-\d+-(table|quarantine|keep\d+)|journal-\d+)\.tmp$`)
	prevQ := filepath.Join(dir, "events_quarantine.prev.parquet")
	outcomes := map[string]int{}
	leftovers, journals, mismatched := 0, 0, 0
	// The last COPY is the table's, then the quarantine's; after it come the fsyncs, the older
	// quarantine's removal and the renames, which last a few milliseconds. An all-valid run
	// copies the input's bytes as its table instead (explain's "publish by copying the input's
	// bytes"): its one write is that copy, which the kills over the writing phase land in.
	mark := "  COPY"
	if !c.quarantined {
		mark = "  " + copyMark
		require.Contains(t, ref.stderr.String(), mark, "the all-valid run copies the input")
	}
	killLoop(t, f, rng, *killIterations, args(c.input, table), full, write, mark, c.writes(), 20*time.Millisecond, func(p *validateProc, kills int) {
		// Only the outputs, and what a killed run leaves for the next: the lock file, hidden
		// temporaries and the journal of a swap it had decided.
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			switch name := e.Name(); {
			case name == "events.parquet", name == "events_quarantine.parquet", name == "events_quarantine.prev.parquet", name == ".events.parquet.tablegate.lock":
			case name == ".events.parquet.tablegate-journal":
				journals++
			case temporary.MatchString(name):
				leftovers++
			default:
				t.Fatalf("kill %d: unexpected file %s", kills, name)
			}
		}
		// The next open completes a decided swap, and removes the temporaries (a swap's kept
		// previous files included); then the pair is one run's.
		require.NoError(t, duckdb.RecoverOutput(context.Background(), runner.ParquetOutput{Path: table}))
		after, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range after {
			require.False(t, temporary.MatchString(e.Name()), "kill %d: %s left after recovery", kills, e.Name())
		}
		outputs := []string{table}
		if fileExists(quar) {
			outputs = append(outputs, quar)
		}
		if fileExists(prevQ) {
			outputs = []string{table, prevQ}
			require.False(t, fileExists(quar), "kill %d: a quarantine beside the kept previous one", kills)
		}
		globbed, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
		require.NoError(t, err)
		assert.Equal(t, outputs, globbed, "*.parquet matches the table and the quarantine only")
		var duckGlob []string
		for _, r := range f.query("SELECT file FROM glob(" + quoteLit(filepath.Join(dir, "*.parquet")) + ") ORDER BY file") {
			duckGlob = append(duckGlob, r[0].(string))
		}
		assert.Equal(t, outputs, duckGlob, "DuckDB's glob agrees")

		// The table is the previous one byte for byte, or the complete new one; the quarantine
		// is the previous one, the complete new one, or (all valid) removed.
		tabState, quarState := "previous", "previous"
		if sha(t, table) != prevTab {
			tabState = "new"
			require.Equal(t, newTab, f.parquetDigest(table), "kill %d (%s): the table is neither the previous one nor the complete new one", kills, p.phase())
		}
		switch {
		case !fileExists(quar):
			quarState = "kept as .prev"
			require.False(t, c.quarantined, "kill %d (%s): a run with invalid rows removed the quarantine", kills, p.phase())
			require.Equal(t, prevQuar, sha(t, prevQ), "kill %d: the kept quarantine is the previous one", kills)
		case sha(t, quar) != prevQuar:
			quarState = "new"
			require.True(t, c.quarantined, "kill %d (%s): an all-valid run changed the quarantine", kills, p.phase())
			require.Equal(t, newQuar, f.parquetDigest(quar), "kill %d (%s): the quarantine is neither the previous one nor the complete new one", kills, p.phase())
		}
		if tabState == "previous" {
			require.Equal(t, prevTabRows, f.parquetDigest(table), "the previous table is readable")
		}
		if quarState == "previous" {
			require.Equal(t, prevQuarRows, f.parquetDigest(quar), "the previous quarantine is readable")
		}
		// The pair is one run's: both previous or both new.
		if (tabState == "previous") != (quarState == "previous") {
			mismatched++
		}
		outcomes["table "+tabState+", quarantine "+quarState]++
		if tabState != "previous" || quarState != "previous" {
			copyFile(t, filepath.Join(saved, "events.parquet"), table)
			copyFile(t, filepath.Join(saved, "events_quarantine.parquet"), quar)
			require.NoError(t, os.RemoveAll(prevQ))
		}
	})
	t.Logf("outputs after each run (after the next open):%s", histogram(outcomes))
	t.Logf("after the kills: %d hidden temporaries, %d decided swaps the next open completed, %d mismatched pairs", leftovers, journals, mismatched)
	assert.Zero(t, mismatched, "a table beside another run's quarantine")

	// The next run completes, writes the new outputs and removes every leftover.
	p := startValidate(t, f.dir, args(c.input, table)...)
	require.Equal(t, 0, p.wait(), p.stderr.String())
	assert.Equal(t, newTab, f.parquetDigest(table))
	want := []string{"events.parquet", "events_quarantine.prev.parquet"}
	if c.quarantined {
		assert.Equal(t, newQuar, f.parquetDigest(quar))
		want = []string{"events.parquet", "events_quarantine.parquet"}
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, want, names)
}

func killDuckDB(t *testing.T, f *fixture, rng *rand.Rand, schemaPath, small string, c killCase) {
	wh := f.path("wh "+c.name, "wh.duckdb")
	args := func(in, out string) []string {
		return []string{"--schema", schemaPath, "--input", in, "--out", out + ":events", "--quarantine"}
	}
	refDB := f.path("ref duckdb "+c.name, "ref.duckdb")
	ref := startValidate(t, f.dir, args(c.input, refDB)...)
	require.Equal(t, 0, ref.wait(), ref.stderr.String())
	full := time.Since(ref.start)
	newTab, newQuar, newTables := f.tableDigests(refDB, "events")
	wantNew := []string{"main.events", "main.events_quarantine"}
	if !c.quarantined {
		require.Equal(t, []string{"main.events"}, newTables)
		// Over the previous tables, the run keeps their quarantine.
		wantNew = []string{"main.events", "main.events_quarantine_prev"}
	} else {
		require.Equal(t, wantNew, newTables)
	}
	prev := startValidate(t, f.dir, args(small, wh)...)
	require.Equal(t, 0, prev.wait(), prev.stderr.String())
	require.NoFileExists(t, wh+".wal", "the run checkpointed")
	saved := f.path("saved duckdb "+c.name, "wh.duckdb")
	require.NoError(t, os.MkdirAll(filepath.Dir(saved), 0o755))
	copyFile(t, wh, saved)
	prevTab, prevQuar, tables := f.tableDigests(wh, "events")
	require.Equal(t, []string{"main.events", "main.events_quarantine"}, tables)
	write := ref.writing()
	t.Logf("a complete run takes %.2f s, %.2f s of it writing", full.Seconds(), write.Seconds())

	outcomes := map[string]int{}
	wals := 0
	// The last CREATE TABLE is the table's, then the quarantine's; after it come the older
	// quarantine's removal, the commit and the checkpoint, which last a few milliseconds.
	killLoop(t, f, rng, *killIterations, args(c.input, wh), full, write, "  CREATE OR REPLACE TABLE", c.writes(), 10*time.Millisecond, func(p *validateProc, kills int) {
		if fileExists(wh + ".wal") {
			wals++
		}
		// Opened read-only, the WAL is replayed: the outputs are both the previous ones or both
		// the new ones (they change in one transaction), and nothing else is there.
		tab, quar, tables := f.tableDigests(wh, "events")
		state := ""
		switch {
		case tab == prevTab && quar == prevQuar:
			require.Equal(t, []string{"main.events", "main.events_quarantine"}, tables, "kill %d (%s)", kills, p.phase())
			state = "previous tables"
		case tab == newTab && quar == newQuar:
			require.Equal(t, wantNew, tables, "kill %d (%s)", kills, p.phase())
			state = "new tables"
		default:
			t.Fatalf("kill %d (%s): table %s and quarantine %s are neither the previous (%s, %s) nor the new ones (%s, %s)",
				kills, p.phase(), tab, quar, prevTab, prevQuar, newTab, newQuar)
		}
		outcomes[state]++
		if state == "new tables" {
			copyFile(t, saved, wh)
			require.NoError(t, os.RemoveAll(wh+".wal"))
		}
	})
	t.Logf("tables after each run:%s", histogram(outcomes))
	t.Logf("kills that left a WAL: %d", wals)

	// The next run opens the database for writing (replaying or discarding the WAL) and
	// completes.
	p := startValidate(t, f.dir, args(c.input, wh)...)
	require.Equal(t, 0, p.wait(), p.stderr.String())
	tab, quar, tables := f.tableDigests(wh, "events")
	assert.Equal(t, newTab, tab)
	assert.Equal(t, newQuar, quar)
	assert.Equal(t, wantNew, tables)
}

// TestSlowConcurrentWritersSameOutput: two runs writing the same output at once. For a Parquet
// output the second waits for the first one's lock and both succeed; for a DuckDB table the
// second either fails cleanly on DuckDB's file lock or succeeds after the first. Either way the
// table and its quarantine are one complete run's output, never a mix.
func TestSlowConcurrentWritersSameOutput(t *testing.T) {
	require.NoError(t, buildErr)
	testenv.Slow(t) // runs pairs of validations of a million rows
	f := newFixture(t)
	schemaPath := f.write("events.yaml", eventsYAML)
	inputs := []string{f.eventsInput("in/a.parquet", 1_000_000, "a"), f.eventsInput("in/b.parquet", 1_200_000, "b")}

	// What each run writes on its own.
	type pair struct{ tab, quar string }
	var parquetRef, duckRef []pair
	for i, in := range inputs {
		out := f.path("ref", fmt.Sprint(i), "events.parquet")
		code, _, stderr := cli(t, "validate", "--schema", schemaPath, "--input", in, "--out", out, "--quarantine")
		require.Equal(t, 0, code, stderr)
		parquetRef = append(parquetRef, pair{f.parquetDigest(out), f.parquetDigest(filepath.Join(filepath.Dir(out), "events_quarantine.parquet"))})
		db := f.path("ref", fmt.Sprint(i), "ref.duckdb")
		code, _, stderr = cli(t, "validate", "--schema", schemaPath, "--input", in, "--out", db+":events", "--quarantine")
		require.Equal(t, 0, code, stderr)
		tab, quar, _ := f.tableDigests(db, "events")
		duckRef = append(duckRef, pair{tab, quar})
	}
	require.NotEqual(t, parquetRef[0], parquetRef[1])

	race := func(out string) []*validateProc {
		procs := make([]*validateProc, 2)
		var wg sync.WaitGroup
		for i := range procs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				procs[i] = startValidate(t, f.dir, "--schema", schemaPath, "--input", inputs[i], "--out", out, "--quarantine")
			}()
		}
		wg.Wait()
		return procs
	}

	for round := range 3 {
		table := f.path("pq", "events.parquet")
		procs := race(table)
		for i, p := range procs {
			require.Equal(t, 0, p.wait(), "round %d run %d: the second run waits for the first\n%s", round, i, p.stderr.String())
		}
		got := pair{f.parquetDigest(table), f.parquetDigest(f.path("pq", "events_quarantine.parquet"))}
		assert.Contains(t, parquetRef, got, "round %d: the Parquet output is one run's", round)
		temps, _ := filepath.Glob(f.path("pq", ".*.tmp"))
		assert.Empty(t, temps)
	}

	succeeded := 0
	for round := range 3 {
		wh := f.path("wh", "wh.duckdb")
		procs := race(wh + ":events")
		var ok []int
		for i, p := range procs {
			switch code := p.wait(); code {
			case 0:
				ok = append(ok, i)
			case 2:
				msg := p.stderr.String()
				assert.Contains(t, msg, "output "+wh+":events: open database "+wh+": IO Error: Could not set lock on file", "round %d run %d", round, i)
				assert.Contains(t, msg, "(the previous table is unchanged)")
			default:
				t.Fatalf("round %d run %d: exit %d\n%s", round, i, code, p.stderr.String())
			}
		}
		require.NotEmpty(t, ok, "round %d: one run wins", round)
		succeeded += len(ok)
		tab, quar, tables := f.tableDigests(wh, "events")
		assert.Equal(t, []string{"main.events", "main.events_quarantine"}, tables)
		got := pair{tab, quar}
		if len(ok) == 1 {
			assert.Equal(t, duckRef[ok[0]], got, "round %d: the tables are the winner's", round)
		} else {
			assert.Contains(t, duckRef, got, "round %d: the tables are one run's", round)
		}
	}
	t.Logf("DuckDB output: %d of 6 concurrent runs succeeded, the others failed on the lock", succeeded)
}

// TestSlowMemoryLimitFlag: `tablegate validate --memory-limit 96MB --temp-dir DIR` over an input whose
// validation needs more memory than that spills to DIR and reports exactly the rows, checks and
// invalid-row sets of the same run without a limit, in less memory (the process's peak RSS).
func TestSlowMemoryLimitFlag(t *testing.T) {
	require.NoError(t, buildErr)
	testenv.Slow(t) // validates three million rows twice
	f := newFixture(t)
	schemaPath := f.write("events.yaml", `schema: Events
columns:
  - {name: id, type: String, primary_key: true}
  - {name: amount, type: Float64, min: 0}
  - {name: note, type: String, nullable: true, max_length: 40}
`)
	const n = 3_000_000
	in := f.parquet("in/events.parquet", fmt.Sprintf(`SELECT
		'event-' || lpad(((i * 7919) %% %d)::VARCHAR, 10, '0') AS id,
		(i %% 1000)::DOUBLE - CASE WHEN i %% 1009 = 0 THEN 2000 ELSE 0 END AS amount,
		'note ' || (i * 31 %% 100000) AS note
		FROM range(%d) t(i)`, n-n/1000, n))

	type result struct {
		report    map[string]any
		rssMB     float64
		spilledMB float64
		took      time.Duration
	}
	runCLI := func(out string, extra ...string) result {
		args := append([]string{"validate", "--schema", schemaPath, "--input", in, "--out", out, "--quarantine", "--format", "json", "--threads", "2"}, extra...)
		cmd := osexec.Command(binary, args...)
		cmd.Dir = f.dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		require.NoError(t, cmd.Start())
		var spilled int64
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				spilled = max(spilled, treeBytes(f.path("spill")))
				select {
				case <-done:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}()
		err := cmd.Wait()
		close(done)
		wg.Wait()
		require.NoError(t, err, stderr.String())
		return result{report: oneJSON(t, stdout.String()), took: time.Since(start),
			rssMB:     float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024,
			spilledMB: float64(spilled) / 1e6}
	}
	free := runCLI(f.path("free", "events.parquet"))
	limited := runCLI(f.path("limited", "events.parquet"), "--memory-limit", "96MB", "--temp-dir", f.path("spill"))
	t.Logf("%d rows: without a limit %.2f s, peak RSS %.0f MB; --memory-limit 96MB: %.2f s, peak RSS %.0f MB, spilled %.0f MB",
		n, free.took.Seconds(), free.rssMB, limited.took.Seconds(), limited.rssMB, limited.spilledMB)

	assert.Positive(t, limited.spilledMB, "the limited run spilled")
	assert.Less(t, limited.rssMB, free.rssMB, "the limited run used less memory")
	assert.Equal(t, "quarantined", limited.report["outcome"])
	for _, key := range []string{"outcome", "rows", "invalid_by_rules"} {
		assert.Equal(t, free.report[key], limited.report[key], key)
	}
	counts := func(rep map[string]any) map[string]any {
		out := map[string]any{}
		for _, c := range rep["checks"].([]any) {
			c := c.(map[string]any)
			out[c["name"].(string)] = c["metadata"].(map[string]any)["dataframely/failed_row_count"]
		}
		return out
	}
	assert.Equal(t, counts(free.report), counts(limited.report))
	assert.Equal(t, float64(2*(n/1000)), counts(limited.report)["dy_rule__primary_key"])
	assert.Equal(t, f.parquetDigest(f.path("free", "events.parquet")), f.parquetDigest(f.path("limited", "events.parquet")))
	assert.NoDirExists(t, f.path("spill"), "the run removed the spill folder it made")
}

func treeBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
