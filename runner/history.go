package runner

import (
	"context"
	"errors"
	"sync"

	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
)

// History is the run history: a file runs are recorded in, each with its report and plan facts,
// and which anomaly bands are drawn from. Package history implements it on a DuckDB file and
// registers itself (RegisterHistory) when a program imports it, as engines/duckdb does.
type History interface {
	// Record appends a run; a run that cannot be recorded is told to warn, not an error.
	Record(ctx context.Context, path string, run *report.Run, warn func(string))
	// RecordCollection appends a collection's run and its members' runs, warning as Record.
	RecordCollection(ctx context.Context, path string, crep *outcome.CollectionReport, members []*report.Run, warn func(string))
	// Load reads a recorded run; LoadCollection a collection's run and its members' (an error
	// wrapping ErrNoCollectionRun when runID names none).
	Load(ctx context.Context, path, runID string) (*report.Run, error)
	LoadCollection(ctx context.Context, path, runID string) (*outcome.CollectionReport, map[string]*report.Run, error)
	// Baselines reads, per check (check name → lookback), its values in the asset's newest runs
	// that have one, newest first (Options.Baselines).
	Baselines(ctx context.Context, path, asset string, checks map[string]int) (map[string][]float64, error)
}

// ErrNoCollectionRun is History.LoadCollection's error for a run id that names no collection's
// run.
var ErrNoCollectionRun = errors.New("no such collection run: `tablegate history --history FILE` lists them under COLLECTION RUNS")

// ErrNoHistory is the error of a history asked for in a program that links none.
var ErrNoHistory = errors.New(`no run history is linked into this program: import _ "github.com/tablegate/tablegate/history" (a DuckDB file; it needs a cgo build), as engines/duckdb does`)

var (
	historyMu sync.RWMutex
	history   History
)

// RegisterHistory makes h the run history. It panics when called twice.
func RegisterHistory(h History) {
	historyMu.Lock()
	defer historyMu.Unlock()
	if h == nil || history != nil {
		panic("runner: RegisterHistory called twice or with nil")
	}
	history = h
}

// RunHistory is the registered run history (ErrNoHistory without one).
func RunHistory() (History, error) {
	historyMu.RLock()
	defer historyMu.RUnlock()
	if history == nil {
		return nil, ErrNoHistory
	}
	return history, nil
}

// BaselinesOf reads the baselines from the history file at path, for Options.Baselines: an
// error (and so a warning of the run) without a history.
func BaselinesOf(path string) func(ctx context.Context, asset string, checks map[string]int) (map[string][]float64, error) {
	return func(ctx context.Context, asset string, checks map[string]int) (map[string][]float64, error) {
		h, err := RunHistory()
		if err != nil {
			return nil, err
		}
		return h.Baselines(ctx, path, asset, checks)
	}
}
