package schema

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Limit is how many failing rows a tolerance accepts: a number of rows, or a share of the input's
// rows. Exactly one of Rows and Share is set (Validate refuses anything else).
type Limit struct {
	Rows  *int64
	Share *float64 // 0 to 1: 0.01 is 1%
}

// Rows is a limit of n failing rows.
func Rows(n int64) *Limit { return &Limit{Rows: &n} }

// Share is a limit of a share of the input's rows, from 0 to 1 (0.01 is 1%).
func Share(s float64) *Limit { return &Limit{Share: &s} }

// Allows reports whether failed rows out of input rows are within the limit. A share allows
// failed <= share × input (1% of 250 rows allows 2 rows).
func (l *Limit) Allows(failed, input int64) bool {
	if l == nil {
		return false
	}
	if l.Rows != nil {
		return failed <= *l.Rows
	}
	if l.Share != nil {
		// The product is exact for shares written in a few decimals over inputs below 2^53 but for
		// the last bit: a share that lands on a whole number of rows allows that number.
		return float64(failed) <= *l.Share*float64(input)*(1+1e-12)
	}
	return false
}

// MaxRows is the most failing rows the limit allows out of input rows.
func (l *Limit) MaxRows(input int64) int64 {
	switch {
	case l == nil:
		return 0
	case l.Rows != nil:
		return *l.Rows
	case l.Share != nil:
		return int64(math.Floor(*l.Share * float64(input) * (1 + 1e-12)))
	}
	return 0
}

// String is the limit as a schema file writes it: "10" or "1.5%".
func (l *Limit) String() string {
	switch {
	case l == nil:
		return ""
	case l.Rows != nil:
		return strconv.FormatInt(*l.Rows, 10)
	case l.Share != nil:
		return strconv.FormatFloat(*l.Share*100, 'g', -1, 64) + "%"
	}
	return ""
}

// Describe is the limit for people: "10 rows", "1.5% of the input".
func (l *Limit) Describe() string {
	switch {
	case l == nil:
		return ""
	case l.Rows != nil && *l.Rows == 1:
		return "1 row"
	case l.Rows != nil:
		return fmt.Sprintf("%d rows", *l.Rows)
	}
	return l.String() + " of the input"
}

// Tolerance is how many failing rows a rule tolerates, per severity: up to Warn, its check
// passes; up to Error (error rules only), it fails at WARN and does not fail the run. nil is no
// tolerance at that severity.
type Tolerance struct {
	Warn, Error *Limit
}

// IsZero reports whether the tolerance declares nothing.
func (t Tolerance) IsZero() bool { return t.Warn == nil && t.Error == nil }

// String is the tolerance as a schema file writes it: "{warn: 10, error: 1%}".
func (t Tolerance) String() string {
	var parts []string
	if t.Warn != nil {
		parts = append(parts, "warn: "+t.Warn.String())
	}
	if t.Error != nil {
		parts = append(parts, "error: "+t.Error.String())
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// ToleranceEntry declares the tolerance of one rule by name.
type ToleranceEntry struct {
	Rule      string
	Tolerance Tolerance
}

// ToleranceSpec is a tolerance declaration: one for every rule (All), or rule → tolerance; a
// per-rule entry wins over All.
type ToleranceSpec struct {
	All     Tolerance
	PerRule []ToleranceEntry
	// pos is where a file declared it.
	pos Pos
}

// IsZero reports whether nothing was declared.
func (s ToleranceSpec) IsZero() bool { return s.All.IsZero() && len(s.PerRule) == 0 }

// Of resolves the tolerance of one rule (named in ruleNames, whose aliases an entry may use).
func (s ToleranceSpec) Of(rule string, ruleNames []string) Tolerance {
	t := s.All
	for _, e := range s.PerRule {
		if slices.Contains(ResolveSeverityName(e.Rule, ruleNames), rule) {
			t = e.Tolerance
		}
	}
	return t
}

func (s ToleranceSpec) clone() ToleranceSpec {
	s.All = s.All.clone()
	s.PerRule = slices.Clone(s.PerRule)
	for i := range s.PerRule {
		s.PerRule[i].Tolerance = s.PerRule[i].Tolerance.clone()
	}
	return s
}

func (t Tolerance) clone() Tolerance { return Tolerance{Warn: t.Warn.clone(), Error: t.Error.clone()} }

func (l *Limit) clone() *Limit {
	if l == nil {
		return nil
	}
	c := &Limit{}
	if l.Rows != nil {
		n := *l.Rows
		c.Rows = &n
	}
	if l.Share != nil {
		f := *l.Share
		c.Share = &f
	}
	return c
}

// mergeTolerance lays the child's schema-level tolerances over the parent's.
func mergeTolerance(parent, child ToleranceSpec) ToleranceSpec {
	out := parent.clone()
	if !child.All.IsZero() {
		out.All = child.All
	}
	out.PerRule = append(out.PerRule, child.PerRule...)
	if child.pos != (Pos{}) {
		out.pos = child.pos
	}
	return out
}

// Tolerance sets one tolerance for every rule of the column.
func (c *Column) Tolerance(t Tolerance) *Column { c.Args.Tolerance.All = t; return c }

// ToleranceOf sets the tolerance of one rule of the column, by rule name or argument alias.
func (c *Column) ToleranceOf(rule string, t Tolerance) *Column {
	c.Args.Tolerance.PerRule = append(c.Args.Tolerance.PerRule, ToleranceEntry{Rule: rule, Tolerance: t})
	return c
}

// ToleranceAll sets one tolerance for every schema-level rule (primary_key and custom rules).
func (s *Schema) ToleranceAll(t Tolerance) *Schema { s.Tolerance.All = t; return s }

// ToleranceOf sets the tolerance of one schema-level rule.
func (s *Schema) ToleranceOf(rule string, t Tolerance) *Schema {
	s.Tolerance.PerRule = append(s.Tolerance.PerRule, ToleranceEntry{Rule: rule, Tolerance: t})
	return s
}

// toleranceLevels are the keys of a tolerance.
var toleranceLevels = []string{"warn", "error"}

// tolerance reads `tolerance:`: {warn: L, error: L} for every rule, or {rule: {warn: L, error: L}}.
func (l *loader) tolerance(val *yaml.Node, label string) ToleranceSpec {
	spec := ToleranceSpec{pos: l.pos(val)}
	if val.Kind != yaml.MappingNode {
		l.bad(val, label, "tolerance", "tolerance is a mapping: {warn: 10, error: 1%%} for every rule, or {rule: {error: 1%%}}; got %s", kindOf(val))
		return spec
	}
	levelsOnly := true
	for _, kv := range pairs(val) {
		levelsOnly = levelsOnly && slices.Contains(toleranceLevels, kv[0].Value)
	}
	if levelsOnly {
		spec.All = l.levels(val, label, "tolerance")
		return spec
	}
	for _, kv := range pairs(val) {
		key := "tolerance." + excerpt(kv[0].Value)
		if slices.Contains(toleranceLevels, kv[0].Value) {
			l.bad(kv[0], label, key, "tolerance mixes '%s' with rule names; write {rule: {%s: …}} for each rule", kv[0].Value, kv[0].Value)
			continue
		}
		if kv[1].Kind != yaml.MappingNode {
			l.bad(kv[1], label, key, "the tolerance of '%s' is a mapping such as {error: 1%%}; got %s", excerpt(kv[0].Value), kindOf(kv[1]))
			continue
		}
		spec.PerRule = append(spec.PerRule, ToleranceEntry{Rule: kv[0].Value, Tolerance: l.levels(kv[1], label, key)})
	}
	return spec
}

// levels reads {warn: L, error: L}.
func (l *loader) levels(val *yaml.Node, label, key string) Tolerance {
	var t Tolerance
	for _, kv := range pairs(val) {
		switch kv[0].Value {
		case "warn":
			t.Warn = l.limit(kv[1], label, key+".warn")
		case "error":
			t.Error = l.limit(kv[1], label, key+".error")
		default:
			l.bad(kv[0], label, key+"."+excerpt(kv[0].Value), "unknown key '%s'; a tolerance has warn and error", excerpt(kv[0].Value))
		}
	}
	return t
}

// limit reads a limit: a whole number of rows, a percentage ("1.5%"), or {rows: n} / {share: s}.
func (l *loader) limit(n *yaml.Node, label, key string) *Limit {
	hint := "write a number of rows (10), a percentage of the input (1.5%), or {rows: 10} / {share: 0.015}"
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!int":
		v, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil {
			l.bad(n, label, key, "%s is not a number of rows: %s", excerpt(n.Value), hint)
			return nil
		}
		return Rows(v)
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str" && strings.HasSuffix(strings.TrimSpace(n.Value), "%"):
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(n.Value), "%")), 64)
		if err != nil {
			l.bad(n, label, key, "%q is not a percentage: %s", excerpt(n.Value), hint)
			return nil
		}
		return Share(f / 100)
	case n.Kind == yaml.ScalarNode && n.Tag == "!!float":
		l.bad(n, label, key, "%s is not a whole number of rows; for a share of the input write %s%% or {share: %s}", excerpt(n.Value), excerpt(n.Value), excerpt(n.Value))
		return nil
	case n.Kind == yaml.MappingNode:
		lim := &Limit{}
		for _, kv := range pairs(n) {
			switch kv[0].Value {
			case "rows":
				if v, ok := l.integer(kv[1], label, key+".rows"); ok {
					lim.Rows = &v
				}
			case "share":
				if kv[1].Kind != yaml.ScalarNode || (kv[1].Tag != "!!float" && kv[1].Tag != "!!int") {
					l.bad(kv[1], label, key+".share", "share is a number from 0 to 1 (0.015 is 1.5%%); got %s", kindOf(kv[1]))
					continue
				}
				f, err := strconv.ParseFloat(kv[1].Value, 64)
				if err != nil {
					l.bad(kv[1], label, key+".share", "share is a number from 0 to 1; got %s", excerpt(kv[1].Value))
					continue
				}
				lim.Share = &f
			default:
				l.bad(kv[0], label, key+"."+excerpt(kv[0].Value), "unknown key '%s'; a limit is {rows: n} or {share: s}", excerpt(kv[0].Value))
			}
		}
		return lim
	}
	l.bad(n, label, key, "%s is not a limit: %s", kindOf(n), hint)
	return nil
}

// tolerance checks a tolerance declaration against the rules it names (ruleNames) and their
// severities (sev); column is "" at schema level.
func (v *validator) tolerance(spec ToleranceSpec, pos Pos, column string, ruleNames []string, sev func(rule string) Severity) {
	if spec.IsZero() {
		return
	}
	if spec.pos != (Pos{}) {
		pos = spec.pos
	}
	where := "the schema-level tolerance"
	if column != "" {
		where = fmt.Sprintf("the tolerance of column '%s'", column)
	}
	check := func(t Tolerance, rules []string, named string) {
		for _, lv := range []struct {
			name string
			l    *Limit
		}{{"warn", t.Warn}, {"error", t.Error}} {
			if lv.l == nil {
				continue
			}
			if msg := lv.l.problem(); msg != "" {
				v.add(pos, column, "tolerance", "%s: %s %s", where, named+lv.name, msg)
			}
		}
		if t.Error != nil && named != "" { // one tolerance for every rule applies its error limit to the error rules
			for _, r := range rules {
				if sev(r) == Warn {
					v.add(pos, column, "tolerance", "%s gives rule '%s' an error tolerance, but the rule is warn and never fails at ERROR; give it a warn tolerance, or declare it error", where, r)
				}
			}
		}
		if t.Warn.problem() == "" && t.Error.problem() == "" && t.Warn != nil && t.Error != nil {
			w, e := t.Warn, t.Error
			if (w.Rows != nil && e.Rows != nil && *w.Rows > *e.Rows) || (w.Share != nil && e.Share != nil && *w.Share > *e.Share) {
				v.add(pos, column, "tolerance", "%s: %swarn (%s) is above its error (%s); a check passes up to warn and fails at WARN up to error, so warn must not exceed error", where, named, w, e)
			}
		}
	}
	if !spec.All.IsZero() {
		if len(ruleNames) == 0 {
			v.add(pos, column, "tolerance", "%s is one tolerance for every rule, but there are no rules", where)
		}
		check(spec.All, ruleNames, "")
	}
	for _, e := range spec.PerRule {
		rules := ResolveSeverityName(e.Rule, ruleNames)
		if column == "" && slices.Contains(ruleNames, e.Rule) {
			rules = []string{e.Rule}
		}
		if len(rules) == 0 {
			list := "none"
			if len(ruleNames) > 0 {
				list = quotedList(ruleNames)
			}
			v.add(pos, column, "tolerance", "%s names '%s', which is not one of its rules; they are %s", where, e.Rule, list)
			continue
		}
		if e.Tolerance.IsZero() {
			v.add(pos, column, "tolerance", "%s gives '%s' no warn or error limit", where, e.Rule)
		}
		check(e.Tolerance, rules, e.Rule+".")
	}
}

// problem says what is wrong with a limit; "" when nothing is (also for nil).
func (l *Limit) problem() string {
	switch {
	case l == nil:
		return ""
	case l.Rows != nil && l.Share != nil:
		return "gives both rows and a share; give one"
	case l.Rows == nil && l.Share == nil:
		return "gives neither rows nor a share"
	case l.Rows != nil && *l.Rows < 0:
		return fmt.Sprintf("is %d rows; a limit is 0 rows or more", *l.Rows)
	case l.Share != nil && (math.IsNaN(*l.Share) || *l.Share < 0 || *l.Share > 1):
		return fmt.Sprintf("is a share of %s; a share is from 0%% to 100%% of the input", strconv.FormatFloat(*l.Share*100, 'g', -1, 64)+"%")
	}
	return ""
}
