package odcs

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

var intFormats = map[string]schema.Kind{
	"i8": schema.KindInt8, "i16": schema.KindInt16, "i32": schema.KindInt32, "i64": schema.KindInt64,
	"u8": schema.KindUInt8, "u16": schema.KindUInt16, "u32": schema.KindUInt32, "u64": schema.KindUInt64,
}

// agree refuses a logicalType that contradicts the physicalType's dtype.
func (im *importer) agree(p *Property, d schema.DType) {
	k := d.Kind
	ok := true
	switch p.LogicalType {
	case "":
	case "string":
		ok = k == schema.KindString || k == schema.KindEnum || stringFormats[k] != "" && p.LogicalTypeOptions != nil &&
			p.LogicalTypeOptions.Format != nil && p.LogicalTypeOptions.Format.Text == stringFormats[k]
	case "integer":
		ok = k.IsInteger()
	case "number":
		ok = k.IsInteger() || k.IsFloat() || k == schema.KindDecimal
	case "boolean":
		ok = k == schema.KindBool
	case "date":
		// v3.0 had no timestamp or time logical types: its date is any temporal type.
		ok = k == schema.KindDate || strings.HasPrefix(im.c.APIVersion, "v3.0.") && (k == schema.KindDatetime || k == schema.KindTime)
	case "timestamp":
		ok = k == schema.KindDatetime
	case "time":
		ok = k == schema.KindTime
	case "array", "object":
		// A JSON column holds objects and arrays as text.
		ok = k == schema.KindStruct && p.LogicalType == "object" || k == schema.KindList && p.LogicalType == "array" ||
			k == schema.KindArray && p.LogicalType == "array" || strings.EqualFold(strings.TrimSpace(p.PhysicalType), "json")
	}
	if !ok {
		im.refuse(p.Pos("logicalType"), "", "logicalType %s disagrees with physicalType %s (%s)", p.LogicalType, p.PhysicalType, d)
	}
	if o := p.LogicalTypeOptions; o != nil && o.Format != nil && k.IsInteger() {
		if want, known := intFormats[o.Format.Text]; known && want != k {
			im.refuse(o.Pos("format"), "", "format %s disagrees with physicalType %s", o.Format.Text, p.PhysicalType)
		}
	}
}

// charLength compiles a character length of a string column (rule min_length or max_length).
func (col *column) charLength(rule string, n int64, p Pos, what string) {
	im := col.im
	lengths := im.opts.Lengths
	for _, cp := range col.p.CustomProperties {
		if v, ok := cp.Value.(string); ok && cp.Property == customLengths && (v == string(LengthsChars) || v == string(LengthsBytes)) {
			lengths = Lengths(v)
		}
	}
	switch {
	case col.untyped(p, what):
	case col.dtype.Kind != schema.KindString && col.dtype.Kind != 0:
		im.refuse(p, "", "%s applies to strings; the column is %s", what, col.dtype)
	case lengths == LengthsBytes:
		col.setLength(rule, n)
	case lengths == LengthsChars:
		op := ">="
		if rule == "max_length" {
			op = "<="
		}
		col.check(strings.TrimSuffix(rule, "_length")+"_chars", fmt.Sprintf("length(_) %s %d", op, n))
	case col.asciiPattern():
		// Every value the pattern accepts is ASCII: its characters are its bytes.
		col.setLength(rule, n)
	default:
		im.refuse(p, fmt.Sprintf("imported as %s %d UTF-8 bytes", rule, n),
			"%s counts characters, tablegate's %s counts UTF-8 bytes; give --lengths chars (a check on characters) or --lengths bytes (in a collection file, the member's lengths: chars or bytes), or a pattern that admits ASCII only", what, rule)
		if im.opts.AllowLossy {
			col.setLength(rule, n)
		}
	}
}

func (col *column) setLength(rule string, n int64) {
	for i, a := range col.args {
		if a.key == rule {
			// VARCHAR(n) and maxLength together: the tighter bound holds.
			old, _ := strconv.ParseInt(a.val.Value, 10, 64)
			if rule == "max_length" && n < old || rule == "min_length" && n > old {
				col.args[i].val = scalar(strconv.FormatInt(n, 10))
			}
			return
		}
	}
	col.args = append(col.args, kv{rule, scalar(strconv.FormatInt(n, 10))})
}

// untyped refuses, as not checked, what a column without a dtype cannot compile; only a lossy
// import leaves one.
func (col *column) untyped(p Pos, what string) bool {
	if !col.untypedByLoss {
		return false
	}
	if col.im.opts.AllowLossy {
		// Without it the refused type fails the import already; more problems would add nothing.
		col.im.refuse(p, "not checked", "the column has no dtype, so %s cannot be compiled", what)
	}
	return true
}

// asciiPattern reports whether the property's pattern admits ASCII values only.
func (col *column) asciiPattern() bool {
	o := col.p.LogicalTypeOptions
	if o == nil || o.Pattern == nil {
		return false
	}
	re, err := patternToRE2(o.Pattern.Text)
	return err == nil && asciiOnly(re)
}

// check adds a custom check (`_` is the value) under a unique name.
func (col *column) check(name, sqlText string) string {
	name = sanitize(name)
	base := name
	for i := 2; ; i++ {
		taken := false
		for _, c := range col.checks {
			if strings.EqualFold(c.key, name) {
				taken = true
			}
		}
		if !taken {
			break
		}
		name = fmt.Sprintf("%s_%d", base, i)
	}
	col.checks = append(col.checks, kv{name, str(sqlText)})
	return "check__" + name
}

var decimalRE = regexp.MustCompile(`^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$`)

// number is a bound written as a number, checked before it is written into SQL or the schema.
func number(v *Value) (string, bool) {
	if v == nil || !v.IsNumber() || !decimalRE.MatchString(v.Text) {
		return "", false
	}
	return strings.TrimPrefix(v.Text, "+"), true
}

// options maps logicalTypeOptions.
func (im *importer) options(col *column) {
	o := col.p.LogicalTypeOptions
	if o == nil {
		return
	}
	k := col.dtype.Kind
	bound := func(key string, v *Value, rule string) {
		if v == nil {
			return
		}
		switch {
		case col.untyped(o.Pos(key), key):
		case k.IsInteger() || k.IsFloat() || k == schema.KindDecimal:
			text, ok := number(v)
			if !ok {
				im.refuse(o.Pos(key), "", "%s %q is not a number", key, v.Text)
				return
			}
			col.args = append(col.args, kv{rule, scalar(text)})
		case k == schema.KindDate || k == schema.KindDatetime || k == schema.KindTime:
			col.args = append(col.args, kv{rule, str(v.Text)})
		default:
			im.refuse(o.Pos(key), "", "%s applies to numbers, dates and times; the column is %s", key, col.dtype)
		}
	}
	// v3.0: exclusiveMinimum/exclusiveMaximum are booleans that make minimum/maximum strict; from
	// v3.1 they are bounds of their own, and with minimum/maximum both must hold.
	lower, lowerEx := o.Minimum, o.ExclusiveMinimum
	upper, upperEx := o.Maximum, o.ExclusiveMaximum
	minRule, maxRule := "min", "max"
	if lowerEx != nil && lowerEx.Tag == "!!bool" {
		if lowerEx.Text == "true" {
			minRule = "min_exclusive"
		}
		lowerEx = nil
	}
	if upperEx != nil && upperEx.Tag == "!!bool" {
		if upperEx.Text == "true" {
			maxRule = "max_exclusive"
		}
		upperEx = nil
	}
	lk, lek, uk, uek := "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"
	if lower != nil && lowerEx != nil {
		if keepFirst, ok := tighter(lower, lowerEx, true); !ok {
			im.refuse(o.Pos(lek), "", "minimum and exclusiveMinimum together on %s: give one of them", col.dtype)
		} else if keepFirst {
			lowerEx = nil
		} else {
			lower = nil
		}
	}
	if upper != nil && upperEx != nil {
		if keepFirst, ok := tighter(upper, upperEx, false); !ok {
			im.refuse(o.Pos(uek), "", "maximum and exclusiveMaximum together on %s: give one of them", col.dtype)
		} else if keepFirst {
			upperEx = nil
		} else {
			upper = nil
		}
	}
	bound(lk, lower, minRule)
	bound(lek, lowerEx, "min_exclusive")
	bound(uk, upper, maxRule)
	bound(uek, upperEx, "max_exclusive")
	if o.Pattern != nil && !col.untyped(o.Pos("pattern"), "pattern") {
		if k != schema.KindString {
			im.refuse(o.Pos("pattern"), "", "pattern applies to strings; the column is %s", col.dtype)
		} else if re, err := patternToRE2(o.Pattern.Text); err != nil {
			im.refuse(o.Pos("pattern"), "not checked", "pattern %q: %v", o.Pattern.Text, err)
		} else {
			col.regex = true
			col.args = append(col.args, kv{"regex", str(re)})
		}
	}
	for _, l := range []struct {
		key, rule string
		v         *Value
	}{{"minLength", "min_length", o.MinLength}, {"maxLength", "max_length", o.MaxLength}} {
		if l.v == nil {
			continue
		}
		n, err := strconv.ParseInt(l.v.Text, 10, 64)
		if err != nil || n < 0 || l.v.Tag != "!!int" {
			im.refuse(o.Pos(l.key), "", "%s %q is not a count", l.key, l.v.Text)
			continue
		}
		col.charLength(l.rule, n, o.Pos(l.key), fmt.Sprintf("%s %d", l.key, n))
	}
	if o.MultipleOf != nil {
		im.multipleOf(col, o)
	}
	if o.Format != nil {
		im.format(col, o)
	}
	for _, l := range []struct {
		key, rule string
		v         *Value
	}{{"minItems", "min_length", o.MinItems}, {"maxItems", "max_length", o.MaxItems}} {
		if l.v == nil {
			continue
		}
		if col.untyped(o.Pos(l.key), l.key) {
			continue
		}
		if k != schema.KindList {
			im.refuse(o.Pos(l.key), "", "%s applies to arrays (List); the column is %s", l.key, col.dtype)
			continue
		}
		if _, err := strconv.ParseInt(l.v.Text, 10, 64); err != nil || l.v.Tag != "!!int" {
			im.refuse(o.Pos(l.key), "", "%s %q is not a count", l.key, l.v.Text)
			continue
		}
		col.args = append(col.args, kv{l.rule, scalar(l.v.Text)})
	}
	if o.UniqueItems != nil && o.UniqueItems.Text == "true" {
		im.refuse(o.Pos("uniqueItems"), "not checked", "uniqueItems is not imported: declare the element unique in the schema")
	}
	if o.Timezone != nil && k == schema.KindDatetime && col.p.PhysicalType != "" {
		zoned := col.dtype.TimeZone != ""
		if (o.Timezone.Text == "true") != zoned {
			im.refuse(o.Pos("timezone"), "", "timezone %s disagrees with physicalType %s", o.Timezone.Text, col.p.PhysicalType)
		}
	}
	for _, key := range []string{"minProperties", "maxProperties"} {
		v := o.MinProperties
		if key == "maxProperties" {
			v = o.MaxProperties
		}
		if v != nil {
			im.refuse(o.Pos(key), "not checked", "%s has no tablegate rule (a struct's fields are fixed by its type)", key)
		}
	}
	for key := range o.Extra {
		im.refuse(o.Pos(key), "not checked", "logicalTypeOptions.%s is not an option tablegate knows", key)
	}
}

// tighter compares an inclusive bound with an exclusive one of the same side (numbers only):
// keepFirst when the inclusive bound alone implies the other.
func tighter(inclusive, exclusive *Value, lower bool) (keepFirst, ok bool) {
	a, okA := number(inclusive)
	b, okB := number(exclusive)
	if !okA || !okB {
		return false, false
	}
	ra, _ := new(big.Rat).SetString(a)
	rb, _ := new(big.Rat).SetString(b)
	if ra == nil || rb == nil {
		return false, false
	}
	if lower {
		return ra.Cmp(rb) > 0, true // x >= a implies x > b when a > b
	}
	return ra.Cmp(rb) < 0, true
}

// multipleOf compiles multipleOf for integer and decimal columns, where the remainder is exact.
func (im *importer) multipleOf(col *column, o *LogicalTypeOptions) {
	k := col.dtype.Kind
	text, ok := number(o.MultipleOf)
	if !ok {
		im.refuse(o.Pos("multipleOf"), "", "multipleOf %q is not a number", o.MultipleOf.Text)
		return
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok || r.Sign() <= 0 {
		im.refuse(o.Pos("multipleOf"), "", "multipleOf %s must be above 0", text)
		return
	}
	switch {
	case k.IsInteger() && r.IsInt():
		col.check("multiple_of", fmt.Sprintf("_ %% %s = 0", r.Num().String()))
	case k == schema.KindDecimal:
		// The remainder of two decimals is exact in DuckDB.
		col.check("multiple_of", fmt.Sprintf("_ %% %s::DECIMAL(38,%d) = 0", r.FloatString(col.dtype.Scale), col.dtype.Scale))
		if d := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(col.dtype.Scale)), nil))); !d.IsInt() {
			im.refuse(o.Pos("multipleOf"), "", "multipleOf %s has more decimals than the column's scale %d", text, col.dtype.Scale)
		}
	default:
		im.refuse(o.Pos("multipleOf"), "not checked", "multipleOf on %s is not exact (binary floating point has no exact remainder of %s)", col.dtype, text)
	}
}

// Formats with an exact pattern: every value in that format matches it and no other value does.
var exactFormats = map[string]string{
	"uuid": `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`,
	"ipv4": `^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$`,
}

func (im *importer) format(col *column, o *LogicalTypeOptions) {
	f := o.Format.Text
	k := col.dtype.Kind
	switch {
	case k.IsInteger() && intFormats[f] != 0, k.IsFloat() && (f == "f32" || f == "f64"), stringFormats[k] != "" && stringFormats[k] == f:
		// The width, already the dtype's.
	case k == schema.KindDate || k == schema.KindDatetime || k == schema.KindTime:
		im.note(o.Pos("format"), "format %q is how the values are written as text; the column holds typed values, so there is nothing to check", f)
	case k == schema.KindString && exactFormats[f] != "":
		col.check("format_"+f, "regexp_matches(_, "+sql.String(exactFormats[f])+")")
	case k == schema.KindString && f == "password":
		im.note(o.Pos("format"), "format password is a display hint, not a constraint")
	default:
		im.refuse(o.Pos("format"), "not checked", "format %q has no exact check (uuid and ipv4 do); give a pattern", f)
	}
}

// enum maps enum (v3.2) to is_in.
func (im *importer) enum(col *column) {
	if col.untyped(col.p.Pos("enum"), "enum") {
		return
	}
	k := col.dtype.Kind
	seq := flow()
	for _, e := range col.p.Enum {
		if e == nil {
			continue
		}
		v := e.Value
		switch {
		case k == schema.KindString && v.Tag == "!!str":
			seq.Content = append(seq.Content, str(v.Text))
		case k.IsInteger() && v.Tag == "!!int":
			seq.Content = append(seq.Content, scalar(v.Text))
		case v.Tag == "!!null":
			// NULL is governed by required.
		default:
			im.refuse(e.Pos("value"), "", "enum value %q (%s) cannot be a value of the %s column; tablegate's is_in takes strings for strings and integers for integers", v.Text, strings.TrimPrefix(v.Tag, "!!"), col.dtype)
			return
		}
	}
	col.isIn = true
	col.args = append(col.args, kv{"is_in", seq})
}

// severity maps a quality entry's severity to warn or error.
func (im *importer) severity(q *Quality) (string, bool) {
	switch strings.ToLower(q.Severity) {
	case "", "error", "critical", "high":
		return "error", true
	case "info", "warning", "warn", "low", "medium":
		return "warn", true
	}
	im.refuse(q.Pos("severity"), "", "severity %q: use info, warning or error", q.Severity)
	return "", false
}

// operator is a quality entry's comparison.
type operator struct {
	key   string
	op    string // =, <>, >, >=, <, <=, between, not between
	a, b  string
	lower *string // inclusive bounds, for a metric
	upper *string
}

func (im *importer) operator(q *Quality) (operator, bool) {
	var found []operator
	bad := false
	one := func(key, op string, v *Value) {
		if v == nil {
			return
		}
		text, ok := number(v)
		if !ok {
			im.refuse(q.Pos(key), "", "%s %q is not a number", key, v.Text)
			bad = true
			return
		}
		o := operator{key: key, op: op, a: text}
		switch op {
		case "=":
			o.lower, o.upper = &o.a, &o.a
		case ">=":
			o.lower = &o.a
		case "<=":
			o.upper = &o.a
		}
		found = append(found, o)
	}
	one("mustBe", "=", q.MustBe)
	one("mustNotBe", "<>", q.MustNotBe)
	one("mustBeGreaterThan", ">", q.MustBeGreaterThan)
	one("mustBeGreaterOrEqualTo", ">=", q.MustBeGreaterOrEqualTo)
	one("mustBeLessThan", "<", q.MustBeLessThan)
	one("mustBeLessOrEqualTo", "<=", q.MustBeLessOrEqualTo)
	for _, between := range []struct {
		key string
		vs  []Value
		op  string
	}{{"mustBeBetween", q.MustBeBetween, "between"}, {"mustNotBeBetween", q.MustNotBeBetween, "not between"}} {
		if between.vs == nil {
			continue
		}
		if len(between.vs) != 2 {
			im.refuse(q.Pos(between.key), "", "%s takes two numbers, smallest first", between.key)
			continue
		}
		a, okA := number(&between.vs[0])
		b, okB := number(&between.vs[1])
		if !okA || !okB {
			im.refuse(q.Pos(between.key), "", "%s takes two numbers, smallest first", between.key)
			bad = true
			continue
		}
		o := operator{key: between.key, op: between.op, a: a, b: b}
		if between.op == "between" {
			o.lower, o.upper = &o.a, &o.b
		}
		found = append(found, o)
	}
	switch {
	case bad:
		return operator{}, false
	case len(found) == 0:
		im.refuse(q.Pos(), "", "the quality entry has no operator (mustBe, mustBeLessThan, mustBeBetween …)")
		return operator{}, false
	case len(found) == 1:
		return found[0], true
	}
	im.refuse(q.Pos(found[1].key), "", "the quality entry has several operators (%s, %s); give one", found[0].key, found[1].key)
	return operator{}, false
}

// condition is the operator applied to an SQL expression.
func (o operator) condition(expr string) string {
	switch o.op {
	case "between", "not between":
		return fmt.Sprintf("(%s) %s %s AND %s", expr, strings.ToUpper(o.op), o.a, o.b)
	}
	return fmt.Sprintf("(%s) %s %s", expr, o.op, o.a)
}

// zero reports whether the operator means "the count is 0".
func (o operator) zero() bool {
	isZero := func(s string) bool {
		r, ok := new(big.Rat).SetString(s)
		return ok && r.Sign() == 0
	}
	return (o.op == "=" || o.op == "<=") && isZero(o.a)
}

// tableCheck adds a table check: a metric with bounds when the operator is inclusive, else a
// condition.
func (im *importer) tableCheck(q *Quality, want string, metric string, o operator, sev string, desc string) {
	name := im.ruleName(firstNonEmpty(q.ID, q.Name, want))
	t := mapping()
	t.HeadComment = q.Pos().Path
	add(t, "name", str(name))
	if d := firstNonEmpty(q.Description, desc); d != "" {
		add(t, "description", str(d))
	}
	if o.lower != nil || o.upper != nil {
		add(t, "metric", str(metric))
		if o.lower != nil {
			add(t, "min", scalar(*o.lower))
		}
		if o.upper != nil {
			add(t, "max", scalar(*o.upper))
		}
	} else {
		add(t, "sql", str(o.condition(metric)))
	}
	if sev == "warn" {
		add(t, "severity", scalar("warn"))
	}
	im.checks.Content = append(im.checks.Content, t)
	im.origin[name] = q.Pos()
	im.ref(q, name, true)
}

func (im *importer) ref(q *Quality, rule string, table bool) {
	if q.ID == "" && q.Name == "" {
		return
	}
	im.quality = append(im.quality, schema.ContractQuality{Rule: rule, Table: table, ID: q.ID, Name: q.Name})
}

// common reports what a quality entry carries that tablegate does not enforce.
func (im *importer) common(q *Quality) {
	if q.Schedule != "" || q.Scheduler != "" {
		key := "schedule"
		if q.Schedule == "" {
			key = "scheduler"
		}
		im.note(q.Pos(key), "the schedule is not enforced: tablegate runs every check on every run")
	}
}

// library compiles the entry when it is not a library metric (col is nil on an object), and
// returns a library entry's severity and operator.
func (im *importer) library(q *Quality, col *column) (sev string, o operator, ok bool) {
	im.common(q)
	if col != nil && q.QualityType() != "text" && col.untyped(q.Pos(), "its quality entry") {
		return "", o, false
	}
	switch q.QualityType() {
	case "text":
		im.note(q.Pos(), "text quality is for people: not checked")
		return "", o, false
	case "sql":
		im.sqlQuality(q, col)
		return "", o, false
	case "custom":
		im.customQuality(q, col)
		return "", o, false
	case "library":
	default:
		im.refuse(q.Pos("type"), "", "quality type %q: use library, sql, custom or text", q.Type)
		return "", o, false
	}
	sev, okSev := im.severity(q)
	o, okOp := im.operator(q)
	return sev, o, okSev && okOp
}

// propertyQuality maps a property's quality entry.
func (im *importer) propertyQuality(col *column, q *Quality) {
	sev, o, ok := im.library(q, col)
	if !ok {
		return
	}
	metric := q.MetricName()
	id := sql.Ident(col.name)
	percent := strings.EqualFold(q.Unit, "percent")
	if q.Unit != "" && !percent && !strings.EqualFold(q.Unit, "rows") {
		im.refuse(q.Pos("unit"), "", "unit %q: use rows or percent", q.Unit)
		return
	}
	var failing string // the rows the metric counts, as a condition
	switch metric {
	case "nullValues", "nullCheck":
		failing = id + " IS NULL"
		if o.zero() {
			col.nullable = false
			im.rowRule(col, q, "nullability", sev)
			return
		}
	case "missingValues":
		cond, values, hasNull, ok := im.missing(col, q)
		if !ok {
			return
		}
		failing = cond
		if o.zero() {
			if hasNull {
				col.nullable = false
				im.rowRule(col, q, "nullability", sev)
			}
			if values != "" {
				im.rowRule(col, q, col.check("missing_values", "_ NOT IN "+values), sev)
			}
			return
		}
	case "invalidValues", "validValues":
		conds, ok := im.invalid(col, q, o.zero(), sev)
		if !ok || o.zero() {
			return
		}
		failing = id + " IS NOT NULL AND NOT (" + strings.Join(conds, " AND ") + ")"
	case "duplicateValues", "duplicateCount":
		if o.zero() {
			col.unique = true
			col.uniqueQ = append(col.uniqueQ, q)
			if sev == "warn" && !col.p.Unique {
				col.uniqueSev = "warn"
			}
			return
		}
		m := duplicateKeys([]string{id})
		if percent {
			m = fmt.Sprintf("coalesce(100.0 * (%s) / nullif(count(*), 0), 0)", m)
		}
		im.tableCheck(q, col.name+"_"+metric, m, o, sev, "")
		return
	case "rowCount":
		im.refuse(q.Pos("metric"), "", "rowCount is an object-level metric; put it in the object's quality")
		return
	case "":
		im.refuse(q.Pos(), "", "a library quality entry needs metric (nullValues, missingValues, invalidValues, duplicateValues, rowCount)")
		return
	default:
		im.refuse(q.Pos("metric"), "not checked", "metric %q is not an ODCS library metric tablegate knows", metric)
		return
	}
	m := fmt.Sprintf("count(*) FILTER (WHERE %s)", failing)
	if percent {
		m = fmt.Sprintf("coalesce(100.0 * count(*) FILTER (WHERE %s) / nullif(count(*), 0), 0)", failing)
	}
	im.tableCheck(q, col.name+"_"+metric, m, o, sev, "")
}

// rowRule records the column rule a quality entry became, with its severity.
func (im *importer) rowRule(col *column, q *Quality, rule, sev string) {
	if sev == "warn" && !(rule == "nullability" && (col.p.Required || col.pk)) {
		col.sev[rule] = "warn"
	}
	im.ref(q, col.name+"|"+rule, false)
}

// missing reads missingValues' arguments: the condition a missing value meets, the listed
// values other than null as an SQL list, and whether null is listed.
func (im *importer) missing(col *column, q *Quality) (cond, values string, hasNull, ok bool) {
	raw, given := q.Arguments["missingValues"]
	list, isList := raw.([]any)
	if !given || !isList {
		im.refuse(q.Pos("arguments"), "", "missingValues needs arguments.missingValues, the list of values that count as missing ([null, '', 'N/A'])")
		return "", "", false, false
	}
	lits, hasNull, ok := im.literals(col, q, "arguments", list)
	if !ok {
		return "", "", false, false
	}
	id := sql.Ident(col.name)
	var parts []string
	if hasNull {
		parts = append(parts, id+" IS NULL")
	}
	if len(lits) > 0 {
		values = "(" + strings.Join(lits, ", ") + ")"
		parts = append(parts, id+" IN "+values)
	}
	if len(parts) == 0 {
		im.refuse(q.Pos("arguments"), "", "arguments.missingValues is empty")
		return "", "", false, false
	}
	return strings.Join(parts, " OR "), values, hasNull, true
}

// literals renders values as SQL literals of the column's dtype.
func (im *importer) literals(col *column, q *Quality, key string, list []any) (lits []string, hasNull, ok bool) {
	k := col.dtype.Kind
	for _, v := range list {
		switch x := v.(type) {
		case nil:
			hasNull = true
		case string:
			if k != schema.KindString {
				im.refuse(q.Pos(key), "", "value %q is a string; the column is %s", x, col.dtype)
				return nil, false, false
			}
			lits = append(lits, sql.String(x))
		case int:
			if !k.IsInteger() && k != schema.KindDecimal && !k.IsFloat() {
				im.refuse(q.Pos(key), "", "value %d is a number; the column is %s", x, col.dtype)
				return nil, false, false
			}
			lits = append(lits, strconv.Itoa(x))
		default:
			im.refuse(q.Pos(key), "", "value %v: tablegate compares strings with strings and integers with integers", x)
			return nil, false, false
		}
	}
	return lits, hasNull, true
}

// invalid compiles invalidValues' arguments: validValues (is_in) and pattern (regex). With
// asRules, they become row rules; either way the conditions a valid value meets are returned.
func (im *importer) invalid(col *column, q *Quality, asRules bool, sev string) ([]string, bool) {
	var conds []string
	id := sql.Ident(col.name)
	raw, ok := q.Arguments["validValues"]
	if !ok {
		raw, ok = q.Extra["validValues"] // v3.0 wrote it beside the rule
	}
	if ok {
		list, isList := raw.([]any)
		if !isList {
			im.refuse(q.Pos("arguments"), "", "arguments.validValues is a list of values")
			return nil, false
		}
		lits, _, ok := im.literals(col, q, "arguments", list)
		if !ok {
			return nil, false
		}
		in := "(" + strings.Join(lits, ", ") + ")"
		if len(lits) == 0 {
			in = "(NULL)"
		}
		conds = append(conds, id+" IN "+in)
		if asRules {
			if !col.isIn && len(lits) > 0 {
				col.isIn = true
				seq := flow()
				for _, l := range list {
					switch x := l.(type) {
					case string:
						seq.Content = append(seq.Content, str(x))
					case int:
						seq.Content = append(seq.Content, scalar(strconv.Itoa(x)))
					}
				}
				col.args = append(col.args, kv{"is_in", seq})
				im.rowRule(col, q, "is_in", sev)
			} else {
				im.rowRule(col, q, col.check("valid_values", "_ IN "+in), sev)
			}
		}
	}
	if raw, ok := q.Arguments["pattern"]; ok {
		p, isString := raw.(string)
		if !isString {
			im.refuse(q.Pos("arguments"), "", "arguments.pattern is a string")
			return nil, false
		}
		re, err := patternToRE2(p)
		if err != nil {
			im.refuse(q.Pos("arguments"), "not checked", "arguments.pattern %q: %v", p, err)
			return nil, false
		}
		if col.dtype.Kind != schema.KindString {
			im.refuse(q.Pos("arguments"), "", "arguments.pattern applies to strings; the column is %s", col.dtype)
			return nil, false
		}
		conds = append(conds, "regexp_matches("+id+", "+sql.String(re)+")")
		if asRules {
			if !col.regex {
				col.regex = true
				col.args = append(col.args, kv{"regex", str(re)})
				im.rowRule(col, q, "regex", sev)
			} else {
				im.rowRule(col, q, col.check("pattern", "regexp_matches(_, "+sql.String(re)+")"), sev)
			}
		}
	}
	if len(conds) == 0 {
		im.refuse(q.Pos("arguments"), "", "invalidValues needs arguments.validValues or arguments.pattern")
		return nil, false
	}
	return conds, true
}

// objectQuality maps an object's quality entry.
func (im *importer) objectQuality(q *Quality) {
	sev, o, ok := im.library(q, nil)
	if !ok {
		return
	}
	switch m := q.MetricName(); m {
	case "rowCount", "countCheck":
		if strings.EqualFold(q.Unit, "percent") {
			im.refuse(q.Pos("unit"), "", "rowCount in percent has nothing to be a percent of")
			return
		}
		im.tableCheck(q, "row_count", "count(*)", o, sev, "")
	case "duplicateValues", "duplicateCount":
		raw, _ := q.Arguments["properties"].([]any)
		var cols []string
		for _, r := range raw {
			name, _ := r.(string)
			col := im.columnNamed(name)
			if col == nil {
				im.refuse(q.Pos("arguments"), "", "arguments.properties names %q, which is not a property of %s", name, im.obj.Name)
				return
			}
			cols = append(cols, col.name)
		}
		if len(cols) == 0 {
			im.refuse(q.Pos("arguments"), "", "an object's duplicateValues needs arguments.properties, the columns of the key")
			return
		}
		if o.zero() {
			rule := im.groupUnique(firstNonEmpty(q.ID, q.Name, strings.Join(cols, "_")+"_unique"), cols, q.Pos(), sev)
			im.ref(q, rule, false)
			return
		}
		var ids []string
		for _, c := range cols {
			ids = append(ids, sql.Ident(c))
		}
		m := duplicateKeys(ids)
		if strings.EqualFold(q.Unit, "percent") {
			m = fmt.Sprintf("coalesce(100.0 * (%s) / nullif(count(*), 0), 0)", m)
		}
		im.tableCheck(q, strings.Join(cols, "_")+"_duplicates", m, o, sev, "")
	default:
		im.refuse(q.Pos("metric"), "not checked", "metric %q is not an object-level metric (rowCount, duplicateValues)", m)
	}
}

// duplicateKeys is duplicateValues' measure, as datacontract-cli takes it: how many distinct
// keys (values of the columns, NULLs aside) occur more than once. a,a,a,b,b,c has 2.
func duplicateKeys(ids []string) string {
	key := ids[0]
	if len(ids) > 1 {
		key = "(" + strings.Join(ids, ", ") + ")"
	}
	// histogram(x) itself is refused in rules: its name is also a table macro's.
	return fmt.Sprintf("coalesce(len(list_filter(map_values(list_aggregate(list(%s) FILTER (WHERE %s), 'histogram')), lambda n: n > 1)), 0)", key, notNull(ids))
}

func notNull(ids []string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id + " IS NOT NULL"
	}
	return strings.Join(parts, " AND ")
}

// columnNamed finds a column by property name or physical name.
func (im *importer) columnNamed(name string) *column {
	for _, c := range im.columns {
		if c.p.Name == name || c.name == name {
			return c
		}
	}
	return nil
}

var (
	selectRE        = regexp.MustCompile(`(?is)^\s*SELECT\s+(.+?)\s+FROM\s+(\S+)(?:\s+(?:AS\s+)?([A-Za-z_][A-Za-z0-9_]*))??(?:\s+WHERE\s+(.+?))?\s*;?\s*$`)
	forbiddenSQL    = regexp.MustCompile(`(?i)\b(SELECT|FROM|JOIN|GROUP\s+BY|HAVING|UNION|INTERSECT|EXCEPT|LIMIT|ORDER\s+BY|OVER|QUALIFY|WINDOW)\b`)
	columnAlias     = regexp.MustCompile(`(?is)^(.*\S)\s+AS\s+(?:"[^"]*"|[A-Za-z_][A-Za-z0-9_]*)$`)
	firstSelectFrom = regexp.MustCompile(`(?is)^\s*SELECT\b|\bFROM\s+\S+`)
	aggregateCall   = regexp.MustCompile(`(?is)^([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)$`)
)

// sqlQuality compiles a type sql entry as a table check when its query is one aggregate over
// the object (SELECT <aggregate> FROM {object} [WHERE <condition>]).
func (im *importer) sqlQuality(q *Quality, col *column) {
	sev, ok := im.severity(q)
	o, okOp := im.operator(q)
	if !ok || !okOp {
		return
	}
	query := q.Query
	if col != nil {
		for _, ph := range []string{"${property}", "{property}", "${column}", "{column}"} {
			query = strings.ReplaceAll(query, ph, sql.Ident(col.name))
		}
	}
	m := selectRE.FindStringSubmatch(query)
	if bad := forbiddenSQL.FindString(firstSelectFrom.ReplaceAllString(query, " ")); m == nil && bad != "" {
		im.refuse(q.Pos("query"), "not checked", "the query uses %s: tablegate's table checks are one aggregate over the table's rows", strings.ToUpper(bad))
		return
	}
	if m == nil {
		im.refuse(q.Pos("query"), "not checked", "the query is not SELECT <aggregate> FROM {object} [WHERE <condition>], so it is not one value over the table tablegate reads")
		return
	}
	expr, table, alias, where := strings.TrimSpace(m[1]), strings.Trim(m[2], `"`+"`"), m[3], strings.TrimSpace(m[4])
	if a := columnAlias.FindStringSubmatch(expr); a != nil && balanced(a[1]) {
		expr = strings.TrimSpace(a[1]) // the result's name does not matter
	}
	switch table {
	case "{object}", "${object}", "{table}", "${table}", "{model}", "${model}", im.obj.Name, im.obj.PhysicalName:
	default:
		im.refuse(q.Pos("query"), "not checked", "the query reads %s, not the object's table ({object}); tablegate checks one table per run", table)
		return
	}
	if alias != "" {
		im.refuse(q.Pos("query"), "not checked", "the query names the table %s: write the columns without a table name (SELECT count(*) FROM {object} WHERE {property} < 0); tablegate's table checks read the one table", alias)
		return
	}
	if bad := forbiddenSQL.FindString(expr + " " + where); bad != "" {
		im.refuse(q.Pos("query"), "not checked", "the query uses %s: tablegate's table checks are one aggregate over the table's rows", strings.ToUpper(bad))
		return
	}
	if where != "" {
		call := aggregateCall.FindStringSubmatch(expr)
		if call == nil || !balanced(call[2]) {
			im.refuse(q.Pos("query"), "not checked", "with WHERE, the query must select one aggregate call (count(*), sum(x)) so that the condition becomes its FILTER")
			return
		}
		expr = fmt.Sprintf("%s(%s) FILTER (WHERE %s)", call[1], call[2], where)
	}
	want := "sql_" + strconv.Itoa(len(im.checks.Content))
	if col != nil {
		want = col.name + "_sql"
	}
	im.tableCheck(q, want, expr, o, sev, "")
}

// balanced reports whether parentheses nest properly (outside quotes).
func balanced(s string) bool {
	depth := 0
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '(':
			depth++
		case r == ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0 && quote == 0
}

// customQuality compiles tablegate's own custom entries (engine tablegate, written by export):
// implementation is a column check (`_` the value) on a property, a row rule on an object.
func (im *importer) customQuality(q *Quality, col *column) {
	if !strings.EqualFold(q.Engine, "tablegate") {
		im.refuse(q.Pos("engine"), "not checked", "custom quality for engine %q is run by that engine, not by tablegate", q.Engine)
		return
	}
	if keys, isMap := q.Implementation.(map[string]any); isMap {
		if sev, ok := im.severity(q); ok {
			im.tablegateKeys(q, col, keys, sev)
		}
		return
	}
	impl, ok := q.Implementation.(string)
	if !ok || strings.TrimSpace(impl) == "" {
		im.refuse(q.Pos("implementation"), "", "a tablegate custom entry's implementation is its SQL")
		return
	}
	sev, ok := im.severity(q)
	if !ok {
		return
	}
	if col != nil {
		rule := col.check(firstNonEmpty(q.Name, q.ID, "contract"), impl)
		im.rowRule(col, q, rule, sev)
		return
	}
	name := im.ruleName(firstNonEmpty(q.Name, q.ID, "contract_rule"))
	r := mapping()
	r.HeadComment = q.Pos().Path
	add(r, "name", str(name))
	if q.Description != "" {
		add(r, "description", str(q.Description))
	}
	add(r, "sql", str(impl))
	im.rules.Content = append(im.rules.Content, r)
	im.origin[name] = q.Pos("implementation")
	if sev == "warn" {
		im.ruleSev[name] = "warn"
	}
	im.ref(q, name, false)
}

// ref resolution for relationships.
func (im *importer) target(r *Relationship, ref string, p Pos) (object, column string, ok bool) {
	if strings.Contains(ref, "/") || strings.Contains(ref, "#") {
		return im.targetByID(ref, p)
	}
	parts := strings.Split(ref, ".")
	if len(parts) != 2 {
		im.refuse(p, "not checked", "reference %q: tablegate references are object.property", ref)
		return "", "", false
	}
	object, column = parts[0], parts[1]
	if o := im.c.Object(object); o != nil {
		for _, prop := range o.Properties {
			if prop != nil && prop.Name == column {
				return object, firstNonEmpty(prop.PhysicalName, prop.Name), true
			}
		}
		im.refuse(p, "", "reference %q: object %s has no property %s", ref, object, column)
		return "", "", false
	}
	return object, column, true
}

func (im *importer) targetByID(ref string, p Pos) (string, string, bool) {
	if strings.Contains(ref, "#") {
		im.refuse(p, "not checked", "reference %q is to another contract file; tablegate reads one contract", ref)
		return "", "", false
	}
	parts := strings.Split(strings.TrimPrefix(ref, "/"), "/")
	if len(parts) != 4 || parts[0] != "schema" || parts[2] != "properties" {
		im.refuse(p, "not checked", "reference %q: tablegate reads schema/<object id>/properties/<property id>", ref)
		return "", "", false
	}
	for _, o := range im.c.Schema {
		if o == nil || o.ID != parts[1] {
			continue
		}
		for _, prop := range o.Properties {
			if prop != nil && prop.ID == parts[3] {
				return o.Name, firstNonEmpty(prop.PhysicalName, prop.Name), true
			}
		}
	}
	im.refuse(p, "", "reference %q names no property of this contract", ref)
	return "", "", false
}

func (im *importer) input(object string, p Pos) (string, bool) {
	if in := im.opts.References[object]; in != "" {
		return in, true
	}
	im.refuse(p, "not checked", "the relationship needs the data of %s: give --reference %s=FILE (Parquet, CSV, or DB.duckdb:table; in a collection file, the member's references: {%s: FILE})", object, object, object)
	return "", false
}

func (im *importer) relationshipType(r *Relationship) bool {
	if r.Type != "" && r.Type != "foreignKey" {
		im.refuse(r.Pos("type"), "not checked", "relationship type %q: tablegate checks foreignKey", r.Type)
		return false
	}
	return true
}

func (im *importer) propertyRelationship(col *column, r *Relationship) {
	if !im.relationshipType(r) {
		return
	}
	if len(r.To.Names) != 1 {
		im.refuse(r.Pos("to"), "", "a property's relationship points to one property")
		return
	}
	object, target, ok := im.target(r, r.To.Names[0], r.Pos("to"))
	if !ok {
		return
	}
	in, ok := im.input(object, r.Pos("to"))
	if !ok {
		return
	}
	if col.nested {
		im.refuse(r.Pos(), "", "a relationship on a nested property: tablegate's references are top-level columns")
		return
	}
	ref := mapping()
	ref.Style = yaml.FlowStyle
	add(ref, "input", str(in))
	add(ref, "column", str(target))
	col.args = append(col.args, kv{"references", ref})
}

func (im *importer) objectRelationship(r *Relationship) {
	if !im.relationshipType(r) {
		return
	}
	if len(r.From.Names) != len(r.To.Names) || len(r.From.Names) == 0 {
		im.refuse(r.Pos("to"), "", "from and to must name as many properties")
		return
	}
	var from, to []string
	object := ""
	for i, f := range r.From.Names {
		fo, fc, ok := im.target(r, f, r.Pos("from"))
		if !ok {
			return
		}
		if fo != im.obj.Name {
			im.note(r.Pos("from"), "the relationship is from %s, not from %s: it is imported with %s", fo, im.obj.Name, fo)
			return
		}
		to0, tc, ok := im.target(r, r.To.Names[i], r.Pos("to"))
		if !ok {
			return
		}
		if object != "" && to0 != object {
			im.refuse(r.Pos("to"), "", "a composite relationship points into one object")
			return
		}
		object = to0
		from, to = append(from, fc), append(to, tc)
	}
	in, ok := im.input(object, r.Pos("to"))
	if !ok {
		return
	}
	if len(from) == 1 && !r.From.List {
		if col := im.columnNamed(from[0]); col != nil {
			ref := mapping()
			ref.Style = yaml.FlowStyle
			add(ref, "input", str(in))
			add(ref, "column", str(to[0]))
			col.node.Content = append(col.node.Content, scalar("references"), ref)
			return
		}
	}
	name := im.ruleName(firstNonEmpty(r.ID, strings.Join(from, "_")+"_references"))
	n := mapping()
	n.HeadComment = r.Pos().Path
	add(n, "name", str(name))
	ref := mapping()
	add(ref, "columns", strList(from))
	add(ref, "input", str(in))
	add(ref, "to", strList(to))
	add(n, "references", ref)
	im.rules.Content = append(im.rules.Content, n)
	im.origin[name] = r.Pos()
}

func strList(values []string) *yaml.Node {
	seq := flow()
	for _, v := range values {
		seq.Content = append(seq.Content, str(v))
	}
	return seq
}

// translate maps declaration errors of the generated schema back to the contract.
func (im *importer) translate(c *Contract, obj *Object, err error) error {
	var errs *schema.Errors
	if !errors.As(err, &errs) {
		return fmt.Errorf("the imported schema does not load (please report it): %w", err)
	}
	out := &ImportError{File: c.File, Object: obj.Name}
	for _, p := range errs.Problems {
		pos := obj.Pos()
		var de *schema.DeclarationError
		if errors.As(p, &de) && de.Column != "" {
			top := strings.SplitN(de.Column, ".", 2)[0]
			if col := im.columnNamed(top); col != nil {
				pos = col.p.Pos(contractKey(de.Key))
			}
			out.Problems = append(out.Problems, Notice{Pos: pos, Msg: de.Msg})
			continue
		}
		if errors.As(p, &de) {
			for name, at := range im.origin {
				if strings.Contains(de.Msg, "'"+name+"'") {
					pos = at
				}
			}
			out.Problems = append(out.Problems, Notice{Pos: pos, Msg: de.Msg})
			continue
		}
		out.Problems = append(out.Problems, Notice{Pos: pos, Msg: p.Error()})
	}
	return out
}

// contractKey names the contract key a schema key came from.
func contractKey(key string) string {
	switch key {
	case "min", "min_exclusive", "max", "max_exclusive", "min_length", "max_length", "regex":
		return "logicalTypeOptions"
	case "is_in":
		return "enum"
	case "type", "precision", "scale", "time_zone", "time_unit":
		return "physicalType"
	case "primary_key":
		return "primaryKey"
	}
	return ""
}

// YAML building helpers.

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode} }

func flow() *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle} }

// scalar is a plain scalar (keys, numbers, booleans).
func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

// str reads back as a string whatever it looks like.
func str(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

func add(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, scalar(key), v)
}

// dtypeKeys writes type and its parameters.
func dtypeKeys(n *yaml.Node, d schema.DType, col *column) {
	schema.WriteDType(n, d)
	switch d.Kind {
	case schema.KindList, schema.KindArray:
		if col != nil && col.inner != nil {
			add(n, "inner", col.inner.node)
			return
		}
		inner := mapping()
		dtypeKeys(inner, d.Inner.DType, nil)
		add(inner, "nullable", scalar("true")) // the physical type says nothing of its elements
		if d.Inner.DType.Kind.IsFloat() {
			add(inner, "allow_nan", scalar("true"))
			add(inner, "allow_inf", scalar("true"))
		}
		add(n, "inner", inner)
	case schema.KindStruct:
		fields := &yaml.Node{Kind: yaml.SequenceNode}
		if col != nil {
			for _, f := range col.fields {
				fields.Content = append(fields.Content, f.node)
			}
		}
		add(n, "fields", fields)
	}
}
