package history

import (
	"context"
	gosql "database/sql"
	"encoding/json"
	"errors"
	"math"
	"os"

	"github.com/tablegate/tablegate/outcome"
)

// checkValue is what the history stores as a check's value: a table check's metric; NULL for a
// condition (its passed says it), a rule check, or a value JSON cannot carry (NaN, infinity).
func checkValue(c outcome.Check) any {
	if c.Table == nil {
		return nil
	}
	var f float64
	switch v := c.Table.Value.(type) {
	case float64:
		f = v
	case json.Number: // a report read back from JSON
		var err error
		if f, err = v.Float64(); err != nil {
			return nil
		}
	default:
		return nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

// valueColumn is the check results' value column, or NULL in a history written before it.
func valueColumn(ctx context.Context, db *gosql.DB) (string, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_columns() WHERE table_name = 'tablegate_check_results' AND column_name = 'value'`).Scan(&n)
	if err != nil || n == 0 {
		return "CAST(NULL AS DOUBLE)", err
	}
	return "c.value", nil
}

// Baselines reads, for each check (check name → lookback), its values in the asset's newest
// recorded runs that have one, newest first, at most lookback of them: what the anomaly bands of
// a run are drawn from (runner.Options.Baselines). A history file that does not exist yet has no
// values.
func Baselines(ctx context.Context, path, asset string, checks map[string]int) (map[string][]float64, error) {
	out := map[string][]float64{}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	err := read(ctx, path, func(db *gosql.DB) error {
		col, err := valueColumn(ctx, db)
		if err != nil {
			return err
		}
		for check, lookback := range checks {
			rows, err := db.QueryContext(ctx, `SELECT `+col+` FROM tablegate_runs r JOIN tablegate_check_results c USING (run_id)
				WHERE r.asset = $1 AND c.check_name = $2 AND `+col+` IS NOT NULL
				ORDER BY r.started_at DESC, r.run_id DESC LIMIT $3`, asset, check, lookback)
			if err != nil {
				return err
			}
			vals := []float64{}
			for rows.Next() {
				var v float64
				if err := rows.Scan(&v); err != nil {
					rows.Close()
					return err
				}
				vals = append(vals, v)
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return err
			}
			out[check] = vals
		}
		return nil
	})
	return out, err
}
