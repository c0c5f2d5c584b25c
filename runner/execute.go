package runner

import (
	"context"
	gosql "database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/duckmsg"
	"github.com/tablegate/tablegate/outcome"
)

// StepError is a step that failed: What says what the step was for.
type StepError struct {
	What string
	Op   compile.Op
	Err  error
}

// Error is the step and DuckDB's message: for the table checks, whose SQL is the user's, only
// its first line with the data's quoted values cut; for every step, without the stack trace of an
// INTERNAL error.
func (e *StepError) Error() string {
	if e.Op == compile.TableChecks {
		return e.What + ": " + duckmsg.OnData(e.Err)
	}
	return e.What + ": " + duckmsg.WithoutStackTrace(e.Err.Error())
}
func (e *StepError) Unwrap() error { return e.Err }

// WriteError is a write of the outputs that failed; what it wrote is undone (Writer.Abort).
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// Probe runs the input's probes (compile.Probes) and returns the relation with what the probes
// read of the source, the facts they counted, and the probes as run (explain prints them). A
// Tuner backend then fits the engine's facts to the rows.
func Probe(ctx context.Context, b Backend, rel compile.Relation) (compile.Relation, compile.Facts, []compile.Step, error) {
	return probeWith(ctx, b, rel, compile.Probes(rel))
}

// probeWith runs the probes given (Probe).
func probeWith(ctx context.Context, b Backend, rel compile.Relation, probes []compile.Step) (compile.Relation, compile.Facts, []compile.Step, error) {
	var f compile.Facts
	for _, s := range probes {
		if err := probe(ctx, b, s, &rel, &f); err != nil {
			return rel, f, probes, &StepError{What: s.What, Op: s.Op, Err: err}
		}
	}
	if t, ok := b.(Tuner); ok {
		t.Fit(&f)
	}
	return rel, f, probes, nil
}

// probe runs one probe step. The footers and the row groups only steer how the program
// evaluates and writes, never what it finds: when they cannot be read the run goes on without
// them. The count is needed.
func probe(ctx context.Context, b Backend, s compile.Step, rel *compile.Relation, f *compile.Facts) error {
	switch s.Op {
	case compile.ProbeFooters:
		plain, ranges := readFooters(ctx, b, s.SQL)
		rel.PlainColumns = plain
		if rel.NoStatistics {
			rel.Ranges = ranges
		}
	case compile.ProbeRowGroups:
		rel.RowGroups, _ = column[int64](ctx, b, s.SQL)
	case compile.CountRows:
		dest := []any{&f.Rows}
		if !rel.DenseRowIDs {
			dest = append(dest, &f.FirstRowID, &f.LastRowID)
		}
		if err := queryRow(ctx, b, s.SQL, nil, dest...); err != nil {
			return err
		}
		if rel.DenseRowIDs {
			f.FirstRowID, f.LastRowID = 0, f.Rows-1
		}
	default:
		return fmt.Errorf("a probe runs no step %q", s.Op)
	}
	return nil
}

// readFooters reads the ProbeFooters step: the top-level columns no column chunk stores with a
// dictionary (plain), and the integer range of the columns whose every chunk has integer
// statistics (by lower-case name). Both nil when the footers cannot be read.
func readFooters(ctx context.Context, b Backend, query string) (plain map[string]bool, ranges map[string][2]int64) {
	rows, err := b.Query(ctx, query)
	if err != nil {
		return nil, nil
	}
	defer rows.Close()
	plain, ranges = map[string]bool{}, map[string][2]int64{}
	for rows.Next() {
		var name string
		var isPlain, ranged bool
		var lo, hi gosql.NullInt64
		if err := rows.Scan(&name, &isPlain, &ranged, &lo, &hi); err != nil {
			return nil, nil
		}
		if isPlain {
			plain[name] = true
		}
		if ranged && lo.Valid && hi.Valid {
			ranges[strings.ToLower(name)] = [2]int64{lo.Int64, hi.Int64}
		}
	}
	if rows.Err() != nil {
		return nil, nil
	}
	return plain, ranges
}

// Refused is the first refusal of the backend for a step of the program, or nil.
func Refused(b Backend, steps []compile.Step) error {
	for _, s := range steps {
		if err := b.Refuse(s.Op); err != nil {
			return err
		}
	}
	return nil
}

// Execute runs the program's steps on b in order, each whose condition holds, and decides the
// outcome right after the counts; the write steps go to b's Writer when the outcome writes the
// outputs. Cleanup steps are not run here: the caller runs them (Cleanup) once it no longer
// reads the run's rows. A failure before the counts is a *StepError (Result.Counted false), a
// failed write a *WriteError.
func Execute(ctx context.Context, b Backend, a Job, p *Prepared) (*Result, error) {
	e, err := Start(b, a, p)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	if err := e.Until(ctx, nil); err != nil {
		return e.Result(), err
	}
	if !e.Writes() {
		return e.Result(), nil
	}
	if a.Progress != nil {
		a.Progress("writing outputs", e.Result().Facts.Rows)
	}
	if err := e.Stage(ctx); err != nil {
		return e.Result(), err
	}
	return e.Result(), e.Finish(ctx)
}

// Execution is a program being executed, step by step: Execute in parts, for a run that pauses
// between them (a collection's members pause before their counts, so that the collection's
// filters set their rule columns, and before their writes, which the collection makes all or
// nothing). Until runs the steps before the writes; Stage runs the write steps (the outputs'
// temporaries written, nothing in place yet) and Finish puts them in place, or Abort undoes
// them. Close gives back what the execution holds; the caller runs the cleanup (Cleanup).
type Execution struct {
	x     *interpreter
	steps []compile.Step
	next  int // the next step Until runs
	// w is the Writer of a staged write; rollback its Rollback step, begun whether a step
	// wrote.
	w        Writer
	rollback string
	begun    bool
	// writer is the backend's Writer, asked once (fetched tells that it was).
	writer  Writer
	fetched bool
}

// backendWriter is the backend's Writer, asked for once.
func (e *Execution) backendWriter() Writer {
	if !e.fetched {
		if w, ok := e.x.b.(Writing); ok {
			e.writer = w.Writer()
		}
		e.fetched = true
	}
	return e.writer
}

// Start begins executing the program on b: the backend is asked for every step first.
func Start(b Backend, a Job, p *Prepared) (*Execution, error) {
	steps, f := p.Program.Steps(), p.Facts
	if err := Refused(b, steps); err != nil {
		return nil, err
	}
	x := &interpreter{b: b, a: a, res: &Result{Facts: f, Failed: make([]int64, len(a.Plan.Rules)), Samples: map[int][]json.RawMessage{}}}
	x.res.Counted = len(a.Plan.Rules) == 0
	x.decide()
	return &Execution{x: x, steps: steps}, nil
}

// Result is what the execution found so far.
func (e *Execution) Result() *Result { return e.x.res }

// Until runs the steps before the writes, in order, each whose condition holds, up to the first
// for which stop is true (nil: all of them); a later call goes on from there. A failure is a
// *StepError.
func (e *Execution) Until(ctx context.Context, stop func(compile.Step) bool) error {
	x := e.x
	for ; e.next < len(e.steps); e.next++ {
		s := e.steps[e.next]
		if s.Op.Writes() || (stop != nil && stop(s)) {
			return nil
		}
		if s.Op == compile.Cleanup || !x.holds(s) {
			continue
		}
		if err := x.step(ctx, s); err != nil {
			return &StepError{What: s.What, Op: s.Op, Err: err}
		}
		if s.Op == compile.Counts || s.Op == compile.CountAll || s.Op == compile.RuleCounts || s.Op == compile.TableChecks {
			x.res.Counted = true
			x.decide()
		}
	}
	return nil
}

// Writes tells whether the outcome writes the outputs (and the asset has a Writer).
func (e *Execution) Writes() bool {
	return e.x.a.Output && writes(e.x.res.Outcome) && e.backendWriter() != nil
}

// Stage begins the write and runs each write step whose condition holds (Until must have run
// every step before them): the outputs' temporaries are written, Finish puts them in place. A
// failure aborts the write and is a *WriteError.
func (e *Execution) Stage(ctx context.Context) error { return e.stage(ctx, e.backendWriter()) }

func (e *Execution) stage(ctx context.Context, w Writer) error {
	x := e.x
	steps := e.steps[e.next:]
	for _, s := range steps {
		if s.Op == compile.Rollback && x.holds(s) {
			e.rollback = s.SQL // also for a write that fails before it begins
		}
	}
	if err := w.Begin(ctx); err != nil {
		w.Abort("")
		return &WriteError{Err: err}
	}
	for _, s := range steps {
		if !s.Op.Writes() || s.Op == compile.Rollback || !x.holds(s) {
			continue
		}
		if s.Op == compile.FindQuarantine {
			var n int64
			if err := queryRow(ctx, x.b, s.SQL, nil, &n); err != nil {
				w.Abort(x.ifBegun(e.begun, e.rollback))
				return &WriteError{Err: err}
			}
			if n > 0 {
				x.flags |= compile.QuarantFound
			}
			continue
		}
		var args []any
		if s.When&compile.SizedGroups != 0 {
			args = append(args, x.rowGroup)
		}
		if err := w.Step(ctx, s, args...); err != nil {
			w.Abort(x.ifBegun(e.begun, e.rollback))
			return &WriteError{Err: err}
		}
		e.begun = e.begun || s.Op != compile.AttachOutput
	}
	e.w = w
	return nil
}

// Finish puts a staged write in place. A failure is a *WriteError.
func (e *Execution) Finish(ctx context.Context) error {
	x := e.x
	if e.w == nil {
		return &WriteError{Err: fmt.Errorf("no staged write to finish")}
	}
	written, err := e.w.Finish(ctx, x.flags)
	e.w = nil
	if err != nil {
		return &WriteError{Err: err}
	}
	x.res.Written, x.res.Conds = written, x.flags
	return nil
}

// Abort undoes a staged write (nothing when none is staged).
func (e *Execution) Abort() {
	if e.w != nil {
		e.w.Abort(e.x.ifBegun(e.begun, e.rollback))
		e.w = nil
	}
}

// Close gives back the threads raised for the key aggregates when a step failed before the
// program's own RestoreThreads ran.
func (e *Execution) Close() { e.x.giveBackThreads(e.steps) }

// Cleanup runs the program's cleanup steps (the run's temp tables dropped, its variables
// reset), even when ctx is done; a failure is ignored: the session ends anyway.
func Cleanup(b Backend, prog *compile.Program) {
	for _, s := range prog.Steps() {
		if s.Op == compile.Cleanup {
			_ = b.Exec(context.Background(), s.SQL)
		}
	}
}

// Write runs the write steps of a program on w, each whose condition holds: the one interpreter
// of writes, for a run's outputs and for a query written to an output alone.
func Write(ctx context.Context, b Backend, w Writer, steps []compile.Step, conds compile.Cond) (Written, error) {
	e := &Execution{x: &interpreter{b: b, res: &Result{}, flags: conds}, steps: steps}
	if err := e.stage(ctx, w); err != nil {
		return Written{}, err
	}
	err := e.Finish(ctx)
	return e.x.res.Written, err
}

// interpreter is the state of one execution: the conditions that hold and what the steps read.
type interpreter struct {
	b     Backend
	a     Job
	res   *Result
	flags compile.Cond
	take  map[int]int      // per rule, the failing rows its checks show
	picks map[int][]string // per rule, the ordinals of those rows
	order []string         // every picked ordinal, once, in the order first picked
	// rowGroup is the valid rows' row group size for a Parquet table (0: the engine's default).
	rowGroup int64
	// tablesFail tells that a table check fails the run.
	tablesFail bool
	// ruleCounted is how many rules' counts the RuleCounts steps read so far.
	ruleCounted int
}

func (x *interpreter) holds(s compile.Step) bool { return s.When&x.flags == s.When }

// decide takes the outcome and the steps' conditions from the counts read so far.
func (x *interpreter) decide() {
	r := x.res
	if x.a.Policy == outcome.PolicyAbort && r.Invalid > 0 && x.ruleCounted == len(r.Failed) && tolerated(x.a.Plan, r) {
		// Without a quarantine, failures within their rules' tolerances stay in the table: the
		// only other places for the rows would lose them or fail the run the tolerance keeps going.
		r.Invalid = 0
	}
	r.Outcome = outcome.Decide(r.Facts.Rows, r.Invalid, x.a.Policy)
	if x.tablesFail {
		// Before aborted and no_valid_rows: the batch as a whole is wrong.
		r.Outcome = outcome.TableCheckFailed
	}
	x.take = sampleTakes(x.a.Groups, r.Failed, x.a.Program.Samples)
	x.flags = conditions(r.Facts.Rows, r.Invalid, r.Failing, r.Outcome, x.a.Output, x.a.Quarantine, x.a.Program.RowSample, len(x.take) > 0)
	r.Conds = x.flags
}

// tolerated reports whether every error rule that some row failed is within its tolerance.
func tolerated(p *compile.Plan, r *Result) bool {
	for i, rule := range p.Rules {
		if rule.IsError() && r.Failed[i] > 0 && !rule.Tolerated(r.Failed[i], r.Facts.Rows) {
			return false
		}
	}
	return true
}

// conditions are the program's conditions that hold for a run with these counts and outcome.
func conditions(total, invalid, failing int64, out outcome.Outcome, output, quarantine bool, rowSample int, sampled bool) compile.Cond {
	var c compile.Cond
	set := func(flag compile.Cond, holds bool) {
		if holds {
			c |= flag
		}
	}
	writing := output && writes(out)
	set(compile.AnyInvalid, invalid > 0)
	set(compile.NoInvalid, invalid == 0)
	set(compile.AnyValid, invalid < total)
	set(compile.Sampled, sampled)
	set(compile.AnyFailure, failing > 0)
	set(compile.WriteTable, writing && out != outcome.NoValidRows)
	set(compile.WriteQuarant, writing && invalid > 0 && quarantine)
	set(compile.NeedValid, c&compile.WriteTable != 0 || (rowSample > 0 && invalid < total))
	set(compile.Writing, writing)
	set(compile.DropQuarant, writing && c&compile.WriteQuarant == 0)
	set(compile.PlainGroups, true) // until a RowGroupSize step sets a size
	return c
}

// writes reports whether a run with the outcome writes its outputs.
func writes(out outcome.Outcome) bool {
	return out != outcome.Aborted && out != outcome.TableCheckFailed
}

// sampleTakes is, per rule, how many of its first failing rows the checks show: each check
// (groups: its rules' indexes, in rule order) shows at most n rows, and a collapsed check takes
// them from its members in rule order and takes no more once it has n. A rule's first k failing
// rows are min(k, its failures), so the rows each member gives are known before any is read.
func sampleTakes(groups [][]int, failed []int64, n int) map[int]int {
	take := map[int]int{}
	for _, g := range groups {
		budget := n
		for _, m := range g {
			if k := int(min(int64(budget), failed[m])); k > 0 {
				take[m] = max(take[m], k)
				budget -= k
			}
		}
	}
	return take
}

// step runs one step that is not a write and keeps what it reads.
func (x *interpreter) step(ctx context.Context, s compile.Step) error {
	b, r := x.b, x.res
	switch s.Op {
	case compile.Exec, compile.KeyAggregate:
		return b.Exec(ctx, s.SQL)
	case compile.ReadThreads, compile.RaiseThreads, compile.RestoreThreads:
		t, ok := b.(Tuner)
		if !ok {
			return fmt.Errorf("the engine runs no step %q", s.Op)
		}
		// A speed setting: if the engine refuses it, the aggregates run with the threads there are.
		_ = t.Tune(ctx, s)
	case compile.Counts:
		return queryRow(ctx, b, s.SQL, nil, &r.Invalid, &r.Failing)
	case compile.CountAll:
		if err := queryRow(ctx, b, s.SQL, nil, &r.Facts.Rows, &r.Invalid, &r.Failing); err != nil {
			return err
		}
		r.Facts.FirstRowID, r.Facts.LastRowID = 0, r.Facts.Rows-1
		return nil
	case compile.RuleCounts:
		hi := min(x.ruleCounted+compile.RuleCountChunk, len(r.Failed))
		dest := make([]any, 0, hi-x.ruleCounted)
		for i := x.ruleCounted; i < hi; i++ {
			dest = append(dest, &r.Failed[i])
		}
		x.ruleCounted = hi
		return queryRow(ctx, b, s.SQL, nil, dest...)
	case compile.SamplePicks:
		return x.readPicks(ctx, s.SQL)
	case compile.SampleRows:
		return x.readSampleRows(ctx, s.SQL)
	case compile.FailingValues:
		return x.readFailingValues(ctx, s.SQL)
	case compile.CheckCounts:
		r.CheckFailed = make([]int64, len(x.a.Program.Checks))
		dest := make([]any, len(r.CheckFailed))
		for i := range r.CheckFailed {
			dest[i] = &r.CheckFailed[i]
		}
		return queryRow(ctx, b, s.SQL, nil, dest...)
	case compile.TableChecks:
		return x.readTableChecks(ctx, s.SQL)
	case compile.InvalidByRules:
		sets, err := readRuleSets(ctx, b, s.SQL)
		if err != nil {
			return err
		}
		r.InvalidByRules = sets
	case compile.InvalidSample, compile.ValidSample:
		rows, err := rowsJSON(ctx, b, s.SQL)
		if err != nil {
			return err
		}
		if s.Op == compile.InvalidSample {
			r.InvalidSample = rows
		} else {
			r.ValidSample = rows
		}
	case compile.RowGroupSize:
		if x.rowGroup = rowGroupSize(ctx, b, s.SQL); x.rowGroup > 0 {
			x.flags = x.flags&^compile.PlainGroups | compile.SizedGroups
			r.Conds = x.flags
		}
	case compile.ValidRows:
		r.ValidRows = s.SQL
	case compile.InvalidRows:
		r.InvalidRows = s.SQL
	default:
		return fmt.Errorf("unknown step %d", s.Op)
	}
	return nil
}

// giveBackThreads gives back the threads raised for the key aggregates, when a step failed
// before the program's own RestoreThreads ran (a Tuner gives back only what it raised).
func (x *interpreter) giveBackThreads(steps []compile.Step) {
	t, ok := x.b.(Tuner)
	if !ok {
		return
	}
	for _, s := range steps {
		if s.Op == compile.RestoreThreads {
			_ = t.Tune(context.Background(), s)
			return
		}
	}
}

// ifBegun is the rollback when the write had begun, "" otherwise.
func (x *interpreter) ifBegun(begun bool, rollback string) string {
	if begun {
		return rollback
	}
	return ""
}

// readTableChecks reads the table checks' values, with the rule counts as its parameter when
// the checks read them, and has them judged.
func (x *interpreter) readTableChecks(ctx context.Context, query string) error {
	p := x.a.Plan
	n := 0
	for _, t := range p.TableChecks {
		n += t.Values()
	}
	vals := make([]any, n)
	dest := make([]any, len(vals))
	for i := range vals {
		dest[i] = &vals[i]
	}
	var args []any
	if p.TableChecksReadCounts() {
		args = append(args, append([]int64{x.res.Invalid}, x.res.Failed...))
	}
	if err := queryRow(ctx, x.b, query, args, dest...); err != nil {
		return err
	}
	if x.a.JudgeTables == nil {
		return fmt.Errorf("the run has table checks and nothing to judge them")
	}
	x.tablesFail = x.a.JudgeTables(vals)
	return nil
}

// readPicks reads the ordinals of the failing rows each rule's checks show.
func (x *interpreter) readPicks(ctx context.Context, query string) error {
	rules := len(x.a.Plan.Rules)
	takes := make([]int64, rules)
	for i, k := range x.take {
		takes[i] = int64(k)
	}
	picks, err := x.b.Query(ctx, query, takes)
	if err != nil {
		return err
	}
	defer picks.Close()
	x.picks = map[int][]string{}
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
		x.picks[k-1] = append(x.picks[k-1], rid)
		if !seen[rid] {
			seen[rid] = true
			x.order = append(x.order, rid)
		}
	}
	return picks.Err()
}

// sampleCells is about how many values one statement renders for the samples.
const sampleCells = 1 << 20

// readSampleRows reads the picked rows as JSON, in batches of about sampleCells values: a
// result is built whole before it is read, and 2,000 rows of 5,000 columns as JSON needed more
// than a 1 GB limit.
func (x *interpreter) readSampleRows(ctx context.Context, query string) error {
	rows := map[string]json.RawMessage{}
	all := x.order
	batch := max(1, sampleCells/max(1, len(x.a.Plan.Columns)))
	for len(all) > 0 {
		n := min(batch, len(all))
		if err := sampleRows(ctx, x.b, query, all[:n], rows); err != nil {
			return err
		}
		all = all[n:]
	}
	for i, rids := range x.picks {
		sample := make([]json.RawMessage, len(rids))
		for j, rid := range rids {
			sample[j] = rows[rid]
		}
		x.res.Samples[i] = sample
	}
	return nil
}

// sampleRows renders the rows with the ordinals rids as JSON into rows (query: the program's
// SampleRows step).
func sampleRows(ctx context.Context, b Backend, query string, rids []string, rows map[string]json.RawMessage) error {
	res, err := b.Query(ctx, query, rids)
	if err != nil {
		return err
	}
	defer res.Close()
	for res.Next() {
		var rid, text string
		if err := res.Scan(&rid, &text); err != nil {
			return err
		}
		rows[rid] = json.RawMessage(sanitizeJSON(text))
	}
	return res.Err()
}

// wholeNumber reports whether s is the decimal text of an integer: a sanity check on the picked
// ordinals before the sample-rows step casts them back (they reach it as a bound parameter).
func wholeNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// readFailingValues reads the most frequent failing values of the column rules.
func (x *interpreter) readFailingValues(ctx context.Context, query string) error {
	rows, err := x.b.Query(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	x.res.Values = map[int][]outcome.ValueCount{}
	for rows.Next() {
		var k, n int64
		var v string
		if err := rows.Scan(&k, &v, &n); err != nil {
			return err
		}
		if k >= 1 && int(k) <= len(x.res.Failed) {
			x.res.Values[int(k)-1] = append(x.res.Values[int(k)-1], outcome.ValueCount{Value: json.RawMessage(sanitizeJSON(v)), Count: n})
		}
	}
	return rows.Err()
}

// readRuleSets reads the invalid rows counted by the exact set of rules each failed.
func readRuleSets(ctx context.Context, b Backend, query string) ([]outcome.RuleSet, error) {
	rows, err := b.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []outcome.RuleSet{}
	for rows.Next() {
		var s outcome.RuleSet
		if err := rows.Scan(&s.Rules, &s.Count); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// rowGroupSize reads the program's RowGroupSize step: the row group size for the valid rows'
// Parquet file, 0 (the engine's default) when the statement returns no row, fails, or the size
// takes no more batches as they come than the default does.
func rowGroupSize(ctx context.Context, b Backend, query string) int64 {
	var size, batches, byDefault int64
	if err := queryRow(ctx, b, query, nil, &size, &batches, &byDefault); err != nil {
		return 0 // also when no size lies within the bounds
	}
	if batches <= byDefault {
		return 0
	}
	return size
}

// rowsJSON runs a query whose single column is a JSON text per row.
func rowsJSON(ctx context.Context, b Backend, query string) ([]json.RawMessage, error) {
	texts, err := column[string](ctx, b, query)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(texts))
	for i, text := range texts {
		out[i] = json.RawMessage(sanitizeJSON(text))
	}
	return out, nil
}

// queryRow runs a query for its first row, scanned into dest.
func queryRow(ctx context.Context, b Backend, query string, args []any, dest ...any) error {
	rows, err := b.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return gosql.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	return rows.Close()
}

// column reads the single column of a query's rows.
func column[T any](ctx context.Context, b Backend, query string) ([]T, error) {
	rows, err := b.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// sanitizeJSON quotes the NaN and Infinity tokens an engine's to_json writes for floats (DuckDB
// does), which are not JSON.
func sanitizeJSON(s string) string {
	if json.Valid([]byte(s)) {
		return s
	}
	var b strings.Builder
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == '"' {
				inString = false
			}
			continue
		}
		matched := false
		for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
			if strings.HasPrefix(s[i:], tok) {
				b.WriteString(`"` + tok + `"`)
				i += len(tok) - 1
				matched = true
				break
			}
		}
		if !matched {
			if c == '"' {
				inString = true
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Prepared is a run's program with what it was built from: the input's probes as they ran, and
// the relation and facts they completed. Open, which the backend fills when it explains, are
// the statements that opened the input and checked it (compile.Opening's Steps).
type Prepared struct {
	Rel     compile.Relation
	Facts   compile.Facts
	Open    []compile.Step
	Probes  []compile.Step
	Program *compile.Program
}

// Prepare runs the input's probes and builds the program from the facts they read: the
// statements Execute runs. A failed probe is a *StepError.
func Prepare(ctx context.Context, b Backend, a Job, rel compile.Relation) (*Prepared, error) {
	rel, f, probes, err := probeWith(ctx, b, rel, a.Plan.Probes(rel))
	if err != nil {
		return nil, err
	}
	return &Prepared{Rel: rel, Facts: f, Probes: probes, Program: a.Plan.Program(rel, f, a.Program)}, nil
}

// String is every statement of the run, as `explain` prints it: those that opened the input,
// the probes, then the program (its writes and cleanup included).
func (p *Prepared) String() string {
	return compile.Listing(slices.Concat(p.Open, p.Probes, p.Program.Steps()))
}
