package schema_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablegate/tablegate/schema"
)

// writeFiles writes name -> content into a fresh folder and returns the folder.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mustLoad(t *testing.T, path string) *schema.Schema {
	t.Helper()
	s, err := schema.LoadFile(path)
	if err != nil {
		t.Fatalf("LoadFile(%s): %v", path, err)
	}
	return s
}

func mustParse(t *testing.T, text, file string) *schema.Schema {
	t.Helper()
	s, err := schema.Parse([]byte(text), file)
	if err != nil {
		t.Fatalf("Parse(%s): %v", file, err)
	}
	return s
}

// model renders a schema's model without file positions, for comparing loaded schemas.
func model(t *testing.T, s *schema.Schema) string {
	t.Helper()
	c := *s
	c.File = ""
	b, err := json.MarshalIndent(&c, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func columnNames(s *schema.Schema) string {
	var names []string
	for _, c := range s.Columns {
		names = append(names, c.Name)
	}
	return strings.Join(names, ",")
}

const baseOrders = `schema: BaseOrders
description: Base of all orders.
columns:
  - name: customer_id
    type: Int64
  - name: amount
    type: Int64
`

// specExample is a schema file using every top-level key.
const specExample = `schema: Orders                 # name used in every message
description: Orders from the shop.
extends: base_orders.yaml      # optional: a child has its parent's columns, rules and severities
columns:                       # a list: order matters
  - name: order_id
    type: String
    primary_key: true
    regex: '^ORD-\d{4}$'
    severity: {regex: warn}    # one value for every rule of the column, or rule -> value
  - name: amount
    type: Float64
    min: 0
  - name: note
    type: String
    nullable: true
    max_length: 100
    severity: warn
  - name: email
    type: String
    check: {lowercase: "lower(_) = _"}   # ` + "`_`" + ` is the value being checked
rules:                         # schema-level custom rules, SQL boolean expressions over a row
  - name: amount_is_rounded
    description: Require whole cents.
    sql: round(amount * 100) = amount * 100
  - name: customer_total_bounded
    sql: sum(amount) < 1000000          # an aggregate, evaluated per group
    group_by: [customer_id]
severity: {amount_is_rounded: warn}      # schema-level: one value, or rule -> value
`

func TestLoadSpecExample(t *testing.T) {
	dir := writeFiles(t, map[string]string{"base_orders.yaml": baseOrders, "orders.yaml": specExample})
	s := mustLoad(t, filepath.Join(dir, "orders.yaml"))
	if s.Name != "Orders" || s.Description != "Orders from the shop." {
		t.Errorf("name/description = %q/%q", s.Name, s.Description)
	}
	// amount overrides the parent's amount and keeps its place.
	if got := columnNames(s); got != "customer_id,amount,order_id,note,email" {
		t.Errorf("columns = %s", got)
	}
	if s.Column("amount").DType.Kind != schema.KindFloat64 {
		t.Errorf("amount dtype = %s", s.Column("amount").DType)
	}
	want := []string{
		"amount_is_rounded", "customer_total_bounded", "primary_key",
		"customer_id|nullability",
		"amount|nullability", "amount|min", "amount|inf", "amount|nan",
		"order_id|nullability", "order_id|regex",
		"note|max_length",
		"email|nullability", "email|check__lowercase",
	}
	if got := s.AllRuleNames(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("rules\n got: %v\nwant: %v", got, want)
	}
	oid := s.Column("order_id")
	if !oid.Args.PrimaryKey || oid.Args.Regex == nil || *oid.Args.Regex != `^ORD-\d{4}$` {
		t.Errorf("order_id args = %+v", oid.Args)
	}
	if got := oid.Args.Severity.PerRule; len(got) != 1 || got[0] != (schema.SeverityEntry{Rule: "regex", Severity: schema.Warn}) {
		t.Errorf("order_id severity = %+v", oid.Args.Severity)
	}
	if s.Column("note").Args.Severity.All != schema.Warn {
		t.Errorf("note severity = %+v", s.Column("note").Args.Severity)
	}
	if min := s.Column("amount").Args.Min; min == nil || min.Text != "0" || min.IsString {
		t.Errorf("amount min = %+v", min)
	}
	email := s.Column("email").Args.Checks
	if len(email) != 1 || email[0] != (schema.Check{Name: "lowercase", SQL: "lower(_) = _"}) {
		t.Errorf("email checks = %+v", email)
	}
	if len(s.Rules) != 2 || s.Rules[0].Description != "Require whole cents." ||
		s.Rules[0].SQL != "round(amount * 100) = amount * 100" || strings.Join(s.Rules[1].GroupBy, ",") != "customer_id" {
		t.Errorf("rules = %+v %+v", s.Rules[0], s.Rules[1])
	}
	if got := s.Severity.PerRule; len(got) != 1 || got[0] != (schema.SeverityEntry{Rule: "amount_is_rounded", Severity: schema.Warn}) {
		t.Errorf("schema severity = %+v", s.Severity)
	}
	if got := s.PrimaryKey(); strings.Join(got, ",") != "order_id" {
		t.Errorf("primary key = %v", got)
	}
}

// allTypesYAML and allTypesJSON declare the same schema, covering every dtype, every parametric
// key, the three check forms, severities and rules.
const allTypesYAML = `schema: AllTypes
description: every dtype
columns:
  - {name: b, type: Bool, nullable: true}
  - {name: i8, type: Int8, min: -5, max: 5}
  - {name: i16, type: Int16, min_exclusive: 0}
  - {name: i32, type: Int32, max_exclusive: 10, unique: true}
  - {name: i64, type: Int64, is_in: [1, 2, 3], primary_key: true}
  - {name: u8, type: UInt8}
  - {name: u16, type: UInt16}
  - {name: u32, type: UInt32}
  - {name: u64, type: UInt64, max: 18446744073709551615}
  - {name: int, type: Integer}
  - {name: f32, type: Float32, max: 0.1, allow_inf: true}
  - {name: f64, type: Float64, min: -1.5, allow_nan: true, severity: {inf: warn, nullable: error}}
  - {name: f, type: Float}
  - name: dec
    type: Decimal
    precision: 10
    scale: 2
    min: '0.01'
  - {name: dec_any, type: Decimal, scale: 3}
  - name: s
    type: String
    min_length: 1
    max_length: 10
    regex: '^[a-z]+$'
    is_in: [a, b]
    description: a string
    check: "_ <> 'x'"
  - {name: s_list_check, type: String, check: ["_ <> 'a'", "_ <> 'b'"]}
  - name: s_map_check
    type: String
    check:
      first: "_ <> 'a'"
      second: "_ <> 'b'"
    severity: {check: warn}
  - {name: bin, type: Binary}
  - {name: d, type: Date, min: '2020-04-01', resolution: 1d}
  - {name: t, type: Time, max: '12:00:00', resolution: 1h}
  - {name: ts, type: Datetime, min: '2020-03-01 12:00:00'}
  - {name: ts_ms, type: Datetime, time_unit: ms}
  - {name: ts_ns, type: Datetime, time_unit: ns}
  - {name: tsz, type: Datetime, time_zone: Europe/Berlin, min: '2020-03-01 12:00:00+01:00', resolution: 1h}
  - {name: dur, type: Duration, time_unit: us, max: 1d4h, resolution: 30m}
  - {name: e, type: Enum, categories: [x, "it's"]}
  - name: tags
    type: List
    min_length: 1
    inner: {type: String, min_length: 2}
    severity: {inner_nullability: warn}
  - {name: arr, type: Array, shape: 3, inner: {type: Int32}}
  - {name: mat, type: Array, shape: [3, 2], inner: {type: Float64, allow_nan: true}}
  - name: address
    type: Struct
    fields:
      - {name: city, type: String, min_length: 1}
      - {name: zip, type: Int32, nullable: true}
  - {name: anything, type: Any}
rules:
  - name: r1
    sql: i8 < i16
  - {name: r2, sql: count(*) < 5, group_by: u8, description: small groups}
  - {name: r3, sql: count(*) < 5, group_by: [u8, u16]}
severity: {r1: warn, primary_key: warn}
`

const allTypesJSON = `{
  "schema": "AllTypes",
  "description": "every dtype",
  "columns": [
    {"name": "b", "type": "Bool", "nullable": true},
    {"name": "i8", "type": "Int8", "min": -5, "max": 5},
    {"name": "i16", "type": "Int16", "min_exclusive": 0},
    {"name": "i32", "type": "Int32", "max_exclusive": 10, "unique": true},
    {"name": "i64", "type": "Int64", "is_in": [1, 2, 3], "primary_key": true},
    {"name": "u8", "type": "UInt8"},
    {"name": "u16", "type": "UInt16"},
    {"name": "u32", "type": "UInt32"},
    {"name": "u64", "type": "UInt64", "max": 18446744073709551615},
    {"name": "int", "type": "Integer"},
    {"name": "f32", "type": "Float32", "max": 0.1, "allow_inf": true},
    {"name": "f64", "type": "Float64", "min": -1.5, "allow_nan": true, "severity": {"inf": "warn", "nullable": "error"}},
    {"name": "f", "type": "Float"},
    {"name": "dec", "type": "Decimal", "precision": 10, "scale": 2, "min": "0.01"},
    {"name": "dec_any", "type": "Decimal", "scale": 3},
    {"name": "s", "type": "String", "min_length": 1, "max_length": 10, "regex": "^[a-z]+$",
     "is_in": ["a", "b"], "description": "a string", "check": "_ <> 'x'"},
    {"name": "s_list_check", "type": "String", "check": ["_ <> 'a'", "_ <> 'b'"]},
    {"name": "s_map_check", "type": "String", "check": {"first": "_ <> 'a'", "second": "_ <> 'b'"},
     "severity": {"check": "warn"}},
    {"name": "bin", "type": "Binary"},
    {"name": "d", "type": "Date", "min": "2020-04-01", "resolution": "1d"},
    {"name": "t", "type": "Time", "max": "12:00:00", "resolution": "1h"},
    {"name": "ts", "type": "Datetime", "min": "2020-03-01 12:00:00"},
    {"name": "ts_ms", "type": "Datetime", "time_unit": "ms"},
    {"name": "ts_ns", "type": "Datetime", "time_unit": "ns"},
    {"name": "tsz", "type": "Datetime", "time_zone": "Europe/Berlin", "min": "2020-03-01 12:00:00+01:00", "resolution": "1h"},
    {"name": "dur", "type": "Duration", "time_unit": "us", "max": "1d4h", "resolution": "30m"},
    {"name": "e", "type": "Enum", "categories": ["x", "it's"]},
    {"name": "tags", "type": "List", "min_length": 1, "inner": {"type": "String", "min_length": 2},
     "severity": {"inner_nullability": "warn"}},
    {"name": "arr", "type": "Array", "shape": 3, "inner": {"type": "Int32"}},
    {"name": "mat", "type": "Array", "shape": [3, 2], "inner": {"type": "Float64", "allow_nan": true}},
    {"name": "address", "type": "Struct", "fields": [
      {"name": "city", "type": "String", "min_length": 1},
      {"name": "zip", "type": "Int32", "nullable": true}]},
    {"name": "anything", "type": "Any"}
  ],
  "rules": [
    {"name": "r1", "sql": "i8 < i16"},
    {"name": "r2", "sql": "count(*) < 5", "group_by": "u8", "description": "small groups"},
    {"name": "r3", "sql": "count(*) < 5", "group_by": ["u8", "u16"]}
  ],
  "severity": {"r1": "warn", "primary_key": "warn"}
}
`

// allTypesBuilder is the builder form of allTypesYAML.
func allTypesBuilder() *schema.Schema {
	return schema.New("AllTypes",
		schema.Bool("b").Nullable(),
		schema.Int8("i8").Min(-5).Max(5),
		schema.Int16("i16").MinExclusive(0),
		schema.Int32("i32").MaxExclusive(10).Unique(),
		schema.Int64("i64").IsIn(1, 2, 3).PrimaryKey(),
		schema.UInt8("u8"),
		schema.UInt16("u16"),
		schema.UInt32("u32"),
		schema.UInt64("u64").Max(uint64(18446744073709551615)),
		schema.Integer("int"),
		schema.Float32("f32").Max(0.1).AllowInf(),
		schema.Float64("f64").Min(-1.5).AllowNaN().SeverityOf("inf", schema.Warn).SeverityOf("nullable", schema.Error),
		schema.Float("f"),
		schema.Decimal("dec", 10, 2).Min("0.01"),
		schema.Decimal("dec_any", 0, 3),
		schema.String("s").MinLength(1).MaxLength(10).Regex("^[a-z]+$").IsIn("a", "b").Describe("a string").Check("", "_ <> 'x'"),
		schema.String("s_list_check").Check("", "_ <> 'a'").Check("", "_ <> 'b'"),
		schema.String("s_map_check").Check("first", "_ <> 'a'").Check("second", "_ <> 'b'").SeverityOf("check", schema.Warn),
		schema.Binary("bin"),
		schema.Date("d").Min("2020-04-01").Resolution("1d"),
		schema.Time("t").Max("12:00:00").Resolution("1h"),
		schema.Datetime("ts", "", "").Min("2020-03-01 12:00:00"),
		schema.Datetime("ts_ms", schema.Millis, ""),
		schema.Datetime("ts_ns", schema.Nanos, ""),
		schema.Datetime("tsz", "", "Europe/Berlin").Min("2020-03-01 12:00:00+01:00").Resolution("1h"),
		schema.Duration("dur").Max("1d4h").Resolution("30m"),
		schema.Enum("e", "x", "it's"),
		schema.List("tags", schema.String("").MinLength(2)).MinLength(1).SeverityOf("inner_nullability", schema.Warn),
		schema.Array("arr", schema.Int32(""), 3),
		schema.Array("mat", schema.Float64("").AllowNaN(), 3, 2),
		schema.Struct("address", schema.String("city").MinLength(1), schema.Int32("zip").Nullable()),
		schema.Any("anything"),
	).Describe("every dtype").
		AddRule("r1", "i8 < i16").
		AddGroupRule("r2", "count(*) < 5", "u8").DescribeRule("small groups").
		AddGroupRule("r3", "count(*) < 5", "u8", "u16").
		SeverityOf("r1", schema.Warn).SeverityOf("primary_key", schema.Warn)
}

func TestYAMLAndJSONGiveTheSameModel(t *testing.T) {
	y := mustParse(t, allTypesYAML, "all.yaml")
	j := mustParse(t, allTypesJSON, "all.json")
	if my, mj := model(t, y), model(t, j); my != mj {
		t.Errorf("YAML and JSON models differ:\nYAML: %s\nJSON: %s", my, mj)
	}
	// The same file through LoadFile, and a .yml file, agree too.
	dir := writeFiles(t, map[string]string{"all.yml": allTypesYAML, "all.json": allTypesJSON})
	if model(t, mustLoad(t, filepath.Join(dir, "all.yml"))) != model(t, y) {
		t.Errorf("LoadFile(.yml) differs from Parse")
	}
	if model(t, mustLoad(t, filepath.Join(dir, "all.json"))) != model(t, j) {
		t.Errorf("LoadFile(.json) differs from Parse")
	}
}

func TestFileAndBuilderAgree(t *testing.T) {
	file := mustParse(t, allTypesYAML, "all.yaml")
	built := allTypesBuilder()
	mustValid(t, built)
	if got, want := file.AllRuleNames(), built.AllRuleNames(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("rule names differ\nfile:    %v\nbuilder: %v", got, want)
	}
	if len(file.Columns) != len(built.Columns) {
		t.Fatalf("columns: %d vs %d", len(file.Columns), len(built.Columns))
	}
	for i, fc := range file.Columns {
		bc := built.Columns[i]
		if fc.Name != bc.Name || fc.DType.String() != bc.DType.String() || fc.DType.DuckDBType() != bc.DType.DuckDBType() {
			t.Errorf("column %d: file %s %s, builder %s %s", i, fc.Name, fc.DType, bc.Name, bc.DType)
		}
		for j, ch := range fc.Args.Checks {
			if ch.SQL != bc.Args.Checks[j].SQL {
				t.Errorf("column %s check %d SQL differs", fc.Name, j)
			}
		}
	}
	if file.Description != built.Description || len(file.Rules) != len(built.Rules) {
		t.Errorf("schema description/rules differ")
	}
	for i, r := range file.Rules {
		b := built.Rules[i]
		if r.Name != b.Name || r.SQL != b.SQL || r.Description != b.Description || strings.Join(r.GroupBy, ",") != strings.Join(b.GroupBy, ",") {
			t.Errorf("rule %d: file %+v builder %+v", i, r, b)
		}
	}
}

func TestParametricDTypes(t *testing.T) {
	s := mustParse(t, allTypesYAML, "all.yaml")
	cases := map[string]string{
		"dec":      "Decimal(10,2)",
		"dec_any":  "Decimal(scale=3)",
		"ts":       "Datetime(us)",
		"ts_ms":    "Datetime(ms)",
		"ts_ns":    "Datetime(ns)",
		"tsz":      "Datetime(us, Europe/Berlin)",
		"dur":      "Duration",
		"e":        "Enum('x', 'it''s')",
		"tags":     "List(String)",
		"arr":      "Array(Int32, 3)",
		"mat":      "Array(Float64, 3x2)",
		"address":  "Struct(city: String, zip: Int32)",
		"anything": "Any",
	}
	for name, want := range cases {
		if got := s.Column(name).DType.String(); got != want {
			t.Errorf("%s: dtype %s, want %s", name, got, want)
		}
	}
	d := s.Column("dec").DType
	if d.Precision != 10 || d.Scale != 2 {
		t.Errorf("dec = %+v", d)
	}
	if tz := s.Column("tsz").DType; tz.TimeZone != "Europe/Berlin" || tz.TimeUnit != schema.Micros {
		t.Errorf("tsz = %+v", tz)
	}
	if got := s.Column("mat").DType.Shape; len(got) != 2 || got[0] != 3 || got[1] != 2 {
		t.Errorf("mat shape = %v", got)
	}
	if got := s.Column("arr").DType.Shape; len(got) != 1 || got[0] != 3 {
		t.Errorf("arr shape = %v", got)
	}
	inner := s.Column("tags").DType.Inner
	if inner == nil || inner.Name != "" || inner.DType.Kind != schema.KindString || inner.Args.MinLength == nil || *inner.Args.MinLength != 2 {
		t.Errorf("tags inner = %+v", inner)
	}
	fields := s.Column("address").DType.Fields
	if len(fields) != 2 || fields[0].Name != "city" || !fields[1].Args.Nullable {
		t.Errorf("address fields = %+v", fields)
	}
	if !s.Column("anything").Args.Nullable {
		t.Errorf("Any must be nullable")
	}
	if cats := s.Column("e").DType.Categories; strings.Join(cats, "|") != "x|it's" {
		t.Errorf("categories = %q", cats)
	}
}

func TestCheckForms(t *testing.T) {
	cases := []struct {
		check string
		rules []string
	}{
		{`"lower(_) = _"`, []string{"check"}},
		{`["_ > 0", "_ < 10"]`, []string{"check__0", "check__1"}},
		{`["_ > 0"]`, []string{"check"}}, // a list of one, as dataframely names it
		{`{positive: "_ > 0", small: "_ < 10"}`, []string{"check__positive", "check__small"}},
		{`{small: "_ < 10", positive: "_ > 0"}`, []string{"check__small", "check__positive"}},
	}
	for _, tc := range cases {
		s := mustParse(t, "schema: S\ncolumns:\n  - name: a\n    type: Int64\n    nullable: true\n    check: "+tc.check+"\n", "s.yaml")
		if got := s.Column("a").RuleNames(); strings.Join(got, ",") != strings.Join(tc.rules, ",") {
			t.Errorf("check %s: rules %v, want %v", tc.check, got, tc.rules)
		}
	}
	s := mustParse(t, "schema: S\ncolumns:\n  - name: a\n    type: Int64\n    check: {positive: \"_ > 0\"}\n", "s.yaml")
	if got := s.AllRuleNames(); strings.Join(got, ",") != "a|nullability,a|check__positive" {
		t.Errorf("rules = %v", got)
	}
	if got := schema.CheckName(s.AllRuleNames()[1]); got != "dy_rule__a__check__positive" {
		t.Errorf("check name = %s", got)
	}
}

const extBase = `schema: Base
description: the base
columns:
  - name: id
    type: String
    primary_key: true
  - name: amount
    type: Float64
    min: 0
    severity: {min: warn}
  - name: note
    type: String
    nullable: true
rules:
  - name: positive
    sql: amount > 0
severity: {positive: warn}
`

func TestExtends(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.yaml": extBase,
		"child.yaml": `schema: Child
extends: base.yaml
columns:
  - {name: amount, type: Int64, min: 1}
  - {name: paid, type: Bool}
rules:
  - {name: paid_has_amount, sql: NOT paid OR amount > 0}
severity: {primary_key: warn}
`,
		"grandchild.json": `{"schema": "Grandchild", "extends": "child.yaml", "columns": [{"name": "id", "type": "String", "primary_key": true, "min_length": 3}]}`,
		"inherit.yaml":    "schema: Inherit\nextends: base.yaml\n",
	})
	child := mustLoad(t, filepath.Join(dir, "child.yaml"))
	if got := columnNames(child); got != "id,amount,note,paid" {
		t.Errorf("child columns = %s", got)
	}
	if child.Column("amount").DType.Kind != schema.KindInt64 || child.Column("amount").Args.Min.Text != "1" {
		t.Errorf("amount not overridden: %+v", child.Column("amount"))
	}
	if len(child.Rules) != 2 || child.Rules[0].Name != "positive" || child.Rules[1].Name != "paid_has_amount" {
		t.Errorf("child rules = %+v", child.Rules)
	}
	sev := child.Severity.PerRule
	if len(sev) != 2 || sev[0].Rule != "positive" || sev[1].Rule != "primary_key" {
		t.Errorf("child severity = %+v", child.Severity)
	}
	if child.Description != "the base" {
		t.Errorf("child description = %q", child.Description)
	}
	wantRules := "positive,paid_has_amount,primary_key,id|nullability,amount|nullability,amount|min,paid|nullability"
	if got := strings.Join(child.AllRuleNames(), ","); got != wantRules {
		t.Errorf("child rules = %s", got)
	}

	inherit := mustLoad(t, filepath.Join(dir, "inherit.yaml"))
	if got := columnNames(inherit); got != "id,amount,note" {
		t.Errorf("inherit columns = %s", got)
	}
	if got := inherit.Column("amount").Args.Severity.PerRule; len(got) != 1 || got[0].Rule != "min" || got[0].Severity != schema.Warn {
		t.Errorf("column severity not inherited: %+v", got)
	}
	if len(inherit.Severity.PerRule) != 1 || inherit.Severity.PerRule[0].Rule != "positive" {
		t.Errorf("schema severity not inherited: %+v", inherit.Severity)
	}
	if inherit.Name != "Inherit" {
		t.Errorf("name = %q", inherit.Name)
	}

	grand := mustLoad(t, filepath.Join(dir, "grandchild.json"))
	if got := columnNames(grand); got != "id,amount,note,paid" {
		t.Errorf("grandchild columns = %s", got)
	}
	if len(grand.Rules) != 2 || len(grand.Severity.PerRule) != 2 {
		t.Errorf("grandchild rules/severity = %+v %+v", grand.Rules, grand.Severity)
	}

	// Parse resolves extends relative to the file's folder.
	p := mustParse(t, "schema: P\nextends: base.yaml\n", filepath.Join(dir, "p.yaml"))
	if got := columnNames(p); got != "id,amount,note" {
		t.Errorf("Parse extends columns = %s", got)
	}
}

func TestExtendsChildSeverityOverridesOneValue(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.yaml":  "schema: B\ncolumns:\n  - {name: id, type: Int64, primary_key: true}\nseverity: warn\n",
		"child.yaml": "schema: C\nextends: base.yaml\nseverity: error\n",
	})
	c := mustLoad(t, filepath.Join(dir, "child.yaml"))
	if c.Severity.All != schema.Error {
		t.Errorf("child severity = %+v", c.Severity)
	}
}

func TestExtendsErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.yaml":       "schema: A\nextends: b.yaml\ncolumns:\n  - {name: x, type: Int64}\n",
		"b.yaml":       "schema: B\nextends: a.yaml\n",
		"self.yaml":    "schema: Self\nextends: self.yaml\n",
		"missing.yaml": "schema: M\nextends: nowhere.yaml\n",
		"badbase.yaml": "schema: BadBase\ncolumns:\n  - {name: x, type: Int64, colour: red}\n",
		"badkid.yaml":  "schema: BadKid\nextends: badbase.yaml\ncolumns:\n  - {name: y, type: Int64, nullable: 3}\n",
	})
	for _, name := range []string{"a.yaml", "self.yaml"} {
		_, err := schema.LoadFile(filepath.Join(dir, name))
		if err == nil || !strings.Contains(err.Error(), "cycle") {
			t.Errorf("%s: want a cycle error, got %v", name, err)
			continue
		}
		d := declErr(t, err, "", "extends")
		if !strings.Contains(d.Pos.File, ".yaml") || d.Pos.Line != 2 {
			t.Errorf("%s: cycle error position %v", name, d.Pos)
		}
	}
	_, err := schema.LoadFile(filepath.Join(dir, "missing.yaml"))
	d := declErr(t, err, "", "extends")
	if !strings.Contains(d.Error(), "missing.yaml:2") || !strings.Contains(d.Error(), "nowhere.yaml") {
		t.Errorf("missing parent: %v", d)
	}
	// The parent's problems carry the parent's file; the child's its own.
	_, err = schema.LoadFile(filepath.Join(dir, "badkid.yaml"))
	parent := declErr(t, err, "x", "colour")
	if !strings.HasSuffix(parent.Pos.File, "badbase.yaml") || parent.Pos.Line != 3 {
		t.Errorf("parent problem at %v", parent.Pos)
	}
	kid := declErr(t, err, "y", "nullable")
	if !strings.HasSuffix(kid.Pos.File, "badkid.yaml") || kid.Pos.Line != 4 {
		t.Errorf("child problem at %v", kid.Pos)
	}
}

// TestLoadDeclarationErrors: every load error names the file and line, the column and the key.
func TestLoadDeclarationErrors(t *testing.T) {
	cases := []struct {
		name   string
		text   string
		line   int
		column string
		key    string
		msgHas string
	}{
		{"unknown schema key", "schema: S\ncolour: red\ncolumns: []\n", 2, "", "colour", "unknown key 'colour'"},
		{"unknown column key", "schema: S\ncolumns:\n  - name: a\n    type: Int64\n    minimum: 0\n", 5, "a", "minimum", "unknown key 'minimum'"},
		{"unknown inner key", "schema: S\ncolumns:\n  - name: a\n    type: List\n    inner:\n      type: Int64\n      maxx: 1\n", 7, "a[]", "maxx", "unknown key"},
		{"unknown field key", "schema: S\ncolumns:\n  - name: a\n    type: Struct\n    fields:\n      - {name: f, type: Int64, bogus: 1}\n", 6, "a.f", "bogus", "unknown key"},
		{"unknown rule key", "schema: S\ncolumns: [{name: a, type: Int64}]\nrules:\n  - name: r\n    sql: a > 0\n    where: a > 1\n", 6, "", "rules.where", "unknown key 'where'"},
		{"nullable yes", "schema: S\ncolumns:\n  - name: a\n    type: Int64\n    nullable: yes\n", 5, "a", "nullable", "true or false"},
		{"nullable quoted yes", "schema: S\ncolumns:\n  - name: a\n    type: Int64\n    nullable: \"yes\"\n", 5, "a", "nullable", `the string "yes"`},
		{"primary_key 1", "schema: S\ncolumns:\n  - {name: a, type: Int64, primary_key: 1}\n", 3, "a", "primary_key", "true or false"},
		{"min_length x", "schema: S\ncolumns:\n  - name: a\n    type: String\n    min_length: \"x\"\n", 5, "a", "min_length", "whole number"},
		{"max_length 1.5", "schema: S\ncolumns:\n  - name: a\n    type: String\n    max_length: 1.5\n", 5, "a", "max_length", "whole number"},
		{"columns not a list", "schema: S\ncolumns:\n  a: {type: Int64}\n", 3, "", "columns", "a list"},
		{"columns a string", "schema: S\ncolumns: a\n", 2, "", "columns", "a list"},
		{"column not a mapping", "schema: S\ncolumns:\n  - a\n", 3, "", "columns", "mapping"},
		{"column without name", "schema: S\ncolumns:\n  - type: Int64\n", 3, "", "name", "no name"},
		{"column without type", "schema: S\ncolumns:\n  - name: a\n", 3, "a", "type", "no type"},
		{"unknown type", "schema: S\ncolumns:\n  - name: a\n    type: Strin\n", 4, "a", "type", `unknown type "Strin"`},
		{"type in another case", "schema: S\ncolumns:\n  - {name: a, type: int64}\n", 3, "a", "type", `unknown type "int64" (did you mean 'Int64'?)`},
		{"lowercase string", "schema: S\ncolumns:\n  - {name: a, type: string}\n", 3, "a", "type", `unknown type "string" (did you mean 'String'?)`},
		{"misspelt key", "schema: S\ncolumns:\n  - name: a\n    type: Int64\n    nulable: true\n", 5, "a", "nulable", "unknown key 'nulable' (did you mean 'nullable'?); a column takes"},
		{"misspelt schema key", "schema: S\ncolums: []\n", 2, "", "colums", "unknown key 'colums' (did you mean 'columns'?)"},
		{"misspelt rule key", "schema: S\ncolumns: [{name: a, type: Int64}]\nrules:\n  - name: r\n    sqll: a > 0\n", 5, "", "rules.sqll", "(did you mean 'sql'?)"},
		{"type a list", "schema: S\ncolumns:\n  - name: a\n    type: [Int64]\n", 4, "a", "type", "must be a string"},
		{"min a boolean", "schema: S\ncolumns:\n  - name: a\n    type: Int64\n    min: true\n", 5, "a", "min", "number or a string"},
		{"max a list", "schema: S\ncolumns:\n  - name: a\n    type: Int64\n    max: [1]\n", 5, "a", "max", "number or a string"},
		{"is_in not a list", "schema: S\ncolumns:\n  - name: a\n    type: Int64\n    is_in: 3\n", 5, "a", "is_in", "list of values"},
		{"regex a list", "schema: S\ncolumns:\n  - name: a\n    type: String\n    regex: [a]\n", 5, "a", "regex", "must be a string"},
		{"check a number list item", "schema: S\ncolumns:\n  - name: a\n    type: String\n    check: [[x]]\n", 5, "a", "check", "must be a string"},
		{"precision on String", "schema: S\ncolumns:\n  - name: a\n    type: String\n    precision: 3\n", 5, "a", "precision", "Decimal columns only"},
		{"precision not a number", "schema: S\ncolumns:\n  - name: a\n    type: Decimal\n    precision: ten\n", 5, "a", "precision", "whole number"},
		{"time_unit on Date", "schema: S\ncolumns:\n  - name: a\n    type: Date\n    time_unit: ms\n", 5, "a", "time_unit", "Datetime and Duration"},
		{"time_zone on Duration", "schema: S\ncolumns:\n  - name: a\n    type: Duration\n    time_zone: UTC\n", 5, "a", "time_zone", "Datetime columns only"},
		{"categories on String", "schema: S\ncolumns:\n  - name: a\n    type: String\n    categories: [x]\n", 5, "a", "categories", "Enum columns only"},
		{"categories not a list", "schema: S\ncolumns:\n  - name: a\n    type: Enum\n    categories: x\n", 5, "a", "categories", "list of strings"},
		{"inner on Struct", "schema: S\ncolumns:\n  - name: a\n    type: Struct\n    inner: {type: Int64}\n", 5, "a", "inner", "List and Array"},
		{"inner with a name", "schema: S\ncolumns:\n  - name: a\n    type: List\n    inner: {name: x, type: Int64}\n", 5, "a", "name", "inner column has no name"},
		{"shape on List", "schema: S\ncolumns:\n  - name: a\n    type: List\n    shape: 3\n    inner: {type: Int64}\n", 5, "a", "shape", "Array columns only"},
		{"shape a mapping", "schema: S\ncolumns:\n  - name: a\n    type: Array\n    shape: {x: 1}\n    inner: {type: Int64}\n", 5, "a", "shape", "list of sizes"},
		{"shape with a word", "schema: S\ncolumns:\n  - name: a\n    type: Array\n    shape: [3, x]\n    inner: {type: Int64}\n", 5, "a", "shape", "whole number"},
		{"fields on List", "schema: S\ncolumns:\n  - name: a\n    type: List\n    fields: []\n", 5, "a", "fields", "Struct columns only"},
		{"fields not a list", "schema: S\ncolumns:\n  - name: a\n    type: Struct\n    fields: {x: Int64}\n", 5, "a", "fields", "list of named columns"},
		{"field without name", "schema: S\ncolumns:\n  - name: a\n    type: Struct\n    fields:\n      - {type: Int64}\n", 6, "a", "name", "no name"},
		{"rules not a list", "schema: S\ncolumns: []\nrules: {r: x}\n", 3, "", "rules", "a list"},
		{"rule not a mapping", "schema: S\ncolumns: []\nrules:\n  - r\n", 4, "", "rules", "mapping"},
		{"rule without name", "schema: S\ncolumns: []\nrules:\n  - sql: TRUE\n", 4, "", "rules.name", "no name"},
		{"group_by a mapping", "schema: S\ncolumns: [{name: a, type: Int64}]\nrules:\n  - name: r\n    sql: TRUE\n    group_by: {a: 1}\n", 6, "", "rules.group_by", "column name"},
		{"schema name a list", "schema: [S]\ncolumns: []\n", 1, "", "schema", "must be a string"},
		{"float bound .inf", "schema: S\ncolumns:\n  - name: a\n    type: Float64\n    max: .inf\n", 3, "a", "max", "inf is not a finite number"},
		{"bad check name", "schema: S\ncolumns:\n  - name: a\n    type: Int64\n    check: {my check: \"_ > 0\"}\n", 3, "a", "check", "letters"},
		{"bound for the dtype", "schema: S\ncolumns:\n  - name: a\n    type: Int8\n    max: 200\n", 3, "a", "max", "outside the range of Int8"},
		{"not a mapping", "- a\n- b\n", 1, "", "", "a schema file is a mapping"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := schema.Parse([]byte(tc.text), "s.yaml")
			d := declErr(t, err, tc.column, tc.key)
			if d.Pos.File != "s.yaml" || d.Pos.Line != tc.line {
				t.Errorf("position %v, want s.yaml:%d", d.Pos, tc.line)
			}
			msg := d.Error()
			want := []string{"s.yaml:", tc.msgHas}
			if tc.column != "" {
				want = append(want, "column '"+tc.column+"'")
			}
			if tc.key != "" {
				want = append(want, "key '"+tc.key+"'")
			}
			if !strings.HasPrefix(tc.text, "schema: S\n") {
				want = append(want[:0], tc.msgHas)
			} else {
				want = append(want, "S")
			}
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
		})
	}
}

// TestLoadErrorsNotDuplicated: one mistake is one problem.
func TestLoadErrorsNotDuplicated(t *testing.T) {
	// A builder column without a dtype is still reported.
	declErr(t, schema.New("S", &schema.Column{Name: "a"}).Validate(), "a", "type")
	for name, text := range map[string]string{
		"unknown type": "schema: S\ncolumns:\n  - name: a\n    type: Strin\n",
		"no type":      "schema: S\ncolumns:\n  - name: a\n",
		"null type":    "schema: S\ncolumns:\n  - name: a\n    type:\n",
		"list type":    "schema: S\ncolumns:\n  - name: a\n    type: [Int64]\n",
	} {
		_, err := schema.Parse([]byte(text), "s.yaml")
		if ps := problems(t, err); len(ps) != 1 {
			t.Errorf("%s: want one problem, got %d:\n%v", name, len(ps), err)
		}
	}
}

// TestDuplicateKeysAmongOtherProblems: every key given twice is a declaration error with its
// line and the column it is under, reported together with the schema's other problems.
func TestDuplicateKeysAmongOtherProblems(t *testing.T) {
	text := `schema: S
columns:
  - name: a
    type: Int64
    min: 0
    min: 5
  - name: b
    type: String
    nullable: perhaps
rules:
  - name: r
    sql: a > 0
    sql: a > 1
`
	_, err := schema.Parse([]byte(text), "s.yaml")
	if d := declErr(t, err, "a", "min"); d.Pos.Line != 6 || d.Error() != "s.yaml:6: S, column 'a', key 'min': given twice (first on line 5); give each key once" {
		t.Errorf("min: %v", d)
	}
	if d := declErr(t, err, "", "sql"); d.Pos.Line != 13 || !strings.Contains(d.Msg, "first on line 12") {
		t.Errorf("sql: %v", d)
	}
	declErr(t, err, "b", "nullable")
	if ps := problems(t, err); len(ps) != 3 {
		t.Errorf("want 3 problems, got %d:\n%v", len(ps), err)
	}

	// JSON too: encoding/json accepts a repeated key, the schema does not.
	_, err = schema.Parse([]byte(`{"schema": "S", "columns": [{"name": "a", "type": "Int64", "type": "String"}]}`), "s.json")
	declErr(t, err, "a", "type")
}

func TestLoadJSONDeclarationErrorLines(t *testing.T) {
	text := `{
  "schema": "S",
  "columns": [
    {"name": "a", "type": "Int64",
     "nullable": "yes"},
    {"name": "b", "type": "String", "colour": 1}
  ]
}`
	_, err := schema.Parse([]byte(text), "s.json")
	if d := declErr(t, err, "a", "nullable"); d.Pos.Line != 5 || !strings.HasPrefix(d.Error(), "s.json:5: S, column 'a', key 'nullable': ") {
		t.Errorf("nullable: %v", d)
	}
	if d := declErr(t, err, "b", "colour"); d.Pos.Line != 6 {
		t.Errorf("colour: %v", d)
	}
}

func TestLoadSyntaxErrors(t *testing.T) {
	cases := []struct {
		name, file, text string
		want             []string
	}{
		{"yaml syntax", "bad.yaml", "schema: S\ncolumns:\n  - name: a\n    type: Int64: x\n", []string{"bad.yaml: line 4:"}},
		{"yaml bad indentation", "bad.yaml", "schema: S\ncolumns:\n  - name: a\n   type: Int64\n", []string{"bad.yaml: line "}},
		{"yaml unclosed flow", "bad.yaml", "schema: S\ncolumns: [\n  {name: a\n", []string{"bad.yaml", "line"}},
		{"yaml tab", "bad.yaml", "schema: S\ncolumns:\n\t- name: a\n", []string{"bad.yaml", "line 3", "indented with a tab; YAML indents with spaces only"}},
		{"json syntax", "bad.json", "{\n  \"schema\": \"S\",\n  \"columns\": [1,]\n}\n", []string{"bad.json:3:17:", "invalid JSON"}},
		{"json trailing garbage", "bad.json", "{\"schema\": \"S\"}\n}\n", []string{"bad.json:2:1:", "invalid JSON"}},
		{"json missing colon", "bad.json", "{\"schema\" \"S\"}", []string{"bad.json:1:11:", "invalid JSON"}},
		{"json truncated", "bad.json", "{\"schema\": \"S\",\n", []string{"bad.json", "invalid JSON"}},
		{"empty yaml", "empty.yaml", "", []string{"empty.yaml", "file is empty"}},
		{"blank yaml", "empty.yaml", "\n  \n", []string{"empty.yaml", "file is empty"}},
		{"comments only", "empty.yaml", "# nothing here\n", []string{"empty.yaml", "file is empty"}},
		{"empty json", "empty.json", "", []string{"empty.json", "file is empty"}},
		{"blank json", "empty.json", " \n", []string{"empty.json", "file is empty"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := schema.Parse([]byte(tc.text), tc.file)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			// The same through LoadFile.
			dir := writeFiles(t, map[string]string{tc.file: tc.text})
			if _, err := schema.LoadFile(filepath.Join(dir, tc.file)); err == nil || !strings.Contains(err.Error(), tc.file) {
				t.Errorf("LoadFile: %v", err)
			}
		})
	}
	if _, err := schema.LoadFile(filepath.Join(t.TempDir(), "none.yaml")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestLoadSeverityErrors(t *testing.T) {
	col := func(extra string) string {
		return "schema: Misspelled\ncolumns:\n  - name: amount\n    type: Float64\n    min: 0\n" + extra
	}
	cases := []struct {
		name string
		text string
		want string // substring of one InvalidSeverityError
	}{
		{"unknown rule", col("    severity: {minimum: warn}\n"), "s.yaml:3: " + misspelled},
		{"bad value", col("    severity: fatal\n"), `is "fatal"`},
		{"bad mapping value", col("    severity: {min: WARN}\n"), `the value "WARN"`},
		{"list value", col("    severity: [warn]\n"), "is a list"},
		{"number value", col("    severity: 1\n"), "is 1"},
		{"list in a mapping", col("    severity: {min: [warn]}\n"), `the value "a list"`},
		{"inner_nullable", "schema: S\ncolumns:\n  - name: tags\n    type: List\n    inner: {type: String}\n    severity: {inner_nullable: warn}\n", "names 'inner_nullable'"},
		{"one value on a column without rules", "schema: S\ncolumns:\n  - {name: note, type: String, nullable: true, severity: warn}\n", "has no rules"},
		{"schema-level one value without rules", "schema: S\ncolumns:\n  - {name: a, type: Int64}\nseverity: warn\n", "no schema-level rules"},
		{"column rule at schema level", col("severity: {amount|min: warn}\n"), "Declare it on the column instead"},
		{"schema rule that does not exist", col("rules:\n  - {name: r, sql: amount > 1}\nseverity: {q: warn}\n"), "names 'q', which is not a schema-level rule"},
		{"schema-level bad value", col("rules:\n  - {name: r, sql: amount > 1}\nseverity: {r: maybe}\n"), `the value "maybe"`},
		{"schema-level not a value", col("rules:\n  - {name: r, sql: amount > 1}\nseverity: [r]\n"), "is a list"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := schema.Parse([]byte(tc.text), "s.yaml")
			var msgs []string
			for _, e := range severityErrs(t, err) {
				if strings.Contains(e.Error(), tc.want) {
					if !strings.HasPrefix(e.Error(), "s.yaml") {
						t.Errorf("no file in %q", e.Error())
					}
					return
				}
				msgs = append(msgs, e.Error())
			}
			t.Errorf("no severity error containing %q in %q", tc.want, msgs)
		})
	}
	ok := []string{
		col("    severity: {min: warn, nullable: error, allow_inf: warn, allow_nan: warn}\n"),
		col("    severity: warn\n"),
		"schema: S\ncolumns:\n  - name: e\n    type: String\n    check: [\"_ > 'a'\", \"_ < 'z'\"]\n    severity: {check: warn}\n",
		"schema: S\ncolumns:\n  - name: e\n    type: String\n    check: {lower: \"lower(_) = _\"}\n    severity: {check__lower: warn}\n",
		"schema: S\ncolumns:\n  - name: tags\n    type: List\n    inner: {type: String}\n    severity: {inner_nullability: warn}\n",
		"schema: S\ncolumns:\n  - {name: id, type: Int64, primary_key: true}\nseverity: warn\n",
	}
	for _, text := range ok {
		mustParse(t, text, "ok.yaml")
	}
}

func TestLoadNames(t *testing.T) {
	_, err := schema.Parse([]byte("schema: S\ncolumns:\n  - {name: id, type: Int64}\n  - {name: order id, type: Int64}\n"), "s.yaml")
	var ne *schema.InvalidColumnNameError
	if !errors.As(err, &ne) || ne.Column != "order id" || ne.Pos.Line != 4 || !strings.HasPrefix(ne.Error(), "s.yaml:4: S: ") {
		t.Errorf("InvalidColumnNameError = %v", err)
	}
	_, err = schema.Parse([]byte("schema: S\ncolumns:\n  - {name: a, type: Int64, min: 0}\nrules:\n  - {name: a__min, sql: a >= 0}\n"), "s.yaml")
	if d := declErr(t, err, "", "rules"); !strings.Contains(d.Error(), "dy_rule__a__min") {
		t.Errorf("collision: %v", d)
	}
}

// secretKey is a file that is not a schema: no message may quote more than its first line.
const secretKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDxSECRETxSECRETxSECRETxSECRETxSECRETxSECRETAAAAJgAAAAAAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"

const secretMarker = "SECRET"

func TestExtendsStaysUnderRoot(t *testing.T) {
	outside := writeFiles(t, map[string]string{"base.yaml": extBase, "id_ed25519": secretKey})
	dir := writeFiles(t, map[string]string{"base.yaml": extBase, "key.pem": secretKey})
	if err := os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "sub", "deeper", "base.yaml"), []byte(extBase), 0o644))
	must(os.Symlink(filepath.Join(outside, "base.yaml"), filepath.Join(dir, "link_out.yaml")))
	must(os.Symlink(filepath.Join(dir, "base.yaml"), filepath.Join(dir, "link_in.yaml")))
	must(os.Symlink(outside, filepath.Join(dir, "sub", "out")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644))
	big := strings.Repeat("# padding\n", (schema.MaxFileSize/10)+1)
	must(os.WriteFile(filepath.Join(dir, "big.yaml"), []byte(extBase+big), 0o644))

	cases := []struct {
		name    string
		extends string
		root    string // WithRoot, "" for the default
		want    string // "" when the parent loads; else a part of the extends error
	}{
		{"a file beside the schema", "base.yaml", "", ""},
		{"a file in a subfolder", "sub/deeper/base.yaml", "", ""},
		{"a symbolic link inside the folder", "link_in.yaml", "", ""},
		{"up and back in", "sub/../base.yaml", "", ""},
		{"an absolute path inside", filepath.Join(dir, "base.yaml"), "", ""},
		{"an absolute path outside", filepath.Join(outside, "base.yaml"), "", "is outside"},
		{"dot-dot out of the folder", "../" + filepath.Base(outside) + "/base.yaml", "", "is outside"},
		{"a symbolic link that leaves", "link_out.yaml", "", "is outside"},
		{"a folder link that leaves", "sub/out/base.yaml", "", "is outside"},
		{"a private key outside", filepath.Join(outside, "id_ed25519"), "", "is outside"},
		{"a wider root allows it", "../" + filepath.Base(outside) + "/base.yaml", filepath.Dir(dir), ""},
		{"a private key inside", "key.pem", "", "a mapping"},
		{"a named pipe", "fifo.yaml", "", "not a regular file"},
		{"a device", "/dev/zero", "/", "not a regular file"},
		{"a file over the size limit", "big.yaml", "", "at most 4 MiB"},
		{"a folder", "sub", "", "not a regular file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := "schema: Child\nextends: " + tc.extends + "\n"
			must(os.WriteFile(filepath.Join(dir, "child.yaml"), []byte(text), 0o644))
			var opts []schema.LoadOption
			if tc.root != "" {
				opts = append(opts, schema.WithRoot(tc.root))
			}
			done := make(chan struct{})
			var s *schema.Schema
			var err error
			go func() {
				defer close(done)
				s, err = schema.LoadFile(filepath.Join(dir, "child.yaml"), opts...)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("LoadFile still reading after 5 s")
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("want the parent loaded, got %v", err)
				}
				if got := columnNames(s); got != "id,amount,note" {
					t.Errorf("columns = %s", got)
				}
				return
			}
			if err == nil {
				t.Fatal("want an error, got none")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secretMarker) || strings.Contains(err.Error(), "b3BlbnNzaC1rZXkt") {
				t.Errorf("the error quotes the file's content: %v", err)
			}
		})
	}
}

// TestLoadQuotesOnlyExcerpts: whatever file is loaded, its messages quote at most a short
// excerpt of it, and only regular files of bounded size are read.
func TestLoadQuotesOnlyExcerpts(t *testing.T) {
	// YAML keys are at most 1024 characters.
	long := strings.Repeat("x", 1000) + secretMarker
	dir := writeFiles(t, map[string]string{
		"key.yaml":      secretKey,
		"key.json":      secretKey,
		"longkey.yaml":  "schema: S\n" + long + ": 1\n",
		"longtype.yaml": "schema: S\ncolumns:\n  - {name: a, type: " + long + "}\n",
		"syntax.yaml":   "schema: S\ncolumns: [" + long + "\n",
		"huge.yaml":     "schema: S\n" + strings.Repeat("#", schema.MaxFileSize) + "\n",
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ file, want string }{
		{"key.yaml", "a mapping"},
		{"key.json", "invalid JSON"},
		{"longkey.yaml", "unknown key"},
		{"longtype.yaml", "unknown type"},
		{"syntax.yaml", "line"},
		{"huge.yaml", "at most 4 MiB"},
		{"fifo.yaml", "not a regular file"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			_, err := schema.LoadFile(filepath.Join(dir, tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error saying %q, got %v", tc.want, err)
			}
			msg := err.Error()
			if strings.Contains(msg, secretMarker) || strings.Contains(msg, "b3BlbnNzaC1rZXkt") || len(msg) > 1000 {
				t.Errorf("the error quotes more than an excerpt (%d bytes): %.300s", len(msg), msg)
			}
		})
	}
}

func TestLoadFileContextCancelled(t *testing.T) {
	dir := writeFiles(t, map[string]string{"base.yaml": extBase})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := schema.LoadFileContext(ctx, filepath.Join(dir, "base.yaml")); !errors.Is(err, context.Canceled) {
		t.Errorf("want context.Canceled, got %v", err)
	}
}

func TestSparkForms(t *testing.T) {
	text := `schema: S
columns:
  - name: a
    type: String
    check: {sql: "lower(_) = _", spark: "lower(_) = _"}
  - name: b
    type: Int64
    check:
      small: {sql: "_ < 10", spark: "_ < 10L"}
      plain: "_ > 0"
  - name: c
    type: Int64
    check: [{sql: "_ <> 3", spark: "_ != 3"}]
rules:
  - name: r
    sql: a <> 'x'
    spark: a != 'x'
`
	s := mustParse(t, text, "s.yaml")
	want := map[string][]schema.Check{
		"a": {{SQL: "lower(_) = _", Spark: "lower(_) = _"}},
		"b": {{Name: "small", SQL: "_ < 10", Spark: "_ < 10L"}, {Name: "plain", SQL: "_ > 0"}},
		"c": {{SQL: "_ <> 3", Spark: "_ != 3"}},
	}
	for col, checks := range want {
		if got := s.Column(col).Args.Checks; !reflect.DeepEqual(got, checks) {
			t.Errorf("%s: checks %+v, want %+v", col, got, checks)
		}
	}
	if got := strings.Join(s.Column("a").RuleNames(), ","); got != "nullability,check" {
		t.Errorf("a's rules = %s: {sql, spark} is one check", got)
	}
	if r := s.Rules[0]; r.SQL != "a <> 'x'" || r.Spark != "a != 'x'" {
		t.Errorf("rule = %+v", r)
	}
	_, err := schema.Parse([]byte("schema: S\ncolumns:\n  - name: a\n    type: Int64\n    check: [{sql: \"_ > 0\", spak: \"_ > 0\"}]\n"), "s.yaml")
	if err == nil || !strings.Contains(err.Error(), "unknown key 'spak'") {
		t.Errorf("a misspelt key: %v", err)
	}
}
