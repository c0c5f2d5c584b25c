package odcs_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/odcs"
	"github.com/tablegate/tablegate/schema"
)

// contract wraps properties (YAML list items at six spaces) and object-level YAML (at four)
// into a v3.1 contract with one object, t.
func contract(props, object string) string {
	return "apiVersion: v3.1.0\nkind: DataContract\nid: c1\nversion: 2.0.0\nstatus: active\nname: Test contract\nschema:\n  - name: t\n    physicalType: table\n" +
		object + "    properties:\n" + props
}

// refusals are the problems of a contract refused by the standard's JSON schema or by the import.
func refusals(t *testing.T, err error) []odcs.Notice {
	t.Helper()
	var ie *odcs.ImportError
	var se *odcs.SchemaError
	switch {
	case errors.As(err, &ie):
		return ie.Problems
	case errors.As(err, &se):
		return se.Problems
	}
	t.Fatalf("want a refusal, got %v", err)
	return nil
}

func importText(t *testing.T, text string, opts odcs.ImportOptions) (*odcs.Result, error) {
	t.Helper()
	c, err := odcs.Parse([]byte(text), "c.odcs.yaml")
	if err != nil {
		return nil, err
	}
	return odcs.Import(context.Background(), c, opts)
}

func TestImportMapping(t *testing.T) {
	for _, tc := range []struct {
		name, props, object string
		opts                odcs.ImportOptions
		want                []string // lines of the schema, each found in order of the list
	}{
		{name: "physical types", props: `      - {name: a, physicalType: BIGINT, required: true}
      - {name: b, physicalType: "decimal( 12 , 2 )", required: true}
      - {name: c, physicalType: timestamp with time zone, logicalType: timestamp, required: true, logicalTypeOptions: {defaultTimezone: Europe/Berlin}}
      - {name: d, physicalType: TIMESTAMP_NS, required: true}
      - {name: e, physicalType: "VARCHAR[]", required: true}
      - {name: f, physicalType: "INTEGER[3]", required: true}
      - {name: g, physicalType: double precision}
      - {name: h, physicalType: "array<string>", items: {name: items, physicalType: string, logicalType: string}}
      - {name: i, physicalType: "NUMBER(38,0)"}
      - {name: j, physicalType: "timestamp(3)"}
      - {name: k, physicalType: TIMESTAMPTZ_NS, required: true}
      - {name: l, physicalType: "timestamptz(9)", required: true}
`, want: []string{"name: a\n    type: Int64\n", "type: Decimal\n    precision: 12\n    scale: 2\n", "type: Datetime\n    time_zone: Europe/Berlin\n",
			"type: Datetime\n    time_unit: ns\n", "type: List\n    inner:\n      type: String\n      nullable: true\n", "type: Array\n    shape: [3]\n    inner:\n      type: Int32",
			"name: g\n    type: Float64\n    nullable: true\n", "name: h\n    type: List\n", "name: i\n    type: Decimal\n    precision: 38\n    scale: 0\n", "name: j\n    type: Datetime\n    time_unit: ms\n",
			"name: k\n    type: Datetime\n    time_unit: ns\n    time_zone: UTC\n", "name: l\n    type: Datetime\n    time_unit: ns\n    time_zone: UTC\n"}},
		{name: "logical types that fix the dtype", props: `      - {name: a, logicalType: boolean}
      - {name: b, logicalType: integer, logicalTypeOptions: {format: u16}}
      - {name: c, logicalType: integer}
      - {name: d, logicalType: number, logicalTypeOptions: {format: f64}}
      - {name: e, logicalType: date}
      - name: f
        logicalType: object
        properties:
          - {name: x, physicalType: INTEGER, required: true}
      - name: g
        logicalType: array
        items: {name: items, physicalType: VARCHAR}
      - {name: k, physicalType: JSON, logicalType: object}
`, want: []string{"type: Bool", "type: UInt16", "name: c\n    type: Integer", "type: Float64", "type: Date",
			"name: f\n    type: Struct\n    fields:\n      - name: x\n        type: Int32\n", "name: g\n    type: List\n    inner:\n      type: String\n      nullable: true\n", "name: k\n    type: String\n"}},
		{name: "required unique primary key", props: `      - {name: id, physicalType: BIGINT, primaryKey: true, primaryKeyPosition: 2}
      - {name: tenant, physicalType: VARCHAR, primaryKey: true, primaryKeyPosition: 1}
      - {name: email, physicalType: VARCHAR, unique: true, required: true}
      - {name: alias, physicalType: VARCHAR, unique: true}
`, want: []string{"name: id\n    type: Int64\n    primary_key: true\n", "name: tenant\n    type: String\n    primary_key: true\n",
			"name: email\n    type: String\n    unique: true\n", "name: alias\n    type: String\n    nullable: true\n",
			"- name: alias_unique", `sql: '"alias" IS NULL OR count(*) = 1'`, "group_by: [alias]"}},
		{name: "bounds v3.1", props: `      - name: n
        physicalType: DECIMAL(10,2)
        logicalType: number
        logicalTypeOptions: {minimum: 0.50, exclusiveMaximum: 100, exclusiveMinimum: -1, maximum: 99.99}
      - name: d
        physicalType: DATE
        logicalType: date
        logicalTypeOptions: {minimum: "2020-01-01", exclusiveMaximum: "2030-01-01"}
`, want: []string{"min: 0.50", "max: 99.99", `min: "2020-01-01"`, `max_exclusive: "2030-01-01"`}},
		{name: "bounds v3.0 booleans", props: `      - name: n
        physicalType: INTEGER
        logicalType: integer
        logicalTypeOptions: {minimum: 1, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false}
`, want: []string{"min_exclusive: 1", "max: 9"}},
		{name: "lengths exact through an ASCII pattern", props: `      - name: code
        physicalType: VARCHAR(8)
        logicalType: string
        logicalTypeOptions: {pattern: "^[A-Z0-9]+$", minLength: 2}
`, want: []string{"max_length: 8", "regex: ^[A-Z0-9]+$", "min_length: 2"}},
		{name: "lengths as characters", props: `      - name: city
        physicalType: VARCHAR
        logicalType: string
        logicalTypeOptions: {maxLength: 20, minLength: 1}
`, opts: odcs.ImportOptions{Lengths: odcs.LengthsChars}, want: []string{"check:\n      min_chars: length(_) >= 1\n      max_chars: length(_) <= 20\n"}},
		{name: "lengths as bytes", props: `      - {name: city, physicalType: VARCHAR(20)}
`, opts: odcs.ImportOptions{Lengths: odcs.LengthsBytes}, want: []string{"max_length: 20"}},
		{name: "pattern rewritten for RE2", props: `      - name: s
        physicalType: VARCHAR
        logicalType: string
        logicalTypeOptions: {pattern: "^a.b\\s\\u00e9(?<n>x)$"}
`, want: []string{`regex: ^a[^\n\r\x{2028}\x{2029}]b[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]\x{e9}(?P<n>x)$`}},
		{name: "format and multipleOf", props: `      - {name: id, physicalType: VARCHAR, logicalType: string, logicalTypeOptions: {format: uuid}}
      - {name: qty, physicalType: INTEGER, logicalType: integer, logicalTypeOptions: {multipleOf: 5}}
      - {name: price, physicalType: "DECIMAL(8,2)", logicalType: number, logicalTypeOptions: {multipleOf: 0.05}}
`, want: []string{"format_uuid: regexp_matches(_, '^[0-9a-fA-F]{8}-", "multiple_of: _ % 5 = 0", "multiple_of: _ % 0.05::DECIMAL(38,2) = 0"}},
		{name: "enum", props: `      - {name: status, physicalType: VARCHAR, enum: [{value: open}, {value: "1"}, {value: "NULL"}]}
      - {name: level, physicalType: SMALLINT, enum: [{value: 1}, {value: 2}, {value: 3}]}
`, want: []string{`is_in: [open, "1", "NULL"]`, "is_in: [1, 2, 3]"}},
		{name: "library metrics as row rules", props: `      - name: a
        physicalType: VARCHAR
        quality:
          - {metric: nullValues, mustBe: 0, severity: warning, id: a_nulls}
          - {metric: missingValues, arguments: {missingValues: ['', 'N/A']}, mustBe: 0}
          - {metric: invalidValues, arguments: {validValues: [x, y], pattern: '^[a-z]$'}, mustBe: 0, severity: info}
          - {metric: duplicateValues, mustBe: 0, severity: error}
`, want: []string{"name: a\n    type: String\n    unique: true\n    is_in: [x, y]\n    regex: ^[a-z]$\n    check:\n      missing_values: _ NOT IN ('', 'N/A')\n    severity:\n      is_in: warn\n      nullability: warn\n      regex: warn\n"}},
		{name: "thresholds as table checks", props: `      - name: a
        physicalType: VARCHAR
        quality:
          - {metric: nullValues, mustBeLessThan: 1, unit: percent, id: few_nulls, severity: warning}
          - {metric: missingValues, arguments: {missingValues: [null, '']}, mustBeLessOrEqualTo: 10}
          - {metric: invalidValues, arguments: {validValues: [x]}, mustBeBetween: [0, 3]}
          - {metric: duplicateValues, mustBeLessThan: 5, unit: percent}
`, object: `    quality:
      - {metric: rowCount, mustBeGreaterOrEqualTo: 100, name: Enough rows}
      - {metric: rowCount, mustNotBeBetween: [5, 10]}
      - {metric: duplicateValues, arguments: {properties: [a]}, mustBe: 0}
`, want: []string{"- name: a_unique\n", "- name: few_nulls\n    sql: (coalesce(100.0 * count(*) FILTER (WHERE \"a\" IS NULL) / nullif(count(*), 0), 0)) < 1\n    severity: warn\n",
			"- name: a_missingValues\n    metric: count(*) FILTER (WHERE \"a\" IS NULL OR \"a\" IN (''))\n    max: 10\n",
			"metric: count(*) FILTER (WHERE \"a\" IS NOT NULL AND NOT (\"a\" IN ('x')))\n    min: 0\n    max: 3\n",
			`coalesce(len(list_filter(map_values(list_aggregate(list("a") FILTER (WHERE "a" IS NOT NULL), ''histogram'')), lambda n: n > 1)), 0)`,
			"- name: Enough_rows\n    metric: count(*)\n    min: 100\n", "sql: (count(*)) NOT BETWEEN 5 AND 10"}},
		{name: "sql quality on {model}", props: `      - {name: a, physicalType: INTEGER, quality: [{type: sql, query: "SELECT count(*) FROM {model} WHERE {property} < 0", mustBe: 0, name: no_negative}]}
`, want: []string{"- name: no_negative\n    metric: count(*) FILTER (WHERE \"a\" < 0)\n    min: 0\n    max: 0\n"}},
		{name: "sql quality", props: `      - name: amount
        physicalType: DOUBLE
        quality:
          - {type: sql, query: "SELECT avg({property}) FROM {object}", mustBeBetween: [1, 2]}
          - {type: sql, query: "SELECT COUNT(*) FROM ${table} WHERE ${column} < 0;", mustBe: 0}
          - {type: sql, query: "SELECT (COUNT(*) FILTER (WHERE amount IS NULL) * 100.0 / COUNT(*)) AS null_percentage\nFROM t", mustBeLessThan: 5}
`, want: []string{`metric: avg("amount")`, "min: 1\n    max: 2", `metric: COUNT(*) FILTER (WHERE "amount" < 0)`,
			`sql: ((COUNT(*) FILTER (WHERE amount IS NULL) * 100.0 / COUNT(*))) < 5`}},
		{name: "v3.0 date on a timestamp", props: `      - {name: ts, physicalType: TIMESTAMP, logicalType: date}
`, want: []string{"type: Datetime"}},
		{name: "relationships", props: `      - {name: customer_id, physicalType: BIGINT, relationships: [{to: customers.id}]}
      - {name: a, physicalType: VARCHAR}
      - {name: b, physicalType: VARCHAR}
`, object: `    relationships:
      - {from: [t.a, t.b], to: [pairs.x, pairs.y], id: known_pair}
`, opts: odcs.ImportOptions{References: map[string]string{"customers": "customers.parquet", "pairs": "db.duckdb:main.pairs"}},
			want: []string{"references: {input: customers.parquet, column: id}", "- name: known_pair\n    references:\n      columns: [a, b]\n      input: db.duckdb:main.pairs\n      to: [x, y]\n"}},
		{name: "reserved words and tablegate custom", props: `      - name: select
        physicalType: INTEGER
        quality:
          - {type: custom, engine: tablegate, implementation: "_ > 0", name: positive}
`, object: `    quality:
      - {type: custom, engine: tablegate, implementation: '"select" < 100', name: small, severity: warning}
`, want: []string{"name: select", "check:\n      positive: _ > 0\n", "- name: small\n    sql: '\"select\" < 100'\n", "severity:\n  small: warn\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := contract(tc.props, tc.object)
			switch {
			case strings.Contains(tc.name, "v3.0"):
				text = strings.Replace(text, "apiVersion: v3.1.0", "apiVersion: v3.0.2", 1)
			case strings.Contains(tc.props, "enum"), strings.Contains(tc.object, "id:"):
				text = strings.Replace(text, "apiVersion: v3.1.0", "apiVersion: v3.2.0", 1)
			}
			res, err := importText(t, text, tc.opts)
			require.NoError(t, err)
			got := string(res.YAML)
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				require.GreaterOrEqual(t, i, 0, "want %q in order in\n%s", w, got)
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestImportRefusesEverythingAtOnce(t *testing.T) {
	props := `      - name: größe
        physicalType: VARCHAR
      - name: amount
        logicalType: number
      - name: note
        physicalType: VARCHAR(40)
        logicalType: string
        logicalTypeOptions:
          maxLength: 30
          pattern: "^(?=a)b"
      - name: code
        physicalType: VARCHAR
        logicalType: string
        logicalTypeOptions:
          pattern: "(a)\\1"
          format: email
        quality:
          - {type: sql, query: "SELECT code FROM other", mustBe: 0}
          - {type: custom, engine: soda, implementation: "x"}
          - {metric: nullValues, mustBe: 0, severity: fatal}
      - name: n
        physicalType: DECIMAL
      - name: ts
        physicalType: UUID
        relationships: [{to: people.id}]
`
	_, err := importText(t, contract(props, ""), odcs.ImportOptions{})
	var ie *odcs.ImportError
	require.True(t, errors.As(err, &ie), "%v", err)
	want := []struct{ where, msg string }{
		{"c.odcs.yaml:11: schema[0].properties[0].name", "letters, digits and underscores"},
		{"c.odcs.yaml:14: schema[0].properties[1].logicalType", "number has no precision"},
		{"c.odcs.yaml:16: schema[0].properties[2].physicalType", "physicalType VARCHAR(40) (at most 40 characters) counts characters"},
		{"c.odcs.yaml:19: schema[0].properties[2].logicalTypeOptions.maxLength", "maxLength 30 counts characters"},
		{"c.odcs.yaml:20: schema[0].properties[2].logicalTypeOptions.pattern", "lookaround"},
		{"c.odcs.yaml:25: schema[0].properties[3].logicalTypeOptions.pattern", `backreference \1`},
		{"c.odcs.yaml:26: schema[0].properties[3].logicalTypeOptions.format", `format "email" has no exact check`},
		{"c.odcs.yaml:28: schema[0].properties[3].quality[0].query", "the query reads other"},
		{"c.odcs.yaml:29: schema[0].properties[3].quality[1].engine", `engine "soda"`},
		{"c.odcs.yaml:30: schema[0].properties[3].quality[2].severity", `severity "fatal"`},
		{"c.odcs.yaml:32: schema[0].properties[4].physicalType", "has no precision and scale"},
		{"c.odcs.yaml:34: schema[0].properties[5].physicalType", `"UUID" has no tablegate dtype`},
		{"c.odcs.yaml:35: schema[0].properties[5].relationships[0].to", "--reference people=FILE"},
	}
	for _, w := range want {
		found := false
		for _, p := range ie.Problems {
			if strings.HasPrefix(p.String(), w.where+": ") && strings.Contains(p.Msg, w.msg) {
				found = true
			}
		}
		require.True(t, found, "no problem %s: …%s… in\n%v", w.where, w.msg, err)
	}
	require.Len(t, ie.Problems, len(want), "%v", err)
	require.Contains(t, err.Error(), "cannot be imported exactly (13 problems")
}

func TestImportRefusals(t *testing.T) {
	for _, tc := range []struct{ name, props, object, where, msg string }{
		{"sql not an aggregate", `      - {name: a, physicalType: INTEGER, quality: [{type: sql, query: "SELECT a FROM {object}", mustBe: 1}]}
`, "", "schema[0].properties[0].quality[0]", "aggregate"},
		{"sql group by", `      - {name: a, physicalType: INTEGER, quality: [{type: sql, query: "SELECT count(*) FROM {object} GROUP BY a", mustBe: 1}]}
`, "", "schema[0].properties[0].quality[0].query", "GROUP BY"},
		{"enum of the wrong type", `      - {name: a, physicalType: VARCHAR, enum: [{value: 1}]}
`, "", "schema[0].properties[0].enum[0].value", "cannot be a value of the String column"},
		{"logicalType disagrees", `      - {name: a, physicalType: VARCHAR, logicalType: integer}
`, "", "schema[0].properties[0].logicalType", "disagrees"},
		{"date on a timestamp from v3.1", `      - {name: a, physicalType: TIMESTAMP, logicalType: date}
`, "", "schema[0].properties[0].logicalType", "logicalType date disagrees with physicalType TIMESTAMP"},
		{"items of another type than the physicalType's elements", `      - {name: a, physicalType: "INTEGER[]", items: {physicalType: VARCHAR}}
`, "", "schema[0].properties[0].items", "items is String, but physicalType INTEGER[] has elements of Int32"},
		{"bound on a string", `      - {name: a, physicalType: VARCHAR, logicalType: string, logicalTypeOptions: {minimum: 1}}
`, "", "schema[0].properties[0].logicalTypeOptions.minimum", `"minimum" is not a key the standard allows here`},
		{"bound on a string without logicalType", `      - {name: a, physicalType: VARCHAR, logicalType: number, logicalTypeOptions: {minimum: 1}}
`, "", "schema[0].properties[0].logicalType", "disagrees"},
		{"decimal bound finer than the scale", `      - {name: a, physicalType: "DECIMAL(5,1)", logicalType: number, logicalTypeOptions: {minimum: 0.25}}
`, "", "schema[0].properties[0].logicalTypeOptions", "more than the scale 1"},
		{"primary key positions", `      - {name: a, physicalType: INTEGER, primaryKey: true, primaryKeyPosition: 1}
      - {name: b, physicalType: INTEGER, primaryKey: true, primaryKeyPosition: 1}
`, "", "schema[0].properties[1].primaryKeyPosition", "is also a's"},
		{"multipleOf on a float", `      - {name: a, physicalType: DOUBLE, logicalType: number, logicalTypeOptions: {multipleOf: 0.1}}
`, "", "schema[0].properties[0].logicalTypeOptions.multipleOf", "not exact"},
		{"unknown option", `      - {name: a, physicalType: INTEGER, logicalType: integer, logicalTypeOptions: {step: 2}}
`, "", "schema[0].properties[0].logicalTypeOptions.step", `unknown key "step"`},
		{"misspelt key", `      - {name: a, physicalType: INTEGER, requried: true}
`, "", "schema[0].properties[0].requried", `unknown key "requried" (did you mean "required"?)`},
		{"operator not a number", `      - {name: a, physicalType: VARCHAR, quality: [{name: mime, mustBe: application/json}]}
`, "", "schema[0].properties[0].quality[0].mustBe", `the value of "mustBe" breaks the standard's rules for it here`},
		{"two operators", `      - {name: a, physicalType: INTEGER, quality: [{metric: nullValues, mustBe: 0, mustBeLessThan: 3}]}
`, "", "schema[0].properties[0].quality[0]", "has several operators"},
		{"missingValues without values", `      - {name: a, physicalType: INTEGER, quality: [{metric: missingValues, mustBe: 0}]}
`, "", "schema[0].properties[0].quality[0].arguments", "needs arguments.missingValues"},
		{"rowCount on a property", `      - {name: a, physicalType: INTEGER, quality: [{metric: rowCount, mustBe: 0}]}
`, "", "schema[0].properties[0].quality[0].metric", "object-level"},
		{"timestamp without unit", `      - {name: a, logicalType: timestamp}
`, "", "schema[0].properties[0].logicalType", "no unit or zone"},
		{"other table in a relationship target file", `      - {name: a, physicalType: INTEGER, relationships: [{to: "other.yaml#/schema/x/properties/y"}]}
`, "", "schema[0].properties[0].relationships[0].to", "another contract file"},
		{"no properties", "", "", "schema[0].properties", "is null; the standard wants an array"},
		{"table alias", `      - {name: a, physicalType: INTEGER, quality: [{type: sql, query: "SELECT count(*) FROM {object} o WHERE o.{property} < 0", mustBe: 0}]}
`, "", "schema[0].properties[0].quality[0].query", "the query names the table o: write the columns without a table name"},
		{"class escape as a range end", `      - {name: a, physicalType: VARCHAR, logicalType: string, logicalTypeOptions: {pattern: '^[\d-x]+$'}}
`, "", "schema[0].properties[0].logicalTypeOptions.pattern", `is a range with a class escape as an end`},
		{"relationship to a missing property", `      - {name: a, physicalType: INTEGER, relationships: [{to: t.nope}]}
`, "", "schema[0].properties[0].relationships[0].to", `reference "t.nope": object t has no property nope`},
		{"quality on a nested property", `      - name: s
        logicalType: object
        properties:
          - {name: x, physicalType: INTEGER, quality: [{metric: nullValues, mustBe: 0}]}
`, "", "schema[0].properties[0].properties[0]", "nested property"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := contract(tc.props, tc.object)
			if strings.Contains(tc.props, "enum") {
				text = strings.Replace(text, "apiVersion: v3.1.0", "apiVersion: v3.2.0", 1)
			}
			_, err := importText(t, text, odcs.ImportOptions{})
			for _, p := range refusals(t, err) {
				if strings.HasPrefix(p.Pos.Path, tc.where) && strings.Contains(p.Msg, tc.msg) {
					require.NotZero(t, p.Pos.Line, "%v", p)
					return
				}
			}
			t.Fatalf("want %s: …%s… in %v", tc.where, tc.msg, err)
		})
	}
}

func TestImportLossyWarnsNeverSilently(t *testing.T) {
	props := `      - name: a
        logicalType: number
      - name: b
        physicalType: VARCHAR(10)
        quality:
          - {type: custom, engine: soda, implementation: x}
          - {metric: nullValues, mustBe: 0, schedule: "0 20 * * *", scheduler: cron}
`
	text := contract(props, "") + "slaProperties:\n  - {property: latency, value: 4, unit: d}\n"
	_, err := importText(t, text, odcs.ImportOptions{})
	require.Error(t, err)
	res, err := importText(t, text, odcs.ImportOptions{AllowLossy: true})
	require.NoError(t, err)
	yml := string(res.YAML)
	var lossy, notEnforced []string
	for _, n := range res.Notices {
		if n.Lossy {
			lossy = append(lossy, n.String())
		} else {
			notEnforced = append(notEnforced, n.String())
		}
	}
	require.Len(t, lossy, 3, "%v", lossy)
	res, err = importText(t, contract(`      - {name: a, physicalType: "float(3,2)", quality: [{metric: invalidValues, arguments: {validValues: [1]}, mustBe: 0}]}
`, ""), odcs.ImportOptions{AllowLossy: true})
	require.NoError(t, err)
	require.Len(t, res.Notices, 2, "%v", res.Notices)
	require.Contains(t, res.Notices[0].String(), "schema[0].properties[0].physicalType: physicalType \"float(3,2)\" is not a type tablegate knows")
	require.Contains(t, res.Notices[1].String(), "schema[0].properties[0].quality[0]: the column has no dtype, so its quality entry cannot be compiled; not checked")
	require.NotContains(t, string(res.YAML), "is_in")

	// A key on a column without a dtype is left out, and said so.
	res, err = importText(t, contract(`      - {name: a, physicalType: "float(3,2)", primaryKey: true, unique: true}
`, ""), odcs.ImportOptions{AllowLossy: true})
	require.NoError(t, err)
	require.Len(t, res.Notices, 3, "%v", res.Notices)
	require.Contains(t, res.Notices[1].String(), "schema[0].properties[0].primaryKey: the column has no dtype, so primaryKey cannot be compiled; not checked")
	require.Contains(t, res.Notices[2].String(), "schema[0].properties[0].unique: the column has no dtype, so unique cannot be compiled; not checked")
	require.NotContains(t, string(res.YAML), "primary_key")
	require.Contains(t, lossy[0], "schema[0].properties[0].logicalType")
	require.Contains(t, lossy[0], "imported as Float")
	require.Contains(t, lossy[1], "imported as max_length 10 UTF-8 bytes")
	require.Len(t, notEnforced, 2, "%v", notEnforced)
	require.Contains(t, notEnforced[0], "quality[1].schedule: the schedule is not enforced")
	require.Contains(t, notEnforced[1], "slaProperties[0]: service level latency is not enforced")
	require.Contains(t, yml, "type: Float\n")
	require.Contains(t, yml, "max_length: 10\n")
}

func TestImportQualityReferences(t *testing.T) {
	props := `      - name: a
        physicalType: VARCHAR
        quality:
          - {metric: nullValues, mustBe: 0, id: a_not_null, name: A is filled}
          - {metric: nullValues, mustBeLessThan: 2, id: few}
`
	object := "    quality:\n      - {metric: rowCount, mustBeGreaterThan: 0, id: not_empty}\n"
	res, err := importText(t, contract(props, object), odcs.ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, &schema.Contract{ID: "c1", Name: "Test contract", Version: "2.0.0", APIVersion: "v3.1.0", Object: "t",
		Quality: []schema.ContractQuality{
			{Rule: "a|nullability", ID: "a_not_null", Name: "A is filled"},
			{Rule: "few", Table: true, ID: "few"},
			{Rule: "not_empty", Table: true, ID: "not_empty"},
		}}, res.Schema.Contract)
	require.Contains(t, string(res.YAML), "contract:\n  id: c1\n  name: Test contract\n  version: 2.0.0\n  api_version: v3.1.0\n  object: t\n  quality:\n    - {rule: a|nullability, id: a_not_null, name: A is filled}\n    - {table_check: few, id: few}\n")
}

// TestImportUniqueUnderItsEntry: a duplicateValues entry reports under the rule unique became,
// and an entry whose rule name was taken under the name it got; v3.0's validValues beside the
// rule is read.
func TestImportUniqueUnderItsEntry(t *testing.T) {
	props := `      - name: a
        physicalType: VARCHAR
        quality:
          - {rule: duplicateCount, mustBe: 0, id: a_dups, severity: warning}
      - name: b
        physicalType: VARCHAR
        required: true
        quality:
          - {rule: duplicateCount, mustBe: 0, id: b_dups, severity: warning}
          - {rule: validValues, validValues: [x, y], mustBe: 0}
`
	object := "    quality:\n      - {type: custom, engine: tablegate, name: a_unique, implementation: \"a <> 'z'\"}\n"
	text := strings.Replace(contract(props, object), "apiVersion: v3.1.0", "apiVersion: v3.0.2", 1)
	res, err := importText(t, text, odcs.ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, []schema.ContractQuality{
		{Rule: "a_unique", ID: "a_dups"},
		{Rule: "b|unique", ID: "b_dups"},
		{Rule: "a_unique_2", Name: "a_unique"},
	}, res.Schema.Contract.Quality, "%s", res.YAML)
	require.Contains(t, string(res.YAML), "is_in: [x, y]")
	require.Contains(t, string(res.YAML), "severity:\n      unique: warn\n")
	require.Contains(t, string(res.YAML), "severity:\n  a_unique: warn\n")
}

func TestImportPicksTheObject(t *testing.T) {
	text := "apiVersion: v3.2.0\nkind: DataContract\nid: x\nversion: 1.0.0\nschema:\n  - name: a\n    properties: [{name: x, physicalType: INTEGER}]\n  - name: b\n    properties: [{name: y, physicalType: VARCHAR}]\n"
	_, err := importText(t, text, odcs.ImportOptions{})
	require.ErrorContains(t, err, "has 2 schema objects (a, b); name one with --object")
	_, err = importText(t, text, odcs.ImportOptions{Object: "c"})
	require.ErrorContains(t, err, `no schema object "c"; it has a, b`)
	res, err := importText(t, text, odcs.ImportOptions{Object: "b"})
	require.NoError(t, err)
	require.Equal(t, "b", res.Schema.Name)
	require.Equal(t, "y", res.Schema.Columns[0].Name)
}

func TestPatternToRE2(t *testing.T) {
	for _, tc := range []struct {
		ecma, re2, err string
		match, miss    []string
	}{
		{ecma: `^\d{3}$`, re2: `^\d{3}$`, match: []string{"123"}, miss: []string{"١٢٣"}},
		{ecma: `^a.c$`, match: []string{"abc", "aéc"}, miss: []string{"a\rc", "a\u2028c"}},
		{ecma: `^\s$`, match: []string{" ", "\u00a0", "\ufeff", "\v"}, miss: []string{"x"}},
		{ecma: `^\S+$`, match: []string{"ab"}, miss: []string{"a\u3000b"}},
		{ecma: `^[\s,]+$`, match: []string{"\u2003,"}},
		{ecma: `^\u00e9\u{1F600}$`, match: []string{"é😀"}},
		{ecma: `^[^]$`, match: []string{"\n"}},
		{ecma: `[]`, miss: []string{"", "a"}},
		{ecma: `^[[a]+$`, match: []string{"[a["}},
		{ecma: `^\/\-$`, match: []string{"/-"}},
		{ecma: `(?<year>\d{4})`, re2: `(?P<year>\d{4})`},
		{ecma: `\cJ`, match: []string{"\n"}},
		{ecma: `(?=x)`, err: "lookaround"},
		{ecma: `(?<!x)y`, err: "lookaround"},
		{ecma: `(a)\1`, err: "backreference"},
		{ecma: `\k<a>`, err: "named backreference"},
		{ecma: `(?i)abc`, err: "not ECMA-262"},
		{ecma: `\a`, err: "not an ECMA-262 escape"},
		{ecma: `\p{Script=Greek}`, err: "property=value"},
		{ecma: `[\S]`, err: `\S inside a character class`},
		{ecma: `\uD83D\uDE00`, err: "surrogate"},
		{ecma: `a{2,1}`, err: "RE2 (DuckDB) does not read it"},
	} {
		t.Run(tc.ecma, func(t *testing.T) {
			re, err := odcs.PatternToRE2(tc.ecma)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			if tc.re2 != "" {
				require.Equal(t, tc.re2, re)
			}
			rx := regexp.MustCompile(re)
			for _, s := range tc.match {
				require.True(t, rx.MatchString(s), "%q should match %q", re, s)
			}
			for _, s := range tc.miss {
				require.False(t, rx.MatchString(s), "%q should not match %q", re, s)
			}
		})
	}
}
