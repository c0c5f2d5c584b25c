package compile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tablegate/tablegate/collection"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// Collection rule kinds (Rule.Kind) in a member's plan.
const (
	KindFilter      = "collection_filter"
	KindPropagation = "failure_propagation"
	KindReference   = "collection_reference"
)

// CollectionPlan is a compiled collection: each member's plan with the collection's rules added
// (one per filter and per propagating member for the members in filters, one per reference from
// the member), and what the collection's steps need to set them.
type CollectionPlan struct {
	Collection *collection.Collection
	// Members are the members' plans, in declaration order.
	Members []MemberPlan
	// Key is the common primary key (sorted).
	Key []string
	// filterSQL is each SQL filter's checked condition, by filter name.
	filterSQL map[string]string
}

// MemberPlan is a member's plan within a collection.
type MemberPlan struct {
	*collection.Member
	Plan *Plan
}

// Member is the plan of the member named name, or nil.
func (cp *CollectionPlan) Member(name string) *MemberPlan {
	for i := range cp.Members {
		if cp.Members[i].Name == name {
			return &cp.Members[i]
		}
	}
	return nil
}

// CompileCollection validates the collection and compiles its members' schemas and its SQL
// filters (checked as custom rules are: one boolean expression over the member's columns,
// aggregates allowed, grouped by the common key). Every problem is returned at once
// (*schema.Errors).
func CompileCollection(ctx context.Context, c *collection.Collection) (*CollectionPlan, error) {
	var problems []error
	add := func(err error) {
		var errs *schema.Errors
		if errors.As(err, &errs) {
			problems = append(problems, errs.Problems...)
		} else if err != nil {
			problems = append(problems, err)
		}
	}
	add(c.Validate())
	cp := &CollectionPlan{Collection: c, Key: c.CommonKey(), filterSQL: map[string]string{}}
	for _, m := range c.Members {
		if m.Schema == nil {
			continue
		}
		p, err := CompileContext(ctx, m.Schema)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, ErrNoParser) {
				return nil, err
			}
			add(err)
			continue
		}
		cp.Members = append(cp.Members, MemberPlan{Member: m, Plan: p})
	}
	for _, f := range c.Filters {
		if f.Kind != collection.SQL || len(f.Members) != 1 {
			continue
		}
		mp := cp.Member(f.Members[0])
		if mp == nil {
			continue // reported by Validate, or the member's schema failed
		}
		comp := &compiler{ctx: ctx, s: mp.Plan.schema, plan: &Plan{}, pendingGroup: -1, d: DuckDB}
		// Without a common key (reported by Validate) it is checked over the whole member.
		info, err := comp.checkSQL(f.SQL, nil, "", cp.Key)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			pos := f.Pos()
			if pos.File == "" {
				pos.File = c.File
			}
			problems = append(problems, &schema.DeclarationError{Schema: "collection " + c.Name, Pos: pos, Key: "sql",
				Msg: fmt.Sprintf("filter %s: %v", f.Name, err)})
			continue
		}
		cp.filterSQL[f.Name] = info.sql
	}
	if len(problems) > 0 {
		return nil, &schema.Errors{Schema: "collection " + c.Name, Problems: problems}
	}
	for i := range cp.Members {
		cp.Members[i].Plan = cp.withRules(cp.Members[i])
	}
	return cp, nil
}

// withRules is the member's plan with the collection's rules added after its own.
func (cp *CollectionPlan) withRules(m MemberPlan) *Plan {
	p := *m.Plan
	p.Rules = slices.Clone(p.Rules)
	add := func(name, kind, desc string, sev schema.Severity) {
		if sev == "" {
			sev = schema.Error
		}
		p.Rules = append(p.Rules, Rule{Name: name, Check: schema.CheckName(name), Kind: kind, Severity: sev,
			Expr: desc, Description: desc, value: "TRUE", group: -1, collection: true})
	}
	c := cp.Collection
	if !m.IgnoredInFilters {
		for _, f := range c.Filters {
			add(f.Name, KindFilter, cp.describe(f), f.Severity)
		}
		for _, pm := range c.Propagating() {
			add(collection.PropagationRule(pm.Name), KindPropagation,
				fmt.Sprintf("%s is not the key of an invalid row of %s", cp.keyList(), pm.Name), schema.Error)
		}
	}
	for _, r := range c.References {
		if r.From == m.Name {
			add(r.Name, KindReference, fmt.Sprintf("%s is NULL or among the valid values of %s.%s", r.FromColumn, r.To, r.ToColumn), r.Severity)
		}
	}
	return &p
}

func (cp *CollectionPlan) keyList() string {
	if len(cp.Key) == 1 {
		return cp.Key[0]
	}
	return "(" + strings.Join(cp.Key, ", ") + ")"
}

// describe says what a filter requires, for people.
func (cp *CollectionPlan) describe(f collection.Filter) string {
	switch f.Kind {
	case collection.OneToOne:
		return fmt.Sprintf("%s occurs exactly once in %s and exactly once in %s", cp.keyList(), f.Members[0], f.Members[1])
	case collection.OneToAtLeastOne:
		return fmt.Sprintf("%s occurs exactly once in %s and at least once in %s", cp.keyList(), f.Members[0], f.Members[1])
	}
	return fmt.Sprintf("the rows of %s with the same %s satisfy %s", f.Members[0], cp.keyList(), strings.TrimSpace(f.SQL))
}

// MemberRun is what the collection's steps read of a member's run: its plan, its relation and
// the temp table of its failing rows (Program.Failed; "" when the plan has no rules).
type MemberRun struct {
	Plan   *Plan
	Rel    Relation
	Failed string
	// PerfectHashBits is the perfect-hash threshold the member's run fitted to its rows
	// (Facts.PerfectHashBits; 0: left alone).
	PerfectHashBits int
}

// FilterSkipped tells, per filter, why the steps skip it ("" applied): a member it reads is
// absent from the run.
func (cp *CollectionPlan) FilterSkipped(runs map[string]MemberRun) map[string]string {
	out := map[string]string{}
	for _, f := range cp.Collection.Filters {
		for _, m := range f.Members {
			if _, ok := runs[m]; !ok {
				out[f.Name] = fmt.Sprintf("member %s is absent", m)
				break
			}
		}
	}
	return out
}

// Steps are the collection's statements, run after every present member's failing rows are
// stored and before their counts (runs: the present members' runs, by name; id numbers the
// temp tables): the valid rows' common keys of every member in filters, each filter's kept
// keys, each propagating member's invalid keys and each reference's valid values; then, for
// every member, its collection rule columns set for its failing rows that pass its own rules,
// and the rows that fail only collection rules added to its failing rows. The cleanup drops
// the temp tables.
func (cp *CollectionPlan) Steps(id int64, runs map[string]MemberRun) (steps, cleanup []Step) {
	c := cp.Collection
	b := &builder{id: id}
	n := 0
	temp := func(base string) string {
		n++
		return "temp.main." + sql.Ident(b.temp(fmt.Sprintf("%s%d", base, n)))
	}
	skipped := cp.FilterSkipped(runs)
	keyCols := make([]string, len(cp.Key))
	for i, k := range cp.Key {
		keyCols[i] = sql.Ident(k)
	}
	keys := strings.Join(keyCols, ", ")
	match := func(a, z string) string {
		parts := make([]string, len(keyCols))
		for i, k := range keyCols {
			parts[i] = fmt.Sprintf("%s.%s = %s.%s", a, k, z, k)
		}
		return strings.Join(parts, " AND ")
	}
	// sameKey matches NULL to NULL: a lost key may be NULL.
	sameKey := func(a, z string) string {
		parts := make([]string, len(keyCols))
		for i, k := range keyCols {
			parts[i] = fmt.Sprintf("%s.%s IS NOT DISTINCT FROM %s.%s", a, k, z, k)
		}
		return strings.Join(parts, " AND ")
	}

	// The steps' aggregates group a member's rows by the common key (or a reference's column):
	// in a perfect hash when it is an integer whose range fits the threshold of the largest
	// member, not the one the last member's run left set, fitted to its own rows (measured,
	// 5.8M rows by 2M keys: 0.59 CPU s at the 18 bits of a 200k-row member, 0.31 s at 22).
	bits := 0
	for _, r := range runs {
		bits = max(bits, r.PerfectHashBits)
	}
	if bits > 0 && (len(c.Filters) > 0 || len(c.References) > 0) {
		b.add(Exec, 0, "fit the perfect hash to the members' rows", DuckDBTuning.SetPerfectHash(bits))
	}
	// The common keys of each member's valid rows, with how many rows have each.
	keyTables := map[string]string{}
	needKeys := func(m string) string {
		if t, ok := keyTables[m]; ok {
			return t
		}
		t := temp("ckeys")
		r := runs[m]
		q := fmt.Sprintf("SELECT %s, count(*) AS __tg_n FROM (%s) AS v GROUP BY ALL", keys, r.Plan.SourceSQL(r.Rel))
		if r.Failed != "" && cp.keyIsPrimaryKey(r.Plan) {
			// The common key is the member's primary key, whose uniqueness is an error rule: a
			// valid row's key occurs once in the input, so the valid keys are every row's key
			// but the invalid rows' (few, in the failing rows), and need no grouping. A NULL key
			// is kept either way: it never matches another member's key.
			q = fmt.Sprintf("SELECT %s, 1 AS __tg_n FROM (%s) AS a ANTI JOIN (SELECT %s FROM %s WHERE NOT %s) AS f ON %s",
				qualified(keyCols, "a"), r.Plan.SourceSQL(r.Rel), keys, sql.Ident(r.Failed), r.Plan.ValidExpr(true), match("a", "f"))
		} else if r.Failed != "" {
			// Every row's keys counted, less the invalid rows' (few, in the failing rows): no
			// join of every row with the invalid ones.
			q = fmt.Sprintf("SELECT %s, a.__tg_n - coalesce(f.__tg_n, 0) AS __tg_n FROM (%s) AS a LEFT JOIN "+
				"(SELECT %s, count(*) AS __tg_n FROM %s WHERE NOT %s GROUP BY ALL) AS f ON %s WHERE a.__tg_n > coalesce(f.__tg_n, 0)",
				qualified(keyCols, "a"), q, keys, sql.Ident(r.Failed), r.Plan.ValidExpr(true), sameKey("a", "f"))
		}
		b.add(Exec, 0, "count the valid rows' common keys of "+m, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS %s", t, q))
		keyTables[m] = t
		return t
	}
	// A relationship's members' valid keys it does not keep, from one full join of their key
	// counts: a valid row of either member fails the filter exactly when its key is among them
	// (a NULL key is never kept). The kept keys themselves are found only for the members in
	// filters beyond the relationship's two, and for SQL filters.
	lost := map[string]string{}
	for _, f := range c.Filters {
		if skipped[f.Name] == "" && f.Kind != collection.SQL {
			a, z := needKeys(f.Members[0]), needKeys(f.Members[1])
			zFails := "z.__tg_n IS NULL"
			if f.Kind == collection.OneToOne {
				zFails = "z.__tg_n IS DISTINCT FROM 1"
			}
			coalesced := make([]string, len(keyCols))
			for i, k := range keyCols {
				coalesced[i] = fmt.Sprintf("coalesce(a.%s, z.%s) AS %s", k, k, k)
			}
			t := temp("clost")
			b.add(Exec, 0, "find the valid keys of "+f.Members[0]+" and "+f.Members[1]+" filter "+f.Name+" does not keep", fmt.Sprintf(
				"CREATE OR REPLACE TEMP TABLE %s AS SELECT %s FROM %s AS a FULL JOIN %s AS z ON %s WHERE a.__tg_n IS DISTINCT FROM 1 OR %s",
				t, strings.Join(coalesced, ", "), a, z, match("a", "z"), zFails))
			lost[f.Name] = t
		}
	}
	keep := map[string]string{}
	keeps := func(f collection.Filter) string {
		if t, ok := keep[f.Name]; ok {
			return t
		}
		t := temp("ckeep")
		var q string
		switch f.Kind {
		case collection.OneToOne:
			a, z := needKeys(f.Members[0]), needKeys(f.Members[1])
			q = fmt.Sprintf("SELECT %s FROM %s AS a JOIN %s AS z ON %s WHERE a.__tg_n = 1 AND z.__tg_n = 1", qualified(keyCols, "a"), a, z, match("a", "z"))
		case collection.OneToAtLeastOne:
			a, z := needKeys(f.Members[0]), needKeys(f.Members[1])
			q = fmt.Sprintf("SELECT %s FROM %s AS a SEMI JOIN %s AS z ON %s WHERE a.__tg_n = 1", qualified(keyCols, "a"), a, z, match("a", "z"))
		case collection.SQL:
			q = fmt.Sprintf("SELECT %s FROM (%s) AS %s GROUP BY ALL HAVING coalesce((%s), TRUE)", keys, memberValidRows(runs[f.Members[0]]), srcName, cp.filterSQL[f.Name])
		}
		b.add(Exec, 0, "find the keys filter "+f.Name+" keeps", fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS %s", t, q))
		keep[f.Name] = t
		return t
	}
	for _, f := range c.Filters {
		if skipped[f.Name] == "" && f.Kind == collection.SQL {
			keeps(f)
		}
	}
	drop := map[string]string{}
	for _, pm := range c.Propagating() {
		r, ok := runs[pm.Name]
		if !ok || r.Failed == "" {
			continue // absent, or no rule: no invalid row
		}
		t := temp("cdrop")
		b.add(Exec, 0, "find the keys of the invalid rows of "+pm.Name, fmt.Sprintf(
			"CREATE OR REPLACE TEMP TABLE %s AS SELECT DISTINCT %s FROM %s WHERE NOT %s", t, keys, sql.Ident(r.Failed), r.Plan.ValidExpr(true)))
		drop[pm.Name] = t
	}
	targets := map[string]string{}
	for _, ref := range c.References {
		if _, ok := runs[ref.To]; !ok {
			continue
		}
		t := temp("cref")
		b.add(Exec, 0, "find the values reference "+ref.Name+" accepts", fmt.Sprintf(
			"CREATE OR REPLACE TEMP TABLE %s AS SELECT DISTINCT %s AS v FROM (%s) AS s", t, sql.Ident(ref.ToColumn), memberValidRows(runs[ref.To])))
		targets[ref.Name] = t
	}

	for _, mp := range cp.Members {
		r, ok := runs[mp.Name]
		if !ok || r.Failed == "" {
			continue
		}
		conds := map[string]string{} // rule name -> condition over the row x
		// bad are the few keys a row may fail by (the member's valid keys a filter does not
		// keep, the keys dropped): when every condition is over them, only the rows with such a
		// key are probed, not every row against every kept key. Nil: a condition is not.
		bad := []string{}
		for _, f := range c.Filters {
			if skipped[f.Name] != "" || mp.IgnoredInFilters {
				continue
			}
			if t := lost[f.Name]; t != "" && slices.Contains(f.Members, mp.Name) {
				conds[f.Name] = fmt.Sprintf("NOT EXISTS (SELECT 1 FROM %s AS k WHERE %s)", t, sameKey("k", "x"))
				if bad != nil {
					bad = append(bad, fmt.Sprintf("SELECT %s FROM %s", keys, t))
				}
				continue
			}
			t := keeps(f)
			kt, ok := keyTables[mp.Name]
			if !ok {
				conds[f.Name] = fmt.Sprintf("EXISTS (SELECT 1 FROM %s AS k WHERE %s)", t, match("k", "x"))
				bad = nil
				continue
			}
			// A NULL key is never kept: it is lost, and matched as such.
			gone := temp("clost")
			b.add(Exec, 0, "find the valid keys of "+mp.Name+" filter "+f.Name+" does not keep", fmt.Sprintf(
				"CREATE OR REPLACE TEMP TABLE %s AS SELECT %s FROM %s AS a ANTI JOIN %s AS k ON %s", gone, qualified(keyCols, "a"), kt, t, match("a", "k")))
			conds[f.Name] = fmt.Sprintf("NOT EXISTS (SELECT 1 FROM %s AS k WHERE %s)", gone, sameKey("k", "x"))
			if bad != nil {
				bad = append(bad, fmt.Sprintf("SELECT %s FROM %s", keys, gone))
			}
		}
		for _, pm := range c.Propagating() {
			if t := drop[pm.Name]; t != "" && !mp.IgnoredInFilters {
				conds[collection.PropagationRule(pm.Name)] = fmt.Sprintf("NOT EXISTS (SELECT 1 FROM %s AS k WHERE %s)", t, match("k", "x"))
				if bad != nil {
					bad = append(bad, fmt.Sprintf("SELECT %s FROM %s WHERE %s", keys, t, notNull(keyCols)))
				}
			}
		}
		for _, ref := range c.References {
			if t := targets[ref.Name]; t != "" && ref.From == mp.Name {
				col := "x." + sql.Ident(ref.FromColumn)
				conds[ref.Name] = fmt.Sprintf("(%s IS NULL OR EXISTS (SELECT 1 FROM %s AS k WHERE k.v = %s))", col, t, col)
				bad = nil
			}
		}
		if len(conds) == 0 {
			continue
		}
		var sets, values, names []string
		var own []string
		for _, rule := range r.Plan.Rules {
			name := sql.Ident(rule.Name)
			if cond, ok := conds[rule.Name]; ok {
				sets = append(sets, fmt.Sprintf("%s = %s", name, cond))
				values = append(values, cond+" AS "+name)
				names = append(names, name)
			} else {
				values = append(values, "TRUE AS "+name)
			}
			if rule.IsError() && !rule.collection {
				own = append(own, name)
			}
		}
		ownValid := "TRUE"
		if len(own) > 0 {
			ownValid = strings.Join(own, " AND ")
		}
		failed := sql.Ident(r.Failed)
		b.add(Exec, 0, "evaluate the collection's rules on the failing rows of "+mp.Name, fmt.Sprintf(
			"UPDATE %s AS x SET %s WHERE %s", failed, strings.Join(sets, ", "), ownValid))
		probe := ""
		if len(bad) > 0 {
			probe = fmt.Sprintf(" SEMI JOIN (%s) AS bad ON %s", strings.Join(bad, " UNION "), sameKey("bad", "x"))
		}
		b.add(Exec, 0, "add the rows of "+mp.Name+" failing only the collection's rules", fmt.Sprintf(
			"INSERT INTO %s BY NAME SELECT * FROM (SELECT %s, x.%s, %s FROM (%s) AS x%s ANTI JOIN %s AS f ON x.%s = f.%s) WHERE NOT (%s)",
			failed, columnList(r.Plan, "x."), RowIDColumn, strings.Join(values, ", "), r.Plan.SourceSQL(r.Rel), probe, failed, RowIDColumn, RowIDColumn,
			strings.Join(names, " AND ")))
	}
	b.cleanup()
	for _, s := range b.prog.steps {
		if s.Op == Cleanup {
			cleanup = append(cleanup, s)
		} else {
			steps = append(steps, s)
		}
	}
	return steps, cleanup
}

// keyIsPrimaryKey reports whether the common key is the plan's primary key and a duplicate of it
// makes a row invalid.
func (cp *CollectionPlan) keyIsPrimaryKey(p *Plan) bool {
	pk := slices.Sorted(slices.Values(p.schema.PrimaryKey()))
	if !slices.Equal(pk, cp.Key) {
		return false
	}
	for _, rule := range p.Rules {
		if rule.Name == schema.RulePrimaryKey && rule.IsError() {
			return true
		}
	}
	return false
}

// memberValidRows selects a member's rows that pass its own error rules (its collection rules are
// still TRUE when the collection's steps read them).
func memberValidRows(r MemberRun) string {
	src := r.Plan.SourceSQL(r.Rel)
	if r.Failed == "" {
		return src
	}
	return fmt.Sprintf("SELECT s.* FROM (%s) AS s ANTI JOIN (SELECT %s FROM %s WHERE NOT %s) AS f ON s.%s = f.%s",
		src, RowIDColumn, sql.Ident(r.Failed), r.Plan.ValidExpr(true), RowIDColumn, RowIDColumn)
}

// notNull is TRUE when none of the columns is NULL.
func notNull(cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c + " IS NOT NULL"
	}
	return strings.Join(parts, " AND ")
}

func qualified(cols []string, alias string) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = alias + "." + c
	}
	return strings.Join(out, ", ")
}
