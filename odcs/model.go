// Package odcs reads and writes Open Data Contract Standard (ODCS) v3.0–v3.2 contracts: the
// document, its schema objects and properties, logicalTypeOptions, quality entries and
// relationships. A contract read from a file keeps, for every key, the line it was written on, so
// that a message can name both the contract path (schema[0].properties[3].logicalTypeOptions.maxLength)
// and the file line.
package odcs

import (
	"fmt"
	"strings"
)

// Contract is an ODCS data contract (kind DataContract).
type Contract struct {
	APIVersion  string       `yaml:"apiVersion"`
	Kind        string       `yaml:"kind"`
	ID          string       `yaml:"id"`
	Name        string       `yaml:"name,omitempty"`
	Version     string       `yaml:"version"`
	Status      string       `yaml:"status,omitempty"`
	Domain      string       `yaml:"domain,omitempty"`
	DataProduct string       `yaml:"dataProduct,omitempty"`
	Tenant      string       `yaml:"tenant,omitempty"`
	Description *Description `yaml:"description,omitempty"`
	Tags        []string     `yaml:"tags,omitempty"`
	Schema      []*Object    `yaml:"schema,omitempty"`
	// SLADefaultElement and SLAProperties are service levels (freshness, retention, latency …).
	SLADefaultElement string            `yaml:"slaDefaultElement,omitempty"`
	SLAProperties     []*SLAProperty    `yaml:"slaProperties,omitempty"`
	CustomProperties  []*CustomProperty `yaml:"customProperties,omitempty"`
	// Extra holds the keys this model does not name (servers, team, support, price …), as read.
	Extra map[string]any `yaml:",inline"`

	// File is the contract file it was read from ("" for a contract built in Go).
	File string `yaml:"-"`
	at   at
}

// Description is the contract-level description (ODCS makes it an object).
type Description struct {
	Usage       string         `yaml:"usage,omitempty"`
	Purpose     string         `yaml:"purpose,omitempty"`
	Limitations string         `yaml:"limitations,omitempty"`
	Extra       map[string]any `yaml:",inline"`
}

// Object is one schema object: a table, view, topic or file.
type Object struct {
	ID                         string            `yaml:"id,omitempty"`
	Name                       string            `yaml:"name"`
	PhysicalName               string            `yaml:"physicalName,omitempty"`
	PhysicalType               string            `yaml:"physicalType,omitempty"`
	LogicalType                string            `yaml:"logicalType,omitempty"`
	BusinessName               string            `yaml:"businessName,omitempty"`
	Description                string            `yaml:"description,omitempty"`
	DataGranularityDescription string            `yaml:"dataGranularityDescription,omitempty"`
	Tags                       []string          `yaml:"tags,omitempty"`
	Properties                 []*Property       `yaml:"properties,omitempty"`
	Relationships              []*Relationship   `yaml:"relationships,omitempty"`
	Quality                    []*Quality        `yaml:"quality,omitempty"`
	CustomProperties           []*CustomProperty `yaml:"customProperties,omitempty"`
	Extra                      map[string]any    `yaml:",inline"`
	at                         at
}

// Property is one property of an object (a column), or of a nested object or array item.
type Property struct {
	ID                 string              `yaml:"id,omitempty"`
	Name               string              `yaml:"name"`
	PhysicalName       string              `yaml:"physicalName,omitempty"`
	PhysicalType       string              `yaml:"physicalType,omitempty"`
	LogicalType        string              `yaml:"logicalType,omitempty"`
	LogicalTypeOptions *LogicalTypeOptions `yaml:"logicalTypeOptions,omitempty"`
	BusinessName       string              `yaml:"businessName,omitempty"`
	Description        string              `yaml:"description,omitempty"`
	Required           bool                `yaml:"required,omitempty"`
	Unique             bool                `yaml:"unique,omitempty"`
	PrimaryKey         bool                `yaml:"primaryKey,omitempty"`
	// PrimaryKeyPosition orders a composite key from 1; nil or -1 when not given.
	PrimaryKeyPosition *int            `yaml:"primaryKeyPosition,omitempty"`
	Enum               []*EnumValue    `yaml:"enum,omitempty"`
	Examples           []any           `yaml:"examples,omitempty"`
	Tags               []string        `yaml:"tags,omitempty"`
	Quality            []*Quality      `yaml:"quality,omitempty"`
	Relationships      []*Relationship `yaml:"relationships,omitempty"`
	// Properties are a nested object's properties (logicalType object).
	Properties []*Property `yaml:"properties,omitempty"`
	// Items is an array's element (logicalType array).
	Items *Property `yaml:"items,omitempty"`
	// Map is a map's key and value (logicalType map, v3.2).
	Map              *MapType          `yaml:"map,omitempty"`
	CustomProperties []*CustomProperty `yaml:"customProperties,omitempty"`
	Extra            map[string]any    `yaml:",inline"`
	at               at
}

// MapType is a map property's key and value definitions.
type MapType struct {
	Key   *Property `yaml:"key"`
	Value *Property `yaml:"value"`
}

// LogicalTypeOptions constrain a property's values. Which keys apply depends on the logical
// type; in v3.0 exclusiveMinimum/exclusiveMaximum are booleans that make minimum/maximum strict,
// from v3.1 they are bounds of their own. Values keep their text as written.
type LogicalTypeOptions struct {
	MinLength        *Value `yaml:"minLength,omitempty"`
	MaxLength        *Value `yaml:"maxLength,omitempty"`
	Pattern          *Value `yaml:"pattern,omitempty"`
	Format           *Value `yaml:"format,omitempty"`
	Minimum          *Value `yaml:"minimum,omitempty"`
	Maximum          *Value `yaml:"maximum,omitempty"`
	ExclusiveMinimum *Value `yaml:"exclusiveMinimum,omitempty"`
	ExclusiveMaximum *Value `yaml:"exclusiveMaximum,omitempty"`
	MultipleOf       *Value `yaml:"multipleOf,omitempty"`
	Timezone         *Value `yaml:"timezone,omitempty"`
	DefaultTimezone  *Value `yaml:"defaultTimezone,omitempty"`
	MinItems         *Value `yaml:"minItems,omitempty"`
	MaxItems         *Value `yaml:"maxItems,omitempty"`
	UniqueItems      *Value `yaml:"uniqueItems,omitempty"`
	MinProperties    *Value `yaml:"minProperties,omitempty"`
	MaxProperties    *Value `yaml:"maxProperties,omitempty"`
	// Extra holds option keys this model does not name, as read.
	Extra map[string]any `yaml:",inline"`
	at    at
}

// EnumValue is one allowed value of a property (v3.2).
type EnumValue struct {
	Value       Value  `yaml:"value"`
	Label       string `yaml:"label,omitempty"`
	ID          string `yaml:"id,omitempty"`
	Description string `yaml:"description,omitempty"`
	at          at
}

// Quality is one data-quality entry of an object or a property.
type Quality struct {
	ID          string `yaml:"id,omitempty"`
	Name        string `yaml:"name,omitempty"`
	Description string `yaml:"description,omitempty"`
	// Type is library (the default), sql, custom or text.
	Type string `yaml:"type,omitempty"`
	// Metric names a library metric (v3.1+): nullValues, missingValues, invalidValues,
	// duplicateValues, rowCount. Rule is its v3.0 spelling.
	Metric    string         `yaml:"metric,omitempty"`
	Rule      string         `yaml:"rule,omitempty"`
	Arguments map[string]any `yaml:"arguments,omitempty"`
	// The comparison of the measured value; exactly one is set.
	MustBe                 *Value  `yaml:"mustBe,omitempty"`
	MustNotBe              *Value  `yaml:"mustNotBe,omitempty"`
	MustBeGreaterThan      *Value  `yaml:"mustBeGreaterThan,omitempty"`
	MustBeGreaterOrEqualTo *Value  `yaml:"mustBeGreaterOrEqualTo,omitempty"`
	MustBeLessThan         *Value  `yaml:"mustBeLessThan,omitempty"`
	MustBeLessOrEqualTo    *Value  `yaml:"mustBeLessOrEqualTo,omitempty"`
	MustBeBetween          []Value `yaml:"mustBeBetween,omitempty"`
	MustNotBeBetween       []Value `yaml:"mustNotBeBetween,omitempty"`
	// Unit is rows (the default) or percent.
	Unit           string `yaml:"unit,omitempty"`
	Severity       string `yaml:"severity,omitempty"`
	Dimension      string `yaml:"dimension,omitempty"`
	Method         string `yaml:"method,omitempty"`
	BusinessImpact string `yaml:"businessImpact,omitempty"`
	Schedule       string `yaml:"schedule,omitempty"`
	Scheduler      string `yaml:"scheduler,omitempty"`
	// Query is a type sql entry's query.
	Query string `yaml:"query,omitempty"`
	// Engine and Implementation are a type custom entry's.
	Engine           string            `yaml:"engine,omitempty"`
	Implementation   any               `yaml:"implementation,omitempty"`
	Tags             []string          `yaml:"tags,omitempty"`
	CustomProperties []*CustomProperty `yaml:"customProperties,omitempty"`
	Extra            map[string]any    `yaml:",inline"`
	at               at
}

// Relationship is a foreign key (v3.1+): From (implicit at property level) and To are
// references, table.column or a list of them for a composite key.
type Relationship struct {
	ID               string            `yaml:"id,omitempty"`
	Type             string            `yaml:"type,omitempty"`
	From             Refs              `yaml:"from,omitempty"`
	To               Refs              `yaml:"to"`
	CustomProperties []*CustomProperty `yaml:"customProperties,omitempty"`
	at               at
}

// Refs is one reference or a list of them; List records which was written.
type Refs struct {
	Names []string
	List  bool
}

// SLAProperty is one service level. tablegate does not enforce them; import reports them.
type SLAProperty struct {
	ID          string `yaml:"id,omitempty"`
	Property    string `yaml:"property"`
	Value       any    `yaml:"value,omitempty"`
	ValueExt    any    `yaml:"valueExt,omitempty"`
	Unit        string `yaml:"unit,omitempty"`
	Element     string `yaml:"element,omitempty"`
	Driver      string `yaml:"driver,omitempty"`
	Description string `yaml:"description,omitempty"`
	Scheduler   string `yaml:"scheduler,omitempty"`
	Schedule    string `yaml:"schedule,omitempty"`
	at          at
}

// CustomProperty is a vendor key/value pair.
type CustomProperty struct {
	ID          string `yaml:"id,omitempty"`
	Property    string `yaml:"property"`
	Value       any    `yaml:"value"`
	Description string `yaml:"description,omitempty"`
}

// Value is a scalar as written: its text and its YAML tag (!!int, !!float, !!str, !!bool,
// !!null), so that a decimal bound keeps its digits and a quoted number stays a string.
type Value struct {
	Text string
	Tag  string
	Line int
}

// String returns the value's text.
func (v Value) String() string { return v.Text }

// IsNumber reports whether the value was written as a number.
func (v Value) IsNumber() bool { return v.Tag == "!!int" || v.Tag == "!!float" }

// StringValue is a string scalar.
func StringValue(s string) *Value { return &Value{Text: s, Tag: "!!str"} }

// NumberValue is a number scalar; text is its decimal spelling.
func NumberValue(text string) *Value {
	tag := "!!int"
	if strings.ContainsAny(text, ".eE") {
		tag = "!!float"
	}
	return &Value{Text: text, Tag: tag}
}

// BoolValue is a boolean scalar.
func BoolValue(b bool) *Value { return &Value{Text: fmt.Sprint(b), Tag: "!!bool"} }

// Pos is a place in a contract: the file, the line and the contract path of the key.
type Pos struct {
	File string
	Line int
	Path string
}

func (p Pos) String() string {
	var b strings.Builder
	switch {
	case p.File != "" && p.Line > 0:
		fmt.Fprintf(&b, "%s:%d", p.File, p.Line)
	case p.File != "":
		b.WriteString(p.File)
	case p.Line > 0:
		fmt.Fprintf(&b, "line %d", p.Line)
	}
	if p.Path != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(p.Path)
	}
	return b.String()
}

// at is where an element was read: its file, contract path, line, and the line of each key.
type at struct {
	file string
	path string
	line int
	keys map[string]int
}

// pos is the element's own place, or with key the place of that key (its line when it was
// written, the element's otherwise).
func (a at) pos(key ...string) Pos {
	p := Pos{File: a.file, Line: a.line, Path: a.path}
	for _, k := range key {
		if l, ok := a.keys[k]; ok {
			p.Line = l
		}
		p.Path += "." + k
	}
	return p
}

// Pos returns the place of the contract, or of one of its top-level keys.
func (c *Contract) Pos(key ...string) Pos { return c.at.pos(key...) }

// Pos returns the place of the object, or of one of its keys.
func (o *Object) Pos(key ...string) Pos { return o.at.pos(key...) }

// Pos returns the place of the property, or of one of its keys.
func (p *Property) Pos(key ...string) Pos { return p.at.pos(key...) }

// Pos returns the place of the options, or of one of their keys.
func (o *LogicalTypeOptions) Pos(key ...string) Pos { return o.at.pos(key...) }

// Pos returns the place of the enum value.
func (e *EnumValue) Pos(key ...string) Pos { return e.at.pos(key...) }

// Pos returns the place of the quality entry, or of one of its keys.
func (q *Quality) Pos(key ...string) Pos { return q.at.pos(key...) }

// Pos returns the place of the relationship, or of one of its keys.
func (r *Relationship) Pos(key ...string) Pos { return r.at.pos(key...) }

// Pos returns the place of the service level, or of one of its keys.
func (s *SLAProperty) Pos(key ...string) Pos { return s.at.pos(key...) }

// Object returns the schema object with this name, or nil.
func (c *Contract) Object(name string) *Object {
	for _, o := range c.Schema {
		if o.Name == name {
			return o
		}
	}
	return nil
}

// MetricName is the library metric of the entry: metric, or the v3.0 rule.
func (q *Quality) MetricName() string {
	if q.Metric != "" {
		return q.Metric
	}
	return q.Rule
}

// QualityType is the entry's type, library when none is written.
func (q *Quality) QualityType() string {
	if q.Type == "" {
		return "library"
	}
	return q.Type
}
