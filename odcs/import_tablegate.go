package odcs

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tablegate/tablegate/schema"
)

// What export writes where ODCS has no key of its own, read back here: tablegate custom entries
// whose implementation is a mapping of tablegate's own schema keys, the tablegateType custom
// property of a dtype family, and DuckDB's ENUM type.

// columnKeys are the keys a property's tablegate entry may set, with the rule each makes (its
// name in a severity mapping).
var columnKeys = map[string]string{
	"unique": schema.RuleUnique, "primary_key": schema.RulePrimaryKey,
	"min": schema.RuleMin, "min_exclusive": schema.RuleMinExclusive, "max": schema.RuleMax, "max_exclusive": schema.RuleMaxExclusive,
	"is_in": schema.RuleIsIn, "regex": schema.RuleRegex, "min_length": schema.RuleMinLength, "max_length": schema.RuleMaxLength,
	"allow_inf": schema.RuleInf, "allow_nan": schema.RuleNaN, "resolution": schema.RuleResolution,
	"references": schema.RuleReferences,
}

// ruleKeys and tableCheckKeys are the keys an object's tablegate entry may set for a schema rule
// and for a table check (with table_check: true).
var (
	ruleKeys       = []string{"sql", "spark", "group_by", "references"}
	tableCheckKeys = []string{"table_check", "sql", "metric", "min", "max", "anomaly"}
)

// stringFormats are the JSON Schema formats of a logicalType string that export writes for the
// dtypes JSON has no type of: a BLOB's bytes and an INTERVAL's ISO 8601 duration.
var stringFormats = map[schema.Kind]string{schema.KindBinary: "binary", schema.KindDuration: "duration"}

// tablegateKeys reads a tablegate entry whose implementation is tablegate's own keys: on a
// property (col) the column's arguments, a check in two dialects, or severities of the column's
// rules; on the object a schema rule, a table check, or schema-level severities.
func (im *importer) tablegateKeys(q *Quality, col *column, keys map[string]any, sev string) {
	bad := func(format string, args ...any) { im.refuse(q.Pos("implementation"), "", format, args...) }
	if sevs, ok := keys["severity"]; ok {
		m, ok := sevs.(map[string]any)
		if !ok || len(keys) != 1 {
			bad("severity is a mapping of rule names to warn or error, alone in its entry")
			return
		}
		for _, rule := range slices.Sorted(maps.Keys(m)) {
			v, _ := m[rule].(string)
			if v != string(schema.Warn) && v != string(schema.Error) {
				bad("the severity of %s is %v; use warn or error", rule, m[rule])
				continue
			}
			if col != nil {
				col.sev[rule] = v
			} else {
				im.ruleSev[rule] = v
			}
		}
		return
	}
	if col != nil {
		im.tablegateColumnKeys(q, col, keys, sev, bad)
		return
	}
	allowed := ruleKeys
	if keys["table_check"] == true {
		allowed = tableCheckKeys
	}
	n := mapping()
	n.HeadComment = q.Pos().Path
	for _, k := range allowed {
		if v, ok := keys[k]; ok && k != "table_check" {
			add(n, k, node(v))
		}
	}
	for k := range keys {
		if !slices.Contains(allowed, k) {
			bad("%q is not a key of a tablegate %s (%s)", k, map[bool]string{true: "table check", false: "rule"}[keys["table_check"] == true], strings.Join(allowed, ", "))
			return
		}
	}
	name := im.ruleName(firstNonEmpty(q.Name, q.ID, "contract_rule"))
	head := []*yaml.Node{scalar("name"), str(name)}
	if q.Description != "" {
		head = append(head, scalar("description"), str(q.Description))
	}
	n.Content = append(head, n.Content...)
	if keys["table_check"] == true {
		if sev == "warn" {
			add(n, "severity", scalar("warn"))
		}
		im.checks.Content = append(im.checks.Content, n)
		im.origin[name] = q.Pos("implementation")
		im.ref(q, name, true)
		return
	}
	im.rules.Content = append(im.rules.Content, n)
	im.origin[name] = q.Pos("implementation")
	if sev == "warn" {
		im.ruleSev[name] = "warn"
	}
	im.ref(q, name, false)
}

func (im *importer) tablegateColumnKeys(q *Quality, col *column, keys map[string]any, sev string, bad func(string, ...any)) {
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		v := keys[k]
		rule, known := columnKeys[k]
		switch {
		case k == "check":
			rule = schema.RuleCheck
			if m, ok := v.(map[string]any); ok && !isPair(m) {
				if len(m) != 1 {
					bad("check names one check per entry")
					return
				}
				for name, forms := range m {
					col.checks = append(col.checks, kv{name, node(forms)})
					rule = "check__" + name
				}
				break
			}
			col.args = append(col.args, kv{k, node(v)})
		case known:
			col.args = append(col.args, kv{k, node(v)})
		default:
			bad("%q is not a tablegate column key (check, %s)", k, strings.Join(slices.Sorted(maps.Keys(columnKeys)), ", "))
			return
		}
		if sev == "warn" {
			if col.nested {
				bad("the severity of a nested property's rule is declared on the top-level property ({severity: {inner_…: warn}})")
				return
			}
			col.sev[rule] = "warn"
		}
		// A nested column's rules are named from the top-level column, which it does not know; an
		// allow_* key makes no rule.
		makesRule := !(strings.HasPrefix(k, "allow_") && v == true)
		if !col.nested && makesRule {
			im.ref(q, col.name+"|"+rule, false)
		}
	}
}

// withExportedInputs adds to the given reference data the inputs an exported contract names
// (the custom property tablegateInput of its relationships), for the objects not given. An
// input is relative to the contract's folder; it is made absolute, so that the schema reads it
// wherever the schema is written.
func withExportedInputs(c *Contract, given map[string]string) map[string]string {
	exported := ExportedReferences(c)
	if len(exported) == 0 {
		return given
	}
	out := make(map[string]string, len(given)+len(exported))
	for object, input := range exported {
		if !filepath.IsAbs(input) && c.File != "" {
			input = filepath.Join(filepath.Dir(c.File), input)
		}
		if abs, err := filepath.Abs(input); err == nil {
			input = abs
		}
		out[object] = input
	}
	maps.Copy(out, given)
	return out
}

// tablegateOnly reports whether every quality entry is tablegate's own (engine tablegate), whose
// keys are the nested column's own arguments, exact at any depth.
func tablegateOnly(qs []*Quality) bool {
	for _, q := range qs {
		if q != nil && (q.QualityType() != "custom" || !strings.EqualFold(q.Engine, Engine)) {
			return false
		}
	}
	return true
}

// isPair reports whether a check is {sql, spark}: one check in two dialects.
func isPair(m map[string]any) bool {
	_, hasSQL := m["sql"]
	_, hasSpark := m["spark"]
	return len(m) == 2 && hasSQL && hasSpark
}

// node writes a value read from the contract back as YAML for the schema.
func node(v any) *yaml.Node {
	if s, ok := v.(string); ok {
		return str(s)
	}
	n := &yaml.Node{}
	if err := n.Encode(v); err != nil {
		return str(fmt.Sprint(v))
	}
	return n
}

// tablegateType reads the tablegateType custom property: the dtype of a column whose dtype no
// physicalType names exactly: a family (Integer, Float, Decimal of any precision, Any), or a
// multi-dimensional Array, whose element is its items.
func (im *importer) tablegateType(p *Property, col *column) (schema.DType, bool) {
	for _, cp := range p.CustomProperties {
		if cp == nil || cp.Property != customType {
			continue
		}
		text, _ := cp.Value.(string)
		switch text {
		case "Integer":
			return schema.DType{Kind: schema.KindInteger}, true
		case "Float":
			return schema.DType{Kind: schema.KindFloat}, true
		case "Any":
			return schema.DType{Kind: schema.KindAny}, true
		}
		if m := anyDecimal.FindStringSubmatch(text); m != nil {
			if scale, err := strconv.Atoi(m[1]); err == nil && scale <= 38 {
				return schema.DType{Kind: schema.KindDecimal, Scale: scale}, true
			}
		}
		if m := arrayShape.FindStringSubmatch(text); m != nil && p.Items != nil {
			var shape []int
			for _, n := range strings.Split(m[1], "x") {
				size, err := strconv.Atoi(n)
				if err != nil || size < 1 {
					shape = nil
					break
				}
				shape = append(shape, size)
			}
			if shape != nil {
				ic := im.column(p.Items, false, true)
				ic.finish()
				col.inner = ic
				return schema.DType{Kind: schema.KindArray, Inner: &schema.Column{DType: ic.dtype}, Shape: shape}, true
			}
		}
		im.refuse(p.Pos("customProperties"), "", "%s %q: use Integer, Float, Any, Decimal(scale=N) or Array(T, AxB) with items", customType, text)
		return schema.DType{Kind: schema.KindAny}, true
	}
	return schema.DType{}, false
}

var (
	anyDecimal = regexp.MustCompile(`^Decimal\(scale=(\d+)\)$`)
	arrayShape = regexp.MustCompile(`^Array\(.*, (\d+(?:x\d+)+)\)$`)
	enumType   = regexp.MustCompile(`(?is)^ENUM\s*\((.*)\)$`)
	enumValue  = regexp.MustCompile(`^\s*'((?:[^']|'')*)'\s*(,|$)`)
)

// enumOf reads DuckDB's ENUM('a', 'b'): ok is false for another type.
func enumOf(text string) (d schema.DType, ok bool, err error) {
	m := enumType.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return schema.DType{}, false, nil
	}
	rest := m[1]
	var cats []string
	for strings.TrimSpace(rest) != "" {
		v := enumValue.FindStringSubmatch(rest)
		if v == nil {
			return schema.DType{}, true, fmt.Errorf("physicalType %q: ENUM takes a list of quoted strings", text)
		}
		cats = append(cats, strings.ReplaceAll(v[1], "''", "'"))
		rest = rest[len(v[0]):]
		if v[2] == "," && strings.TrimSpace(rest) == "" {
			return schema.DType{}, true, fmt.Errorf("physicalType %q: ENUM takes a list of quoted strings", text)
		}
	}
	return schema.DType{Kind: schema.KindEnum, Categories: cats}, true, nil
}
