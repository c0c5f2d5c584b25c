package tablegate

import (
	"context"

	"github.com/tablegate/tablegate/runner"
)

// HistoryFilter narrows what the history readers return: one asset, one check, each asset's
// newest Last runs (0: the trends' default); zero fields do not narrow.
type HistoryFilter = runner.HistoryFilter

// HistoryRun is one run as the run history recorded it (Options.History).
type HistoryRun = runner.HistoryRun

// CheckTrend is one check of one asset over its recent runs.
type CheckTrend = runner.CheckTrend

// CollectionRun is one collection's run as the run history recorded it.
type CollectionRun = runner.CollectionRun

// ErrNoCollectionRun is LoadCollectionRun's error for a run id that names no collection's run.
var ErrNoCollectionRun = runner.ErrNoCollectionRun

// HistoryRuns lists the newest runs of each asset (f.Last each) recorded in the run history file
// path, newest first.
func HistoryRuns(ctx context.Context, path string, f HistoryFilter) ([]HistoryRun, error) {
	h, err := runner.RunHistory()
	if err != nil {
		return nil, err
	}
	return h.Runs(ctx, path, f)
}

// HistoryChecks gives each check's trend over the newest f.Last runs of its asset, from the run
// history file path.
func HistoryChecks(ctx context.Context, path string, f HistoryFilter) ([]CheckTrend, error) {
	h, err := runner.RunHistory()
	if err != nil {
		return nil, err
	}
	return h.Checks(ctx, path, f)
}

// HistoryCollectionRuns lists the newest f.Last collection runs of the run history file path,
// newest first; with f.Asset, only those of collections with a member of that name.
func HistoryCollectionRuns(ctx context.Context, path string, f HistoryFilter) ([]CollectionRun, error) {
	h, err := runner.RunHistory()
	if err != nil {
		return nil, err
	}
	return h.CollectionRuns(ctx, path, f)
}

// LoadCollectionRun reads a recorded collection's run back from the run history file path: its
// report, every member's included, as the run reported it. A run id that names no collection's
// run is ErrNoCollectionRun.
func LoadCollectionRun(ctx context.Context, path, runID string) (*CollectionReport, error) {
	h, err := runner.RunHistory()
	if err != nil {
		return nil, err
	}
	crep, _, err := h.LoadCollection(ctx, path, runID)
	return crep, err
}

// HistoryAvailable is nil when this program can record runs in a run history (Options.History),
// else why not: the history is a DuckDB file, which a program built without cgo cannot link.
func HistoryAvailable() error {
	_, err := runner.RunHistory()
	return err
}
