package compile

import (
	gosql "database/sql"
	"fmt"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// TestOrdinalSet: the bitmap blocks answer membership exactly as the set does, at block edges,
// across blocks without ordinals, for ordinals far apart in the range and for an empty set.
func TestOrdinalSet(t *testing.T) {
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // the variables are the connection's

	const block = int64(1) << blockBits
	for name, members := range map[string][]int64{
		"empty":       nil,
		"one":         {0},
		"block edges": {block - 1, block, 2*block - 1, 5 * block},
		"far apart":   {3, 40*block + 7, 63*block + 12345},
		"dense":       {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
	} {
		t.Run(name, func(t *testing.T) {
			values := "SELECT NULL::BIGINT AS __tg_rid WHERE FALSE"
			if len(members) > 0 {
				values = "SELECT unnest(["
				for i, m := range members {
					if i > 0 {
						values += ", "
					}
					values += fmt.Sprint(m)
				}
				values += "]::BIGINT[]) AS __tg_rid"
			}
			b := &builder{id: 1}
			cond := b.ordinalSet(0, "test", "test", values, "x", Facts{Rows: 64 * block, LastRowID: 64*block - 1})
			for _, s := range b.prog.steps {
				if _, err := db.Exec(s.SQL); err != nil {
					t.Fatalf("%v\n%s", err, s.SQL)
				}
			}
			// Every member and its neighbours, plus a spread of other ordinals.
			probe := "SELECT unnest(list_concat(" +
				"(SELECT coalesce(flatten(list([m - 1, m, m + 1])), []) FROM (" + values + ") v(m)), " +
				"[0, 1, block_size - 1, block_size, 4 * block_size + 3, 64 * block_size - 1])) AS x"
			probe = fmt.Sprintf("SELECT x FROM (%s) WHERE x >= 0", strings.ReplaceAll(probe, "block_size", fmt.Sprint(block)))
			var wrong, tested int64
			q := fmt.Sprintf("SELECT count(*) FILTER (WHERE (%s) IS DISTINCT FROM (x IN (%s))), count(*) FROM (%s)", cond, values, probe)
			if err := db.QueryRow(q).Scan(&wrong, &tested); err != nil {
				t.Fatalf("%v\n%s", err, q)
			}
			if wrong != 0 || tested < 6 {
				t.Errorf("%d of %d probed ordinals answered wrongly", wrong, tested)
			}
		})
	}
}
