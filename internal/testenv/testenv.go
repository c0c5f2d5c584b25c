// Package testenv holds what tests share about the environment they run in.
package testenv

import (
	"os"
	"testing"
)

// SlowVar is the variable that turns on the slow tests: kills, signals, sweeps, interop with other
// DuckDB builds, external servers and browsers. `go test ./...` stays the quick loop without it;
// CI's slow tier sets it and runs only them (`-run '^'+SlowPrefix`).
const SlowVar = "TABLEGATE_SLOW"

// SlowPrefix starts the name of every slow test, so that `-run '^'+SlowPrefix` selects them
// all and no quick test: `TABLEGATE_SLOW=1 go test -run '^TestSlow' ./...`.
const SlowPrefix = "TestSlow"

// Slow skips t unless the slow tests were asked for. A test of this module that calls it is
// named TestSlow… (TestSlowNamesSelectThem checks it), or CI's slow tier would never run it.
func Slow(t testing.TB) {
	t.Helper()
	if os.Getenv(SlowVar) == "" {
		t.Skip("slow test: set " + SlowVar + "=1 to run it")
	}
}
