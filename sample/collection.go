package sample

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/tablegate/tablegate/collection"
	"github.com/tablegate/tablegate/schema"
)

// MemberQuery is the SELECT that generates one member of a collection's sample.
type MemberQuery struct {
	Member string
	Query  string
	// Broken lists what the sample breaks on purpose in this member at a rate above 0: its own
	// rules (named as in its report), the relationships that name it first, the propagation of
	// the propagating members' failures, and the references from it.
	Broken []string
	// Uncontrolled lists the collection's filters and references the generator does not
	// honour: SQL filters, references to a column it does not generate as a key.
	Uncontrolled []string
}

// maxPerKey bounds the rows a member whose key is a superset of the common key has per common
// key: 1 to maxPerKey, drawn per key, unless its row count is given.
const maxPerKey = 3

// CollectionSpec sizes a collection's sample: Rows is the number of common keys (each member
// that shares the key has a row per key, or several), and MemberRows the rows of the members
// that do not share it, and of those whose key is a superset of it (a multiple of Rows: that
// many rows per key); the other members get Rows rows.
type CollectionSpec struct {
	Spec
	MemberRows map[string]int64
}

// CollectionQueries returns the SELECT that generates each member of c (in c's order), so that
// the members are consistent: spec.Rows common keys, every member that shares the key has a row
// for each (one, or 1 to 3 when its own primary key is a superset of the common key and no
// one_to_one relationship names it; MemberRows sets it), the same key values in every member,
// and references drawn from the values their target generates. A member ignored in filters gets
// spec.Rows rows of its own, or MemberRows. At an invalid rate r, each member's rows break its rules as Query's do, and each
// relationship loses a share r of the keys: its second member has no row for them, so the first
// member's rows with those keys fail it (and any other relationship of the second member); a
// reference is one of the rules a bad row of its member may break (it then points at no target
// value).
func CollectionQueries(c *collection.Collection, cspec CollectionSpec) ([]MemberQuery, error) {
	spec := cspec.Spec
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	for _, m := range c.Members {
		if err := m.Schema.Validate(); err != nil {
			return nil, fmt.Errorf("member '%s': %w", m.Name, err)
		}
	}
	cs := &collectionSample{c: c, spec: spec, common: c.CommonKey(), keys: max(spec.Rows, 1), rows: map[string]int64{}, per: map[string]int{}}
	if err := cs.sharedKey(); err != nil {
		return nil, err
	}
	if err := cs.size(cspec.MemberRows); err != nil {
		return nil, err
	}
	out := make([]MemberQuery, 0, len(c.Members))
	for _, m := range c.Members {
		q, err := cs.member(m)
		if err != nil {
			return nil, fmt.Errorf("member '%s': %w", m.Name, err)
		}
		out = append(out, q)
	}
	return out, nil
}

type collectionSample struct {
	c      *collection.Collection
	spec   Spec
	common []string // the common key's columns
	keys   int64    // how many common keys
	// lead is the column of the common key that is distinct per key; the others draw values
	// from the key index. They are declared as in the first member that shares the key.
	lead  string
	decls map[string]*schema.Column
	rows  map[string]int64 // the rows of each member that does not share the key
	per   map[string]int   // the rows per key of each member that shares it; 0: 1 to maxPerKey
}

// size works out each member's rows from the given counts.
func (cs *collectionSample) size(given map[string]int64) error {
	for name := range given {
		if cs.c.Get(name) == nil {
			return fmt.Errorf("rows for '%s': the collection has no such member", name)
		}
	}
	for _, m := range cs.c.Members {
		n, ok := given[m.Name]
		if n < 0 {
			return fmt.Errorf("rows for '%s': %d is negative", m.Name, n)
		}
		if !cs.shares(m) {
			cs.rows[m.Name] = cs.spec.Rows
			if ok {
				cs.rows[m.Name] = n
			}
			continue
		}
		superset := len(m.Schema.PrimaryKey()) > len(cs.common)
		single := !superset || cs.inOneToOne(m)
		switch {
		case !ok && single:
			cs.per[m.Name] = 1
		case !ok:
			cs.per[m.Name] = 0
		case cs.spec.Rows == 0 && n == 0:
			cs.per[m.Name] = 1
		case single && n != cs.spec.Rows:
			return fmt.Errorf("rows for '%s': it has one row per common key, so %d (the rows given for the collection), not %d", m.Name, cs.spec.Rows, n)
		case cs.spec.Rows == 0 || n%cs.spec.Rows != 0 || n == 0:
			return fmt.Errorf("rows for '%s': its key is a superset of the common key, so a multiple of the collection's %d rows (that many per key), not %d", m.Name, cs.spec.Rows, n)
		default:
			cs.per[m.Name] = int(n / cs.spec.Rows)
		}
	}
	return nil
}

// sharedKey picks the common key's declarations and the column that makes keys distinct.
func (cs *collectionSample) sharedKey() error {
	if len(cs.common) == 0 {
		return nil
	}
	cs.decls = map[string]*schema.Column{}
	for _, m := range cs.c.Members {
		if m.IgnoredInFilters {
			continue
		}
		for _, k := range cs.common {
			if cs.decls[k] == nil {
				cs.decls[k] = m.Schema.Column(k)
			}
		}
	}
	var reasons []string
	for _, k := range cs.common {
		g := cs.keyGen("j")
		if _, err := g.key(cs.decls[k], "j"); err != nil {
			reasons = append(reasons, fmt.Sprintf("'%s': %v", k, err))
			continue
		}
		cs.lead = k
		return nil
	}
	return fmt.Errorf("no column of the common key (%s) takes %d distinct values: %s", strings.Join(cs.common, ", "), cs.keys, strings.Join(reasons, "; "))
}

// keyGen is the generator of the common key's values at key index idx. Its salts start past
// any member's, so the values are the same text in every member.
func (cs *collectionSample) keyGen(idx string) *gen {
	return &gen{spec: cs.spec, idx: idx, keyIdx: idx, keySpan: big.NewInt(cs.keys), salt: 1 << 20, groupKeys: map[string]bool{}}
}

// keyValue is the common key column k's value at key index idx, in its declared build type.
func (cs *collectionSample) keyValue(k, idx string) (string, error) {
	g := cs.keyGen(idx)
	c := cs.decls[k]
	if k == cs.lead {
		v, err := g.key(c, idx)
		return fmt.Sprintf("CAST(%s AS %s)", v, buildType(c.DType)), err
	}
	// Only the key's other columns' own salts count: take them in the common key's order.
	for _, o := range cs.common {
		if o == k {
			break
		}
		g.salt += 1000
	}
	v, err := g.value(c, false)
	return v.valid, err
}

// shares says whether m carries the common key.
func (cs *collectionSample) shares(m *collection.Member) bool {
	return len(cs.common) > 0 && !m.IgnoredInFilters
}

// inOneToOne says whether a one_to_one relationship names m.
func (cs *collectionSample) inOneToOne(m *collection.Member) bool {
	for _, f := range cs.c.Filters {
		if f.Kind == collection.OneToOne && slices.Contains(f.Members[:], m.Name) {
			return true
		}
	}
	return false
}

// broken is the condition under which relationship q loses key index j.
func (cs *collectionSample) broken(q int) string {
	return fmt.Sprintf("(hash(j, %d, %d) %% 1000000) < %d", cs.spec.Seed, -10-q, int64(cs.spec.InvalidRate*1_000_000))
}

func (cs *collectionSample) member(m *collection.Member) (MemberQuery, error) {
	out := MemberQuery{Member: m.Name}
	t := table{schema: m.Schema, spec: cs.spec, rows: cs.rows[m.Name], columns: map[string]func(*gen, *schema.Column) (string, error){}}
	pk := m.Schema.PrimaryKey()
	var relationships []string // and propagations
	if cs.shares(m) {
		per := cs.per[m.Name]
		// Keys that a relationship whose second member is m loses.
		var lose []string
		for q, f := range cs.c.Filters {
			switch {
			case f.Kind == collection.SQL:
				continue
			case f.Members[1] == m.Name && cs.spec.InvalidRate > 0:
				lose = append(lose, cs.broken(q))
			}
			if f.Members[0] == m.Name {
				relationships = append(relationships, f.Name)
			}
		}
		for _, p := range cs.c.Members {
			if p.PropagateRowFailures && cs.shares(p) {
				relationships = append(relationships, p.Name+"|failure_propagation")
			}
		}
		where := ""
		if len(lose) > 0 {
			where = " WHERE NOT (" + strings.Join(lose, " OR ") + ")"
		}
		switch per {
		case 1:
			t.from = fmt.Sprintf("(SELECT j, 0 AS s, j AS i FROM range(%d) AS t(j)%s)", cs.spec.Rows, where)
		default:
			// unnest in the select list keeps the rows in key order, as range alone does.
			count := fmt.Sprint(per)
			if per == 0 {
				per = maxPerKey
				count = fmt.Sprintf("CAST(1 + hash(j, %d, -3) %% %d AS BIGINT)", cs.spec.Seed, per)
			}
			t.from = fmt.Sprintf("(SELECT j, s, j * %d + s AS i FROM (SELECT j, unnest(range(%s)) AS s FROM range(%d) AS t(j)%s))", per, count, cs.spec.Rows, where)
		}
		t.rows = cs.keys * int64(per)
		composite := len(pk) > 1
		for _, k := range cs.common {
			valid, err := cs.keyValue(k, "j")
			if err != nil {
				return out, fmt.Errorf("common key '%s': %w", k, err)
			}
			// The lead is distinct per key, and a duplicate of the previous key's breaks a
			// primary key of its own.
			pkLead := k == cs.lead
			t.columns[k] = func(g *gen, c *schema.Column) (string, error) {
				return g.keyedAt("j", cs.keys, func() (string, error) {
					return g.withShared(c, valid, nil, func() (string, error) { return g.column(c, pkLead, composite) })
				})
			}
		}
		// The rest of the member's own key: the first column distinct among a key's rows.
		first := true
		for _, k := range pk {
			if slices.Contains(cs.common, k) {
				continue
			}
			if first {
				first = false
				t.columns[k] = func(g *gen, c *schema.Column) (string, error) {
					return g.keyedAt("s", int64(per), func() (string, error) { return g.keyedColumn(c, "") })
				}
				continue
			}
			t.columns[k] = func(g *gen, c *schema.Column) (string, error) { return g.column(c, false, true) }
		}
	}
	for q, r := range cs.c.References {
		if r.From != m.Name {
			continue
		}
		valid, bad, ok := cs.referenced(r, q)
		if !ok {
			out.Uncontrolled = append(out.Uncontrolled, fmt.Sprintf("reference '%s'", r.Name))
			continue
		}
		if t.columns[r.FromColumn] != nil {
			continue // a key column: its values are the key's
		}
		t.columns[r.FromColumn] = func(g *gen, c *schema.Column) (string, error) {
			var cases []violation
			if bad != "" {
				cases = []violation{{r.Name, fmt.Sprintf("CAST(%s AS %s)", bad, buildType(c.DType))}}
			}
			return g.withShared(c, valid, cases, func() (string, error) { return g.column(c, false, len(pk) > 1) })
		}
	}
	query, rules, err := t.query()
	if err != nil {
		return out, err
	}
	out.Query = query
	out.Broken = append(dedupe(rules), relationships...)
	for _, f := range cs.c.Filters {
		if f.Kind == collection.SQL {
			out.Uncontrolled = append(out.Uncontrolled, fmt.Sprintf("SQL filter '%s'", f.Name))
		}
	}
	return out, nil
}

// referenced is the value a row of reference q's member takes so that it is among the target's
// values, drawn per row, and one outside them ("" when the target's type leaves no room); ok is
// false when the target column is not one the generator makes distinct per row or key.
func (cs *collectionSample) referenced(r collection.Reference, q int) (valid, bad string, ok bool) {
	to := cs.c.Get(r.To)
	if to == nil {
		return "", "", false
	}
	c := to.Schema.Column(r.ToColumn)
	if c == nil {
		return "", "", false
	}
	draw := func(span int64) string { return fmt.Sprintf("(hash(i, %d, %d) %% %d)", cs.spec.Seed, -20-q, span) }
	outside := fmt.Sprintf("(%d + i %% 1000)", cs.keys)
	if cs.shares(to) && slices.Contains(cs.common, r.ToColumn) {
		// Any key index's value is some row's: the lead's are distinct, so one past them is none.
		v, err := cs.keyValue(r.ToColumn, draw(cs.keys))
		if err != nil {
			return "", "", false
		}
		if r.ToColumn == cs.lead {
			g := cs.keyGen(outside)
			g.keySpan = big.NewInt(cs.keys + 1000)
			if b, err := g.key(c, outside); err == nil {
				bad = b
			}
		}
		return v, bad, true
	}
	// A target that is its own member's distinct column: the lead of its primary key, or a
	// unique column, generated per row index as key(c, i).
	pk := to.Schema.PrimaryKey()
	if cs.shares(to) || !(c.Args.Unique || len(pk) == 1 && pk[0] == c.Name) {
		return "", "", false
	}
	rows := max(cs.rows[to.Name], 1)
	g := &gen{spec: cs.spec, keySpan: big.NewInt(rows)}
	v, err := g.key(c, draw(rows))
	if err != nil {
		return "", "", false
	}
	g.keySpan = big.NewInt(rows + 1000)
	if b, err := g.key(c, fmt.Sprintf("(%d + i %% 1000)", rows)); err == nil {
		bad = b
	}
	return fmt.Sprintf("CAST(%s AS %s)", v, buildType(c.DType)), bad, true
}

// dedupe drops repeated names, keeping the first.
func dedupe(names []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
