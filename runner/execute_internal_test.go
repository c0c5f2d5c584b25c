package runner

import (
	"context"
	gosql "database/sql"
	"fmt"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/schema"
)

// TestSampleTakes: each check shows at most N failing rows; a collapsed check takes them from
// its members in rule order and stops once it has N, so a rule whose check is full reads none.
// Pure: no database.
func TestSampleTakes(t *testing.T) {
	p, err := compile.Compile(schema.New("Gate",
		schema.Int64("a").Min(0),
		schema.Int64("m").Min(0).Max(10),
	))
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]int{}
	for i, r := range p.Rules {
		index[r.Name] = i
	}
	// a|min fails every row; m|min two, m|max one.
	failed := make([]int64, len(p.Rules))
	failed[index["a|min"]], failed[index["m|min"]], failed[index["m|max"]] = 1000, 2, 1
	// The checks' rule indexes at each granularity, as exec groups them.
	var perRule [][]int
	var all, aRules, mRules []int
	for i, r := range p.Rules {
		perRule = append(perRule, []int{i})
		all = append(all, i)
		if r.Column == "a" {
			aRules = append(aRules, i)
		} else {
			mRules = append(mRules, i)
		}
	}
	perColumn, perSchema := [][]int{aRules, mRules}, [][]int{all}
	for _, c := range []struct {
		name   string
		groups [][]int
		n      int
		want   map[string]int
	}{
		{"per rule", perRule, 3, map[string]int{"a|min": 3, "m|min": 2, "m|max": 1}},
		{"per column: m|min's two leave m|max one", perColumn, 3, map[string]int{"a|min": 3, "m|min": 2, "m|max": 1}},
		{"per column, 2 a check: m|max reads none", perColumn, 2, map[string]int{"a|min": 2, "m|min": 2}},
		{"per schema: a|min alone fills the sample", perSchema, 3, map[string]int{"a|min": 3}},
		{"none", perRule, 0, map[string]int{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := sampleTakes(c.groups, failed, c.n)
			want := map[int]int{}
			for name, k := range c.want {
				want[index[name]] = k
			}
			if len(got) != len(want) {
				t.Fatalf("takes %v, want %v", got, want)
			}
			for i, k := range want {
				if got[i] != k {
					t.Errorf("rule %s takes %d, want %d", p.Rules[i].Name, got[i], k)
				}
			}
		})
	}
}

// TestConditions: which of the program's conditions hold for a run's counts, outcome and asset.
// Pure: no database.
func TestConditions(t *testing.T) {
	const (
		inv   = compile.AnyInvalid
		none  = compile.NoInvalid
		valid = compile.AnyValid
		samp  = compile.Sampled
		fail  = compile.AnyFailure
		table = compile.WriteTable
		quar  = compile.WriteQuarant
		need  = compile.NeedValid
		write = compile.Writing
		drop  = compile.DropQuarant
		plain = compile.PlainGroups
	)
	for _, c := range []struct {
		name               string
		total, invalid     int64
		failing            int64
		policy             outcome.Policy
		output, quarantine bool
		rowSample          int
		sampled            bool
		want               compile.Cond
	}{
		{"all valid, written", 10, 0, 0, outcome.PolicyQuarantine, true, true, 0, false, none | valid | table | need | write | drop | plain},
		{"all valid, a warning fails", 10, 0, 4, outcome.PolicyAbort, true, false, 0, true, none | valid | samp | fail | table | need | write | drop | plain},
		{"aborted: nothing written", 10, 3, 3, outcome.PolicyAbort, true, false, 0, true, inv | valid | samp | fail | plain},
		{"aborted, row sample: the valid rows are sampled", 10, 3, 3, outcome.PolicyAbort, true, false, 2, true, inv | valid | samp | fail | need | plain},
		{"quarantined", 10, 3, 3, outcome.PolicyQuarantine, true, true, 0, true, inv | valid | samp | fail | table | quar | need | write | plain},
		{"no valid rows: only the quarantine", 10, 10, 10, outcome.PolicyQuarantine, true, true, 0, true, inv | samp | fail | quar | write | plain},
		{"in place", 10, 3, 3, outcome.PolicyAbort, false, false, 0, false, inv | valid | fail | plain},
		{"empty input", 0, 0, 0, outcome.PolicyQuarantine, true, true, 0, false, none | table | need | write | drop | plain},
		{"filter, every row invalid", 10, 10, 10, outcome.PolicyFilter, false, true, 0, true, inv | samp | fail | plain},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := outcome.Decide(c.total, c.invalid, c.policy)
			got := conditions(c.total, c.invalid, c.failing, out, c.output, c.quarantine, c.rowSample, c.sampled)
			if got != c.want {
				t.Errorf("conditions = %q, want %q", got, c.want)
			}
		})
	}
}

// TestValidRowGroupSize: the valid rows' Parquet row groups take the size that lets DuckDB write
// the most batches as they come, only where that beats its default without small row groups.
func TestValidRowGroupSize(t *testing.T) {
	ctx := context.Background()
	b := newDuckDB(t)

	// every returns one invalid ordinal in every step rows of [0, total).
	every := func(step, total int64) string {
		return fmt.Sprintf("SELECT range AS __tg_rid FROM range(0, %d, %d)", total, step)
	}
	full := []int64{compile.ParquetRowGroup, compile.ParquetRowGroup, compile.ParquetRowGroup, 1000}
	for _, c := range []struct {
		name    string
		groups  []int64
		invalid string
		want    int64
	}{
		// 1 row in 50 invalid: 2457 or 2458 of 122,880 rows per group (more than 2048); of two
		// sizes that take as many batches, the larger.
		{"2% invalid", full, every(50, 3*compile.ParquetRowGroup+1000), compile.ParquetRowGroup - 2457},
		{"invalid rows in one group only", full, "SELECT range AS __tg_rid FROM range(0, 5000)", 0},
		{"1% invalid: DuckDB takes the batches as they are", full, every(100, 3*compile.ParquetRowGroup+1000), 0},
		{"60% invalid: the row groups would be small", full, "SELECT range AS __tg_rid FROM range(0, 3*122880+1000) WHERE range % 5 < 3", 0},
		{"row groups unknown", nil, every(50, 1000), 0},
		{"row groups far larger than DuckDB's: no larger output groups", []int64{1_000_000}, every(50, 1_000_000), 0},
		// polars writes 123,457 rows a group: 1 row in 30 invalid leaves 119,341 or 119,342.
		{"row groups a little larger than DuckDB's", []int64{123457, 123457, 123457, 1000}, every(30, 3*123457+1000), 119342},
		{"a little larger, 1% invalid: DuckDB takes the batches as they are", []int64{123457, 123457, 123457, 1000}, every(100, 3*123457+1000), 0},
		// Batches far over the default are not taken as they come by it, nor a size to choose,
		// even when more of them agree than of the others.
		{"larger groups beside more far larger ones", []int64{123457, 123457, 123457, 123457, 130000, 130000, 130000, 130000, 130000, 1000},
			every(30, 4*123457), 119342},
		{"no invalid rows at all in the median group", []int64{compile.ParquetRowGroup, compile.ParquetRowGroup, compile.ParquetRowGroup},
			"SELECT range AS __tg_rid FROM range(0, 122880, 10)", 0},
		{"one row group", []int64{100_000}, every(40, 100_000), 100_000 - 2500},
		{"the last group, a remainder, is not counted", []int64{compile.ParquetRowGroup, compile.ParquetRowGroup, 500},
			every(50, 2*compile.ParquetRowGroup) + " UNION ALL SELECT range FROM range(245760, 246260)", compile.ParquetRowGroup - 2458},
		{"the count fails", full, "SELECT no_such_column AS __tg_rid", 0},
		// Two groups lose 1 row in 40 (119,808 valid), three 1 in 10 (110,592): the size of the three.
		{"two sizes: the one most batches are near", []int64{compile.ParquetRowGroup, compile.ParquetRowGroup, compile.ParquetRowGroup, compile.ParquetRowGroup, compile.ParquetRowGroup, 10},
			"SELECT range AS __tg_rid FROM range(0, 2*122880, 40) UNION ALL SELECT range FROM range(2*122880, 5*122880, 10)", compile.ParquetRowGroup - 12288},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := rowGroupSize(ctx, b, compile.ValidRowGroupSize(c.groups, c.invalid)); got != c.want {
				t.Errorf("rowGroupSize = %d, want %d", got, c.want)
			}
		})
	}
}

// duckDB is a Backend on a connection of an in-memory DuckDB, for the steps that read rows.
type duckDB struct{ conn *gosql.Conn }

func newDuckDB(t *testing.T) *duckDB {
	t.Helper()
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &duckDB{conn: conn}
}

func (d *duckDB) Open(context.Context) (compile.Relation, error) {
	return compile.Relation{}, fmt.Errorf("no input")
}

func (d *duckDB) Describe(context.Context, compile.Relation) ([]casting.ColumnType, error) {
	return nil, fmt.Errorf("no input")
}

func (d *duckDB) Exec(ctx context.Context, stmt string, args ...any) error {
	_, err := d.conn.ExecContext(ctx, stmt, args...)
	return err
}

func (d *duckDB) Query(ctx context.Context, stmt string, args ...any) (Rows, error) {
	rows, err := d.conn.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (d *duckDB) Refuse(compile.Op) error { return nil }
func (d *duckDB) ID() int64               { return 0 }
func (d *duckDB) Close() error            { return nil }
