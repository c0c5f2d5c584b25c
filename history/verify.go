package history

import (
	"context"
	gosql "database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/tablegate/tablegate/internal/duckdbtune"
)

// TamperedError is a history file that holds what tablegate never writes there: a view or a
// macro, or one of its tables with other columns, types, defaults or constraints. A file like
// that could make reading it run any query (a view over every file the user can read, over
// range(4e9)), so it is neither read nor appended to.
type TamperedError struct {
	Problems []string
}

func (e *TamperedError) Error() string {
	return fmt.Sprintf("it is not a run history as tablegate writes one: %s; move the file aside and give --history a new path "+
		"(tablegate creates it), or restore a copy tablegate wrote", strings.Join(e.Problems, "; "))
}

// TypeName names the error in the JSON report.
func (e *TamperedError) TypeName() string { return "HistoryTamperedError" }

// column is one column of a history table as duckdb_columns() describes it.
type column struct{ name, dataType string }

// expected is each history table's columns, read from the tables schemaDDL creates in a
// private in-memory database: the DDL is their one description. migrated are the columns a
// history written before them may lack (migrateDDL adds them on the next append).
var expected struct {
	once   sync.Once
	tables map[string][]column
	err    error
}

var migrated = []string{"tablegate_check_results.value", "tablegate_runs.collection_run_id"}

func expectedTables(ctx context.Context) (map[string][]column, error) {
	expected.once.Do(func() {
		db, err := gosql.Open("duckdb", duckdbtune.LockedDSN(""))
		if err != nil {
			expected.err = err
			return
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, schemaDDL); err != nil {
			expected.err = err
			return
		}
		expected.tables, expected.err = tableColumns(ctx, db)
	})
	return expected.tables, expected.err
}

// tableColumns reads the columns of the history's tables in db, by table.
func tableColumns(ctx context.Context, db *gosql.DB) (map[string][]column, error) {
	rows, err := db.QueryContext(ctx, `SELECT table_name, column_name, data_type FROM duckdb_columns()
		WHERE NOT internal AND schema_name = 'main' AND table_name IN ('tablegate_runs', 'tablegate_check_results', 'tablegate_collection_runs')
		ORDER BY table_name, column_index`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]column{}
	for rows.Next() {
		var table string
		var c column
		if err := rows.Scan(&table, &c.name, &c.dataType); err != nil {
			return nil, err
		}
		out[table] = append(out[table], c)
	}
	return out, rows.Err()
}

// verify checks, before anything reads the history's tables, that the file holds what tablegate
// writes: no view, no macro, and its tables (those there) base tables with their columns and
// types, no defaults or generated columns, no CHECK or foreign-key constraints and no indexes.
// Every statement here reads DuckDB's catalog only. A file that fails is a *TamperedError.
func verify(ctx context.Context, db *gosql.DB) error {
	want, err := expectedTables(ctx)
	if err != nil {
		return fmt.Errorf("describe the history tables: %w", err)
	}
	problems, err := catalogProblems(ctx, db)
	if err != nil {
		return fmt.Errorf("read the history's catalog: %w", err)
	}
	have, err := tableColumns(ctx, db)
	if err != nil {
		return fmt.Errorf("read the history's catalog: %w", err)
	}
	for _, table := range slices.Sorted(maps.Keys(want)) {
		cols, ok := have[table]
		if !ok {
			continue // created on the next append
		}
		problems = append(problems, columnProblems(table, want[table], cols)...)
	}
	if len(problems) > 0 {
		return &TamperedError{Problems: problems}
	}
	return nil
}

// catalogQuery lists, in one statement on DuckDB's catalog alone, what a history must not hold:
// views, macros, defaults and generated columns, CHECK and foreign-key constraints, indexes.
const catalogQuery = `WITH ours(t) AS (VALUES ('tablegate_runs'), ('tablegate_check_results'), ('tablegate_collection_runs'))
SELECT schema_name || '.' || view_name || ' is a view (a history holds tables only)' FROM duckdb_views() WHERE NOT internal AND NOT temporary
UNION ALL SELECT 'it defines the macro ' || schema_name || '.' || function_name FROM duckdb_functions()
	WHERE NOT internal AND function_type IN ('macro', 'table_macro')
UNION ALL SELECT 'the column ' || table_name || '.' || column_name || ' has a default or is generated' FROM duckdb_columns()
	WHERE NOT internal AND schema_name = 'main' AND table_name IN (FROM ours) AND column_default IS NOT NULL
UNION ALL SELECT table_name || ' has a ' || constraint_type || ' constraint' FROM duckdb_constraints()
	WHERE schema_name = 'main' AND table_name IN (FROM ours) AND constraint_type NOT IN ('PRIMARY KEY', 'NOT NULL', 'UNIQUE')
UNION ALL SELECT table_name || ' has the index ' || index_name FROM duckdb_indexes() WHERE schema_name = 'main' AND table_name IN (FROM ours)
ORDER BY ALL`

func catalogProblems(ctx context.Context, db *gosql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, catalogQuery)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		problems = append(problems, p)
	}
	return problems, rows.Err()
}

// columnProblems compares a history table's columns with the columns tablegate gives it.
func columnProblems(table string, want, have []column) []string {
	var problems []string
	for _, h := range have {
		i := slices.IndexFunc(want, func(w column) bool { return w.name == h.name })
		switch {
		case i < 0:
			problems = append(problems, fmt.Sprintf("%s has a column %s tablegate does not write", table, h.name))
		case want[i].dataType != h.dataType:
			problems = append(problems, fmt.Sprintf("%s.%s is %s, not %s", table, h.name, h.dataType, want[i].dataType))
		}
	}
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h column) bool { return h.name == w.name }) && !slices.Contains(migrated, table+"."+w.name) {
			problems = append(problems, fmt.Sprintf("%s has no column %s", table, w.name))
		}
	}
	return problems
}
