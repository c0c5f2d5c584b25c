package history

import (
	"context"
	gosql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/runner"
)

// CollectionRun is one recorded run of a collection, as tablegate_collection_runs has it.
type CollectionRun = runner.CollectionRun

// ErrNoCollectionRun is a run id that names no collection's run.
var ErrNoCollectionRun = runner.ErrNoCollectionRun

// AppendCollection records a collection's run: its row in tablegate_collection_runs and each
// member's run given (as Append records one; their reports name the collection's run), in one
// transaction: the whole run or nothing of it.
func AppendCollection(ctx context.Context, path string, crep *outcome.CollectionReport, members []*report.Run) error {
	err := inTx(ctx, path, func(tx *gosql.Tx) error {
		if err := insertCollection(ctx, tx, crep, members); err != nil {
			return err
		}
		for _, run := range members {
			if err := insertRun(ctx, tx, run); err != nil {
				return fmt.Errorf("member %s: %w", run.Report.Asset, err)
			}
		}
		return nil
	})
	if err != nil {
		return &Error{Path: path, Op: "append to", Err: err}
	}
	return nil
}

// insertCollection records the collection's row. Its report is stored without the members'
// reports that are recorded as runs of their own; a member the run never got to keeps its
// report there.
func insertCollection(ctx context.Context, tx *gosql.Tx, crep *outcome.CollectionReport, members []*report.Run) error {
	if crep == nil || crep.RunID == "" {
		return errors.New("the collection's run has no report or no run id")
	}
	stored := *crep
	stored.Members = map[string]*outcome.Report{}
	for name, rep := range crep.Members {
		if !slices.ContainsFunc(members, func(r *report.Run) bool { return r.Report == rep }) {
			stored.Members[name] = rep
		}
	}
	data, err := json.Marshal(stored)
	if err != nil {
		return err
	}
	var out, errType, errMsg any
	if crep.Outcome != nil {
		out = string(*crep.Outcome)
	}
	if crep.Error != nil {
		errType, errMsg = crep.Error.Type, crep.Error.Message
	}
	order := crep.MemberOrder
	if order == nil {
		order = []string{}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO tablegate_collection_runs (run_id, collection, started_at, duration_s, outcome, written,
		members, error_type, error_message, report) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		crep.RunID, crep.Collection, startedAt(crep.StartedAt), crep.DurationS, out, crep.Written, order, errType, errMsg, string(data)); err != nil {
		return fmt.Errorf("record the collection's run: %w", err)
	}
	return nil
}

// RecordCollection appends the collection's run (AppendCollection) and reads each member's
// checks' trends into its run. It does not fail: a history that cannot be written or read is
// given to warn, and the run, its outcome and its outputs are as they were.
func RecordCollection(ctx context.Context, path string, crep *outcome.CollectionReport, members []*report.Run, warn func(string)) {
	if err := AppendCollection(ctx, path, crep, members); err != nil {
		warn(fmt.Sprintf("%v; the collection's run is not recorded, its outcome and outputs are unaffected (use a DuckDB file this user can write, or a new path)", err))
		return
	}
	for _, run := range members {
		trends, err := Trends(ctx, path, run.Report.Asset, TrendRuns)
		if err != nil {
			warn(fmt.Sprintf("%v; the page shows no trends", err))
			return
		}
		run.Trends = trends
	}
}

// hasCollections reports whether the history has the collection runs' table (a history written
// before it has none, and no collection runs).
func hasCollections(ctx context.Context, db *gosql.DB) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_tables() WHERE table_name = 'tablegate_collection_runs'`).Scan(&n)
	return n > 0, err
}

// CollectionRuns lists the newest f.Last collection runs, newest first; with f.Asset, only the
// runs of collections with a member of that name.
func CollectionRuns(ctx context.Context, path string, f Filter) ([]CollectionRun, error) {
	var out []CollectionRun
	err := read(ctx, path, func(db *gosql.DB) error {
		if ok, err := hasCollections(ctx, db); !ok || err != nil {
			return err
		}
		rows, err := db.QueryContext(ctx, `SELECT run_id, collection, started_at, duration_s, coalesce(outcome, ''), coalesce(written, false),
			members, coalesce(error_type, '')
			FROM tablegate_collection_runs WHERE ($1 = '' OR list_contains(members, $1))
			ORDER BY started_at DESC, run_id DESC LIMIT $2`, f.Asset, lastOf(f))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r CollectionRun
			var members []any
			if err := rows.Scan(&r.RunID, &r.Collection, &r.StartedAt, &r.DurationS, &r.Outcome, &r.Written, &members, &r.ErrorType); err != nil {
				return err
			}
			r.Members = make([]string, 0, len(members))
			for _, m := range members {
				if s, ok := m.(string); ok {
					r.Members = append(r.Members, s)
				}
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}

// LoadCollection reads a recorded collection's run back: its report with every member's (as
// its run recorded it), and each recorded member's run with its trends up to it, what the
// collection's page needs. A run id that names no collection's run is ErrNoCollectionRun.
func LoadCollection(ctx context.Context, path, runID string) (*outcome.CollectionReport, map[string]*report.Run, error) {
	var crep *outcome.CollectionReport
	runs := map[string]*report.Run{}
	err := read(ctx, path, func(db *gosql.DB) error {
		ok, err := hasCollections(ctx, db)
		if err != nil {
			return err
		}
		if !ok {
			return ErrNoCollectionRun
		}
		var data string
		err = db.QueryRowContext(ctx, `SELECT report FROM tablegate_collection_runs WHERE run_id = ?`, runID).Scan(&data)
		if errors.Is(err, gosql.ErrNoRows) {
			return ErrNoCollectionRun
		}
		if err != nil {
			return err
		}
		crep = &outcome.CollectionReport{}
		if err := json.Unmarshal([]byte(data), crep); err != nil {
			return fmt.Errorf("collection run %s: its report: %w", runID, err)
		}
		if crep.Members == nil {
			crep.Members = map[string]*outcome.Report{}
		}
		rows, err := db.QueryContext(ctx, `SELECT run_id FROM tablegate_runs WHERE collection_run_id = ? ORDER BY run_id`, runID)
		if err != nil {
			return err
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range ids {
			run, err := loadRun(ctx, db, id)
			if err != nil {
				return err
			}
			name := run.Report.Asset
			if c := run.Report.Collection; c != nil {
				name = c.Member
			}
			runs[name] = run
			crep.Members[name] = run.Report
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return crep, runs, nil
}
