package duckdb_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/sample"
	"github.com/tablegate/tablegate/schema"
)

// TestStagedMatchesSingleQuery: a Parquet input is evaluated in stages (failing keys, rows that
// may fail, then the plan query over those rows), a DuckDB table by the one plan query. On the
// same generated rows both must report the same counts and write the same table and quarantine,
// for example schemas of the compiler's golden tests and for a cast input, with the Parquet file
// written as DuckDB chooses (dictionaries for repetitive strings) and with no dictionary at all,
// where the string rules move from the pushed-down filters to the fetch. The quick loop compares
// two schemas (keys and rules, group rules) and the cast input; TestSlowStagedMatchesSingleQuery
// every other example schema.
func TestStagedMatchesSingleQuery(t *testing.T) {
	compareExampleSchemas(t, func(name string) bool { return quickStaged[name] })

	t.Run("cast", func(t *testing.T) {
		s := schema.New("Cast",
			schema.Int64("id").PrimaryKey(),
			schema.Float64("amount").Min(0).Max(100),
			schema.String("code").Nullable().Regex("^[A-Z]{3}$"),
		)
		// amount arrives as DECIMAL: both paths cast it (--cast) before the rules run.
		q := `SELECT CAST(i % 3900 AS BIGINT) AS id, CAST((i % 250) - 20 AS DECIMAL(9,2)) AS amount,
			CASE WHEN i % 7 = 0 THEN NULL WHEN i % 5 = 0 THEN 'abc' ELSE 'XYZ' END AS code
			FROM range(4000) r(i)`
		compareStagedAndSingle(t, s, q, true, "")
		compareStagedAndSingle(t, s, q, true, plainParquet)
	})
}

// TestSlowStagedMatchesSingleQuery is TestStagedMatchesSingleQuery's sweep over the other example
// schemas (nested values, quoting, reserved names, severities, temporal, numeric and text rules).
func TestSlowStagedMatchesSingleQuery(t *testing.T) {
	testenv.Slow(t)
	compared := compareExampleSchemas(t, func(name string) bool { return !quickStaged[name] })
	// Columns the generator cannot make are left out (nested rules are covered by the Parquet
	// cases of nested_test.go); a schema is skipped only when its rules need such a column.
	require.GreaterOrEqual(t, compared+len(quickStaged), 9, "the sample generator should cover most example schemas")
}

// quickStaged are the example schemas the quick loop compares.
var quickStaged = map[string]bool{"orders": true, "group_rules": true}

// compareExampleSchemas compares the staged and the single-query evaluation on the example
// schemas of the compiler's golden tests that pick selects, and returns how many it compared.
func compareExampleSchemas(t *testing.T, pick func(name string) bool) int {
	files, err := filepath.Glob(filepath.Join("..", "..", "compile", "testdata", "*.yaml"))
	require.NoError(t, err)
	json, err := filepath.Glob(filepath.Join("..", "..", "compile", "testdata", "*.json"))
	require.NoError(t, err)
	files = append(files, json...)
	require.NotEmpty(t, files, "no example schemas")
	compared := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		if !pick(name) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			s, err := schema.LoadFile(f)
			require.NoError(t, err)
			q := sampleableQuery(t, s)
			// Cast: Parquet has no enum or millisecond timestamp; both paths cast alike.
			compareStagedAndSingle(t, s, q, true, "")
			compareStagedAndSingle(t, s, q, true, plainParquet)
			compared++
		})
	}
	return compared
}

var notGenerated = regexp.MustCompile(`^column '([^']+)': `)

// sampleableQuery generates rows for s, leaving out (from s too) the columns the generator
// cannot make (List, Struct and Binary columns; unique keys with too few distinct values). It
// skips the test when a schema-level rule needs such a column.
func sampleableQuery(t *testing.T, s *schema.Schema) string {
	t.Helper()
	for {
		q, _, err := sample.Query(s, sample.Spec{Rows: 4000, InvalidRate: 0.2, Seed: 7})
		if err == nil {
			if _, err := compile.Compile(s); err != nil {
				t.Skipf("without the columns the generator cannot make, the schema does not compile: %v", err)
			}
			return q
		}
		m := notGenerated.FindStringSubmatch(err.Error())
		require.NotNil(t, m, "a generator error not about one column: %v", err)
		s.Columns = slices.DeleteFunc(s.Columns, func(c *schema.Column) bool { return c.Name == m[1] })
		if len(s.Columns) == 0 {
			t.Skip("the generator makes none of the schema's columns")
		}
	}
}

// plainParquet writes Parquet without dictionaries, as writers do for mostly distinct values.
const plainParquet = "DICTIONARY_SIZE_LIMIT 1"

func compareStagedAndSingle(t *testing.T, s *schema.Schema, query string, cast bool, parquetOptions string) {
	t.Helper()
	e := newEnv(t)
	pq := e.path("in.parquet")
	if parquetOptions == "" {
		pq = e.parquet("in.parquet", query)
	} else {
		e.exec(fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet, %s)", query, lit(pq), parquetOptions))
	}
	db := e.path("in.duckdb")
	e.table(db, "t", query)

	opts := runner.Options{Cast: cast, MaxFailureSamples: -1}
	staged, err := run(t, s, runner.Asset{Input: runner.ParquetInput{Path: pq}, Output: runner.ParquetOutput{Path: e.path("a", "t.parquet")}, Quarantine: true}, opts)
	requireRan(t, staged, err)
	single, err := run(t, s, runner.Asset{Input: runner.TableInput{File: db, Table: "t"}, Output: runner.ParquetOutput{Path: e.path("b", "t.parquet")}, Quarantine: true}, opts)
	requireRan(t, single, err)

	require.Equal(t, single.Rows, staged.Rows)
	require.Equal(t, failedCounts(t, single), failedCounts(t, staged))
	require.Equal(t, summary(single), summary(staged))
	require.Equal(t, single.InvalidByRules, staged.InvalidByRules)
	require.Greater(t, staged.Rows.Invalid, int64(0), "the sample should break some rule")
	if q := e.path("a", "t_quarantine.parquet"); exists(t, q) {
		// Rule columns are written through an ENUM; the file must hold plain strings.
		for _, col := range e.describe("read_parquet(" + lit(q) + ")") {
			if strings.HasPrefix(col, "dy_") {
				require.True(t, strings.HasSuffix(col, " VARCHAR"), col)
			}
		}
	}
	// As JSON in file order, so that NaN equals NaN.
	for _, f := range []string{"t.parquet", "t_quarantine.parquet"} {
		a, b := e.path("a", f), e.path("b", f)
		require.Equal(t, exists(t, b), exists(t, a), f)
		if exists(t, a) {
			inFileOrder := func(path string) []string {
				return e.jsonRows("read_parquet("+lit(path)+", file_row_number = true)", "file_row_number")
			}
			require.Equal(t, inFileOrder(b), inFileOrder(a), f)
		}
	}
}

// requireRan accepts the outcomes that got as far as counting rows.
func requireRan(t *testing.T, rep *outcome.Report, err error) {
	t.Helper()
	require.NotNil(t, rep.Outcome, "run error: %v", err)
	switch *rep.Outcome {
	case outcome.Quarantined, outcome.AllValid, outcome.NoValidRows:
	default:
		t.Fatalf("outcome %s: %v", *rep.Outcome, err)
	}
}

// TestPlainStringColumnsFilterInTheFetch: a string column stored with a dictionary gets its own
// filter pushed into the Parquet scan; stored without one, its rules run in the scan that
// fetches the failing rows, so the column is not decoded twice.
func TestPlainStringColumnsFilterInTheFetch(t *testing.T) {
	e := newEnv(t)
	query := `SELECT i AS id, 'user' || i || '@example.com' AS email, ['paid', 'lost'][1 + i % 2] AS status FROM range(2000) r(i)`
	dict := e.parquet("dict.parquet", query)
	plain := e.path("plain.parquet")
	e.exec(fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet, %s)", query, lit(plain), plainParquet))
	s := schema.New("Plain",
		schema.Int64("id"),
		schema.String("email").Regex(`^[a-z0-9.]+@[a-z]+\.[a-z]{2,3}$`),
		schema.String("status").IsIn("paid", "shipped"),
	)
	p, err := compile.Compile(s)
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	// The program's statement that stores the suspects ("" when there is none), and the fetch.
	stages := func(path string) (suspects, fetch string) {
		sqlText, err := eng.Explain(context.Background(), p, runner.ParquetInput{Path: path})
		require.NoError(t, err)
		for _, step := range strings.Split(sqlText, ";\n\n-- ") {
			_, stmt, _ := strings.Cut(step, "\n")
			switch {
			case strings.HasPrefix(stmt, `CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspects_`):
				suspects = stmt
			case strings.Contains(step, "evaluate the rules: run\n"):
				fetch = stmt
			}
		}
		return suspects, fetch
	}
	// DuckDB writes the 2000 distinct emails plainly either way, and the two statuses with a
	// dictionary unless told not to.
	suspects, fetch := stages(dict)
	require.Contains(t, suspects, `"status" IN`)
	require.NotContains(t, suspects, "regexp_matches")
	require.Contains(t, fetch, "regexp_matches")
	suspects, fetch = stages(plain)
	require.Empty(t, suspects)
	require.Contains(t, fetch, `"status" IN`)
}

// TestValidRowsKeepInputRowGroups: when 3% of every input row group is invalid, the valid rows'
// Parquet file has one row group per input row group, of that group's valid rows (DuckDB then
// writes each batch as it comes instead of copying it into 122,880-row groups), also when the
// input's groups are a little larger than DuckDB's (as polars writes them). With input row
// groups too small to keep, DuckDB's default applies. Either way the file holds the valid rows
// in input order.
func TestValidRowsKeepInputRowGroups(t *testing.T) {
	e := newEnv(t)
	s := schema.New("Groups", schema.Int64("id").PrimaryKey(), schema.Float64("amount").Min(0))
	const rows = 3*122880 + 5000
	query := fmt.Sprintf("SELECT i AS id, CASE WHEN i %% 30 = 7 THEN -1 ELSE i %% 1000 END::DOUBLE AS amount FROM range(%d) r(i)", rows)
	ints := func(q string) []int64 {
		var out []int64
		for _, r := range e.query(q) {
			out = append(out, r[0].(int64))
		}
		return out
	}
	groupSizes := func(path string) []int64 {
		return ints("SELECT row_group_num_rows FROM parquet_metadata(" + lit(path) + ") GROUP BY row_group_id, row_group_num_rows ORDER BY row_group_id")
	}
	for _, c := range []struct {
		name     string
		inGroups int
		keeps    bool // the output's row groups are the input's, less their invalid rows
	}{
		{"DuckDB's row groups", 122880, true},
		{"larger row groups", 123457, true}, // DuckDB writes 124,928 rows a group
		{"small row groups", 10000, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := e.path(c.name, "in.parquet")
			require.NoError(t, os.MkdirAll(filepath.Dir(in), 0o755))
			e.exec(fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet, ROW_GROUP_SIZE %d)", query, lit(in), c.inGroups))
			out := e.path(c.name, "out", "valid.parquet")
			rep, err := run(t, s, runner.Asset{Name: "valid", Input: runner.ParquetInput{Path: in}, Output: runner.ParquetOutput{Path: out}, Quarantine: true}, runner.Options{})
			require.NoError(t, err)
			validIDs := ints(fmt.Sprintf("SELECT id FROM read_parquet(%s) WHERE amount >= 0 ORDER BY id", lit(in)))
			require.Equal(t, int64(len(validIDs)), rep.Rows.Valid)

			got := groupSizes(out)
			if c.keeps {
				want := ints(fmt.Sprintf(`WITH g AS (SELECT row_group_id, n, sum(n) OVER (ORDER BY row_group_id) - n AS start
	FROM (SELECT DISTINCT row_group_id, row_group_num_rows AS n FROM parquet_metadata(%[1]s)))
SELECT count(*) FILTER (WHERE amount >= 0) FROM read_parquet(%[1]s) AS r
JOIN g ON r.file_row_number >= g.start AND r.file_row_number < g.start + g.n
GROUP BY g.row_group_id ORDER BY g.row_group_id`, lit(in)))
				require.GreaterOrEqual(t, len(want), 3)
				require.Greater(t, groupSizes(in)[0], int64(c.inGroups-2048), "the input's row groups")
				require.Less(t, want[0], int64(122880-2048), "every batch is too short for DuckDB's default")
				assert.Equal(t, want, got)
			} else {
				// DuckDB's default: batches merged into groups of at least 122,880 rows.
				require.Len(t, got, 3)
				assert.GreaterOrEqual(t, got[0], int64(122880))
				assert.GreaterOrEqual(t, got[1], int64(122880))
			}
			assert.Equal(t, validIDs, ints("SELECT id FROM read_parquet("+lit(out)+")"), "the valid rows, in input order")
		})
	}
}
