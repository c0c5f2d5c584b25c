package duckdb

import (
	"context"
	"testing"
)

// newTestRun is a run on a fresh in-memory engine, closed with the test.
func newTestRun(t *testing.T) *run {
	t.Helper()
	e, err := Open(Config{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	r, err := e.newRun(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.close)
	return r
}
