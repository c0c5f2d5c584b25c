package duckdb_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// Nested columns end to end (List, Array, Struct): schema files through Engine.Run, per-rule
// counts, valid and invalid rows written with their nested values intact, and the column check.
// The compiler's nested semantics are pinned in compile/nested_test.go.

const shopYAML = `schema: Shop
columns:
  - name: id
    type: Int64
    primary_key: true
  - name: tags
    type: List
    nullable: true
    max_length: 3
    inner:
      type: String
      min_length: 2
      unique: true
  - name: codes
    type: List
    nullable: true
    unique: true
    inner:
      type: Int64
      nullable: true
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
      - name: zip
        type: String
        nullable: true
        regex: '^\d{5}$'
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

// shopRules are the rules of shopYAML in rule order.
var shopRules = []string{
	"primary_key", "id|nullability",
	"tags|max_length", "tags|inner_nullability", "tags|inner_unique", "tags|inner_min_length",
	"codes|unique",
	"point|inner_min",
	"grid|inner_nullability", "grid|inner_is_in",
	"address|inner_city_nullability", "address|inner_city_min_length", "address|inner_zip_regex",
	"lines|primary_key", "lines|inner_nullability", "lines|inner_inner_sku_nullability",
	"lines|inner_inner_qty_nullability", "lines|inner_inner_qty_min",
}

// shopRows are input rows of shopYAML; the comment says what each one fails.
var shopRows = []string{
	// 1 valid
	`(1, ['ab', 'cd'], [1, 2], [1, 2, 3], [[0, 1], [1, 0]], {'city': 'Rome', 'zip': '00100'}, [{'sku': 'a', 'qty': 1}, {'sku': 'b', 'qty': 2}], 'happy')`,
	// 2 tags|inner_nullability
	`(2, [NULL], [2], NULL, NULL, NULL, NULL, NULL)`,
	// 3 tags|inner_unique
	`(3, ['ab', 'ab'], [3], NULL, NULL, NULL, NULL, NULL)`,
	// 4 tags|inner_min_length and tags|inner_nullability (the NULL element is ignored by min_length)
	`(4, ['a', NULL], [4], NULL, NULL, NULL, NULL, NULL)`,
	// 5 valid: empty and NULL lists, NULL elements of a nullable inner, a NULL struct
	`(5, [], NULL, [NULL, 0, NULL], NULL, NULL, [], 'sad')`,
	// 6 tags|max_length
	`(6, ['ab', 'cd', 'ef', 'gh'], [6], NULL, NULL, NULL, NULL, NULL)`,
	// 7 point|inner_min (NULL elements ignored) and codes|unique with row 8
	`(7, NULL, [7, 7], [1, NULL, -1], NULL, NULL, NULL, NULL)`,
	// 8 grid|inner_is_in, codes|unique with row 7
	`(8, NULL, [7, 7], NULL, [[0, 2], [1, 1]], NULL, NULL, NULL)`,
	// 9 address|inner_city_nullability, address|inner_zip_regex
	`(9, NULL, [9], NULL, NULL, {'city': NULL, 'zip': '123'}, NULL, NULL)`,
	// 10 lines|primary_key, lines|inner_inner_qty_min
	`(10, NULL, [10], NULL, NULL, NULL, [{'sku': 'a', 'qty': 1}, {'sku': 'a', 'qty': 0}], NULL)`,
	// 11 lines|inner_nullability
	`(11, NULL, [11], NULL, NULL, NULL, [NULL], NULL)`,
	// 12 lines|inner_inner_sku_nullability, address|inner_city_min_length
	`(12, NULL, [12], NULL, NULL, {'city': '', 'zip': NULL}, [{'sku': NULL, 'qty': 1}], NULL)`,
	// 13 grid|inner_nullability (a NULL sub-array; is_in ignores its values), primary_key with row 14
	`(13, NULL, [NULL], NULL, [NULL, [1, 1]], NULL, NULL, NULL)`,
	// 14 primary_key with row 13
	`(13, NULL, [14], NULL, NULL, NULL, NULL, 'happy')`,
}

// shopCounts are the failing rows per rule of shopRows.
var shopCounts = map[string]int64{
	"primary_key": 2, "tags|max_length": 1, "tags|inner_nullability": 2, "tags|inner_unique": 1,
	"tags|inner_min_length": 1, "codes|unique": 2, "point|inner_min": 1, "grid|inner_nullability": 1,
	"grid|inner_is_in": 1, "address|inner_city_nullability": 1, "address|inner_city_min_length": 1,
	"address|inner_zip_regex": 1, "lines|primary_key": 1, "lines|inner_nullability": 1,
	"lines|inner_inner_sku_nullability": 1, "lines|inner_inner_qty_min": 1,
}

// shopValidIDs are the rows of shopRows that fail nothing.
var shopValidIDs = []int64{1, 5}

// shopSelect is a SELECT of typed shop rows.
func shopSelect(rows ...string) string {
	return "SELECT id::BIGINT AS id, tags::VARCHAR[] AS tags, codes::BIGINT[] AS codes, point::INTEGER[3] AS point, " +
		"grid::TINYINT[2][2] AS grid, address::STRUCT(city VARCHAR, zip VARCHAR) AS address, " +
		"lines::STRUCT(sku VARCHAR, qty INTEGER)[] AS lines, mood::ENUM('happy', 'sad') AS mood " +
		"FROM (VALUES " + strings.Join(rows, ", ") + ") AS t(id, tags, codes, point, grid, address, lines, mood)"
}

func shopSchema(t *testing.T) *schema.Schema {
	t.Helper()
	s, err := schema.Parse([]byte(shopYAML), "shop.yaml")
	require.NoError(t, err)
	return s
}

// failedCounts is dataframely/failed_row_count per rule of a rule-granularity report.
func failedCounts(t *testing.T, rep *outcome.Report) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, c := range rep.Checks {
		if c.Failed > 0 {
			out[c.Rule] = c.Failed
		}
	}
	return out
}

// sameRows asserts that two relations hold the same rows (DuckDB's own equality, duplicates
// counted) and the same column types.
func (e *env) sameRows(got, want string) {
	e.t.Helper()
	assert.Equal(e.t, e.describe(want), e.describe(got), "column types")
	for _, q := range []string{
		fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s)", got, want),
		fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s)", want, got),
	} {
		assert.Equal(e.t, int64(0), e.query(q)[0][0], q)
	}
}

// jsonRows renders a relation's rows as JSON in the given order, to compare nested values across
// types (an ARRAY written to Parquet reads back as a LIST with the same JSON).
func (e *env) jsonRows(from, order string) []string {
	e.t.Helper()
	var out []string
	for _, r := range e.query(fmt.Sprintf("SELECT CAST(to_json(x) AS VARCHAR) FROM %s AS x ORDER BY %s", from, order)) {
		out = append(out, r[0].(string))
	}
	return out
}

func idList(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, ", ")
}

// TestNestedSchemaFromDuckDBTable runs the nested schema file over a DuckDB table (ARRAY and ENUM
// survive only there) into tables of the same database: per-rule counts, the outcome, the valid
// rows and the quarantine with nested values and types identical to the input.
func TestNestedSchemaFromDuckDBTable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	db := e.path("wh.duckdb")
	e.table(db, "raw", shopSelect(shopRows...))
	rep, err := run(t, shopSchema(t), runner.Asset{
		Input:  runner.TableInput{File: db, Table: "raw"},
		Output: runner.TableOutput{File: db, Table: "shop"}, Quarantine: true,
	}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, outcome.Quarantined, outcomeOf(rep))
	assert.Equal(t, outcome.Rows{Input: 14, Valid: 2, Invalid: 12}, rep.Rows)

	var names []string
	for _, c := range rep.Checks[1:] {
		names = append(names, c.Rule)
		assert.Equal(t, "dy_rule__"+strings.ReplaceAll(c.Rule, "|", "__"), c.Name)
	}
	assert.Equal(t, shopRules, names)
	assert.Equal(t, shopCounts, failedCounts(t, rep))

	e.exec("ATTACH " + lit(db) + " AS w (READ_ONLY)")
	defer e.exec("DETACH w")
	e.sameRows("w.main.shop", fmt.Sprintf("(SELECT * FROM w.main.raw WHERE id IN (%s))", idList(shopValidIDs)))
	var checks []string
	for _, r := range shopRules {
		checks = append(checks, "dy_rule__"+strings.ReplaceAll(r, "|", "__"))
	}
	e.sameRows("(SELECT * EXCLUDE ("+strings.Join(checks, ", ")+") FROM w.main.shop_quarantine)",
		fmt.Sprintf("(SELECT * FROM w.main.raw WHERE id NOT IN (%s))", idList(shopValidIDs)))
	// Rows keep input order in both outputs.
	assert.Equal(t, [][]any{{int64(1)}, {int64(5)}}, e.query("SELECT id FROM w.main.shop ORDER BY rowid"))
	quarantined := e.query("SELECT id, dy_rule__tags__inner_nullability, dy_rule__grid__inner_is_in, dy_rule__primary_key FROM w.main.shop_quarantine ORDER BY rowid")
	assert.Equal(t, [][]any{
		{int64(2), "invalid", "valid", "valid"}, {int64(3), "valid", "valid", "valid"}, {int64(4), "invalid", "valid", "valid"},
		{int64(6), "valid", "valid", "valid"}, {int64(7), "valid", "valid", "valid"}, {int64(8), "valid", "invalid", "valid"},
		{int64(9), "valid", "valid", "valid"}, {int64(10), "valid", "valid", "valid"}, {int64(11), "valid", "valid", "valid"},
		{int64(12), "valid", "valid", "valid"}, {int64(13), "valid", "valid", "invalid"}, {int64(13), "valid", "valid", "invalid"},
	}, quarantined)
}

// TestNestedSamplesAndRowSamples: failure samples and row samples carry nested values as JSON.
func TestNestedSamplesAndRowSamples(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	db := e.path("wh.duckdb")
	e.table(db, "raw", shopSelect(shopRows...))
	rep, err := run(t, shopSchema(t), runner.Asset{Input: runner.TableInput{File: db, Table: "raw"}}, runner.Options{MaxFailureSamples: 1, RowSample: 1})
	var abort *outcome.ValidationAbortError
	require.ErrorAs(t, err, &abort)
	assert.Contains(t, err.Error(), "12 rows failed Shop validation, 2 by 'primary_key', 1 by 'tags|max_length', 2 by 'tags|inner_nullability'")
	raw := func(v any) string {
		data, err := json.Marshal(v)
		require.NoError(t, err)
		return string(data)
	}
	seen := 0
	for _, c := range rep.Checks {
		switch c.Name {
		case "dy_rule__lines__primary_key":
			seen++
			assert.Equal(t, `[{"id":10,"tags":null,"codes":[10],"point":null,"grid":null,"address":null,"lines":[{"sku":"a","qty":1},{"sku":"a","qty":0}],"mood":null}]`, raw(c.Samples))
		case "dy_rule__address__inner_zip_regex":
			seen++
			assert.Equal(t, `[{"id":9,"tags":null,"codes":[9],"point":null,"grid":null,"address":{"city":null,"zip":"123"},"lines":null,"mood":null}]`, raw(c.Samples))
		}
	}
	assert.Equal(t, 2, seen)
	assert.Equal(t, `[{"id":1,"tags":["ab","cd"],"codes":[1,2],"point":[1,2,3],"grid":[[0,1],[1,0]],"address":{"city":"Rome","zip":"00100"},"lines":[{"sku":"a","qty":1},{"sku":"b","qty":2}],"mood":"happy"}]`, raw(rep.ValidSample))
	assert.Equal(t, `[{"id":2,"tags":[null],"codes":[2],"point":null,"grid":null,"address":null,"lines":null,"mood":null}]`, raw(rep.InvalidSample))
}

// parquetShopYAML is shopYAML without the types Parquet cannot carry (Array, Enum).
func parquetShopYAML() string {
	s := shopYAML
	cut := func(from, to string) {
		i := strings.Index(s, from)
		j := strings.Index(s, to)
		s = s[:i] + s[j:]
	}
	cut("  - name: point", "  - name: address")
	s = s[:strings.Index(s, "  - name: mood")]
	return s
}

// TestNestedParquetRoundTrip: Parquet in, Parquet out; both outputs read back with the input's
// nested values and types, and a second run over the written table finds every row valid.
func TestNestedParquetRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, err := schema.Parse([]byte(parquetShopYAML()), "shop.yaml")
	require.NoError(t, err)
	sel := "SELECT id, tags, codes, address, lines FROM (" + shopSelect(shopRows...) + ")"
	in := e.parquet("in/raw.parquet", sel)
	out := runner.ParquetOutput{Path: e.path("out", "shop.parquet")}
	rep, err := run(t, s, runner.Asset{Input: runner.ParquetInput{Path: in}, Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, outcome.Rows{Input: 14, Valid: 2, Invalid: 12}, rep.Rows)
	counts := failedCounts(t, rep)
	want := map[string]int64{}
	for r, n := range shopCounts {
		if !strings.HasPrefix(r, "point|") && !strings.HasPrefix(r, "grid|") {
			want[r] = n
		}
	}
	assert.Equal(t, want, counts)

	valid := "(SELECT * FROM read_parquet(" + lit(in) + ") WHERE id IN (1, 5))"
	e.sameRows("read_parquet("+lit(out.Path)+")", valid)
	q := out.QuarantineAddress("shop_quarantine")
	var checks []string
	for _, c := range rep.Checks[1:] {
		checks = append(checks, c.Name)
	}
	e.sameRows("(SELECT * EXCLUDE ("+strings.Join(checks, ", ")+") FROM read_parquet("+lit(q)+"))",
		"(SELECT * FROM read_parquet("+lit(in)+") WHERE id NOT IN (1, 5))")
	assert.Equal(t, e.jsonRows("read_parquet("+lit(out.Path)+")", "id"), e.jsonRows(valid, "id"))

	again := runner.ParquetOutput{Path: e.path("again", "shop.parquet")}
	rep, err = run(t, s, runner.Asset{Input: runner.ParquetInput(out), Output: again, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, outcome.AllValid, outcomeOf(rep))
	e.sameRows("read_parquet("+lit(again.Path)+")", "read_parquet("+lit(out.Path)+")")
}

// TestNestedDuckDBTableToParquet: a DuckDB table with ARRAY and ENUM columns written to Parquet
// keeps every value (ARRAY as LIST, ENUM as VARCHAR, as Parquet stores them).
func TestNestedDuckDBTableToParquet(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	db := e.path("wh.duckdb")
	e.table(db, "raw", shopSelect(shopRows...))
	out := runner.ParquetOutput{Path: e.path("out", "shop.parquet")}
	_, err := run(t, shopSchema(t), runner.Asset{Input: runner.TableInput{File: db, Table: "raw"}, Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	e.exec("ATTACH " + lit(db) + " AS w (READ_ONLY)")
	defer e.exec("DETACH w")
	assert.Equal(t, e.jsonRows("(SELECT * FROM w.main.raw WHERE id IN (1, 5))", "id"), e.jsonRows("read_parquet("+lit(out.Path)+")", "id"))
	assert.Equal(t, e.jsonRows("(SELECT * FROM w.main.raw WHERE id NOT IN (1, 5))", "id, codes"),
		e.jsonRows("(SELECT id, tags, codes, point, grid, address, lines, mood FROM read_parquet("+lit(out.QuarantineAddress("shop_quarantine"))+"))", "id, codes"))
	assert.Contains(t, e.parquetColumns(out.Path), "point INTEGER[]")
}

// TestNestedKeysAcrossRows: unique and primary_key on whole lists and structs compare whole
// values across rows; NULL lists, structs and elements are equal to each other.
func TestNestedKeysAcrossRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := schema.New("Keys",
		schema.Struct("key", schema.Int64("a"), schema.String("b").Nullable()).PrimaryKey(),
		schema.List("codes", schema.Int64("").Nullable()).Nullable().Unique(),
	)
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", `SELECT key::STRUCT(a BIGINT, b VARCHAR) AS key, codes::BIGINT[] AS codes FROM (VALUES
		({'a': 1, 'b': 'x'}, [1, 2]),
		({'a': 1, 'b': 'x'}, [2, 1]),
		({'a': 1, 'b': NULL}, [1, NULL]),
		({'a': 1, 'b': NULL}, [1, NULL]),
		({'a': 2, 'b': 'x'}, NULL),
		({'a': 3, 'b': 'x'}, NULL),
		({'a': 4, 'b': 'x'}, [])) AS t(key, codes)`)}
	rep, err := run(t, s, runner.Asset{Input: in}, runner.Options{})
	require.Error(t, err)
	assert.Equal(t, map[string]int64{"primary_key": 4, "codes|unique": 4}, failedCounts(t, rep))
	samples := func(name string) []any {
		for _, c := range rep.Checks {
			if c.Name == name {
				return jsonValue(t, c.Samples).([]any)
			}
		}
		return nil
	}
	assert.Equal(t, parseJSON(t, `[
		{"key": {"a": 1, "b": "x"}, "codes": [1, 2]}, {"key": {"a": 1, "b": "x"}, "codes": [2, 1]},
		{"key": {"a": 1, "b": null}, "codes": [1, null]}, {"key": {"a": 1, "b": null}, "codes": [1, null]}]`), samples("dy_rule__primary_key"))
	assert.Equal(t, parseJSON(t, `[
		{"key": {"a": 1, "b": null}, "codes": [1, null]}, {"key": {"a": 1, "b": null}, "codes": [1, null]},
		{"key": {"a": 2, "b": "x"}, "codes": null}, {"key": {"a": 3, "b": "x"}, "codes": null}]`), samples("dy_rule__codes__unique"))
}

// TestNestedSeverity: inner rule names take severities; a row failing only a warn inner rule is
// valid and written.
func TestNestedSeverity(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, err := schema.Parse([]byte(`schema: Sev
columns:
  - name: tags
    type: List
    severity: {inner_nullability: warn, inner_min_length: error}
    inner:
      type: String
      min_length: 2
  - name: address
    type: Struct
    nullable: true
    severity: {inner_city_nullability: warn}
    fields:
      - name: city
        type: String
      - name: zip
        type: String
`), "sev.yaml")
	require.NoError(t, err)
	sel := `SELECT * FROM (VALUES
		(['ab', NULL], {'city': NULL, 'zip': '1'}),
		(['a'], {'city': 'x', 'zip': '2'}),
		(['ab'], {'city': 'x', 'zip': NULL})) AS t(tags, address)`
	out := runner.ParquetOutput{Path: e.path("out", "sev.parquet")}
	rep, err := run(t, s, runner.Asset{Input: runner.ParquetInput{Path: e.parquet("raw.parquet", sel)}, Output: out, Quarantine: true}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, outcome.Rows{Input: 3, Valid: 1, Invalid: 2}, rep.Rows)
	W, E := outcome.SeverityWarn, outcome.SeverityError
	// The quarantine takes the blocking away, not the severity of the failed error rules.
	assert.Equal(t, []chk{
		{"dy_schema__columns", true, E, true},
		{"dy_rule__tags__nullability", true, W, false},
		{"dy_rule__tags__inner_nullability", false, W, false},
		{"dy_rule__tags__inner_min_length", false, E, false},
		{"dy_rule__address__inner_city_nullability", false, W, false},
		{"dy_rule__address__inner_zip_nullability", false, E, false},
	}, summary(rep))
	assert.Equal(t, []string{`{"tags":["ab",null],"address":{"city":null,"zip":"1"}}`}, e.jsonRows("read_parquet("+lit(out.Path)+")", "1"))

	// Without a quarantine the warn inner rules do not abort; the error ones do, at ERROR.
	rep, err = run(t, s, runner.Asset{Input: runner.ParquetInput{Path: e.parquet("raw.parquet", sel)}}, runner.Options{})
	var abort *outcome.ValidationAbortError
	require.ErrorAs(t, err, &abort)
	assert.Equal(t, []outcome.RuleCount{{Rule: "tags|inner_min_length", Count: 1}, {Rule: "address|inner_zip_nullability", Count: 1}}, abort.Counts)
	assert.Equal(t, []chk{
		{"dy_schema__columns", true, E, true},
		{"dy_rule__tags__nullability", true, W, true},
		{"dy_rule__tags__inner_nullability", false, W, false},
		{"dy_rule__tags__inner_min_length", false, E, true},
		{"dy_rule__address__inner_city_nullability", false, W, false},
		{"dy_rule__address__inner_zip_nullability", false, E, true},
	}, summary(rep))

	// inner_nullable is not an alias: the error lists the column's rules.
	bad, err := schema.Parse([]byte(`schema: Sev
columns:
  - name: tags
    type: List
    severity: {inner_nullable: warn}
    inner:
      type: String
      min_length: 2
`), "sev.yaml")
	if err == nil {
		_, err = compile.Compile(bad)
	}
	var sevErr *schema.InvalidSeverityError
	require.ErrorAs(t, err, &sevErr)
	assert.Contains(t, err.Error(), "The severity of column 'tags' in Sev names 'inner_nullable', which is not a rule of column 'tags'. "+
		"The rules of column 'tags' are 'nullability', 'inner_nullability', 'inner_min_length'.")
}

// TestNestedColumnCheck: nested dtypes are checked before any row is read; the messages spell the
// declared dtype in the schema language and the actual one as DuckDB does.
func TestNestedColumnCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, decl, input string
		want              []string // Mismatch strings; none means the types match
	}{
		{"list of the wrong element", "  - name: c\n    type: List\n    inner: {type: String}\n", "[1, 2]::INTEGER[]",
			[]string{"'c' (expected List(String), got INTEGER[])"}},
		{"list element family", "  - name: c\n    type: List\n    inner: {type: Integer}\n", "[1, 2]::SMALLINT[]", nil},
		{"list of lists", "  - name: c\n    type: List\n    inner: {type: List, inner: {type: Int32}}\n", "[[1]]::BIGINT[][]",
			[]string{"'c' (expected List(List(Int32)), got BIGINT[][])"}},
		{"list is not an array", "  - name: c\n    type: Array\n    shape: 2\n    inner: {type: Int32}\n", "[1, 2]::INTEGER[]",
			[]string{"'c' (expected Array(Int32, 2), got INTEGER[])"}},
		{"array size", "  - name: c\n    type: Array\n    shape: 2\n    inner: {type: Int32}\n", "[1, 2, 3]::INTEGER[3]",
			[]string{"'c' (expected Array(Int32, 2), got INTEGER[3])"}},
		{"array element exact", "  - name: c\n    type: Array\n    shape: 2\n    inner: {type: Integer}\n", "[1, 2]::INTEGER[2]",
			[]string{"'c' (expected Array(Integer, 2), got INTEGER[2])"}},
		{"array element exact, Int64", "  - name: c\n    type: Array\n    shape: 2\n    inner: {type: Integer}\n", "[1, 2]::BIGINT[2]", nil},
		{"array two dimensions", "  - name: c\n    type: Array\n    shape: [3, 2]\n    inner: {type: Int32}\n", "[[1, 2], [3, 4], [5, 6]]::INTEGER[2][3]", nil},
		{"array dimensions swapped", "  - name: c\n    type: Array\n    shape: [3, 2]\n    inner: {type: Int32}\n", "[[1, 2, 3], [4, 5, 6]]::INTEGER[3][2]",
			[]string{"'c' (expected Array(Int32, 3x2), got INTEGER[3][2])"}},
		{"struct fields in any order", "  - name: c\n    type: Struct\n    fields: [{name: a, type: Int32}, {name: b, type: String}]\n",
			"{'b': 'x', 'a': 1}::STRUCT(b VARCHAR, a INTEGER)", nil},
		{"struct missing field", "  - name: c\n    type: Struct\n    fields: [{name: a, type: Int32}, {name: b, type: String}]\n",
			"{'a': 1}::STRUCT(a INTEGER)", []string{"'c' (expected Struct(a: Int32, b: String), got STRUCT(a INTEGER))"}},
		{"struct extra field", "  - name: c\n    type: Struct\n    fields: [{name: a, type: Int32}]\n",
			"{'a': 1, 'z': 2}::STRUCT(a INTEGER, z INTEGER)", []string{"'c' (expected Struct(a: Int32), got STRUCT(a INTEGER, z INTEGER))"}},
		{"struct field type, recursively", "  - name: c\n    type: Struct\n    fields: [{name: a, type: List, inner: {type: Int32}}]\n",
			"{'a': [1]}::STRUCT(a BIGINT[])", []string{"'c' (expected Struct(a: List(Int32)), got STRUCT(a BIGINT[]))"}},
		{"list of structs", "  - name: c\n    type: List\n    inner: {type: Struct, fields: [{name: a, type: Int32}]}\n",
			"[{'a': 1}]::STRUCT(a INTEGER)[]", nil},
		{"enum from VARCHAR", "  - name: c\n    type: Enum\n    categories: [x, y]\n", "'x'::VARCHAR",
			[]string{"'c' (expected Enum('x', 'y'), got VARCHAR)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			s, err := schema.Parse([]byte("schema: N\ncolumns:\n"+tc.decl), "n.yaml")
			require.NoError(t, err)
			db := e.path("wh.duckdb")
			e.table(db, "raw", "SELECT "+tc.input+" AS c")
			rep, err := run(t, s, runner.Asset{Input: runner.TableInput{File: db, Table: "raw"}}, runner.Options{})
			if tc.want == nil {
				require.NoError(t, err)
				assert.Equal(t, outcome.AllValid, outcomeOf(rep))
				return
			}
			var colErr *outcome.ColumnSchemaError
			require.ErrorAs(t, err, &colErr)
			var got []string
			for _, m := range colErr.Mismatches {
				got = append(got, m.String())
			}
			assert.Equal(t, tc.want, got)
			assert.Contains(t, err.Error(), tc.want[0])
			assert.Equal(t, outcome.ColumnSchemaMismatch, outcomeOf(rep))
			assert.Equal(t, []chk{{"dy_schema__columns", false, outcome.SeverityError, true}}, summary(rep))
		})
	}
}

// TestNestedBuilderMatchesFile: the Go builder spelling of shopYAML compiles to the same query and
// rules, and so validates the same way.
func TestNestedBuilderMatchesFile(t *testing.T) {
	t.Parallel()
	built := schema.New("Shop",
		schema.Int64("id").PrimaryKey(),
		schema.List("tags", schema.String("").MinLength(2).Unique()).Nullable().MaxLength(3),
		schema.List("codes", schema.Int64("").Nullable()).Nullable().Unique(),
		schema.Array("point", schema.Int32("").Nullable().Min(0), 3).Nullable(),
		schema.Array("grid", schema.Int8("").IsIn(0, 1), 2, 2).Nullable(),
		schema.Struct("address", schema.String("city").MinLength(1), schema.String("zip").Nullable().Regex(`^\d{5}$`)).Nullable(),
		schema.List("lines", schema.Struct("", schema.String("sku").PrimaryKey(), schema.Int32("qty").Min(1))).Nullable(),
		schema.Enum("mood", "happy", "sad").Nullable(),
	)
	fromBuilder, err := compile.Compile(built)
	require.NoError(t, err)
	fromFile, err := compile.Compile(shopSchema(t))
	require.NoError(t, err)
	assert.Equal(t, fromFile.Explain(), fromBuilder.Explain())
	assert.Equal(t, fromFile.Rules, fromBuilder.Rules)

	e := newEnv(t)
	db := e.path("wh.duckdb")
	e.table(db, "raw", shopSelect(shopRows...))
	rep, err := run(t, built, runner.Asset{Input: runner.TableInput{File: db, Table: "raw"}}, runner.Options{})
	require.Error(t, err)
	assert.Equal(t, shopCounts, failedCounts(t, rep))
}

// TestStructKeyBesideSameNamedColumn: a key over a struct field reads the field even when the
// input table is named like the struct column and has a column named like the field ("raw"."id"
// is the struct's field, not the table's column).
func TestStructKeyBesideSameNamedColumn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	db := e.path("wh.duckdb")
	e.table(db, "raw", "SELECT raw::STRUCT(id BIGINT) AS raw, id::BIGINT AS id FROM (VALUES ({'id': 1}, 1), ({'id': 1}, 2), ({'id': 3}, 3)) AS t(raw, id)")
	s := schema.New("Raw",
		schema.Struct("raw", schema.Int64("id").Unique()),
		schema.Int64("id"))
	rep, err := run(t, s, runner.Asset{Input: runner.TableInput{File: db, Table: "raw"}}, runner.Options{})
	var abort *outcome.ValidationAbortError
	require.ErrorAs(t, err, &abort, "the run evaluated the rules")
	assert.Equal(t, int64(2), rep.Rows.Invalid, "the two rows whose raw.id repeats")
}
