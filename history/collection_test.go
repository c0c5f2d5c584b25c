package history_test

import (
	"context"
	gosql "database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/history"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
)

// memberRun is a real run of n bad rows, made a member of the collection's run cid.
func memberRun(t *testing.T, cid, member string, n int, start time.Time) *report.Run {
	t.Helper()
	run, err := newRun(context.Background(), n, start)
	require.NoError(t, err)
	run.Report.Asset, run.Report.RunID = member, cid+"."+member
	run.Report.Collection = &outcome.CollectionRun{Name: "Shop", RunID: cid, Member: member}
	return run
}

// A collection's run is recorded whole: its row, with the filters and every member it never got
// to, and each member's run tied to it; it reads back as it ran. A history written before
// collections had their table gains it on the next append.
func TestCollectionRunRecorded(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.duckdb")
	// A history as written before: no collection_run_id, no collection runs' table.
	db, err := gosql.Open("duckdb", path)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE tablegate_runs (run_id VARCHAR PRIMARY KEY, asset VARCHAR NOT NULL, schema_name VARCHAR NOT NULL,
		schema_fingerprint VARCHAR, started_at TIMESTAMPTZ, duration_s DOUBLE, outcome VARCHAR, health VARCHAR, rows_input BIGINT,
		rows_valid BIGINT, rows_invalid BIGINT, table_address VARCHAR, table_written BOOLEAN, quarantine_address VARCHAR,
		quarantine_written BOOLEAN, tablegate_version VARCHAR, duckdb_version VARCHAR, error_type VARCHAR, error_message VARCHAR,
		report VARCHAR, details VARCHAR);
		CREATE TABLE tablegate_check_results (run_id VARCHAR NOT NULL, position INTEGER NOT NULL, check_name VARCHAR NOT NULL,
		rules VARCHAR[], passed BOOLEAN NOT NULL, severity VARCHAR, declared_severity VARCHAR, blocking BOOLEAN, failed_count BIGINT,
		PRIMARY KEY (run_id, check_name));`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	colls, err := history.CollectionRuns(ctx, path, history.Filter{})
	require.NoError(t, err)
	assert.Empty(t, colls)
	_, _, err = history.LoadCollection(ctx, path, "c1")
	require.ErrorIs(t, err, history.ErrNoCollectionRun)

	start := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	cid := "20260301T080000Z-c1"
	orders, items := memberRun(t, cid, "orders", 2, start), memberRun(t, cid, "items", 0, start)
	failed := outcome.CollectionFailed
	crep := &outcome.CollectionReport{Collection: "Shop", RunID: cid, StartedAt: "2026-03-01T08:00:00Z", DurationS: 1.5, Outcome: &failed,
		CommonPrimaryKey: []string{"id"}, MemberOrder: []string{"orders", "items", "refunds"},
		Members: map[string]*outcome.Report{"orders": orders.Report, "items": items.Report, "refunds": {Asset: "refunds"}},
		Filters: []outcome.FilterResult{{Name: "f", Kind: "one_to_one", Description: "id once in each", Check: "dy_rule__f", Failed: map[string]int64{"orders": 1, "items": 0}}}}

	// A member that cannot be recorded records nothing of the collection's run.
	broken := memberRun(t, cid, "items", 0, start)
	broken.Report.RunID = ""
	require.Error(t, history.AppendCollection(ctx, path, crep, []*report.Run{orders, broken}))
	colls, err = history.CollectionRuns(ctx, path, history.Filter{})
	require.NoError(t, err)
	assert.Empty(t, colls)
	runs, err := history.Runs(ctx, path, history.Filter{})
	require.NoError(t, err)
	assert.Empty(t, runs)

	var warned []string
	history.RecordCollection(ctx, path, crep, []*report.Run{orders, items}, func(msg string) { warned = append(warned, msg) })
	require.Empty(t, warned)
	assert.Equal(t, []int64{2}, orders.Trends["dy_rule__amount__min"].Failed, "the members' trends are read for the page")

	colls, err = history.CollectionRuns(ctx, path, history.Filter{})
	require.NoError(t, err)
	require.Len(t, colls, 1)
	assert.Equal(t, history.CollectionRun{RunID: cid, Collection: "Shop", StartedAt: colls[0].StartedAt, DurationS: 1.5, Outcome: "failed",
		Members: []string{"orders", "items", "refunds"}}, colls[0])
	assert.True(t, colls[0].StartedAt.Equal(start))
	colls, err = history.CollectionRuns(ctx, path, history.Filter{Asset: "items"})
	require.NoError(t, err)
	assert.Len(t, colls, 1)
	colls, err = history.CollectionRuns(ctx, path, history.Filter{Asset: "invoices"})
	require.NoError(t, err)
	assert.Empty(t, colls)

	got, members, err := history.LoadCollection(ctx, path, cid)
	require.NoError(t, err)
	assert.Equal(t, crep.Filters, got.Filters)
	assert.Equal(t, crep.MemberOrder, got.MemberOrder)
	assert.Equal(t, "failed", string(*got.Outcome))
	require.Len(t, got.Members, 3)
	assert.Equal(t, "refunds", got.Members["refunds"].Asset, "a member the run never got to is kept with the collection")
	assert.Equal(t, cid+".orders", got.Members["orders"].RunID)
	assert.Equal(t, int64(2), got.Members["orders"].Rows.Invalid)
	assert.Same(t, members["orders"].Report, got.Members["orders"])
	assert.Equal(t, []int64{0}, members["items"].Trends["dy_rule__amount__min"].Failed)
	assert.NotEmpty(t, members["items"].SQL)

	// The member runs are an asset's runs like any other, tied to the collection's by a column.
	runs, err = history.Runs(ctx, path, history.Filter{Asset: "orders"})
	require.NoError(t, err)
	require.Len(t, runs, 1)
	db, err = gosql.Open("duckdb", path+"?access_mode=read_only")
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM tablegate_runs WHERE collection_run_id = ?`, cid).Scan(&n))
	assert.Equal(t, 2, n)
}
