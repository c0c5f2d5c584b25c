package compile

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tablegate/tablegate/internal/datafile"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// Reference is a foreign-key rule's other data: the run checks that it can be read and that its
// columns have the types of the keys before it reads a row.
type Reference struct {
	Rule string // customer_id|references, known_product
	// Input is the reference's path as the run opens it (resolved from the schema file's
	// folder); Source the FROM item that reads it.
	Input, Source string
	// Columns are this schema's key columns, To the referenced ones, in the same order.
	Columns, To []string
	// File, DBSchema and Table name a table of a DuckDB database file (File absolute, DBSchema
	// "" for main), which the run attaches read-only and reads through the temp view Source
	// (ReferenceView): the attachment's name is the run's.
	File, DBSchema, Table string
}

// References lists the plan's foreign-key rules' other data, in rule order.
func (p *Plan) References() []Reference { return append([]Reference(nil), p.references...) }

// ReferenceDialect is a dialect whose engine reads a foreign key's other data: In renders
// references with it (a plan in another dialect refuses them).
type ReferenceDialect interface {
	Dialect
	// ReferenceSource is the FROM item that reads the reference's data at input (a path made
	// absolute, or a URL); its error refuses the rule.
	ReferenceSource(input string) (string, error)
}

// reference compiles a foreign-key rule: the key is NULL in some column (it passes, as for
// every rule but nullability), or found among the reference's non-NULL keys. It returns the
// rule's SQL and, on DuckDB, its rule column, which reads a failing-keys aggregate: the keys are grouped
// (in the aggregate of a key group with the same keys, when the plan has one) and each distinct
// key is looked up in the reference once, a hash join of the distinct keys, not of every row
// (measured, 10M rows and 1M keys in both: the failing rows' pass 1.8 CPU s without a
// reference, 4.3 s with the lookup per row, where the filter, the rule column and the
// failing-rows filter each built the reference's hash table).
func (c *compiler) reference(rule string, r *schema.Reference, columns, to []string) (expr, value string, err error) {
	input := r.ResolveInput(c.s.File)
	ref := Reference{Rule: rule, Columns: columns, To: to}
	if c.from != nil {
		d, ok := c.d.(ReferenceDialect)
		if !ok {
			return "", "", fmt.Errorf("this engine reads no other data")
		}
		if strings.Contains(r.Input, "://") {
			input = r.Input // a URL the engine reads
		} else if abs, err := filepath.Abs(input); err == nil {
			input = abs
		}
		if ref.Source, err = d.ReferenceSource(input); err != nil {
			return "", "", err
		}
		ref.Input = input
	} else if file, dbSchema, table, ok := schema.SplitTableAddress(input); ok {
		if abs, err := filepath.Abs(file); err == nil {
			file = abs
		}
		ref.File, ref.DBSchema, ref.Table = file, dbSchema, table
		ref.Input = input
		if abs, err := filepath.Abs(input); err == nil {
			ref.Input = abs
		}
		ref.Source = sql.QualifiedIdent("temp", "main", fmt.Sprintf("__tg_ref_%d", len(c.plan.references)))
	} else {
		if abs, err := filepath.Abs(input); err == nil && !strings.ContainsAny(input, "*?[") {
			input = abs
		}
		reader := "read_parquet"
		if datafile.Ext(input) == ".csv" {
			reader = "read_csv" // also compressed: DuckDB reads a.csv.gz by its suffix
		}
		ref.Input, ref.Source = input, reader+"("+sql.String(input)+")"
	}
	c.plan.references = append(c.plan.references, ref)
	keys, refs, nulls, refNotNull := make([]string, len(columns)), make([]string, len(to)), make([]string, len(columns)), make([]string, len(to))
	for i := range columns {
		keys[i], refs[i] = c.d.Ident(columns[i]), c.d.Ident(to[i])
		nulls[i] = keys[i] + " IS NULL"
		refNotNull[i] = refs[i] + " IS NOT NULL"
	}
	key, refKey := keys[0], refs[0]
	if len(keys) > 1 {
		key, refKey = "("+strings.Join(keys, ", ")+")", strings.Join(refs, ", ")
	}
	expr = fmt.Sprintf("(%s OR %s IN (SELECT %s FROM %s WHERE %s))", strings.Join(nulls, " OR "), key, refKey, ref.Source, strings.Join(refNotNull, " AND "))
	if c.from != nil || c.own != nil {
		// Another engine's dialect (Spark) runs the semi-join per row, as a join of its plan.
		return expr, "", nil
	}
	value = c.keyedRule(keys, "NOT "+expr, "")
	c.plan.keyed[c.pendingGroup].lookup = true
	return expr, value, nil
}

// referenceRule compiles a schema-level foreign key of several columns.
func (c *compiler) referenceRule(r *schema.Rule, names []string) {
	expr, value, err := c.reference(r.Name, r.References, r.References.Columns, r.References.To)
	if err != nil {
		c.fail(r.Pos(), "", "references", "rule '%s' cannot read its other data %s: %v", r.Name, r.References.Input, err)
		return
	}
	if value == "" {
		value = expr // evaluated per row (another engine's dialect)
	}
	desc := r.Description
	if desc == "" {
		desc = fmt.Sprintf("(%s) in %s (%s)", strings.Join(r.References.Columns, ", "), r.References.Input, strings.Join(r.References.To, ", "))
	}
	c.add(Rule{Name: r.Name, Kind: schema.RuleReferences, Severity: severityOf(c.s.Severity, r.Name, names),
		Tolerance: c.s.Tolerance.Of(r.Name, names), Expr: expr, Description: desc, value: value})
}

// ReferenceView is the statement that makes view (a Reference's Source) read the table
// catalog.schemaName.table of the run's attachment.
func ReferenceView(view, catalog, schemaName, table string) string {
	if schemaName == "" {
		schemaName = "main"
	}
	return "CREATE OR REPLACE TEMP VIEW " + view + " AS SELECT * FROM " + sql.QualifiedIdent(catalog, schemaName, table)
}

// DropReferenceView drops a reference's view (ReferenceView).
func DropReferenceView(view string) string { return "DROP VIEW IF EXISTS " + view }
