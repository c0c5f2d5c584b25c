// Package sample generates deterministic synthetic data that fits a schema, with a chosen share of
// rows that violate its rules (spread across the rules it knows how to break), for benchmarks and
// demos. The data is produced by one DuckDB query over range(N) with hash-based pseudo-random
// values, so the same seed gives the same rows. List and Array elements are drawn from an index
// of their own (the row's times 1024 plus the position), and a Struct from its fields.
package sample

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// Spec sizes a sample.
type Spec struct {
	Rows        int64
	InvalidRate float64 // share of rows made to violate one rule, 0..1
	Seed        uint64
}

// violation is a value that breaks one rule; rule is named relative to the column ("min",
// "inner_min", "inner_city_min_length") until the top-level column prefixes its name.
type violation struct {
	rule string
	expr string
}

type gen struct {
	spec Spec
	salt int
	// idx is the index the values of the current position derive from: the row's, i, at the top
	// level; an element's inside a list or an array (distinct per row and element).
	idx   string
	depth int // how many lists or arrays enclose the current position
	// keyIdx numbers the values a key at the current position takes, 0 to keySpan-1: the row at
	// the top level; inside a list, the element among all rows' when the list is a key, else
	// its position in the list (unique among its siblings is enough there).
	keyIdx  string
	keySpan *big.Int
	// groupKeys are the columns schema-level group rules group by: a String one among them draws
	// from groupKeyValues values, as an integer one does from its default range.
	groupKeys  map[string]bool
	violations []violation
	colExprs   []string
	// shared, when set, is a top-level column whose valid value is sharedValid (a collection's
	// common key, a reference's target values) and which can also take sharedCases.
	shared      *schema.Column
	sharedValid string
	sharedCases []violation
}

// withShared builds c's expression with the valid value valid and the extra violations cases.
func (g *gen) withShared(c *schema.Column, valid string, cases []violation, build func() (string, error)) (string, error) {
	g.shared, g.sharedValid, g.sharedCases = c, valid, cases
	defer func() { g.shared, g.sharedValid, g.sharedCases = nil, "", nil }()
	return build()
}

// h is a deterministic pseudo-random BIGINT for the row (or element), distinct per call site.
func (g *gen) h() string {
	g.salt++
	return fmt.Sprintf("CAST(hash(%s, %d, %d) >> 1 AS BIGINT)", g.idx, g.spec.Seed, g.salt)
}

// Query returns the SELECT that generates the sample, and the rules it can break.
func Query(s *schema.Schema, spec Spec) (string, []string, error) {
	if err := checkSpec(spec); err != nil {
		return "", nil, err
	}
	if err := s.Validate(); err != nil {
		return "", nil, err
	}
	return table{schema: s, spec: spec, rows: spec.Rows}.query()
}

func checkSpec(spec Spec) error {
	if spec.Rows < 0 || spec.InvalidRate < 0 || spec.InvalidRate > 1 {
		return fmt.Errorf("rows must be >= 0 and the invalid rate within 0..1")
	}
	return nil
}

// table is one generated table: its schema, how its rows are numbered and the columns whose
// expressions come from outside its own declaration (a collection's shared keys, references).
type table struct {
	schema *schema.Schema
	spec   Spec
	// rows is the span of the row index i: key columns distinct per row draw from it.
	rows int64
	// from is a subquery with the column i, one row per generated row; empty is range(rows).
	from string
	// columns builds the named columns' expressions instead of the default.
	columns map[string]func(g *gen, c *schema.Column) (string, error)
}

// query returns the SELECT that generates the table, and the rules it can break.
func (t table) query() (string, []string, error) {
	s, spec := t.schema, t.spec
	g := &gen{spec: spec, idx: "i", keyIdx: "i", keySpan: big.NewInt(max(t.rows, 1)), groupKeys: map[string]bool{}}
	for _, r := range s.Rules {
		for _, k := range r.GroupBy {
			g.groupKeys[k] = true
		}
	}
	pk := s.PrimaryKey()
	var digits map[string]keyDigit
	if t.from == "" && len(pk) > 1 {
		var err error
		if digits, err = compositeKey(s, pk, t.rows, spec.Seed); err != nil {
			return "", nil, err
		}
	}
	for _, c := range s.Columns {
		var expr string
		var err error
		d, keyed := digits[c.Name]
		switch build := t.columns[c.Name]; {
		case build != nil:
			expr, err = build(g, c)
		case keyed:
			expr, err = g.keyedAt(d.at("i"), d.span, func() (string, error) {
				// A duplicate key repeats the previous row's (row 0 the next one's) in every
				// column of the key at once: the same violation number, {{PK}}.
				dup, err := g.key(c, d.at("abs(i - 1)"))
				if err != nil {
					return "", err
				}
				return g.keyedColumn(c, dup)
			})
		default:
			expr, err = g.column(c, len(pk) > 0 && pk[0] == c.Name, len(pk) > 1)
		}
		if err != nil {
			return "", nil, fmt.Errorf("column '%s': %w", c.Name, err)
		}
		g.colExprs = append(g.colExprs, expr)
	}
	// Each column expression picks its violation when the row is bad and the row's draw lands on
	// that violation; violations are numbered across the schema, a composite key's duplicate last.
	pkViolation := len(g.violations)
	if digits != nil {
		g.violations = append(g.violations, violation{"primary_key", ""})
	}
	var cols []string
	k := 0
	for i, c := range s.Columns {
		expr := g.colExprs[i]
		for strings.Contains(expr, "{{V}}") {
			expr = strings.Replace(expr, "{{V}}", fmt.Sprint(k), 1)
			k++
		}
		expr = strings.ReplaceAll(expr, "{{PK}}", fmt.Sprint(pkViolation))
		cols = append(cols, expr+" AS "+sql.Ident(c.Name))
	}
	n := len(g.violations)
	rules := make([]string, n)
	for i, v := range g.violations {
		rules[i] = v.rule
	}
	rate := int64(spec.InvalidRate * 1_000_000)
	which := "0"
	if n > 0 {
		which = fmt.Sprintf("hash(i, %d, -2) %% %d", spec.Seed, n)
	} else {
		rate = 0
	}
	from := t.from
	if from == "" {
		from = fmt.Sprintf("range(%d) AS t(i)", t.rows)
	}
	// No ORDER BY: DuckDB keeps the row order of a SELECT from one source (range here) through
	// COPY and CREATE TABLE AS, so the rows come in index order, the same bytes on any number of
	// threads, without a sort that held every row in memory (20 GB for 100M rows).
	q := fmt.Sprintf("SELECT %s FROM (SELECT *, (hash(i, %d, -1) %% 1000000) < %d AS __bad, %s AS __which FROM %s)",
		strings.Join(cols, ", "), spec.Seed, rate, which, from)
	return q, rules, nil
}

// groupKeyValues is how many values a String column that a group rule groups by draws from.
const groupKeyValues = 1_000_000

// pairRepeat is how many rows share the lead value of a two-column key.
const pairRepeat = 8

// pairKey says whether a two-column primary key is spread over both columns: the second column
// must take pairRepeat distinct values and the lead the rows' share of them.
func pairKey(s *schema.Schema, pk []string, rows int64) bool {
	if len(pk) != 2 || rows < pairRepeat {
		return false
	}
	second := s.Column(pk[1])
	if second == nil {
		return false
	}
	probe := &gen{idx: "i", keyIdx: "i", keySpan: big.NewInt(pairRepeat)}
	_, err := probe.key(second, "i")
	return err == nil
}

// keyDigit is how a column of a composite primary key takes its value from the row index: at
// gives its key index (0 to span-1) for a row index expression.
type keyDigit struct {
	at   func(row string) string
	span int64
}

// compositeKey spreads a primary key of several columns over the rows as the digits of a
// mixed-radix number, so that the combination is distinct per row while no column takes more
// values than its declaration allows (is_in, an Enum, an integer's bounds: capacity). The bounded
// columns take a digit each, the last column first, until their digits number the rows; the first
// unbounded column takes what is left of the row index. The others draw a key index from a hash
// of the row. Without bounded columns, a two-column key, as a daily balance's (account, day), has
// each lead value on pairRepeat rows in a row, the second column distinct among them.
func compositeKey(s *schema.Schema, pk []string, rows int64, seed uint64) (map[string]keyDigit, error) {
	caps := make([]int64, len(pk))
	absorber := -1
	for i, name := range pk {
		caps[i] = capacity(s.Column(name))
		if caps[i] == 0 && absorber < 0 {
			absorber = i
		}
	}
	if !slices.ContainsFunc(caps, func(n int64) bool { return n > 0 }) && pairKey(s, pk, rows) {
		caps[1] = pairRepeat
	}
	digits := map[string]keyDigit{}
	width := int64(1) // the rows the digits so far tell apart
	for i := len(pk) - 1; i >= 0 && width < rows; i-- {
		if caps[i] == 0 || i == absorber {
			continue
		}
		w, n := width, caps[i]
		digits[pk[i]] = keyDigit{at: func(row string) string { return fmt.Sprintf("((%s // %d) %% %d)", row, w, n) }, span: n}
		if n >= (rows+width-1)/width {
			width = rows // enough: width*n could overflow
		} else {
			width *= n
		}
	}
	if width < rows {
		if absorber < 0 {
			return nil, fmt.Errorf("the primary key (%s) has at most %d distinct values within its columns' is_in and bounds, fewer than the %d rows asked for",
				strings.Join(pk, ", "), width, rows)
		}
		w := width
		digits[pk[absorber]] = keyDigit{at: func(row string) string { return fmt.Sprintf("(%s // %d)", row, w) }, span: (rows + w - 1) / w}
	}
	for i, name := range pk {
		if _, ok := digits[name]; ok {
			continue
		}
		n, salt := caps[i], -10-i
		if n == 0 {
			n = max(rows, 1)
		}
		digits[name] = keyDigit{at: func(row string) string { return fmt.Sprintf("(hash(%s, %d, %d) %% %d)", row, seed, salt, n) }, span: n}
	}
	return digits, nil
}

// keyedAt runs build with the key index and span set to idx and span.
func (g *gen) keyedAt(idx string, span int64, build func() (string, error)) (string, error) {
	outerIdx, outerSpan := g.keyIdx, g.keySpan
	defer func() { g.keyIdx, g.keySpan = outerIdx, outerSpan }()
	g.keyIdx, g.keySpan = idx, big.NewInt(max(span, 1))
	return build()
}

// keyedColumn is a column of a composite key: its value at its key index, with the value rules'
// violations and, unless "", dup: its value in the key the row duplicates, for the key's
// violation {{PK}}.
func (g *gen) keyedColumn(c *schema.Column, dup string) (string, error) {
	valid, err := g.key(c, g.keyIdx)
	if err != nil {
		return "", err
	}
	t := buildType(c.DType)
	cases := g.breaks(c)
	if !c.Args.Nullable {
		cases = append([]violation{{"nullability", "NULL"}}, cases...)
	}
	if len(cases) == 0 && dup == "" {
		return fmt.Sprintf("CAST(%s AS %s)", valid, t), nil
	}
	var b strings.Builder
	b.WriteString("CASE")
	for _, k := range cases {
		g.violations = append(g.violations, violation{c.Name + "|" + k.rule, k.expr})
		fmt.Fprintf(&b, " WHEN __bad AND __which = {{V}} THEN CAST(%s AS %s)", k.expr, t)
	}
	if dup != "" {
		fmt.Fprintf(&b, " WHEN __bad AND __which = {{PK}} THEN CAST(%s AS %s)", dup, t)
	}
	fmt.Fprintf(&b, " ELSE CAST(%s AS %s) END", valid, t)
	return b.String(), nil
}

// column builds the expression of one column: its valid value, NULLs for nullable columns, and
// the violations it can take. pkLead marks the first column of the primary key, which is made
// distinct; composite says the key has more columns, whose values a duplicate of the lead's alone
// does not repeat, so it breaks no rule there (unless the lead is unique on its own).
func (g *gen) column(c *schema.Column, pkLead, composite bool) (string, error) {
	v, err := g.value(c, pkLead || c.Args.Unique)
	if err != nil {
		return "", err
	}
	final := func(expr string) string {
		// Values with arrays are built as lists (a CASE cannot return an ARRAY), then cast.
		if t := c.DType.DuckDBType(); t != buildType(c.DType) {
			return fmt.Sprintf("CAST(%s AS %s)", expr, t)
		}
		return expr
	}
	// A shared column's extra cases are named in full (a reference's name).
	own := len(v.cases)
	if c == g.shared {
		v.cases = append(v.cases, g.sharedCases...)
	}
	if len(v.cases) == 0 {
		return final(v.valid), nil
	}
	var b strings.Builder
	b.WriteString("CASE")
	for i, k := range v.cases {
		name := c.Name + "|" + k.rule
		if i >= own {
			name = k.rule
		}
		if k.rule == "unique" && pkLead && !c.Args.Unique {
			if composite {
				continue
			}
			name = "primary_key"
		}
		g.violations = append(g.violations, violation{name, k.expr})
		fmt.Fprintf(&b, " WHEN __bad AND __which = {{V}} THEN %s", k.expr)
	}
	fmt.Fprintf(&b, " ELSE %s END", v.valid)
	return final(b.String()), nil
}

// buildType is the DuckDB type values are built in: the column's, with every ARRAY a LIST.
func buildType(d schema.DType) string {
	switch d.Kind {
	case schema.KindList:
		return buildType(d.Inner.DType) + "[]"
	case schema.KindArray:
		return buildType(d.Inner.DType) + strings.Repeat("[]", len(d.Shape))
	case schema.KindStruct:
		parts := make([]string, len(d.Fields))
		for i, f := range d.Fields {
			parts[i] = sql.Ident(f.Name) + " " + buildType(f.DType)
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	}
	return d.DuckDBType()
}

// value is what a column (or a list element, or a struct field) can hold: its valid value,
// sometimes NULL when the column is nullable, and the violations it can take, each a whole value.
// All are cast to the column's build type (buildType).
type value struct {
	valid string
	cases []violation
}

// value generates c at the current position. key asks for a distinct value per row, or per
// element inside a list: for unique columns, the lead column of the primary key, and the elements
// of a key list.
func (g *gen) value(c *schema.Column, key bool) (value, error) {
	a := &c.Args
	t := buildType(c.DType)
	var valid string
	var nested []violation
	var err error
	switch c.DType.Kind {
	case schema.KindList, schema.KindArray:
		valid, nested, err = g.list(c, key)
	case schema.KindStruct:
		valid, nested, err = g.structValue(c, key)
	default:
		valid, err = g.valid(c, key)
	}
	if err != nil {
		return value{}, err
	}
	if c == g.shared {
		valid = g.sharedValid
	}
	var cases []violation
	if !a.Nullable && c.DType.Kind != schema.KindAny {
		cases = append(cases, violation{"nullability", "NULL"})
	}
	// A duplicate of the previous row's key (row 0 copies row 1's), for a column's own unique or
	// primary key; inside a list the previous index is not always a sibling, so no key is broken
	// there.
	if key && g.depth == 0 && (a.Unique || a.PrimaryKey) {
		if dup, err := g.key(c, fmt.Sprintf("abs(%s - 1)", g.keyIdx)); err == nil {
			cases = append(cases, violation{"unique", dup})
		}
	}
	cases = append(cases, g.breaks(c)...)
	cases = append(cases, nested...)
	// Key columns stay non-NULL: NULLs are equal to each other for unique and primary keys.
	if a.Nullable && !key {
		valid = fmt.Sprintf("CASE WHEN %s %% 20 = 0 THEN NULL ELSE %s END", g.h(), valid)
	}
	for i := range cases {
		cases[i].expr = fmt.Sprintf("CAST(%s AS %s)", cases[i].expr, t)
	}
	return value{valid: fmt.Sprintf("CAST(%s AS %s)", valid, t), cases: cases}, nil
}

// maxElements bounds the elements of one generated list or array: element indexes are the row's
// times maxElements plus the element's position.
const maxElements = 1024

// list generates a List (length within its bounds, at most 4 past the minimum) or an Array (its
// shape) of inner values, and the violations: a length out of bounds, or one element (the first)
// that breaks an inner rule.
func (g *gen) list(c *schema.Column, key bool) (string, []violation, error) {
	a := &c.Args
	d := c.DType
	if g.depth >= 3 {
		return "", nil, fmt.Errorf("sample does not generate lists nested more than 3 deep")
	}
	var dims []string // the lengths, outermost first
	var minLen, maxLen int64
	if d.Kind == schema.KindList {
		if a.MinLength != nil {
			minLen = *a.MinLength
		}
		if key && minLen < 1 {
			minLen = 1 // empty lists are equal to each other
		}
		maxLen = minLen + 4
		if a.MaxLength != nil && *a.MaxLength < maxLen {
			maxLen = *a.MaxLength
		}
		if maxLen < minLen {
			return "", nil, fmt.Errorf("the length bounds leave no valid value")
		}
		if maxLen > maxElements {
			return "", nil, fmt.Errorf("sample does not generate lists of more than %d elements", maxElements)
		}
		dims = []string{fmt.Sprintf("(%d + %s %% %d)", minLen, g.h(), maxLen-minLen+1)}
	}
	elements := 1
	if d.Kind == schema.KindArray {
		for _, n := range d.Shape {
			dims = append(dims, fmt.Sprint(n))
			elements *= n
		}
		if elements > maxElements {
			return "", nil, fmt.Errorf("sample does not generate arrays of more than %d elements", maxElements)
		}
	}
	// Lambda variables, one per dimension, and the element's position among all of them.
	vars := make([]string, len(dims))
	pos := ""
	for i := range dims {
		vars[i] = fmt.Sprintf("__e%d_%d", g.depth, i)
		if i == 0 {
			pos = vars[i]
		} else {
			pos = fmt.Sprintf("(%s * %s + %s)", pos, dims[i], vars[i])
		}
	}
	// The max_length violation is a list one element longer than allowed.
	tooLong := d.Kind == schema.KindList && a.MaxLength != nil && *a.MaxLength < maxElements
	element := func(longest int64) (value, error) {
		outer, outerKey, outerSpan := g.idx, g.keyIdx, g.keySpan
		defer func() { g.idx, g.depth, g.keyIdx, g.keySpan = outer, g.depth-1, outerKey, outerSpan }()
		g.idx, g.depth = fmt.Sprintf("(%s * %d + %s)", outer, maxElements, pos), g.depth+1
		if key {
			// Distinct elements make distinct lists: a key list's elements are keys among all rows'.
			g.keyIdx = fmt.Sprintf("(%s * %d + %s)", outerKey, maxElements, pos)
			g.keySpan = new(big.Int).Mul(outerSpan, big.NewInt(maxElements))
		} else {
			// A unique or primary key inside a list is one among the list's elements.
			g.keyIdx, g.keySpan = pos, big.NewInt(max(longest, 1))
		}
		return g.value(d.Inner, key || d.Inner.Args.Unique || d.Inner.Args.PrimaryKey)
	}
	longest := maxLen
	if d.Kind == schema.KindArray {
		longest = int64(elements)
	}
	withViolation := longest
	if tooLong {
		withViolation = max(longest, *a.MaxLength+1)
	}
	inner, err := element(withViolation)
	if err != nil && withViolation > longest && !key {
		// The element keys fit the lists it makes but not the violation: leave max_length.
		if inner, err = element(longest); err == nil {
			tooLong = false
		}
	}
	if err != nil {
		return "", nil, fmt.Errorf("inner: %w", err)
	}
	build := func(lens []string, elem string) string {
		expr := elem
		for i := len(lens) - 1; i >= 0; i-- {
			expr = fmt.Sprintf("list_transform(range(%s), lambda %s: %s)", lens[i], vars[i], expr)
		}
		return expr
	}
	var cases []violation
	if d.Kind == schema.KindList {
		if a.MinLength != nil && *a.MinLength > 0 {
			cases = append(cases, violation{"min_length", build([]string{fmt.Sprint(*a.MinLength - 1)}, inner.valid)})
		}
		if tooLong {
			cases = append(cases, violation{"max_length", build([]string{fmt.Sprint(*a.MaxLength + 1)}, inner.valid)})
		}
	}
	if maxLen > 0 || d.Kind == schema.KindArray {
		lens := dims
		if d.Kind == schema.KindList {
			lens = []string{fmt.Sprintf("greatest(%s, 1)", dims[0])} // room for the bad element
		}
		for _, k := range inner.cases {
			if k.rule == schema.RuleNullability && len(dims) > 1 {
				// A multi-dimensional array's elements are its sub-arrays: the first one is NULL.
				sub := inner.valid
				for i := len(dims) - 1; i >= 1; i-- {
					sub = fmt.Sprintf("list_transform(range(%s), lambda %s: %s)", dims[i], vars[i], sub)
				}
				cases = append(cases, violation{"inner_" + k.rule, fmt.Sprintf(
					"list_transform(range(%s), lambda %s: CASE WHEN %s = 0 THEN NULL ELSE %s END)", dims[0], vars[0], vars[0], sub)})
				continue
			}
			elem := fmt.Sprintf("CASE WHEN %s = 0 THEN %s ELSE %s END", pos, k.expr, inner.valid)
			cases = append(cases, violation{"inner_" + k.rule, build(lens, elem)})
		}
	}
	return build(dims, inner.valid), cases, nil
}

// structValue generates a Struct from its fields, and the violations: one field breaking one of
// its rules. A key struct is distinct through its first field.
func (g *gen) structValue(c *schema.Column, key bool) (string, []violation, error) {
	fields := c.DType.Fields
	parts := make([]string, len(fields))
	values := make([]value, len(fields))
	for i, f := range fields {
		v, err := g.value(f, (key && i == 0) || f.Args.Unique || f.Args.PrimaryKey)
		if err != nil {
			return "", nil, fmt.Errorf("field '%s': %w", f.Name, err)
		}
		values[i] = v
		parts[i] = sql.Ident(f.Name) + " := " + v.valid
	}
	pack := func(parts []string) string { return "struct_pack(" + strings.Join(parts, ", ") + ")" }
	var cases []violation
	for i, f := range fields {
		for _, k := range values[i].cases {
			bad := slices.Clone(parts)
			bad[i] = sql.Ident(f.Name) + " := " + k.expr
			cases = append(cases, violation{"inner_" + f.Name + "_" + k.rule, pack(bad)})
		}
	}
	return pack(parts), cases, nil
}

// key is a distinct value per key index (keyIdx) for key columns, within the column's bounds:
// keySpan values from its min. A key the type, the bounds or the pattern cannot make distinct is
// refused with the numbers.
func (g *gen) key(c *schema.Column, idx string) (string, error) {
	a := &c.Args
	span := g.keySpan
	per := "row"
	if g.depth > 0 {
		per = "list element"
	}
	if values := isInValues(c); values != nil {
		if span.Cmp(big.NewInt(int64(len(values)))) > 0 {
			return "", fmt.Errorf("a unique column needs a value per %s, and is_in has %d for %s %ss", per, len(values), span, per)
		}
		return pick(idx, values), nil
	}
	switch k := c.DType.Kind; {
	case k == schema.KindBool:
		if span.Cmp(big.NewInt(2)) > 0 {
			return "", fmt.Errorf("a unique Bool column has 2 values for %s %ss", span, per)
		}
		return fmt.Sprintf("(%s = 1)", idx), nil
	case k.IsInteger():
		lo, hi := intRange(c)
		_, end := schema.IntRange(k)
		what := "the type ends at"
		if a.Max != nil || a.MaxExclusive != nil {
			end, what = hi, "its max is"
		}
		if last := new(big.Int).Add(lo, new(big.Int).Sub(span, big.NewInt(1))); last.Cmp(end) > 0 {
			return "", fmt.Errorf("a unique %s column needs %s distinct values, one per %s, from %s; %s %s", k, span, per, lo, what, end)
		}
		return fmt.Sprintf("(%s + %s)", lo, idx), nil
	case k == schema.KindString:
		return g.stringKey(c, idx, per)
	case k == schema.KindBinary:
		return fmt.Sprintf("encode('k' || lpad(CAST(%s AS VARCHAR), %d, '0'))", idx, keyWidth(span, 10)), nil
	case k.IsFloat(), k == schema.KindDecimal:
		return g.numberKey(c, idx, per)
	case k == schema.KindDate:
		lo := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		if p := bound(c, c.Args.Min); p != nil {
			lo = p.Time
		} else if p := bound(c, c.Args.MinExclusive); p != nil {
			lo = p.Time.AddDate(0, 0, 1)
		}
		if !span.IsInt64() || span.Int64() > 1_000_000 {
			return "", fmt.Errorf("a unique Date column needs %s distinct days, one per %s; sample makes at most 1000000", span, per)
		}
		last := lo.AddDate(0, 0, int(span.Int64()-1))
		for _, v := range []*schema.Value{c.Args.Max, c.Args.MaxExclusive} {
			if p := bound(c, v); p != nil && (last.After(p.Time) || v == c.Args.MaxExclusive && !last.Before(p.Time)) {
				return "", fmt.Errorf("a unique Date column needs %s distinct days, one per %s, from %s; its max is %s", span, per, lo.Format(time.DateOnly), p.Time.Format(time.DateOnly))
			}
		}
		return fmt.Sprintf("(DATE '%s' + CAST(%s AS INTEGER))", lo.Format(time.DateOnly), idx), nil
	case k == schema.KindEnum:
		cats := c.DType.Categories
		if span.Cmp(big.NewInt(int64(len(cats)))) > 0 {
			return "", fmt.Errorf("a unique Enum column needs a category per %s: %d categories for %s %ss", per, len(cats), span, per)
		}
		return pick(idx, cats), nil
	}
	return "", fmt.Errorf("no distinct values for a %s key", c.DType.Kind)
}

// numberKey is a number per key index for Float and Decimal keys: whole numbers from the first
// the min allows, or, when the max or the decimal's digits leave too little room for those,
// multiples of 0.1, 0.01, … (down to the decimal's scale, or 10^-6 for a float). The numbers
// must fit the max, the decimal's digits and the float's precision (2^24 for Float32, 2^53 for
// Float64); else the key is refused with the numbers.
func (g *gen) numberKey(c *schema.Column, idx, per string) (string, error) {
	a := &c.Args
	d := c.DType
	ratOf := func(p *schema.Parsed) *big.Rat {
		if p.Rat != nil {
			return p.Rat
		}
		r, _ := new(big.Rat).SetString(strconv.FormatFloat(p.Float, 'g', -1, 64))
		return r
	}
	// floorDiv is the largest whole number at or below r (big.Int's division is Euclidean, and
	// a denominator is positive).
	floorDiv := func(r *big.Rat) *big.Int { return new(big.Int).Div(r.Num(), r.Denom()) }
	exact := map[schema.Kind]int{schema.KindFloat32: 24, schema.KindFloat64: 53, schema.KindFloat: 53}[d.Kind]
	finest := 6
	if d.Kind == schema.KindDecimal {
		finest = d.Scale
	}
	var refused error // the finest attempt's reason
	for decimals := 0; decimals <= finest; decimals++ {
		scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
		units := func(p *schema.Parsed) *big.Rat { return new(big.Rat).Mul(ratOf(p), scale) }
		start := new(big.Int) // in units of 10^-decimals
		if p := bound(c, a.Min); p != nil {
			u := units(p)
			start = floorDiv(u)
			if new(big.Rat).SetInt(start).Cmp(u) < 0 {
				start.Add(start, big.NewInt(1))
			}
		} else if p := bound(c, a.MinExclusive); p != nil {
			start = floorDiv(units(p))
			start.Add(start, big.NewInt(1))
		}
		last := new(big.Int).Add(start, new(big.Int).Sub(g.keySpan, big.NewInt(1)))
		lastUnits := new(big.Rat).SetInt(last)
		what := "whole numbers"
		if decimals > 0 {
			what = "multiples of " + new(big.Rat).Inv(scale).FloatString(decimals)
		}
		why := ""
		// Whole numbers are exact up to 2^exact; finer multiples stay apart up to 2^(exact-2).
		limit := new(big.Int).Lsh(big.NewInt(1), uint(max(exact-2*min(decimals, 1), 0)))
		imprecise := exact > 0 && (new(big.Int).Abs(start).Cmp(limit) > 0 || new(big.Int).Abs(last).Cmp(limit) > 0)
		switch p, q := bound(c, a.Max), bound(c, a.MaxExclusive); {
		case p != nil && lastUnits.Cmp(units(p)) > 0, q != nil && lastUnits.Cmp(units(q)) >= 0:
			why = "its max leaves too little room"
		case d.Kind == schema.KindDecimal && d.Precision > 0 && new(big.Int).Abs(last).Cmp(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Precision-d.Scale+decimals)), nil)) >= 0:
			why = fmt.Sprintf("a %s holds fewer", d)
		case imprecise:
			why = fmt.Sprintf("a %s cannot tell them apart", d.Kind)
		}
		if why != "" {
			refused = fmt.Errorf("a unique %s column needs %s distinct %s, one per %s, from %s; %s", d, g.keySpan, what, per, decimalText(new(big.Rat).Quo(new(big.Rat).SetInt(start), scale), decimals), why)
			if imprecise {
				return "", refused // finer multiples are closer still
			}
			continue
		}
		switch {
		case decimals > 0 && d.Kind == schema.KindDecimal:
			return fmt.Sprintf("((CAST('%s' AS HUGEINT) + %s) * CAST('%s' AS DECIMAL(%d,%d)))", start, idx, new(big.Rat).Inv(scale).FloatString(decimals), decimals+1, decimals), nil
		case decimals > 0:
			return fmt.Sprintf("(CAST(%s + %s AS DOUBLE) / %s)", start, idx, scale.RatString()), nil
		case d.Kind == schema.KindDecimal:
			return fmt.Sprintf("(CAST('%s' AS HUGEINT) + %s)", start, idx), nil
		case start.Sign() == 0:
			return fmt.Sprintf("CAST(%s AS DOUBLE)", idx), nil
		}
		return fmt.Sprintf("CAST(%s + %s AS DOUBLE)", start, idx), nil
	}
	return "", refused
}

// decimalText writes r with at most the given decimals and no trailing zeros (-0.5, 3).
func decimalText(r *big.Rat, decimals int) string {
	t := r.FloatString(decimals)
	if strings.Contains(t, ".") {
		t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
	}
	return t
}

// keyWidth is how many digits spell every key index below span, at least least.
func keyWidth(span *big.Int, least int) int {
	return max(least, len(new(big.Int).Sub(span, big.NewInt(1)).String()))
}

// stringKey is a distinct string per key index. With a regex, it is the index spelt by the regex
// itself, position by position (ORD-0000, ORD-0001, … for ^ORD-\d{4}$). Otherwise, or when the
// regex cannot be spelt so: k0000000001, k0000000002, …, or
// the index's hex digits written as the letters a–p (aaaaaaaaaaab, …), whichever the regex and
// lengths accept on the first 4096 indexes and a spread of others (the regex's own spelling
// too). A key none of these fit is refused.
func (g *gen) stringKey(c *schema.Column, idx, per string) (string, error) {
	var re *regexp.Regexp
	if c.Args.Regex != nil {
		re = regexp.MustCompile(*c.Args.Regex)
	}
	last := g.keySpan.Int64() - 1
	// fits checks a spelling against the regex and the lengths, which a regex's own spelling needs
	// too: slots takes ^ and $ anywhere, so a$b\d{3} would be spelt ab000, which never matches.
	fits := func(render func(n int64) string) bool {
		check := func(n int64) bool {
			s := render(n)
			return (re == nil || re.MatchString(s)) && lengthOK(c, s)
		}
		for n := int64(0); n <= min(last, 4095); n++ {
			if !check(n) {
				return false
			}
		}
		for n := int64(4096); n <= last; n = n*3 + 1 {
			if !check(n) {
				return false
			}
		}
		return check(last)
	}
	if re != nil && fits(uuidSpelling) {
		return uuidKey(idx, g.spec.Seed), nil
	}
	if re != nil {
		minLen := 0
		if c.Args.MinLength != nil {
			minLen = int(min(*c.Args.MinLength, 1<<16))
		}
		if expr, spell, ok := indexedMatch(*c.Args.Regex, idx, g.keySpan, minLen); ok && fits(spell) {
			return expr, nil
		}
	}
	width := keyWidth(g.keySpan, 10)
	if fits(func(n int64) string { return fmt.Sprintf("k%0*d", width, n) }) {
		return fmt.Sprintf("('k' || lpad(CAST(%s AS VARCHAR), %d, '0'))", idx, width), nil
	}
	hexWidth := max(12, len(fmt.Sprintf("%x", last)))
	letters := func(n int64) string {
		return strings.Map(func(r rune) rune {
			if r <= '9' {
				return 'a' + r - '0'
			}
			return 'k' + r - 'a'
		}, fmt.Sprintf("%0*x", hexWidth, n))
	}
	if fits(letters) {
		return fmt.Sprintf("translate(lpad(printf('%%x', %s), %d, '0'), '0123456789abcdef', 'abcdefghijklmnop')", idx, hexWidth), nil
	}
	pattern := ""
	if re != nil {
		pattern = fmt.Sprintf(" matching %q", *c.Args.Regex)
	}
	return "", fmt.Errorf("sample cannot spell %s distinct strings%s within the length bounds, one per %s", g.keySpan, pattern, per)
}

// uuidMultiplier is odd, so multiplying by it modulo 2^62 permutes the key indexes.
const uuidMultiplier = 0x2545F4914F6CDD1D

// uuidKey spells the key index as a version 4 UUID, as random-looking as real ones: the first
// 64 bits are the index's hash, the last 62 a permutation of the index, which keeps the keys
// distinct.
func uuidKey(idx string, seed uint64) string {
	return fmt.Sprintf(`regexp_replace(printf('%%016x%%016x', hash(%s, %d, -3), CAST((CAST(%s AS HUGEINT) * %d) %% %d + %d AS UBIGINT)), '^(.{8})(.{4}).(.{3})(.{4})(.{12})$', '\1-\2-4\3-\4-\5')`,
		idx, seed, idx, uint64(uuidMultiplier), uint64(1)<<62, uint64(1)<<63)
}

// uuidSpelling is uuidKey's shape for index n (its first half from another hash), to check a
// regex against.
func uuidSpelling(n int64) string {
	h := uint64(n)*0x9E3779B97F4A7C15 + 1
	h ^= h >> 31
	s := fmt.Sprintf("%016x%016x", h, (uint64(n)*uuidMultiplier)%(1<<62)|1<<63)
	return s[:8] + "-" + s[8:12] + "-4" + s[13:16] + "-" + s[16:20] + "-" + s[20:]
}

func bound(c *schema.Column, v *schema.Value) *schema.Parsed {
	if v == nil {
		return nil
	}
	p, err := schema.ParseValue(c.DType, *v)
	if err != nil {
		return nil
	}
	return &p
}

// intRange is the range valid integers are drawn from: the bounds, else 0..1,000,000.
func intRange(c *schema.Column) (*big.Int, *big.Int) {
	tlo, thi := schema.IntRange(c.DType.Kind)
	lo, hi := big.NewInt(0), (*big.Int)(nil)
	if lo.Cmp(tlo) < 0 {
		lo = new(big.Int).Set(tlo)
	}
	if p := bound(c, c.Args.Min); p != nil {
		lo = p.Int
	}
	if p := bound(c, c.Args.MinExclusive); p != nil {
		lo = new(big.Int).Add(p.Int, big.NewInt(1))
	}
	if p := bound(c, c.Args.Max); p != nil {
		hi = p.Int
	} else if p := bound(c, c.Args.MaxExclusive); p != nil {
		hi = new(big.Int).Sub(p.Int, big.NewInt(1))
	} else {
		hi = new(big.Int).Add(lo, big.NewInt(1_000_000))
	}
	if hi.Cmp(thi) > 0 {
		hi = thi
	}
	return lo, hi
}

func (g *gen) valid(c *schema.Column, key bool) (string, error) {
	a := &c.Args
	d := c.DType
	if key {
		return g.key(c, g.keyIdx)
	}
	if g.groupKeys[c.Name] && g.depth == 0 && d.Kind == schema.KindString && !a.HasIsIn {
		// Groups of about ten rows each at 10M rows, as customers' orders; a regex the key
		// spellings cannot fit keeps the pool of matching strings below.
		draw := fmt.Sprintf("(%s %% %d)", g.h(), groupKeyValues)
		if expr, err := g.keyedAt(draw, groupKeyValues, func() (string, error) { return g.stringKey(c, draw, "group value") }); err == nil {
			return expr, nil
		}
	}
	if a.HasIsIn && len(a.IsIn) == 0 {
		if !a.Nullable {
			return "", fmt.Errorf("an empty is_in on a non-nullable column leaves no valid value")
		}
		return "NULL", nil // the only value an empty is_in lets through
	}
	switch k := d.Kind; {
	case k == schema.KindBool:
		return fmt.Sprintf("(%s %% 2 = 0)", g.h()), nil
	case k.IsInteger():
		if a.HasIsIn && len(a.IsIn) > 0 {
			return pick(g.h(), valuesText(a.IsIn)), nil
		}
		lo, hi := intRange(c)
		width := new(big.Int).Add(new(big.Int).Sub(hi, lo), big.NewInt(1))
		if width.Sign() <= 0 {
			return "", fmt.Errorf("the bounds leave no valid value")
		}
		if width.Cmp(big.NewInt(1_000_000_000)) > 0 {
			width = big.NewInt(1_000_000_000)
		}
		return fmt.Sprintf("(CAST(%s AS HUGEINT) + %s %% %s)", lo, g.h(), width), nil
	case k.IsFloat():
		lo, hi := floatRange(c)
		return fmt.Sprintf("(%g + (1 + %s %% 999999) / 1000000.0 * %g)", lo, g.h(), hi-lo), nil
	case k == schema.KindDecimal:
		lo, hi := floatRange(c)
		scale := 1.0
		for range d.Scale {
			scale *= 10
		}
		loS, hiS := int64(lo*scale)+1, int64(hi*scale)-1
		if hiS < loS {
			hiS = loS
		}
		return fmt.Sprintf("(CAST(%d + %s %% %d AS DECIMAL(38,0)) / %g)", loS, g.h(), hiS-loS+1, scale), nil
	case k == schema.KindString:
		return g.stringValue(c)
	case k == schema.KindBinary:
		return fmt.Sprintf("encode(printf('%%x', %s %% 4294967296))", g.h()), nil
	case k == schema.KindEnum:
		return pick(g.h(), d.Categories), nil
	case k.IsTemporal():
		return g.temporal(c)
	case k == schema.KindAny:
		return "NULL", nil
	}
	return "", fmt.Errorf("sample does not generate %s columns yet", d.Kind)
}

func floatRange(c *schema.Column) (float64, float64) {
	lo, hi := 0.0, 1000.0
	for _, v := range []*schema.Value{c.Args.Min, c.Args.MinExclusive} {
		if p := bound(c, v); p != nil {
			lo = floatOf(p)
		}
	}
	for _, v := range []*schema.Value{c.Args.Max, c.Args.MaxExclusive} {
		if p := bound(c, v); p != nil {
			hi = floatOf(p)
		}
	}
	if hi <= lo {
		hi = lo + 1000
		if c.Args.Max != nil || c.Args.MaxExclusive != nil {
			hi = lo
		}
	}
	return lo, hi
}

func floatOf(p *schema.Parsed) float64 {
	if p.Rat != nil {
		f, _ := p.Rat.Float64()
		return f
	}
	return p.Float
}

func valuesText(vs []schema.Value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Text
	}
	return out
}

// isInValues are the distinct values a column's is_in allows, in order; nil without is_in (or an
// empty one, which lets only NULL through).
func isInValues(c *schema.Column) []string {
	if !c.Args.HasIsIn || len(c.Args.IsIn) == 0 {
		return nil
	}
	var out []string
	for _, v := range valuesText(c.Args.IsIn) {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// capacity is how many distinct key values a column's declaration allows, when it bounds them
// (is_in, an Enum, a Bool, an integer's min and max); 0 when it leaves them open.
func capacity(c *schema.Column) int64 {
	if values := isInValues(c); values != nil {
		return int64(len(values))
	}
	a := &c.Args
	switch k := c.DType.Kind; {
	case k == schema.KindEnum:
		return int64(len(c.DType.Categories))
	case k == schema.KindBool:
		return 2
	case k.IsInteger() && (a.Max != nil || a.MaxExclusive != nil):
		lo, hi := intRange(c)
		n := new(big.Int).Add(new(big.Int).Sub(hi, lo), big.NewInt(1))
		if n.IsInt64() && n.Sign() > 0 {
			return n.Int64()
		}
	}
	return 0
}

// pick chooses one of the values (rendered as literals) by the hash.
func pick(h string, values []string) string {
	lits := make([]string, len(values))
	for i, v := range values {
		lits[i] = sql.String(v)
	}
	return fmt.Sprintf("[%s][CAST(1 + %s %% %d AS BIGINT)]", strings.Join(lits, ", "), h, len(values))
}

func (g *gen) stringValue(c *schema.Column) (string, error) {
	a := &c.Args
	if a.HasIsIn && len(a.IsIn) > 0 {
		return pick(g.h(), valuesText(a.IsIn)), nil
	}
	if a.Regex != nil {
		// A pool of strings that match, drawn with a seeded generator.
		rng := rand.New(rand.NewPCG(g.spec.Seed, uint64(g.salt)))
		re := regexp.MustCompile(*a.Regex)
		var pool []string
		for range 256 {
			if s, ok := matching(*a.Regex, rng); ok && re.MatchString(s) && lengthOK(c, s) {
				pool = append(pool, s)
			}
		}
		if len(pool) == 0 {
			return "", fmt.Errorf("cannot generate strings matching %q within the length bounds", *a.Regex)
		}
		return pick(g.h(), pool), nil
	}
	minLen, maxLen := int64(0), int64(24)
	if a.MinLength != nil {
		minLen = *a.MinLength
	}
	if a.MaxLength != nil {
		maxLen = *a.MaxLength
	}
	if maxLen < minLen {
		return "", fmt.Errorf("the length bounds leave no valid value")
	}
	// A word of 1..8 hex digits, padded to min_length and cut at max_length (ASCII: 1 byte each).
	word := fmt.Sprintf("printf('%%x', %s %% 4294967296)", g.h())
	return fmt.Sprintf("left(rpad(%s, %d, 'x'), %d)", word, minLen, maxLen), nil
}

func lengthOK(c *schema.Column, s string) bool {
	n := int64(len(s))
	return (c.Args.MinLength == nil || n >= *c.Args.MinLength) && (c.Args.MaxLength == nil || n <= *c.Args.MaxLength)
}

// temporal draws aligned values between the bounds (default: 2020-01-01 plus ten years).
func (g *gen) temporal(c *schema.Column) (string, error) {
	d := c.DType
	step := int64(1_000_000) // 1 s, in microseconds
	months := int64(0)
	if c.Args.Resolution != "" {
		r, err := schema.ParseDuration(c.Args.Resolution)
		if err != nil {
			return "", err
		}
		kind, _ := r.Classify()
		switch kind {
		case schema.ResolutionMonths:
			months = r.Months
		default:
			step = new(big.Int).Quo(r.FixedNanos(), big.NewInt(1000)).Int64()
			if kind == schema.ResolutionWeeks {
				months = -1
			}
		}
		if d.TimeZone != "" && step < 3_600_000_000 {
			return "", fmt.Errorf("sample does not generate zoned values at sub-hour resolution")
		}
	}
	switch d.Kind {
	case schema.KindDate:
		if step < 86_400_000_000 {
			step = 86_400_000_000
		}
	case schema.KindTime:
		// Grid points within the bounds: [first, last] in microseconds of the day.
		micros := func(t time.Time) int64 {
			return int64(t.Hour())*3_600_000_000 + int64(t.Minute())*60_000_000 + int64(t.Second())*1_000_000 + int64(t.Nanosecond()/1000)
		}
		first, last := int64(0), int64(86_400_000_000-1)
		if p := bound(c, c.Args.Min); p != nil {
			first = micros(p.Time)
		} else if p := bound(c, c.Args.MinExclusive); p != nil {
			first = micros(p.Time) + 1
		}
		if p := bound(c, c.Args.Max); p != nil {
			last = micros(p.Time)
		} else if p := bound(c, c.Args.MaxExclusive); p != nil {
			last = micros(p.Time) - 1
		}
		first = (first + step - 1) / step * step
		if last < first {
			return "", fmt.Errorf("the bounds leave no value on the resolution grid")
		}
		n := (last-first)/step + 1
		return fmt.Sprintf("CAST(TIME '00:00:00' + to_microseconds(%d + (%s %% %d) * %d) AS TIME)", first, g.h(), n, step), nil
	case schema.KindDuration:
		return fmt.Sprintf("to_microseconds((%s %% 1000) * %d)", g.h(), step), nil
	}
	lo := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if p := bound(c, c.Args.Min); p != nil {
		lo = p.Time
	} else if p := bound(c, c.Args.MinExclusive); p != nil {
		lo = p.Time.Add(time.Second)
	}
	span := int64(3650)
	if p := bound(c, c.Args.Max); p != nil {
		span = int64(p.Time.Sub(lo).Hours()/24) - 1
	} else if p := bound(c, c.Args.MaxExclusive); p != nil {
		span = int64(p.Time.Sub(lo).Hours()/24) - 1
	}
	if span < 1 {
		return "", fmt.Errorf("the bounds leave too little room to sample")
	}
	switch {
	case months > 0:
		start := time.Date(lo.Year(), lo.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, 0)
		idx := int64(start.Year())*12 + int64(start.Month()) - 1
		for idx%months != 0 {
			start = start.AddDate(0, 1, 0)
			idx++
		}
		n := max(span/(31*months), 1)
		return fmt.Sprintf("(DATE '%s' + to_months((%s %% %d) * %d))", start.Format("2006-01-02"), g.h(), n, months), nil
	case months < 0: // weeks: Mondays
		start := lo.AddDate(0, 0, 1)
		for start.Weekday() != time.Monday {
			start = start.AddDate(0, 0, 1)
		}
		start = time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, time.UTC)
		weeks := step / 604_800_000_000
		// Multi-week grids count from Monday 1970-01-05, as the resolution rule does.
		anchor := time.Date(1970, 1, 5, 0, 0, 0, 0, time.UTC)
		for int64(start.Sub(anchor).Hours()/24)%(7*weeks) != 0 {
			start = start.AddDate(0, 0, 7)
		}
		n := max(span/(7*weeks), 1)
		return fmt.Sprintf("(TIMESTAMP '%s' + to_microseconds((%s %% %d) * %d))", start.Format("2006-01-02"), g.h(), n, step), nil
	}
	// Start on the grid: the next multiple of step after lo, from the epoch.
	startUs := (lo.UnixMicro()/step + 1) * step
	n := max(span*86_400_000_000/step, 1)
	base := fmt.Sprintf("make_timestamp(%d + (%s %% %d) * %d)", startUs, g.h(), n, step)
	if d.TimeZone != "" {
		return fmt.Sprintf("CAST(%s AS VARCHAR) || '+00'", base), nil
	}
	return base, nil
}

// breaks lists the violations of a column's value rules that the sampler knows how to make.
func (g *gen) breaks(c *schema.Column) []violation {
	a := &c.Args
	d := c.DType
	var out []violation
	add := func(rule, expr string) { out = append(out, violation{rule, expr}) }
	switch k := d.Kind; {
	case k.IsInteger():
		lo, hi := intRange(c)
		tlo, thi := schema.IntRange(k)
		below := new(big.Int).Sub(lo, big.NewInt(1))
		above := new(big.Int).Add(hi, big.NewInt(1))
		if a.Min != nil && below.Cmp(tlo) >= 0 {
			add("min", below.String())
		}
		if a.MinExclusive != nil && below.Cmp(tlo) >= 0 {
			add("min_exclusive", below.String())
		}
		if a.Max != nil && above.Cmp(thi) <= 0 {
			add("max", above.String())
		}
		if a.MaxExclusive != nil && above.Cmp(thi) <= 0 {
			add("max_exclusive", above.String())
		}
		if a.HasIsIn {
			m := new(big.Int)
			for _, v := range a.IsIn {
				if p := bound(c, &v); p != nil && p.Int.Cmp(m) > 0 {
					m = p.Int
				}
			}
			if next := new(big.Int).Add(m, big.NewInt(1)); next.Cmp(thi) <= 0 {
				add("is_in", next.String())
			}
		}
	case k.IsFloat() || k == schema.KindDecimal:
		lo, hi := floatRange(c)
		for _, r := range []struct {
			rule string
			set  bool
			v    float64
		}{{"min", a.Min != nil, lo - 1}, {"min_exclusive", a.MinExclusive != nil, lo}, {"max", a.Max != nil, hi + 1}, {"max_exclusive", a.MaxExclusive != nil, hi}} {
			// A violating value the decimal cannot hold would fail the generation, not the rule.
			if r.set && (k != schema.KindDecimal || d.Precision == 0 || math.Abs(r.v) < math.Pow10(d.Precision-d.Scale)) {
				add(r.rule, fmt.Sprintf("%g", r.v))
			}
		}
		if k.IsFloat() && !a.AllowInf {
			add("inf", "'inf'")
		}
		if k.IsFloat() && !a.AllowNaN {
			add("nan", "'nan'")
		}
	case k == schema.KindString:
		if a.MinLength != nil && *a.MinLength > 0 {
			add("min_length", "''")
		}
		if a.MaxLength != nil {
			add("max_length", fmt.Sprintf("repeat('x', %d)", *a.MaxLength+1))
		}
		if a.Regex != nil {
			re := regexp.MustCompile(*a.Regex)
			if s, ok := notMatching(re.MatchString); ok && lengthOK(c, s) {
				add("regex", sql.String(s))
			}
		}
		if a.HasIsIn {
			add("is_in", "'__not_in_the_set__'")
		}
	}
	return out
}
