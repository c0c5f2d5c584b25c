package exec

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/duckdbtune"
	"github.com/tablegate/tablegate/outcome"
)

// pipeline is one run of a program over an opened input, shared by Run and Filter: it counts
// the input, builds the program from the input's facts, runs its steps, decides the outcome and
// fills the report; the valid and invalid rows' queries are left for the caller's sink.
type pipeline struct {
	r      *run
	a      Asset
	opts   Options
	policy outcome.Policy
	prog   *compile.Program
	rel    compile.Relation

	total int64
	// counted tells that the rules' failures are counted (the outcome is known).
	counted bool
	stats   ruleStats
	out     outcome.Outcome
	flags   compile.Cond
	groups  []checkGroup
	detail  failureDetail
	take    map[int]int      // per rule, the failing rows its checks show
	picks   map[int][]string // per rule, the ordinals of those rows
	order   []string         // every picked ordinal, once, in the order first picked
	// valid and invalid are the queries of the rows for the caller (Filter; "" for none);
	// writes the steps that write the output, which the output runs (Output.write); rowGroup
	// the valid rows' row group size for a Parquet table (0: DuckDB's default).
	valid, invalid string
	writes         []compile.Step
	rowGroup       int64
	// tables are the table checks judged (nil until their step ran); baselines the earlier values
	// their anomaly bands are drawn from (nil: no history).
	tables    []tableResult
	baselines map[string][]float64
}

// sinkOf is the program's sink for an asset.
func sinkOf(a Asset, policy outcome.Policy) compile.Sink {
	switch {
	case policy == outcome.PolicyFilter:
		return compile.ToCaller
	case a.Output == nil:
		return compile.Nowhere
	}
	return a.Output.sink()
}

// program counts the input and builds the run's program from its facts.
func (e *Engine) program(ctx context.Context, r *run, a Asset, rel compile.Relation, opts Options, policy outcome.Policy, groups []checkGroup) (*compile.Program, int64, error) {
	f, err := r.facts(ctx, rel, a.Input)
	if err != nil {
		return nil, 0, err
	}
	var checks [][]int
	for _, g := range countedGroups(groups) {
		idx := make([]int, len(g.members))
		for i, m := range g.members {
			idx[i] = m.index
		}
		checks = append(checks, idx)
	}
	o := compile.ProgramOptions{ID: r.id, Samples: opts.samples(), RowSample: opts.RowSample, Checks: checks, Sink: sinkOf(a, policy)}
	if a.Output != nil {
		o.Output = a.Output.target(r, quarantineName(a, assetName(a)), readsOutput(a.Input, a.Output))
	}
	prog := a.Plan.Program(rel, f, o)
	r.temps = append(r.temps, prog.Temps()...)
	r.variables = append(r.variables, prog.Variables()...)
	return prog, f.Rows, nil
}

// facts runs the count probe: the input's rows (which the run's perfect-hash threshold follows,
// fitPerfectHash) and its ordinal range.
func (r *run) facts(ctx context.Context, rel compile.Relation, in Input) (compile.Facts, error) {
	var f compile.Facts
	dest := []any{&f.Rows}
	if !rel.DenseRowIDs {
		dest = append(dest, &f.FirstRowID, &f.LastRowID)
	}
	if err := r.conn.QueryRowContext(ctx, compile.CountProbe(rel)).Scan(dest...); err != nil {
		return f, &outcome.InputError{Input: in.String(), Err: err}
	}
	if rel.DenseRowIDs {
		f.FirstRowID, f.LastRowID = 0, f.Rows-1
	}
	f.SessionPerfectHash = r.perfectHashBits
	f.PerfectHashBits, f.MemoryBudget = r.fitPerfectHash(f.Rows), duckdbtune.MemoryBudget(r.memoryLimit)
	f.Threads, f.KeyThreads = r.threads, r.keyThreads
	return f, nil
}

// evaluate builds the program, runs it and fills the report's rows, outcome and checks.
func (e *Engine) evaluate(ctx context.Context, r *run, rep *outcome.Report, a Asset, rel compile.Relation, opts Options, policy outcome.Policy) (*pipeline, error) {
	groups := checkGroups(a.Plan, opts)
	prog, total, err := e.program(ctx, r, a, rel, opts, policy, groups)
	if err != nil {
		return nil, err
	}
	opts.progress("evaluating rules", total)
	pl := &pipeline{r: r, a: a, opts: opts, policy: policy, prog: prog, rel: rel, total: total,
		stats: ruleStats{failed: make([]int64, len(a.Plan.Rules))}, groups: groups,
		detail: failureDetail{samples: map[int][]json.RawMessage{}, groupFailed: map[string]int64{}}}
	pl.baselines = readBaselines(ctx, rep, a.Plan, opts)
	pl.decide()
	if err := pl.execute(ctx, rep); err != nil {
		return pl, err
	}
	rep.Checks = append(buildChecks(a.Plan, a, opts, pl.stats, &pl.detail, pl.groups), tableChecks(a.Plan, pl.tables)...)
	rep.Health = outcome.HealthOf(rep.Checks)
	return pl, nil
}

// decide takes the outcome and the steps' conditions from the counts read so far.
func (pl *pipeline) decide() {
	pl.out = outcome.Decide(pl.total, pl.stats.invalid, pl.policy)
	if tableFailed(pl.tables) {
		// Before aborted and no_valid_rows: the batch as a whole is wrong.
		pl.out = outcome.TableCheckFailed
	}
	pl.take = sampleTakes(pl.groups, pl.stats, pl.opts.samples())
	pl.flags = conditions(pl.total, pl.stats, pl.out, pl.a.Output != nil, pl.a.Quarantine, pl.opts.RowSample, len(pl.take) > 0)
}

// conditions are the program's conditions that hold for a run with these counts and outcome.
func conditions(total int64, stats ruleStats, out outcome.Outcome, output, quarantine bool, rowSample int, sampled bool) compile.Cond {
	var c compile.Cond
	set := func(flag compile.Cond, holds bool) {
		if holds {
			c |= flag
		}
	}
	anyFailure := false
	for _, n := range stats.failed {
		anyFailure = anyFailure || n > 0
	}
	writing := output && out != outcome.Aborted && out != outcome.TableCheckFailed
	set(compile.AnyInvalid, stats.invalid > 0)
	set(compile.NoInvalid, stats.invalid == 0)
	set(compile.AnyValid, stats.invalid < total)
	set(compile.Sampled, sampled)
	set(compile.AnyFailure, anyFailure)
	set(compile.WriteTable, writing && out != outcome.NoValidRows)
	set(compile.WriteQuarant, writing && stats.invalid > 0 && quarantine)
	set(compile.NeedValid, c&compile.WriteTable != 0 || (rowSample > 0 && stats.invalid < total))
	set(compile.Writing, writing)
	set(compile.DropQuarant, writing && c&compile.WriteQuarant == 0)
	set(compile.PlainGroups, true) // until a RowGroupSize step sets a size
	return c
}

// sampleTakes is, per rule, how many of its first failing rows the checks show: each check
// shows at most n rows, and a collapsed check takes them from its members in rule order and
// takes no more once it has n. A rule's first k failing rows are min(k, its failures), so the
// rows each member gives are known before any is read.
func sampleTakes(groups []checkGroup, stats ruleStats, n int) map[int]int {
	take := map[int]int{}
	for _, g := range groups {
		budget := n
		for _, m := range g.members {
			if k := int(min(int64(budget), stats.failed[m.index])); k > 0 {
				take[m.index] = max(take[m.index], k)
				budget -= k
			}
		}
	}
	return take
}

// execute runs the program's steps whose conditions hold, in order.
func (pl *pipeline) execute(ctx context.Context, rep *outcome.Report) error {
	var release func() // gives back the threads raised for the key aggregates
	defer func() {
		if release != nil {
			release()
		}
	}()
	pl.counted = len(pl.a.Plan.Rules) == 0
	for _, s := range pl.prog.Steps() {
		if s.Op.Writes() {
			pl.writes = append(pl.writes, s) // the output runs them, and tests their conditions
			continue
		}
		if s.When&pl.flags != s.When {
			continue
		}
		if err := pl.step(ctx, rep, s, &release); err != nil {
			if !pl.counted {
				// Until the rules are counted, a failure is the input's (or the run's end), or a
				// custom rule's SQL failing on the data.
				return inputOrRun(pl.a.Input, fmt.Errorf("%s: %w", s.What, blameRule(ctx, pl.r, pl.a.Plan, pl.rel, err)))
			}
			return fmt.Errorf("%s: %w", s.What, err)
		}
		if s.Op == compile.Counts || s.Op == compile.TableChecks {
			pl.counted = true
			pl.decide()
		}
	}
	return nil
}

// step runs one step and keeps what it reads.
func (pl *pipeline) step(ctx context.Context, rep *outcome.Report, s compile.Step, release *func()) error {
	r := pl.r
	switch s.Op {
	case compile.Exec, compile.KeyAggregate:
		return r.exec(ctx, s.SQL)
	case compile.ReadThreads:
		// Run with the step after it, under the engine's lock (threadBoost).
	case compile.RaiseThreads:
		// On a database the engine opened with DuckDB's default threads, and at most
		// duckdbtune.GrowThreads of them, the aggregates run with one thread more, so that DuckDB
		// partitions its hash tables. A speed setting: if DuckDB refuses it, the aggregates run
		// with the threads there are.
		if *release == nil {
			if rel, err := r.boost.raise(ctx, r, r.keyThreads); err == nil {
				*release = rel
			}
		}
	case compile.RestoreThreads:
		if *release != nil {
			(*release)()
			*release = nil
		}
	case compile.Counts:
		dest := make([]any, 0, len(pl.stats.failed)+1)
		dest = append(dest, &pl.stats.invalid)
		for i := range pl.stats.failed {
			dest = append(dest, &pl.stats.failed[i])
		}
		return r.conn.QueryRowContext(ctx, s.SQL).Scan(dest...)
	case compile.SamplePicks:
		return pl.readPicks(ctx, s.SQL)
	case compile.SampleRows:
		return pl.readSampleRows(ctx, s.SQL)
	case compile.CheckCounts:
		return pl.readCheckCounts(ctx, s.SQL)
	case compile.TableChecks:
		return pl.readTableChecks(ctx, s.SQL)
	case compile.InvalidByRules:
		sets, err := readRuleSets(ctx, r, s.SQL)
		if err != nil {
			return err
		}
		rep.InvalidByRules = sets
	case compile.InvalidSample, compile.ValidSample:
		rows, err := rowsJSON(ctx, r, s.SQL)
		if err != nil {
			return err
		}
		if s.Op == compile.InvalidSample {
			rep.InvalidSample = rows
		} else {
			rep.ValidSample = rows
		}
	case compile.RowGroupSize:
		if pl.rowGroup = r.validRowGroupSize(ctx, s.SQL); pl.rowGroup > 0 {
			pl.flags = pl.flags&^compile.PlainGroups | compile.SizedGroups
		}
	case compile.ValidRows:
		pl.valid = s.SQL
	case compile.InvalidRows:
		pl.invalid = s.SQL
	default:
		return fmt.Errorf("unknown step %d", s.Op)
	}
	return nil
}

// readPicks reads the ordinals of the failing rows each rule's checks show.
func (pl *pipeline) readPicks(ctx context.Context, query string) error {
	rules := len(pl.a.Plan.Rules)
	takes := make([]int64, rules)
	for i, k := range pl.take {
		takes[i] = int64(k)
	}
	picks, err := pl.r.conn.QueryContext(ctx, query, takes)
	if err != nil {
		return err
	}
	defer picks.Close()
	pl.picks = map[int][]string{}
	seen := map[string]bool{}
	for picks.Next() {
		var k int
		var rid string
		if err := picks.Scan(&k, &rid); err != nil {
			return err
		}
		if k < 1 || k > rules || !wholeNumber(rid) {
			return fmt.Errorf("sampled row %q of rule %d is out of range", rid, k)
		}
		pl.picks[k-1] = append(pl.picks[k-1], rid)
		if !seen[rid] {
			seen[rid] = true
			pl.order = append(pl.order, rid)
		}
	}
	return picks.Err()
}

// readSampleRows reads the picked rows as JSON, in batches of about sampleCells values: a
// result is built whole before it is read, and 2,000 rows of 5,000 columns as JSON needed more
// than a 1 GB limit.
func (pl *pipeline) readSampleRows(ctx context.Context, query string) error {
	rows := map[string]json.RawMessage{}
	all := pl.order
	batch := max(1, sampleCells/max(1, len(pl.a.Plan.Columns)))
	for len(all) > 0 {
		n := min(batch, len(all))
		if err := sampleRows(ctx, pl.r, query, all[:n], rows); err != nil {
			return err
		}
		all = all[n:]
	}
	for i, rids := range pl.picks {
		sample := make([]json.RawMessage, len(rids))
		for j, rid := range rids {
			sample[j] = rows[rid]
		}
		pl.detail.samples[i] = sample
	}
	return nil
}

// countedGroups are the checks whose failed rows the program counts itself: the collapsed ones
// (a rule's own check takes the rule's count).
func countedGroups(groups []checkGroup) []checkGroup {
	var out []checkGroup
	for _, g := range groups {
		if len(g.members) > 1 || g.collapsed {
			out = append(out, g)
		}
	}
	return out
}

// readCheckCounts reads the rows failing some member of each collapsed check.
func (pl *pipeline) readCheckCounts(ctx context.Context, query string) error {
	var names []string
	for _, g := range countedGroups(pl.groups) {
		names = append(names, g.name)
	}
	vals := make([]int64, len(names))
	dest := make([]any, len(names))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := pl.r.conn.QueryRowContext(ctx, query).Scan(dest...); err != nil {
		return err
	}
	for i, n := range names {
		pl.detail.groupFailed[n] = vals[i]
	}
	return nil
}
