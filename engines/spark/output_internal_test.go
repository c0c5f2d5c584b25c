package spark

import (
	"context"
	"errors"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/store"
	"github.com/tablegate/tablegate/internal/testenv"
)

// testWriter is a writer of dir/t.parquet and its quarantine, without a Spark server: the swap is
// the filesystem's.
func testWriter(dir string) *writer {
	table, quarantine := filepath.Join(dir, "t.parquet"), filepath.Join(dir, "t_quarantine.parquet")
	st := &durable.Local{Table: table, Quarantine: quarantine, Dirs: true}
	return &writer{b: &backend{id: 7}, st: st, table: table, quarantine: quarantine,
		tableTmp: st.Temp(7, "table"), quarTmp: st.Temp(7, "quarantine")}
}

// finished makes the writer's temporaries a finished write of marker, as Spark leaves them.
func finished(t testing.TB, w *writer, marker string) {
	for _, tmp := range []string{w.tableTmp, w.quarTmp} {
		writeOutput(t, tmp, marker)
		if err := os.WriteFile(filepath.Join(tmp, "_SUCCESS"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.wroteTable, w.wroteQuar = true, true
}

// writeOutput makes dir a Parquet directory whose part file holds marker.
func writeOutput(t testing.TB, dir, marker string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "part-0.parquet"), []byte(marker), 0o644); err != nil {
		t.Fatal(err)
	}
}

func marker(t *testing.T, dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "part-0.parquet"))
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return string(data)
}

// TestWriterKillHelper is the child of TestWriterKilledBetweenRenames: it swaps a finished write
// in and kills itself at the stage it is given.
func TestWriterKillHelper(t *testing.T) {
	dir, stage := os.Getenv("TG_SPARK_WRITER_DIR"), os.Getenv("TG_SPARK_WRITER_CRASH")
	if dir == "" {
		t.Skip("the child of TestWriterKilledBetweenRenames")
	}
	w := testWriter(dir)
	if err := w.Begin(context.Background()); err != nil {
		t.Fatal(err)
	}
	finished(t, w, "new")
	defer durable.SetCrashPoint(func(at string) {
		if at == stage {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	})()
	if _, err := w.Finish(context.Background(), compile.WriteTable|compile.WriteQuarant); err != nil {
		t.Fatal(err)
	}
}

// TestWriterKilledBetweenRenames kills a writer (SIGKILL, its own process) at each stage of its
// swap, then opens the output as the next run does: the table and the quarantine are always one
// run's pair — the previous one until the journal is written, the new one from then on — and no
// temporary, journal or lock is left.
func TestWriterKilledBetweenRenames(t *testing.T) {
	for _, stage := range []string{"outputs flushed", "journal written", "renamed 0", "renamed 1", "renamed 2", "renamed 3"} {
		t.Run(stage, func(t *testing.T) {
			dir := t.TempDir()
			w := testWriter(dir)
			writeOutput(t, w.table, "old")
			writeOutput(t, w.quarantine, "old")
			cmd := osexec.Command(os.Args[0], "-test.run=^TestWriterKillHelper$", "-test.count=1")
			// Without the slow stage: the child's TestMain would start a Spark server it does not need.
			cmd.Env = append(os.Environ(), "TG_SPARK_WRITER_DIR="+dir, "TG_SPARK_WRITER_CRASH="+stage, testenv.SlowVar+"=")
			out, err := cmd.CombinedOutput()
			var exit *osexec.ExitError
			if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the child was not killed: %v\n%s", err, out)
			}
			if _, err := store.Recover(context.Background(), w.st); err != nil {
				t.Fatal(err)
			}
			want := "new"
			if stage == "outputs flushed" {
				want = "old"
			}
			if got, q := marker(t, w.table), marker(t, w.quarantine); got != want || q != want {
				t.Errorf("table %q, quarantine %q after the recovery; want both %q", got, q, want)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != "t.parquet" && e.Name() != "t_quarantine.parquet" {
					t.Errorf("left beside the output: %s", e.Name())
				}
			}
		})
	}
}

// TestWriterLock: a second writer of the same output waits for the first to finish, and gives up
// with its context.
func TestWriterLock(t *testing.T) {
	dir := t.TempDir()
	first, second := testWriter(dir), testWriter(dir)
	if err := first.Begin(context.Background()); err != nil {
		t.Fatal(err)
	}
	finished(t, first, "new")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := second.Begin(ctx); err == nil || !strings.Contains(err.Error(), "another run writing the same output") {
		t.Fatalf("a second writer began while the first held the output: %v", err)
	}
	if _, err := first.Finish(context.Background(), compile.WriteTable|compile.WriteQuarant); err != nil {
		t.Fatal(err)
	}
	if err := second.Begin(context.Background()); err != nil {
		t.Fatalf("the output stayed locked after the first writer finished: %v", err)
	}
	second.Abort("")
	if got := marker(t, first.table); got != "new" {
		t.Errorf("table %q", got)
	}
}

// TestWriterKeepsOlderQuarantine: a run without invalid rows keeps the quarantine it would lose as
// <name>.prev.parquet, and says so.
func TestWriterKeepsOlderQuarantine(t *testing.T) {
	dir := t.TempDir()
	w := testWriter(dir)
	writeOutput(t, w.quarantine, "old")
	if err := w.Begin(context.Background()); err != nil {
		t.Fatal(err)
	}
	finished(t, w, "new")
	w.wroteQuar = false
	written, err := w.Finish(context.Background(), compile.WriteTable|compile.DropQuarant)
	if err != nil {
		t.Fatal(err)
	}
	prev := filepath.Join(dir, "t_quarantine.prev.parquet")
	if written.Kept != prev || marker(t, prev) != "old" || marker(t, w.table) != "new" || exists(t, w.quarantine) {
		t.Errorf("written %+v", written)
	}
}

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Lstat(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}
