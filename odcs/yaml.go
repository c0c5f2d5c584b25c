package odcs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tablegate/tablegate/internal/filekind"
)

// MaxFileSize is the largest contract file that is read.
const MaxFileSize = 4 << 20

// APIVersions are the ODCS versions this package reads.
var APIVersions = []string{"v3.0.0", "v3.0.1", "v3.0.2", "v3.1.0", "v3.2.0"}

// LoadFile reads a contract file (YAML or JSON). A path that is not a regular file (a named
// pipe, a device) is refused with a *filekind.Error, without waiting on it.
func LoadFile(path string) (*Contract, error) {
	f, err := filekind.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: the contract is larger than %d MiB", path, MaxFileSize>>20)
	}
	return Parse(data, path)
}

// Parse reads a contract from YAML or JSON text; file names it in messages and positions. It
// refuses a document that is not an ODCS v3 data contract: one that breaks the standard's JSON
// schema of its apiVersion is a *SchemaError listing every violation. It does not judge whether
// the contract can be enforced (package odcs's Import does).
func Parse(data []byte, file string) (*Contract, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: the contract file is empty", file)
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: the contract file is empty", file)
		}
		return nil, fmt.Errorf("%s: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: a data contract is a mapping (apiVersion, kind, id, schema …)", file, root.Line)
	}
	version, line := topScalar(root, "apiVersion")
	if !knownVersion(version) {
		return nil, fmt.Errorf("%s: apiVersion %q is not an ODCS version tablegate reads (%s)", Pos{File: file, Line: line, Path: "apiVersion"}, version, strings.Join(APIVersions, ", "))
	}
	if err := validateDocument(root, file, version); err != nil {
		return nil, err
	}
	var c Contract
	if err := root.Decode(&c); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%s: %s", file, strings.Join(te.Errors, "; "))
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	c.File = file
	c.bind()
	return &c, nil
}

// topScalar is the text and line of a top-level key's scalar value ("" when it has none).
func topScalar(root *yaml.Node, key string) (string, int) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k, v := root.Content[i], root.Content[i+1]; k.Value == key {
			if v.Kind == yaml.ScalarNode {
				return v.Value, k.Line
			}
			return "", k.Line
		}
	}
	return "", root.Line
}

func knownVersion(v string) bool {
	for _, k := range APIVersions {
		if v == k {
			return true
		}
	}
	return false
}

// Marshal writes the contract as YAML.
func Marshal(c *Contract) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// read records where a mapping was written: its line and each key's line.
func read(n *yaml.Node) at {
	a := at{line: n.Line}
	if n.Kind == yaml.MappingNode {
		a.keys = make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			a.keys[n.Content[i].Value] = n.Content[i].Line
		}
	}
	return a
}

func isMapping(n *yaml.Node, what string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s must be a mapping", n.Line, what)
	}
	return nil
}

// UnmarshalYAML reads the contract and where its keys were written.
func (c *Contract) UnmarshalYAML(n *yaml.Node) error {
	type plain Contract
	if err := n.Decode((*plain)(c)); err != nil {
		return err
	}
	c.at = read(n)
	return nil
}

// UnmarshalYAML reads the object and where its keys were written.
func (o *Object) UnmarshalYAML(n *yaml.Node) error {
	if err := isMapping(n, "a schema object"); err != nil {
		return err
	}
	type plain Object
	if err := n.Decode((*plain)(o)); err != nil {
		return err
	}
	o.at = read(n)
	return nil
}

// UnmarshalYAML reads the property and where its keys were written.
func (p *Property) UnmarshalYAML(n *yaml.Node) error {
	if err := isMapping(n, "a property"); err != nil {
		return err
	}
	type plain Property
	if err := n.Decode((*plain)(p)); err != nil {
		return err
	}
	p.at = read(n)
	return nil
}

// UnmarshalYAML reads the options and where their keys were written.
func (o *LogicalTypeOptions) UnmarshalYAML(n *yaml.Node) error {
	if err := isMapping(n, "logicalTypeOptions"); err != nil {
		return err
	}
	type plain LogicalTypeOptions
	if err := n.Decode((*plain)(o)); err != nil {
		return err
	}
	o.at = read(n)
	return nil
}

// UnmarshalYAML reads an enum value ({value: …, label: …}).
func (e *EnumValue) UnmarshalYAML(n *yaml.Node) error {
	if err := isMapping(n, "an enum value"); err != nil {
		return err
	}
	type plain EnumValue
	if err := n.Decode((*plain)(e)); err != nil {
		return err
	}
	e.at = read(n)
	return nil
}

// UnmarshalYAML reads the quality entry and where its keys were written.
func (q *Quality) UnmarshalYAML(n *yaml.Node) error {
	if err := isMapping(n, "a quality entry"); err != nil {
		return err
	}
	type plain Quality
	if err := n.Decode((*plain)(q)); err != nil {
		return err
	}
	q.at = read(n)
	return nil
}

// UnmarshalYAML reads the relationship and where its keys were written.
func (r *Relationship) UnmarshalYAML(n *yaml.Node) error {
	if err := isMapping(n, "a relationship"); err != nil {
		return err
	}
	type plain Relationship
	if err := n.Decode((*plain)(r)); err != nil {
		return err
	}
	r.at = read(n)
	return nil
}

// UnmarshalYAML reads the service level and where its keys were written.
func (s *SLAProperty) UnmarshalYAML(n *yaml.Node) error {
	if err := isMapping(n, "an slaProperties entry"); err != nil {
		return err
	}
	type plain SLAProperty
	if err := n.Decode((*plain)(s)); err != nil {
		return err
	}
	s.at = read(n)
	return nil
}

// UnmarshalYAML keeps a scalar's text, tag and line.
func (v *Value) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: expected a single value, not a list or mapping", n.Line)
	}
	*v = Value{Text: n.Value, Tag: n.ShortTag(), Line: n.Line}
	return nil
}

// MarshalYAML writes the scalar with its tag, so that "1.50" stays a number with its digits
// and a string that looks like a number stays quoted.
func (v Value) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: v.Text, Tag: v.Tag}
	if v.Tag == "!!str" {
		// Let the encoder quote a string that would read back as something else.
		return v.Text, nil
	}
	return n, nil
}

// UnmarshalYAML reads one reference or a list of them.
func (r *Refs) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*r = Refs{Names: []string{n.Value}}
		return nil
	case yaml.SequenceNode:
		var names []string
		if err := n.Decode(&names); err != nil {
			return err
		}
		*r = Refs{Names: names, List: true}
		return nil
	}
	return fmt.Errorf("line %d: a reference is table.column or a list of them", n.Line)
}

// MarshalYAML writes one reference as a scalar, a list as a list.
func (r Refs) MarshalYAML() (any, error) {
	if !r.List && len(r.Names) == 1 {
		return r.Names[0], nil
	}
	return r.Names, nil
}

// IsZero lets omitempty leave out an absent reference.
func (r Refs) IsZero() bool { return len(r.Names) == 0 }

// bind gives every element its file and contract path.
func (c *Contract) bind() {
	c.at.file = c.File
	for i, o := range c.Schema {
		if o == nil {
			continue
		}
		o.at.file, o.at.path = c.File, fmt.Sprintf("schema[%d]", i)
		bindQuality(o.Quality, o.at)
		bindRelationships(o.Relationships, o.at)
		bindProperties(o.Properties, o.at, "properties")
	}
	for i, s := range c.SLAProperties {
		if s != nil {
			s.at.file, s.at.path = c.File, fmt.Sprintf("slaProperties[%d]", i)
		}
	}
}

func bindProperties(ps []*Property, parent at, key string) {
	for i, p := range ps {
		if p != nil {
			bindProperty(p, parent, fmt.Sprintf("%s.%s[%d]", parent.path, key, i))
		}
	}
}

func bindProperty(p *Property, parent at, path string) {
	p.at.file, p.at.path = parent.file, path
	if o := p.LogicalTypeOptions; o != nil {
		o.at.file, o.at.path = p.at.file, path+".logicalTypeOptions"
	}
	for i, e := range p.Enum {
		if e != nil {
			e.at.file, e.at.path = p.at.file, fmt.Sprintf("%s.enum[%d]", path, i)
		}
	}
	bindQuality(p.Quality, p.at)
	bindRelationships(p.Relationships, p.at)
	bindProperties(p.Properties, p.at, "properties")
	if p.Items != nil {
		bindProperty(p.Items, p.at, path+".items")
	}
	if m := p.Map; m != nil {
		if m.Key != nil {
			bindProperty(m.Key, p.at, path+".map.key")
		}
		if m.Value != nil {
			bindProperty(m.Value, p.at, path+".map.value")
		}
	}
}

func bindQuality(qs []*Quality, parent at) {
	for i, q := range qs {
		if q != nil {
			q.at.file, q.at.path = parent.file, fmt.Sprintf("%s.quality[%d]", parent.path, i)
		}
	}
}

func bindRelationships(rs []*Relationship, parent at) {
	for i, r := range rs {
		if r != nil {
			r.at.file, r.at.path = parent.file, fmt.Sprintf("%s.relationships[%d]", parent.path, i)
		}
	}
}
