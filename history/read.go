package history

import (
	"context"
	gosql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/runner"
)

// Filter narrows what the readers return; zero fields do not narrow.
type Filter = runner.HistoryFilter

// lastOf is how many of each asset's newest runs f reads.
func lastOf(f Filter) int {
	if f.Last <= 0 {
		return TrendRuns
	}
	return f.Last
}

// Run is one recorded run, as tablegate_runs has it.
type Run = runner.HistoryRun

// CheckTrend is one check of one asset over its recent runs.
type CheckTrend = runner.CheckTrend

// ErrNoHistory is a history file that does not exist yet.
var ErrNoHistory = errors.New("no run history: it is created by the first `validate --history FILE`")

// read opens the history read-only for fn.
func read(ctx context.Context, path string, fn func(db *gosql.DB) error) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return &Error{Path: path, Op: "read", Err: ErrNoHistory}
	}
	unlock, err := lock(ctx, path, false)
	if err != nil {
		return &Error{Path: path, Op: "read", Err: err}
	}
	defer unlock()
	db, err := open(ctx, path, true)
	if err != nil {
		return &Error{Path: path, Op: "read", Err: err}
	}
	defer db.Close()
	if err := fn(db); err != nil {
		return &Error{Path: path, Op: "read", Err: err}
	}
	return nil
}

// Runs lists the newest runs of each asset (f.Last each), newest first.
func Runs(ctx context.Context, path string, f Filter) ([]Run, error) {
	var out []Run
	err := read(ctx, path, func(db *gosql.DB) error {
		rows, err := db.QueryContext(ctx, `SELECT run_id, asset, schema_name, started_at, duration_s, coalesce(outcome, ''), coalesce(health, ''),
			rows_input, rows_valid, rows_invalid, coalesce(error_type, '')
			FROM tablegate_runs WHERE ($1 = '' OR asset = $1)
			QUALIFY row_number() OVER (PARTITION BY asset ORDER BY started_at DESC, run_id DESC) <= $2
			ORDER BY started_at DESC, run_id DESC`, f.Asset, lastOf(f))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r Run
			if err := rows.Scan(&r.RunID, &r.Asset, &r.Schema, &r.StartedAt, &r.DurationS, &r.Outcome, &r.Health,
				&r.Rows.Input, &r.Rows.Valid, &r.Rows.Invalid, &r.ErrorType); err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}

// Checks gives each check's trend over the newest f.Last runs of its asset.
func Checks(ctx context.Context, path string, f Filter) ([]CheckTrend, error) {
	var out []CheckTrend
	err := read(ctx, path, func(db *gosql.DB) error {
		var err error
		out, err = trends(ctx, db, f, time.Time{})
		return err
	})
	return out, err
}

// trends reads the check trends of the runs that started by until (zero: all).
func trends(ctx context.Context, db *gosql.DB, f Filter, until time.Time) ([]CheckTrend, error) {
	if until.IsZero() {
		until = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	value, err := valueColumn(ctx, db)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `WITH recent AS (
			SELECT run_id, asset, started_at,
				row_number() OVER (PARTITION BY asset ORDER BY started_at DESC, run_id DESC) AS k
			FROM tablegate_runs WHERE ($1 = '' OR asset = $1) AND started_at <= $3),
		passed AS (
			SELECT r.asset, c.check_name, max(r.started_at) AS last_passed
			FROM recent r JOIN tablegate_check_results c USING (run_id) WHERE c.passed GROUP BY ALL)
		SELECT r.asset, c.check_name, coalesce(c.failed_count, 0), c.passed, p.last_passed, `+value+`
		FROM recent r JOIN tablegate_check_results c USING (run_id)
		LEFT JOIN passed p ON p.asset = r.asset AND p.check_name = c.check_name
		WHERE r.k <= $2 AND ($4 = '' OR c.check_name = $4)
		ORDER BY r.asset, min(c.position) OVER (PARTITION BY r.asset, c.check_name), c.check_name, r.started_at, r.run_id`,
		f.Asset, lastOf(f), until, f.Check)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []CheckTrend
	for rows.Next() {
		var asset, check string
		var failed int64
		var passed bool
		var last gosql.NullTime
		var value gosql.NullFloat64
		if err := rows.Scan(&asset, &check, &failed, &passed, &last, &value); err != nil {
			return nil, err
		}
		if n := len(out); n == 0 || out[n-1].Asset != asset || out[n-1].Check != check {
			t := CheckTrend{Asset: asset, Check: check}
			if last.Valid {
				t.LastPassed = last.Time.UTC().Format(time.RFC3339)
			}
			out = append(out, t)
		}
		t := &out[len(out)-1]
		t.Failed = append(t.Failed, failed)
		t.Passed = append(t.Passed, passed)
		var v *float64
		if value.Valid && !math.IsNaN(value.Float64) && !math.IsInf(value.Float64, 0) {
			v = &value.Float64 // tablegate records none other; JSON has no NaN or infinity
		}
		t.Values = append(t.Values, v)
	}
	for i := range out {
		if !slices.ContainsFunc(out[i].Values, func(v *float64) bool { return v != nil }) {
			out[i].Values = nil
		}
	}
	return out, rows.Err()
}

// Load reads a recorded run back, with its checks' trends over the 30 runs of its asset up to
// it: what its page needs.
func Load(ctx context.Context, path, runID string) (*report.Run, error) {
	var run *report.Run
	err := read(ctx, path, func(db *gosql.DB) error {
		var err error
		run, err = loadRun(ctx, db, runID)
		if errors.Is(err, gosql.ErrNoRows) {
			return fmt.Errorf("no run %q: `tablegate history --history FILE` lists the runs", runID)
		}
		return err
	})
	return run, err
}

// loadRun reads the run back from db (gosql.ErrNoRows when there is none), with its trends.
func loadRun(ctx context.Context, db *gosql.DB, runID string) (*report.Run, error) {
	var asset, rep, details string
	var started gosql.NullTime
	err := db.QueryRowContext(ctx, `SELECT asset, started_at, report, details FROM tablegate_runs WHERE run_id = ?`, runID).
		Scan(&asset, &started, &rep, &details)
	if err != nil {
		return nil, err
	}
	run := &report.Run{Report: &outcome.Report{}}
	// Numbers stay as written (-1.0, a BIGINT's every digit), as in a fresh run's page.
	dec := json.NewDecoder(strings.NewReader(rep))
	dec.UseNumber()
	if err := dec.Decode(run.Report); err != nil {
		return nil, fmt.Errorf("run %s: its report: %w", runID, err)
	}
	if err := json.Unmarshal([]byte(details), run); err != nil {
		return nil, fmt.Errorf("run %s: its details: %w", runID, err)
	}
	if !started.Valid {
		return run, nil
	}
	ts, err := trends(ctx, db, Filter{Asset: asset}, started.Time)
	if err != nil {
		return nil, err
	}
	run.Trends = trendMap(ts)
	return run, nil
}

// Trends are the check trends of the asset's newest n runs (0: 30), by check name.
func Trends(ctx context.Context, path, asset string, n int) (map[string]report.Trend, error) {
	var out map[string]report.Trend
	err := read(ctx, path, func(db *gosql.DB) error {
		ts, err := trends(ctx, db, Filter{Asset: asset, Last: n}, time.Time{})
		out = trendMap(ts)
		return err
	})
	return out, err
}

func trendMap(ts []CheckTrend) map[string]report.Trend {
	m := make(map[string]report.Trend, len(ts))
	for _, t := range ts {
		m[t.Check] = t.Trend
	}
	return m
}
