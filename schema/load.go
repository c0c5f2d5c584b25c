package schema

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/internal/suggest"
)

// MaxFileSize is the largest schema file (the schema itself or one it extends) that is read.
const MaxFileSize = 4 << 20

// LoadOption changes how a schema file is loaded.
type LoadOption func(*loadConfig)

type loadConfig struct {
	root string // "" for the folder of the schema file loaded
}

// WithRoot lets `extends` name files anywhere under dir. Without it, a schema may extend only
// files in its own folder tree: a schema from elsewhere must not read arbitrary files into
// messages and reports.
func WithRoot(dir string) LoadOption { return func(c *loadConfig) { c.root = dir } }

// LoadFile reads a schema file (YAML, or JSON by the .json extension), follows `extends`, and
// validates the result. The error is a syntax error with its line, or *Errors listing every
// declaration problem with file, line, column and key.
func LoadFile(path string, opts ...LoadOption) (*Schema, error) {
	return LoadFileContext(context.Background(), path, opts...)
}

// LoadFileContext is LoadFile, stopped by ctx between files and in long parses.
func LoadFileContext(ctx context.Context, path string, opts ...LoadOption) (*Schema, error) {
	ld, err := newLoad(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	return ld.file(path, path, nil)
}

// Parse reads a schema from YAML or JSON text; file names the source in messages (its extension
// picks JSON syntax checking for .json). `extends` is resolved relative to file's folder.
func Parse(data []byte, file string, opts ...LoadOption) (*Schema, error) {
	return ParseContext(context.Background(), data, file, opts...)
}

// ParseContext is Parse, stopped by ctx between the files it extends and in long parses.
func ParseContext(ctx context.Context, data []byte, file string, opts ...LoadOption) (*Schema, error) {
	ld, err := newLoad(ctx, file, opts)
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: the schema is larger than %d MiB", file, MaxFileSize>>20)
	}
	abs, _ := filepath.Abs(file)
	s, err := ld.parse(data, file, []string{abs})
	if err != nil {
		return nil, err
	}
	return s, s.Validate()
}

// load is one loading of a schema and the files it extends.
type load struct {
	ctx  context.Context
	root string // absolute, symbolic links resolved
	// rootErr is why the root cannot be resolved, reported when extends needs it.
	rootErr error
}

func newLoad(ctx context.Context, path string, opts []LoadOption) (*load, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var cfg loadConfig
	for _, o := range opts {
		o(&cfg)
	}
	ld := &load{ctx: ctx}
	root := cfg.root
	if root == "" {
		root = filepath.Dir(path)
	}
	abs, err := filepath.Abs(root)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		if cfg.root != "" {
			return nil, fmt.Errorf("schema root: %w", err)
		}
		ld.rootErr = err
	}
	ld.root = abs
	return ld, nil
}

// file loads the schema file at read, named path in messages.
func (ld *load) file(path, read string, chain []string) (*Schema, error) {
	if err := ld.ctx.Err(); err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(read)
	for _, p := range chain {
		if p == abs {
			return nil, fmt.Errorf("%s: extends forms a cycle: %s", path, strings.Join(append(chain, abs), " -> "))
		}
	}
	data, err := readBounded(read)
	if err != nil {
		return nil, fmt.Errorf("read schema: %w", err)
	}
	s, err := ld.parse(data, path, append(chain, abs))
	if err != nil {
		return nil, err
	}
	return s, s.Validate()
}

// readBounded reads a regular file of at most MaxFileSize bytes. It opens without blocking, so
// that a FIFO is refused rather than waited on, and reads through a limit, so that a file that
// grows while read (or a device) costs at most the limit.
func readBounded(path string) ([]byte, error) {
	f, err := filekind.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s is %d bytes; a schema file may have at most %d MiB", path, info.Size(), MaxFileSize>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s grew past %d MiB while read", path, MaxFileSize>>20)
	}
	return data, nil
}

// resolve finds the file an `extends` names, relative to the extending file's folder (path, for
// messages), and refuses one outside the root, also through a symbolic link (real, to read).
func (ld *load) resolve(from, name string) (path, real string, err error) {
	path = name
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(from), name)
	}
	if ld.rootErr != nil {
		return "", "", fmt.Errorf("the schema's folder: %w", ld.rootErr)
	}
	if real, err = filepath.EvalSymlinks(path); err != nil {
		return "", "", err
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", "", err
	}
	rel, err := filepath.Rel(ld.root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", fmt.Errorf("%s is outside %s; a schema extends only files under its own folder unless a wider root is allowed (tablegate --schema-root)", excerpt(name), ld.root)
	}
	return path, real, nil
}

// excerpt is at most 32 characters of text read from a file, control characters replaced, for
// a message: a file that is not a schema (a key, a password file) must not come out whole in an
// error or a report.
func excerpt(s string) string { return clip(s, 32) }

// excerptMessage is a parser's message, clipped like an excerpt, in case it quotes the file.
func excerptMessage(s string) string { return clip(s, 160) }

func clip(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max {
			b.WriteString("…")
			break
		}
		switch {
		case unicode.IsSpace(r):
			r = ' '
		case r == utf8.RuneError || !unicode.IsPrint(r):
			r = '?'
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

func (ld *load) parse(data []byte, file string, chain []string) (*Schema, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: the schema file is empty", file)
	}
	if strings.EqualFold(filepath.Ext(file), ".json") {
		var probe any
		if err := json.Unmarshal(data, &probe); err != nil {
			return nil, jsonSyntaxError(data, file, err)
		}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: the schema file is empty", file)
		}
		if line := tabIndented(data); line > 0 {
			return nil, fmt.Errorf("%s: line %d: is indented with a tab; YAML indents with spaces only, so replace the tabs with spaces", file, line)
		}
		return nil, yamlSyntaxError(ld.ctx, data, file, err)
	}
	l := &loader{ld: ld, file: file, chain: chain}
	s := l.schema(&doc)
	return s, nil
}

// tabIndented returns the first line (from 1) whose indentation holds a tab, or 0: YAML refuses
// tabs there with a message about tokens that does not say so.
func tabIndented(data []byte) int {
	for i, line := range bytes.Split(data, []byte("\n")) {
		indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
		if bytes.IndexByte(indent, '\t') >= 0 {
			return i + 1
		}
	}
	return 0
}

func jsonSyntaxError(data []byte, file string, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		col := int(se.Offset) - bytes.LastIndexByte(data[:min(int(se.Offset), len(data))], '\n') - 1
		return fmt.Errorf("%s:%d:%d: invalid JSON: %s", file, line, col, excerptMessage(se.Error()))
	}
	return fmt.Errorf("%s: invalid JSON: %s", file, excerptMessage(err.Error()))
}

var (
	yamlLinePrefix = regexp.MustCompile(`^yaml: (line \d+: )?`)
	yamlLineNumber = regexp.MustCompile(`^yaml: line (\d+): `)
)

// yamlSyntaxError adds the line and column of a YAML syntax error. The YAML library reports only
// a line, and for a block that breaks off (a mis-indented key) the line where the block began.
// The problem is found as the first prefix of the file (whole lines, then characters of the
// failing line) that fails with the same message; when none does, the library's line is kept.
func yamlSyntaxError(ctx context.Context, data []byte, file string, err error) error {
	msg := yamlLinePrefix.ReplaceAllString(err.Error(), "")
	shown := excerptMessage(msg)
	budget := 4 << 20 // bytes parsed in all, so that a large file costs a bounded time
	fails := func(prefix []byte) bool {
		budget -= len(prefix)
		var n yaml.Node
		e := yaml.NewDecoder(bytes.NewReader(prefix)).Decode(&n)
		return e != nil && !errors.Is(e, io.EOF) && yamlLinePrefix.ReplaceAllString(e.Error(), "") == msg
	}
	// The problem is at or after the line the library names.
	from := 0
	if m := yamlLineNumber.FindStringSubmatch(err.Error()); m != nil {
		from, _ = strconv.Atoi(m[1])
		from--
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	start := 0
	for i, line := range lines {
		end := start + len(line)
		if budget < 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if i >= from && fails(data[:end]) {
			if len(line) <= 500 {
				for c := 1; c <= len(line) && budget >= 0; c++ {
					if fails(data[:start+c]) {
						return fmt.Errorf("%s: line %d: %s (column %d)", file, i+1, shown, c)
					}
				}
			}
			return fmt.Errorf("%s: line %d: %s", file, i+1, shown)
		}
		start = end
	}
	return fmt.Errorf("%s: %s", file, excerptMessage(strings.TrimPrefix(err.Error(), "yaml: ")))
}

// duplicateKeys reports every mapping key given twice, with the column it is under: YAML
// forbids it, and reading the last one would silently drop a bound or a rule.
func (l *loader) duplicateKeys(n *yaml.Node, column string) {
	if n.Kind != yaml.MappingNode {
		for _, c := range n.Content {
			l.duplicateKeys(c, column)
		}
		return
	}
	seen := map[string]*yaml.Node{}
	for _, kv := range pairs(n) {
		k, v := kv[0], kv[1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if first, ok := seen[k.Value]; ok {
			l.bad(k, column, excerpt(k.Value), "given twice (first on line %d); give each key once", first.Line)
		} else {
			seen[k.Value] = k
		}
		if column == "" && k.Value == "columns" && v.Kind == yaml.SequenceNode {
			for _, c := range v.Content {
				l.duplicateKeys(c, columnName(c))
			}
			continue
		}
		l.duplicateKeys(v, column)
	}
}

// columnName is the name a column entry declares, "" when it has none yet.
func columnName(n *yaml.Node) string {
	for _, kv := range pairs(n) {
		if kv[0].Value == "name" && kv[1].Kind == yaml.ScalarNode {
			return kv[1].Value
		}
	}
	return ""
}

type loader struct {
	ld       *load
	file     string
	chain    []string
	name     string
	problems []error
	// depth is the nesting level of the column being read: past MaxNestingDepth its inner
	// columns are not read (Validate reports the column), so a deep file costs the limit's depth.
	depth int
}

func (l *loader) pos(n *yaml.Node) Pos { return Pos{File: l.file, Line: n.Line} }

func (l *loader) bad(n *yaml.Node, column, key, format string, args ...any) {
	l.problems = append(l.problems, &DeclarationError{Schema: l.name, Pos: l.pos(n), Column: column, Key: key, Msg: fmt.Sprintf(format, args...)})
}

func kindOf(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.Tag {
	case "!!null":
		return "null"
	case "!!str":
		return fmt.Sprintf("the string %q", excerpt(n.Value))
	case "!!bool":
		return "the boolean " + n.Value
	}
	return excerpt(n.Value)
}

// pairs walks a mapping's keys and values in order.
func pairs(n *yaml.Node) [][2]*yaml.Node {
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
	}
	return out
}

var schemaKeys = []string{"schema", "description", "extends", "columns", "rules", "severity", "tolerance", "table_checks", "contract"}

func (l *loader) schema(doc *yaml.Node) *Schema {
	root := doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	s := &Schema{File: l.file}
	if root.Kind != yaml.MappingNode {
		l.bad(root, "", "", "a schema file is a mapping with keys %s; got %s", strings.Join(schemaKeys, ", "), kindOf(root))
		s.problems = l.problems
		return s
	}
	// The name first, so that every message can carry it.
	for _, kv := range pairs(root) {
		if kv[0].Value == "schema" {
			s.Name = l.str(kv[1], "", "schema")
		}
	}
	l.name = s.Name
	l.duplicateKeys(root, "")
	var parent *Schema
	var own []*Column
	for _, kv := range pairs(root) {
		key, val := kv[0], kv[1]
		switch key.Value {
		case "schema":
		case "description":
			s.Description = l.str(val, "", "description")
		case "extends":
			parent = l.extends(val)
		case "columns":
			if val.Kind != yaml.SequenceNode {
				l.bad(val, "", "columns", "columns is a list of columns; got %s", kindOf(val))
				continue
			}
			for _, cn := range val.Content {
				if c := l.column(cn, "", true); c != nil {
					own = append(own, c)
				}
			}
		case "rules":
			s.Rules = l.rules(val)
		case "severity":
			s.Severity = l.severity(val, "")
		case "tolerance":
			s.Tolerance = l.tolerance(val, "")
		case "table_checks":
			s.TableChecks = l.tableChecks(val)
		case "contract":
			s.Contract = l.contract(val)
		default:
			l.bad(key, "", excerpt(key.Value), "unknown key '%s'%s; a schema has %s", excerpt(key.Value), suggest.Hint(key.Value, schemaKeys), strings.Join(schemaKeys, ", "))
		}
	}
	if parent != nil {
		child := Extends(parent, s.Name, own...)
		child.File, child.Description = s.File, firstNonEmpty(s.Description, parent.Description)
		child.Rules = append(child.Rules, s.Rules...)
		child.TableChecks = append(child.TableChecks, s.TableChecks...)
		child.Severity = mergeSeverity(parent.Severity, s.Severity)
		child.Tolerance = mergeTolerance(parent.Tolerance, s.Tolerance)
		child.Contract = s.Contract
		child.problems = append(child.problems, l.problems...)
		return child
	}
	s.Columns = own
	s.problems = l.problems
	return s
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// mergeSeverity lays the child's schema-level declarations over the parent's.
func mergeSeverity(parent, child SeveritySpec) SeveritySpec {
	out := copySeverity(parent)
	if child.All != "" || child.Invalid != "" {
		out.All, out.Invalid = child.All, child.Invalid
	}
	out.PerRule = append(out.PerRule, child.PerRule...)
	return out
}

func (l *loader) extends(val *yaml.Node) *Schema {
	name := l.str(val, "", "extends")
	if name == "" {
		return nil
	}
	path, real, err := l.ld.resolve(l.file, name)
	if err != nil {
		l.bad(val, "", "extends", "cannot load the parent schema: %v", err)
		return nil
	}
	parent, err := l.ld.file(path, real, l.chain)
	if parent == nil {
		l.bad(val, "", "extends", "cannot load the parent schema: %v", err)
		return nil
	}
	if err != nil {
		// The parent's own problems are reported with the parent's file and lines.
		var errs *Errors
		if errors.As(err, &errs) {
			l.problems = append(l.problems, errs.Problems...)
		} else {
			l.problems = append(l.problems, err)
		}
		parent.problems = nil
	}
	return parent
}

func (l *loader) str(n *yaml.Node, column, key string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		l.bad(n, column, key, "%s must be a string; got %s", key, kindOf(n))
		return ""
	}
	return n.Value
}

func (l *loader) boolean(n *yaml.Node, column, key string) bool {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		l.bad(n, column, key, "%s must be true or false; got %s", key, kindOf(n))
		return false
	}
	return n.Value == "true"
}

func (l *loader) integer(n *yaml.Node, column, key string) (int64, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		l.bad(n, column, key, "%s must be a whole number; got %s", key, kindOf(n))
		return 0, false
	}
	v, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil {
		l.bad(n, column, key, "%s must be a whole number; got %s", key, excerpt(n.Value))
		return 0, false
	}
	return v, true
}

func (l *loader) value(n *yaml.Node, column, key string) *Value {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Tag == "!!bool" {
		l.bad(n, column, key, "%s must be a number or a string; got %s", key, kindOf(n))
		return nil
	}
	text := n.Value
	if n.Tag == "!!float" {
		switch strings.ToLower(strings.TrimPrefix(text, "+")) {
		case ".inf":
			text = "inf"
		case "-.inf":
			text = "-inf"
		case ".nan":
			text = "nan"
		}
	}
	return &Value{Text: text, IsString: n.Tag == "!!str"}
}

var columnKeys = []string{
	"name", "type", "description", "nullable", "primary_key", "unique", "check", "min", "min_exclusive",
	"max", "max_exclusive", "is_in", "regex", "min_length", "max_length", "allow_inf", "allow_nan",
	"resolution", "severity", "tolerance", "precision", "scale", "time_unit", "time_zone", "categories", "inner",
	"shape", "fields", "references",
}

// column reads one column; named is false for a List/Array inner column, which has no name.
func (l *loader) column(n *yaml.Node, parent string, named bool) *Column {
	if n.Kind != yaml.MappingNode {
		l.bad(n, parent, "columns", "a column is a mapping with name and type; got %s", kindOf(n))
		return nil
	}
	c := &Column{pos: l.pos(n)}
	label := parent
	for _, kv := range pairs(n) {
		if kv[0].Value == "name" {
			c.Name = l.str(kv[1], parent, "name")
			if parent == "" {
				label = c.Name
			} else {
				label = parent + "." + c.Name
			}
		}
	}
	if named && c.Name == "" {
		l.bad(n, parent, "name", "the column has no name")
	}
	if !named && c.Name != "" {
		l.bad(n, parent, "name", "an inner column has no name")
	}
	if !named {
		label = parent + "[]"
	}
	var typeNode *yaml.Node
	for _, kv := range pairs(n) {
		if kv[0].Value == "type" {
			typeNode = kv[1]
		}
	}
	if typeNode == nil {
		l.bad(n, label, "type", "the column has no type; use one of %s", strings.Join(KindNames(), ", "))
	} else if k, ok := ParseKind(l.str(typeNode, label, "type")); ok {
		c.DType.Kind = k
		if k == KindAny {
			c.Args.Nullable = true
		}
		if k == KindDatetime || k == KindDuration {
			c.DType.TimeUnit = Micros
		}
	} else if typeNode.Kind == yaml.ScalarNode && typeNode.Tag != "!!null" {
		l.bad(typeNode, label, "type", "unknown type %q%s; use one of %s", excerpt(typeNode.Value), suggest.Hint(typeNode.Value, KindNames()), strings.Join(KindNames(), ", "))
	}
	a := &c.Args
	for _, kv := range pairs(n) {
		key, val := kv[0], kv[1]
		switch key.Value {
		case "name", "type":
		case "description":
			a.Description = l.str(val, label, key.Value)
		case "nullable":
			a.Nullable = l.boolean(val, label, key.Value)
		case "primary_key":
			a.PrimaryKey = l.boolean(val, label, key.Value)
		case "unique":
			a.Unique = l.boolean(val, label, key.Value)
		case "allow_inf":
			a.AllowInf = l.boolean(val, label, key.Value)
		case "allow_nan":
			a.AllowNaN = l.boolean(val, label, key.Value)
		case "check":
			a.Checks = l.checks(val, label)
		case "min":
			a.Min = l.value(val, label, key.Value)
		case "min_exclusive":
			a.MinExclusive = l.value(val, label, key.Value)
		case "max":
			a.Max = l.value(val, label, key.Value)
		case "max_exclusive":
			a.MaxExclusive = l.value(val, label, key.Value)
		case "is_in":
			a.HasIsIn = true
			if val.Kind != yaml.SequenceNode {
				l.bad(val, label, "is_in", "is_in is a list of values; got %s", kindOf(val))
				continue
			}
			for _, item := range val.Content {
				if v := l.value(item, label, "is_in"); v != nil {
					a.IsIn = append(a.IsIn, *v)
				}
			}
		case "regex":
			r := l.str(val, label, key.Value)
			a.Regex = &r
		case "min_length", "max_length":
			if v, ok := l.integer(val, label, key.Value); ok {
				if key.Value == "min_length" {
					a.MinLength = &v
				} else {
					a.MaxLength = &v
				}
			}
		case "resolution":
			a.Resolution = l.str(val, label, key.Value)
		case "references":
			a.References = l.reference(val, label)
		case "severity":
			a.Severity = l.severity(val, label)
		case "tolerance":
			a.Tolerance = l.tolerance(val, label)
		case "precision", "scale":
			if c.DType.Kind != KindDecimal {
				l.bad(key, label, key.Value, "%s applies to Decimal columns only", key.Value)
				continue
			}
			if v, ok := l.integer(val, label, key.Value); ok {
				if key.Value == "precision" {
					c.DType.Precision = int(v)
				} else {
					c.DType.Scale = int(v)
				}
			}
		case "time_unit":
			if c.DType.Kind != KindDatetime && c.DType.Kind != KindDuration {
				l.bad(key, label, key.Value, "time_unit applies to Datetime and Duration columns only")
				continue
			}
			c.DType.TimeUnit = TimeUnit(l.str(val, label, key.Value))
		case "time_zone":
			if c.DType.Kind != KindDatetime {
				l.bad(key, label, key.Value, "time_zone applies to Datetime columns only")
				continue
			}
			c.DType.TimeZone = l.str(val, label, key.Value)
		case "categories":
			if c.DType.Kind != KindEnum {
				l.bad(key, label, key.Value, "categories applies to Enum columns only")
				continue
			}
			if val.Kind != yaml.SequenceNode {
				l.bad(val, label, "categories", "categories is a list of strings; got %s", kindOf(val))
				continue
			}
			c.DType.Categories = []string{}
			for _, item := range val.Content {
				c.DType.Categories = append(c.DType.Categories, l.str(item, label, "categories"))
			}
		case "inner":
			if c.DType.Kind != KindList && c.DType.Kind != KindArray {
				l.bad(key, label, key.Value, "inner applies to List and Array columns only")
				continue
			}
			if l.depth <= MaxNestingDepth {
				l.depth++
				c.DType.Inner = l.column(val, label, false)
				l.depth--
			}
		case "shape":
			if c.DType.Kind != KindArray {
				l.bad(key, label, key.Value, "shape applies to Array columns only")
				continue
			}
			c.DType.Shape = l.shape(val, label)
		case "fields":
			if c.DType.Kind != KindStruct {
				l.bad(key, label, key.Value, "fields applies to Struct columns only")
				continue
			}
			if val.Kind != yaml.SequenceNode {
				l.bad(val, label, "fields", "fields is a list of named columns; got %s", kindOf(val))
				continue
			}
			if l.depth > MaxNestingDepth {
				continue
			}
			l.depth++
			for _, fn := range val.Content {
				if f := l.column(fn, label, true); f != nil {
					c.DType.Fields = append(c.DType.Fields, f)
				}
			}
			l.depth--
		default:
			l.bad(key, label, excerpt(key.Value), "unknown key '%s'%s; a column takes %s", excerpt(key.Value), suggest.Hint(key.Value, columnKeys), strings.Join(columnKeys, ", "))
		}
	}
	return c
}

func (l *loader) shape(val *yaml.Node, label string) []int {
	if val.Kind == yaml.ScalarNode {
		if v, ok := l.integer(val, label, "shape"); ok {
			return []int{int(v)}
		}
		return nil
	}
	if val.Kind != yaml.SequenceNode {
		l.bad(val, label, "shape", "shape is a size or a list of sizes; got %s", kindOf(val))
		return nil
	}
	var out []int
	for _, item := range val.Content {
		if v, ok := l.integer(item, label, "shape"); ok {
			out = append(out, int(v))
		}
	}
	return out
}

func (l *loader) checks(val *yaml.Node, label string) []Check {
	switch val.Kind {
	case yaml.ScalarNode:
		return []Check{{SQL: l.str(val, label, "check")}}
	case yaml.SequenceNode:
		var out []Check
		for i, item := range val.Content {
			name := strconv.Itoa(i)
			if len(val.Content) == 1 {
				name = "" // a list of one is the rule `check`, as in dataframely
			}
			out = append(out, l.check(item, name, label))
		}
		return out
	case yaml.MappingNode:
		if isSparkPair(val) {
			// {sql: …, spark: …} is one check in two dialects, not two checks named sql and spark.
			return []Check{l.check(val, "", label)}
		}
		var out []Check
		for _, kv := range pairs(val) {
			out = append(out, l.check(kv[1], kv[0].Value, label))
		}
		return out
	}
	l.bad(val, label, "check", "check is SQL, a list of SQL, or a mapping name -> SQL (each SQL may be {sql, spark}); got %s", kindOf(val))
	return nil
}

// isSparkPair reports whether a mapping is exactly {sql: <scalar>, spark: <scalar>}.
func isSparkPair(val *yaml.Node) bool {
	ps := pairs(val)
	if len(ps) != 2 {
		return false
	}
	keys := map[string]bool{}
	for _, kv := range ps {
		keys[kv[0].Value] = kv[1].Kind == yaml.ScalarNode
	}
	return keys["sql"] && keys["spark"]
}

// check reads one check: its SQL, or a mapping {sql, spark} with the Spark SQL form beside it.
func (l *loader) check(val *yaml.Node, name, label string) Check {
	if val.Kind != yaml.MappingNode {
		return Check{Name: name, SQL: l.str(val, label, "check")}
	}
	c := Check{Name: name}
	for _, kv := range pairs(val) {
		switch kv[0].Value {
		case "sql":
			c.SQL = l.str(kv[1], label, "check.sql")
		case "spark":
			c.Spark = l.str(kv[1], label, "check.spark")
		default:
			l.bad(kv[0], label, "check."+excerpt(kv[0].Value), "unknown key '%s'; a check is SQL, or a mapping of sql and spark", excerpt(kv[0].Value))
		}
	}
	return c
}

func (l *loader) severity(val *yaml.Node, label string) SeveritySpec {
	switch val.Kind {
	case yaml.ScalarNode:
		if val.Tag != "!!str" {
			return SeveritySpec{Invalid: kindOf(val)}
		}
		return SeveritySpec{All: Severity(val.Value)}
	case yaml.MappingNode:
		var spec SeveritySpec
		for _, kv := range pairs(val) {
			sev := Severity(kv[1].Value)
			if kv[1].Kind != yaml.ScalarNode {
				sev = Severity(kindOf(kv[1]))
			}
			spec.PerRule = append(spec.PerRule, SeverityEntry{Rule: kv[0].Value, Severity: sev})
		}
		return spec
	}
	return SeveritySpec{Invalid: kindOf(val)}
}

var ruleKeys = []string{"name", "description", "sql", "spark", "group_by", "references"}

func (l *loader) rules(val *yaml.Node) []*Rule {
	if val.Kind != yaml.SequenceNode {
		l.bad(val, "", "rules", "rules is a list of {name, sql, spark, description, group_by}; got %s", kindOf(val))
		return nil
	}
	var out []*Rule
	for _, rn := range val.Content {
		if rn.Kind != yaml.MappingNode {
			l.bad(rn, "", "rules", "a rule is a mapping with name and sql; got %s", kindOf(rn))
			continue
		}
		r := &Rule{pos: l.pos(rn)}
		for _, kv := range pairs(rn) {
			key, v := kv[0], kv[1]
			switch key.Value {
			case "name":
				r.Name = l.str(v, "", "rules.name")
			case "description":
				r.Description = l.str(v, "", "rules.description")
			case "sql":
				r.SQL = l.str(v, "", "rules.sql")
			case "spark":
				r.Spark = l.str(v, "", "rules.spark")
			case "references":
				r.References = l.reference(v, "")
			case "group_by":
				switch v.Kind {
				case yaml.ScalarNode:
					r.GroupBy = []string{l.str(v, "", "rules.group_by")}
				case yaml.SequenceNode:
					for _, g := range v.Content {
						r.GroupBy = append(r.GroupBy, l.str(g, "", "rules.group_by"))
					}
				default:
					l.bad(v, "", "rules.group_by", "group_by is a column name or a list of them; got %s", kindOf(v))
				}
			default:
				l.bad(key, "", "rules."+excerpt(key.Value), "unknown key '%s'%s; a rule takes %s", excerpt(key.Value), suggest.Hint(key.Value, ruleKeys), strings.Join(ruleKeys, ", "))
			}
		}
		if r.Name == "" {
			l.bad(rn, "", "rules.name", "the rule has no name")
		}
		out = append(out, r)
	}
	return out
}
