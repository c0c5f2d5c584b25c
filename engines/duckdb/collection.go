package duckdb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tablegate/tablegate/collection"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/duckmsg"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// memberRun is one member's part of a collection's run.
type memberRun struct {
	plan *compile.MemberPlan
	a    runner.Asset
	rep  *outcome.Report
	// absent: the member has no input (an optional member left out).
	absent bool
	b      *backend
	ing    *runner.Evaluating
	ex     *runner.Execution
	ev     *runner.Evaluation
	err    error
}

// RunCollection validates every member of the collection in one DuckDB session: each member's
// program runs up to its counts, the collection's steps set the filters', propagations' and
// references' rule columns of every member's failing rows, then each member's program goes on
// to its outcome. The outputs are written only when every member's outcome succeeds, all of
// them or none. The report is always returned; the error is a *outcome.CollectionError when a
// member's outcome failed (errors.As finds its typed error), or a *outcome.MemberError when a
// member's input or output failed.
func (e *Engine) RunCollection(ctx context.Context, ca runner.CollectionAsset, opts runner.Options) (*outcome.CollectionReport, error) {
	if opts.Timeout <= 0 {
		return e.runCollection(ctx, ca, opts)
	}
	timeout := &outcome.TimeoutError{Limit: opts.Timeout}
	ctx, cancel := context.WithTimeoutCause(ctx, opts.Timeout, timeout)
	defer cancel()
	rep, err := e.runCollection(ctx, ca, opts)
	if err != nil && errors.Is(context.Cause(ctx), timeout) {
		err = failCollection(rep, timeout)
	}
	return rep, err
}

func (e *Engine) runCollection(ctx context.Context, ca runner.CollectionAsset, opts runner.Options) (*outcome.CollectionReport, error) {
	cp := ca.Plan
	start := opts.Clock()
	crep := &outcome.CollectionReport{Collection: cp.Collection.Name, RunID: opts.RunIDAt(start), StartedAt: start.UTC().Format("2006-01-02T15:04:05.999999999Z07:00"),
		CommonPrimaryKey: slices.Clone(cp.Key), Members: map[string]*outcome.Report{}, Filters: []outcome.FilterResult{}}
	if crep.CommonPrimaryKey == nil {
		crep.CommonPrimaryKey = []string{}
	}
	defer func() { crep.DurationS = opts.Clock().Sub(start).Seconds() }()
	members, err := collectionMembers(ca)
	if err != nil {
		return crep, failCollection(crep, err)
	}
	if err := runner.CheckReportFilesWith(runner.Asset{}, []runner.DataFile{{What: "the collection file", Path: cp.Collection.File}}, opts.ReportFiles...); err != nil {
		return crep, failCollection(crep, err)
	}
	mopts := opts // every member's precheck refuses report files that are its data
	for _, m := range members {
		// Its own run id (the history keeps a run per member), tied to the collection's.
		bopts := mopts
		bopts.RunID = crep.RunID + "." + m.plan.Name
		m.rep, _ = bopts.Begin(m.a)
		m.rep.Collection = &outcome.CollectionRun{Name: crep.Collection, RunID: crep.RunID, Member: m.plan.Name}
		crep.MemberOrder = append(crep.MemberOrder, m.plan.Name)
		crep.Members[m.plan.Name] = m.rep
		if err := runner.Precheck(ctx, e, m.a, mopts, m.rep); err != nil {
			return crep, failCollection(crep, &outcome.MemberError{Member: m.plan.Name, Err: err})
		}
		if m.absent {
			runner.Skipped(m.rep, m.a, mopts)
		}
	}
	// A set no one commit covers is refused before anything is read.
	if err := checkCollectionOutputs(members); err != nil {
		return crep, failCollection(crep, err)
	}

	root, err := e.newRun(ctx)
	if err != nil {
		return crep, failCollection(crep, err)
	}
	root.setTables = map[string]setTable{}
	written := collectionOutputFiles(members)
	// The end, in the order explain prints it: the collection's cleanup, then each member's.
	var cleanup []compile.Step
	var opened []*run
	defer func() {
		for _, s := range cleanup {
			_, _ = root.conn.ExecContext(context.Background(), s.SQL)
		}
		for _, m := range members {
			if m.ex != nil {
				m.ex.Close()
			}
		}
		for _, r := range opened {
			r.close()
		}
		root.close()
	}()
	runs := map[string]compile.MemberRun{}
	for _, m := range members {
		if m.absent {
			continue
		}
		r := e.sibling(root)
		opened = append(opened, r)
		m.b = newBackend(r, m.a, written)
		lopts := mopts.ForMember(m.plan.Name)
		lopts.SkipMissing = mopts.SkipMissing || m.plan.Optional
		lopts.Phase("reading input", 0)
		rel, err := runner.Load(ctx, m.b, m.a, m.rep, lopts)
		if errors.Is(err, runner.ErrNoSourceData) && lopts.SkipMissing {
			// An optional member whose input matches no data is absent, as one not given.
			mopts.Warn(m.rep, fmt.Sprintf("member %s: %s matches no data: the member is absent", m.plan.Name, m.a.Input))
			runner.Skipped(m.rep, m.a, mopts)
			m.absent = true
			continue
		}
		if err != nil {
			return crep, endCollection(crep, m, err)
		}
		if m.ing, err = runner.BeginEvaluation(ctx, m.b, m.a, m.rep, rel, mopts.ForMember(m.plan.Name), runner.PolicyOf(m.a)); err != nil {
			return crep, endCollection(crep, m, runner.Fail(m.rep, err))
		}
		r.prog = m.ing.Prepared.Program // the run's close cleans up after it
		if m.ex, err = runner.Start(m.b, m.ing.Job, m.ing.Prepared); err != nil {
			return crep, endCollection(crep, m, runner.Fail(m.rep, err))
		}
		// The collection's rules are set in the failing rows before they are counted.
		if err := m.ex.Until(ctx, func(s compile.Step) bool { return s.Op == compile.Counts }); err != nil {
			return crep, endCollection(crep, m, m.settle(ctx, err))
		}
		runs[m.plan.Name] = compile.MemberRun{Plan: m.a.Plan, Rel: m.ing.Prepared.Rel, Failed: m.ing.Prepared.Program.Failed(), PerfectHashBits: m.ing.Prepared.Facts.PerfectHashBits}
	}

	steps, cleanup := cp.Steps(root.id, runs)
	if len(steps) > 0 {
		opts.Phase("applying the collection's filters", 0)
	}
	for _, s := range steps {
		if _, err := root.conn.ExecContext(ctx, s.SQL); err != nil {
			// The filters' SQL is the user's: its error quotes the data (cut, as for rules).
			return crep, failCollection(crep, &stepError{msg: fmt.Sprintf("collection %s: %s: %s", cp.Collection.Name, s.What, duckmsg.OnData(err)), err: err})
		}
	}

	for _, m := range members {
		if m.absent {
			continue
		}
		mopts.ForMember(m.plan.Name).Phase("counting failures", m.ex.Result().Facts.Rows)
		if err := m.ex.Until(ctx, nil); err != nil {
			return crep, endCollection(crep, m, m.settle(ctx, err))
		}
		if err := m.settle(ctx, nil); err != nil {
			return crep, endCollection(crep, m, err)
		}
	}
	crep.Filters = filterResults(cp, members, runs)

	passed := true
	for _, m := range members {
		if m.ev != nil && !m.ev.Outcome.Succeeded() {
			passed = false
		}
	}
	if passed {
		if err := writeMembers(ctx, members, mopts); err != nil {
			for _, m := range members {
				if m.ev != nil {
					m.err = err
				}
			}
		}
	}
	return crep, concludeCollection(crep, members, mopts, passed)
}

// collectionMembers pairs the collection's members with the assets given for them: every
// required member needs an input, and every asset a member.
func collectionMembers(ca runner.CollectionAsset) ([]*memberRun, error) {
	cp := ca.Plan
	var unknown []string
	for name := range ca.Members {
		if cp.Member(name) == nil {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, fmt.Errorf("collection %s has no member %s; its members are %s", cp.Collection.Name, strings.Join(unknown, ", "), memberNames(cp))
	}
	var out []*memberRun
	var missing []string
	for i := range cp.Members {
		mp := &cp.Members[i]
		a, ok := ca.Members[mp.Name]
		a.Plan = mp.Plan
		if a.Name == "" {
			a.Name = mp.Name
		}
		m := &memberRun{plan: mp, a: a, absent: !ok || a.Input == nil}
		if m.absent && !mp.Optional {
			missing = append(missing, mp.Name)
		}
		out = append(out, m)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("collection %s: no input for member %s, which is not optional; give one for every member (its members are %s)",
			cp.Collection.Name, strings.Join(missing, ", "), memberNames(cp))
	}
	return out, nil
}

func memberNames(cp *compile.CollectionPlan) string {
	names := make([]string, len(cp.Members))
	for i, m := range cp.Members {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

// settle reads the member's execution into its report's checks (err: what its steps returned).
func (m *memberRun) settle(ctx context.Context, err error) error {
	m.ev, err = m.ing.Settle(ctx, m.ex.Result(), err)
	return err
}

// endCollection ends the collection's run on the failure err of member at (its report has it):
// a failing outcome (a column mismatch) fails the collection, anything else is the member's
// error.
func endCollection(crep *outcome.CollectionReport, at *memberRun, err error) error {
	if rep := at.rep; rep.Error == nil {
		runner.Fail(rep, err)
	}
	var col *outcome.ColumnSchemaError
	if errors.As(err, &col) {
		out := outcome.CollectionFailed
		crep.Outcome = &out
		return failCollection(crep, &outcome.CollectionError{Collection: crep.Collection, Members: map[string]error{at.plan.Name: err}})
	}
	return failCollection(crep, &outcome.MemberError{Member: at.plan.Name, Err: err})
}

// writeMembers takes every writing member's lock (lockMembers), stages every member's write in
// the write set, then puts them all in place at once (commitMembers); a failure while staging
// undoes every staged write.
func writeMembers(ctx context.Context, members []*memberRun, opts runner.Options) error {
	var writing []*memberRun
	var outs []memberOutput
	for _, m := range members {
		if m.ex != nil && m.ex.Writes() {
			writing = append(writing, m)
			outs = append(outs, memberOutput{Output: m.a.Output, QuarantineName: runner.QuarantineNameOf(m.a, m.rep.Asset)})
		}
	}
	// Every member's lock, before any member writes a temporary; its writers join the set.
	ws, err := lockMembers(ctx, outs)
	if err != nil {
		return err
	}
	defer ws.release()
	var staged []StagedWrite
	for _, m := range writing {
		m.b.r.set = ws
		opts.ForMember(m.plan.Name).Phase("writing outputs", m.ex.Result().Facts.Rows)
		if err := m.ex.Stage(ctx); err != nil {
			for _, s := range staged {
				s.Exec.Abort()
			}
			return &outcome.MemberError{Member: m.plan.Name, Err: err}
		}
		staged = append(staged, StagedWrite{Member: m.plan.Name, Output: m.a.Output, Exec: m.ex})
	}
	opts.Phase("putting every member in place", 0)
	return commitMembers(ctx, ws, staged)
}

// concludeCollection settles every member's report and the collection's.
func concludeCollection(crep *outcome.CollectionReport, members []*memberRun, opts runner.Options, passed bool) error {
	failed := map[string]error{}
	var runErr error
	written := true
	for _, m := range members {
		if m.absent {
			continue
		}
		var werr error
		if m.err != nil {
			werr = m.err
			var merr *outcome.MemberError
			if errors.As(werr, &merr) && merr.Member == m.plan.Name {
				werr = merr.Err
			}
		}
		err := runner.Conclude(m.rep, m.a, opts, m.ev, werr)
		var nv *outcome.NoValidRowsError
		if errors.As(err, &nv) && !passed {
			nv.Quarantine = "" // no member was written, its quarantine neither
			runner.Fail(m.rep, err)
		}
		switch {
		case err != nil && m.err != nil: // the write failed: no outcome
			if runErr == nil {
				runErr = m.err
			}
		case err != nil:
			failed[m.plan.Name] = err
		}
		if m.a.Output != nil && !m.rep.Table.Written && m.ev != nil && m.ev.Outcome != outcome.NoValidRows {
			written = false
		}
	}
	out := outcome.CollectionFailed
	if passed && len(failed) == 0 && runErr == nil {
		out = outcome.CollectionPassed
	}
	crep.Outcome = &out
	crep.Written = passed && runErr == nil && written
	switch {
	case runErr != nil:
		crep.Outcome = nil
		return failCollection(crep, runErr)
	case len(failed) > 0:
		return failCollection(crep, &outcome.CollectionError{Collection: crep.Collection, Members: failed})
	}
	return nil
}

// stepError is a failed statement's error under a message of its own.
type stepError struct {
	msg string
	err error
}

func (e *stepError) Error() string { return e.msg }
func (e *stepError) Unwrap() error { return e.err }

// failCollection records err in the collection's report and returns it.
func failCollection(crep *outcome.CollectionReport, err error) error {
	crep.Error = &outcome.ErrorInfo{Type: outcome.TypeName(err), Message: err.Error()}
	return err
}

// filterResults are the rows each filter, propagation and reference failed, per member.
func filterResults(cp *compile.CollectionPlan, members []*memberRun, runs map[string]compile.MemberRun) []outcome.FilterResult {
	c := cp.Collection
	skipped := cp.FilterSkipped(runs)
	var out []outcome.FilterResult
	add := func(name, kind string, skip string) {
		fr := outcome.FilterResult{Name: name, Kind: kind, Check: "", Failed: map[string]int64{}, Skipped: skip}
		for _, m := range members {
			for i, r := range m.a.Plan.Rules {
				if r.Name != name {
					continue
				}
				fr.Check, fr.Description = r.Check, r.Description
				if m.ev != nil && i < len(m.ev.Failed()) {
					fr.Failed[m.plan.Name] = m.ev.Failed()[i]
				}
			}
		}
		out = append(out, fr)
	}
	for _, f := range c.Filters {
		add(f.Name, string(f.Kind), skipped[f.Name])
	}
	for _, pm := range c.Propagating() {
		skip := ""
		if _, ok := runs[pm.Name]; !ok {
			skip = fmt.Sprintf("member %s is absent", pm.Name)
		}
		add(collection.PropagationRule(pm.Name), compile.KindPropagation, skip)
	}
	for _, r := range c.References {
		skip := ""
		for _, m := range []string{r.From, r.To} {
			if _, ok := runs[m]; !ok && skip == "" {
				skip = fmt.Sprintf("member %s is absent", m)
			}
		}
		add(r.Name, "reference", skip)
	}
	return out
}

// ExplainCollection returns the statements a collection's run with these members executes, in
// order: each member's (as ExplainAsset's) up to its counts, the collection's steps, each
// member's counts and report, every member's writes, then the cleanup. It opens every member's
// input and counts its rows; it evaluates nothing.
func (e *Engine) ExplainCollection(ctx context.Context, ca runner.CollectionAsset, opts runner.Options) (string, error) {
	cp := ca.Plan
	members, err := collectionMembers(ca)
	if err != nil {
		return "", err
	}
	if err := opts.Validate(); err != nil {
		return "", err
	}
	root, err := e.newRun(ctx)
	if err != nil {
		return "", err
	}
	defer root.close()
	root.setTables = map[string]setTable{}
	written := collectionOutputFiles(members)
	var b strings.Builder
	b.WriteString(sessionNote)
	runs := map[string]compile.MemberRun{}
	rest, memberCleanup := map[string][]compile.Step{}, map[string][]compile.Step{}
	for _, m := range members {
		if m.absent {
			fmt.Fprintf(&b, "\n-- member %s: absent (optional), nothing runs\n", m.plan.Name)
			continue
		}
		r := e.sibling(root)
		defer r.close()
		bk := newBackend(r, m.a, written)
		p, err := runner.ExplainOpened(ctx, bk, m.a, opts, runner.PolicyOf(m.a))
		if err != nil {
			return "", &outcome.MemberError{Member: m.plan.Name, Err: err}
		}
		r.prog = p.Program // the run's close cleans up after it
		var steps, ends []compile.Step
		for _, s := range p.Program.Steps() {
			if s.Op == compile.Cleanup {
				ends = append(ends, s)
			} else {
				steps = append(steps, s)
			}
		}
		cut := slices.IndexFunc(steps, func(s compile.Step) bool { return s.Op == compile.Counts || s.Op.Writes() })
		if cut < 0 {
			cut = len(steps)
		}
		fmt.Fprintf(&b, "\n-- member %s: its input and its rules\n%s", m.plan.Name, compile.Listing(slices.Concat(p.Open, p.Probes, steps[:cut])))
		rest[m.plan.Name], memberCleanup[m.plan.Name] = steps[cut:], ends
		runs[m.plan.Name] = compile.MemberRun{Plan: m.a.Plan, Rel: p.Rel, Failed: p.Program.Failed(), PerfectHashBits: p.Facts.PerfectHashBits}
	}
	steps, cleanup := cp.Steps(root.id, runs)
	fmt.Fprintf(&b, "\n-- collection %s: its filters, propagation and references, on every member's failing rows\n%s", cp.Collection.Name, compile.Listing(steps))
	// Each member's counts and report, then every member's writes: a run stages them only once
	// every member's outcome is known.
	var writes []compile.Step
	for _, m := range members {
		s := rest[m.plan.Name]
		w := slices.IndexFunc(s, func(s compile.Step) bool { return s.Op.Writes() })
		if w < 0 {
			w = len(s)
		}
		if w > 0 {
			fmt.Fprintf(&b, "\n-- member %s: its counts and report\n%s", m.plan.Name, compile.Listing(s[:w]))
		}
		writes = append(writes, s[w:]...)
	}
	if len(writes) > 0 {
		fmt.Fprintf(&b, "\n-- collection %s: every member's writes, in member order, only when every member's outcome succeeds\n%s", cp.Collection.Name, compile.Listing(writes))
		if ends := setEnds(root.setTables); len(ends) > 0 {
			fmt.Fprintf(&b, "\n-- collection %s: the one commit of every member's tables, once every member's write ran\n%s", cp.Collection.Name, compile.Listing(ends))
		}
	}
	var ends []compile.Step
	for _, m := range members {
		ends = append(ends, memberCleanup[m.plan.Name]...)
	}
	fmt.Fprintf(&b, "\n-- cleanup: the collection's, then each member's\n%s", compile.Listing(append(cleanup, ends...)))
	return b.String(), nil
}

// collectionOutputFiles are the database files any member's output writes: a member's input or
// reference in one of them attaches it for writing, as the writes will need it.
func collectionOutputFiles(members []*memberRun) map[string]bool {
	written := map[string]bool{}
	for _, m := range members {
		for f := range outputFiles(m.a) {
			written[f] = true
		}
	}
	return written
}

// setEnds are the steps that end the transactions the members writing DuckDB tables share, per
// database file: its commit, and its rollback when a write fails.
func setEnds(tables map[string]setTable) []compile.Step {
	opened := slices.SortedFunc(maps.Values(tables), func(a, b setTable) int { return cmp.Compare(a.opener, b.opener) })
	var out []compile.Step
	for _, st := range opened {
		commit, rollback := compile.SetEnd(st.file)
		out = append(out, commit, rollback)
	}
	return out
}
