package spark_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/engines/spark"
	"github.com/tablegate/tablegate/engines/spark/internal/sparktest"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// needCluster skips unless the shared Spark is a standalone cluster (TABLEGATE_SPARK_WORKERS).
func needCluster(t *testing.T) {
	t.Helper()
	needSpark(t)
	if server.UI == "" {
		t.Skipf("needs a standalone cluster: set %s=2", workersVar)
	}
}

// scalars returns the scalars differential's schema and its data at n rows.
func scalars(n int) (yaml, data string) {
	for _, d := range differentials {
		if d.name == "scalars" {
			return d.schema, strings.Replace(d.data, "range(400)", fmt.Sprintf("range(%d)", n), 1)
		}
	}
	panic("no scalars differential")
}

// writeSplittable writes the rows of a DuckDB query to a Parquet file of small row groups, so
// that Spark splits it into tasks for every executor.
func writeSplittable(t *testing.T, query, path string) {
	t.Helper()
	if _, err := duck(t).Exec(fmt.Sprintf("COPY (%s) TO '%s' (FORMAT parquet, ROW_GROUP_SIZE 20000)", query, path)); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
}

// TestClusterWorkerKilled kills a worker (its JVM and its executor's) while both executors run
// tasks of a validation: Spark reruns the lost tasks on the other worker, and the run still
// matches DuckDB in everything (counts, checks, invalid_by_rules, rows in order).
func TestClusterWorkerKilled(t *testing.T) {
	needCluster(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.parquet")
	yaml, data := scalars(100000)
	writeSplittable(t, data, in)
	killed := false
	compareOn(t, duck(t), plan(t, yaml), dir, 5, comparison{in: in, while: func(ctx context.Context) {
		// Both executors busy: one of the running tasks is the killed worker's.
		for ctx.Err() == nil {
			ex, err := server.Executors(ctx)
			busy := 0
			for _, e := range ex {
				if e.ActiveTasks > 0 {
					busy++
				}
			}
			if err == nil && busy >= 2 {
				server.KillWorker(0)
				killed = true
				t.Logf("worker 0 killed while %d executors ran tasks", busy)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}})
	if !killed {
		t.Error("the run ended before both executors ran tasks: no worker was killed")
	}
	if killed {
		if err := server.RestartWorker(0); err != nil {
			t.Fatal(err)
		}
	}
}

// outputNames lists the entries of an output folder.
func outputNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func withoutLocks(names []string) []string {
	var out []string
	for _, n := range names {
		if !strings.HasSuffix(n, ".lock") {
			out = append(out, n)
		}
	}
	return out
}

// TestClusterConnectKilledMidWrite kills the Spark Connect server (the driver) while a run writes
// its outputs: the previous table and quarantine are whole, and once the server is back the next
// run writes the new ones, equal to DuckDB's, with nothing of the killed run left beside them.
func TestClusterConnectKilledMidWrite(t *testing.T) {
	needCluster(t)
	dir := t.TempDir()
	db := duck(t)
	p := plan(t, outcomeSchema)
	first := filepath.Join(dir, "first.parquet")
	writeSplittable(t, "SELECT i::BIGINT AS id, (i % 100 - 3)::DOUBLE AS amount FROM range(2000) t(i)", first)
	second := filepath.Join(dir, "second.parquet")
	writeSplittable(t, "SELECT i::BIGINT AS id, (i % 1000 - 7)::DOUBLE AS amount FROM range(300000) t(i)", second)
	outDir := filepath.Join(dir, "out")
	out := filepath.Join(outDir, "t.parquet")
	quar := filepath.Join(outDir, "t_quarantine.parquet")
	a := runner.Asset{Name: "t", Plan: p, Input: runner.ParquetInput{Path: first}, Output: runner.ParquetOutput{Path: out}, Quarantine: true}
	if _, err := spark.New(server.Remote).Run(context.Background(), a, runner.Options{}); err != nil {
		t.Fatal(err)
	}
	table, quarantine := rowsOf(t, db, out), rowsOf(t, db, quar)
	before := outputNames(t, outDir)

	// The kill: as soon as a write job has put a temporary beside the outputs (the run's lock
	// file comes earlier, when its writes begin).
	a.Input = runner.ParquetInput{Path: second}
	done := make(chan error, 1)
	go func() {
		_, err := spark.New(server.Remote).Run(context.Background(), a, runner.Options{})
		done <- err
	}()
	killed := false
	for !killed {
		select {
		case err := <-done:
			t.Fatalf("the run ended (%v) before it wrote anything to kill", err)
		case <-time.After(20 * time.Millisecond):
		}
		if names := outputNames(t, outDir); !reflect.DeepEqual(withoutLocks(names), withoutLocks(before)) {
			server.KillConnect()
			killed = true
			t.Logf("server killed while the output folder held %v", names)
		}
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the run succeeded with its server killed")
		}
		t.Logf("the run failed: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("the run still waits 2 min after its server was killed")
	}
	if got := rowsOf(t, db, out); !reflect.DeepEqual(got, table) {
		t.Errorf("the table changed: %d rows, had %d", len(got), len(table))
	}
	if got := rowsOf(t, db, quar); !reflect.DeepEqual(got, quarantine) {
		t.Errorf("the quarantine changed: %d rows, had %d", len(got), len(quarantine))
	}

	start := time.Now()
	if err := server.StartConnect(); err != nil {
		t.Fatal(err)
	}
	t.Logf("server back after %.1fs", time.Since(start).Seconds())
	rep, err := spark.New(server.Remote).Run(context.Background(), a, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	duckOut := filepath.Join(dir, "duck", "t.parquet")
	drep, err := eng.Run(context.Background(), runner.Asset{Name: "t", Plan: p, Input: runner.ParquetInput{Path: second}, Output: runner.ParquetOutput{Path: duckOut}, Quarantine: true}, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != drep.Rows {
		t.Errorf("rows: Spark %+v, DuckDB %+v", rep.Rows, drep.Rows)
	}
	if !reflect.DeepEqual(rowsOf(t, db, out), rowsOf(t, db, duckOut)) {
		t.Error("the recovered run's table differs from DuckDB's")
	}
	if !reflect.DeepEqual(rowsOf(t, db, quar), rowsOf(t, db, filepath.Join(dir, "duck", "t_quarantine.parquet"))) {
		t.Error("the recovered run's quarantine differs from DuckDB's")
	}
	if names := outputNames(t, outDir); !reflect.DeepEqual(names, before) {
		t.Errorf("after recovery the output folder holds %v, want %v", names, before)
	}
}

// TestClusterSIGINT interrupts tablegate-spark with SIGINT while its job runs on the cluster:
// the server-side job is cancelled (the REST API shows it failed and nothing running), the
// process exits with status 2 and prints the JSON report with no outcome and the error, and no
// output is written.
func TestClusterSIGINT(t *testing.T) {
	needCluster(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "tablegate-spark")
	if out, err := osexec.Command("go", "build", "-o", bin, "./cmd/tablegate-spark").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	db := duck(t)
	in := filepath.Join(dir, "in.parquet")
	writeParquet(t, db, "SELECT i::BIGINT AS id, i::DOUBLE AS amount FROM range(1000000) t(i)", in)
	schemaFile := filepath.Join(dir, "slow.yaml")
	// Slow in CPU, small in memory: 10,000 additions for each of a million rows.
	slow := outcomeSchema + "rules:\n  - name: slow\n    sql: amount >= 0\n    spark: aggregate(sequence(1, 10000), 0L, (acc, x) -> acc + x) > amount\n"
	if err := os.WriteFile(schemaFile, []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	jobs, err := server.Jobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	if len(jobs) > 0 {
		last = jobs[0].ID
	}
	out := filepath.Join(dir, "out", "t.parquet")
	cmd := osexec.Command(bin, "validate", "--spark-remote", server.Remote, "--schema", schemaFile, "--input", in,
		"--out", out, "--quarantine", "--format", "json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	running := func() []sparktest.Job {
		jobs, err := server.Jobs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var r []sparktest.Job
		for _, j := range jobs {
			if j.ID > last && j.Status == "RUNNING" {
				r = append(r, j)
			}
		}
		return r
	}
	// Interrupt a job that has run for 2 s: the rules' evaluation, which would run for minutes.
	var target sparktest.Job
	seen := map[int]time.Time{}
	deadline := time.Now().Add(5 * time.Minute)
	for target.Status == "" {
		select {
		case err := <-exited:
			t.Fatalf("tablegate-spark ended (%v) before its job ran:\n%s\n%s", err, stdout.String(), stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
		for _, j := range running() {
			if first, ok := seen[j.ID]; !ok {
				seen[j.ID] = time.Now()
			} else if time.Since(first) > 2*time.Second {
				target = j
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no job of the run ran 2 s within 5 min")
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	var waitErr error
	select {
	case waitErr = <-exited:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("tablegate-spark still runs 60 s after SIGINT")
	}
	t.Logf("exited %.1fs after SIGINT", time.Since(signalled).Seconds())
	var ee *osexec.ExitError
	if !errors.As(waitErr, &ee) || ee.ExitCode() != 2 {
		t.Errorf("exit %v, want status 2", waitErr)
	}
	var rep outcome.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not a report (%v): %s", err, stdout.String())
	}
	if rep.Outcome != nil || rep.Error == nil || !strings.Contains(rep.Error.Message, "interrupt") {
		t.Errorf("report outcome %v error %+v, want no outcome and the interruption", rep.Outcome, rep.Error)
	}
	// The job on the server ends too: the client going away alone would leave it running.
	for {
		jobs, err := server.Jobs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var status string
		for _, j := range jobs {
			if j.ID == target.ID {
				status = j.Status
			}
		}
		if status != "RUNNING" && len(running()) == 0 {
			t.Logf("job %d %s %.1fs after SIGINT", target.ID, status, time.Since(signalled).Seconds())
			if status != "FAILED" {
				t.Errorf("job %d ended %s, want FAILED (cancelled)", target.ID, status)
			}
			break
		}
		if time.Since(signalled) > 60*time.Second {
			t.Fatalf("job %d still runs 60 s after SIGINT", target.ID)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an interrupted run wrote %s (%v)", out, err)
	}
}
