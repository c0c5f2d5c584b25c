package duckdb_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/collection"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/runner"
)

// TestCollectionWritesAllOrNothing: a rename that fails after another member's files were put
// in place (here items' table temporary is removed before its rename) rolls back every member:
// orders keeps its previous table and quarantine too, the run fails saying so, and the next run
// writes every member.
func TestCollectionWritesAllOrNothing(t *testing.T) {
	e := newEnv(t)
	c := collection.New("c").Member("orders", colOrders()).Member("items", colItems()).OneToAtLeastOne("has_items", "orders", "items")
	write := func(orders, items string) error {
		o := e.parquet("in/orders.parquet", fmt.Sprintf(colSelects["orders"], orders))
		i := e.parquet("in/items.parquet", fmt.Sprintf(colSelects["items"], items))
		assets := map[string]runner.Asset{
			"orders": {Input: runner.ParquetInput{Path: o}, Output: runner.ParquetOutput{Path: e.path("sales", "orders.parquet")}, Quarantine: true},
			"items":  {Input: runner.ParquetInput{Path: i}, Output: runner.ParquetOutput{Path: e.path("lines", "items.parquet")}, Quarantine: true},
		}
		_, err := runCollection(t, c, assets, runner.Options{})
		return err
	}
	err := write("(1, 1.0), (2, 1.0)", "(1, 1, 'p', 1)")
	require.NoError(t, err)
	previous := map[string][][]any{}
	files := []string{e.path("sales", "orders.parquet"), e.path("sales", "orders_quarantine.parquet"), e.path("lines", "items.parquet")}
	for _, f := range files {
		previous[f] = e.parquetRows(f)
	}
	require.Len(t, previous[files[1]], 1, "order 2 has no items")

	itemsTemp := regexp.MustCompile(`^\.items\.parquet\.tablegate-\d+-\d+-table\.tmp$`)
	restore := durable.SetCrashPoint(func(stage string) {
		if stage != "set renamed 0 1" { // orders' table is in place, items' files are not
			return
		}
		entries, err := os.ReadDir(e.path("lines"))
		require.NoError(t, err)
		for _, en := range entries {
			if itemsTemp.MatchString(en.Name()) {
				require.NoError(t, os.Remove(filepath.Join(e.path("lines"), en.Name())))
			}
		}
	})
	err = write("(1, 2.0), (2, 2.0), (3, 2.0)", "(1, 1, 'p', 1), (3, 1, 'p', 1)")
	restore()
	var rb *durable.RolledBackError
	require.ErrorAs(t, err, &rb)
	assert.Contains(t, err.Error(), "the previous files are in place")
	for _, f := range files {
		assert.Equal(t, previous[f], e.parquetRows(f), "%s is the previous run's", f)
	}
	for _, dir := range []string{e.path("sales"), e.path("lines")} {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, en := range entries {
			assert.NotRegexp(t, `^\.`, en.Name(), "no temporary, journal or lock left in %s", dir)
		}
	}

	err = write("(1, 2.0), (2, 2.0), (3, 2.0)", "(1, 1, 'p', 1), (3, 1, 'p', 1)")
	require.NoError(t, err)
	assert.Len(t, e.parquetRows(files[0]), 2)
	assert.Len(t, e.parquetRows(files[2]), 2)
}

// TestCollectionRefusesSetsNoCommitCovers: members writing Parquet files and DuckDB tables, or
// tables of two database files, are refused before any input is read (the inputs here do not
// exist), saying what to do; nothing is written.
func TestCollectionRefusesSetsNoCommitCovers(t *testing.T) {
	e := newEnv(t)
	c := collection.New("c").Member("orders", colOrders()).Member("items", colItems())
	missing := runner.ParquetInput{Path: e.path("in", "missing.parquet")}
	for name, tc := range map[string]struct {
		outs [2]runner.Output
		want string
	}{
		"parquet and a table": {[2]runner.Output{runner.ParquetOutput{Path: e.path("out", "orders.parquet")}, runner.TableOutput{File: e.path("out", "wh.duckdb"), Table: "items"}},
			"write every member to Parquet files (--out-dir DIR), or every member to tables of one DuckDB database file (--out-dir FILE.duckdb)"},
		"two database files": {[2]runner.Output{runner.TableOutput{File: e.path("out", "a.duckdb"), Table: "orders"}, runner.TableOutput{File: e.path("out", "b.duckdb"), Table: "items"}},
			"write every member's table to one database file (--out-dir FILE.duckdb"},
	} {
		outs := tc.outs
		t.Run(name, func(t *testing.T) {
			_, err := runCollection(t, c, map[string]runner.Asset{
				"orders": {Input: missing, Output: outs[0]},
				"items":  {Input: missing, Output: outs[1]},
			}, runner.Options{})
			var refused *duckdb.SetRefusedError
			require.ErrorAs(t, err, &refused)
			assert.Contains(t, err.Error(), "cannot be written all or nothing")
			assert.Contains(t, err.Error(), tc.want)
			assert.NoDirExists(t, e.path("out"))
		})
	}
}
