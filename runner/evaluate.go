package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
)

// sinkOf is the program's sink for an asset.
func sinkOf(a Asset, policy outcome.Policy) compile.Sink {
	switch {
	case policy == outcome.PolicyFilter:
		return compile.ToCaller
	case a.Output == nil:
		return compile.Nowhere
	}
	if _, ok := a.Output.(ParquetOutput); ok {
		return compile.ToParquet
	}
	return compile.ToOutput
}

// JobOf is the job a run of b executes for a with the policy: the program's options (b's
// number, the checks at the granularity, b's write target) and how it is judged.
func JobOf(b Backend, a Asset, opts Options, policy outcome.Policy) Job {
	return job(b, a, opts, policy, checkGroups(a.Plan, opts))
}

func job(b Backend, a Asset, opts Options, policy outcome.Policy, groups []checkGroup) Job {
	var counted [][]int
	for _, g := range countedGroups(groups) {
		counted = append(counted, g.indexes())
	}
	all := make([][]int, len(groups))
	for i, g := range groups {
		all[i] = g.indexes()
	}
	o := compile.ProgramOptions{ID: b.ID(), Samples: opts.samples(), RowSample: opts.RowSample, Checks: counted, Sink: sinkOf(a, policy), Output: targetOf(b, a)}
	return Job{Plan: a.Plan, Program: o, Policy: policy, Output: a.Output != nil, Quarantine: a.Quarantine,
		Groups: all, Progress: opts.Phase}
}

// targetOf is where b writes a's output (zero without one).
func targetOf(b Backend, a Asset) compile.Output {
	if w, ok := b.(Writing); ok && a.Output != nil {
		return w.Target()
	}
	return compile.Output{}
}

// PrepareJob runs the input's probes and builds the program of the job; a failed probe is an
// input error.
func PrepareJob(ctx context.Context, b Backend, a Asset, j Job, rel compile.Relation) (*Prepared, error) {
	p, err := Prepare(ctx, b, j, rel)
	if err != nil {
		return nil, &outcome.InputError{Input: a.Input.String(), Err: err}
	}
	return p, nil
}

// blameRule finds, on a Blamer, the custom rule whose SQL raised err on the data.
func blameRule(ctx context.Context, b Backend, rel compile.Relation, err error) error {
	if bl, ok := b.(Blamer); ok {
		return bl.BlameRule(ctx, rel, err)
	}
	return err
}

// blameTable names the table check whose SQL raised err on the data, as a
// *TableCheckRuntimeError (the first of several when the backend cannot tell).
func blameTable(ctx context.Context, b Backend, p *compile.Plan, rel compile.Relation, res *Result, err error) error {
	if bl, ok := b.(Blamer); ok {
		return bl.BlameTable(ctx, rel, res, err)
	}
	return NewTableCheckRuntimeError(p, -1, err)
}

// Evaluation is what a run found, as the report and the sink read it.
type Evaluation struct {
	Res     *Result
	Total   int64
	stats   ruleStats
	Outcome outcome.Outcome
	groups  []checkGroup
	// tables are the table checks judged (nil until their step ran).
	tables []tableResult
}

// Invalid is the rows failing an error rule; Failed, per rule, the rows failing it.
func (ev *Evaluation) Invalid() int64  { return ev.stats.invalid }
func (ev *Evaluation) Failed() []int64 { return ev.stats.failed }

// TableCheckError is the error of the table checks that failed the run.
func (ev *Evaluation) TableCheckError(p *compile.Plan) *outcome.TableCheckError {
	return tableCheckError(p, ev.tables)
}

// Evaluate runs the program (its writes included) and fills the report's checks; the returned
// evaluation is nil when the run did not get to its steps. A failed write is a *WriteError.
func Evaluate(ctx context.Context, b Backend, a Asset, rep *outcome.Report, rel compile.Relation, opts Options, policy outcome.Policy) (*Evaluation, error) {
	ing, err := BeginEvaluation(ctx, b, a, rep, rel, opts, policy)
	if err != nil {
		return nil, err
	}
	res, err := Execute(ctx, b, ing.Job, ing.Prepared)
	return ing.Settle(ctx, res, err)
}

// Evaluating is a run's program prepared and about to run: what Settle needs to read its result.
type Evaluating struct {
	b        Backend
	a        Asset
	rep      *outcome.Report
	opts     Options
	Job      Job
	Prepared *Prepared
	groups   []checkGroup
	// tables are the table checks judged (nil until their step ran).
	tables []tableResult
}

// BeginEvaluation runs the input's probes and builds the program; nothing of it runs yet.
func BeginEvaluation(ctx context.Context, b Backend, a Asset, rep *outcome.Report, rel compile.Relation, opts Options, policy outcome.Policy) (*Evaluating, error) {
	groups := checkGroups(a.Plan, opts)
	j := job(b, a, opts, policy, groups)
	p, err := PrepareJob(ctx, b, a, j, rel)
	if err != nil {
		return nil, err
	}
	opts.Phase("evaluating rules", p.Facts.Rows)
	ing := &Evaluating{b: b, a: a, rep: rep, opts: opts, Job: j, Prepared: p, groups: groups}
	baselines := readBaselines(ctx, rep, a.Plan, opts)
	ing.Job.JudgeTables = func(vals []any) bool {
		ing.tables = judgeTableChecks(a.Plan, vals, baselines)
		return tableFailed(ing.tables)
	}
	return ing, nil
}

// Settle reads what the program found (res, err: what it returned) into the report's checks; the
// returned evaluation is nil when the run did not get to its steps.
func (ing *Evaluating) Settle(ctx context.Context, res *Result, err error) (*Evaluation, error) {
	a, rep, opts, groups := ing.a, ing.rep, ing.opts, ing.groups
	if res == nil {
		return nil, err
	}
	ev := &Evaluation{Res: res, Total: res.Facts.Rows, stats: ruleStats{total: res.Facts.Rows, invalid: res.Invalid, failed: res.Failed}, Outcome: res.Outcome, groups: groups, tables: ing.tables}
	var step *StepError
	if err != nil && errors.As(err, &step) && !res.Counted {
		// Until the rules are counted, a failure is the input's (or the run's end), or a custom
		// rule's SQL failing on the data.
		return ev, inputOrRun(a.Input, fmt.Errorf("%s: %w", step.What, blameRule(ctx, ing.b, ing.Prepared.Rel, step.Err)))
	}
	rep.InvalidByRules = cmpOr(res.InvalidByRules, rep.InvalidByRules)
	rep.InvalidSample, rep.ValidSample = res.InvalidSample, res.ValidSample
	if step != nil && step.Op == compile.TableChecks && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		// A table check failed on the data: the rules' checks report what they counted, and the
		// run has no outcome (conclude), as when a rule's SQL fails.
		rep.Checks = buildChecks(a.Plan, a, opts, ev.stats, ing.detail(res), groups)
		describeCasts(rep)
		return ev, fmt.Errorf("%s: %w", step.What, blameTable(ctx, ing.b, a.Plan, ing.Prepared.Rel, res, step.Err))
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
func (ing *Evaluating) detail(res *Result) *failureDetail {
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
