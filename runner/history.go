package runner

import (
	"context"
	"errors"
	"sync"
	"time"

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
	// Runs lists the newest runs of each asset, newest first; Checks each check's trend over its
	// asset's newest runs; CollectionRuns the newest collection runs.
	Runs(ctx context.Context, path string, f HistoryFilter) ([]HistoryRun, error)
	Checks(ctx context.Context, path string, f HistoryFilter) ([]CheckTrend, error)
	CollectionRuns(ctx context.Context, path string, f HistoryFilter) ([]CollectionRun, error)
}

// HistoryFilter narrows what the history readers return: one asset, one check, each asset's
// newest Last runs (0: the trends' default); zero fields do not narrow.
type HistoryFilter struct {
	Asset, Check string
	Last         int
}

// HistoryRun is one recorded run.
type HistoryRun struct {
	RunID     string       `json:"run_id"`
	Asset     string       `json:"asset"`
	Schema    string       `json:"schema"`
	StartedAt time.Time    `json:"started_at"`
	DurationS float64      `json:"duration_s"`
	Outcome   string       `json:"outcome"` // "" when the run failed before deciding one
	Health    string       `json:"health"`
	Rows      outcome.Rows `json:"rows"`
	ErrorType string       `json:"error_type,omitempty"`
}

// CheckTrend is one check of one asset over its recent runs.
type CheckTrend struct {
	Asset string `json:"asset"`
	Check string `json:"check"`
	report.Trend
}

// CollectionRun is one recorded run of a collection.
type CollectionRun struct {
	RunID      string    `json:"run_id"`
	Collection string    `json:"collection"`
	StartedAt  time.Time `json:"started_at"`
	DurationS  float64   `json:"duration_s"`
	Outcome    string    `json:"outcome"` // "" when the run failed before the members' outcomes
	Written    bool      `json:"written"`
	// Members are the collection's members in declaration order.
	Members   []string `json:"members"`
	ErrorType string   `json:"error_type,omitempty"`
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
