package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/tablegate/tablegate/schema"
)

// validJSONSchema checks a schema file init wrote against the repository's JSON Schema of
// schema files (through JSON: init writes no .inf or .nan).
func validJSONSchema(t *testing.T, data []byte) error {
	t.Helper()
	c := jsonschema.NewCompiler()
	js, err := c.Compile("../../schema/tablegate.schema.json")
	require.NoError(t, err)
	var doc any
	require.NoError(t, yaml.Unmarshal(data, &doc))
	text, err := json.Marshal(doc)
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	require.NoError(t, err)
	return js.Validate(inst)
}

// TestInitValidatesItsOwnData: on real and generated shapes (nested types, NULLs, NaN and
// infinities, Unicode values, reserved-word names), init writes a schema that loads and that
// validates the data it came from as all_valid, and infers what the data shows.
func TestInitValidatesItsOwnData(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	flights, err := filepath.Abs("testdata/flights_head.csv")
	require.NoError(t, err)
	penguins, err := filepath.Abs("testdata/penguins.csv")
	require.NoError(t, err)
	shape := `SELECT i AS id,
		CASE WHEN i % 7 = 0 THEN NULL ELSE [i, NULL, i + 1] END AS tags,
		[i::INTEGER, 2, 3]::INTEGER[3] AS point,
		{'city': CASE WHEN i % 5 = 0 THEN NULL ELSE 'Zürich' END, 'geo': {'lat': i / 3.0, 'lon': 'NaN'::DOUBLE}} AS address,
		[{'qty': i, 'sku': 'ä' || i}] AS lines,
		MAP {'k': i} AS attrs,
		(i * 1.25)::DECIMAL(12,2) AS price,
		CASE WHEN i % 11 = 0 THEN 'inf'::DOUBLE WHEN i % 13 = 0 THEN 'NaN'::DOUBLE ELSE i / 7 END AS ratio,
		(make_timestamp(2024, 1, 1, 0, 0, 0) + to_seconds(i))::TIMESTAMP_MS AS seen_ms,
		('2024-01-01'::DATE + (i % 30)::INTEGER) AS "day",
		['a', 'b', 'c'][1 + i % 3]::ENUM('a', 'b', 'c') AS grade,
		CASE WHEN i % 2 = 0 THEN 'null' ELSE 'yes' END AS "select",
		i * 1.5::DOUBLE AS weight
		FROM range(1500) t(i)`
	// Parquet stores Arrays as lists, Enums as strings and millisecond timestamps as
	// microseconds; a DuckDB table keeps them.
	nested := f.parquet("nested.parquet", shape)
	db := f.path("shop.duckdb")
	f.withDB(db, "CREATE TABLE d.nested AS "+shape)
	f.withDB(db, "CREATE TABLE d.orders AS SELECT 'k' || i AS order_id, i % 4 AS status, CASE WHEN i % 3 = 0 THEN NULL ELSE 'x' END AS note FROM range(50) t(i)")

	cases := []struct {
		name  string
		input string
		args  []string
		rows  string
		want  []string // lines of the written schema
		avoid []string
	}{
		{"flights", flights, []string{"--csv-null", "NA", "--bounds"}, "1200 rows", []string{
			"schema: flights_head", "  - name: dep_time # 4 of 1200 rows NULL", "    nullable: true", "    is_in: [EWR, JFK, LGA]",
			"    min: 2013\n    max: 2013", "    type: Datetime\n    time_zone: UTC"}, nil},
		{"penguins", penguins, []string{"--csv-null", "NA", "--bounds", "--max-categories", "3", "--name", "Penguins"}, "344 rows", []string{
			"schema: Penguins", "    is_in: [Adelie, Chinstrap, Gentoo]", "  - name: sex # 11 of 344 rows NULL; 2 distinct values",
			"    type: Float64\n    nullable: true\n    min: 32.1\n    max: 59.6"}, nil},
		{"nested parquet", nested, []string{"--bounds"}, "1500 rows", []string{
			"  - name: id # all 1500 values distinct and none NULL\n    type: Int64\n    min: 0\n    max: 1499\n    primary_key: true",
			"  - name: tags # 215 of 1500 rows NULL\n    type: List\n    inner:\n      type: Int64\n      nullable: true\n    nullable: true",
			"    type: Struct\n    fields:\n      - name: city\n        type: String\n        nullable: true",
			"  - name: attrs # DuckDB type MAP(VARCHAR, BIGINT) has no dtype: Any accepts it\n    type: Any",
			"    type: Decimal\n    precision: 12\n    scale: 2",
			"  - name: ratio\n    type: Float64\n    allow_nan: true\n    allow_inf: true\n",
			`    min: "2024-01-01"`, "    is_in: [a, b, c]",
			`  - name: select # 2 distinct values` + "\n    type: String\n    is_in: [\"null\", yes]",
			"  - name: weight\n    type: Float64\n    min: 0.0\n    max: 2248.5\n", // all distinct, but a float is no key
		}, []string{"max: +Inf", "max: inf", "max: 2248.5\n    unique", "name: weight #"}},
		{"nested table", db + ":nested", nil, "1500 rows", []string{
			"    type: Array\n    shape: [3]\n    inner:\n      type: Int32\n      nullable: true",
			"    type: Datetime\n    time_unit: ms", "    type: Enum\n    categories: [a, b, c]",
			"      - name: geo\n        type: Struct\n        fields:\n          - name: lat\n            type: Float64\n            nullable: true\n            allow_nan: true",
		}, []string{"min:"}},
		{"empty", f.parquet("empty.parquet", "SELECT 1::INTEGER AS a, 'x' AS s WHERE false"), []string{"--bounds"}, "0 rows",
			[]string{"  - name: a\n    type: Int32\n  - name: s\n    type: String\n"}, []string{"nullable: true", "min:", "is_in:"}},
		// What pandas, polars and pyarrow write, every unit naive and zoned: nanoseconds with a
		// zone are TIMESTAMPTZ_NS, declared Datetime(ns, UTC), never Any.
		{"pandas timestamps", timestamps("pandas"), nil, "2 rows", []string{
			"  - name: ns_utc # 1 of 2 rows NULL\n    type: Datetime\n    time_unit: ns\n    time_zone: UTC\n",
			"  - name: default_utc # 1 of 2 rows NULL\n    type: Datetime\n    time_unit: ns\n    time_zone: UTC\n",
			"  - name: s_berlin # 1 of 2 rows NULL\n    type: Datetime\n    time_zone: UTC\n"}, []string{"type: Any"}},
		{"polars timestamps", timestamps("polars"), nil, "2 rows", []string{
			"  - name: ns_berlin # 1 of 2 rows NULL\n    type: Datetime\n    time_unit: ns\n    time_zone: UTC\n"}, []string{"type: Any"}},
		{"pyarrow timestamps", timestamps("pyarrow"), nil, "2 rows", []string{
			"  - name: ns_naive # 1 of 2 rows NULL\n    type: Datetime\n    time_unit: ns\n    nullable: true\n",
			"  - name: ns_utc # 1 of 2 rows NULL\n    type: Datetime\n    time_unit: ns\n    time_zone: UTC\n"}, []string{"type: Any"}},
		{"duckdb table", db + ":orders", nil, "50 rows", []string{
			"schema: orders", "  - name: order_id # all 50 values distinct: unique (or primary_key) if that is meant, not chance",
			"  - name: note # 17 of 50 rows NULL; 1 distinct values", "    is_in: [x]"}, []string{"primary_key: true"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := f.path(tc.name + ".yaml")
			args := append([]string{"init", "--input", tc.input, "--out", out}, tc.args...)
			code, stdout, stderr := cli(t, args...)
			require.Equal(t, 0, code, stderr)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, "checked: the schema validates its own "+tc.rows+" as all_valid")
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			text := string(data)
			assert.True(t, strings.HasPrefix(text, schema.LanguageServerLine+"\n"), "the first line points editors at the JSON Schema")
			assert.Contains(t, text, "# Inferred by tablegate init from "+tc.input+", "+tc.rows+".")
			assert.NoError(t, validJSONSchema(t, data), "the published JSON Schema refuses what init wrote")
			for _, w := range tc.want {
				assert.Contains(t, text, w)
			}
			for _, a := range tc.avoid {
				assert.NotContains(t, text, a)
			}
			// And through validate, as a user would run it next.
			vargs := []string{"validate", "--schema", out, "--input", tc.input, "--format", "json"}
			if len(tc.args) > 0 && tc.args[0] == "--csv-null" {
				vargs = append(vargs, tc.args[:2]...)
			}
			code, stdout, stderr = cli(t, vargs...)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, "all_valid", oneJSON(t, stdout)["outcome"])
		})
	}

	// To stdout without --out; an existing --out needs --force; a bad count is refused.
	code, stdout, stderr := cli(t, "init", "--input", penguins, "--csv-null", "NA")
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, schema.LanguageServerLine+"\n# Inferred by tablegate init"), stdout)
	code, _, stderr = cli(t, "init", "--input", penguins, "--out", f.path("penguins.yaml"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "exists; give --force to replace it")
	code, _, stderr = cli(t, "init", "--input", penguins, "--csv-null", "NA", "--out", f.path("penguins.yaml"), "--force", "--max-categories", "0")
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(f.path("penguins.yaml"))
	require.NoError(t, err)
	assert.NotContains(t, string(data), "    is_in:")
	// A column name no check can carry: nothing is written, the message says what to do.
	spaced := f.parquet("spaced.parquet", `SELECT 'x' AS "my col"`)
	code, _, stderr = cli(t, "init", "--input", spaced, "--out", f.path("spaced.yaml"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `init cannot declare every column of the input (nothing was written): `)
	assert.Contains(t, stderr, `Rename it in the query that produces the table (SELECT "my col" AS my_col …)`)
	assert.False(t, fileExists(f.path("spaced.yaml")))
	code, _, stderr = cli(t, "init", "--input", penguins, "--max-categories", "-1")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--max-categories -1")
}

// timestamps is a Parquet file of casting/testdata/timestamps (written by gen.py there).
func timestamps(library string) string {
	path, err := filepath.Abs(filepath.Join("..", "..", "casting", "testdata", "timestamps", library+".parquet"))
	if err != nil {
		panic(err)
	}
	return path
}

// TestWrittenFilesFollowUmask: init --out and export --odcs --out (and contract import --out, by the same code) write
// files a plain create would (0666 less the umask), not a temporary file's 0600, with and
// without --force.
func TestWrittenFilesFollowUmask(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	plain := f.path("plain")
	fh, err := os.Create(plain)
	require.NoError(t, err)
	require.NoError(t, fh.Close())
	st, err := os.Stat(plain)
	require.NoError(t, err)
	want := st.Mode().Perm()
	require.NotEqual(t, os.FileMode(0o600), want, "test needs a umask that lets others read")

	input := f.parquet("t.parquet", "SELECT 1 AS id")
	schemaFile := f.path("t.yaml")
	contract := f.path("t.odcs.yaml")
	for _, tc := range []struct {
		file string
		args []string
	}{
		{schemaFile, []string{"init", "--input", input, "--out", schemaFile}},
		{schemaFile, []string{"init", "--input", input, "--out", schemaFile, "--force"}},
		{contract, []string{"export", "--odcs", "--schema", schemaFile, "--out", contract}},
		{contract, []string{"export", "--odcs", "--schema", schemaFile, "--out", contract, "--force"}},
	} {
		code, _, stderr := cli(t, tc.args...)
		require.Equal(t, 0, code, stderr)
		st, err := os.Stat(tc.file)
		require.NoError(t, err)
		assert.Equal(t, want, st.Mode().Perm(), "%v", tc.args)
	}
}
