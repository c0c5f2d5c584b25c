package duckdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/duckdbtune"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// backend is a run's DuckDB session as the engine-neutral run sees it (runner.Backend): it
// opens the asset's input, runs statements on the run's connection, and writes the output.
type backend struct {
	r *run
	a Asset
	// written are the database files the output writes, which the input attaches for writing
	// too; quarantineName and keepPrevious are the output's (Output.writer).
	written        map[string]bool
	quarantineName string
	keepPrevious   bool
	// release gives back the threads raised for the key aggregates (nil: none raised).
	release func()
	// src and opening are the input as its opening read it (openInput).
	src     compile.Source
	opening *compile.Opening
	// out is the output's target, named once (target).
	out *compile.Output
}

func newBackend(r *run, a Asset, written map[string]bool) *backend {
	b := &backend{r: r, a: a, written: written}
	if a.Output != nil {
		b.quarantineName, b.keepPrevious = quarantineName(a, assetName(a)), readsOutput(a.Input, a.Output)
	}
	return b
}

// Open opens the input, CSV and NDJSON read as the schema declares their columns.
func (b *backend) Open(ctx context.Context) (compile.Relation, error) {
	o, err := b.openInput(ctx, readAs(b.a.Input, reading{declared: b.a.Plan.Schema().Columns}), false)
	return o.Rel, err
}

// openInput opens in with the run's one interpreter (runner.OpenSource): the input says what the
// engine knows of it without a statement (compile.Source), and check adds the reads the column
// check needs (the columns, each file's of several). The run drops the temp tables the opening
// made when it closes. A value of a text file that does not read as its dtype is an
// *UnreadableValueError.
func (b *backend) openInput(ctx context.Context, in Input, check bool) (*compile.Opening, error) {
	r := b.r
	src, err := in.source(ctx, r, b.written)
	if err != nil {
		return &compile.Opening{}, err
	}
	src.ID, src.Check = r.id, check
	if check {
		src.Declared = b.a.Plan.Schema().Columns
	}
	o, err := runner.OpenSource(ctx, b, src)
	r.temps = append(r.temps, o.Temps...)
	if r.afterOpen != nil {
		r.afterOpen()
		r.afterOpen = nil
	}
	b.src, b.opening = src, o
	var u *compile.UnreadableText
	if errors.As(err, &u) {
		err = unreadableValue(in, u)
	}
	return o, err
}

func (b *backend) Describe(ctx context.Context, rel compile.Relation) ([]casting.ColumnType, error) {
	return casting.Describe(ctx, b.r.conn, rel.From)
}

func (b *backend) Exec(ctx context.Context, stmt string, args ...any) error {
	_, err := b.r.conn.ExecContext(ctx, stmt, args...)
	return err
}

func (b *backend) Query(ctx context.Context, stmt string, args ...any) (runner.Rows, error) {
	rows, err := b.r.conn.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// Refuse refuses nothing: DuckDB runs every step.
func (b *backend) Refuse(compile.Op) error { return nil }

func (b *backend) Writer() runner.Writer {
	if b.a.Output == nil {
		return nil
	}
	return b.a.Output.writer(b.r, b.target(), b.quarantineName, b.keepPrevious)
}

func (b *backend) Close() error {
	b.r.close()
	return nil
}

// Fit fills the engine's facts: the run's perfect-hash threshold follows the rows
// (fitPerfectHash), and the threads the key aggregates get.
func (b *backend) Fit(f *compile.Facts) {
	r := b.r
	f.PerfectHashBits, f.SessionPerfectHash = r.fitPerfectHash(f.Rows)
	f.MemoryBudget = duckdbtune.MemoryBudget(r.memoryLimit)
	f.Threads, f.KeyThreads = r.threads, r.keyThreads
}

// Tune runs the threads' steps. ReadThreads runs with the step after it, under the engine's lock
// (threadBoost). On a database the engine opened with DuckDB's default threads, and at most
// duckdbtune.GrowThreads of them, the aggregates run with one thread more, so that DuckDB
// partitions its hash tables.
func (b *backend) Tune(ctx context.Context, s compile.Step) error {
	switch s.Op {
	case compile.ReadThreads:
	case compile.RaiseThreads:
		if b.release == nil {
			rel, err := b.r.boost.raise(ctx, b.r, b.r.keyThreads)
			if err != nil {
				return err
			}
			b.release = rel
		}
	case compile.RestoreThreads:
		if b.release != nil {
			b.release()
			b.release = nil
		}
	default:
		return fmt.Errorf("no tuning step %q", s.Op)
	}
	return nil
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

// runAsset is the engine-neutral run's asset for a run (named id) of a with the policy and
// checks' groups, writing to the output's target.
func runAsset(id int64, a Asset, opts Options, policy outcome.Policy, groups []checkGroup, target compile.Output) runner.Asset {
	var counted [][]int
	for _, g := range countedGroups(groups) {
		counted = append(counted, g.indexes())
	}
	all := make([][]int, len(groups))
	for i, g := range groups {
		all[i] = g.indexes()
	}
	o := compile.ProgramOptions{ID: id, Samples: opts.samples(), RowSample: opts.RowSample, Checks: counted, Sink: sinkOf(a, policy), Output: target}
	return runner.Asset{Plan: a.Plan, Program: o, Policy: policy, Output: a.Output != nil, Quarantine: a.Quarantine,
		Groups: all, Progress: opts.progress}
}

// session is a run's backend as the run drives it: DuckDB's (backend), or another engine's
// (Connector).
type session interface {
	runner.Backend
	// asset is what the run validates; id names the run's statements.
	asset() Asset
	id() int64
	// target is where the program writes the output (zero without one).
	target() compile.Output
	// blame finds the custom rule whose SQL raised err on the data, when one did.
	blame(ctx context.Context, rel compile.Relation, err error) error
	// blameTable names the table check whose SQL raised err on the data (res: the rule
	// counts it may read), as a *TableCheckRuntimeError.
	blameTable(ctx context.Context, rel compile.Relation, res *runner.Result, err error) error
	// prepared is told the program before it runs.
	prepared(p *runner.Prepared)
}

func (b *backend) asset() Asset { return b.a }
func (b *backend) id() int64    { return b.r.id }

// target is named once, when the program is compiled, and the writer writes to it: the aliases
// the run attaches files as are numbered in order, so naming it again later could name another.
func (b *backend) target() compile.Output {
	if b.a.Output == nil {
		return compile.Output{}
	}
	if b.out == nil {
		t := b.a.Output.target(b.r, b.quarantineName, b.keepPrevious)
		b.out = &t
	}
	return *b.out
}
func (b *backend) blame(ctx context.Context, rel compile.Relation, err error) error {
	return blameRule(ctx, b.r, b.a.Plan, rel, err)
}
func (b *backend) blameTable(ctx context.Context, rel compile.Relation, res *runner.Result, err error) error {
	return blameTableCheck(ctx, b.r, b.a.Plan, rel, res, err)
}

// prepared: the run cleans up after the program when it closes.
func (b *backend) prepared(p *runner.Prepared) { b.r.prog = p.Program }

// prepare runs the input's probes and builds the program.
func prepare(ctx context.Context, b session, ra runner.Asset, rel compile.Relation) (*runner.Prepared, error) {
	p, err := runner.Prepare(ctx, b, ra, rel)
	if err != nil {
		return nil, &outcome.InputError{Input: b.asset().Input.String(), Err: err}
	}
	b.prepared(p)
	return p, nil
}

// evaluation is what a run found, as the report and the sink read it.
type evaluation struct {
	res    *runner.Result
	total  int64
	stats  ruleStats
	out    outcome.Outcome
	groups []checkGroup
	// tables are the table checks judged (nil until their step ran).
	tables []tableResult
}

// evaluate runs the program (its writes included) and fills the report's checks; the returned
// evaluation is nil when the run did not get to its steps. A failed write is a
// *runner.WriteError.
func (e *Engine) evaluate(ctx context.Context, b session, rep *outcome.Report, rel compile.Relation, opts Options, policy outcome.Policy) (*evaluation, error) {
	ing, err := e.beginEvaluation(ctx, b, rep, rel, opts, policy)
	if err != nil {
		return nil, err
	}
	res, err := runner.Execute(ctx, b, ing.ra, ing.p)
	return ing.settle(ctx, res, err)
}

// evaluating is a run's program prepared and about to run: what settle needs to read its result.
type evaluating struct {
	b      session
	rep    *outcome.Report
	opts   Options
	ra     runner.Asset
	p      *runner.Prepared
	groups []checkGroup
	// tables are the table checks judged (nil until their step ran).
	tables []tableResult
}

// beginEvaluation runs the input's probes and builds the program; nothing of it runs yet.
func (e *Engine) beginEvaluation(ctx context.Context, b session, rep *outcome.Report, rel compile.Relation, opts Options, policy outcome.Policy) (*evaluating, error) {
	a := b.asset()
	groups := checkGroups(a.Plan, opts)
	ra := runAsset(b.id(), a, opts, policy, groups, b.target())
	p, err := prepare(ctx, b, ra, rel)
	if err != nil {
		return nil, err
	}
	opts.progress("evaluating rules", p.Facts.Rows)
	ing := &evaluating{b: b, rep: rep, opts: opts, ra: ra, p: p, groups: groups}
	baselines := readBaselines(ctx, rep, a.Plan, opts)
	ing.ra.JudgeTables = func(vals []any) bool {
		ing.tables = judgeTableChecks(a.Plan, vals, baselines)
		return tableFailed(ing.tables)
	}
	return ing, nil
}

// settle reads what the program found (res, err: what it returned) into the report's checks; the
// returned evaluation is nil when the run did not get to its steps.
func (ing *evaluating) settle(ctx context.Context, res *runner.Result, err error) (*evaluation, error) {
	a, rep, opts, groups := ing.b.asset(), ing.rep, ing.opts, ing.groups
	if res == nil {
		return nil, err
	}
	ev := &evaluation{res: res, total: res.Facts.Rows, stats: ruleStats{total: res.Facts.Rows, invalid: res.Invalid, failed: res.Failed}, out: res.Outcome, groups: groups, tables: ing.tables}
	var step *runner.StepError
	if err != nil && errors.As(err, &step) && !res.Counted {
		// Until the rules are counted, a failure is the input's (or the run's end), or a custom
		// rule's SQL failing on the data.
		return ev, inputOrRun(a.Input, fmt.Errorf("%s: %w", step.What, ing.b.blame(ctx, ing.p.Rel, step.Err)))
	}
	rep.InvalidByRules = cmpOr(res.InvalidByRules, rep.InvalidByRules)
	rep.InvalidSample, rep.ValidSample = res.InvalidSample, res.ValidSample
	if step != nil && step.Op == compile.TableChecks && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		// A table check failed on the data: the rules' checks report what they counted, and the
		// run has no outcome (conclude), as when a rule's SQL fails.
		rep.Checks = buildChecks(a.Plan, a, opts, ev.stats, ing.detail(res), groups)
		describeCasts(rep)
		return ev, fmt.Errorf("%s: %w", step.What, ing.b.blameTable(ctx, ing.p.Rel, res, step.Err))
	}
	if step != nil {
		return ev, err
	}
	rep.Checks = append(buildChecks(a.Plan, a, opts, ev.stats, ing.detail(res), groups), tableChecks(a.Plan, ing.tables)...)
	describeCasts(rep)
	rep.Health = outcome.HealthOf(rep.Checks)
	return ev, err
}

// detail is what the program read of the failures beyond the rule counts (nothing yet when it
// stopped before).
func (ing *evaluating) detail(res *runner.Result) *failureDetail {
	detail := failureDetail{samples: res.Samples, values: res.Values, groupFailed: map[string]int64{}}
	for i, g := range countedGroups(ing.groups) {
		if i < len(res.CheckFailed) {
			detail.groupFailed[g.name] = res.CheckFailed[i]
		}
	}
	return &detail
}

// describeCasts says on the column check (the first) which columns --cast converted.
func describeCasts(rep *outcome.Report) {
	if len(rep.CastColumns) > 0 && len(rep.Checks) > 0 {
		rep.Checks[0].ResultDescription = outcome.CastDescription(rep.CastColumns)
	}
}

// cmpOr is v, or def when v is nil.
func cmpOr[T any](v, def []T) []T {
	if v == nil {
		return def
	}
	return v
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

// indexes are the check's rules' indexes, in rule order.
func (g checkGroup) indexes() []int {
	idx := make([]int, len(g.members))
	for i, m := range g.members {
		idx[i] = m.index
	}
	return idx
}
