package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Nested schemas (List, Array, Struct) through `tablegate validate`: per-rule counts in the JSON
// report, valid rows and quarantine rows read back with nested values identical to the input,
// the column check's messages for nested dtypes, and severities named by inner rules.

const nestedYAML = `schema: Shop
description: Orders with nested columns.
columns:
  - name: id
    type: Int64
    primary_key: true
  - name: tags
    type: List
    nullable: true
    max_length: 3
    severity: {inner_min_length: warn}
    inner:
      type: String
      min_length: 2
      unique: true
  - name: point
    type: Array
    shape: 3
    nullable: true
    inner:
      type: Int32
      nullable: true
      min: 0
  - name: grid
    type: Array
    shape: [2, 2]
    nullable: true
    inner:
      type: Int8
      is_in: [0, 1]
  - name: address
    type: Struct
    nullable: true
    fields:
      - name: city
        type: String
        min_length: 1
      - name: geo
        type: Struct
        nullable: true
        fields:
          - name: lat
            type: Float64
            min: -90
            max: 90
  - name: lines
    type: List
    nullable: true
    inner:
      type: Struct
      fields:
        - name: sku
          type: String
          primary_key: true
        - name: qty
          type: Int32
          min: 1
  - name: mood
    type: Enum
    categories: [happy, sad]
    nullable: true
`

// nestedChecks are the rule checks of nestedYAML in rule order.
var nestedChecks = []string{
	"dy_rule__primary_key", "dy_rule__id__nullability",
	"dy_rule__tags__max_length", "dy_rule__tags__inner_nullability", "dy_rule__tags__inner_unique", "dy_rule__tags__inner_min_length",
	"dy_rule__point__inner_min",
	"dy_rule__grid__inner_nullability", "dy_rule__grid__inner_is_in",
	"dy_rule__address__inner_city_nullability", "dy_rule__address__inner_city_min_length",
	"dy_rule__address__inner_geo_inner_lat_nullability", "dy_rule__address__inner_geo_inner_lat_min",
	"dy_rule__address__inner_geo_inner_lat_max", "dy_rule__address__inner_geo_inner_lat_inf", "dy_rule__address__inner_geo_inner_lat_nan",
	"dy_rule__lines__primary_key", "dy_rule__lines__inner_nullability", "dy_rule__lines__inner_inner_sku_nullability",
	"dy_rule__lines__inner_inner_qty_nullability", "dy_rule__lines__inner_inner_qty_min",
}

// nestedSelect types rows of nestedYAML as a DuckDB table would hold them.
func nestedSelect(rows ...string) string {
	return "SELECT id::BIGINT AS id, tags::VARCHAR[] AS tags, point::INTEGER[3] AS point, grid::TINYINT[2][2] AS grid, " +
		"address::STRUCT(city VARCHAR, geo STRUCT(lat DOUBLE)) AS address, lines::STRUCT(sku VARCHAR, qty INTEGER)[] AS lines, " +
		"mood::ENUM('happy', 'sad') AS mood FROM (VALUES " + strings.Join(rows, ", ") + ") AS t(id, tags, point, grid, address, lines, mood)"
}

var nestedRows = []string{
	// valid
	`(1, ['ab', 'cd'], [1, 2, 3], [[0, 1], [1, 0]], {'city': 'Rome', 'geo': {'lat': 41.9}}, [{'sku': 'a', 'qty': 1}], 'happy')`,
	// tags|inner_nullability
	`(2, ['ab', NULL], NULL, NULL, NULL, NULL, NULL)`,
	// valid: empty and NULL lists, a NULL struct, a NULL inner struct, NULL elements where allowed
	`(3, [], [NULL, NULL, 0], NULL, {'city': 'Oslo', 'geo': NULL}, [], NULL)`,
	// tags|inner_min_length (warn): still valid
	`(4, ['a'], NULL, NULL, NULL, NULL, 'sad')`,
	// tags|inner_unique, point|inner_min
	`(5, ['ab', 'ab'], [0, -1, NULL], NULL, NULL, NULL, NULL)`,
	// grid|inner_is_in, address|inner_geo_inner_lat_max
	`(6, NULL, NULL, [[0, 1], [2, 0]], {'city': 'Nowhere', 'geo': {'lat': 91.0}}, NULL, NULL)`,
	// lines|primary_key, lines|inner_inner_qty_min, address|inner_city_nullability
	`(7, NULL, NULL, NULL, {'city': NULL, 'geo': NULL}, [{'sku': 'a', 'qty': 1}, {'sku': 'a', 'qty': 0}], NULL)`,
	// lines|inner_nullability, tags|max_length
	`(8, ['ab', 'cd', 'ef', 'gh'], NULL, NULL, NULL, [NULL], NULL)`,
}

// nestedFailed is dataframely/failed_row_count per check of nestedRows (absent when 0).
var nestedFailed = map[string]float64{
	"dy_rule__tags__max_length": 1, "dy_rule__tags__inner_nullability": 1, "dy_rule__tags__inner_unique": 1,
	"dy_rule__tags__inner_min_length": 1, "dy_rule__point__inner_min": 1, "dy_rule__grid__inner_is_in": 1,
	"dy_rule__address__inner_city_nullability": 1, "dy_rule__address__inner_geo_inner_lat_max": 1,
	"dy_rule__lines__primary_key": 1, "dy_rule__lines__inner_nullability": 1, "dy_rule__lines__inner_inner_qty_min": 1,
}

func failedCountsJSON(rep map[string]any) map[string]float64 {
	out := map[string]float64{}
	for _, c := range rep["checks"].([]any) {
		c := c.(map[string]any)
		if n, ok := c["metadata"].(map[string]any)["dataframely/failed_row_count"]; ok {
			out[c["name"].(string)] = n.(float64)
		}
	}
	return out
}

// sameRows asserts with DuckDB's own equality that two relations hold the same rows (duplicates
// counted) with the same column types.
func (f *fixture) sameRows(got, want string) {
	f.t.Helper()
	types := func(from string) [][]any {
		return f.query("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM " + from + ")")
	}
	assert.Equal(f.t, types(want), types(got), "column types")
	for _, q := range []string{
		fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s)", got, want),
		fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s)", want, got),
	} {
		assert.Equal(f.t, int64(0), f.query(q)[0][0], q)
	}
}

// TestNestedValidateDuckDBTable: a nested schema over a DuckDB table (ARRAY and ENUM survive only
// there), valid rows and quarantine written to the same database with identical nested values.
func TestNestedValidateDuckDBTable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.write("shop.yaml", nestedYAML)
	db := f.path("wh.duckdb")
	f.withDB(db, "CREATE TABLE d.raw AS "+nestedSelect(nestedRows...))

	code, stdout, stderr := cli(t, "validate", "--schema", s, "--input", db+":raw", "--out", db+":shop", "--quarantine", "--format", "json")
	require.Equal(t, 0, code, stderr)
	rep := oneJSON(t, stdout)
	assert.Equal(t, "quarantined", rep["outcome"])
	assert.Equal(t, map[string]any{"input": 8.0, "valid": 3.0, "invalid": 5.0}, rep["rows"])
	assert.Equal(t, append([]string{"dy_schema__columns"}, nestedChecks...), checkNames(rep))
	assert.Equal(t, nestedFailed, failedCountsJSON(rep))
	assert.Equal(t, map[string]any{"address": db + ":shop_quarantine", "written": true, "rows": 5.0}, rep["quarantine"])
	assert.Equal(t, "tags elements not null", checkByName(t, rep, "dy_rule__tags__inner_nullability")["description"])
	assert.Equal(t, "address.geo.lat <= 90", checkByName(t, rep, "dy_rule__address__inner_geo_inner_lat_max")["description"])
	assert.Equal(t, "lines elements distinct by sku", checkByName(t, rep, "dy_rule__lines__primary_key")["description"])
	assert.Equal(t, "address|inner_geo_inner_lat_max", checkByName(t, rep, "dy_rule__address__inner_geo_inner_lat_max")["metadata"].(map[string]any)["dataframely/rule"])
	assert.Equal(t, []any{map[string]any{
		"id": 7.0, "tags": nil, "point": nil, "grid": nil, "address": map[string]any{"city": nil, "geo": nil},
		"lines": []any{map[string]any{"sku": "a", "qty": 1.0}, map[string]any{"sku": "a", "qty": 0.0}}, "mood": nil,
	}}, checkByName(t, rep, "dy_rule__lines__primary_key")["metadata"].(map[string]any)["dataframely/failed_examples"])
	var sets []any
	for _, s := range []string{
		`{"rules": "dy_rule__address__inner_city_nullability, dy_rule__lines__inner_inner_qty_min, dy_rule__lines__primary_key", "count": 1}`,
		`{"rules": "dy_rule__address__inner_geo_inner_lat_max, dy_rule__grid__inner_is_in", "count": 1}`,
		`{"rules": "dy_rule__lines__inner_nullability, dy_rule__tags__max_length", "count": 1}`,
		`{"rules": "dy_rule__point__inner_min, dy_rule__tags__inner_unique", "count": 1}`,
		`{"rules": "dy_rule__tags__inner_nullability", "count": 1}`,
	} {
		var m any
		require.NoError(t, json.Unmarshal([]byte(s), &m))
		sets = append(sets, m)
	}
	assert.Equal(t, sets, rep["invalid_by_rules"])

	f.exec("ATTACH " + quoteLit(db) + " AS w (READ_ONLY)")
	defer f.exec("DETACH w")
	f.sameRows("w.main.shop", "(SELECT * FROM w.main.raw WHERE id IN (1, 3, 4))")
	f.sameRows("(SELECT id, tags, point, grid, address, lines, mood FROM w.main.shop_quarantine)", "(SELECT * FROM w.main.raw WHERE id NOT IN (1, 3, 4))")
	assert.Equal(t, [][]any{{int64(1)}, {int64(3)}, {int64(4)}}, f.query("SELECT id FROM w.main.shop ORDER BY rowid"), "input order")
	assert.Equal(t, [][]any{
		{int64(2), "invalid", "valid"}, {int64(5), "valid", "valid"}, {int64(6), "valid", "invalid"},
		{int64(7), "valid", "valid"}, {int64(8), "valid", "valid"},
	}, f.query("SELECT id, dy_rule__tags__inner_nullability, dy_rule__grid__inner_is_in FROM w.main.shop_quarantine ORDER BY rowid"))
	var cols []string
	for _, r := range f.query("SELECT column_name FROM (DESCRIBE w.main.shop_quarantine)") {
		cols = append(cols, r[0].(string))
	}
	assert.Equal(t, append([]string{"id", "tags", "point", "grid", "address", "lines", "mood"}, nestedChecks...), cols)

	// Column granularity collapses each nested column's rules; the quarantine is the same.
	code, stdout, stderr = cli(t, "validate", "--schema", s, "--input", db+":raw", "--format", "json", "--granularity", "column")
	require.Equal(t, 1, code, stderr)
	rep = oneJSON(t, stdout)
	assert.Equal(t, []string{"dy_schema__columns", "dy_col__id", "dy_col__tags", "dy_col__point", "dy_col__grid", "dy_col__address", "dy_col__lines", "dy_schema__rules"}, checkNames(rep))
	tags := checkByName(t, rep, "dy_col__tags")
	assert.Equal(t, "Every rule on tags: length <= 3 elements, elements not null, elements unique within each list, elements length >= 2 bytes.", tags["description"])
	assert.Equal(t, "ERROR", tags["severity"])
	assert.Equal(t, 4.0, tags["metadata"].(map[string]any)["dataframely/failed_row_count"], "the warn member counts too")
	assert.Equal(t, "Every rule on address: city not null, city length >= 1 bytes, geo.lat not null, geo.lat >= -90, geo.lat <= 90, geo.lat not infinite, geo.lat not NaN.",
		checkByName(t, rep, "dy_col__address")["description"])
	_, msg := errorOf(rep)
	assert.True(t, strings.HasPrefix(msg, "5 rows failed Shop validation, 1 by 'tags|max_length', 1 by 'tags|inner_nullability', 1 by 'tags|inner_unique', "+
		"1 by 'point|inner_min', 1 by 'grid|inner_is_in', 1 by 'address|inner_city_nullability', 1 by 'address|inner_geo_inner_lat_max', "+
		"1 by 'lines|primary_key', 1 by 'lines|inner_nullability', 1 by 'lines|inner_inner_qty_min'."), msg)
}

// parquetNestedYAML is nestedYAML without the dtypes Parquet cannot carry (Array, Enum).
func parquetNestedYAML() string {
	s := nestedYAML
	i, j := strings.Index(s, "  - name: point"), strings.Index(s, "  - name: address")
	s = s[:i] + s[j:]
	return s[:strings.Index(s, "  - name: mood")]
}

// TestNestedValidateParquet: Parquet in, Parquet out: the valid rows and the quarantine read back
// with the input's nested values and types, and validating the written table again finds every
// row valid.
func TestNestedValidateParquet(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.write("shop.yaml", parquetNestedYAML())
	in := f.parquet("raw.parquet", "SELECT id, tags, address, lines FROM ("+nestedSelect(nestedRows...)+")")
	out := f.path("out", "shop.parquet")
	code, stdout, stderr := cli(t, "validate", "--schema", s, "--input", in, "--out", out, "--quarantine", "--format", "json")
	require.Equal(t, 0, code, stderr)
	rep := oneJSON(t, stdout)
	assert.Equal(t, "quarantined", rep["outcome"])
	assert.Equal(t, map[string]any{"input": 8.0, "valid": 3.0, "invalid": 5.0}, rep["rows"])
	quar := f.path("out", "shop_quarantine.parquet")
	var validIDs, invalidIDs []string
	for _, r := range f.query("SELECT id FROM read_parquet(" + quoteLit(out) + ")") {
		validIDs = append(validIDs, fmt.Sprint(r[0]))
	}
	for _, r := range f.query("SELECT id FROM read_parquet(" + quoteLit(quar) + ")") {
		invalidIDs = append(invalidIDs, fmt.Sprint(r[0]))
	}
	assert.Equal(t, []string{"1", "3", "4"}, validIDs, "input order")
	assert.Equal(t, []string{"2", "5", "6", "7", "8"}, invalidIDs, "input order")
	f.sameRows("read_parquet("+quoteLit(out)+")", "(SELECT * FROM read_parquet("+quoteLit(in)+") WHERE id IN (1, 3, 4))")
	f.sameRows("(SELECT id, tags, address, lines FROM read_parquet("+quoteLit(quar)+"))", "(SELECT * FROM read_parquet("+quoteLit(in)+") WHERE id IN (2, 5, 6, 7, 8))")

	code, stdout, stderr = cli(t, "validate", "--schema", s, "--input", out, "--format", "json")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "all_valid", oneJSON(t, stdout)["outcome"])
}

// TestNestedColumnCheckCLI: from Parquet, Array and Enum columns do not match (Parquet stores them
// as LIST and VARCHAR); the report lists every mismatch with DuckDB's spelling of the actual
// type, exit 3; --cast is the explicit way through, strict about values that do not convert.
func TestNestedColumnCheckCLI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.write("shop.yaml", nestedYAML)
	in := f.parquet("raw.parquet", nestedSelect(nestedRows...))
	code, stdout, stderr := cli(t, "validate", "--schema", s, "--input", in, "--format", "json")
	require.Equal(t, 3, code, stderr)
	rep := oneJSON(t, stdout)
	assert.Equal(t, "column_schema_mismatch", rep["outcome"])
	typ, msg := errorOf(rep)
	assert.Equal(t, "ColumnSchemaError", typ)
	assert.True(t, strings.HasPrefix(msg, "Columns 'point' (expected Array(Int32, 3), got INTEGER[]), 'grid' (expected Array(Int8, 2x2), got TINYINT[][]), "+
		"'mood' (expected Enum('happy', 'sad'), got VARCHAR) do not match Shop."), msg)
	assert.Equal(t, []string{"dy_schema__columns"}, checkNames(rep))
	assert.Equal(t, []any{
		map[string]any{"column": "point", "expected": "Array(Int32, 3)", "actual": "INTEGER[]"},
		map[string]any{"column": "grid", "expected": "Array(Int8, 2x2)", "actual": "TINYINT[][]"},
		map[string]any{"column": "mood", "expected": "Enum('happy', 'sad')", "actual": "VARCHAR"},
	}, checkByName(t, rep, "dy_schema__columns")["metadata"].(map[string]any)["dataframely/column_schema_errors"])

	// A list of the wrong element type.
	listOfInts := f.parquet("ints.parquet", "SELECT [1, 2]::INTEGER[] AS tags")
	tagsOnly := f.write("tags.yaml", "schema: Tags\ncolumns:\n  - name: tags\n    type: List\n    inner: {type: String}\n")
	code, _, stderr = cli(t, "validate", "--schema", tagsOnly, "--input", listOfInts)
	assert.Equal(t, 3, code)
	assert.Contains(t, stderr, "Column 'tags' (expected List(String), got INTEGER[]) does not match Tags.")
	code, _, stderr = cli(t, "explain", "--schema", tagsOnly, "--input", listOfInts)
	assert.Equal(t, 3, code)
	assert.Contains(t, stderr, "Column 'tags' (expected List(String), got INTEGER[]) does not match Tags.")

	// --cast turns the lists into arrays and the strings into the enum.
	out := f.path("cast", "shop.parquet")
	code, stdout, stderr = cli(t, "validate", "--schema", s, "--input", in, "--out", out, "--quarantine", "--cast", "--format", "json")
	require.Equal(t, 0, code, stderr)
	rep = oneJSON(t, stdout)
	assert.Equal(t, "quarantined", rep["outcome"])
	assert.Equal(t, nestedFailed, failedCountsJSON(rep))

	// A list of the wrong length does not convert to the array.
	bad := f.parquet("bad.parquet", "SELECT * REPLACE ([1, 2]::INTEGER[] AS point) FROM ("+nestedSelect(nestedRows[0])+")")
	code, stdout, stderr = cli(t, "validate", "--schema", s, "--input", bad, "--out", f.path("bad", "shop.parquet"), "--cast", "--format", "json")
	assert.Equal(t, 1, code, stderr)
	typ, msg = errorOf(oneJSON(t, stdout))
	assert.Equal(t, "CastError", typ)
	assert.Contains(t, msg, "Cannot cast column 'point' to Array(Int32, 3): the value \"[1, 2]\" does not convert.")
	assert.False(t, fileExists(f.path("bad", "shop.parquet")))
}

// TestNestedSeverityNames: severity declarations take inner rule names (a warn inner rule keeps
// its row valid); inner_nullable is no alias, and the error lists the column's rules.
func TestNestedSeverityNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.write("shop.yaml", nestedYAML)
	code, stdout, stderr := cli(t, "check", "--schema", s)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, fmt.Sprintf("Shop is valid: 7 columns, %d rules.\n", len(nestedChecks)), stdout)

	for _, tc := range []struct{ severity, want string }{
		{"{inner_nullable: warn}", "The severity of column 'tags' in Shop names 'inner_nullable', which is not a rule of column 'tags'. " +
			"The rules of column 'tags' are 'max_length', 'inner_nullability', 'inner_unique', 'inner_min_length'."},
		{"{inner_min: warn}", "names 'inner_min', which is not a rule of column 'tags'."},
	} {
		bad := f.write("bad.yaml", strings.Replace(nestedYAML, "severity: {inner_min_length: warn}", "severity: "+tc.severity, 1))
		code, stdout, stderr = cli(t, "check", "--schema", bad)
		assert.Equal(t, 2, code)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, tc.want)
		code, stdout, _ = cli(t, "validate", "--schema", bad, "--input", f.path("raw.parquet"), "--format", "json")
		assert.Equal(t, 2, code)
		_, msg := errorOf(oneJSON(t, stdout))
		assert.Contains(t, msg, tc.want)
	}

	// Struct fields and nested lists are named the Dataframely way.
	deep := f.write("deep.yaml", `schema: Deep
columns:
  - name: a
    type: List
    inner:
      type: List
      inner:
        type: String
        min_length: 2
    severity: {inner_inner_min_length: warn}
  - name: s1
    type: Struct
    severity: {inner_s2_inner_a_min_length: warn, inner_s2_nullability: warn}
    fields:
      - name: s2
        type: Struct
        fields:
          - name: a
            type: String
            min_length: 3
`)
	db := f.path("deep.duckdb")
	f.withDB(db, `CREATE TABLE d.raw AS SELECT [['ab', 'x']]::VARCHAR[][] AS a, {'s2': {'a': 'xy'}}::STRUCT(s2 STRUCT(a VARCHAR)) AS s1`)
	code, stdout, stderr = cli(t, "validate", "--schema", deep, "--input", db+":raw", "--format", "json")
	require.Equal(t, 0, code, stderr)
	rep := oneJSON(t, stdout)
	assert.Equal(t, "all_valid", rep["outcome"], "only warn rules fail")
	for _, name := range []string{"dy_rule__a__inner_inner_min_length", "dy_rule__s1__inner_s2_inner_a_min_length"} {
		c := checkByName(t, rep, name)
		assert.Equal(t, false, c["passed"], name)
		assert.Equal(t, "WARN", c["severity"], name)
		assert.Equal(t, 1.0, c["metadata"].(map[string]any)["dataframely/failed_row_count"], name)
	}
	assert.Equal(t, "a elements' elements length >= 2 bytes", checkByName(t, rep, "dy_rule__a__inner_inner_min_length")["description"])
	assert.Equal(t, "s1.s2.a length >= 3 bytes", checkByName(t, rep, "dy_rule__s1__inner_s2_inner_a_min_length")["description"])
}
