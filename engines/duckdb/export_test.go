package duckdb

import (
	"context"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/outcome"
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
func (e *Engine) ExplainFilter(ctx context.Context, p *compile.Plan, in Input, opts Options) (string, error) {
	return e.explain(ctx, Asset{Plan: p, Input: in}, opts, outcome.PolicyFilter)
}

// AnomalyBand draws an anomaly check's band, for tests of the band alone.
var AnomalyBand = drawBand
