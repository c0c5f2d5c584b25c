// Package testenv holds what tests share about the environment they run in.
package testenv

import (
	"os"
	"testing"
)

// SlowVar is the variable that turns on the slow tests: kills, signals, interop with other
// DuckDB builds, external servers and browsers. `go test ./...` stays the quick loop without it;
// CI's second stage sets it.
const SlowVar = "TABLEGATE_SLOW"

// Slow skips t unless the slow tests were asked for.
func Slow(t testing.TB) {
	t.Helper()
	if os.Getenv(SlowVar) == "" {
		t.Skip("slow test: set " + SlowVar + "=1 to run it")
	}
}
