package compile

import (
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/schema"
)

// Stages is the plan's evaluation split into statements that a source which filters while it
// scans (Parquet) runs faster than the one Query: DuckDB pushes a filter written straight on
// read_parquet into the scan, where a string rule runs once per dictionary entry instead of once
// per row, but not one written over the plan query's projections (measured at 10M rows: the
// regex of bench15 takes 0.02 s pushed down against 0.3 s row by row).
//
// Run Keys first (each into its table), then Suspects, then Failing over the suspects: its rows
// and rule columns are those of Query for the same rows.
type Stages struct {
	// Keys are the failing-key aggregates, one per key group, each to be stored in its Table.
	Keys []KeyStage
	// Suspects selects the ordinal (__tg_rid) of every row that may fail a rule: the rows that
	// fail a row rule (one filter per column, so that each is pushed into the scan) and the rows
	// whose key is among the failing keys. A row may appear more than once.
	Suspects string
}

// KeyStage is one key group's failing keys, to be stored in Table.
type KeyStage struct {
	Table string
	Query string
}

// Stages returns the staged evaluation over rel; keyTable names the table each key group's
// failing keys go to (an SQL name, quoted as needed).
func (p *Plan) Stages(rel Relation, keyTable func(group int) string) Stages {
	from, rid := rel.From, rel.RowID
	if len(rel.Casts) > 0 {
		// Casts are projections: filters over them cannot reach the scan anyway.
		from, rid = "("+p.SourceSQL(rel)+") AS "+srcName, RowIDColumn
	}
	var st Stages
	var parts []string
	// Row rules on a string column filter by column: pushed into the Parquet scan, DuckDB runs
	// them once per dictionary entry. Every other row rule (numbers, dates, nested values,
	// nullability, schema-level rules) runs row by row wherever it sits, so those share one
	// scan. A nullability rule beside a string rule would also keep DuckDB off the dictionary
	// (measured: the email rules of bench40 0.39 s with it, 0.06 s without).
	stringColumn := map[string]bool{}
	for _, c := range p.Columns {
		stringColumn[c.Name] = c.DType.Kind == schema.KindString
	}
	var filters []string
	byFilter := map[string][]string{}
	for _, r := range p.Rules {
		if r.group >= 0 {
			continue
		}
		key := ""
		if stringColumn[r.Column] && r.Kind != schema.RuleNullability {
			key = r.Column
		}
		if _, ok := byFilter[key]; !ok {
			filters = append(filters, key)
		}
		byFilter[key] = append(byFilter[key], r.failsSQL())
	}
	for _, f := range filters {
		parts = append(parts, fmt.Sprintf("SELECT %s AS %s FROM %s WHERE %s",
			rid, RowIDColumn, from, strings.Join(byFilter[f], " OR ")))
	}
	for g := range p.keyed {
		if p.unused[g] {
			continue
		}
		table := keyTable(g)
		st.Keys = append(st.Keys, KeyStage{Table: table, Query: p.failingKeys(g, from)})
		parts = append(parts, fmt.Sprintf("SELECT %s AS %s FROM %s SEMI JOIN %s AS __tg_k%d ON %s",
			rid, RowIDColumn, from, table, g, p.keyMatch(g, "")))
	}
	if len(parts) == 0 {
		parts = []string{fmt.Sprintf("SELECT %s AS %s FROM %s WHERE FALSE", rid, RowIDColumn, from)}
	}
	st.Suspects = strings.Join(parts, "\nUNION ALL\n")
	return st
}

// Failing is FailingQuery over the failing keys Stages stored (keyTable names their tables as
// it did there), reading only the source rows where the condition holds (SQL over the source
// columns and __tg_rid).
func (p *Plan) Failing(rel Relation, keyTable func(group int) string, where string) string {
	return p.query(rel, queryShape{keyTable: keyTable, where: where, failingOnly: true})
}
