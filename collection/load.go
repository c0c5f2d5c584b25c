package collection

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/schema"
)

// MaxFileSize is the largest collection file that is read.
const MaxFileSize = 1 << 20

// LoadOption changes how a collection file is loaded.
type LoadOption func(*loadConfig)

type loadConfig struct {
	root      string
	contracts ContractLoader
}

// WithRoot lets the members' schema and contract files be anywhere under dir. Without it, they
// must be in the collection file's folder tree, as a schema's `extends` must.
func WithRoot(dir string) LoadOption { return func(c *loadConfig) { c.root = dir } }

// ContractLoader makes the schema of a member's data contract (c.Path, read as c says), and
// sets c.Notices. Its declaration problems come as *schema.Errors, each with the contract's
// file and line.
type ContractLoader func(ctx context.Context, member string, c *Contract) (*schema.Schema, error)

// WithContracts reads the members that name a data contract (`contract: FILE`) with load.
// Without it, such a member is a declaration error. The facade's LoadCollection reads ODCS
// contracts with it.
func WithContracts(load ContractLoader) LoadOption {
	return func(c *loadConfig) { c.contracts = load }
}

// LoadFile reads a collection file (YAML, or JSON) and the members' schema files, which are named
// relative to it, and validates the collection. The error is a syntax error with its line (and
// no collection), or *schema.Errors listing every declaration problem at once, the members'
// schemas' included; the collection read so far comes with it, so that
// compile.CompileCollection reports those problems with its own (the SQL filters').
func LoadFile(ctx context.Context, path string, opts ...LoadOption) (*Collection, error) {
	f, err := filekind.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read collection: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read collection: %w", err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: the collection file is larger than %d MiB", path, MaxFileSize>>20)
	}
	return Parse(ctx, data, path, opts...)
}

// Parse reads a collection from YAML or JSON text; file names it in messages, and the members'
// schema files are read relative to its folder.
func Parse(ctx context.Context, data []byte, file string, opts ...LoadOption) (*Collection, error) {
	var cfg loadConfig
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.root == "" {
		cfg.root = filepath.Dir(file)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: the collection file is empty", file)
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: the collection file is empty", file)
		}
		return nil, fmt.Errorf("%s: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	l := &loader{ctx: ctx, file: file, dir: filepath.Dir(file), root: cfg.root, contracts: cfg.contracts, c: &Collection{File: file}}
	l.collection(&doc)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := l.c
	c.problems = l.problems
	return c, c.Validate()
}

type loader struct {
	ctx       context.Context
	file, dir string
	root      string
	contracts ContractLoader
	c         *Collection
	problems  []error
}

func (l *loader) pos(n *yaml.Node) schema.Pos { return schema.Pos{File: l.file, Line: n.Line} }

func (l *loader) bad(n *yaml.Node, key, format string, args ...any) {
	name := "collection"
	if l.c.Name != "" {
		name = "collection " + l.c.Name
	}
	l.problems = append(l.problems, &schema.DeclarationError{Schema: name, Pos: l.pos(n), Key: key, Msg: fmt.Sprintf(format, args...)})
}

func pairs(n *yaml.Node) [][2]*yaml.Node {
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
	}
	return out
}

// mapping checks that n is a mapping with only the keys allowed, each once.
func (l *loader) mapping(n *yaml.Node, what string, allowed ...string) bool {
	if n.Kind != yaml.MappingNode {
		l.bad(n, "", "%s is a mapping with keys %s", what, strings.Join(allowed, ", "))
		return false
	}
	seen := map[string]bool{}
	for _, kv := range pairs(n) {
		k := kv[0].Value
		switch {
		case !slices.Contains(allowed, k):
			l.bad(kv[0], k, "%s has no key %q; its keys are %s", what, k, strings.Join(allowed, ", "))
		case seen[k]:
			l.bad(kv[0], k, "%s gives %q twice; give each key once", what, k)
		}
		seen[k] = true
	}
	return true
}

func (l *loader) str(n *yaml.Node, key string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		l.bad(n, key, "%s is a string", key)
		return ""
	}
	return n.Value
}

func (l *loader) boolean(n *yaml.Node, key string) bool {
	var b bool
	if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
		l.bad(n, key, "%s is true or false; got %q", key, n.Value)
	}
	return b
}

var collectionKeys = []string{"collection", "description", "members", "filters", "references"}

func (l *loader) collection(doc *yaml.Node) {
	root := doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	l.c.pos = l.pos(root)
	if !l.mapping(root, "a collection file", collectionKeys...) {
		return
	}
	for _, kv := range pairs(root) {
		if kv[0].Value == "collection" {
			l.c.Name = l.str(kv[1], "collection")
		}
	}
	for _, kv := range pairs(root) {
		switch kv[0].Value {
		case "members":
			l.c.membersPos = l.pos(kv[0])
			l.members(kv[1])
		case "filters":
			l.filters(kv[1])
		case "references":
			l.references(kv[1])
		}
	}
}

// memberKeys are a member's keys in its mapping form; object, lengths, allow_lossy and
// references go with contract.
var memberKeys = []string{"schema", "contract", "object", "lengths", "allow_lossy", "references", "optional", "ignored_in_filters", "propagate_row_failures"}

func (l *loader) members(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		l.bad(n, "members", "members is a mapping of member names to schema files ({schema: FILE, optional: true, …} or {contract: FILE, …})")
		return
	}
	for _, kv := range pairs(n) {
		m := &Member{Name: kv[0].Value, pos: l.pos(kv[0])}
		val := kv[1]
		var path string
		var pathNode, contractNode *yaml.Node
		var contract Contract
		var contractOnly []*yaml.Node // keys that need contract
		badLengths := false
		switch val.Kind {
		case yaml.ScalarNode:
			path, pathNode = l.str(val, m.Name), val
		case yaml.MappingNode:
			if !l.mapping(val, "member "+m.Name, memberKeys...) {
				continue
			}
			for _, o := range pairs(val) {
				switch o[0].Value {
				case "schema":
					path, pathNode = l.str(o[1], "schema"), o[1]
				case "contract":
					contract.File, contractNode = l.str(o[1], "contract"), o[1]
				case "object":
					contract.Object = l.str(o[1], "object")
					contractOnly = append(contractOnly, o[0])
				case "lengths":
					contract.Lengths = l.str(o[1], "lengths")
					if badLengths = contract.Lengths != "chars" && contract.Lengths != "bytes"; badLengths {
						l.bad(o[1], "lengths", "member %s: lengths %q: use chars or bytes", m.Name, contract.Lengths)
					}
					contractOnly = append(contractOnly, o[0])
				case "allow_lossy":
					contract.AllowLossy = l.boolean(o[1], "allow_lossy")
					contractOnly = append(contractOnly, o[0])
				case "references":
					contract.References = l.contractReferences(o[1], m.Name)
					contractOnly = append(contractOnly, o[0])
				case "optional":
					m.Optional = l.boolean(o[1], "optional")
				case "ignored_in_filters":
					m.IgnoredInFilters = l.boolean(o[1], "ignored_in_filters")
				case "propagate_row_failures":
					m.PropagateRowFailures = l.boolean(o[1], "propagate_row_failures")
				}
			}
			switch {
			case pathNode != nil && contractNode != nil:
				l.bad(contractNode, m.Name, "member %s names a schema file and a contract: give one of them", m.Name)
			case pathNode == nil && contractNode == nil:
				l.bad(kv[0], m.Name, "member %s names no schema file (schema: FILE) and no data contract (contract: FILE)", m.Name)
			}
			if contractNode == nil {
				for _, k := range contractOnly {
					l.bad(k, k.Value, "member %s: %s applies to a member read from a data contract (contract: FILE)", m.Name, k.Value)
				}
			}
		default:
			l.bad(val, m.Name, "member %s is a schema file or a mapping {schema: FILE, optional: …} or {contract: FILE, object: …}", m.Name)
		}
		switch {
		case path != "" && contractNode == nil:
			m.Schema = l.schema(pathNode, m.Name, path)
		case contract.File != "" && pathNode == nil && !badLengths:
			m.Contract = &contract
			m.Schema = l.contract(contractNode, m.Name, m.Contract)
		}
		l.c.Members = append(l.c.Members, m)
	}
}

// contractReferences reads a member's references: the data of the objects its contract's
// relationships point to, object → input, relative paths read from the collection file's folder.
func (l *loader) contractReferences(n *yaml.Node, member string) map[string]string {
	if n.Kind != yaml.MappingNode {
		l.bad(n, "references", "member %s: references is a mapping of the contract's objects to their data ({customers: customers.parquet})", member)
		return nil
	}
	out := map[string]string{}
	for _, kv := range pairs(n) {
		in := l.str(kv[1], kv[0].Value)
		if in == "" {
			continue
		}
		if !strings.Contains(in, "://") && !filepath.IsAbs(in) {
			in = filepath.Join(l.dir, in)
		}
		out[kv[0].Value] = in
	}
	return out
}

// contract makes a member's schema of its data contract, named relative to the collection file;
// the contract's declaration problems join the collection's.
func (l *loader) contract(n *yaml.Node, member string, c *Contract) *schema.Schema {
	if l.contracts == nil {
		l.bad(n, member, "member %s names a data contract, which this loader does not read: load the collection with tablegate.LoadCollection", member)
		return nil
	}
	c.Path = c.File
	if !filepath.IsAbs(c.Path) {
		c.Path = filepath.Join(l.dir, c.File)
	}
	if err := inside(l.root, c.Path); err != nil {
		l.bad(n, member, "member %s: contract %s: %v", member, c.File, err)
		return nil
	}
	s, err := l.contracts(l.ctx, member, c)
	var errs *schema.Errors
	switch {
	case errors.As(err, &errs):
		l.problems = append(l.problems, errs.Problems...)
		return nil
	case err != nil:
		l.bad(n, member, "member %s: contract %s: %v", member, c.File, err)
		return nil
	}
	return s
}

// schema loads a member's schema file, named relative to the collection file; its declaration
// problems join the collection's.
func (l *loader) schema(n *yaml.Node, member, path string) *schema.Schema {
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(l.dir, path)
	}
	if err := inside(l.root, full); err != nil {
		l.bad(n, member, "member %s: schema %s: %v", member, path, err)
		return nil
	}
	s, err := schema.LoadFileContext(l.ctx, full, schema.WithRoot(l.root))
	var errs *schema.Errors
	switch {
	case errors.As(err, &errs):
		l.problems = append(l.problems, errs.Problems...)
		return nil
	case err != nil:
		l.bad(n, member, "member %s: %v", member, err)
		return nil
	}
	return s
}

// inside refuses a path outside root (after symbolic links).
func inside(root, path string) error {
	r, err := filepath.Abs(root)
	if err == nil {
		r, err = filepath.EvalSymlinks(r)
	}
	if err != nil {
		return err
	}
	p, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if q, err := filepath.EvalSymlinks(p); err == nil {
		p = q
	}
	rel, err := filepath.Rel(r, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("is outside the collection's folder %s (load it with a root that holds both)", root)
	}
	return nil
}

func (l *loader) filters(n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		l.bad(n, "filters", "filters is a list of {name: NAME, one_to_one: [a, b]} (or one_to_at_least_one: [a, b], or sql: CONDITION with member: NAME)")
		return
	}
	for _, item := range n.Content {
		f := Filter{pos: l.pos(item)}
		if !l.mapping(item, "a filter", "name", "one_to_one", "one_to_at_least_one", "sql", "member", "description", "severity") {
			continue
		}
		kinds := 0
		for _, kv := range pairs(item) {
			switch k := kv[0].Value; k {
			case "name":
				f.Name = l.str(kv[1], "name")
			case "one_to_one", "one_to_at_least_one":
				kinds++
				f.Kind = FilterKind(k)
				if kv[1].Kind != yaml.SequenceNode {
					l.bad(kv[1], k, "%s is a list of two members, [a, b]", k)
					continue
				}
				for _, m := range kv[1].Content {
					f.Members = append(f.Members, l.str(m, k))
				}
			case "sql":
				kinds++
				f.Kind, f.SQL = SQL, l.str(kv[1], "sql")
			case "severity":
				f.Severity = l.severity(kv[1])
			}
		}
		for _, kv := range pairs(item) {
			if kv[0].Value == "member" {
				if f.Kind != SQL {
					l.bad(kv[0], "member", "member is a sql filter's key; a relationship names its members in its list")
					continue
				}
				f.Members = []string{l.str(kv[1], "member")}
			}
		}
		if f.Name == "" {
			l.bad(item, "name", "a filter has no name (name: NAME); it names the filter's rule")
		}
		if kinds != 1 {
			f.Kind = "" // Validate says what to give
		}
		l.c.Filters = append(l.c.Filters, f)
	}
}

// severity reads a filter's or a reference's severity: error or warn.
func (l *loader) severity(n *yaml.Node) schema.Severity {
	v := schema.Severity(l.str(n, "severity"))
	if v != "" && v != schema.Error && v != schema.Warn {
		l.bad(n, "severity", "severity is %q; use \"error\" or \"warn\"", v)
		return ""
	}
	return v
}

func (l *loader) references(n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		l.bad(n, "references", "references is a list of {name: NAME, from: member.column, to: member.column}")
		return
	}
	for _, item := range n.Content {
		r := Reference{pos: l.pos(item)}
		if !l.mapping(item, "a reference", "name", "from", "to", "description", "severity") {
			continue
		}
		for _, kv := range pairs(item) {
			switch kv[0].Value {
			case "name":
				r.Name = l.str(kv[1], "name")
			case "from":
				r.From, r.FromColumn, _ = strings.Cut(l.str(kv[1], "from"), ".")
			case "to":
				r.To, r.ToColumn, _ = strings.Cut(l.str(kv[1], "to"), ".")
			case "severity":
				r.Severity = l.severity(kv[1])
			}
		}
		if r.Name == "" {
			l.bad(item, "name", "a reference has no name (name: NAME); it names the reference's rule")
		}
		l.c.References = append(l.c.References, r)
	}
}
