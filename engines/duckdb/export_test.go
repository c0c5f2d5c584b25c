package duckdb

import (
	"context"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// FailSyncFile makes every flush of a file for which fail returns an error fail with it, until
// the returned function restores the real flush. Tests that use it must not run in parallel.
func FailSyncFile(fail func(path string) error) (restore func()) {
	return durable.SetSyncFailure(fail)
}

// SetCrashPoint calls at at each step of an output's swap, until the returned function restores
// none. Tests that use it must not run in parallel.
func SetCrashPoint(at func(stage string)) (restore func()) { return durable.SetCrashPoint(at) }

// ExplainFilter is the program Filter runs over the input with opts.
func (e *Engine) ExplainFilter(ctx context.Context, p *compile.Plan, in runner.Input, opts runner.Options) (string, error) {
	return runner.NewOn(e).ExplainPolicy(ctx, runner.Asset{Plan: p, Input: in}, opts, outcome.PolicyFilter)
}
