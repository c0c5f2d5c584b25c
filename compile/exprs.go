package compile

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// columnRules compiles every rule of one top-level column.
func (c *compiler) columnRules(col *schema.Column) {
	names := col.RuleNames()
	ref := c.d.Ident(col.Name)
	for _, r := range col.Rules() {
		rule := Rule{
			Name:      col.Name + "|" + r.Name,
			Column:    col.Name,
			Kind:      r.Kind,
			Severity:  severityOf(col.Args.Severity, r.Name, names),
			Tolerance: col.Args.Tolerance.Of(r.Name, names),
		}
		expr, keyed, err := c.ruleSQL(col, r, ref)
		if err != nil {
			c.fail(col.Pos(), col.Name, r.Name, "%v", err)
			continue
		}
		rule.Expr = expr
		rule.Description, rule.Short = describe(col.Name, r)
		if keyed != "" {
			rule.value = keyed
		} else {
			rule.value = fmt.Sprintf("COALESCE(%s, TRUE)", expr)
		}
		c.add(rule)
	}
}

// ruleSQL returns the rule's boolean SQL and, for keyed rules, the SQL of its rule column.
func (c *compiler) ruleSQL(col *schema.Column, r schema.ColumnRule, ref string) (expr, keyed string, err error) {
	// Cross-row rules: unique on the column itself or on (nested) struct fields.
	if r.Kind == schema.RuleUnique && allFields(r.Path) {
		key, guard := ref, ""
		cur := col
		var guards []string
		for _, st := range r.Path {
			guards = append(guards, key+" IS NULL")
			cur = field(cur, st.Field)
			key = key + "." + c.d.Ident(cur.Name)
		}
		if len(guards) > 0 {
			guard = "(" + strings.Join(guards, " OR ") + ")"
		}
		key = c.uniqueKey(cur, key)
		expr = fmt.Sprintf("count(*) = 1 per (%s)", key)
		return expr, c.keyedRule([]string{key}, "count(*) > 1", guard), nil
	}
	if r.Kind == schema.RuleReferences {
		ref := col.Args.References
		expr, keyed, err := c.reference(col.Name+"|"+r.Name, ref, []string{col.Name}, []string{ref.Column})
		if err != nil {
			return "", "", fmt.Errorf("cannot read its other data %s: %w", ref.Input, err)
		}
		return expr, keyed, nil
	}
	if r.Kind == schema.RuleCheck && len(r.Path) == 0 {
		info, err := c.custom(col.Name+"|"+r.Name, r.Check, &col.DType, ref, nil)
		if err != nil {
			return "", "", fmt.Errorf("check %s: %w", r.Name, err)
		}
		expr = info.sql
		if info.aggregate {
			return expr, c.keyedRule(nil, fmt.Sprintf("NOT COALESCE(%s, TRUE)", expr), ""), nil
		}
		return expr, "", nil
	}
	expr, err = c.nested(col, r, r.Path, ref, 0)
	return expr, "", err
}

// uniqueKey is the value unique compares for ref, of column c: a struct's fields rather than the
// struct, so that a NULL struct and one whose fields are all NULL are duplicates, as polars
// compares them (one level: a NULL field struct still differs from one of NULL fields).
func (c *compiler) uniqueKey(col *schema.Column, ref string) string {
	if col.DType.Kind != schema.KindStruct {
		return ref
	}
	names := make([]string, len(col.DType.Fields))
	values := make([]string, len(col.DType.Fields))
	for i, f := range col.DType.Fields {
		names[i], values[i] = f.Name, ref+"."+c.d.Ident(f.Name)
	}
	return c.d.Struct(names, values)
}

func allFields(path []schema.Step) bool {
	for _, st := range path {
		if st.Kind != schema.StepField {
			return false
		}
	}
	return true
}

func field(c *schema.Column, name string) *schema.Column {
	for _, f := range c.DType.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// nested walks from a column down the rule's path: into every element of a list or array
// (list_bool_and ignores NULL results, and NULL or empty lists give NULL, i.e. valid) and into
// struct fields (a NULL struct passes its fields' rules).
func (c *compiler) nested(col *schema.Column, r schema.ColumnRule, path []schema.Step, ref string, depth int) (string, error) {
	if len(path) == 0 {
		return c.leaf(col, r, ref)
	}
	if r.Kind == schema.RuleUnique && path[0].Kind == schema.StepElement && allFields(path[1:]) {
		// Uniqueness within each list; [x] keeps NULL elements, which count as equal.
		v := fmt.Sprintf("__tg_x%d", depth)
		elem := v
		var guards []string
		target := col.DType.Inner
		for _, st := range path[1:] {
			guards = append(guards, elem+" IS NULL")
			target = field(target, st.Field)
			elem += "." + c.d.Ident(target.Name)
		}
		isNull := elem + " IS NULL"
		if target.DType.Kind == schema.KindStruct {
			// Its key is the NULL key when every field is NULL.
			parts := []string{isNull}
			for _, f := range target.DType.Fields {
				parts = append(parts, elem+"."+c.d.Ident(f.Name)+" IS NULL")
			}
			isNull = "(" + parts[0] + " OR (" + strings.Join(parts[1:], " AND ") + "))"
		}
		elem = c.uniqueKey(target, elem)
		if len(guards) == 0 {
			return c.d.Distinct(ref, v, elem, true), nil
		}
		// A struct field's rule is `when(struct is null) then true otherwise rule(field)`: NULL
		// elements pass, but their NULL field values still count. So the field values of the
		// non-NULL elements must be distinct, and none may be NULL when some element is NULL.
		null := "(" + strings.Join(guards, " OR ") + ")"
		kept := c.d.Filter(ref, v, "NOT "+null)
		return fmt.Sprintf("(%s AND NOT (%s AND %s))",
			c.d.Distinct(kept, v, elem, true), c.d.Any(ref, v, null), c.d.Any(kept, v, isNull)), nil
	}
	switch st := path[0]; st.Kind {
	case schema.StepElement:
		v := fmt.Sprintf("__tg_x%d", depth)
		elem := col.DType.Inner
		whole := len(path) == 1 && (r.Kind == schema.RuleNullability || r.Kind == schema.RuleCheck)
		multi := col.DType.Kind == schema.KindArray && len(col.DType.Shape) > 1
		if multi && whole {
			// A check binds _ as the sub-array.
			sub := *elem
			sub.DType = schema.DType{Kind: schema.KindArray, Inner: elem, Shape: col.DType.Shape[1:]}
			elem = &sub
		}
		inner, err := c.nested(elem, r, path[1:], v, depth+1)
		if err != nil {
			return "", err
		}
		// A multi-dimensional array's elements are its sub-arrays, as in dataframely: the inner
		// nullability and checks apply to them (a NULL sub-array fails, a NULL value inside one
		// does not). The other inner rules, which dataframely cannot evaluate on a sub-array and
		// raises for, apply to the values len(Shape) levels down.
		levels := 1
		if multi && !whole {
			levels = len(col.DType.Shape)
		}
		for l := levels - 1; l >= 0; l-- {
			param, src := v, ref
			if l < levels-1 {
				param = fmt.Sprintf("%s_%d", v, l)
			}
			if l > 0 {
				src = fmt.Sprintf("%s_%d", v, l-1)
			}
			inner = c.d.All(src, param, inner)
		}
		return inner, nil
	default:
		// A field of a NULL struct is NULL, so the last struct of a run of fields is NULL when
		// any struct above it is: one guard on it passes the whole run, and the rule's SQL grows
		// with its depth rather than with the square of it.
		var at strings.Builder
		at.WriteString(ref)
		cur, guard, i := col, 0, 0
		for ; i < len(path) && path[i].Kind == schema.StepField; i++ {
			guard = at.Len()
			cur = field(cur, path[i].Field)
			at.WriteString("." + c.d.Ident(cur.Name))
		}
		value := at.String()
		inner, err := c.nested(cur, r, path[i:], value, depth)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("CASE WHEN %s IS NULL THEN TRUE ELSE %s END", value[:guard], inner), nil
	}
}

// leaf is the rule on the value ref of column col (the rule's target).
func (c *compiler) leaf(col *schema.Column, r schema.ColumnRule, ref string) (string, error) {
	a := &col.Args
	d := col.DType
	bound := func(v *schema.Value, op string) (string, error) {
		p, err := schema.ParseValue(d, *v)
		if err != nil {
			return "", err
		}
		lit := c.d.Literal(d, p)
		if d.Kind == schema.KindFloat && math.Abs(p.Float) <= math.MaxFloat32 {
			// Float is FLOAT or DOUBLE: the bound takes the column's own type, so a FLOAT
			// column compares with the bound rounded to FLOAT, as Float32 does.
			lit = fmt.Sprintf("(CASE WHEN %s THEN %s ELSE %s END)",
				c.d.IsFloat32(ref), c.d.Literal(schema.DType{Kind: schema.KindFloat32}, p), lit)
		}
		return fmt.Sprintf("%s %s %s", ref, op, lit), nil
	}
	switch r.Kind {
	case schema.RuleNullability:
		return ref + " IS NOT NULL", nil
	case schema.RuleMin:
		return bound(a.Min, ">=")
	case schema.RuleMinExclusive:
		return bound(a.MinExclusive, ">")
	case schema.RuleMax:
		return bound(a.Max, "<=")
	case schema.RuleMaxExclusive:
		return bound(a.MaxExclusive, "<")
	case schema.RuleIsIn:
		if len(a.IsIn) == 0 {
			// IN () is a syntax error; this is FALSE for values and NULL (valid) for NULL.
			return fmt.Sprintf("(%s IS NULL AND NULL)", ref), nil
		}
		lits := make([]string, len(a.IsIn))
		for i, v := range a.IsIn {
			if d.Kind == schema.KindString {
				lits[i] = c.d.String(v.Text)
				continue
			}
			p, err := schema.ParseValue(d, v)
			if err != nil {
				return "", err
			}
			lits[i] = c.d.Literal(d, p)
		}
		return fmt.Sprintf("%s IN (%s)", ref, strings.Join(lits, ", ")), nil
	case schema.RuleInf:
		return c.d.NotInf(ref), nil
	case schema.RuleNaN:
		return fmt.Sprintf("NOT isnan(%s)", ref), nil
	case schema.RuleMinLength, schema.RuleMaxLength:
		op, n := ">=", a.MinLength
		if r.Kind == schema.RuleMaxLength {
			op, n = "<=", a.MaxLength
		}
		length := c.d.ByteLength(ref)
		if d.Kind == schema.KindList {
			length = c.d.ListLength(ref)
		}
		return fmt.Sprintf("%s %s %d", length, op, *n), nil
	case schema.RuleRegex:
		if len(*a.Regex) > MaxRegexBytes {
			return "", fmt.Errorf("the regex is %d bytes; at most %d are allowed", len(*a.Regex), MaxRegexBytes)
		}
		if c.checks() { // else checked when the plan was compiled, or d's to refuse
			if err := c.checkRegex(*a.Regex); err != nil {
				return "", err
			}
		}
		return c.d.Regex(ref, *a.Regex)
	case schema.RuleResolution:
		span, err := schema.ParseDuration(a.Resolution)
		if err != nil {
			return "", err
		}
		kind, err := span.Classify()
		if err != nil {
			return "", err
		}
		return c.d.Resolution(d, span, kind, ref)
	case schema.RulePrimaryKey:
		// Elements of each list must be distinct: whole elements, or the key fields of struct
		// elements. [x] wraps elements so that NULLs take part and count as equal.
		v := "__tg_pk"
		if keys := schema.StructKeyFields(d.Inner); len(keys) > 0 {
			values := make([]string, len(keys))
			for i, k := range keys {
				values[i] = v + "." + c.d.Ident(k)
			}
			return c.d.Distinct(ref, v, c.d.Struct(keys, values), false), nil
		}
		return c.d.Distinct(ref, v, v, true), nil
	case schema.RuleCheck:
		info, err := c.custom("", r.Check, &d, ref, nil)
		if err != nil {
			return "", fmt.Errorf("check %s: %w", r.Name, err)
		}
		if info.aggregate {
			return "", fmt.Errorf("check %s: an aggregate cannot check the elements of a nested column", r.Name)
		}
		return "(" + info.sql + ")", nil
	case schema.RuleUnique:
		return "", fmt.Errorf("unique inside a nested value is supported within a list (List(… unique)) or on struct fields across rows")
	}
	return "", fmt.Errorf("rule %s has no SQL form", r.Kind)
}

// resolutionSQL is true when the value sits on the resolution grid, as polars' truncate defines
// it: epoch-based modulo for fixed widths, Monday 1970-01-05 for weeks, the month index for months.
func resolutionSQL(d schema.DType, r schema.Span, kind schema.ResolutionKind, ref string) (string, error) {
	months := func(v string, withTime bool) string {
		s := fmt.Sprintf("day(%s) = 1 AND (year(%s) * 12 + month(%s) - 1) %% %d = 0", v, v, v, r.Months)
		if withTime {
			s = fmt.Sprintf("day(%s) = 1 AND %s = date_trunc('day', %s) AND (year(%s) * 12 + month(%s) - 1) %% %d = 0", v, v, v, v, v, r.Months)
		}
		return "(" + s + ")"
	}
	switch d.Kind {
	case schema.KindDate:
		switch kind {
		case schema.ResolutionMonths:
			return months(ref, false), nil
		case schema.ResolutionWeeks:
			return fmt.Sprintf("(%s - DATE '1970-01-05') %% %d = 0", ref, 7*r.Weeks), nil
		}
		return fmt.Sprintf("(%s - DATE '1970-01-01') %% %d = 0", ref, r.Days), nil
	case schema.KindTime, schema.KindDuration:
		return fmt.Sprintf("epoch_us(%s) %% %s = 0", ref, modulus(r.FixedNanos(), 1000)), nil
	}
	// Datetime: a zoned value is judged on its wall time in the declared zone.
	v, fn, unitNs, makeTS := ref, "epoch_us", int64(1000), "make_timestamp"
	if d.TimeZone != "" {
		v = fmt.Sprintf("(%s AT TIME ZONE %s)", ref, sql.String(d.TimeZone))
	}
	switch {
	case d.TimeUnit == schema.Millis && d.TimeZone == "": // a zoned ms column holds microseconds
		fn, unitNs = "epoch_ms", 1_000_000
	case d.TimeUnit == schema.Nanos:
		fn, unitNs, makeTS = "epoch_ns", 1, "make_timestamp_ns"
	}
	shift := big.NewInt(0)
	var aligned string
	switch kind {
	case schema.ResolutionMonths:
		aligned = months(v, true)
	case schema.ResolutionWeeks:
		shift = new(big.Int).Quo(big.NewInt(4*86400*1_000_000_000), big.NewInt(unitNs))
		aligned = fmt.Sprintf("(%s(%s) - %s) %% %s = 0", fn, v, shift, modulus(r.FixedNanos(), unitNs))
	default:
		aligned = fmt.Sprintf("%s(%s) %% %s = 0", fn, v, modulus(r.FixedNanos(), unitNs))
	}
	if d.TimeZone == "" {
		return aligned, nil
	}
	// A grid point that a DST gap skips (Santiago's midnight of 2022-09-11) moves to the first
	// instant after the gap, as polars truncates: the value is aligned too when its wall time's
	// grid point lies after the wall time one unit (microsecond, nanosecond) earlier.
	zone := sql.String(d.TimeZone)
	prev := fmt.Sprintf("((%s - INTERVAL 1 MICROSECOND) AT TIME ZONE %s)", ref, zone)
	if d.TimeUnit == schema.Nanos { // an INTERVAL has no nanoseconds: through the epoch and back
		prev = fmt.Sprintf("((make_timestamp_ns(epoch_ns(%s) - 1) AT TIME ZONE 'UTC') AT TIME ZONE %s)", ref, zone)
	}
	var point string
	if kind == schema.ResolutionMonths {
		point = fmt.Sprintf("(date_trunc('month', %s) - to_months(((year(%s) * 12 + month(%s) - 1) %% %d)::INTEGER))", v, v, v, r.Months)
	} else {
		w := modulus(r.FixedNanos(), unitNs)
		point = fmt.Sprintf("%s(%s(%s) - ((%s(%s) - %s) %% %s + %s) %% %s)", makeTS, fn, v, fn, v, shift, w, w, w)
	}
	return fmt.Sprintf("(%s OR %s > %s)", aligned, point, prev), nil
}

// modulus is the grid width expressed in a unit of unitNs nanoseconds: a value v (in that unit)
// is aligned to width w (ns) iff v*unitNs % w == 0 iff v % (w / gcd(w, unitNs)) == 0.
func modulus(widthNs *big.Int, unitNs int64) string {
	g := new(big.Int).GCD(nil, nil, widthNs, big.NewInt(unitNs))
	return new(big.Int).Quo(widthNs, g).String()
}

// describe renders a column rule for people. full names the checked value from the column down:
// `amount >= 0`, `email length <= 254 bytes`, `order_id matches ^ORD-\d+$`, `tags elements not
// null`, `address.city not null`, `lines elements' sku not null`. short is the same relative to
// the column, for the column's collapsed check: `>= 0`, `elements not null`, `city not null`,
// and a check's name (`lowercase`) rather than its SQL.
func describe(column string, r schema.ColumnRule) (full, short string) {
	t := r.Target
	a := &t.Args
	// rel is the checked value below the column: "", "elements", "city", "geo.lat",
	// "elements' sku", "elements' elements", "s2 elements' a".
	// A builder: appending to a string would copy it at every step, n² for a path of n steps.
	var b strings.Builder
	last := -1
	inList := false
	for _, st := range r.Path {
		if st.Kind == schema.StepElement {
			inList = true
			switch last {
			case -1:
				b.WriteString("elements")
			case int(schema.StepElement):
				b.WriteString("' elements")
			default:
				b.WriteString(" elements")
			}
		} else {
			switch last {
			case -1:
			case int(schema.StepElement):
				b.WriteString("' ")
			default:
				b.WriteString(".")
			}
			b.WriteString(st.Field)
		}
		last = int(st.Kind)
	}
	rel := b.String()
	subject := column
	switch {
	case rel == "":
	case strings.HasPrefix(rel, "elements"):
		subject += " " + rel
	default:
		subject += "." + rel
	}
	var s string
	switch r.Kind {
	case schema.RuleReferences:
		s = fmt.Sprintf("in %s (%s)", a.References.Input, a.References.Column)
	case schema.RuleNullability:
		s = "not null"
	case schema.RuleUnique:
		s = "unique"
		if inList {
			s = "unique within each list"
		}
	case schema.RuleMin:
		s = ">= " + a.Min.Text
	case schema.RuleMinExclusive:
		s = "> " + a.MinExclusive.Text
	case schema.RuleMax:
		s = "<= " + a.Max.Text
	case schema.RuleMaxExclusive:
		s = "< " + a.MaxExclusive.Text
	case schema.RuleIsIn:
		vals := make([]string, len(a.IsIn))
		for i, v := range a.IsIn {
			vals[i] = v.Text
		}
		s = "in (" + strings.Join(vals, ", ") + ")"
	case schema.RuleInf:
		s = "not infinite"
	case schema.RuleNaN:
		s = "not NaN"
	case schema.RuleMinLength, schema.RuleMaxLength:
		op, n := ">=", a.MinLength
		if r.Kind == schema.RuleMaxLength {
			op, n = "<=", a.MaxLength
		}
		unit := "bytes"
		if t.DType.Kind == schema.KindList {
			unit = "elements"
		}
		s = fmt.Sprintf("length %s %d %s", op, *n, unit)
	case schema.RuleRegex:
		s = "matches " + *a.Regex
	case schema.RuleResolution:
		s = "aligned to " + a.Resolution
	case schema.RulePrimaryKey:
		s = "elements distinct"
		if keys := schema.StructKeyFields(t.DType.Inner); len(keys) > 0 {
			s += " by " + strings.Join(keys, ", ")
		}
	case schema.RuleCheck:
		label := r.Check.Name
		if label == "" {
			label = r.Name[strings.LastIndex(r.Name, "check"):]
		}
		return subject + ": " + r.Check.SQL, strings.TrimSpace(rel + " " + label)
	default:
		s = r.Kind
	}
	return subject + " " + s, strings.TrimSpace(rel + " " + s)
}
