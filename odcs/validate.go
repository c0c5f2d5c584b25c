package odcs

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The standard's JSON schemas, one per minor version (schemas/README.md says where they come from).
//
//go:embed schemas/*.json
var schemaFiles embed.FS

// schemaFile is the JSON schema a contract of each minor version is validated against: the
// newest of that minor version, which admits the earlier patch versions' apiVersion too.
var schemaFile = map[string]string{
	"v3.0": "odcs-json-schema-v3.0.2.json",
	"v3.1": "odcs-json-schema-v3.1.0.json",
	"v3.2": "odcs-json-schema-v3.2.0.json",
}

// jsonSchema is one compiled JSON schema and its document, which did-you-mean reads the keys of.
type jsonSchema struct {
	name     string
	schema   *jsonschema.Schema
	doc      any
	keysOnce sync.Once
	keys     map[string]bool
}

var (
	schemasOnce sync.Once
	schemas     map[string]*jsonSchema
	schemasErr  error
)

// compiledSchemas compiles the embedded schemas once.
func compiledSchemas() (map[string]*jsonSchema, error) {
	schemasOnce.Do(func() {
		schemas = map[string]*jsonSchema{}
		for minor, name := range schemaFile {
			f, err := schemaFiles.Open("schemas/" + name)
			if err != nil {
				schemasErr = err
				return
			}
			doc, err := jsonschema.UnmarshalJSON(f)
			f.Close()
			if err != nil {
				schemasErr = fmt.Errorf("the embedded %s: %w", name, err)
				return
			}
			c := jsonschema.NewCompiler()
			if err := c.AddResource(name, doc); err != nil {
				schemasErr = fmt.Errorf("the embedded %s: %w", name, err)
				return
			}
			s, err := c.Compile(name)
			if err != nil {
				schemasErr = fmt.Errorf("the embedded %s: %w", name, err)
				return
			}
			schemas[minor] = &jsonSchema{name: name, schema: s, doc: doc}
		}
	})
	return schemas, schemasErr
}

// SchemaError is a contract that breaks the standard's JSON schema of its apiVersion: every
// violation, each with its file, line and contract path.
type SchemaError struct {
	File       string
	APIVersion string
	Problems   []Notice
}

func (e *SchemaError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is not a valid ODCS %s contract", e.File, e.APIVersion)
	if len(e.Problems) == 1 {
		return b.String() + ": " + e.Problems[0].String()
	}
	fmt.Fprintf(&b, " (%d problems):", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  - " + p.String())
	}
	return b.String()
}

// TypeName names the error in reports.
func (e *SchemaError) TypeName() string { return "ContractSchemaError" }

// validateDocument validates the contract document against the JSON schema of its apiVersion.
func validateDocument(root *yaml.Node, file, apiVersion string) error {
	all, err := compiledSchemas()
	if err != nil {
		return err
	}
	minor := apiVersion
	if i := strings.LastIndexByte(apiVersion, '.'); i > 0 {
		minor = apiVersion[:i]
	}
	js := all[minor]
	if js == nil {
		return fmt.Errorf("%s: no JSON schema for apiVersion %s", file, apiVersion)
	}
	d := &document{lines: map[string]int{}, arrays: map[string]bool{}}
	d.root = d.value(root, "")
	err = js.schema.Validate(d.root)
	if err == nil {
		return nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return fmt.Errorf("%s: %w", file, err)
	}
	out := &SchemaError{File: file, APIVersion: apiVersion}
	var found []finding
	seen := map[string]bool{}
	for _, leaf := range leaves(verr) {
		for _, f := range d.problem(js, file, leaf) {
			if key := f.String(); !seen[key] {
				seen[key] = true
				found = append(found, f)
			}
		}
	}
	for _, f := range found {
		if !f.secondary(found) {
			out.Problems = append(out.Problems, f.Notice)
		}
	}
	if len(out.Problems) == 0 {
		// Every violation was a consequence of another; say the library's words rather than nothing.
		out.Problems = append(out.Problems, Notice{Pos: Pos{File: file, Line: root.Line}, Msg: verr.Error()})
	}
	sort.SliceStable(out.Problems, func(i, j int) bool { return out.Problems[i].Pos.Line < out.Problems[j].Pos.Line })
	return out
}

// finding is a violation as a Notice, with what tells a consequence of another violation.
type finding struct {
	Notice
	loc []string
	// unevaluated marks a key the standard has, left unevaluated because the value broke a rule
	// of its own or of a key beside it; several a value that matches several forms.
	unevaluated, several bool
}

// secondary reports whether the finding adds nothing to the others: a key left unevaluated
// when a deeper value of its object has a problem, or "matches several forms" beside another
// problem of the same value.
func (f finding) secondary(all []finding) bool {
	for _, g := range all {
		switch {
		case f.several && !g.several && g.Pos.Path == f.Pos.Path:
			return true
		case f.unevaluated && (len(g.loc) > len(f.loc) || len(g.loc) == len(f.loc) && !g.unevaluated) &&
			slices.Equal(g.loc[:len(f.loc)-1], f.loc[:len(f.loc)-1]):
			return true
		}
	}
	return false
}

// document is a contract as JSON sees it, with the line of every value by its JSON pointer.
type document struct {
	root   any
	lines  map[string]int
	arrays map[string]bool // JSON pointers of the arrays
}

// value converts a YAML node to the JSON value it stands for: a date or a timestamp stays a
// string, as in the contract's JSON form.
func (d *document) value(n *yaml.Node, ptr string) any {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if _, ok := d.lines[ptr]; !ok {
		d.lines[ptr] = n.Line
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return d.value(n.Content[0], ptr)
		}
		return nil
	case yaml.MappingNode:
		m := map[string]any{}
		d.members(n, ptr, m)
		return m
	case yaml.SequenceNode:
		d.arrays[ptr] = true
		a := make([]any, len(n.Content))
		for i, c := range n.Content {
			a[i] = d.value(c, ptr+"/"+strconv.Itoa(i))
		}
		return a
	}
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return json.Number(strconv.FormatInt(i, 10))
		}
		var u uint64
		if n.Decode(&u) == nil {
			return json.Number(strconv.FormatUint(u, 10))
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil {
			return f // NaN and infinities are no JSON number, and the schema says so
		}
	}
	return n.Value
}

// members adds a mapping's members to m; a merge key (<<) adds the merged mappings' members
// that the mapping does not have itself.
func (d *document) members(n *yaml.Node, ptr string, m map[string]any) {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		child := ptr + "/" + escapePointer(k.Value)
		d.lines[child] = k.Line
		m[k.Value] = d.value(v, child)
	}
	for _, v := range merges {
		for v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		sources := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			sources = v.Content
		}
		for _, s := range sources {
			for s.Kind == yaml.AliasNode && s.Alias != nil {
				s = s.Alias
			}
			if s.Kind != yaml.MappingNode {
				continue
			}
			merged := map[string]any{}
			d.members(s, ptr, merged)
			for k, val := range merged {
				if _, own := m[k]; !own {
					m[k] = val
				}
			}
		}
	}
}

func escapePointer(tok string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(tok)
}

// leaves are the violations that say what is wrong: the bottom of the error tree, where of the
// alternatives of a oneOf or anyOf that all failed only the ones that got further than a
// missing key count, and alternatives that each miss a key of their own are one problem.
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	switch e.ErrorKind.(type) {
	case *kind.OneOf, *kind.AnyOf:
		var missing []string
		for _, c := range e.Causes {
			ls := leaves(c)
			onlyMissing := true
			for _, l := range ls {
				r, ok := l.ErrorKind.(*kind.Required)
				if !ok || !slices.Equal(l.InstanceLocation, e.InstanceLocation) {
					onlyMissing = false
					break
				}
				missing = append(missing, r.Missing...)
			}
			if !onlyMissing {
				out = append(out, ls...)
			}
		}
		if len(out) == 0 {
			slices.Sort(missing)
			return []*jsonschema.ValidationError{{SchemaURL: e.SchemaURL, InstanceLocation: e.InstanceLocation, ErrorKind: &needOneOf{slices.Compact(missing)}}}
		}
		return out
	}
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// needOneOf is alternatives that each require a key the value lacks.
type needOneOf struct{ keys []string }

func (*needOneOf) KeywordPath() []string { return nil }

func (k *needOneOf) LocalizedString(*message.Printer) string {
	return "needs one of " + quotedList(k.keys)
}

var printer = message.NewPrinter(language.English)

// problem turns a violation into a Notice at the contract path and line of the value.
func (d *document) problem(js *jsonSchema, file string, e *jsonschema.ValidationError) []finding {
	loc := e.InstanceLocation
	at := func(tokens []string) Pos {
		ptr := ""
		for _, t := range tokens {
			ptr += "/" + escapePointer(t)
		}
		return Pos{File: file, Line: d.lines[ptr], Path: d.path(tokens)}
	}
	for n := len(loc); n > 0 && n >= len(loc)-1; n-- {
		if loc[n-1] != "logicalTypeOptions" {
			continue
		}
		if prop, ok := d.lookup(loc[:n-1]).(map[string]any); ok && prop["logicalType"] == nil {
			// Without a logicalType every logical type's options apply at once.
			return []finding{{Notice: Notice{Pos: at(loc[:n]), Msg: "the standard reads logicalTypeOptions by the property's logicalType, which is missing: give logicalType (string, number, integer, date …)"}, loc: loc[:n]}}
		}
	}
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		var out []finding
		for _, key := range k.Properties {
			kloc := append(slices.Clone(loc), key)
			out = append(out, finding{Notice: Notice{Pos: at(kloc), Msg: unknownKey(js, e.SchemaURL, key)}, loc: kloc})
		}
		return out
	case *kind.FalseSchema:
		if len(loc) > 0 && (strings.HasSuffix(e.SchemaURL, "/unevaluatedProperties") || strings.HasSuffix(e.SchemaURL, "/additionalProperties")) {
			key := loc[len(loc)-1]
			parent := strings.TrimSuffix(strings.TrimSuffix(e.SchemaURL, "/unevaluatedProperties"), "/additionalProperties")
			keys := js.keysAt(parent)
			if slices.Contains(keys, key) {
				return []finding{{Notice: Notice{Pos: at(loc), Msg: fmt.Sprintf("the value of %q breaks the standard's rules for it here", key)}, loc: loc, unevaluated: true}}
			}
			return []finding{{Notice: Notice{Pos: at(loc), Msg: unknownKey(js, parent, key)}, loc: loc}}
		}
	case *kind.Not:
		if m, ok := js.lookup(schemaTokens(e.SchemaURL + "/not")).(map[string]any); ok {
			if req, ok := m["required"].([]any); ok && len(m) == 1 {
				var keys []string
				for _, r := range req {
					keys = append(keys, fmt.Sprint(r))
				}
				return []finding{{Notice: Notice{Pos: at(loc), Msg: "must not have " + quotedList(keys) + " here"}, loc: loc}}
			}
		}
	case *kind.OneOf:
		if len(k.Subschemas) > 1 {
			msg := "matches several of the standard's forms here, where it must match exactly one"
			if len(loc) >= 2 && loc[len(loc)-2] == "quality" {
				msg = "has several operators; a quality entry takes one (mustBe, mustBeLessThan …)"
			}
			return []finding{{Notice: Notice{Pos: at(loc), Msg: msg}, loc: loc, several: true}}
		}
	case *kind.Required:
		return []finding{{Notice: Notice{Pos: at(loc), Msg: "missing " + quotedList(k.Missing) + ", which the standard requires here"}, loc: loc}}
	case *kind.Type:
		return []finding{{Notice: Notice{Pos: at(loc), Msg: fmt.Sprintf("is %s; the standard wants %s", article(k.Got), orList(k.Want))}, loc: loc}}
	case *kind.Enum:
		var want []string
		for _, w := range k.Want {
			b, _ := json.Marshal(w)
			want = append(want, string(b))
		}
		got, _ := json.Marshal(k.Got)
		msg := fmt.Sprintf("%s is not one of %s", got, strings.Join(want, ", "))
		if text, ok := k.Got.(string); ok {
			var names []string
			for _, w := range k.Want {
				if n, ok := w.(string); ok {
					names = append(names, n)
				}
			}
			if near := nearest(text, names); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
		}
		return []finding{{Notice: Notice{Pos: at(loc), Msg: msg}, loc: loc}}
	case *kind.MinItems:
		return []finding{{Notice: Notice{Pos: at(loc), Msg: fmt.Sprintf("has %s; the standard wants at least %d", items(k.Got), k.Want)}, loc: loc}}
	case *kind.MaxItems:
		return []finding{{Notice: Notice{Pos: at(loc), Msg: fmt.Sprintf("has %s; the standard wants at most %d", items(k.Got), k.Want)}, loc: loc}}
	case *kind.UniqueItems:
		return []finding{{Notice: Notice{Pos: at(loc), Msg: fmt.Sprintf("items %d and %d are the same; the standard wants each once", k.Duplicates[0], k.Duplicates[1])}, loc: loc}}
	case *kind.Const:
		want, _ := json.Marshal(k.Want)
		return []finding{{Notice: Notice{Pos: at(loc), Msg: fmt.Sprintf("must be %s", want)}, loc: loc}}
	}
	return []finding{{Notice: Notice{Pos: at(loc), Msg: e.ErrorKind.LocalizedString(printer)}, loc: loc}}
}

// lookup is the value at a JSON pointer's tokens.
func (d *document) lookup(tokens []string) any { return valueAt(d.root, tokens) }

// valueAt is the value at tokens (unescaped) under v; nil when there is none.
func valueAt(v any, tokens []string) any {
	for _, t := range tokens {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// path is the contract path of a JSON pointer's tokens: schema[0].properties[2].quality.
func (d *document) path(tokens []string) string {
	var b strings.Builder
	ptr := ""
	for _, t := range tokens {
		if d.arrays[ptr] {
			b.WriteString("[" + t + "]")
		} else {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(t)
		}
		ptr += "/" + escapePointer(t)
	}
	return b.String()
}

// unknownKey says a key is not the standard's, with the nearest key the schema has there.
func unknownKey(js *jsonSchema, schemaURL, key string) string {
	msg := fmt.Sprintf("unknown key %q", key)
	if js.allKeys()[key] {
		msg = fmt.Sprintf("%q is not a key the standard allows here", key)
	}
	if near := nearest(key, js.keysAt(schemaURL)); near != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return msg
}

// schemaTokens are the JSON pointer tokens of a schema location's fragment.
func schemaTokens(schemaURL string) []string {
	_, frag, _ := strings.Cut(schemaURL, "#")
	return strings.Split(strings.TrimPrefix(frag, "/"), "/")
}

// keysAt lists the property names the schema object at schemaURL declares,
// through its $ref, allOf, anyOf, oneOf, if/then/else.
func (js *jsonSchema) keysAt(schemaURL string) []string {
	node := js.lookup(schemaTokens(schemaURL))
	var keys []string
	seen := map[string]bool{}
	var walk func(n any, depth int)
	walk = func(n any, depth int) {
		m, ok := n.(map[string]any)
		if !ok || depth > 6 {
			return
		}
		if props, ok := m["properties"].(map[string]any); ok {
			for k := range props {
				if !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		}
		if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#/") {
			walk(js.lookup(strings.Split(strings.TrimPrefix(ref, "#/"), "/")), depth+1)
		}
		for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
			if list, ok := m[kw].([]any); ok {
				for _, s := range list {
					walk(s, depth+1)
				}
			}
		}
		for _, kw := range []string{"if", "then", "else"} {
			walk(m[kw], depth+1)
		}
	}
	walk(node, 0)
	sort.Strings(keys)
	return keys
}

// allKeys is every property name the schema declares anywhere.
func (js *jsonSchema) allKeys() map[string]bool {
	js.keysOnce.Do(func() {
		js.keys = map[string]bool{}
		var walk func(n any)
		walk = func(n any) {
			switch v := n.(type) {
			case map[string]any:
				if props, ok := v["properties"].(map[string]any); ok {
					for k := range props {
						js.keys[k] = true
					}
				}
				for _, c := range v {
					walk(c)
				}
			case []any:
				for _, c := range v {
					walk(c)
				}
			}
		}
		walk(js.doc)
	})
	return js.keys
}

// lookup finds the schema value at a JSON pointer's (escaped) tokens.
func (js *jsonSchema) lookup(tokens []string) any {
	unescaped := make([]string, 0, len(tokens))
	for _, t := range tokens {
		if t != "" {
			unescaped = append(unescaped, strings.NewReplacer("~1", "/", "~0", "~").Replace(t))
		}
	}
	return valueAt(js.doc, unescaped)
}

// nearest is the candidate closest to key (edits, a swap of neighbours counting one), when it is
// close enough to be a misspelling of it.
func nearest(key string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := min(editDistance(strings.ToLower(key), strings.ToLower(c)), editDistance(singular(key), singular(c)))
		limit := 2
		if len(key) <= 4 {
			limit = 1
		}
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// singular is a key in lower case without its plural ending: slaProperties and slaProperty are
// the same key misspelt.
func singular(key string) string {
	k := strings.ToLower(key)
	switch {
	case strings.HasSuffix(k, "ies"):
		return strings.TrimSuffix(k, "ies") + "y"
	case strings.HasSuffix(k, "s"):
		return strings.TrimSuffix(k, "s")
	}
	return k
}

// editDistance is the optimal string alignment distance of a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

func items(n int) string {
	if n == 1 {
		return "1 item"
	}
	return strconv.Itoa(n) + " items"
}

func quotedList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}

func orList(types []string) string {
	if len(types) <= 1 {
		return article(strings.Join(types, ""))
	}
	return article(types[0]) + " or " + orList(types[1:])
}

func article(t string) string {
	switch t {
	case "":
		return "nothing"
	case "null":
		return "null"
	case "array", "object", "integer":
		return "an " + t
	}
	return "a " + t
}
