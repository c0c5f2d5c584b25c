package schema

import (
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tablegate/tablegate/internal/datafile"
)

// RuleReferences is the kind of a column's foreign-key rule: its non-NULL values must be values
// of a column of other data.
const RuleReferences = "references"

// Reference names the data a key must be found in: Input (a Parquet file or glob, a CSV file, or
// a table of a DuckDB database file, FILE.duckdb:[schema.]table; relative paths are from the
// schema file's folder) and its column. On a column, Column is the
// referenced column; on a schema-level rule, Columns are this schema's key columns and To the
// referenced ones, in the same order.
type Reference struct {
	Input       string
	Column      string
	Columns, To []string
}

// References declares that the column's non-NULL values are values of column in input.
func (c *Column) References(input, column string) *Column {
	c.Args.References = &Reference{Input: input, Column: column}
	return c
}

// AddReference adds a schema-level rule: the rows' (columns…) are rows of (to…) in input; a row
// with a NULL in its key passes.
func (s *Schema) AddReference(name string, columns []string, input string, to []string) *Schema {
	s.Rules = append(s.Rules, &Rule{Name: name, References: &Reference{Input: input, Columns: columns, To: to}})
	return s
}

// ResolveInput is the reference's input as a run opens it: a relative path is taken from the
// folder of the schema file (file; "" for builder schemas, then from the working folder).
func (r *Reference) ResolveInput(file string) string {
	if r.Input == "" || filepath.IsAbs(r.Input) || file == "" {
		return r.Input
	}
	return filepath.Join(filepath.Dir(file), r.Input)
}

func (r *Reference) clone() *Reference {
	if r == nil {
		return nil
	}
	c := *r
	c.Columns, c.To = slices.Clone(r.Columns), slices.Clone(r.To)
	return &c
}

// referenceInputKind says whether a reference input is one a run can read: Parquet, CSV
// (compressed or not), or a table of a DuckDB database file.
func referenceInputKind(input string) bool {
	if _, _, _, ok := SplitTableAddress(input); ok {
		return true
	}
	return strings.HasSuffix(strings.ToLower(input), ".parquet") || datafile.Ext(input) == ".csv"
}

// dbSuffixes mark DuckDB database files in addresses like db.duckdb:schema.table.
var dbSuffixes = []string{".duckdb:", ".ddb:", ".db:"}

// SplitTableAddress splits a table address FILE.duckdb:[schema.]table (also .ddb, .db); ok is
// false for anything else.
func SplitTableAddress(addr string) (file, schemaName, table string, ok bool) {
	for _, suf := range dbSuffixes {
		if i := strings.LastIndex(addr, suf); i >= 0 {
			file = addr[:i+len(suf)-1]
			name := addr[i+len(suf):]
			if name == "" {
				return "", "", "", false
			}
			if s, t, found := strings.Cut(name, "."); found {
				return file, s, t, true
			}
			return file, "", name, true
		}
	}
	return "", "", "", false
}

// validateReference checks a reference's declaration; bad reports a problem.
func validateReference(s *Schema, r *Reference, composite bool, bad func(key, format string, args ...any)) {
	switch {
	case strings.TrimSpace(r.Input) == "":
		bad("references.input", "the reference has no input (a Parquet file or glob, a CSV file, or FILE.duckdb:[schema.]table)")
	case strings.ContainsRune(r.Input, 0):
		bad("references.input", "reference input %q holds a NUL character, which no file name can: give the file's path", r.Input)
	case !referenceInputKind(r.Input):
		bad("references.input", "reference input %q: give a Parquet file or glob (.parquet), a CSV file (.csv, .csv.gz, .csv.zst), or a table of a DuckDB file (FILE.duckdb:[schema.]table)", r.Input)
	}
	if !composite {
		if strings.TrimSpace(r.Column) == "" {
			bad("references.column", "the reference names no column of %s", r.Input)
		}
		return
	}
	if len(r.Columns) == 0 || len(r.Columns) != len(r.To) {
		bad("references.columns", "columns and to list the key's columns here and in %s, as many of each (got %d and %d)", r.Input, len(r.Columns), len(r.To))
	}
	for _, c := range r.Columns {
		if s.Column(c) == nil {
			bad("references.columns", "'%s' is not a column of %s", c, s.Name)
		}
	}
}

var referenceKeys = []string{"input", "column", "columns", "to"}

// reference reads a references mapping; composite says which form (schema-level) it is.
func (l *loader) reference(n *yaml.Node, label string) *Reference {
	if n.Kind != yaml.MappingNode {
		l.bad(n, label, "references", "references is a mapping of %s; got %s", strings.Join(referenceKeys, ", "), kindOf(n))
		return nil
	}
	r := &Reference{}
	list := func(v *yaml.Node, key string) []string {
		if v.Kind == yaml.ScalarNode {
			return []string{l.str(v, label, key)}
		}
		if v.Kind != yaml.SequenceNode {
			l.bad(v, label, key, "%s is a column name or a list of them; got %s", key, kindOf(v))
			return nil
		}
		var out []string
		for _, x := range v.Content {
			out = append(out, l.str(x, label, key))
		}
		return out
	}
	for _, kv := range pairs(n) {
		key, v := kv[0], kv[1]
		switch key.Value {
		case "input":
			r.Input = l.str(v, label, "references.input")
		case "column":
			r.Column = l.str(v, label, "references.column")
		case "columns":
			r.Columns = list(v, "references.columns")
		case "to":
			r.To = list(v, "references.to")
		default:
			l.bad(key, label, "references."+excerpt(key.Value), "unknown key '%s'; references takes %s", excerpt(key.Value), strings.Join(referenceKeys, ", "))
		}
	}
	return r
}
