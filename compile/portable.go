package compile

import (
	"fmt"
	"slices"
	"strings"
)

// ProgramDialect is a dialect whose engine runs a plan's whole program (a plan rendered in it by
// In): what the program's statements say differently from DuckDB's. Its program keeps every row
// with its rule columns in one cached relation and reads the counts, samples and outputs from it
// (DuckDB's program is tuned to DuckDB: ordinal bitmaps, session variables, sized row groups).
type ProgramDialect interface {
	Dialect
	// CacheTable keeps the rows of query under name for the run's later statements; Uncache lets
	// them go.
	CacheTable(name, query string) string
	Uncache(name string) string
	// RowJSON renders the named values of a row as the text of one JSON object, NULL fields
	// kept.
	RowJSON(names, values []string) string
	// WriteParquet writes the rows of query, in its order, as the Parquet files of the
	// directory dir (a temporary the engine's writer puts in place).
	WriteParquet(dir, query string) string
	// WriteTable replaces the catalog table (a qualified, quoted name) with the rows of query,
	// in its order, as a table of the format, in one commit; the table's properties record
	// the run (Param(1)) and, for a quarantine, the version to restore it to (Param(2)), which
	// the engine's writer binds.
	WriteTable(format, table, query string) string
}

// Param is the marker of the program's parameter i (1-based) in a ProgramDialect's statements:
// the engine binds it, outside quoted text and identifiers, to the run's value as a typed literal
// (SamplePicks' takes, SampleRows' ordinals).
func Param(i int) string { return fmt.Sprintf("$%d", i) }

// portableProgram is Program for a plan in a ProgramDialect.
func (p *Plan) portableProgram(d ProgramDialect, rel Relation, o ProgramOptions) *Program {
	b := &builder{id: o.ID}
	flagged := d.Ident(fmt.Sprintf("__tg_flagged_%d", o.ID))
	rid := d.Ident(RowIDColumn)
	valid, all := p.ValidExpr(true), p.ValidExpr(false)
	rule := func(i int) string { return d.Ident(p.Rules[i].Name) }
	keyCopy := p.portableKeyCopy(b, d, &rel, o.ID)
	b.add(Exec, 0, "evaluate the rules", d.CacheTable(flagged, p.Query(rel)))
	if keyCopy != "" {
		// The cached rows hold the key rules' columns: free the copy now.
		b.add(Exec, 0, "free the copy of key columns", d.Uncache(keyCopy))
	}
	b.add(CountAll, 0, "count the rows and failures", fmt.Sprintf("SELECT count(*), count_if(NOT %s), count_if(NOT %s) FROM %s", valid, all, flagged))
	if len(p.Rules) > 0 {
		for lo := 0; lo < len(p.Rules); lo += RuleCountChunk {
			hi := min(lo+RuleCountChunk, len(p.Rules))
			parts := make([]string, 0, hi-lo)
			for i := lo; i < hi; i++ {
				parts = append(parts, fmt.Sprintf("count_if(NOT %s)", rule(i)))
			}
			b.add(RuleCounts, AnyFailure, fmt.Sprintf("count failures per rule (%d to %d)", lo+1, hi), "SELECT "+strings.Join(parts, ", ")+" FROM "+flagged)
		}
	}
	if q := p.TableChecksIn(d, flagged); q != "" {
		// After the rule counts, which the checks may read; over the cached rows, every input row.
		b.add(TableChecks, 0, "evaluate the table checks", q)
	}
	if len(p.Rules) > 0 {
		p.portableReport(b, d, flagged, o)
	}
	cols := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		cols[i] = d.Ident(c.Name)
	}
	validRows := fmt.Sprintf("SELECT %s FROM %s WHERE %s ORDER BY %s", strings.Join(cols, ", "), flagged, valid, rid)
	// With no invalid row, every row is written: also the rows failing only error rules within
	// their tolerances, which a run without a quarantine writes (the interpreter's decide).
	allRows := fmt.Sprintf("SELECT %s FROM %s ORDER BY %s", strings.Join(cols, ", "), flagged, rid)
	var q strings.Builder
	q.WriteString("SELECT " + strings.Join(cols, ", "))
	for i, r := range p.Rules {
		fmt.Fprintf(&q, ", CASE WHEN %s THEN %s ELSE %s END AS %s", rule(i), d.String("valid"), d.String("invalid"), d.Ident(r.Check))
	}
	fmt.Fprintf(&q, " FROM %s WHERE NOT %s ORDER BY %s", flagged, valid, rid)
	switch o.Sink {
	case ToCaller:
		b.add(InvalidRows, 0, "read the filtered rows", q.String())
		b.add(ValidRows, 0, "read the filtered rows", validRows)
	case ToOutput, ToParquet:
		if out := o.Output; out.Format != "" {
			name := func(table string) string {
				n := d.Ident(out.Schema) + "." + d.Ident(table)
				if out.Catalog != "" {
					n = d.Ident(out.Catalog) + "." + n
				}
				return n
			}
			b.add(WriteValid, WriteTable|NoInvalid, "write the valid rows", d.WriteTable(out.Format, name(out.Table), allRows))
			b.add(WriteValid, WriteTable|AnyInvalid, "write the valid rows", d.WriteTable(out.Format, name(out.Table), validRows))
			if len(p.Rules) > 0 {
				b.add(WriteInvalid, WriteQuarant, "write the invalid rows", d.WriteTable(out.Format, name(out.Quarantine), q.String()))
			}
			break
		}
		b.add(WriteValid, WriteTable|NoInvalid, "write the valid rows", d.WriteParquet(o.Output.TableFile, allRows))
		b.add(WriteValid, WriteTable|AnyInvalid, "write the valid rows", d.WriteParquet(o.Output.TableFile, validRows))
		if len(p.Rules) > 0 {
			b.add(WriteInvalid, WriteQuarant, "write the invalid rows", d.WriteParquet(o.Output.QuarantineFile, q.String()))
		}
	}
	b.add(Cleanup, 0, "drop the run's cached rows", d.Uncache(flagged))
	if keyCopy != "" {
		b.add(Cleanup, 0, "drop the run's copy of key columns", d.Uncache(keyCopy))
	}
	return &b.prog
}

// portableKeyCopy caches, when two key groups or more aggregate the input, the columns they read
// in one copy and points their aggregates at it (rel.KeySources): each aggregate would otherwise
// read the input once more, besides the plan query's own read of it. It returns the copy's
// name, "" when it makes none (one key group reads the input as often as a copy would).
func (p *Plan) portableKeyCopy(b *builder, d ProgramDialect, rel *Relation, id int64) string {
	var groups []int
	reads := map[string]bool{}
	for g, kg := range p.KeyGroups() {
		if !kg.Used {
			continue
		}
		groups = append(groups, g)
		for _, c := range kg.Reads {
			reads[c] = true
		}
	}
	if len(groups) < 2 || len(reads) == 0 {
		return ""
	}
	var cols []string
	for _, c := range p.Columns {
		if !reads[c.Name] {
			continue
		}
		col := d.Ident(c.Name)
		if cast, ok := rel.Casts[c.Name]; ok {
			col = cast + " AS " + col
		}
		cols = append(cols, col)
	}
	name := d.Ident(fmt.Sprintf("__tg_keycols_%d", id))
	b.add(Exec, 0, "copy the key columns", d.CacheTable(name, fmt.Sprintf("SELECT %s FROM %s", strings.Join(cols, ", "), rel.From)))
	sources := make(map[int]string, len(groups))
	for _, g := range groups {
		sources[g] = name
	}
	rel.KeySources = sources
	return name
}

// portableReport adds the steps that read the samples, the per-check counts, the invalid rows by
// rules and the row samples, as report does for DuckDB.
func (p *Plan) portableReport(b *builder, d ProgramDialect, flagged string, o ProgramOptions) {
	rid := d.Ident(RowIDColumn)
	valid, all := p.ValidExpr(true), p.ValidExpr(false)
	names := make([]string, len(p.Columns))
	values := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		names[i], values[i] = c.Name, d.Ident(c.Name)
	}
	row := d.RowJSON(names, values)
	if o.Samples > 0 {
		// Each failing row once per rule it fails (k, 1-based), numbered per rule in input order;
		// $1 is the rows each rule's checks show.
		fails := make([]string, len(p.Rules))
		for i, r := range p.Rules {
			fails[i] = fmt.Sprintf("CASE WHEN NOT %s THEN %d END", d.Ident(r.Name), i+1)
		}
		b.add(SamplePicks, Sampled, "sample failing rows", fmt.Sprintf(
			"SELECT k, CAST(%[1]s AS STRING) FROM (SELECT %[1]s, k, row_number() OVER (PARTITION BY k ORDER BY %[1]s) AS __tg_n FROM "+
				"(SELECT %[1]s, explode(filter(array(%[2]s), __tg_x -> __tg_x IS NOT NULL AND element_at(%[3]s, __tg_x) > 0)) AS k FROM %[4]s WHERE NOT %[5]s)) "+
				"WHERE __tg_n <= element_at(%[3]s, k) ORDER BY k, %[1]s",
			rid, strings.Join(fails, ", "), Param(1), flagged, all))
		b.add(SampleRows, Sampled, "sample failing rows", fmt.Sprintf("SELECT CAST(%[1]s AS STRING), %[2]s FROM %[3]s WHERE NOT %[4]s AND array_contains(%[5]s, CAST(%[1]s AS STRING))",
			rid, row, flagged, all, Param(1)))
	}
	var checks []string
	for _, members := range o.Checks {
		conds := make([]string, len(members))
		for i, m := range members {
			conds[i] = d.Ident(p.Rules[m].Name)
		}
		checks = append(checks, fmt.Sprintf("count_if(NOT (%s))", strings.Join(conds, " AND ")))
	}
	if len(checks) > 0 {
		b.add(CheckCounts, AnyFailure, "count failures per check", "SELECT "+strings.Join(checks, ", ")+" FROM "+flagged)
	}
	rules := slices.Clone(p.Rules)
	slices.SortStableFunc(rules, func(a, b Rule) int { return strings.Compare(a.Check, b.Check) })
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = fmt.Sprintf("CASE WHEN NOT %s THEN %s END", d.Ident(r.Name), d.String(r.Check))
	}
	b.add(InvalidByRules, AnyInvalid, "count invalid rows by rules", fmt.Sprintf(
		"SELECT rules, count(*) AS n FROM (SELECT concat_ws(', ', %s) AS rules FROM %s WHERE NOT %s) GROUP BY rules ORDER BY n DESC, rules",
		strings.Join(parts, ", "), flagged, valid))
	if o.RowSample > 0 {
		b.add(InvalidSample, AnyInvalid, "sample invalid rows", fmt.Sprintf("SELECT %s FROM %s WHERE NOT %s ORDER BY %s LIMIT %d", row, flagged, valid, rid, o.RowSample))
		b.add(ValidSample, AnyValid, "sample valid rows", fmt.Sprintf("SELECT %s FROM %s WHERE %s ORDER BY %s LIMIT %d", row, flagged, valid, rid, o.RowSample))
	}
}
