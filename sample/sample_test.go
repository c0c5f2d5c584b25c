package sample_test

import (
	"context"
	gosql "database/sql"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
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

// TestSampleFitsSchema: at invalid rate 0 every generated row passes every rule of the schema
// (checked by validating it), at rate 0.2 about a fifth fails, and the same seed gives the same
// rows. Runs over the compiler's example schemas; TestSlowSampleFitsSchema over the benchmark
// rule sets.
func TestSampleFitsSchema(t *testing.T) {
	sampleFitsSchema(t, 8, "../compile/testdata/*.yaml", "../compile/testdata/*.json", "testdata/*.yaml")
}

// TestSlowSampleFitsSchema is TestSampleFitsSchema over the benchmark rule sets (up to 40 rules).
func TestSlowSampleFitsSchema(t *testing.T) {
	testenv.Slow(t)
	sampleFitsSchema(t, 6, "../benchmarks/schemas/*.yaml")
}

// sampleFitsSchema checks the generator on the schemas the patterns match, at least atLeast of
// which it can fill.
func sampleFitsSchema(t *testing.T, atLeast int, patterns ...string) {
	var files []string
	for _, pat := range patterns {
		m, err := filepath.Glob(pat)
		require.NoError(t, err)
		files = append(files, m...)
	}
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	db := eng.DB()

	covered := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		t.Run(name, func(t *testing.T) {
			s, err := schema.LoadFile(f)
			require.NoError(t, err)
			clean, _, err := sample.Query(s, sample.Spec{Rows: 3000, InvalidRate: 0, Seed: 3})
			if err != nil {
				// Only a schema no rows can fit may stop the generator: text.yaml's unique Enum of
				// 3 categories. binary.yaml is the same schema without it.
				require.Contains(t, err.Error(), "a category per row")
				t.Skip(err)
			}
			covered++
			p, err := compile.Compile(s)
			require.NoError(t, err)

			// Beyond the generator: custom SQL (checks, schema rules).
			custom := map[string]bool{}
			for _, r := range p.Rules {
				if r.Kind == schema.RuleCheck || r.Kind == "custom" || r.Kind == "group" {
					custom[r.Check] = true
				}
			}
			generated := func(rep *outcome.Report) (failed int64, which []string) {
				for _, c := range rep.Checks {
					if c.Rule != "" && !custom[c.Name] {
						if n := c.Failed; n > 0 {
							failed += n
							which = append(which, c.Name)
						}
					}
				}
				return failed, which
			}
			rep := validate(t, eng, p, clean)
			n, which := generated(rep)
			require.Zero(t, n, "rate 0 must give valid rows; failing: %v", which)

			dirty, rules, err := sample.Query(s, sample.Spec{Rows: 3000, InvalidRate: 0.2, Seed: 3})
			require.NoError(t, err)
			require.NotEmpty(t, rules)
			rep = validate(t, eng, p, dirty)
			// About a fifth of the rows break one rule the generator knows (a few break two: an
			// infinity is also above a max).
			broken, _ := generated(rep)
			require.True(t, broken >= 450 && broken <= 1200, "%d failures of generated rules, want about 600", broken)

			// Every row bad: each rule the generator names is a rule of the schema, and fails.
			all, rules, err := sample.Query(s, sample.Spec{Rows: 3000, InvalidRate: 1, Seed: 3})
			require.NoError(t, err)
			rep = validate(t, eng, p, all)
			failing := map[string]int64{}
			for _, c := range rep.Checks {
				failing[c.Name] = c.Failed
			}
			for _, rule := range rules {
				check := "dy_rule__" + strings.ReplaceAll(rule, "|", "__")
				n, ok := failing[check]
				require.True(t, ok, "%s is not a rule of the schema", rule)
				assert.Positive(t, n, "no row breaks %s", rule)
			}

			// Same seed, same rows; another seed, other rows.
			again, _, err := sample.Query(s, sample.Spec{Rows: 3000, InvalidRate: 0.2, Seed: 3})
			require.NoError(t, err)
			require.Equal(t, fingerprint(t, db, dirty), fingerprint(t, db, again))
			other, _, err := sample.Query(s, sample.Spec{Rows: 3000, InvalidRate: 0.2, Seed: 4})
			require.NoError(t, err)
			require.NotEqual(t, fingerprint(t, db, dirty), fingerprint(t, db, other))
		})
	}
	require.GreaterOrEqual(t, covered, atLeast)
}

func validate(t *testing.T, eng *duckdb.Engine, p *compile.Plan, query string) *outcome.Report {
	t.Helper()
	// Cast: the generator writes Enum columns as text and lets DuckDB pick timestamp units.
	rep, err := eng.Run(context.Background(), runner.Asset{Plan: p, Input: runner.QueryInput{SQL: query}}, runner.Options{Cast: true})
	require.NotNil(t, rep.Outcome, "run error: %v", err)
	return rep
}

func fingerprint(t *testing.T, db *gosql.DB, query string) string {
	t.Helper()
	var h string
	require.NoError(t, db.QueryRow("SELECT CAST(sum(hash(to_json(x))) AS VARCHAR) FROM ("+query+") AS x").Scan(&h))
	return h
}

// TestSampleKeys: keys are distinct per row, and per element inside lists, within what their
// type can hold; a key no type or category list can make distinct is refused with the numbers.
func TestSampleKeys(t *testing.T) {
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	db := eng.DB()
	load := func(yaml string) *schema.Schema {
		t.Helper()
		s, err := schema.Parse([]byte(yaml), "keys.yaml")
		require.NoError(t, err)
		return s
	}
	distinct := func(query, expr string) (n, total int64) {
		t.Helper()
		require.NoError(t, db.QueryRow(fmt.Sprintf("SELECT count(DISTINCT %s), count(*) FROM (%s)", expr, query)).Scan(&n, &total))
		return n, total
	}

	// Int8 holds 128 values from 0: 128 rows fit, 129 do not.
	int8Key := load("schema: K\ncolumns:\n  - {name: id, type: Int8, primary_key: true}\n")
	q, _, err := sample.Query(int8Key, sample.Spec{Rows: 128, Seed: 1})
	require.NoError(t, err)
	n, total := distinct(q, "id")
	assert.Equal(t, int64(128), n)
	assert.Equal(t, int64(128), total)
	_, _, err = sample.Query(int8Key, sample.Spec{Rows: 129, Seed: 1})
	require.EqualError(t, err, "column 'id': a unique Int8 column needs 129 distinct values, one per row, from 0; the type ends at 127")

	// An Enum key takes a category per row while there are enough.
	enumKey := load("schema: K\ncolumns:\n  - {name: s, type: Enum, categories: [a, b, c], unique: true}\n")
	q, _, err = sample.Query(enumKey, sample.Spec{Rows: 3, Seed: 1})
	require.NoError(t, err)
	n, _ = distinct(q, "s")
	assert.Equal(t, int64(3), n)
	_, _, err = sample.Query(enumKey, sample.Spec{Rows: 4, Seed: 1})
	require.EqualError(t, err, "column 's': a unique Enum column needs a category per row: 3 categories for 4 rows")

	// A unique element is one among its list's: Int8 is enough. The elements of a unique list
	// are distinct among all rows' (the row's index times 1024 plus the position), which Int16
	// cannot hold for 100 rows.
	listKey := load(`schema: K
columns:
  - name: tags
    type: List
    min_length: 3
    inner: {type: String, unique: true, regex: '^[a-z]+$'}
  - name: codes
    type: List
    min_length: 1
    inner: {type: Int8, primary_key: true}
`)
	q, _, err = sample.Query(listKey, sample.Spec{Rows: 2000, Seed: 1})
	require.NoError(t, err)
	var bad, dupTags, dupCodes int64
	require.NoError(t, db.QueryRow("SELECT count(*) FILTER (WHERE NOT regexp_matches(e, '^[a-z]+$')) FROM (SELECT unnest(tags) AS e FROM ("+q+"))").Scan(&bad))
	assert.Zero(t, bad, "string keys spelt in letters where the regex refuses digits")
	require.NoError(t, db.QueryRow("SELECT count(*) FILTER (WHERE len(list_distinct(tags)) <> len(tags)), count(*) FILTER (WHERE len(list_distinct(codes)) <> len(codes)) FROM ("+q+")").Scan(&dupTags, &dupCodes))
	assert.Zero(t, dupTags)
	assert.Zero(t, dupCodes)
	// Int8 element keys fit lists of up to 4 but not the 201-element max_length violation, which
	// is then left out rather than the schema refused.
	_, rules, err := sample.Query(load("schema: K\ncolumns:\n  - {name: l, type: List, max_length: 200, inner: {type: Int8, unique: true}}\n"), sample.Spec{Rows: 100, Seed: 1})
	require.NoError(t, err)
	assert.NotContains(t, rules, "l|max_length")
	assert.Contains(t, rules, "l|inner_nullability")
	_, _, err = sample.Query(load("schema: K\ncolumns:\n  - {name: ids, type: List, unique: true, inner: {type: Int16}}\n"), sample.Spec{Rows: 100, Seed: 1})
	require.EqualError(t, err, "column 'ids': inner: a unique Int16 column needs 102400 distinct values, one per list element, from 0; the type ends at 32767")

	// A pattern whose only spelling is empty has one key.
	q, _, err = sample.Query(load("schema: K\ncolumns:\n  - {name: k, type: String, unique: true, regex: '^\\d?$'}\n"), sample.Spec{Rows: 1, Seed: 1})
	require.NoError(t, err)
	n, _ = distinct(q, "k")
	assert.Equal(t, int64(1), n)
	var empty bool
	require.NoError(t, db.QueryRow("SELECT bool_and(k = '') FROM ("+q+")").Scan(&empty))
	assert.True(t, empty, "the one key the pattern spells is the empty string")

	// Bounds: a column's max, a Decimal's digits, a Float's min, and a regex that spells keys.
	for _, c := range []struct{ col, err string }{
		{"{name: k, type: Int32, unique: true, max: 100}", "column 'k': a unique Int32 column needs 200 distinct values, one per row, from 0; its max is 100"},
		{"{name: k, type: Decimal, precision: 2, scale: 2, unique: true}", "column 'k': a unique Decimal(2,2) column needs 200 distinct multiples of 0.01, one per row, from 0; a Decimal(2,2) holds fewer"},
		{"{name: k, type: Float64, unique: true, min: 0, max: 0.0001}", "column 'k': a unique Float64 column needs 200 distinct multiples of 0.000001, one per row, from 0; its max leaves too little room"},
		{"{name: k, type: String, unique: true, max_length: 8}", "column 'k': sample cannot spell 200 distinct strings within the length bounds, one per row"},
		{"{name: k, type: String, unique: true, regex: '^K\\d{2}$'}", "column 'k': sample cannot spell 200 distinct strings matching \"^K\\\\d{2}$\" within the length bounds, one per row"},
		// Spelt position by position as ab000, ab001, …, which the $ inside refuses: checked, not trusted.
		{"{name: k, type: String, unique: true, regex: '^a$b\\d{3}$'}", "column 'k': sample cannot spell 200 distinct strings matching \"^a$b\\\\d{3}$\" within the length bounds, one per row"},
		{"{name: k, type: Float32, unique: true, min: 16777216}", "column 'k': a unique Float32 column needs 200 distinct whole numbers, one per row, from 16777216; a Float32 cannot tell them apart"},
	} {
		_, _, err := sample.Query(load("schema: K\ncolumns:\n  - "+c.col+"\n"), sample.Spec{Rows: 200, Seed: 1})
		assert.EqualError(t, err, c.err)
	}
	for col, check := range map[string]string{
		"{name: k, type: Float64, unique: true, min: 10.5}":         "bool_and(k >= 10.5) AND min(k) = 11",
		"{name: k, type: String, unique: true, regex: '^K\\d{3}$'}": "bool_and(regexp_matches(k, '^K\\d{3}$')) AND min(k) = 'K000'",
		"{name: k, type: UInt8, unique: true}":                      "min(k) = 0",
		// Spelt by the regex: ranges of repeats; patterns the digits or letters fit on some
		// indexes only.
		"{name: k, type: String, unique: true, regex: '^[A-Z]{2,5}$'}":    "bool_and(regexp_matches(k, '^[A-Z]{2,5}$'))",
		"{name: k, type: String, unique: true, regex: '^k\\d{9}[0-79]$'}": "bool_and(regexp_matches(k, '^k\\d{9}[0-79]$'))",
		"{name: k, type: String, unique: true, regex: '^[a-o]{12}$'}":     "bool_and(regexp_matches(k, '^[a-o]{12}$'))",
		// An alternation: its first branch spells the keys.
		"{name: k, type: String, unique: true, regex: '^(k\\d{10}|zz)$'}": "bool_and(regexp_matches(k, '^(k\\d{10}|zz)$')) AND min(k) = 'k0000000000'",
		// An optional group left out; a repeated fixed group; an unanchored class, which a regex
		// searches for, so that more than 26 keys follow it.
		"{name: k, type: String, unique: true, regex: '^[A-Z][a-z]+(-x)?$'}":    "bool_and(regexp_matches(k, '^[A-Z][a-z]+(-x)?$'))",
		"{name: k, type: String, unique: true, regex: '^(ab)+[0-9]+$'}":         "bool_and(regexp_matches(k, '^(ab)+[0-9]+$'))",
		"{name: k, type: String, unique: true, regex: '[A-Z]'}":                 "bool_and(regexp_matches(k, '[A-Z]'))",
		"{name: k, type: String, unique: true, regex: '^[A-Z]'}":                "bool_and(regexp_matches(k, '^[A-Z]'))",
		"{name: k, type: String, unique: true, regex: '^\\d+$', min_length: 5}": "bool_and(regexp_matches(k, '^\\d+$') AND strlen(k) >= 5)",
		// Finer than whole numbers where the bounds or the digits ask for it.
		"{name: k, type: Decimal, precision: 4, scale: 2, unique: true}":                  "max(k) = 19.9",
		"{name: k, type: Float64, unique: true, min: 0, max_exclusive: 1}":                "bool_and(k >= 0 AND k < 1) AND max(k) = 0.199",
		"{name: k, type: Decimal, precision: 5, scale: 2, unique: true, min: -5, max: 5}": "min(k) = -5 AND max(k) = -3.01",
		// Exact past a double's whole numbers.
		"{name: k, type: Decimal, precision: 38, scale: 0, unique: true, min: '100000000000000000000'}": "min(k) = 100000000000000000000::DECIMAL(38,0)",
	} {
		q, _, err := sample.Query(load("schema: K\ncolumns:\n  - "+col+"\n"), sample.Spec{Rows: 200, Seed: 1})
		require.NoError(t, err, col)
		n, total := distinct(q, "k")
		assert.Equal(t, total, n, col)
		var ok bool
		require.NoError(t, db.QueryRow("SELECT "+check+" FROM ("+q+")").Scan(&ok), col)
		assert.True(t, ok, "%s: %s", col, check)
	}
}

// TestSampleLimits: a schema past what the generator makes is refused with the limit it passes.
func TestSampleLimits(t *testing.T) {
	for _, c := range []struct{ yaml, err string }{
		{"  - {name: l, type: List, min_length: 1021, inner: {type: Int64}}",
			"column 'l': sample does not generate lists of more than 1024 elements"},
		{"  - {name: a, type: Array, shape: [32, 33], inner: {type: Int64}}",
			"column 'a': sample does not generate arrays of more than 1024 elements"},
		{"  - {name: l, type: List, inner: {type: List, inner: {type: List, inner: {type: List, inner: {type: Int8}}}}}",
			"column 'l': inner: inner: inner: sample does not generate lists nested more than 3 deep"},
	} {
		s, err := schema.Parse([]byte("schema: L\ncolumns:\n"+c.yaml+"\n"), "limits.yaml")
		require.NoError(t, err)
		_, _, err = sample.Query(s, sample.Spec{Rows: 10, Seed: 1})
		assert.EqualError(t, err, c.err)
	}
	// At the limits themselves the data is made.
	s, err := schema.Parse([]byte("schema: L\ncolumns:\n  - {name: l, type: List, min_length: 1020, inner: {type: Int64}}\n  - {name: a, type: Array, shape: [32, 32], inner: {type: Int8}}\n"), "limits.yaml")
	require.NoError(t, err)
	q, _, err := sample.Query(s, sample.Spec{Rows: 200, Seed: 1})
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	var longest, cells int64
	require.NoError(t, eng.DB().QueryRow("SELECT max(len(l)), max(len(flatten(CAST(a AS TINYINT[][])))) FROM ("+q+")").Scan(&longest, &cells))
	assert.Equal(t, int64(1024), longest)
	assert.Equal(t, int64(1024), cells)
}

// TestSampleRowOrderAnyThreads: with no ORDER BY, the rows come in the same order on 1 thread
// and on 4, over several row groups. DuckDB scans range() on one thread and keeps a single
// source's order through COPY (with preserve_insertion_order off too, measured), so this pins
// the generator's source: one that several threads scan could reorder rows without the sort.
func TestSampleRowOrderAnyThreads(t *testing.T) {
	s, err := schema.LoadFile("../benchmarks/schemas/bench15.yaml")
	require.NoError(t, err)
	q, _, err := sample.Query(s, sample.Spec{Rows: 300_000, InvalidRate: 0.03, Seed: 5})
	require.NoError(t, err)
	dir := t.TempDir()
	write := func(threads int) string {
		db, err := gosql.Open("duckdb", "")
		require.NoError(t, err)
		defer db.Close()
		db.SetMaxOpenConns(1)
		out := filepath.Join(dir, fmt.Sprintf("t%d.parquet", threads))
		_, err = db.Exec(fmt.Sprintf("SET threads = %d", threads))
		require.NoError(t, err)
		_, err = db.Exec(fmt.Sprintf("COPY (%s) TO '%s' (FORMAT parquet)", q, out))
		require.NoError(t, err)
		return out
	}
	one, four := write(1), write(4)
	db, err := gosql.Open("duckdb", "")
	require.NoError(t, err)
	defer db.Close()
	var groups, differ int64
	require.NoError(t, db.QueryRow(fmt.Sprintf("SELECT count(DISTINCT row_group_id) FROM parquet_metadata('%s')", four)).Scan(&groups))
	require.Greater(t, groups, int64(1), "the file must span several row groups for threads to matter")
	require.NoError(t, db.QueryRow(fmt.Sprintf(
		"SELECT count(*) FROM read_parquet('%s') AS a POSITIONAL JOIN read_parquet('%s') AS b WHERE a.id IS DISTINCT FROM b.id OR a.email IS DISTINCT FROM b.email OR a.amount IS DISTINCT FROM b.amount",
		one, four)).Scan(&differ))
	assert.Zero(t, differ, "rows written with 4 threads must come in the order 1 thread writes them")
}

// TestSampleStringKeys: the string-keyed benchmark data has the shapes real extracts have. At rate
// 0: a regex that takes UUIDs gets distinct, random-looking version 4 UUIDs; a String group key
// about as many values as an integer's default range (1M); a (String, Date) key 8 days per
// account, distinct as a pair. At rate 0.05 the duplicates of unique columns appear.
func TestSampleStringKeys(t *testing.T) {
	s, err := schema.LoadFile("../benchmarks/schemas/strings.yaml")
	require.NoError(t, err)
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	const rows = 200_000
	q, _, err := sample.Query(s, sample.Spec{Rows: rows, InvalidRate: 0, Seed: 7})
	require.NoError(t, err)
	var uuids, uuidShape, ascending, codes, accounts, pairs, perAccount int64
	require.NoError(t, eng.DB().QueryRow(`SELECT count(DISTINCT uuid),
		count(*) FILTER (WHERE regexp_full_match(uuid, '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}')),
		count(*) FILTER (WHERE uuid < lead_uuid),
		count(DISTINCT customer_code), count(DISTINCT account), count(DISTINCT (account, as_of)),
		max(days)
		FROM (SELECT *, lead(uuid) OVER () AS lead_uuid, count(*) OVER (PARTITION BY account) AS days FROM (`+q+`))`).
		Scan(&uuids, &uuidShape, &ascending, &codes, &accounts, &pairs, &perAccount))
	assert.Equal(t, int64(rows), uuids, "UUIDs distinct")
	assert.Equal(t, int64(rows), uuidShape, "every UUID a version 4 one")
	assert.InDelta(t, rows/2, ascending, rows/20, "UUIDs in random order, not ascending")
	assert.InDelta(t, 1_000_000*(1-math.Exp(-rows/1e6)), codes, 2000, "customer codes drawn from 1M values")
	assert.Equal(t, int64(rows/8), accounts)
	assert.Equal(t, int64(rows), pairs, "(account, as_of) distinct")
	assert.Equal(t, int64(8), perAccount)

	dirty, rules, err := sample.Query(s, sample.Spec{Rows: rows, InvalidRate: 0.05, Seed: 7})
	require.NoError(t, err)
	assert.Contains(t, rules, "uuid|unique")
	assert.Contains(t, rules, "as_of|nullability")
	var dupUUIDs int64
	require.NoError(t, eng.DB().QueryRow("SELECT count(*) - count(DISTINCT uuid) FROM ("+dirty+")").Scan(&dupUUIDs))
	assert.Positive(t, dupUUIDs)
}

// TestSampleCompositeKeys: a primary key of several columns is distinct as a combination, each
// column within its is_in and bounds (none of which can be distinct per row on its own), and its
// duplicate repeats the whole key; a key with fewer combinations than rows is refused.
func TestSampleCompositeKeys(t *testing.T) {
	eng, err := duckdb.Open(duckdb.Config{Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	s, err := schema.LoadFile("testdata/flights.yaml")
	require.NoError(t, err)
	const rows = 20000
	q, _, err := sample.Query(s, sample.Spec{Rows: rows, Seed: 5})
	require.NoError(t, err)
	var keys, origins, carriers, outside int64
	require.NoError(t, eng.DB().QueryRow(`SELECT count(DISTINCT (year, month, day, origin, carrier, flight)), count(DISTINCT origin),
		count(DISTINCT carrier), count(*) FILTER (WHERE origin NOT IN ('EWR', 'JFK', 'LGA') OR year <> 2013 OR month NOT BETWEEN 1 AND 12)
		FROM (`+q+`)`).Scan(&keys, &origins, &carriers, &outside))
	assert.Equal(t, int64(rows), keys, "the key's combination distinct per row")
	assert.Equal(t, int64(3), origins)
	assert.True(t, carriers >= 2 && carriers <= 4, "%d carriers", carriers)
	assert.Zero(t, outside)

	p, err := compile.Compile(s)
	require.NoError(t, err)
	dirty, rules, err := sample.Query(s, sample.Spec{Rows: rows, InvalidRate: 0.2, Seed: 5})
	require.NoError(t, err)
	assert.Contains(t, rules, "primary_key")
	rep := validate(t, eng, p, dirty)
	pk, ok := checkOf(rep, "dy_rule__primary_key")
	require.True(t, ok)
	assert.Positive(t, pk.Failed, "some rows repeat another's whole key")
	assert.Less(t, rep.Rows.Invalid, int64(rows/3), "about a fifth invalid, not every row")

	small, err := schema.Parse([]byte("schema: S\ncolumns:\n  - {name: a, type: String, primary_key: true, is_in: [x, y]}\n  - {name: b, type: Int8, primary_key: true, min: 1, max: 3}\n"), "s.yaml")
	require.NoError(t, err)
	_, _, err = sample.Query(small, sample.Spec{Rows: 7, Seed: 1})
	require.ErrorContains(t, err, "the primary key (a, b) has at most 6 distinct values within its columns' is_in and bounds, fewer than the 7 rows asked for")
	q, _, err = sample.Query(small, sample.Spec{Rows: 6, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, eng.DB().QueryRow(`SELECT count(DISTINCT (a, b)) FROM (`+q+`)`).Scan(&keys))
	assert.Equal(t, int64(6), keys)

	// A unique column keeps to its is_in.
	codes, err := schema.Parse([]byte("schema: C\ncolumns:\n  - {name: code, type: String, unique: true, is_in: [a, b, c]}\n"), "c.yaml")
	require.NoError(t, err)
	q, _, err = sample.Query(codes, sample.Spec{Rows: 3, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, eng.DB().QueryRow(`SELECT count(DISTINCT code) FILTER (WHERE code IN ('a', 'b', 'c')) FROM (`+q+`)`).Scan(&keys))
	assert.Equal(t, int64(3), keys)
	_, _, err = sample.Query(codes, sample.Spec{Rows: 4, Seed: 1})
	require.ErrorContains(t, err, "is_in has 3 for 4 rows")
}

func checkOf(rep *outcome.Report, name string) (outcome.Check, bool) {
	for _, c := range rep.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return outcome.Check{}, false
}
