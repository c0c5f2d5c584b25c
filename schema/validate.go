package schema

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// validator collects every problem of a schema.
type validator struct {
	s        *Schema
	problems []error
}

func (v *validator) add(pos Pos, column, key, format string, args ...any) {
	v.problems = append(v.problems, &DeclarationError{Schema: v.s.Name, Pos: pos, Column: column, Key: key, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) severity(pos Pos, column, format string, args ...any) {
	v.problems = append(v.problems, &InvalidSeverityError{Schema: v.s.Name, Pos: pos, Column: column, Msg: fmt.Sprintf(format, args...)})
}

// Validate reports every declaration error of the schema at once, as *Errors (nil when valid).
// Custom SQL is checked further by the compiler, which asks DuckDB's parser.
func (s *Schema) Validate() error {
	v := &validator{s: s}
	v.problems = append(v.problems, s.problems...)
	if strings.TrimSpace(s.Name) == "" {
		v.add(Pos{File: s.File}, "", "schema", "the schema needs a name (key `schema`); every message names it")
	}
	seen := map[string]string{}
	tooDeep := false
	for _, c := range s.Columns {
		v.columnName(c, seen)
		if path, deep := tooDeepAt(c, c.Name, 0); deep != nil {
			// Nothing else is checked in a column past the limit: every rule below it would cost
			// time and messages in proportion to a depth no plan can have.
			v.add(deep.pos, path, "", "nested more than %d levels deep (List, Array and Struct each add a level); flatten the column or split it", MaxNestingDepth)
			tooDeep = true
			continue
		}
		v.column(c, c.Name, true)
	}
	v.schemaRules()
	v.tableChecks()
	if !tooDeep {
		v.checkNameCollisions()
	}
	if len(v.problems) == 0 {
		return nil
	}
	return &Errors{Schema: s.Name, Problems: v.problems}
}

// MaxNestingDepth is how many levels of List, Array and Struct a column may nest: a column's
// inner column or field is one level down, and nothing may sit deeper than this. Each level adds
// to every rule below it, and DuckDB binds deep expressions slowly.
const MaxNestingDepth = 64

// tooDeepAt finds the first column below c (at depth, named path) that sits deeper than
// MaxNestingDepth, with its path; it stops there, so it costs at most the limit's depth.
func tooDeepAt(c *Column, path string, depth int) (string, *Column) {
	if c == nil {
		return "", nil
	}
	if depth > MaxNestingDepth {
		return path, c
	}
	if c.DType.Inner != nil {
		if p, deep := tooDeepAt(c.DType.Inner, path+"[]", depth+1); deep != nil {
			return p, deep
		}
	}
	for _, f := range c.DType.Fields {
		if p, deep := tooDeepAt(f, path+"."+f.Name, depth+1); deep != nil {
			return p, deep
		}
	}
	return "", nil
}

func (v *validator) columnName(c *Column, seen map[string]string) {
	switch {
	case c.Name == "":
		v.add(c.pos, "", "name", "a column has no name")
		return
	case !nameRE.MatchString(c.Name):
		v.problems = append(v.problems, &InvalidColumnNameError{Schema: v.s.Name, Pos: c.pos, Column: c.Name})
		return
	case strings.HasPrefix(strings.ToLower(c.Name), "dy_"):
		v.add(c.pos, c.Name, "name", "names starting with 'dy_' are reserved for tablegate's checks; rename the column in the input query")
		return
	case strings.HasPrefix(strings.ToLower(c.Name), "__tg_"):
		v.add(c.pos, c.Name, "name", "names starting with '__tg_' are reserved for the columns tablegate generates; rename the column in the input query")
		return
	}
	lower := strings.ToLower(c.Name)
	if prev, ok := seen[lower]; ok {
		if prev == c.Name {
			v.add(c.pos, c.Name, "name", "the column is declared twice")
		} else {
			v.add(c.pos, c.Name, "name", "'%s' and '%s' differ only in case, and DuckDB identifiers are case-insensitive", prev, c.Name)
		}
		return
	}
	seen[lower] = c.Name
}

// column checks one column; top is false for list elements and struct fields.
func (v *validator) column(c *Column, path string, top bool) {
	a := &c.Args
	d := c.DType
	k := d.Kind
	bad := func(key, format string, args ...any) { v.add(c.pos, path, key, format, args...) }
	if r := a.References; r != nil {
		switch {
		case !top:
			bad("references", "references applies to top-level columns; for a key inside a nested value, flatten it")
		case k.IsNested() || k == KindAny:
			bad("references", "references applies to scalar columns, not %s", k)
		default:
			validateReference(v.s, r, false, bad)
		}
	}

	switch k {
	case KindInvalid:
		// A loaded column's missing or unknown type was reported by the loader, at its line.
		if c.pos == (Pos{}) {
			bad("type", "the column has no type; use one of %s", strings.Join(KindNames(), ", "))
		}
		return
	case KindDecimal:
		if d.Precision < 0 || d.Precision > 38 {
			bad("precision", "precision %d is outside 1..38", d.Precision)
		}
		if d.Scale < 0 || (d.Precision > 0 && d.Scale > d.Precision) || d.Scale > 38 {
			bad("scale", "scale %d must be between 0 and the precision", d.Scale)
		}
	case KindDatetime, KindDuration:
		if d.TimeUnit != "" && d.TimeUnit != Micros && d.TimeUnit != Millis && d.TimeUnit != Nanos {
			bad("time_unit", "time_unit %q is not one of us, ms, ns", d.TimeUnit)
		}
		if k == KindDuration && d.TimeUnit != "" && d.TimeUnit != Micros {
			bad("time_unit", "DuckDB INTERVAL holds microseconds; only time_unit us is supported for Duration")
		}
		if d.TimeZone != "" {
			if _, err := time.LoadLocation(d.TimeZone); err != nil {
				bad("time_zone", "time_zone %q is not an IANA zone name", d.TimeZone)
			}
		}
	case KindEnum:
		if len(d.Categories) == 0 {
			bad("categories", "an Enum needs at least one category")
		}
		seen := map[string]bool{}
		for _, cat := range d.Categories {
			if strings.ContainsRune(cat, 0) {
				bad("categories", "category %q contains a NUL byte, which DuckDB cannot hold in an ENUM", cat)
			}
			if seen[cat] {
				bad("categories", "category %q is listed twice", cat)
			}
			seen[cat] = true
		}
	case KindList, KindArray:
		if d.Inner == nil {
			bad("inner", "a %s needs an inner column", k)
			break
		}
		if k == KindArray {
			if len(d.Shape) == 0 {
				bad("shape", "an Array needs a shape (a size, or a list of sizes)")
			}
			for _, n := range d.Shape {
				if n <= 0 {
					bad("shape", "array sizes must be positive, got %d", n)
				}
			}
		}
		v.column(d.Inner, path+"[]", false)
	case KindStruct:
		if len(d.Fields) == 0 {
			bad("fields", "a Struct needs at least one field")
		}
		seen := map[string]string{}
		for _, f := range d.Fields {
			if !nameRE.MatchString(f.Name) {
				v.add(f.pos, path, "fields", "field name %q must be letters, digits and underscores, since rule names derive from it", f.Name)
				continue
			}
			if prev, dup := seen[strings.ToLower(f.Name)]; dup {
				v.add(f.pos, path, "fields", "fields '%s' and '%s' collide (DuckDB names are case-insensitive)", prev, f.Name)
				continue
			}
			seen[strings.ToLower(f.Name)] = f.Name
			v.column(f, path+"."+f.Name, false)
		}
	}

	if k == KindAny {
		if a.PrimaryKey || a.Unique {
			bad("primary_key", "an Any column cannot be a key or unique")
		}
		if !a.Nullable {
			bad("nullable", "an Any column is always nullable")
		}
	}
	if a.PrimaryKey && a.Nullable {
		bad("nullable", "a primary-key column cannot be nullable")
	}

	v.applicable(c, path)
	v.bounds(c, path)
	v.checks(c, path)
	if top {
		v.columnSeverity(c, path)
		names := c.RuleNames()
		v.tolerance(a.Tolerance, c.pos, path, names, func(r string) Severity { return a.Severity.Of(r, names) })
	} else if !a.Severity.IsZero() {
		bad("severity", "declare the severity on the top-level column, naming the inner rule (e.g. inner_min_length)")
	}
	if !top && !a.Tolerance.IsZero() {
		bad("tolerance", "declare the tolerance on the top-level column, naming the inner rule (e.g. inner_min_length)")
	}
}

// applicable refuses arguments that do not apply to the dtype.
func (v *validator) applicable(c *Column, path string) {
	a := &c.Args
	k := c.DType.Kind
	bad := func(key string) {
		v.add(c.pos, path, key, "%s does not apply to a %s column", key, k)
	}
	if !k.IsOrdinal() {
		for key, val := range map[string]*Value{"min": a.Min, "min_exclusive": a.MinExclusive, "max": a.Max, "max_exclusive": a.MaxExclusive} {
			if val != nil {
				bad(key)
			}
		}
	}
	if a.HasIsIn && !k.IsInteger() && k != KindString {
		bad("is_in")
	}
	for _, val := range a.IsIn {
		if strings.ContainsRune(val.Text, 0) {
			v.add(c.pos, path, "is_in", "the value %q contains a NUL byte, which no value of the column can hold", val.Text)
		}
	}
	if a.Regex != nil && k != KindString {
		bad("regex")
	}
	if (a.MinLength != nil || a.MaxLength != nil) && k != KindString && k != KindList {
		if a.MinLength != nil {
			bad("min_length")
		}
		if a.MaxLength != nil {
			bad("max_length")
		}
	}
	if (a.AllowInf || a.AllowNaN) && !k.IsFloat() {
		if a.AllowInf {
			bad("allow_inf")
		}
		if a.AllowNaN {
			bad("allow_nan")
		}
	}
	if a.Resolution != "" && !k.IsTemporal() {
		bad("resolution")
	}
}

func (v *validator) bounds(c *Column, path string) {
	a := &c.Args
	d := c.DType
	bad := func(key, format string, args ...any) { v.add(c.pos, path, key, format, args...) }

	if a.MinLength != nil && *a.MinLength < 0 {
		bad("min_length", "min_length must not be negative, got %d", *a.MinLength)
	}
	if a.MaxLength != nil && *a.MaxLength < 0 {
		bad("max_length", "max_length must not be negative, got %d", *a.MaxLength)
	}
	if a.MinLength != nil && a.MaxLength != nil && *a.MinLength > *a.MaxLength {
		bad("max_length", "min_length (%d) is greater than max_length (%d)", *a.MinLength, *a.MaxLength)
	}
	if a.Regex != nil {
		v.regex(c, path, *a.Regex)
	}

	var res *Span
	if a.Resolution != "" && d.Kind.IsTemporal() {
		r, err := v.resolution(c, path)
		if err == nil {
			res = &r
		}
	}
	if !d.Kind.IsOrdinal() {
		return
	}
	parsed := map[string]*Parsed{}
	for _, b := range []struct {
		key string
		val *Value
	}{{"min", a.Min}, {"min_exclusive", a.MinExclusive}, {"max", a.Max}, {"max_exclusive", a.MaxExclusive}} {
		if b.val == nil {
			continue
		}
		p, err := ParseValue(d, *b.val)
		if err != nil {
			bad(b.key, "%v", err)
			continue
		}
		if res != nil && !alignedValue(d, *res, p) {
			bad(b.key, "%s is not aligned to the resolution %s", b.val.Text, a.Resolution)
		}
		parsed[b.key] = &p
	}
	if a.Min != nil && a.MinExclusive != nil {
		bad("min_exclusive", "set min or min_exclusive, not both")
	}
	if a.Max != nil && a.MaxExclusive != nil {
		bad("max_exclusive", "set max or max_exclusive, not both")
	}
	pairs := []struct {
		lo, hi string
		strict bool
	}{{"min", "max", false}, {"min_exclusive", "max", true}, {"min", "max_exclusive", true}, {"min_exclusive", "max_exclusive", true}}
	for _, pr := range pairs {
		lo, hi := parsed[pr.lo], parsed[pr.hi]
		if lo == nil || hi == nil {
			continue
		}
		if cmp := lo.Compare(*hi); cmp > 0 || (pr.strict && cmp == 0) {
			rel := "greater than"
			if cmp == 0 {
				rel = "equal to"
			}
			bad(pr.hi, "%s (%s) is %s %s (%s), so no value could pass", pr.lo, lo.Text, rel, pr.hi, hi.Text)
		}
	}
	if a.HasIsIn && d.Kind.IsInteger() {
		if a.Min != nil || a.Max != nil {
			bad("is_in", "is_in cannot be combined with min or max; put the bounds in the set")
		}
		for _, val := range a.IsIn {
			if _, err := ParseValue(d, val); err != nil {
				bad("is_in", "%v", err)
			}
		}
	}
}

func alignedValue(d DType, res Span, p Parsed) bool {
	switch d.Kind {
	case KindDuration:
		return res.AlignedNanos(p.Nanos)
	case KindTime:
		return res.AlignedNanos(sinceNanos(time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), p.Time))
	case KindDatetime:
		t := p.Time
		if d.TimeZone != "" {
			loc, err := time.LoadLocation(d.TimeZone)
			if err != nil {
				return true // reported on time_zone
			}
			w := t.In(loc)
			t = time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.UTC)
		}
		return res.Aligned(t)
	}
	return res.Aligned(p.Time)
}

func (v *validator) resolution(c *Column, path string) (Span, error) {
	bad := func(format string, args ...any) error {
		v.add(c.pos, path, "resolution", format, args...)
		return fmt.Errorf(format, args...)
	}
	r, err := ParseDuration(c.Args.Resolution)
	if err != nil {
		return r, bad("%v", err)
	}
	kind, err := r.Classify()
	if err != nil {
		return r, bad("%q: %v", c.Args.Resolution, err)
	}
	day := int64(24 * time.Hour)
	switch c.DType.Kind {
	case KindDate:
		if kind == ResolutionFixed && (r.Nanos != 0 || r.Days == 0) {
			return r, bad("resolution %s is too fine for a Date; use days or coarser", c.Args.Resolution)
		}
	case KindTime:
		if kind != ResolutionFixed || r.Days != 0 || r.Nanos >= day {
			return r, bad("resolution %s is too coarse for a Time; use less than a day", c.Args.Resolution)
		}
	case KindDuration:
		if kind != ResolutionFixed {
			return r, bad("resolution %s is not a fixed length; a Duration resolution uses d, h, m, s, ms, us", c.Args.Resolution)
		}
	}
	return r, nil
}

// regex refuses patterns that RE2 (DuckDB) would read differently from the Rust regex crate
// (Dataframely) instead of letting the two silently disagree.
func (v *validator) regex(c *Column, path, pattern string) {
	if _, err := syntax.Parse(pattern, syntax.Perl); err != nil {
		v.add(c.pos, path, "regex", "%q is not a valid RE2 pattern: %v", pattern, err)
		return
	}
	inClass := false
	for i := 0; i < len(pattern); i++ {
		switch ch := pattern[i]; {
		case ch == '\\':
			i++
		case !inClass && strings.HasPrefix(pattern[i:], "(?<"):
			v.add(c.pos, path, "regex", "%q uses the group syntax (?<name>...), which RE2 (DuckDB) rejects; write (?P<name>...)", pattern)
			return
		case ch == '[' && inClass && strings.HasPrefix(pattern[i:], "[:"):
			if end := strings.Index(pattern[i:], ":]"); end > 0 {
				i += end + 1 // a POSIX class such as [:alpha:] means the same in both
			}
		case ch == '[' && inClass:
			v.add(c.pos, path, "regex", "%q nests a character class, which RE2 (DuckDB) reads as a literal '['; escape it as \\[ or write the class out in full", pattern)
			return
		case ch == '[':
			inClass = true
			// A ']' right after '[' or '[^' is a literal member, not the end of the class.
			if i+1 < len(pattern) && pattern[i+1] == '^' {
				i++
			}
			if i+1 < len(pattern) && pattern[i+1] == ']' {
				i++
			}
		case ch == ']':
			inClass = false
		case inClass && i+1 < len(pattern) && (ch == '&' || ch == '~' || ch == '-') && pattern[i+1] == ch:
			v.add(c.pos, path, "regex", "%q uses the class set operation %q, which RE2 (DuckDB) reads as plain characters; write the class out in full", pattern, pattern[i:i+2])
			return
		}
	}
}

func (v *validator) checks(c *Column, path string) {
	seen := map[string]bool{}
	for i, ch := range c.Args.Checks {
		name := CheckRuleName(c.Args.Checks, i)
		if ch.Name != "" && !nameRE.MatchString(ch.Name) {
			v.add(c.pos, path, "check", "check name %q must be letters, digits and underscores", ch.Name)
		}
		if seen[strings.ToLower(name)] {
			v.add(c.pos, path, "check", "two checks are both named %q", name)
		}
		seen[strings.ToLower(name)] = true
		if strings.TrimSpace(ch.SQL) == "" {
			v.add(c.pos, path, "check", "check %q has no SQL", name)
		}
	}
}

func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return strings.Join(q, ", ")
}

func (v *validator) columnSeverity(c *Column, path string) {
	spec := c.Args.Severity
	if spec.IsZero() {
		return
	}
	rules := c.RuleNames()
	where := fmt.Sprintf("The severity of column '%s' in %s", path, v.s.Name)
	if spec.Invalid != "" {
		v.severity(c.pos, path, "%s is %s; use \"error\", \"warn\" or a mapping of rule names to those.", where, spec.Invalid)
		return
	}
	if spec.All != "" {
		if !validSeverity(spec.All) {
			v.severity(c.pos, path, "%s is %q; use \"error\", \"warn\" or a mapping of rule names to those.", where, spec.All)
		} else if len(rules) == 0 {
			v.severity(c.pos, path, "%s is one value for every rule, but column '%s' has no rules.", where, path)
		}
	}
	for _, e := range spec.PerRule {
		if !validSeverity(e.Severity) {
			v.severity(c.pos, path, "%s gives '%s' the value %q; use \"error\" or \"warn\".", where, e.Rule, e.Severity)
		}
		if len(ResolveSeverityName(e.Rule, rules)) == 0 {
			list := "none"
			if len(rules) > 0 {
				list = quotedList(rules)
			}
			v.severity(c.pos, path, "%s names '%s', which is not a rule of column '%s'. The rules of column '%s' are %s.", where, e.Rule, path, path, list)
		}
	}
}

func validSeverity(s Severity) bool { return s == Error || s == Warn }

// SchemaRuleNames lists the schema-level rules in order: custom rules, then primary_key.
func (s *Schema) SchemaRuleNames() []string {
	var names []string
	for _, r := range s.Rules {
		names = append(names, r.Name)
	}
	if len(s.PrimaryKey()) > 0 {
		names = append(names, RulePrimaryKey)
	}
	return names
}

func (v *validator) schemaRules() {
	s := v.s
	seen := map[string]bool{}
	for _, r := range s.Rules {
		bad := func(key, format string, args ...any) { v.add(r.pos, "", key, "rule '"+r.Name+"': "+format, args...) }
		switch {
		case !nameRE.MatchString(r.Name):
			v.add(r.pos, "", "rules", "rule name %q must be letters, digits and underscores", r.Name)
		case r.Name == RulePrimaryKey:
			v.add(r.pos, "", "rules", "a custom rule cannot be called 'primary_key'; that name belongs to the key rule")
		case s.Column(r.Name) != nil || columnNamedFold(s, r.Name):
			v.add(r.pos, "", "rules", "rule '%s' has the name of a column; rename the rule", r.Name)
		case strings.HasPrefix(strings.ToLower(r.Name), "dy_"):
			v.add(r.pos, "", "rules", "rule name '%s' is in the reserved 'dy_' namespace", r.Name)
		case strings.HasPrefix(strings.ToLower(r.Name), "__tg_"):
			v.add(r.pos, "", "rules", "rule name '%s' is in the reserved '__tg_' namespace of tablegate's generated columns", r.Name)
		case seen[strings.ToLower(r.Name)]:
			v.add(r.pos, "", "rules", "two rules are named '%s'", r.Name)
		}
		seen[strings.ToLower(r.Name)] = true
		switch {
		case r.References != nil:
			if strings.TrimSpace(r.SQL) != "" || len(r.GroupBy) > 0 {
				bad("references", "a reference rule has no sql or group_by")
			}
			validateReference(s, r.References, true, bad)
		case strings.TrimSpace(r.SQL) == "":
			bad("sql", "the rule has no SQL")
		}
		for i, g := range r.GroupBy {
			if g == RulePrimaryKey && len(r.GroupBy) == 1 {
				if len(s.PrimaryKey()) == 0 {
					bad("group_by", "group_by primary_key needs a primary key, and %s has none", s.Name)
				}
				continue
			}
			if s.Column(g) == nil {
				bad("group_by", "group_by[%d] names '%s', which is not a column of %s", i, g, s.Name)
			}
		}
	}
	v.schemaSeverity()
	names := s.SchemaRuleNames()
	v.tolerance(s.Tolerance, Pos{File: s.File}, "", names, func(r string) Severity { return s.Severity.Of(r, names) })
}

func columnNamedFold(s *Schema, name string) bool {
	for _, c := range s.Columns {
		if strings.EqualFold(c.Name, name) {
			return true
		}
	}
	return false
}

func (v *validator) schemaSeverity() {
	s := v.s
	spec := s.Severity
	if spec.IsZero() {
		return
	}
	pos := Pos{File: s.File}
	rules := s.SchemaRuleNames()
	where := fmt.Sprintf("The schema-level severity of %s", s.Name)
	if spec.Invalid != "" {
		v.severity(pos, "", "%s is %s; use \"error\", \"warn\" or a mapping of rule names to those.", where, spec.Invalid)
		return
	}
	if spec.All != "" {
		if !validSeverity(spec.All) {
			v.severity(pos, "", "%s is %q; use \"error\", \"warn\" or a mapping of rule names to those.", where, spec.All)
		} else if len(rules) == 0 {
			v.severity(pos, "", "%s is one value for every schema-level rule, but %s has no schema-level rules (primary_key or custom rules).", where, s.Name)
		}
	}
	for _, e := range spec.PerRule {
		if !validSeverity(e.Severity) {
			v.severity(pos, "", "%s gives '%s' the value %q; use \"error\" or \"warn\".", where, e.Rule, e.Severity)
		}
		if contains(rules, e.Rule) {
			continue
		}
		if col, rule, ok := strings.Cut(e.Rule, "|"); ok {
			v.severity(pos, "", "%s names '%s', a rule of column '%s'. Declare it on the column instead: severity: {%s: %s}.", where, e.Rule, col, rule, e.Severity)
			continue
		}
		list := "none"
		if len(rules) > 0 {
			list = quotedList(rules)
		}
		v.severity(pos, "", "%s names '%s', which is not a schema-level rule. The schema-level rules of %s are %s.", where, e.Rule, s.Name, list)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// CheckName turns a rule name into its check's name: dy_rule__amount__min.
func CheckName(rule string) string { return "dy_rule__" + strings.ReplaceAll(rule, "|", "__") }

// AllRuleNames lists every rule of the schema in rule order: schema-level custom rules,
// primary_key, then each column's rules as "<column>|<rule>".
func (s *Schema) AllRuleNames() []string {
	var names []string
	for _, r := range s.Rules {
		names = append(names, r.Name)
	}
	if len(s.PrimaryKey()) > 0 {
		names = append(names, RulePrimaryKey)
	}
	for _, c := range s.Columns {
		for _, r := range c.RuleNames() {
			names = append(names, c.Name+"|"+r)
		}
	}
	return names
}

func (v *validator) checkNameCollisions() {
	seen := map[string]string{}
	for _, r := range v.s.AllRuleNames() {
		check := strings.ToLower(CheckName(r))
		if prev, ok := seen[check]; ok {
			v.add(Pos{File: v.s.File}, "", "rules", "rules '%s' and '%s' would both report as check %s; rename one", prev, r, CheckName(r))
			continue
		}
		seen[check] = r
	}
}
