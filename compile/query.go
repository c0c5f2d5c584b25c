package compile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tablegate/tablegate/sql"
)

// Relation is the input a plan query reads: a FROM item and a SQL expression over it that gives
// each row a unique, input-ordered ordinal (rowid, a Parquet file/row number, …).
type Relation struct {
	From  string
	RowID string
	// Casts replaces a column's reference by an explicit cast (only when the user asks to cast).
	Casts map[string]string
	// ScanFilters tells that the source evaluates filters written on it while it scans
	// (Parquet): Stages then runs faster than Query.
	ScanFilters bool
	// PlainColumns names the columns the source stores without a dictionary (Parquet column
	// chunks written PLAIN, as writers do for mostly distinct strings). A filter pushed into the
	// scan runs row by row on them like anywhere else, so Stages evaluates their rules in the
	// scan that fetches the failing rows rather than decoding the column once more.
	PlainColumns map[string]bool
	// RowGroups is the number of rows of each unit the source is scanned in (the row groups of a
	// single Parquet file), in ordinal order, when the source knows them. Only the writing of
	// the valid rows uses it, to size the output's row groups (exec).
	RowGroups []int64
	// NoStatistics tells that DuckDB plans scans of the source without column statistics (a
	// multi-file Parquet scan); Ranges then holds the integer columns' smallest and largest
	// values, read from the files' footers, where every footer has them.
	NoStatistics bool
	Ranges       map[string][2]int64
	// KeySources names, per key group, a relation its failing-keys aggregate reads instead of
	// the source: a copy of the columns it needs, whose statistics let DuckDB aggregate an
	// integer key in a perfect hash (exec fills it for NoStatistics sources; Stages uses it),
	// or that a ProgramDialect's program caches so that the key aggregates do not read the input
	// again each (Query uses it).
	KeySources map[int]string
	// DenseRowIDs tells that the ordinals are 0 to the row count - 1 (a Parquet scan), so that
	// CountProbe need not read their range.
	DenseRowIDs bool
	// Parquet is the path or glob of a Parquet source, whose footers the probes read (Probes);
	// "" for other sources. ParquetFile is the path when it names one file, not a glob: the
	// file a run that removes no row may publish as its table byte for byte (publishable).
	Parquet, ParquetFile string
	// Columns are the relation's columns in its order, as the column check read them (nil: not
	// read).
	Columns []string
}

// Placeholder is the relation `explain` shows when no input is given.
var Placeholder = Relation{From: "__tg_input", RowID: "rowid"}

// Names of the columns tablegate generates in the plan query.
const (
	RowIDColumn = "__tg_rid"
	srcName     = "__tg_src"
)

// keyGroup is one failing-keys aggregate: the keyed rules that share a key list, each with its
// failure condition. Rules of one group are evaluated in one GROUP BY.
type keyGroup struct {
	keys  []string // SQL over the source columns, unqualified
	conds []string // per rule: true when the group fails
	// lookup tells that a condition looks the key up in a reference: the conditions are then
	// evaluated once per key, in the aggregate's select list, and filtered on after it, not
	// written again in a HAVING, where DuckDB would build the reference's hash table twice
	// (measured, 10M rows, 1M keys in both: 0.53 CPU s for the aggregate against 0.68 s).
	lookup bool
}

// keyedRule registers a keyed rule and returns the SQL of its rule column. guard, when set, is a
// condition under which the rule passes regardless (a NULL struct for a field's unique).
func (c *compiler) keyedRule(keys []string, failCond, guard string) string {
	id := strings.Join(keys, "\x00")
	g := -1
	for i, kg := range c.plan.keyed {
		if strings.Join(kg.keys, "\x00") == id {
			g = i
			break
		}
	}
	if g < 0 {
		c.plan.keyed = append(c.plan.keyed, keyGroup{keys: keys})
		g = len(c.plan.keyed) - 1
	}
	c.pendingGroup = g
	m := len(c.plan.keyed[g].conds)
	c.plan.keyed[g].conds = append(c.plan.keyed[g].conds, failCond)
	value := fmt.Sprintf("COALESCE(NOT __tg_k%d.__tg_m%d, TRUE)", g, m)
	if guard != "" {
		value = fmt.Sprintf("(%s OR %s)", guard, value)
	}
	return value
}

// Query is the plan's single statement over rel: the schema's columns in schema order, the row
// ordinal, and one boolean column per rule named by the rule (TRUE = valid). Keyed rules are
// failing-key aggregates LEFT JOINed back NULL-safely; no window functions.
func (p *Plan) Query(rel Relation) string { return p.query(rel, queryShape{}) }

// queryShape varies the plan query for the engine.
type queryShape struct {
	// keyTable, when set, names a table that already holds each key group's failing keys (see
	// Stages) instead of aggregating them in the query.
	keyTable func(group int) string
	// where, when set, restricts the source rows (SQL over the source columns and __tg_rid).
	where string
	// failingOnly keeps only the rows that fail some rule. The filter tests each rule's raw
	// expression, not its rule column: NOT e keeps exactly the rows where e is FALSE, as
	// NOT COALESCE(e, TRUE) does, and DuckDB evaluates it faster (measured at 10M rows, 15
	// rules, DuckDB table: 1.28 s against 1.47 s).
	failingOnly bool
}

func (p *Plan) query(rel Relation, shape queryShape) string {
	keyTable, where := shape.keyTable, shape.where
	var b strings.Builder
	// NOT MATERIALIZED: DuckDB would otherwise materialise the source, which the key aggregates
	// read too when no keyTable holds them (Query), as a full copy (measured 1.5x slower at 10M
	// rows); inlined, each reads only the columns it needs.
	d := p.Dialect()
	b.WriteString("WITH " + srcName + " AS " + d.Inline() + "(\n  ")
	if where != "" {
		b.WriteString("SELECT * FROM (" + p.SourceSQL(rel) + ") AS __tg_s WHERE " + where)
	} else {
		b.WriteString(p.SourceSQL(rel))
	}
	b.WriteString("\n)")
	for g := range p.keyed {
		if p.unused[g] {
			continue
		}
		fmt.Fprintf(&b, ",\n__tg_k%d AS %s(\n  ", g, d.Inline())
		switch from, ok := rel.KeySources[g]; {
		case keyTable != nil:
			b.WriteString("SELECT * FROM " + keyTable(g))
		case ok:
			b.WriteString(p.failingKeys(g, from))
		default:
			b.WriteString(p.failingKeys(g, srcName))
		}
		b.WriteString("\n)")
	}
	b.WriteString("\nSELECT\n  ")
	for _, col := range p.Columns {
		b.WriteString(srcName + "." + d.Ident(col.Name) + ", ")
	}
	b.WriteString(srcName + "." + RowIDColumn)
	for _, r := range p.Rules {
		fmt.Fprintf(&b, ",\n  %s AS %s", r.value, d.Ident(r.Name))
	}
	b.WriteString("\nFROM " + srcName)
	for g := range p.keyed {
		if p.unused[g] {
			continue
		}
		fmt.Fprintf(&b, "\nLEFT JOIN __tg_k%d ON %s", g, p.keyMatch(g, srcName+"."))
	}
	if shape.failingOnly {
		fails := make([]string, len(p.Rules))
		for i, r := range p.Rules {
			fails[i] = r.failsSQL()
		}
		b.WriteString("\nWHERE " + strings.Join(fails, "\n   OR "))
	}
	return b.String()
}

// failsSQL is TRUE for a row that fails the rule and FALSE or NULL otherwise: a filter, not a
// value.
func (r Rule) failsSQL() string {
	if r.collection {
		return "FALSE"
	}
	if r.group >= 0 {
		return "NOT " + r.value
	}
	return "(NOT (" + r.Expr + "))"
}

// failingKeys selects key group g's failing keys (__tg_k<g>_<i>) from the relation named from,
// with one marker column per rule of the group (__tg_m<m>, TRUE when the group fails the rule).
func (p *Plan) failingKeys(g int, from string) string {
	kg := p.keyed[g]
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, k := range kg.keys {
		fmt.Fprintf(&b, "%s AS __tg_k%d_%d, ", k, g, i)
	}
	for m, cond := range kg.conds {
		if m > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%s) AS __tg_m%d", cond, m)
	}
	b.WriteString("\n  FROM " + from)
	if len(kg.keys) > 0 {
		b.WriteString("\n  GROUP BY " + strings.Join(kg.keys, ", "))
	}
	if kg.lookup {
		marks := make([]string, len(kg.conds))
		for m := range kg.conds {
			marks[m] = fmt.Sprintf("__tg_m%d", m)
		}
		return "SELECT * FROM (" + b.String() + ") AS __tg_g\n  WHERE " + strings.Join(marks, " OR ")
	}
	b.WriteString("\n  HAVING ")
	for m, cond := range kg.conds {
		if m > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("(" + cond + ")")
	}
	return b.String()
}

// keyMatch is the NULL-safe join condition between a source row (its key expressions prefixed
// by qualify) and key group g's failing keys (__tg_k<g>).
func (p *Plan) keyMatch(g int, qualify string) string {
	kg := p.keyed[g]
	if len(kg.keys) == 0 {
		return "TRUE"
	}
	d := p.Dialect()
	quoted := d.Ident("")[:1]
	parts := make([]string, len(kg.keys))
	for i, k := range kg.keys {
		q := qualify
		if !strings.HasPrefix(k, quoted) {
			// A struct's unique key ({'a': "s"."a"}) names its column unqualified, which is
			// unambiguous: the key table's columns are __tg_ names, and no schema column is.
			q = ""
		}
		parts[i] = d.KeyMatch(q+k, fmt.Sprintf("__tg_k%d.__tg_k%d_%d", g, g, i))
	}
	return strings.Join(parts, " AND ")
}

// Subset is the plan restricted to some of its rules (by index), reading only the key
// aggregates those rules need. Benchmarks use it to measure one query per rule.
func (p *Plan) Subset(rules ...int) *Plan {
	sub := *p
	sub.Rules = nil
	// Table checks read every rule's count by its index: a subset has none.
	sub.TableChecks, sub.tableCounts = nil, false
	used := map[int]bool{}
	for _, i := range rules {
		sub.Rules = append(sub.Rules, p.Rules[i])
		if g := p.Rules[i].group; g >= 0 {
			used[g] = true
		}
	}
	sub.unused = map[int]bool{}
	for g := range p.keyed {
		if !used[g] || p.unused[g] {
			sub.unused[g] = true
		}
	}
	return &sub
}

// SourceSQL selects the schema's columns (cast where rel says so) and the row ordinal from the
// input. The plan query and the writer of the valid rows read the input through it.
func (p *Plan) SourceSQL(rel Relation) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	for _, col := range p.Columns {
		if cast, ok := rel.Casts[col.Name]; ok {
			b.WriteString(cast + " AS ")
		}
		b.WriteString(p.Dialect().Ident(col.Name) + ", ")
	}
	fmt.Fprintf(&b, "%s AS %s FROM %s", rel.RowID, RowIDColumn, rel.From)
	return b.String()
}

// Explain is the plan query over the placeholder input, for `tablegate explain`.
func (p *Plan) Explain() string { return p.Query(Placeholder) + ";\n" }

// ValidExpr is the SQL that is TRUE when a row passes every rule of the given severity class:
// errorsOnly selects the error rules (row validity), otherwise every rule (any failure).
func (p *Plan) ValidExpr(errorsOnly bool) string {
	var parts []string
	for _, r := range p.Rules {
		if errorsOnly && !r.IsError() {
			continue
		}
		parts = append(parts, p.Dialect().Ident(r.Name))
	}
	switch len(parts) {
	case 0:
		return "TRUE"
	case 1:
		// Bare: Spark reads `FROM t WHERE (x)` as the alias WHERE with a column list.
		return parts[0]
	}
	return "(" + strings.Join(parts, " AND ") + ")"
}

// Dialect is the SQL dialect the plan is rendered in.
func (p *Plan) Dialect() Dialect {
	if p.dialect == nil {
		return DuckDB
	}
	return p.dialect
}

func quote(name string) string { return sql.Ident(name) }

// KeyGroup describes one key group of a plan: the rules aggregated by the same keys.
type KeyGroup struct {
	// Used is false for a group no rule of a Subset reads.
	Used bool
	// Columns are the schema columns its keys are, when every key is one whole column; nil
	// otherwise (a struct field, or no keys at all).
	Columns []string
	// Reads are the schema columns its keys and conditions read: every column whose name occurs
	// as a word in their SQL, which may name more than it reads, never fewer.
	Reads []string
	// Distinct tells that a condition may aggregate DISTINCT values, which DuckDB never
	// aggregates in a perfect hash.
	Distinct bool
}

// KeyGroups describes the plan's key groups, by group number.
func (p *Plan) KeyGroups() []KeyGroup {
	out := make([]KeyGroup, len(p.keyed))
	for g, kg := range p.keyed {
		out[g].Used = !p.unused[g]
		text := strings.Join(append(slices.Clone(kg.keys), kg.conds...), " ")
		out[g].Distinct = sqlMentions(strings.Join(kg.conds, " "), "distinct")
		for _, c := range p.Columns {
			if sqlMentions(text, c.Name) {
				out[g].Reads = append(out[g].Reads, c.Name)
			}
		}
		if len(kg.keys) == 0 {
			continue
		}
		for _, k := range kg.keys {
			name := ""
			for _, c := range p.Columns {
				if k == p.Dialect().Ident(c.Name) {
					name = c.Name
				}
			}
			if name == "" {
				out[g].Columns = nil
				break
			}
			out[g].Columns = append(out[g].Columns, name)
		}
	}
	return out
}

// sqlMentions reports whether name occurs in text as a whole word, ignoring case (as DuckDB
// matches identifiers), quoted or not.
func sqlMentions(text, name string) bool {
	lower, want := strings.ToLower(text), strings.ToLower(name)
	word := func(b byte) bool { return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 0x80 }
	for i := 0; ; {
		j := strings.Index(lower[i:], want)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(want)
		if (start == 0 || !word(lower[start-1])) && (end == len(lower) || !word(lower[end])) {
			return true
		}
		i = start + 1
	}
}
