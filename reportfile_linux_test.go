package tablegate_test

import (
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tablegate/tablegate"
)

// TestReportFileLeftWholeWhenTheDiskFills: a report that cannot be written whole (here the file
// size limit stands in for a full disk) fails, and the previous report is left as it was, with
// no temporary beside it. Before, the report was written in place, and the previous one was left
// truncated. Not parallel: the limit is the process's.
func TestReportFileLeftWholeWhenTheDiskFills(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	const previous = `{"outcome": "passed"}` + "\n"
	if err := os.WriteFile(path, []byte(previous), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := &tablegate.Report{Asset: strings.Repeat("a", 64<<10)}

	signal.Ignore(syscall.SIGXFSZ) // a write past the limit fails with EFBIG instead
	defer signal.Reset(syscall.SIGXFSZ)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	limited := old
	limited.Cur = 4 << 10
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limited); err != nil {
		t.Skipf("cannot limit the file size: %v", err)
	}
	err := tablegate.WriteReport(rep, nil, path, nil)
	if rerr := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); rerr != nil {
		t.Fatal(rerr)
	}

	if !errors.Is(err, syscall.EFBIG) {
		t.Fatalf("WriteReport past the size limit: %v, want EFBIG", err)
	}
	if !strings.Contains(err.Error(), "write the report") || !strings.Contains(err.Error(), path) {
		t.Errorf("the error does not name the report: %v", err)
	}
	data, rerr := os.ReadFile(path)
	if rerr != nil || string(data) != previous {
		t.Errorf("the previous report is %d bytes, %.40q… (%v); want it unchanged", len(data), data, rerr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files beside the report: %v, want the report alone", entries)
	}
	// With room, the report replaces the previous one whole.
	if err := tablegate.WriteReport(rep, nil, path, nil); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), rep.Asset) {
		t.Error("the new report was not written")
	}
}
