// Package schema is tablegate's schema model: dtypes, columns, rule arguments, schema-level
// rules and severities, loaded from YAML/JSON files or built in Go. Validate reports every
// declaration error at once; a valid schema compiles with package compile.
package schema

import "fmt"

// Schema is a named list of columns with schema-level rules and severities.
type Schema struct {
	Name        string
	Description string
	Columns     []*Column
	Rules       []*Rule
	Severity    SeveritySpec
	// Tolerance is how many failing rows the schema-level rules tolerate.
	Tolerance ToleranceSpec
	// TableChecks judge the whole input (volume, freshness, metrics), once per run.
	TableChecks []*TableCheck
	// Contract names the data contract the schema was imported from; nil for other schemas.
	Contract *Contract

	// File is the schema file the schema was loaded from ("" for builder schemas).
	File string
	// problems are errors found while loading, reported again by Validate.
	problems []error
}

// Rule is a schema-level custom rule: a SQL boolean expression over a row, or, with GroupBy, an
// aggregate evaluated per group (every row of a failing group fails).
type Rule struct {
	Name        string
	Description string
	SQL         string
	// Spark is the same rule in Spark SQL, for a run on Spark; "" means it has none.
	Spark   string
	GroupBy []string
	// References makes the rule a foreign key of several columns (SQL is then empty).
	References *Reference
	pos        Pos
}

// Pos is a place in a schema file.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	switch {
	case p.File == "":
		return ""
	case p.Line == 0:
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// New declares a schema with columns in order.
func New(name string, columns ...*Column) *Schema {
	return &Schema{Name: name, Columns: columns}
}

// Extends declares a child schema: it has the parent's columns, rules and severities, then
// these columns. A column with a parent's name replaces it in the parent's place, so that a
// child that tightens a column keeps the table's column order.
func Extends(parent *Schema, name string, columns ...*Column) *Schema {
	child := &Schema{
		Name:        name,
		Description: parent.Description,
		Rules:       append([]*Rule(nil), parent.Rules...),
		Severity:    copySeverity(parent.Severity),
		Tolerance:   parent.Tolerance.clone(),
		TableChecks: append([]*TableCheck(nil), parent.TableChecks...),
		problems:    append([]error(nil), parent.problems...),
	}
	child.Columns = mergeColumns(parent.Columns, columns)
	return child
}

// mergeColumns keeps the parent's columns in place, a redeclared one replaced where the parent
// had it, and appends the child's new columns in their order.
func mergeColumns(parent, child []*Column) []*Column {
	redeclared := make(map[string]*Column, len(child))
	for _, c := range child {
		redeclared[c.Name] = c
	}
	inParent := make(map[string]bool, len(parent))
	out := make([]*Column, 0, len(parent)+len(child))
	for _, c := range parent {
		inParent[c.Name] = true
		if r, ok := redeclared[c.Name]; ok {
			c = r
		}
		out = append(out, c)
	}
	for _, c := range child {
		if !inParent[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

func copySeverity(s SeveritySpec) SeveritySpec {
	s.PerRule = append([]SeverityEntry(nil), s.PerRule...)
	return s
}

// Describe sets the schema's description.
func (s *Schema) Describe(text string) *Schema { s.Description = text; return s }

// AddRule adds a schema-level custom rule.
func (s *Schema) AddRule(name, sql string) *Schema {
	s.Rules = append(s.Rules, &Rule{Name: name, SQL: sql})
	return s
}

// AddSparkRule adds a schema-level custom rule with its Spark SQL form beside the DuckDB one.
func (s *Schema) AddSparkRule(name, sql, spark string, groupBy ...string) *Schema {
	s.Rules = append(s.Rules, &Rule{Name: name, SQL: sql, Spark: spark, GroupBy: groupBy})
	return s
}

// AddGroupRule adds a schema-level aggregate rule evaluated per group of the key columns.
func (s *Schema) AddGroupRule(name, sql string, groupBy ...string) *Schema {
	s.Rules = append(s.Rules, &Rule{Name: name, SQL: sql, GroupBy: groupBy})
	return s
}

// DescribeRule sets the description of the schema-level rule added last.
func (s *Schema) DescribeRule(text string) *Schema {
	if n := len(s.Rules); n > 0 {
		s.Rules[n-1].Description = text
	}
	return s
}

// SeverityAll sets one severity for every schema-level rule (primary_key and custom rules).
func (s *Schema) SeverityAll(sev Severity) *Schema { s.Severity.All = sev; return s }

// SeverityOf sets the severity of one schema-level rule.
func (s *Schema) SeverityOf(rule string, sev Severity) *Schema {
	s.Severity.PerRule = append(s.Severity.PerRule, SeverityEntry{Rule: rule, Severity: sev})
	return s
}

// Column returns the declared column with this name, or nil.
func (s *Schema) Column(name string) *Column {
	for _, c := range s.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// PrimaryKey lists the primary-key columns in schema order.
func (s *Schema) PrimaryKey() []string {
	var pk []string
	for _, c := range s.Columns {
		if c.Args.PrimaryKey {
			pk = append(pk, c.Name)
		}
	}
	return pk
}
