package spark_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	osexec "os/exec"
	"os/user"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/engines/spark"
	"github.com/tablegate/tablegate/engines/spark/internal/webhdfs"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// needHDFS skips unless the shared Spark has a MiniDFSCluster beside it, and returns a WebHDFS
// client of it acting as this process's user (the one Spark writes as).
func needHDFS(t *testing.T) *webhdfs.Client {
	t.Helper()
	needSpark(t)
	if server.HDFS == nil {
		t.Skipf("needs Hadoop's hadoop-client-minicluster jar: set %s (.ci/run resolves it from Maven Central)", hdfsJarsVar)
	}
	c, err := webhdfs.New([]string{server.HDFS.WebHDFS}, hdfsUser(t))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func hdfsUser(t *testing.T) string {
	t.Helper()
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return u.Username
}

// putHDFS copies a local file to path on HDFS and returns its hdfs:// URL.
func putHDFS(t *testing.T, c *webhdfs.Client, local, path string) string {
	t.Helper()
	b, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(context.Background(), path, b, true); err != nil {
		t.Fatal(err)
	}
	return server.HDFS.URL + path
}

// TestHDFSFooter runs the footer check of hdfs:// inputs through Spark: unsigned integers and
// millisecond timestamps are refused by name in the first file, a clean input passes, and a
// missing folder fails.
func TestHDFSFooter(t *testing.T) {
	c := needHDFS(t)
	db := duck(t)
	dir := t.TempDir()
	writeParquet(t, db, "SELECT 1::UBIGINT AS id, TIMESTAMP_MS '2020-01-01 00:00:00' AS at, 'x' AS other", filepath.Join(dir, "a.parquet"))
	writeParquet(t, db, "SELECT 1::BIGINT AS id, TIMESTAMP '2020-01-01 00:00:00' AS at, 'x' AS other", filepath.Join(dir, "b.parquet"))
	bad := putHDFS(t, c, filepath.Join(dir, "a.parquet"), "/footer/bad/a.parquet")
	putHDFS(t, c, filepath.Join(dir, "b.parquet"), "/footer/bad/b.parquet")
	good := putHDFS(t, c, filepath.Join(dir, "b.parquet"), "/footer/good/b.parquet")
	p := plan(t, "schema: T\ncolumns:\n  - name: id\n    type: Int64\n  - name: at\n    type: Datetime\n")
	ctx := context.Background()
	s, err := spark.Connect(ctx, server.Remote)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = spark.RemoteFooterTypes(ctx, s, strings.TrimSuffix(bad, "/a.parquet"), p.Schema().Columns)
	var uc *spark.UnsupportedColumnError
	if !errors.As(err, &uc) || !strings.Contains(err.Error(), "'id' (unsigned 64-bit integers)") || !strings.Contains(err.Error(), "'at' (millisecond timestamps") || uc.File != bad {
		t.Errorf("%v, want 'id' and 'at' refused in %s", err, bad)
	}
	if err := spark.RemoteFooterTypes(ctx, s, strings.TrimSuffix(good, "/b.parquet"), p.Schema().Columns); err != nil {
		t.Errorf("a clean input: %v", err)
	}
	if err := spark.RemoteFooterTypes(ctx, s, server.HDFS.URL+"/footer/none", p.Schema().Columns); err == nil {
		t.Error("a missing input passed the footer check")
	}
}

// TestHDFSInput validates a Parquet folder on HDFS (hdfs://, two files) and compares everything
// with DuckDB on the same files read locally.
func TestHDFSInput(t *testing.T) {
	c := needHDFS(t)
	dir := t.TempDir()
	db := duck(t)
	yaml, data := scalars(400)
	local := filepath.Join(dir, "in")
	if err := os.MkdirAll(local, 0o755); err != nil {
		t.Fatal(err)
	}
	writeParquet(t, db, "SELECT * FROM ("+data+") LIMIT 200", filepath.Join(local, "part-0.parquet"))
	writeParquet(t, db, "SELECT * FROM ("+data+") OFFSET 200", filepath.Join(local, "part-1.parquet"))
	for _, f := range []string{"part-0.parquet", "part-1.parquet"} {
		putHDFS(t, c, filepath.Join(local, f), "/input/scalars/"+f)
	}
	compareOn(t, db, plan(t, yaml), dir, 5, comparison{in: filepath.Join(local, "*.parquet"), sparkIn: server.HDFS.URL + "/input/scalars"})
}

// TestHDFSInputUnsupportedType validates an input on HDFS whose footer stores a declared column
// as unsigned integers: the footer check (through Spark) stops the run with the
// column_schema_mismatch outcome, naming the column.
func TestHDFSInputUnsupportedType(t *testing.T) {
	c := needHDFS(t)
	in := filepath.Join(t.TempDir(), "in.parquet")
	writeParquet(t, duck(t), "SELECT 1::UBIGINT AS id, 1::DOUBLE AS amount", in)
	url := putHDFS(t, c, in, "/unsigned/in.parquet")
	rep, err := spark.New(server.Remote).Run(context.Background(), runner.Asset{Plan: plan(t, outcomeSchema), Input: runner.ParquetInput{Path: url}}, runner.Options{})
	var uc *spark.UnsupportedColumnError
	if !errors.As(err, &uc) || rep.Outcome == nil || *rep.Outcome != outcome.ColumnSchemaMismatch || !strings.Contains(err.Error(), "'id' (unsigned 64-bit integers)") {
		t.Fatalf("outcome %v, error %v; want column_schema_mismatch naming 'id'", rep.Outcome, err)
	}
}

// testLease is the output lock's lease in these tests: a killed run's lock ends soon.
const testLease = 5 * time.Second

// hdfsOptions is the engine's access to the test HDFS, as the user Spark writes as.
func hdfsOptions(t *testing.T) spark.HDFSOptions {
	return spark.HDFSOptions{NameNodes: []string{server.HDFS.WebHDFS}, User: hdfsUser(t), Lease: testLease}
}

// fetchHDFS copies the Parquet files of an output directory on HDFS into a local directory, and
// returns that.
func fetchHDFS(c *webhdfs.Client) func(t *testing.T, address string) string {
	return func(t *testing.T, address string) string {
		t.Helper()
		dir := strings.TrimPrefix(address, server.HDFS.URL)
		entries, err := c.List(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		local := filepath.Join(t.TempDir(), path.Base(dir))
		if err := os.MkdirAll(local, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.PathSuffix, ".parquet") {
				continue
			}
			b, err := c.ReadFile(context.Background(), path.Join(dir, e.PathSuffix))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(local, e.PathSuffix), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return local
	}
}

// hdfsNames lists a folder on HDFS.
func hdfsNames(t *testing.T, c *webhdfs.Client, dir string) []string {
	t.Helper()
	entries, err := c.List(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.PathSuffix)
	}
	return names
}

// onlyOutputs checks that the folder holds the table and its quarantine, nothing else (no lock,
// journal or temporary).
func onlyOutputs(t *testing.T, c *webhdfs.Client, dir string) {
	t.Helper()
	if names := hdfsNames(t, c, dir); !reflect.DeepEqual(names, []string{"out.parquet", "out_quarantine.parquet"}) {
		t.Errorf("%s holds %q, want the table and its quarantine alone", dir, names)
	}
}

// TestHDFSOutputNeedsWebHDFS: an hdfs:// output without the WebHDFS address is refused before
// anything runs, saying what to give.
func TestHDFSOutputNeedsWebHDFS(t *testing.T) {
	needHDFS(t)
	in := filepath.Join(t.TempDir(), "in.parquet")
	writeParquet(t, duck(t), "SELECT 1::BIGINT AS id, 1::DOUBLE AS amount", in)
	_, err := spark.New(server.Remote).Run(context.Background(), runner.Asset{Plan: plan(t, outcomeSchema), Input: runner.ParquetInput{Path: in},
		Output: runner.ParquetOutput{Path: server.HDFS.URL + "/out/none/t.parquet"}}, runner.Options{})
	var oe *outcome.OutputError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "WebHDFS address") {
		t.Fatalf("error %v, want an output error asking for the WebHDFS address", err)
	}
}

// TestHDFSOutput writes the table and the quarantine to HDFS (hdfs://), equal to DuckDB's with
// the report and every check; then cancels a run while Spark writes its outputs: the previous
// table and quarantine stay as they were; and the next run replaces both, equal to DuckDB's,
// with nothing of the cancelled run left beside them.
func TestHDFSOutput(t *testing.T) {
	c := needHDFS(t)
	db := duck(t)
	dir := t.TempDir()
	yaml, data := scalars(400)
	p := plan(t, yaml)
	in := filepath.Join(dir, "in.parquet")
	writeParquet(t, db, data, in)
	folder := server.HDFS.URL + "/out/failed"
	out := folder + "/out.parquet"
	opts := []spark.Option{spark.WithHDFS(hdfsOptions(t))}
	compareOn(t, db, p, dir, 5, comparison{in: in, sparkOut: folder, opts: opts, fetch: fetchHDFS(c)})
	before := map[string][]string{}
	for _, o := range []string{out, server.HDFS.URL + "/out/failed/out_quarantine.parquet"} {
		before[o] = rowsOf(t, db, fetchHDFS(c)(t, o))
	}

	big := filepath.Join(dir, "big.parquet")
	_, bigData := scalars(200000)
	writeSplittable(t, bigData, big)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := spark.New(server.Remote, opts...).Run(ctx, runner.Asset{Name: "out", Plan: p, Input: runner.ParquetInput{Path: big},
			Output: runner.ParquetOutput{Path: out}, Quarantine: true}, runner.Options{})
		done <- err
	}()
	// The cancellation: as soon as a write job has put a temporary beside the outputs.
	cancelled := false
	for !cancelled {
		select {
		case err := <-done:
			t.Fatalf("the run ended (%v) before it wrote anything to cancel", err)
		case <-time.After(50 * time.Millisecond):
		}
		for _, n := range hdfsNames(t, c, "/out/failed") {
			if strings.HasSuffix(n, "-table.tmp") || strings.HasSuffix(n, "-quarantine.tmp") {
				cancel()
				cancelled = true
				t.Logf("cancelled while the folder held %s", n)
			}
		}
	}
	if err := <-done; err == nil {
		t.Fatal("the cancelled run succeeded")
	}
	for o, rows := range before {
		if got := rowsOf(t, db, fetchHDFS(c)(t, o)); !reflect.DeepEqual(got, rows) {
			t.Errorf("%s changed: %d rows, were %d", o, len(got), len(rows))
		}
	}
	next := t.TempDir()
	in2 := filepath.Join(next, "in.parquet")
	_, data2 := scalars(300)
	writeParquet(t, db, data2, in2)
	compareOn(t, db, p, next, 5, comparison{in: in2, sparkOut: folder, opts: opts, fetch: fetchHDFS(c)})
	onlyOutputs(t, c, "/out/failed")
}

// TestHDFSKillHelper is the child of TestHDFSKilledMidCommit: it validates to an output on HDFS
// and kills itself (SIGKILL) at the stage of the commit it is given.
func TestHDFSKillHelper(t *testing.T) {
	stage := os.Getenv("TG_HDFS_KILL_STAGE")
	if stage == "" {
		t.Skip("the child of TestHDFSKilledMidCommit")
	}
	yaml, _ := scalars(400)
	opts := spark.HDFSOptions{NameNodes: []string{os.Getenv("TG_HDFS_KILL_WEBHDFS")}, User: hdfsUser(t), Lease: testLease}
	defer durable.SetCrashPoint(func(at string) {
		if at == stage {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	})()
	_, err := spark.New(os.Getenv("TG_HDFS_KILL_REMOTE"), spark.WithHDFS(opts)).Run(context.Background(), runner.Asset{Name: "out", Plan: plan(t, yaml),
		Input: runner.ParquetInput{Path: os.Getenv("TG_HDFS_KILL_IN")}, Output: runner.ParquetOutput{Path: os.Getenv("TG_HDFS_KILL_OUT")}, Quarantine: true}, runner.Options{})
	t.Fatalf("the run ended (%v) without reaching %q", err, stage)
}

// TestHDFSKilledMidCommit kills a run (SIGKILL, its own process) between the renames of its
// commit on HDFS, the new quarantine in place beside the old table: the next run on the output
// waits for the killed run's lock to end, completes the commit from its journal, and the table
// and quarantine are the killed run's, equal to DuckDB's on its input, with nothing else left.
func TestHDFSKilledMidCommit(t *testing.T) {
	c := needHDFS(t)
	db := duck(t)
	yaml, data := scalars(400)
	p := plan(t, yaml)
	first := t.TempDir()
	in := filepath.Join(first, "in.parquet")
	writeParquet(t, db, data, in)
	folder := server.HDFS.URL + "/out/killed"
	out := folder + "/out.parquet"
	opts := []spark.Option{spark.WithHDFS(hdfsOptions(t))}
	compareOn(t, db, p, first, 5, comparison{in: in, sparkOut: folder, opts: opts, fetch: fetchHDFS(c)})

	// The killed run validates other rows; DuckDB says what its outputs are.
	killed := t.TempDir()
	in2 := filepath.Join(killed, "in.parquet")
	_, data2 := scalars(300)
	writeParquet(t, db, data2, in2)
	eng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	duckOut := filepath.Join(killed, "duck", "out.parquet")
	rep, err := eng.Run(context.Background(), runner.Asset{Name: "out", Plan: p, Input: runner.ParquetInput{Path: in2}, Output: runner.ParquetOutput{Path: duckOut}, Quarantine: true}, runner.Options{})
	if err != nil && !strings.Contains(err.Error(), "rows") {
		t.Fatal(err)
	}
	if rep.Rows.Valid == 0 || rep.Rows.Invalid == 0 {
		t.Fatalf("rows %+v: the killed run must write both a table and a quarantine", rep.Rows)
	}
	cmd := osexec.Command(os.Args[0], "-test.run=^TestHDFSKillHelper$", "-test.count=1", "-test.v")
	// Without the slow stage: the child's TestMain would start a Spark of its own.
	cmd.Env = append(os.Environ(), testenv.SlowVar+"=", "TG_HDFS_KILL_STAGE=renamed 1", "TG_HDFS_KILL_REMOTE="+server.Remote,
		"TG_HDFS_KILL_WEBHDFS="+server.HDFS.WebHDFS, "TG_HDFS_KILL_IN="+in2, "TG_HDFS_KILL_OUT="+out)
	outText, err := cmd.CombinedOutput()
	var exit *osexec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed: %v\n%s", err, outText)
	}
	names := hdfsNames(t, c, "/out/killed")
	for _, want := range []string{".out.parquet.tablegate-journal", ".out.parquet.tablegate.lock"} {
		if !slices.Contains(names, want) {
			t.Fatalf("after the kill the folder holds %q, no %s: not killed mid-commit", names, want)
		}
	}

	// The next run's Prepare completes the commit, once the killed run's lease ended.
	a := runner.Asset{Name: "out", Plan: p, Input: runner.ParquetInput{Path: in2}, Output: runner.ParquetOutput{Path: out}, Quarantine: true}
	if _, _, err := spark.New(server.Remote, opts...).Prepare(context.Background(), a, runner.Options{}); err != nil {
		t.Fatal(err)
	}
	onlyOutputs(t, c, "/out/killed")
	for _, pair := range [][2]string{{duckOut, out}, {filepath.Join(killed, "duck", "out_quarantine.parquet"), server.HDFS.URL + "/out/killed/out_quarantine.parquet"}} {
		d, s := rowsOf(t, db, pair[0]), rowsOf(t, db, fetchHDFS(c)(t, pair[1]))
		if len(d) == 0 || !reflect.DeepEqual(d, s) {
			t.Errorf("%s after the recovery: %d rows, DuckDB's %s %d rows (or they differ)", pair[1], len(s), pair[0], len(d))
		}
	}
}

// TestHDFSCLI runs `tablegate validate --engine spark` to an hdfs:// output: the WebHDFS address
// and user from --webhdfs and --hdfs-user, then from TABLEGATE_WEBHDFS and HADOOP_USER_NAME; without
// either the run is refused (exit 2) before anything runs.
func TestHDFSCLI(t *testing.T) {
	c := needHDFS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir, db, in, schemaFile := cliFixture(ctx, t)
	out := server.HDFS.URL + "/cli/small.parquet"
	for _, tc := range []struct {
		extra, env []string
		code       int
	}{
		{[]string{"--webhdfs", server.HDFS.WebHDFS, "--hdfs-user", hdfsUser(t)}, nil, 0},
		{nil, []string{"TABLEGATE_WEBHDFS=" + server.HDFS.WebHDFS, "HADOOP_USER_NAME=" + hdfsUser(t)}, 0},
		{nil, nil, 2},
	} {
		args := append([]string{"validate", "--engine", "spark", "--spark-remote", server.Remote, "--schema", schemaFile, "--input", in,
			"--out", out, "--quarantine", "--format", "json"}, tc.extra...)
		cmd := osexec.CommandContext(ctx, filepath.Join(dir, "tablegate"), args...)
		cmd.Env = append(os.Environ(), "TABLEGATE_WEBHDFS=", "HADOOP_USER_NAME=", "HADOOP_CONF_DIR=")
		cmd.Env = append(cmd.Env, tc.env...)
		stdout, err := cmd.Output()
		code := 0
		if ee, ok := err.(*osexec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var rep outcome.Report
		if jerr := json.Unmarshal(stdout, &rep); jerr != nil {
			t.Fatalf("%v %v: stdout is not a report (%v): %s", tc.extra, tc.env, jerr, stdout)
		}
		if code != tc.code {
			t.Fatalf("%v %v: exit %d, want %d: %+v", tc.extra, tc.env, code, tc.code, rep.Error)
		}
		if code == 2 {
			if rep.Error == nil || !strings.Contains(rep.Error.Message, "WebHDFS address") {
				t.Errorf("without a WebHDFS address: %+v, want the address asked for", rep.Error)
			}
			continue
		}
		if rep.Outcome == nil || *rep.Outcome != outcome.Quarantined {
			t.Errorf("%v %v: outcome %v, want quarantined", tc.extra, tc.env, rep.Outcome)
		}
		for table, want := range map[string]int{out: 7, server.HDFS.URL + "/cli/small_quarantine.parquet": 3} {
			if n := len(rowsOf(t, db, fetchHDFS(c)(t, table))); n != want {
				t.Errorf("%s has %d rows, want %d", table, n, want)
			}
		}
	}
}

// TestHDFSLock: a second writer of an output on HDFS waits for the first and, when its context
// ends, is refused naming the holder; it takes the lock once the first gives it back. A lock
// whose lease ended (its run was killed) is taken over; a run whose lock was taken over puts
// nothing in place and deletes nothing. Two runs' temporaries have different names.
func TestHDFSLock(t *testing.T) {
	c := needHDFS(t)
	ctx := context.Background()
	table := server.HDFS.URL + "/lock/t.parquet"
	lock := "/lock/.t.parquet.tablegate.lock"
	store := func() spark.Store {
		s, err := spark.NewHDFSStore(hdfsOptions(t), table, server.HDFS.URL+"/lock/t_quarantine.parquet")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(ctx); err != nil {
			t.Fatal(err)
		}
		return s
	}
	first, second := store(), store()
	if a, b := first.Temp(9, "table"), second.Temp(9, "table"); a == b {
		t.Errorf("two runs of the same number share a temporary %s", a)
	}
	unlock, err := first.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wait, cancel := context.WithTimeout(ctx, 2*time.Second)
	_, err = second.Lock(wait)
	cancel()
	var le *spark.LockedError
	if !errors.As(err, &le) || !strings.Contains(le.Holder, "process") || le.Output != table {
		t.Fatalf("a second writer while the first holds the lock: %v, want a *LockedError naming the holder", err)
	}
	unlock()
	if ok, err := c.Exists(ctx, lock); ok || err != nil {
		t.Fatalf("the lock is still there after unlock (%v)", err)
	}
	unlock, err = second.Lock(ctx)
	if err != nil {
		t.Fatalf("the lock given back: %v", err)
	}
	unlock()

	// A killed run's lock: its lease ended (one second, written long enough ago).
	if err := c.Create(ctx, lock, []byte(`{"owner":"killed","host":"h","pid":1,"lease_seconds":1}`), false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // past the killed run's lease
	third := store()
	unlock, err = third.Lock(ctx)
	if err != nil {
		t.Fatalf("an expired lock was not taken over: %v", err)
	}
	if b, err := c.ReadFile(ctx, lock); err != nil || strings.Contains(string(b), "killed") {
		t.Fatalf("the lock after the takeover: %s, %v", b, err)
	}
	// Another run takes the lock over (as if this run's lease had ended): this run's commit puts
	// nothing in place, and deletes nothing, not the older quarantine the other run kept.
	for _, dir := range []string{"/lock/t_quarantine.parquet", "/lock/t_quarantine.prev.parquet"} {
		if err := c.Mkdirs(ctx, dir); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Create(ctx, lock, []byte(`{"owner":"other","host":"h","pid":2,"lease_seconds":60}`), true); err != nil {
		t.Fatal(err)
	}
	tmp := third.Temp(9, "table")
	if err := c.Mkdirs(ctx, strings.TrimPrefix(tmp, server.HDFS.URL)); err != nil {
		t.Fatal(err)
	}
	keep := server.HDFS.URL + "/lock/t_quarantine.prev.parquet"
	if _, err := third.Commit(ctx, spark.Commit{Run: 9, Table: tmp, Keep: keep}); err == nil || !strings.Contains(err.Error(), "taken over") {
		t.Fatalf("a commit after the lock was taken over: %v, want refused", err)
	}
	if ok, _ := c.Exists(ctx, "/lock/t.parquet"); ok {
		t.Error("the commit put the table in place without the lock")
	}
	if ok, err := c.Exists(ctx, "/lock/t_quarantine.prev.parquet"); !ok || err != nil {
		t.Errorf("the commit without the lock deleted the older quarantine (%v)", err)
	}
	unlock()
	if b, err := c.ReadFile(ctx, lock); err != nil || !strings.Contains(string(b), "other") {
		t.Errorf("unlock removed another run's lock: %s, %v", b, err)
	}
}
