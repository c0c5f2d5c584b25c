package spark

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/tablegate/tablegate/compile/javaregex"
	"github.com/tablegate/tablegate/schema"
)

// Ident quotes a Spark identifier: backticks, a backtick doubled inside.
func Ident(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// String renders a Spark string literal. Spark reads backslash escapes in literals (and 4.0 reads
// a doubled quote as two adjacent literals), so a backslash is doubled and a quote escaped, never doubled.
func String(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(s) + "'"
}

// nested walks from a column down the rule's path: into every element of a list (forall; a NULL
// result counts as valid, as list_bool_and's does in the DuckDB plan) and into struct fields (a
// NULL struct passes its fields' rules).
func (c *compiler) nested(col *schema.Column, r schema.ColumnRule, path []schema.Step, ref string) (string, error) {
	if len(path) == 0 {
		return c.leaf(col, r, ref)
	}
	depth := c.depth
	if r.Kind == schema.RuleUnique && path[0].Kind == schema.StepElement && allFields(path[1:]) {
		v := fmt.Sprintf("__tg_x%d", depth)
		elem := v
		var guards []string
		target := col.DType.Inner
		for _, st := range path[1:] {
			guards = append(guards, elem+" IS NULL")
			target = field(target, st.Field)
			elem += "." + Ident(target.Name)
		}
		isNull := elem + " IS NULL"
		if target.DType.Kind == schema.KindStruct {
			parts := []string{isNull}
			for _, f := range target.DType.Fields {
				parts = append(parts, elem+"."+Ident(f.Name)+" IS NULL")
			}
			isNull = "(" + parts[0] + " OR (" + strings.Join(parts[1:], " AND ") + "))"
		}
		elem = uniqueKey(target, elem)
		// array_distinct keeps one NULL, so NULL elements count as equal, as in the DuckDB plan.
		if len(guards) == 0 {
			return fmt.Sprintf("array_size(array_distinct(transform(%s, %s -> %s))) = array_size(%s)", ref, v, elem, ref), nil
		}
		null := "(" + strings.Join(guards, " OR ") + ")"
		kept := fmt.Sprintf("filter(%s, %s -> NOT %s)", ref, v, null)
		return fmt.Sprintf("(array_size(array_distinct(transform(%s, %s -> %s))) = array_size(%s) AND NOT ("+
			"exists(%s, %s -> %s) AND exists(%s, %s -> %s)))",
			kept, v, elem, kept, ref, v, null, kept, v, isNull), nil
	}
	switch st := path[0]; st.Kind {
	case schema.StepElement:
		v := fmt.Sprintf("__tg_x%d", depth)
		c.depth++
		inner, err := c.nested(col.DType.Inner, r, path[1:], v)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("forall(%s, %s -> %s)", ref, v, inner), nil
	default:
		var at strings.Builder
		at.WriteString(ref)
		cur, guard, i := col, 0, 0
		for ; i < len(path) && path[i].Kind == schema.StepField; i++ {
			guard = at.Len()
			cur = field(cur, path[i].Field)
			at.WriteString("." + Ident(cur.Name))
		}
		value := at.String()
		inner, err := c.nested(cur, r, path[i:], value)
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
		lit := literal(d, p)
		if d.Kind == schema.KindFloat && math.Abs(p.Float) <= math.MaxFloat32 {
			// The bound takes the column's own type: a float column compares with it as float.
			lit = fmt.Sprintf("(CASE WHEN typeof(%s) = 'float' THEN %s ELSE %s END)",
				ref, literal(schema.DType{Kind: schema.KindFloat32}, p), lit)
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
				lits[i] = String(v.Text)
				continue
			}
			p, err := schema.ParseValue(d, v)
			if err != nil {
				return "", err
			}
			lits[i] = literal(d, p)
		}
		return fmt.Sprintf("%s IN (%s)", ref, strings.Join(lits, ", ")), nil
	case schema.RuleInf:
		// Spark has no isinf.
		return fmt.Sprintf("NOT (abs(%s) = CAST('Infinity' AS DOUBLE))", ref), nil
	case schema.RuleNaN:
		return fmt.Sprintf("NOT isnan(%s)", ref), nil
	case schema.RuleMinLength, schema.RuleMaxLength:
		op, n := ">=", a.MinLength
		if r.Kind == schema.RuleMaxLength {
			op, n = "<=", a.MaxLength
		}
		fn := "octet_length" // UTF-8 bytes; Spark's length() counts characters
		if d.Kind == schema.KindList {
			fn = "array_size"
		}
		return fmt.Sprintf("%s(%s) %s %d", fn, ref, op, *n), nil
	case schema.RuleRegex:
		j, err := javaregex.Translate(*a.Regex)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s RLIKE %s", ref, String(j)), nil
	case schema.RuleResolution:
		return resolutionSQL(d, a.Resolution, ref)
	case schema.RulePrimaryKey:
		v := "__tg_pk"
		elem := v
		if keys := schema.StructKeyFields(d.Inner); len(keys) > 0 {
			parts := make([]string, len(keys))
			for i, k := range keys {
				parts[i] = fmt.Sprintf("%s, %s.%s", String(k), v, Ident(k))
			}
			elem = "named_struct(" + strings.Join(parts, ", ") + ")"
		}
		return fmt.Sprintf("array_size(array_distinct(transform(%s, %s -> %s))) = array_size(%s)", ref, v, elem, ref), nil
	case schema.RuleCheck:
		return c.check(r, ref)
	case schema.RuleUnique:
		return "", fmt.Errorf("unique inside a nested value is supported within a list (List(… unique)) or on struct fields across rows")
	}
	return "", fmt.Errorf("rule %s has no Spark SQL form", r.Kind)
}

// literal renders a parsed rule argument as a Spark literal of the column's dtype, so that the
// comparison happens in the column's type (a float32 column against a FLOAT, never a DOUBLE).
func literal(d schema.DType, p schema.Parsed) string {
	switch k := d.Kind; {
	case k.IsInteger():
		return p.Text
	case k == schema.KindFloat32:
		return fmt.Sprintf("CAST(%s AS FLOAT)", String(p.Text))
	case k.IsFloat():
		return fmt.Sprintf("CAST(%s AS DOUBLE)", String(p.Text))
	case k == schema.KindDecimal:
		return fmt.Sprintf("CAST(%s AS %s)", String(p.Text), decimalType(d, p.Text))
	case k == schema.KindDate:
		return "DATE " + String(p.Text)
	case k == schema.KindDatetime:
		if d.TimeZone != "" {
			return "TIMESTAMP " + String(p.Time.UTC().Format("2006-01-02 15:04:05.999999")+"+00:00")
		}
		return "TIMESTAMP_NTZ " + String(p.Time.Format("2006-01-02 15:04:05.999999"))
	}
	return String(p.Text)
}

// decimalType is the declared DECIMAL type, or, when the schema leaves the precision open, the
// narrowest that holds the literal.
func decimalType(d schema.DType, text string) string {
	if d.Precision > 0 {
		return fmt.Sprintf("DECIMAL(%d,%d)", d.Precision, d.Scale)
	}
	digits := 0
	for _, r := range text {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	return fmt.Sprintf("DECIMAL(%d,%d)", min(max(digits, d.Scale+1), 38), d.Scale)
}

// resolutionSQL is true when the value sits on the resolution grid, as in the DuckDB plan:
// epoch-based modulo for fixed widths, Monday 1970-01-05 for weeks, the month index for months; a
// zoned value on its wall time in the declared zone (the session zone is UTC).
func resolutionSQL(d schema.DType, resolution, ref string) (string, error) {
	r, err := schema.ParseDuration(resolution)
	if err != nil {
		return "", err
	}
	kind, err := r.Classify()
	if err != nil {
		return "", err
	}
	monthIndex := func(v string) string { return fmt.Sprintf("(year(%s) * 12 + month(%s) - 1)", v, v) }
	if d.Kind == schema.KindDate {
		switch kind {
		case schema.ResolutionMonths:
			return fmt.Sprintf("(day(%s) = 1 AND %s %% %d = 0)", ref, monthIndex(ref), r.Months), nil
		case schema.ResolutionWeeks:
			return fmt.Sprintf("datediff(%s, DATE '1970-01-05') %% %d = 0", ref, 7*r.Weeks), nil
		}
		return fmt.Sprintf("datediff(%s, DATE '1970-01-01') %% %d = 0", ref, r.Days), nil
	}
	if d.Kind != schema.KindDatetime {
		return "", fmt.Errorf("resolution on %s has no Spark form", d)
	}
	// wall is the value's wall time and us its microseconds since the epoch.
	wall, us := ref, fmt.Sprintf("timestampdiff(MICROSECOND, TIMESTAMP_NTZ '1970-01-01 00:00:00', %s)", ref)
	if d.TimeZone != "" {
		wall = fmt.Sprintf("from_utc_timestamp(%s, %s)", ref, String(d.TimeZone))
		us = fmt.Sprintf("unix_micros(%s)", wall)
	}
	// The width in microseconds: v*1000 % w_ns == 0 iff v % (w_ns / gcd(w_ns, 1000)) == 0.
	g := new(big.Int).GCD(nil, nil, r.FixedNanos(), big.NewInt(1000))
	w := new(big.Int).Quo(r.FixedNanos(), g)
	shift := "0"
	var aligned string
	switch kind {
	case schema.ResolutionMonths:
		aligned = fmt.Sprintf("(day(%s) = 1 AND %s %% 86400000000 = 0 AND %s %% %d = 0)", wall, us, monthIndex(wall), r.Months)
	case schema.ResolutionWeeks:
		shift = "345600000000"
		aligned = fmt.Sprintf("(%s - %s) %% %s = 0", us, shift, w)
	default:
		aligned = fmt.Sprintf("%s %% %s = 0", us, w)
	}
	if d.TimeZone == "" {
		return aligned, nil
	}
	// A grid point that a DST gap skips moves to the first instant after the gap, as polars
	// truncates: the value is aligned too when its wall time's grid point lies after the wall
	// time one microsecond earlier.
	prevWall := fmt.Sprintf("from_utc_timestamp(%s - INTERVAL 1 MICROSECOND, %s)", ref, String(d.TimeZone))
	var point string
	if kind == schema.ResolutionMonths {
		point = fmt.Sprintf("unix_micros(date_trunc('MONTH', %s) - make_ym_interval(0, CAST(%s %% %d AS INT)))", wall, monthIndex(wall), r.Months)
	} else {
		point = fmt.Sprintf("(%s - ((%s - %s) %% %s + %s) %% %s)", us, us, shift, w, w, w)
	}
	return fmt.Sprintf("(%s OR %s > unix_micros(%s))", aligned, point, prevWall), nil
}
