// Package infer writes a starting schema from existing data: exact dtypes from the relation, so
// that the column check passes, nullable where NULLs occur, is_in for strings with few distinct
// values, bounds on request, and uniqueness where every value is distinct. It reads the data
// with DuckDB aggregates whose memory does not grow with the rows (counts, HyperLogLog distinct
// estimates, min and max), and looks closer only at the columns those single out.
package infer

import (
	"context"
	gosql "database/sql"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// Options say what to infer.
type Options struct {
	// Name is the schema's name.
	Name string
	// Source names the input in the file's header comment.
	Source string
	// Bounds adds min and max from the data to ordinal columns.
	Bounds bool
	// MaxCategories is the most distinct values a String column may have to get is_in (0: none).
	MaxCategories int
	// SmallTable is the row count under which all-distinct columns are proposed in a comment
	// rather than declared unique: in few rows, distinct values are often chance.
	SmallTable int64
}

// Querier runs the aggregates: a *sql.DB or *sql.Conn.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*gosql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *gosql.Row
}

// column is what the aggregates found about one column.
type column struct {
	name     string
	duckType string
	dtype    schema.DType
	ok       bool // the schema language has a dtype for it
	nonNull  int64
	approx   int64 // approximate distinct values
	distinct bool  // every non-NULL value distinct (checked exactly)
	nan, inf bool
	min, max string // as text, for --bounds ("" when none)
	values   []string
}

// Result is the inferred schema.
type Result struct {
	YAML []byte
	Rows int64
}

// Infer reads the relation from (a FROM clause on q) and returns a schema file for it.
func Infer(ctx context.Context, q Querier, from string, opts Options) (*Result, error) {
	described, err := casting.Describe(ctx, q, from)
	if err != nil {
		return nil, err
	}
	cols := make([]*column, len(described))
	for i, d := range described {
		c := &column{name: d.Name, duckType: d.Type}
		if t, err := casting.ParseType(d.Type); err == nil {
			c.dtype, c.ok = casting.DTypeOf(t)
		}
		cols[i] = c
	}
	rows, err := aggregate(ctx, q, from, cols, opts)
	if err != nil {
		return nil, err
	}
	if err := closer(ctx, q, from, cols, rows, opts); err != nil {
		return nil, err
	}
	data, err := render(cols, rows, opts)
	if err != nil {
		return nil, err
	}
	return &Result{YAML: data, Rows: rows}, nil
}

func isString(c *column) bool {
	return c.ok && c.dtype.Kind == schema.KindString && c.duckType == "VARCHAR"
}
func isFloat(c *column) bool {
	return c.ok && (c.dtype.Kind == schema.KindFloat32 || c.dtype.Kind == schema.KindFloat64)
}

// bounded reports whether --bounds gives the column min and max: numbers and dates, whose text
// DuckDB prints as the schema reads it.
func bounded(c *column) bool {
	k := c.dtype.Kind
	return c.ok && (k.IsInteger() || k == schema.KindDecimal || isFloat(c) || k == schema.KindDate)
}

// distinctable reports whether the column may be declared unique: scalar columns (unique on a
// nested column compares whole values, which is rarely the intent) other than floats, whose
// distinct values are measurements that differ by chance, never a key.
func distinctable(c *column) bool {
	return c.ok && !c.dtype.Kind.IsNested() && c.dtype.Kind != schema.KindBinary && !isFloat(c)
}

// aggregate runs the one pass over the rows: per column the non-NULL count, a distinct
// estimate, NaN and infinity flags for floats, and min and max for bounds.
func aggregate(ctx context.Context, q Querier, from string, cols []*column, opts Options) (int64, error) {
	parts := []string{"count(*)"}
	var dests []any
	var total int64
	dests = append(dests, &total)
	mins := make([]gosql.NullString, len(cols))
	maxs := make([]gosql.NullString, len(cols))
	for i, c := range cols {
		ref := sql.Ident(c.name)
		parts = append(parts, "count("+ref+")")
		dests = append(dests, &c.nonNull)
		if distinctable(c) {
			parts = append(parts, "approx_count_distinct("+ref+")")
			dests = append(dests, &c.approx)
		}
		finite := ref
		if isFloat(c) {
			parts = append(parts, "coalesce(bool_or(isnan("+ref+")), false)", "coalesce(bool_or(isinf("+ref+")), false)")
			dests = append(dests, &c.nan, &c.inf)
			finite = fmt.Sprintf("CASE WHEN isfinite(%s) THEN %s::DOUBLE END", ref, ref)
		}
		if opts.Bounds && bounded(c) {
			parts = append(parts, "min("+finite+")::VARCHAR", "max("+finite+")::VARCHAR")
			dests = append(dests, &mins[i], &maxs[i])
		}
	}
	if err := q.QueryRowContext(ctx, "SELECT "+strings.Join(parts, ", ")+" FROM "+from).Scan(dests...); err != nil {
		return 0, fmt.Errorf("summarise the input: %w", err)
	}
	for i, c := range cols {
		// An infinity fails a bound even where allow_inf allows it: no bounds then.
		if !c.inf {
			c.min, c.max = mins[i].String, maxs[i].String
		}
	}
	return total, nil
}

// closer looks at the columns the pass singled out: exact uniqueness where the estimate is
// near the row count (DuckDB's distinct aggregate spills past its memory limit), and the values
// of strings with few distinct ones.
func closer(ctx context.Context, q Querier, from string, cols []*column, rows int64, opts Options) error {
	for _, c := range cols {
		if err := ctx.Err(); err != nil {
			return err
		}
		ref := sql.Ident(c.name)
		// HyperLogLog is within a few percent; a column below that cannot be all distinct.
		if distinctable(c) && c.nonNull > 1 && float64(c.approx) >= 0.9*float64(c.nonNull) {
			var n int64
			if err := q.QueryRowContext(ctx, fmt.Sprintf("SELECT count(DISTINCT %s) FROM %s", ref, from)).Scan(&n); err != nil {
				return fmt.Errorf("count the distinct values of %s: %w", c.name, err)
			}
			c.distinct = n == c.nonNull
		}
		// The estimate may be low by a few percent: ask for one value past the limit, exactly.
		if opts.MaxCategories > 0 && isString(c) && c.nonNull > 0 && !c.distinct && float64(c.approx) <= 1.1*float64(opts.MaxCategories)+1 {
			vals, err := queryStrings(ctx, q, fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE %s IS NOT NULL ORDER BY 1 LIMIT %d", ref, from, ref, opts.MaxCategories+1))
			if err != nil {
				return fmt.Errorf("list the values of %s: %w", c.name, err)
			}
			if len(vals) <= opts.MaxCategories {
				c.values = vals
			}
		}
	}
	return nil
}

func queryStrings(ctx context.Context, q Querier, query string) ([]string, error) {
	rs, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var s string
		if err := rs.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rs.Err()
}

// render writes the schema file, with comments saying what was inferred from how many rows.
func render(cols []*column, rows int64, opts Options) ([]byte, error) {
	doc := mapping()
	bounds := ""
	if opts.Bounds {
		bounds = "; min and max from the data"
	}
	categories := "; no is_in"
	if opts.MaxCategories > 0 {
		categories = fmt.Sprintf("; is_in for strings with at most %d values", opts.MaxCategories)
	}
	doc.HeadComment = fmt.Sprintf("Inferred by tablegate init from %s, %d rows.\n"+
		"Dtypes as the input stores them; nullable where NULLs occur%s%s.\n"+
		"A starting point: edit the rules to what the data must be, not what it happened to be.", opts.Source, rows, categories, bounds)
	add(doc, "schema", str(opts.Name))
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	keyed := false
	for _, c := range cols {
		n := mapping()
		add(n, "name", str(c.name))
		var notes []string
		if !c.ok {
			add(n, "type", scalar("Any"))
			notes = append(notes, fmt.Sprintf("DuckDB type %s has no dtype: Any accepts it", c.duckType))
		} else {
			dtypeKeys(n, c.dtype)
			if c.nonNull < rows {
				add(n, "nullable", scalar("true"))
				notes = append(notes, fmt.Sprintf("%d of %d rows NULL", rows-c.nonNull, rows))
			}
			if c.nan {
				add(n, "allow_nan", scalar("true"))
			}
			if c.inf {
				add(n, "allow_inf", scalar("true"))
			}
			if c.min != "" {
				add(n, "min", number(c.min, c.dtype))
				add(n, "max", number(c.max, c.dtype))
			}
			if c.values != nil {
				vals := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
				for _, v := range c.values {
					vals.Content = append(vals.Content, str(v))
				}
				add(n, "is_in", vals)
				notes = append(notes, fmt.Sprintf("%d distinct values", len(c.values)))
			}
			// unique takes two NULLs for duplicates: a column with more is not unique.
			if c.distinct && rows-c.nonNull <= 1 {
				switch {
				case rows < opts.SmallTable:
					notes = append(notes, fmt.Sprintf("all %d values distinct: unique (or primary_key) if that is meant, not chance", c.nonNull))
				case !keyed && c.nonNull == rows:
					add(n, "primary_key", scalar("true"))
					notes = append(notes, fmt.Sprintf("all %d values distinct and none NULL", rows))
					keyed = true
				default:
					add(n, "unique", scalar("true"))
					notes = append(notes, fmt.Sprintf("all %d values distinct", c.nonNull))
				}
			}
		}
		if len(notes) > 0 {
			n.Content[1].LineComment = strings.Join(notes, "; ")
		}
		seq.Content = append(seq.Content, n)
	}
	add(doc, "columns", seq)
	data, err := schema.WriteDocument(doc)
	if err != nil {
		return nil, err
	}
	// First, so that editors check and complete the keys against the published JSON Schema.
	return append([]byte(schema.LanguageServerLine+"\n"), data...), nil
}

// dtypeKeys adds type and its parameters; nested members are nullable, and float members allow
// NaN and infinities: the aggregates look at whole values, not inside them.
func dtypeKeys(n *yaml.Node, d schema.DType) {
	schema.WriteDType(n, d)
	switch d.Kind {
	case schema.KindList, schema.KindArray:
		inner := mapping()
		member(inner, d.Inner.DType)
		add(n, "inner", inner)
	case schema.KindStruct:
		fields := &yaml.Node{Kind: yaml.SequenceNode}
		for _, f := range d.Fields {
			fn := mapping()
			add(fn, "name", str(f.Name))
			member(fn, f.DType)
			fields.Content = append(fields.Content, fn)
		}
		add(n, "fields", fields)
	}
}

func member(n *yaml.Node, d schema.DType) {
	dtypeKeys(n, d)
	add(n, "nullable", scalar("true"))
	if d.Kind == schema.KindFloat32 || d.Kind == schema.KindFloat64 {
		add(n, "allow_nan", scalar("true"))
		add(n, "allow_inf", scalar("true"))
	}
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode} }

// scalar is a plain scalar (names, numbers, booleans the schema reads as such).
func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

// str is a value that must read back as a string whatever it looks like ("1", "yes", "null"):
// the encoder quotes it when it would read as something else.
func str(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

// number is a bound: numbers plain, dates quoted.
func number(v string, d schema.DType) *yaml.Node {
	if d.Kind == schema.KindDate {
		return str(v)
	}
	return scalar(v)
}

func add(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, scalar(key), v)
}
