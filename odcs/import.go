package odcs

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// Lengths says how the contract's minLength/maxLength (characters, as in JSON Schema) are
// compiled: "" refuses them unless they are exact in bytes, LengthsChars checks characters,
// LengthsBytes takes them as UTF-8 bytes (tablegate's min_length/max_length).
type Lengths string

// The choices of ImportOptions.Lengths.
const (
	LengthsStrict Lengths = ""
	LengthsChars  Lengths = "chars"
	LengthsBytes  Lengths = "bytes"
)

// ImportOptions change how a contract is imported.
type ImportOptions struct {
	// Object names the schema object to import; "" takes the contract's only one.
	Object string
	// Lengths compiles character lengths that are not exact in bytes (see Lengths).
	Lengths Lengths
	// AllowLossy imports what has no exact form with a warning for each (Result.Notices),
	// instead of refusing the contract.
	AllowLossy bool
	// References are the data of the objects relationships point to: object name → input
	// (a Parquet file or glob, a CSV file, or FILE.duckdb:[schema.]table).
	References map[string]string
}

// Notice is what an import says about a part of the contract it did not enforce exactly.
type Notice struct {
	Pos Pos
	Msg string
	// Lossy marks a refusal that AllowLossy turned into a warning; the others (SLAs, schedules,
	// text quality) are never enforced by tablegate.
	Lossy bool
}

func (n Notice) String() string { return n.Pos.String() + ": " + n.Msg }

// Result is an imported contract object.
type Result struct {
	// YAML is the schema file: what `tablegate import` writes and what Schema was read from.
	YAML   []byte
	Schema *schema.Schema
	// Object is the contract's object the schema was made from.
	Object  *Object
	Notices []Notice
}

// ImportError is every part of a contract that has no exact tablegate form, each with its
// contract path and line.
type ImportError struct {
	File     string
	Object   string
	Problems []Notice
}

func (e *ImportError) Error() string {
	var b strings.Builder
	what := e.File
	if e.Object != "" {
		what += " (object " + e.Object + ")"
	}
	if len(e.Problems) == 1 {
		return fmt.Sprintf("%s cannot be imported exactly: %s", what, e.Problems[0])
	}
	fmt.Fprintf(&b, "%s cannot be imported exactly (%d problems; --allow-lossy imports what has a lossy form with warnings):", what, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  - " + p.String())
	}
	return b.String()
}

// TypeName names the error in reports.
func (e *ImportError) TypeName() string { return "ContractImportError" }

// Import makes a tablegate schema of one object of the contract. Everything the contract says
// about the data is either compiled exactly or reported: the error is an *ImportError listing
// every part without an exact form (with AllowLossy, those with a lossy form become Notices).
func Import(ctx context.Context, c *Contract, opts ImportOptions) (*Result, error) {
	switch opts.Lengths {
	case LengthsStrict, LengthsChars, LengthsBytes:
	default:
		return nil, fmt.Errorf("lengths %q: use chars or bytes", opts.Lengths)
	}
	obj, err := pickObject(c, opts.Object)
	if err != nil {
		return nil, err
	}
	opts.References = withExportedInputs(c, opts.References)
	im := &importer{c: c, obj: obj, opts: opts, ruleSev: map[string]string{}, origin: map[string]Pos{}}
	doc := im.document()
	if len(im.problems) > 0 {
		return nil, &ImportError{File: c.File, Object: obj.Name, Problems: im.problems}
	}
	data, err := schema.WriteDocument(doc)
	if err != nil {
		return nil, err
	}
	// The schema is YAML whatever the contract was written in: a schema file named .json is
	// read as JSON.
	file := strings.TrimSuffix(c.File, filepath.Ext(c.File)) + ".yaml"
	if c.File == "" {
		file = obj.Name + ".yaml"
	}
	s, err := schema.ParseContext(ctx, data, file)
	if err != nil {
		return nil, im.translate(c, obj, err)
	}
	// The SQL the import wrote (checks, table checks) is checked as a schema file's is.
	if _, err := compile.CompileContext(ctx, s); err != nil {
		return nil, im.translate(c, obj, err)
	}
	return &Result{YAML: data, Schema: s, Object: obj, Notices: im.notices}, nil
}

func pickObject(c *Contract, name string) (*Object, error) {
	var names []string
	for _, o := range c.Schema {
		if o != nil {
			names = append(names, o.Name)
		}
	}
	if name != "" {
		if o := c.Object(name); o != nil {
			return o, nil
		}
		return nil, fmt.Errorf("%s has no schema object %q; it has %s", c.File, name, listOr(names))
	}
	switch len(names) {
	case 0:
		return nil, fmt.Errorf("%s has no schema objects to import", c.File)
	case 1:
		return c.Schema[0], nil
	}
	return nil, fmt.Errorf("%s has %d schema objects (%s); name one with --object (in a collection file, the member's object: NAME)", c.File, len(names), strings.Join(names, ", "))
}

func listOr(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// importer builds the schema document of one object.
type importer struct {
	c        *Contract
	obj      *Object
	opts     ImportOptions
	problems []Notice
	notices  []Notice
	quality  []schema.ContractQuality
	// columns maps a column name to its property, for messages about the generated schema.
	columns []*column
	rules   *yaml.Node // schema-level rules
	checks  *yaml.Node // table checks
	ruleSev map[string]string
	names   map[string]bool // schema rule and table check names taken
	// origin is where each schema rule and table check came from in the contract.
	origin map[string]Pos
}

// refuse records a part with no exact form; lossy says what AllowLossy does with it instead.
func (im *importer) refuse(p Pos, lossy string, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if lossy != "" && im.opts.AllowLossy {
		im.notices = append(im.notices, Notice{Pos: p, Msg: msg + "; " + lossy, Lossy: true})
		return
	}
	im.problems = append(im.problems, Notice{Pos: p, Msg: msg})
}

// note records a part tablegate does not enforce by design.
func (im *importer) note(p Pos, format string, args ...any) {
	im.notices = append(im.notices, Notice{Pos: p, Msg: fmt.Sprintf(format, args...)})
}

func (im *importer) document() *yaml.Node {
	c, o := im.c, im.obj
	doc := mapping()
	version := c.Version
	if version == "" {
		version = "(no version)"
	}
	doc.HeadComment = fmt.Sprintf("Imported by tablegate import from the ODCS %s contract %s, version %s, object %s.\n"+
		"Each column names the contract path it comes from; edit the contract and import again.",
		c.APIVersion, firstNonEmpty(c.Name, c.ID), version, o.Name)
	add(doc, "schema", str(o.Name))
	if d := firstNonEmpty(o.Description, o.BusinessName); d != "" {
		add(doc, "description", str(d))
	}
	im.rules = &yaml.Node{Kind: yaml.SequenceNode}
	im.checks = &yaml.Node{Kind: yaml.SequenceNode}
	im.names = map[string]bool{}
	cols := &yaml.Node{Kind: yaml.SequenceNode}
	for _, p := range o.Properties {
		if p == nil {
			continue
		}
		if col := im.column(p, true, false); col != nil {
			im.columns = append(im.columns, col)
			cols.Content = append(cols.Content, col.node)
		}
	}
	im.primaryKey()
	for _, col := range im.columns {
		col.finish()
	}
	for _, q := range o.Quality {
		if q != nil {
			im.objectQuality(q)
		}
	}
	for _, r := range o.Relationships {
		if r != nil {
			im.objectRelationship(r)
		}
	}
	if len(o.Properties) == 0 {
		im.refuse(o.Pos("properties"), "", "the object has no properties, so there is no column to check")
	}
	add(doc, "columns", cols)
	if len(im.rules.Content) > 0 {
		add(doc, "rules", im.rules)
	}
	if len(im.ruleSev) > 0 {
		add(doc, "severity", severities(im.ruleSev))
	}
	if len(im.checks.Content) > 0 {
		add(doc, "table_checks", im.checks)
	}
	add(doc, "contract", im.contract())
	for _, s := range c.SLAProperties {
		if s != nil {
			im.note(s.Pos(), "service level %s is not enforced: tablegate checks the data a run reads, not when it arrives or how long it is kept", s.Property)
		}
	}
	return doc
}

// contract is the schema's contract key: which contract it came from, and the quality entries
// its rules and table checks report under.
func (im *importer) contract() *yaml.Node {
	n := mapping()
	add(n, "id", str(im.c.ID))
	for _, kv := range [][2]string{{"name", im.c.Name}, {"version", im.c.Version}, {"api_version", im.c.APIVersion}, {"object", im.obj.Name}} {
		if kv[1] != "" {
			add(n, kv[0], str(kv[1]))
		}
	}
	if len(im.quality) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, q := range im.quality {
			e := mapping()
			e.Style = yaml.FlowStyle
			key := "rule"
			if q.Table {
				key = "table_check"
			}
			add(e, key, str(q.Rule))
			if q.ID != "" {
				add(e, "id", str(q.ID))
			}
			if q.Name != "" {
				add(e, "name", str(q.Name))
			}
			seq.Content = append(seq.Content, e)
		}
		add(n, "quality", seq)
	}
	return n
}

func firstNonEmpty(a ...string) string {
	for _, s := range a {
		if s != "" {
			return s
		}
	}
	return ""
}

// column is one generated column and what its rules came from.
type column struct {
	im    *importer
	p     *Property
	name  string
	node  *yaml.Node
	dtype schema.DType
	// args are the column's keys after name and type, in order; checks its custom checks.
	args     []kv
	checks   []kv
	sev      map[string]string
	nullable bool
	pk       bool
	unique   bool
	isIn     bool
	regex    bool
	nested   bool
	// untypedByLoss marks a column left without a dtype because its type was refused.
	untypedByLoss bool
	// uniqueQ are the quality entries unique came from; uniqueSev their severity.
	uniqueQ   []*Quality
	uniqueSev string
	// fields and inner are a nested object's fields and an array's item, from logicalType.
	fields []*column
	inner  *column
}

type kv struct {
	key string
	val *yaml.Node
}

var columnNameRE = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// column maps a property; top is false for a nested object's property or an array's item, inner
// true for an array's item (a column without a name).
func (im *importer) column(p *Property, top, inner bool) *column {
	name := firstNonEmpty(p.PhysicalName, p.Name)
	key := "name"
	if p.PhysicalName != "" {
		key = "physicalName"
	}
	if top && !columnNameRE.MatchString(name) {
		im.refuse(p.Pos(key), "", "column %q: tablegate's column names are letters, digits and underscores (they make the check names); rename the column in the query that produces the table, or give physicalName", name)
	}
	col := &column{im: im, p: p, name: name, nullable: !p.Required, sev: map[string]string{}, nested: !top}
	reported := len(im.problems) + len(im.notices)
	col.dtype = im.dtype(p, col)
	// Any is either declared (an exported schema's tablegateType) or what a refused type became.
	col.untypedByLoss = col.dtype.Kind == schema.KindAny && len(im.problems)+len(im.notices) > reported
	col.node = mapping()
	if top {
		col.node.HeadComment = p.Pos().Path
	}
	if name != "" && !inner {
		add(col.node, "name", str(name))
	}
	col.pk = p.PrimaryKey
	if p.PrimaryKey && col.untyped(p.Pos("primaryKey"), "primaryKey") {
		col.pk = false
	}
	if p.PrimaryKey && !top {
		im.refuse(p.Pos("primaryKey"), "", "primaryKey on a nested property: tablegate's primary key is made of top-level columns")
	}
	col.unique = p.Unique && !col.untyped(p.Pos("unique"), "unique")
	if !top && (!tablegateOnly(p.Quality) || len(p.Relationships) > 0) {
		im.refuse(p.Pos(), "not checked", "quality and relationships on a nested property are not imported: tablegate's table checks and references are on top-level columns")
		p = &Property{Name: p.Name, PhysicalType: p.PhysicalType, LogicalType: p.LogicalType, LogicalTypeOptions: p.LogicalTypeOptions,
			Required: p.Required, Unique: p.Unique, Enum: p.Enum, Properties: p.Properties, Items: p.Items, Description: p.Description, at: p.at}
		col.p = p
	}
	im.options(col)
	if len(p.Enum) > 0 {
		im.enum(col)
	}
	for _, q := range p.Quality {
		if q != nil {
			im.propertyQuality(col, q)
		}
	}
	for _, r := range p.Relationships {
		if r != nil {
			im.propertyRelationship(col, r)
		}
	}
	if p.Description != "" {
		col.args = append([]kv{{"description", str(p.Description)}}, col.args...)
	}
	return col
}

// finish writes the column's keys once every rule is known.
func (col *column) finish() {
	n := col.node
	dtypeKeys(n, col.dtype, col)
	if col.pk {
		col.nullable = false // a primary key is NOT NULL
		add(n, "primary_key", scalar("true"))
	}
	if col.nullable && col.dtype.Kind != schema.KindAny {
		add(n, "nullable", scalar("true"))
	}
	if col.dtype.Kind.IsFloat() && col.p.LogicalType != "number" {
		// A DOUBLE holds NaN and infinities; only logicalType number (a JSON number) excludes them.
		add(n, "allow_nan", scalar("true"))
		add(n, "allow_inf", scalar("true"))
	}
	if col.unique {
		col.im.uniqueRule(col)
	}
	for _, a := range col.args {
		add(n, a.key, a.val)
	}
	if len(col.checks) > 0 {
		m := mapping()
		for _, c := range col.checks {
			add(m, c.key, c.val)
		}
		add(n, "check", m)
	}
	if len(col.sev) > 0 {
		add(n, "severity", severities(col.sev))
	}
}

// severities is a severity mapping, rule → severity, in rule order.
func severities(sev map[string]string) *yaml.Node {
	m := mapping()
	keys := make([]string, 0, len(sev))
	for k := range sev {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		add(m, k, scalar(sev[k]))
	}
	return m
}

// uniqueRule compiles unique. ODCS (as SQL's UNIQUE and the quality engines) takes NULLs for
// distinct; tablegate's unique takes two NULLs for duplicates, so a nullable column's unique is
// a group rule that lets NULL pass.
func (im *importer) uniqueRule(col *column) {
	rule := col.name + "|unique"
	if !col.nullable || col.nested {
		add(col.node, "unique", scalar("true"))
		if col.uniqueSev == "warn" {
			col.sev["unique"] = "warn"
		}
	} else {
		rule = im.groupUnique(col.name+"_unique", []string{col.name}, col.p.Pos("unique"), col.uniqueSev)
	}
	for _, q := range col.uniqueQ {
		im.ref(q, rule, false)
	}
}

func (im *importer) groupUnique(name string, cols []string, p Pos, sev string) string {
	name = im.ruleName(name)
	var nulls []string
	for _, c := range cols {
		nulls = append(nulls, sql.Ident(c)+" IS NULL")
	}
	r := mapping()
	r.HeadComment = p.Path
	add(r, "name", str(name))
	add(r, "description", str("no two rows have the same "+strings.Join(cols, ", ")+" (a key with a NULL passes)"))
	add(r, "sql", str(strings.Join(nulls, " OR ")+" OR count(*) = 1"))
	seq := flow()
	for _, c := range cols {
		seq.Content = append(seq.Content, str(c))
	}
	add(r, "group_by", seq)
	im.rules.Content = append(im.rules.Content, r)
	if sev == "warn" {
		im.ruleSev[name] = "warn"
	}
	return name
}

// ruleName makes a schema rule or table check name unique and valid.
func (im *importer) ruleName(want string) string {
	base := sanitize(want)
	name := base
	for i := 2; im.names[strings.ToLower(name)]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	im.names[strings.ToLower(name)] = true
	return name
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" || strings.HasPrefix(strings.ToLower(out), "__tg_") {
		out = "contract_" + out
	}
	return out
}

// primaryKey checks primaryKeyPosition: tablegate's key is the set of key columns (uniqueness
// does not depend on their order), so positions must only be consistent.
func (im *importer) primaryKey() {
	var keyed []*column
	positions := map[int]*column{}
	for _, col := range im.columns {
		pos := col.p.PrimaryKeyPosition
		if !col.pk {
			if pos != nil && *pos > 0 {
				im.refuse(col.p.Pos("primaryKeyPosition"), "", "primaryKeyPosition %d on a property that is not primaryKey", *pos)
			}
			continue
		}
		keyed = append(keyed, col)
		if pos == nil || *pos == -1 {
			continue
		}
		if *pos < 1 {
			im.refuse(col.p.Pos("primaryKeyPosition"), "", "primaryKeyPosition %d: positions start at 1", *pos)
			continue
		}
		if other, dup := positions[*pos]; dup {
			im.refuse(col.p.Pos("primaryKeyPosition"), "", "primaryKeyPosition %d is also %s's", *pos, other.name)
		}
		positions[*pos] = col
	}
	if len(positions) > 0 && len(positions) < len(keyed) {
		im.refuse(im.obj.Pos("properties"), "", "some primary-key properties have a primaryKeyPosition and some do not; give every key property one")
	}
	for p := range positions {
		if p > len(keyed) {
			im.refuse(positions[p].p.Pos("primaryKeyPosition"), "", "primaryKeyPosition %d, but the key has %d properties", p, len(keyed))
		}
	}
}

// dtype maps physicalType, or a logicalType that fixes the dtype alone.
func (im *importer) dtype(p *Property, col *column) schema.DType {
	opts := p.LogicalTypeOptions
	if d, ok := im.tablegateType(p, col); ok {
		return d
	}
	if p.PhysicalType != "" {
		ph, err := physicalTypeOf(p.PhysicalType)
		if err != nil {
			im.refuse(p.Pos("physicalType"), "imported as Any (no type check)", "%v", err)
			return schema.DType{Kind: schema.KindAny}
		}
		if ph.zoned {
			ph.dtype.TimeZone = "UTC"
			if opts != nil && opts.DefaultTimezone != nil {
				ph.dtype.TimeZone = opts.DefaultTimezone.Text
			}
		}
		if ph.maxChars > 0 {
			col.charLength("max_length", ph.maxChars, p.Pos("physicalType"), fmt.Sprintf("physicalType %s (at most %d characters)", p.PhysicalType, ph.maxChars))
		}
		im.agree(p, ph.dtype)
		if k := ph.dtype.Kind; (k == schema.KindList || k == schema.KindArray) && p.Items != nil {
			// items carries the element's rules; its type must be the physicalType's element type.
			ic := im.column(p.Items, false, true)
			ic.finish()
			if got, want := ic.dtype.String(), ph.dtype.Inner.DType.String(); got != want {
				im.refuse(p.Pos("items"), "", "items is %s, but physicalType %s has elements of %s", got, p.PhysicalType, want)
			}
			col.inner = ic
		}
		return ph.dtype
	}
	format := ""
	if opts != nil && opts.Format != nil {
		format = opts.Format.Text
	}
	switch p.LogicalType {
	case "":
		im.refuse(p.Pos(), "imported as Any (no type check)", "the property has neither physicalType nor logicalType; give physicalType (a DuckDB type such as BIGINT, VARCHAR, DECIMAL(12,2))")
	case "boolean":
		return schema.DType{Kind: schema.KindBool}
	case "string":
		return schema.DType{Kind: schema.KindString}
	case "date":
		return schema.DType{Kind: schema.KindDate}
	case "time":
		return schema.DType{Kind: schema.KindTime}
	case "integer":
		if k, ok := intFormats[format]; ok {
			return schema.DType{Kind: k}
		}
		if format != "" {
			im.refuse(opts.Pos("format"), "", "integer format %q has no DuckDB type (i8–i64, u8–u64)", format)
			return schema.DType{Kind: schema.KindAny}
		}
		return schema.DType{Kind: schema.KindInteger}
	case "number":
		switch format {
		case "f32":
			return schema.DType{Kind: schema.KindFloat32}
		case "f64":
			return schema.DType{Kind: schema.KindFloat64}
		}
		im.refuse(p.Pos("logicalType"), "imported as Float (FLOAT or DOUBLE; a DECIMAL column fails the column check)",
			"logicalType number has no precision: it may be a DECIMAL(p,s), a FLOAT or a DOUBLE; give physicalType (DECIMAL(12,2), DOUBLE) or logicalTypeOptions.format f32/f64")
		return schema.DType{Kind: schema.KindFloat}
	case "timestamp":
		im.refuse(p.Pos("logicalType"), "imported as Datetime(us)",
			"logicalType timestamp has no unit or zone: DuckDB has TIMESTAMP_MS, TIMESTAMP, TIMESTAMP_NS and TIMESTAMP WITH TIME ZONE; give physicalType")
		d := schema.DType{Kind: schema.KindDatetime, TimeUnit: schema.Micros}
		if opts != nil && opts.Timezone != nil && opts.Timezone.Text == "true" {
			d.TimeZone = "UTC"
			if opts.DefaultTimezone != nil {
				d.TimeZone = opts.DefaultTimezone.Text
			}
		}
		return d
	case "object":
		if len(p.Properties) == 0 {
			im.refuse(p.Pos("logicalType"), "imported as Any (no type check)", "logicalType object without properties has no fields to check")
			return schema.DType{Kind: schema.KindAny}
		}
		d := schema.DType{Kind: schema.KindStruct}
		for _, f := range p.Properties {
			if f == nil {
				continue
			}
			fc := im.column(f, false, false)
			fc.finish()
			d.Fields = append(d.Fields, &schema.Column{Name: fc.name})
			col.fields = append(col.fields, fc)
		}
		return d
	case "array":
		if p.Items == nil {
			im.refuse(p.Pos("logicalType"), "imported as Any (no type check)", "logicalType array without items has no element type")
			return schema.DType{Kind: schema.KindAny}
		}
		ic := im.column(p.Items, false, true)
		ic.finish()
		col.inner = ic
		return schema.DType{Kind: schema.KindList, Inner: &schema.Column{}}
	default:
		im.refuse(p.Pos("logicalType"), "imported as Any (no type check)", "logicalType %s has no tablegate dtype; give physicalType", p.LogicalType)
	}
	return schema.DType{Kind: schema.KindAny}
}
