package odcs

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// ExportVersion is the version of the standard Export writes.
const ExportVersion = "v3.2.0"

// Engine is the engine name of tablegate's own custom quality entries.
const Engine = "tablegate"

// customType and customInput are the custom properties export writes where ODCS has no key: the
// dtype of a column whose dtype is a family (Integer, Float, Decimal of any precision, Any), and
// the data a relationship's target object is read from.
const (
	customType  = "tablegateType"
	customInput = "tablegateInput"
	// customLengths says how a property's minLength/maxLength compile (chars or bytes), as
	// ImportOptions.Lengths does for the whole contract.
	customLengths = "tablegateLengths"
)

// ExportOptions fill the contract's own keys.
type ExportOptions struct {
	// ID is the contract's id; "" keeps the id of the contract the schema was imported from,
	// else makes one of the schema's name.
	ID string
	// Version is the contract's version; "" keeps the imported contract's, else 1.0.0.
	Version string
	// Status is the contract's status; "" is active.
	Status string
	// Folder is where the contract is written: a relative reference input (relative to the
	// schema file's folder) is rewritten relative to it. "" keeps inputs as the schema has them.
	Folder string
}

// Export writes a schema as an ODCS v3.2 contract with one schema object; a schema imported from
// a contract keeps its id, name, version, object name and quality ids. What ODCS says with the
// same meaning as tablegate is written in ODCS's own keys (physicalType, required, unique,
// primaryKey, logicalTypeOptions, enum, library and sql quality entries, relationships); every
// other rule is a quality entry of type custom with engine tablegate, so that Import reads back a
// schema that compiles to the same plan. The schema is compiled first: a schema that does not
// compile is not exported (the error is compile's).
func Export(ctx context.Context, s *schema.Schema, opts ExportOptions) (*Contract, error) {
	plan, err := compile.CompileContext(ctx, s)
	if err != nil {
		return nil, err
	}
	s = plan.Schema()
	ex := &exporter{s: s, folder: opts.Folder, severity: map[string]schema.Severity{}, objects: map[string]string{}}
	for _, r := range plan.Rules {
		ex.severity[r.Name] = r.Severity
	}
	// A schema imported from a contract keeps the contract's identity and object name.
	from := s.Contract
	if from == nil {
		from = &schema.Contract{}
	}
	c := &Contract{
		APIVersion: ExportVersion,
		Kind:       "DataContract",
		ID:         firstNonEmpty(opts.ID, from.ID, stableID(s.Name)),
		Name:       firstNonEmpty(from.Name, s.Name),
		Version:    firstNonEmpty(opts.Version, from.Version, "1.0.0"),
		Status:     firstNonEmpty(opts.Status, "active"),
	}
	obj := &Object{Name: firstNonEmpty(from.Object, s.Name), PhysicalType: "table", Description: s.Description}
	ex.quality = map[string]schema.ContractQuality{}
	ex.ruleQuality = map[string]schema.ContractQuality{}
	for _, q := range from.Quality {
		if q.Table {
			ex.quality[q.Rule] = q
		} else {
			ex.ruleQuality[q.Rule] = q
		}
	}
	ex.obj = obj
	position := 0
	for _, col := range s.Columns {
		p := ex.property(col)
		if col.Args.PrimaryKey {
			position++
			p.PrimaryKey = true
			p.PrimaryKeyPosition = new(int)
			*p.PrimaryKeyPosition = position
		}
		obj.Properties = append(obj.Properties, p)
	}
	if position > 0 && ex.severity[schema.RulePrimaryKey] == schema.Warn {
		obj.Quality = append(obj.Quality, custom(schema.RulePrimaryKey, "", schema.Warn,
			map[string]any{"severity": map[string]any{schema.RulePrimaryKey: string(schema.Warn)}}))
	}
	// Import reads an object's quality entries, then its relationships: a reference followed by
	// another rule is a tablegate entry in its place, so that the rules keep their order.
	native := len(s.Rules)
	for native > 0 && s.Rules[native-1].References != nil {
		native--
	}
	for i, r := range s.Rules {
		ex.rule(r, i >= native)
	}
	// A table check in ODCS's library form goes to its property when that keeps the order the
	// import reads them in (properties, then the object).
	lastColumn := 0
	for _, t := range s.TableChecks {
		q, col := ex.libraryCheck(t)
		if q != nil && col >= 0 && col >= lastColumn {
			lastColumn = col
			obj.Properties[col].Quality = append(obj.Properties[col].Quality, q)
			continue
		}
		lastColumn = len(s.Columns)
		if q != nil && col < 0 {
			obj.Quality = append(obj.Quality, q)
			continue
		}
		ex.tableCheck(t)
	}
	c.Schema = []*Object{obj}
	return c, nil
}

type exporter struct {
	s      *schema.Schema
	folder string
	obj    *Object
	// severity is each rule's resolved severity, by its plan name (amount|min, primary_key).
	severity map[string]schema.Severity
	// objects names the reference inputs as relationship targets: object name → input.
	objects map[string]string
	// inner collects the severities of the nested rules of the column being written.
	inner map[string]any
	// quality are the ids and names of the contract's quality entries, by table check.
	quality map[string]schema.ContractQuality
	// ruleQuality are the same of the schema rules, by rule name.
	ruleQuality map[string]schema.ContractQuality
}

// property writes a table column.
func (ex *exporter) property(c *schema.Column) *Property {
	ex.inner = map[string]any{}
	p := ex.prop(c, c.Name+"|", true)
	if len(ex.inner) > 0 {
		// ODCS has no severity for a nested property's rules: they are the column's, by name.
		p.Quality = append(p.Quality, custom("severity", "", schema.Error, map[string]any{"severity": ex.inner}))
	}
	return p
}

// prop writes a column, a struct's field or a list's element: rule is the prefix of its rules'
// names (amount|, tags|inner_), top whether it is a table column.
func (ex *exporter) prop(c *schema.Column, rule string, top bool) *Property {
	a := &c.Args
	p := &Property{Name: c.Name, Description: a.Description}
	d := c.DType
	k := d.Kind
	sev := func(kind string) schema.Severity {
		s := ex.severity[rule+kind]
		if !top && s == schema.Warn {
			_, relative, _ := strings.Cut(rule+kind, "|")
			ex.inner[relative] = string(s)
			return schema.Error
		}
		return s
	}
	ex.dtype(p, c, rule, top)
	// Native keys: their meaning is tablegate's for these rules at severity error.
	// A rule that came from a contract's quality entry is that entry again, with its id.
	entry := func(kind, metric string) *Quality {
		q := &Quality{Metric: metric, MustBe: NumberValue("0")}
		if cq, ok := ex.ruleQuality[rule+kind]; ok && top {
			q.ID, q.Name = cq.ID, cq.Name
		}
		if sev(kind) == schema.Warn {
			q.Severity = "warning"
		}
		return q
	}
	identified := func(kind string) bool {
		cq, ok := ex.ruleQuality[rule+kind]
		return ok && top && (cq.ID != "" || cq.Name != "")
	}
	if !a.Nullable && k != schema.KindAny {
		if sev(schema.RuleNullability) == schema.Warn || identified(schema.RuleNullability) && !a.PrimaryKey {
			p.Quality = append(p.Quality, entry(schema.RuleNullability, "nullValues"))
		} else {
			p.Required = true
		}
	}
	if a.Unique {
		// ODCS's unique (as SQL's UNIQUE) lets NULLs repeat; tablegate's takes two NULLs for
		// duplicates. They agree on a column without NULLs.
		switch {
		case a.Nullable && top:
			p.Quality = append(p.Quality, custom(schema.RuleUnique, "", sev(schema.RuleUnique), map[string]any{"unique": true}))
		case sev(schema.RuleUnique) == schema.Warn || identified(schema.RuleUnique):
			p.Quality = append(p.Quality, entry(schema.RuleUnique, "duplicateValues"))
		default:
			p.Unique = true
		}
	}
	opts := &LogicalTypeOptions{}
	chars := 0
	if k == schema.KindString {
		chars = ex.charLengths(p, a, sev, opts)
	}
	for i, ch := range a.Checks {
		if i < chars {
			continue
		}
		name := schema.CheckRuleName(a.Checks, i)
		s := sev(name)
		// A check with a Spark SQL form is tablegate's {sql, spark} pair.
		var forms any = ch.SQL
		if ch.Spark != "" {
			forms = map[string]any{"sql": ch.SQL, "spark": ch.Spark}
		}
		switch short := strings.TrimPrefix(name, "check__"); {
		case ch.Name == "" && len(a.Checks) == 1:
			p.Quality = append(p.Quality, custom(name, "", s, map[string]any{"check": forms}))
		case ch.Spark != "":
			p.Quality = append(p.Quality, custom(short, "", s, map[string]any{"check": map[string]any{short: forms}}))
		default:
			p.Quality = append(p.Quality, custom(short, ch.SQL, s, nil))
		}
	}
	bound := func(kind string, v *schema.Value, set **Value) {
		if v == nil || !k.IsOrdinal() {
			return
		}
		native := sev(kind) == schema.Error
		switch {
		case k.IsInteger() || k.IsFloat() || k == schema.KindDecimal:
			native = native && portableNumber.MatchString(v.Text)
			if native {
				*set = NumberValue(v.Text)
			}
		case k == schema.KindDate || k == schema.KindDatetime || k == schema.KindTime:
			if native {
				*set = StringValue(v.Text)
			}
		default:
			native = false
		}
		if !native {
			p.Quality = append(p.Quality, custom(kind, "", sev(kind), map[string]any{kind: v.Text}))
		}
	}
	bound(schema.RuleMin, a.Min, &opts.Minimum)
	bound(schema.RuleMinExclusive, a.MinExclusive, &opts.ExclusiveMinimum)
	bound(schema.RuleMax, a.Max, &opts.Maximum)
	bound(schema.RuleMaxExclusive, a.MaxExclusive, &opts.ExclusiveMaximum)
	switch {
	case k.IsFloat():
		for _, f := range []struct {
			rule, key string
			allow     bool
		}{{schema.RuleInf, "allow_inf", a.AllowInf}, {schema.RuleNaN, "allow_nan", a.AllowNaN}} {
			// ODCS's number has neither inf nor NaN: tablegate's defaults (refused) go unsaid at
			// severity error, the rest is tablegate's own.
			if f.allow || sev(f.rule) == schema.Warn {
				p.Quality = append(p.Quality, custom(f.rule, "", sev(f.rule), map[string]any{f.key: f.allow}))
			}
		}
	case k == schema.KindString:
		nativeRegex := a.Regex != nil && sev(schema.RuleRegex) == schema.Error && regexReadsTheSame(*a.Regex)
		if nativeRegex {
			opts.Pattern = StringValue(*a.Regex)
		} else if a.Regex != nil {
			p.Quality = append(p.Quality, custom(schema.RuleRegex, "", sev(schema.RuleRegex), map[string]any{"regex": *a.Regex}))
		}
		// ODCS counts characters, tablegate UTF-8 bytes: they agree when the pattern admits ASCII only.
		ascii := nativeRegex && asciiOnly(*a.Regex)
		length := func(kind string, n *int64, set **Value) {
			if n == nil {
				return
			}
			if ascii && sev(kind) == schema.Error {
				*set = NumberValue(strconv.FormatInt(*n, 10))
				return
			}
			p.Quality = append(p.Quality, custom(kind, "", sev(kind), map[string]any{kind: *n}))
		}
		length(schema.RuleMinLength, a.MinLength, &opts.MinLength)
		length(schema.RuleMaxLength, a.MaxLength, &opts.MaxLength)
		ex.isIn(p, c, sev(schema.RuleIsIn))
	case k.IsInteger():
		ex.isIn(p, c, sev(schema.RuleIsIn))
	case k == schema.KindList:
		items := func(kind string, n *int64, set **Value) {
			if n == nil {
				return
			}
			if sev(kind) == schema.Error {
				*set = NumberValue(strconv.FormatInt(*n, 10))
				return
			}
			p.Quality = append(p.Quality, custom(kind, "", sev(kind), map[string]any{kind: *n}))
		}
		items(schema.RuleMinLength, a.MinLength, &opts.MinItems)
		items(schema.RuleMaxLength, a.MaxLength, &opts.MaxItems)
	}
	if a.Resolution != "" {
		p.Quality = append(p.Quality, custom(schema.RuleResolution, "", sev(schema.RuleResolution), map[string]any{"resolution": a.Resolution}))
	}
	if a.References != nil && top {
		ex.columnReference(p, c, sev(schema.RuleReferences))
	}
	p.LogicalTypeOptions = mergeOptions(p.LogicalTypeOptions, opts)
	return p
}

// charLengths writes the character-length checks the import's --lengths chars makes (min_chars,
// max_chars, first among the column's checks) as minLength and maxLength, which count
// characters; the custom property tablegateLengths tells the import to read them so. It returns
// how many checks it wrote.
func (ex *exporter) charLengths(p *Property, a *schema.Args, sev func(string) schema.Severity, opts *LogicalTypeOptions) int {
	if a.MinLength != nil || a.MaxLength != nil {
		return 0
	}
	n := 0
	for _, l := range []struct {
		name, op string
		set      **Value
	}{{"min_chars", ">=", &opts.MinLength}, {"max_chars", "<=", &opts.MaxLength}} {
		if n >= len(a.Checks) {
			break
		}
		ch := a.Checks[n]
		m := charCheck.FindStringSubmatch(ch.SQL)
		if ch.Name != l.name || ch.Spark != "" || m == nil || m[1] != l.op || sev(schema.CheckRuleName(a.Checks, n)) != schema.Error {
			continue
		}
		*l.set = NumberValue(m[2])
		n++
	}
	if n > 0 {
		p.CustomProperties = append(p.CustomProperties, &CustomProperty{Property: customLengths, Value: string(LengthsChars)})
	}
	return n
}

// charCheck is a character-length check as the import writes it.
var charCheck = regexp.MustCompile(`^length\(_\) (<=|>=) (0|[1-9][0-9]*)$`)

// isIn writes is_in as enum (v3.2) where the values are distinct, else as tablegate's own.
func (ex *exporter) isIn(p *Property, c *schema.Column, sev schema.Severity) {
	a := &c.Args
	if !a.HasIsIn {
		return
	}
	seen := map[string]bool{}
	native := len(a.IsIn) > 0 && sev == schema.Error
	values := make([]any, len(a.IsIn))
	for i, v := range a.IsIn {
		native = native && !seen[v.Text]
		seen[v.Text] = true
		values[i] = v.Text
		if c.DType.Kind.IsInteger() && !portableNumber.MatchString(v.Text) {
			native = false
		}
	}
	if !native {
		p.Quality = append(p.Quality, custom(schema.RuleIsIn, "", sev, map[string]any{"is_in": values}))
		return
	}
	for _, v := range a.IsIn {
		value := StringValue(v.Text)
		if c.DType.Kind.IsInteger() {
			value = NumberValue(v.Text)
		}
		p.Enum = append(p.Enum, &EnumValue{Value: *value})
	}
}

// mergeOptions adds b's options to a's (the dtype's own, such as timezone); nil when neither
// has any.
func mergeOptions(a, b *LogicalTypeOptions) *LogicalTypeOptions {
	if a == nil {
		a = &LogicalTypeOptions{}
	}
	empty := a.Format == nil && a.Timezone == nil
	for _, f := range []struct{ dst, src **Value }{
		{&a.MinLength, &b.MinLength}, {&a.MaxLength, &b.MaxLength}, {&a.Pattern, &b.Pattern},
		{&a.Minimum, &b.Minimum}, {&a.Maximum, &b.Maximum}, {&a.ExclusiveMinimum, &b.ExclusiveMinimum},
		{&a.ExclusiveMaximum, &b.ExclusiveMaximum}, {&a.MinItems, &b.MinItems}, {&a.MaxItems, &b.MaxItems},
	} {
		if *f.src != nil {
			*f.dst, empty = *f.src, false
		}
	}
	if empty {
		return nil
	}
	return a
}

// portableNumber is a number every YAML reader reads as the same number: YAML 1.1 (PyYAML, so
// most Python tools) reads 1e3 as a string and 010 as octal. Other spellings keep their exact
// text in a tablegate entry.
var portableNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)

// intFormat is the ODCS integer format of each integer dtype.
var intFormat = map[schema.Kind]string{
	schema.KindInt8: "i8", schema.KindInt16: "i16", schema.KindInt32: "i32", schema.KindInt64: "i64",
	schema.KindUInt8: "u8", schema.KindUInt16: "u16", schema.KindUInt32: "u32", schema.KindUInt64: "u64",
}

// logicalTypes are the logical types of the dtypes with a physicalType. JSON has no bytes or
// durations: JSON Schema writes them as strings of a format (stringFormats).
var logicalTypes = map[schema.Kind]string{
	schema.KindBool: "boolean", schema.KindFloat32: "number", schema.KindFloat64: "number", schema.KindDecimal: "number",
	schema.KindString: "string", schema.KindEnum: "string", schema.KindBinary: "string", schema.KindDuration: "string",
	schema.KindDate: "date", schema.KindTime: "time", schema.KindDatetime: "timestamp", schema.KindArray: "array",
}

// dtype writes the column's type: physicalType (DuckDB's type name) with the logicalType that
// goes with it; a family (Integer, Float, Decimal of any precision, Any) and a multi-dimensional
// Array, which no physical type names exactly, also as the custom property tablegateType; List
// and Struct through items and properties.
func (ex *exporter) dtype(p *Property, c *schema.Column, rule string, top bool) {
	d := c.DType
	k := d.Kind
	family := func(logical string) {
		p.LogicalType = logical
		p.CustomProperties = append(p.CustomProperties, &CustomProperty{Property: customType, Value: d.String()})
	}
	switch {
	case k == schema.KindInteger:
		family("integer")
	case k == schema.KindFloat || k == schema.KindDecimal && d.Precision == 0:
		family("number")
	case k == schema.KindAny:
		// Any value at all; ODCS's 3.2 schema wants a logicalType, and a variant is an object.
		family("object")
	case k == schema.KindList:
		p.LogicalType = "array"
	case k == schema.KindStruct:
		p.LogicalType = "object"
		for _, f := range d.Fields {
			p.Properties = append(p.Properties, ex.prop(f, rule+"inner_"+f.Name+"_", false))
		}
	case k.IsInteger():
		p.PhysicalType, p.LogicalType = d.DuckDBType(), "integer"
		p.LogicalTypeOptions = &LogicalTypeOptions{Format: StringValue(intFormat[k])}
	default:
		p.PhysicalType, p.LogicalType = d.DuckDBType(), logicalTypes[k]
		switch {
		case k == schema.KindDatetime && d.TimeZone != "":
			p.LogicalTypeOptions = &LogicalTypeOptions{Timezone: BoolValue(true), DefaultTimezone: StringValue(d.TimeZone)}
		case stringFormats[k] != "":
			p.LogicalTypeOptions = &LogicalTypeOptions{Format: StringValue(stringFormats[k])}
		case k == schema.KindArray && len(d.Shape) > 1:
			// Its elements are sub-arrays, which the physicalType (an array of arrays) does not say.
			family("array")
		}
	}
	if k == schema.KindList || k == schema.KindArray {
		p.Items = ex.prop(d.Inner, rule+"inner_", false)
		p.Items.Name = ""
	}
	if c.Args.PrimaryKey && !top {
		// A list element's key (the list's own primary_key rule), which ODCS cannot say of an item.
		p.Quality = append(p.Quality, custom(schema.RulePrimaryKey, "", schema.Error, map[string]any{"primary_key": true}))
	}
}

// regexReadsTheSame reports whether an RE2 pattern, written as an ODCS (ECMA-262) pattern, is
// read back as the same RE2 pattern.
func regexReadsTheSame(re string) bool {
	back, err := patternToRE2(re)
	return err == nil && back == re
}

// custom is a tablegate quality entry: implementation is SQL (a check, a row rule) or tablegate's
// own keys.
func custom(name, sqlText string, sev schema.Severity, keys map[string]any) *Quality {
	q := &Quality{Name: name, Type: "custom", Engine: Engine, Implementation: sqlText}
	if keys != nil {
		q.Implementation = keys
	}
	if sev == schema.Warn {
		q.Severity = "warning"
	}
	return q
}

// rule writes a schema-level rule: a row rule as a custom entry with its SQL, a group rule with
// its keys, a reference as a relationship where that keeps the rule order (nativeReference).
func (ex *exporter) rule(r *schema.Rule, nativeReference bool) {
	sev := ex.severity[r.Name]
	switch {
	case r.References != nil && nativeReference && ex.schemaReference(r):
	case r.References != nil:
		ref := map[string]any{"columns": r.References.Columns, "input": ex.input(r.References), "to": r.References.To}
		q := custom(r.Name, "", sev, map[string]any{"references": ref})
		q.Description = r.Description
		ex.obj.Quality = append(ex.obj.Quality, q)
	case ex.duplicateKey(r, sev):
	case len(r.GroupBy) > 0 || r.Spark != "":
		keys := map[string]any{"sql": r.SQL}
		if len(r.GroupBy) > 0 {
			keys["group_by"] = append([]string(nil), r.GroupBy...)
		}
		if r.Spark != "" {
			keys["spark"] = r.Spark
		}
		q := custom(r.Name, "", sev, keys)
		q.Description = r.Description
		ex.obj.Quality = append(ex.obj.Quality, q)
	default:
		q := custom(r.Name, r.SQL, sev, nil)
		q.Description = r.Description
		ex.obj.Quality = append(ex.obj.Quality, q)
	}
}

// clauseWord finds what makes a metric read back differently from `SELECT <metric> FROM {object}`.
var clauseWord = regexp.MustCompile(`(?i)\b(SELECT|FROM|JOIN|GROUP\s+BY|HAVING|UNION|INTERSECT|EXCEPT|LIMIT|ORDER\s+BY|OVER|QUALIFY|WINDOW|WHERE)\b`)

// tableCheck writes a table check: a metric with bounds as an ODCS sql entry, the rest (a
// condition, an anomaly band) as tablegate's own.
func (ex *exporter) tableCheck(t *schema.TableCheck) {
	var q *Quality
	if t.Metric != "" && t.Band == nil && (t.MinValue != nil || t.MaxValue != nil) && finite(t.MinValue) && finite(t.MaxValue) &&
		!clauseWord.MatchString(t.Metric) {
		q = &Quality{Name: t.Name, Type: "sql", Query: "SELECT " + t.Metric + " FROM {object}"}
		bounds(q, t)
	} else {
		keys := map[string]any{"table_check": true}
		if t.SQL != "" {
			keys["sql"] = t.SQL
		} else {
			keys["metric"] = t.Metric
		}
		if t.MinValue != nil {
			keys["min"] = num(*t.MinValue)
		}
		if t.MaxValue != nil {
			keys["max"] = num(*t.MaxValue)
		}
		if b := t.Band; b != nil {
			band := map[string]any{}
			if b.Lookback != 0 {
				band["lookback"] = b.Lookback
			}
			if b.MinHistory != 0 {
				band["min_history"] = b.MinHistory
			}
			if b.Threshold != 0 {
				band["threshold"] = b.Threshold
			}
			if b.Direction != "" {
				band["direction"] = b.Direction
			}
			keys["anomaly"] = band
		}
		q = custom(t.Name, "", t.Severity(), keys)
	}
	q.Description = t.Description
	if cq, ok := ex.quality[t.Name]; ok && q.Type == "custom" {
		q.ID = cq.ID // a custom entry is named by its name
	} else {
		ex.identify(q, t.Name)
	}
	ex.obj.Quality = append(ex.obj.Quality, q)
}

// identify gives a table check's entry the id and name of the contract entry it came from.
func (ex *exporter) identify(q *Quality, check string) {
	if cq, ok := ex.quality[check]; ok {
		q.ID, q.Name = cq.ID, cq.Name
		if q.ID == "" && q.Name == "" {
			q.Name = check
		}
	}
}

// duplicateKey writes a group rule of the form an object's duplicateValues mustBe 0 imports as
// in that form.
func (ex *exporter) duplicateKey(r *schema.Rule, sev schema.Severity) bool {
	if r.Spark != "" || len(r.GroupBy) == 0 {
		return false
	}
	var nulls []string
	for _, c := range r.GroupBy {
		nulls = append(nulls, sql.Ident(c)+" IS NULL")
	}
	if r.SQL != strings.Join(nulls, " OR ")+" OR count(*) = 1" ||
		r.Description != "no two rows have the same "+strings.Join(r.GroupBy, ", ")+" (a key with a NULL passes)" {
		return false
	}
	props := make([]any, len(r.GroupBy))
	for i, c := range r.GroupBy {
		props[i] = c
	}
	q := &Quality{Name: r.Name, Metric: "duplicateValues", Arguments: map[string]any{"properties": props}, MustBe: NumberValue("0")}
	if cq, ok := ex.ruleQuality[r.Name]; ok && (cq.ID != "" || cq.Name != "") {
		q.ID, q.Name = cq.ID, cq.Name
	}
	if sev == schema.Warn {
		q.Severity = "warning"
	}
	ex.obj.Quality = append(ex.obj.Quality, q)
	return true
}

// num is a number in plain digits (YAML writes a float64 of 1000000 as 1e+06).
func num(v float64) *Value { return NumberValue(strconv.FormatFloat(v, 'f', -1, 64)) }

func finite(v *float64) bool { return v == nil || !math.IsInf(*v, 0) }

// bounds writes a table check's inclusive bounds as the operator that says them, and its
// severity.
func bounds(q *Quality, t *schema.TableCheck) {
	switch lo, hi := t.MinValue, t.MaxValue; {
	case lo != nil && hi != nil && *lo == *hi:
		q.MustBe = num(*lo)
	case lo != nil && hi != nil:
		q.MustBeBetween = []Value{*num(*lo), *num(*hi)}
	case lo != nil:
		q.MustBeGreaterOrEqualTo = num(*lo)
	default:
		q.MustBeLessOrEqualTo = num(*hi)
	}
	if t.Severity() == schema.Warn {
		q.Severity = "warning"
	}
}

// conditionRE is an operator condition the import writes for a metric: (<metric>) < n.
var conditionRE = regexp.MustCompile(`^\((.+)\) (<|>|<>|NOT BETWEEN) (-?[0-9]+(?:\.[0-9]+)?)(?: AND (-?[0-9]+(?:\.[0-9]+)?))?$`)

// condition is an operator and its numbers.
type condition struct{ op, a, b string }

// libraryCheck writes a table check with the metric an ODCS library metric compiles to (as the
// import writes it) in that form: col is the property's index, -1 for an object's metric.
func (ex *exporter) libraryCheck(t *schema.TableCheck) (*Quality, int) {
	metric, cond := t.Metric, condition{}
	if t.SQL != "" && t.Band == nil {
		// A condition the import wrote for an exclusive operator: (<metric>) < n.
		m := conditionRE.FindStringSubmatch(t.SQL)
		if m == nil || !balanced(m[1]) {
			return nil, 0
		}
		metric, cond = m[1], condition{op: strings.ToUpper(m[2]), a: m[3], b: m[4]}
	} else if t.Metric == "" || t.Band != nil || (t.MinValue == nil && t.MaxValue == nil) || !finite(t.MinValue) || !finite(t.MaxValue) {
		return nil, 0
	}
	q := &Quality{Name: t.Name, Description: t.Description}
	col := -1
	percent := func(m string) string { return fmt.Sprintf("coalesce(100.0 * (%s) / nullif(count(*), 0), 0)", m) }
	switch {
	case metric == "count(*)":
		q.Metric = "rowCount"
	default:
		for i, c := range ex.s.Columns {
			id := sql.Ident(c.Name)
			nulls := fmt.Sprintf("count(*) FILTER (WHERE %s IS NULL)", id)
			switch metric {
			case nulls:
				q.Metric = "nullValues"
			case fmt.Sprintf("coalesce(100.0 * count(*) FILTER (WHERE %s IS NULL) / nullif(count(*), 0), 0)", id):
				q.Metric, q.Unit = "nullValues", "percent"
			case duplicateKeys([]string{id}):
				q.Metric = "duplicateValues"
			case percent(duplicateKeys([]string{id})):
				q.Metric, q.Unit = "duplicateValues", "percent"
			default:
				continue
			}
			col = i
			break
		}
		if q.Metric == "" {
			return nil, 0
		}
	}
	switch cond.op {
	case "":
		bounds(q, t)
	case ">":
		q.MustBeGreaterThan = NumberValue(cond.a)
	case "<":
		q.MustBeLessThan = NumberValue(cond.a)
	case "<>":
		q.MustNotBe = NumberValue(cond.a)
	case "NOT BETWEEN":
		q.MustNotBeBetween = []Value{*NumberValue(cond.a), *NumberValue(cond.b)}
	}
	if t.Severity() == schema.Warn {
		q.Severity = "warning"
	}
	ex.identify(q, t.Name)
	return q, col
}

// shorthand is the name pattern of ODCS's table.column references.
var shorthand = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_\-]*$`)

// input is a reference's input as the contract has it: relative to the contract's folder.
func (ex *exporter) input(r *schema.Reference) string {
	if ex.folder == "" || filepath.IsAbs(r.Input) {
		return r.Input
	}
	from, errFrom := filepath.Abs(ex.folder)
	to, errTo := filepath.Abs(r.ResolveInput(ex.s.File))
	if errFrom != nil || errTo != nil {
		return r.Input
	}
	if rel, err := filepath.Rel(from, to); err == nil {
		return rel
	}
	return to
}

// target names the object a reference input is read as: the file's (or table's) name.
func (ex *exporter) target(input string) string {
	base := input
	if _, _, table, ok := schema.SplitTableAddress(input); ok {
		base = table
	} else {
		base = filepath.Base(input)
		for ext := filepath.Ext(base); ext != ""; ext = filepath.Ext(base) {
			base = strings.TrimSuffix(base, ext)
		}
	}
	name := sanitize(base)
	if !shorthand.MatchString(name) {
		name = "ref_" + name
	}
	for i := 2; ex.objects[name] != "" && ex.objects[name] != input; i++ {
		name = fmt.Sprintf("%s_%d", sanitize(base), i)
	}
	ex.objects[name] = input
	return name
}

// columnReference writes a column's reference: a relationship to the input's object, or
// tablegate's own where a relationship cannot say it (a warn severity, a column name outside
// ODCS's reference syntax).
func (ex *exporter) columnReference(p *Property, c *schema.Column, sev schema.Severity) {
	r := c.Args.References
	input := ex.input(r)
	if sev == schema.Error && shorthand.MatchString(r.Column) {
		p.Relationships = append(p.Relationships, &Relationship{
			To:               Refs{Names: []string{ex.target(input) + "." + r.Column}},
			CustomProperties: []*CustomProperty{{Property: customInput, Value: input}},
		})
		return
	}
	p.Quality = append(p.Quality, custom(schema.RuleReferences, "", sev,
		map[string]any{"references": map[string]any{"input": input, "column": r.Column}}))
}

// schemaReference writes a schema-level reference as a relationship, when its names fit ODCS's
// reference syntax and it is at severity error.
func (ex *exporter) schemaReference(r *schema.Rule) bool {
	ref := r.References
	names := append([]string{ex.s.Name}, ref.Columns...)
	for _, n := range append(names, ref.To...) {
		if !shorthand.MatchString(n) {
			return false
		}
	}
	if ex.severity[r.Name] != schema.Error {
		return false
	}
	input := ex.input(ref)
	object := ex.target(input)
	// A list, even of one: a scalar from is a column's reference, not a rule of its own.
	rel := &Relationship{ID: r.Name, From: Refs{List: true}, To: Refs{List: true},
		CustomProperties: []*CustomProperty{{Property: customInput, Value: input}}}
	for i := range ref.Columns {
		rel.From.Names = append(rel.From.Names, ex.s.Name+"."+ref.Columns[i])
		rel.To.Names = append(rel.To.Names, object+"."+ref.To[i])
	}
	ex.obj.Relationships = append(ex.obj.Relationships, rel)
	return true
}

// stableID makes an ODCS id (letters, digits, _ and -) of a name.
func stableID(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "contract"
	}
	return b.String()
}

// ExportedReferences lists the inputs the contract's relationships point to, by target object
// name, as Import's ImportOptions.References wants them.
func ExportedReferences(c *Contract) map[string]string {
	out := map[string]string{}
	add := func(rels []*Relationship) {
		for _, r := range rels {
			for _, cp := range r.CustomProperties {
				input, ok := cp.Value.(string)
				if cp.Property != customInput || !ok || len(r.To.Names) == 0 {
					continue
				}
				object, _, _ := strings.Cut(r.To.Names[0], ".")
				out[object] = input
			}
		}
	}
	for _, o := range c.Schema {
		add(o.Relationships)
		var walk func(ps []*Property)
		walk = func(ps []*Property) {
			for _, p := range ps {
				add(p.Relationships)
				walk(p.Properties)
			}
		}
		walk(o.Properties)
	}
	return out
}
