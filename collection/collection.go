// Package collection declares a collection: several related tables (members), each validated by
// its schema, and the filters and references that relate them. The members share a common primary
// key (the primary-key columns every member not ignored in filters has); a filter keeps the common
// keys it holds for and drops every other key's rows from every such member, as dataframely's
// Collection.filter does. A collection comes from a file (LoadFile, Parse) or is built in Go (New).
// compile turns it into one program; this package only declares and checks it.
package collection

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tablegate/tablegate/schema"
)

// Collection is a declared collection. Build one with New or load one with LoadFile; Validate
// reports every declaration problem at once.
type Collection struct {
	Name string
	// File is the collection file it was read from ("" when built in Go).
	File       string
	Members    []*Member
	Filters    []Filter
	References []Reference

	pos, membersPos schema.Pos
	problems        []error // problems found while reading the file
}

// Member is one table of the collection and the schema it is validated by.
type Member struct {
	Name   string
	Schema *schema.Schema
	// Contract is the data contract the schema was made of (nil for a schema file or a schema
	// built in Go).
	Contract *Contract
	// Optional members may be absent from a run; every other member must be given.
	Optional bool
	// IgnoredInFilters members are validated by their schema alone: the filters neither read
	// nor filter them, and they take no part in the common primary key.
	IgnoredInFilters bool
	// PropagateRowFailures drops, from every member, the rows whose common key is the key of one
	// of this member's invalid rows.
	PropagateRowFailures bool

	pos schema.Pos
}

// Contract is a member's data contract (an ODCS file) and how it is read as the member's
// schema.
type Contract struct {
	// File is the contract file as the collection file names it; Path is File read from the
	// collection file's folder.
	File, Path string
	// Object is the contract's schema object to use ("": its only one).
	Object string
	// Lengths compiles the contract's character lengths: "" (refused unless exact), "chars" or
	// "bytes".
	Lengths string
	// AllowLossy imports what has no exact form with a notice for each, instead of refusing it.
	AllowLossy bool
	// References are the data of the objects the contract's relationships point to: object →
	// input.
	References map[string]string
	// Notices are what the import did not enforce exactly, one line each (set by the
	// ContractLoader).
	Notices []string
}

// FilterKind is what a filter requires.
type FilterKind string

// Filter kinds.
const (
	// OneToOne keeps the common keys found exactly once among the valid rows of each of its two
	// members.
	OneToOne FilterKind = "one_to_one"
	// OneToAtLeastOne keeps the common keys found exactly once among the valid rows of its
	// first member and at least once among those of its second.
	OneToAtLeastOne FilterKind = "one_to_at_least_one"
	// SQL keeps the common keys whose valid rows of its member satisfy a condition: a boolean
	// SQL expression over the rows of each key, aggregates allowed (`sum(amount) > 0`).
	SQL FilterKind = "sql"
)

// Filter is a condition on the common primary key.
type Filter struct {
	Name string
	Kind FilterKind
	// Members are the relationship's two members (OneToOne, OneToAtLeastOne), in order, or the
	// one member a SQL filter reads.
	Members []string
	// SQL is a SQL filter's condition.
	SQL string
	// Severity is the filter's rule's: error (the default: a row failing it is invalid) or warn
	// (the row stays valid, the check fails at WARN).
	Severity schema.Severity

	pos schema.Pos
}

// Reference requires that a column's values occur in a column of another member (or of the same
// one): a row whose value is not NULL and not among the referenced member's valid rows fails it.
type Reference struct {
	Name             string
	From, FromColumn string
	To, ToColumn     string
	// Severity is the reference's rule's: error (the default) or warn, as a filter's.
	Severity schema.Severity
	pos      schema.Pos
}

// Pos is where the filter was declared (zero when built in Go).
func (f Filter) Pos() schema.Pos { return f.pos }

// Pos is where the reference was declared (zero when built in Go).
func (r Reference) Pos() schema.Pos { return r.pos }

// Pos is where the member was declared (zero when built in Go).
func (m *Member) Pos() schema.Pos { return m.pos }

// New starts a collection built in Go.
func New(name string) *Collection { return &Collection{Name: name} }

// MemberOption sets a member's options.
type MemberOption func(*Member)

// Optional marks a member that may be absent from a run.
func Optional() MemberOption { return func(m *Member) { m.Optional = true } }

// IgnoredInFilters marks a member that the filters neither read nor filter.
func IgnoredInFilters() MemberOption { return func(m *Member) { m.IgnoredInFilters = true } }

// PropagateRowFailures makes a member's invalid rows drop their common key from every member.
func PropagateRowFailures() MemberOption { return func(m *Member) { m.PropagateRowFailures = true } }

// Member adds a member validated by s.
func (c *Collection) Member(name string, s *schema.Schema, opts ...MemberOption) *Collection {
	m := &Member{Name: name, Schema: s}
	for _, o := range opts {
		o(m)
	}
	c.Members = append(c.Members, m)
	return c
}

// OneToOne adds a filter keeping the common keys found exactly once in each of a and b.
func (c *Collection) OneToOne(name, a, b string) *Collection {
	c.Filters = append(c.Filters, Filter{Name: name, Kind: OneToOne, Members: []string{a, b}})
	return c
}

// OneToAtLeastOne adds a filter keeping the common keys found exactly once in a and at least
// once in b.
func (c *Collection) OneToAtLeastOne(name, a, b string) *Collection {
	c.Filters = append(c.Filters, Filter{Name: name, Kind: OneToAtLeastOne, Members: []string{a, b}})
	return c
}

// SQLFilter adds a filter keeping the common keys whose rows of member satisfy cond.
func (c *Collection) SQLFilter(name, member, cond string) *Collection {
	c.Filters = append(c.Filters, Filter{Name: name, Kind: SQL, Members: []string{member}, SQL: cond})
	return c
}

// Reference adds a reference from "member.column" to "member.column".
func (c *Collection) Reference(name, from, to string) *Collection {
	r := Reference{Name: name}
	r.From, r.FromColumn, _ = strings.Cut(from, ".")
	r.To, r.ToColumn, _ = strings.Cut(to, ".")
	c.References = append(c.References, r)
	return c
}

// Warn declares the filter or reference named name warn: a row failing it stays valid, and its
// check fails at WARN.
func (c *Collection) Warn(name string) *Collection {
	for i := range c.Filters {
		if c.Filters[i].Name == name {
			c.Filters[i].Severity = schema.Warn
		}
	}
	for i := range c.References {
		if c.References[i].Name == name {
			c.References[i].Severity = schema.Warn
		}
	}
	return c
}

// Get returns the member named name, or nil.
func (c *Collection) Get(name string) *Member {
	for _, m := range c.Members {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// InFilters are the members the filters read and filter, in declaration order.
func (c *Collection) InFilters() []*Member {
	var out []*Member
	for _, m := range c.Members {
		if !m.IgnoredInFilters {
			out = append(out, m)
		}
	}
	return out
}

// Propagating are the members whose invalid rows drop their common key (ignored members never
// do), in declaration order.
func (c *Collection) Propagating() []*Member {
	var out []*Member
	for _, m := range c.Members {
		if m.PropagateRowFailures && !m.IgnoredInFilters {
			out = append(out, m)
		}
	}
	return out
}

// CommonKey is the primary-key columns every member not ignored in filters has, sorted (as
// dataframely's common_primary_key); nil when there is none.
func (c *Collection) CommonKey() []string {
	in := c.InFilters()
	for _, m := range in {
		if m.Schema == nil {
			return nil
		}
	}
	return commonKey(in)
}

func commonKey(members []*Member) []string {
	var key []string
	for i, m := range members {
		pk := m.Schema.PrimaryKey()
		if i == 0 {
			key = slices.Clone(pk)
			continue
		}
		key = slices.DeleteFunc(key, func(k string) bool { return !slices.Contains(pk, k) })
	}
	slices.Sort(key)
	return key
}

// PropagationRule names the rule of a member's rows dropped by member's invalid rows, as
// dataframely names the failure-info column.
func PropagationRule(member string) string { return member + "|failure_propagation" }

var namePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Validate reports every declaration problem at once (*schema.Errors; each a
// *schema.DeclarationError with the file and line where known), nil when there is none.
func (c *Collection) Validate() error {
	v := &validation{c: c, problems: slices.Clone(c.problems)}
	v.run()
	if len(v.problems) == 0 {
		return nil
	}
	return &schema.Errors{Schema: c.label(), Problems: v.problems}
}

func (c *Collection) label() string {
	if c.Name == "" {
		return "collection"
	}
	return "collection " + c.Name
}

type validation struct {
	c        *Collection
	problems []error
}

func (v *validation) bad(pos schema.Pos, key, format string, args ...any) {
	if pos.File == "" {
		pos.File = v.c.File
	}
	v.problems = append(v.problems, &schema.DeclarationError{Schema: v.c.label(), Pos: pos, Key: key, Msg: fmt.Sprintf(format, args...)})
}

func (v *validation) run() {
	c := v.c
	if c.Name == "" {
		v.bad(c.pos, "collection", "the collection has no name; name it with `collection: NAME`")
	}
	if len(c.Members) == 0 {
		v.bad(c.pos, "members", "the collection has no members; list them under `members:` (name: schema file)")
	}
	seen := map[string]bool{}
	for _, m := range c.Members {
		switch {
		case !namePattern.MatchString(m.Name):
			v.bad(m.pos, m.Name, "member name %q is not made of letters, digits and underscores (it names files and checks)", m.Name)
		case seen[m.Name]:
			v.bad(m.pos, m.Name, "member %q is declared twice", m.Name)
		}
		seen[m.Name] = true
		if m.Schema == nil {
			if m.pos.File == "" { // a file member without a schema was reported when read
				v.bad(m.pos, m.Name, "member %q has no schema", m.Name)
			}
			continue
		}
		if err := m.Schema.Validate(); err != nil {
			v.bad(m.pos, m.Name, "member %q: its schema is invalid: %v", m.Name, err)
		}
	}
	v.commonKey()
	names := map[string]schema.Pos{}
	taken := v.takenNames()
	claim := func(name string, pos schema.Pos, what string) {
		switch {
		case !namePattern.MatchString(name):
			v.bad(pos, name, "%s name %q is not made of letters, digits and underscores (it names a check)", what, name)
			return
		case strings.HasSuffix(name, "failure_propagation"):
			v.bad(pos, name, "%s name %q is reserved: `<member>|failure_propagation` names the rule of propagated failures", what, name)
		}
		if first, ok := names[name]; ok {
			v.bad(pos, name, "%s name %q is already taken (%s); give every filter and reference its own name", what, name, first)
			return
		}
		if where := taken[name]; where != "" {
			v.bad(pos, name, "%s name %q is already %s; a filter's or reference's rule must not share a column's or rule's name", what, name, where)
		}
		names[name] = pos
	}
	for _, f := range c.Filters {
		claim(f.Name, f.pos, "filter")
		v.filter(f)
	}
	for _, r := range c.References {
		claim(r.Name, r.pos, "reference")
		v.reference(r)
	}
}

// commonKey refuses filters and propagation without a common primary key.
func (v *validation) commonKey() {
	c := v.c
	needs := len(c.Filters) > 0 || len(c.Propagating()) > 0
	// Over the members whose schemas loaded (the others are reported already).
	var in []*Member
	for _, m := range c.InFilters() {
		if m.Schema != nil {
			in = append(in, m)
		}
	}
	if !needs || len(in) == 0 {
		return
	}
	if key := commonKey(in); len(key) > 0 {
		v.keyKinds(in, key)
		return
	}
	keys := make([]string, len(in))
	for i, m := range in {
		pk := m.Schema.PrimaryKey()
		if len(pk) == 0 {
			keys[i] = m.Name + ": none"
		} else {
			keys[i] = m.Name + ": " + strings.Join(pk, ", ")
		}
	}
	pos := c.membersPos
	if pos.Line == 0 {
		pos = c.pos
	}
	v.bad(pos, "members", "the members have no common primary key, which filters and failure propagation need (primary keys: %s); give every member in the filters the key columns they share, or mark a member ignored_in_filters",
		strings.Join(keys, "; "))
}

// keyKinds refuses common key columns whose values cannot be compared across members (a
// String order_id in one member, an Int64 in another).
func (v *validation) keyKinds(in []*Member, key []string) {
	for _, k := range key {
		first := in[0].Schema.Column(k)
		for _, m := range in[1:] {
			col := m.Schema.Column(k)
			if first != nil && col != nil && family(first.DType.Kind) != family(col.DType.Kind) {
				pos := m.pos
				if pos.Line == 0 {
					pos = v.c.membersPos
				}
				v.bad(pos, m.Name, "the common primary key column %s is %s in member %s but %s in member %s; the filters compare them, so give them the same kind",
					k, first.DType, in[0].Name, col.DType, m.Name)
			}
		}
	}
}

// takenNames are the member columns and rules by name, with what each is.
func (v *validation) takenNames() map[string]string {
	out := map[string]string{}
	for _, m := range v.c.Members {
		if m.Schema == nil {
			continue
		}
		for _, col := range m.Schema.Columns {
			out[col.Name] = fmt.Sprintf("a column of member %s", m.Name)
		}
		for _, r := range m.Schema.Rules {
			out[r.Name] = fmt.Sprintf("a rule of member %s", m.Name)
		}
	}
	return out
}

func (v *validation) member(pos schema.Pos, key, name string) *Member {
	m := v.c.Get(name)
	if m == nil {
		v.bad(pos, key, "unknown member %q; the members are %s", name, v.memberNames())
	}
	return m
}

func (v *validation) memberNames() string {
	names := make([]string, len(v.c.Members))
	for i, m := range v.c.Members {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

func (v *validation) filter(f Filter) {
	switch f.Kind {
	case OneToOne, OneToAtLeastOne:
		if len(f.Members) != 2 {
			v.bad(f.pos, string(f.Kind), "filter %s: a relationship names two members, [a, b]; got %d", f.Name, len(f.Members))
			return
		}
		if f.Members[0] == f.Members[1] {
			v.bad(f.pos, string(f.Kind), "filter %s: a relationship is between two different members, not %s and itself", f.Name, f.Members[0])
		}
	case SQL:
		if len(f.Members) != 1 || f.Members[0] == "" {
			v.bad(f.pos, "member", "filter %s: a sql filter names the member whose rows it reads (member: NAME)", f.Name)
			return
		}
		if strings.TrimSpace(f.SQL) == "" {
			v.bad(f.pos, "sql", "filter %s: the sql condition is empty", f.Name)
		}
	default:
		v.bad(f.pos, "", "filter %s: give exactly one of one_to_one: [a, b], one_to_at_least_one: [a, b] or sql: CONDITION (with member: NAME)", f.Name)
		return
	}
	for _, name := range f.Members {
		m := v.member(f.pos, string(f.Kind), name)
		if m != nil && m.IgnoredInFilters {
			v.bad(f.pos, string(f.Kind), "filter %s reads member %s, which is ignored_in_filters; a filter reads only members that share the common primary key", f.Name, name)
		}
	}
}

func (v *validation) reference(r Reference) {
	ends := []struct{ key, member, column string }{{"from", r.From, r.FromColumn}, {"to", r.To, r.ToColumn}}
	var dtypes []schema.DType
	for _, e := range ends {
		if e.member == "" || e.column == "" {
			v.bad(r.pos, e.key, "reference %s: %s names a member's column as member.column; got %q", r.Name, e.key, strings.Trim(e.member+"."+e.column, "."))
			return
		}
		m := v.member(r.pos, e.key, e.member)
		if m == nil || m.Schema == nil {
			return
		}
		col := m.Schema.Column(e.column)
		if col == nil {
			v.bad(r.pos, e.key, "reference %s: member %s has no column %q", r.Name, e.member, e.column)
			return
		}
		dtypes = append(dtypes, col.DType)
	}
	if family(dtypes[0].Kind) != family(dtypes[1].Kind) {
		v.bad(r.pos, "to", "reference %s: %s.%s is %s but %s.%s is %s; a reference compares values of the same kind", r.Name,
			r.From, r.FromColumn, dtypes[0], r.To, r.ToColumn, dtypes[1])
	}
}

// family groups the kinds whose values compare with each other.
func family(k schema.Kind) string {
	switch {
	case k.IsInteger(), k.IsFloat(), k == schema.KindDecimal:
		return "number"
	case k == schema.KindString, k == schema.KindEnum:
		return "string"
	}
	return k.String()
}
