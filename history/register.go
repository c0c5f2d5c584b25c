package history

import (
	"context"

	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/runner"
)

// A program that imports this package records its runs in a DuckDB file (runner.History).
func init() { runner.RegisterHistory(file{}) }

// file is the run history on a DuckDB file: this package's functions.
type file struct{}

func (file) Record(ctx context.Context, path string, run *report.Run, warn func(string)) {
	Record(ctx, path, run, warn)
}

func (file) RecordCollection(ctx context.Context, path string, crep *outcome.CollectionReport, members []*report.Run, warn func(string)) {
	RecordCollection(ctx, path, crep, members, warn)
}

func (file) Load(ctx context.Context, path, runID string) (*report.Run, error) {
	return Load(ctx, path, runID)
}

func (file) LoadCollection(ctx context.Context, path, runID string) (*outcome.CollectionReport, map[string]*report.Run, error) {
	return LoadCollection(ctx, path, runID)
}

func (file) Baselines(ctx context.Context, path, asset string, checks map[string]int) (map[string][]float64, error) {
	return Baselines(ctx, path, asset, checks)
}

func (file) Runs(ctx context.Context, path string, f Filter) ([]Run, error) {
	return Runs(ctx, path, f)
}

func (file) Checks(ctx context.Context, path string, f Filter) ([]CheckTrend, error) {
	return Checks(ctx, path, f)
}

func (file) CollectionRuns(ctx context.Context, path string, f Filter) ([]CollectionRun, error) {
	return CollectionRuns(ctx, path, f)
}
