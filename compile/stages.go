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
// Run Keys first (each into its table), then Suspects; Failing then reads every column of the
// rows that are suspects or match RowFilter, and its rows and rule columns are those of Query
// for the same rows.
type Stages struct {
	// Keys are the failing-key aggregates, one per key group, each to be stored in its Table.
	Keys []KeyStage
	// Suspects selects the ordinal (__tg_rid) of the rows that fail a rule on a string column
	// (one filter per column, each pushed into the scan; not for the relation's PlainColumns)
	// or whose key is among the failing keys; a row may appear more than once. "" when the plan
	// has neither.
	Suspects string
	// RowFilter is TRUE for a row that fails any other row rule (SQL over the source columns):
	// those run row by row wherever they sit, so Failing evaluates them in the scan it makes of
	// every column anyway rather than in a scan of their own (measured at 10M rows, 40 rules:
	// 1.26 s against 1.50 s). "" when there are none.
	RowFilter string
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
	stringColumn := map[string]bool{}
	for _, c := range p.Columns {
		stringColumn[c.Name] = c.DType.Kind == schema.KindString
	}
	// Rules of a string column, by column and in rule order. A nullability rule stays out: beside
	// a string rule it keeps DuckDB off the dictionary (measured: the email rules of bench40
	// 0.39 s with it, 0.06 s without). So does a column stored without a dictionary: its own
	// scan would only decode it twice (measured, 10M distinct emails: a regex 0.64 s in a scan
	// of its own, 0.53 s more in the fetch).
	var columns []string
	byColumn := map[string][]string{}
	var rest []string
	for _, r := range p.Rules {
		switch {
		case r.group >= 0:
		case stringColumn[r.Column] && r.Kind != schema.RuleNullability && !rel.PlainColumns[r.Column]:
			if _, ok := byColumn[r.Column]; !ok {
				columns = append(columns, r.Column)
			}
			byColumn[r.Column] = append(byColumn[r.Column], r.failsSQL())
		default:
			rest = append(rest, r.failsSQL())
		}
	}
	var parts []string
	for _, c := range columns {
		parts = append(parts, fmt.Sprintf("SELECT %s AS %s FROM %s WHERE %s",
			rid, RowIDColumn, from, strings.Join(byColumn[c], " OR ")))
	}
	st := Stages{Keys: p.KeyStages(rel, keyTable)}
	for g := range p.keyed {
		if p.unused[g] {
			continue
		}
		parts = append(parts, fmt.Sprintf("SELECT %s AS %s FROM %s SEMI JOIN %s AS __tg_k%d ON %s",
			rid, RowIDColumn, from, keyTable(g), g, p.keyMatch(g, "")))
	}
	st.Suspects = strings.Join(parts, "\nUNION ALL\n")
	st.RowFilter = strings.Join(rest, " OR ")
	return st
}

// KeyStages are the failing-key aggregates over rel, one per key group, each to be stored in the
// table keyTable names (Stages.Keys). A source that does not filter while it scans (a DuckDB
// table) runs them, then Failing over every row: the aggregates then run as statements of their
// own, with the threads the engine gives them.
func (p *Plan) KeyStages(rel Relation, keyTable func(group int) string) []KeyStage {
	// Aliased, as in the plan query: under its own name a table named like a struct column would
	// take "raw"."id" for its column id, not the struct's field.
	from := rel.From + " AS " + srcName
	if len(rel.Casts) > 0 {
		from = "(" + p.SourceSQL(rel) + ") AS " + srcName
	}
	var keys []KeyStage
	for g := range p.keyed {
		if p.unused[g] {
			continue
		}
		src := from
		if s, ok := rel.KeySources[g]; ok {
			src = s + " AS " + srcName
		}
		keys = append(keys, KeyStage{Table: keyTable(g), Query: p.failingKeys(g, src)})
	}
	return keys
}

// Failing is Query restricted to the rows that fail some rule (warn rules included), over the
// failing keys KeyStages stored (keyTable names their tables as it did there), reading only the
// source rows where the condition holds (SQL over the source columns and __tg_rid; "" reads
// every row). Stages.Where reads only failing rows; the failing-rows filter tests them again,
// which keeps Failing exact for any condition and costs nothing measurable on the few rows read
// (10M rows, bench15: 0.73-0.90 s with it, 0.73-0.80 s without).
func (p *Plan) Failing(rel Relation, keyTable func(group int) string, where string) string {
	return p.query(rel, queryShape{keyTable: keyTable, where: where, failingOnly: true})
}

// SuspectsIn is the condition that picks the suspects stored in the table named table (a semi
// join).
func SuspectsIn(table string) string {
	return RowIDColumn + " IN (SELECT " + RowIDColumn + " FROM " + table + ")"
}

// Where is the condition Failing reads the source rows by: the suspects, which the condition
// suspects picks (SQL over __tg_rid, such as SuspectsIn; unused when Suspects is ""), or the
// rows RowFilter matches.
func (st Stages) Where(suspects string) string {
	var where []string
	if st.Suspects != "" && suspects != "" {
		where = append(where, suspects)
	}
	if st.RowFilter != "" {
		where = append(where, "("+st.RowFilter+")")
	}
	if len(where) == 0 {
		return "FALSE"
	}
	return strings.Join(where, " OR ")
}
