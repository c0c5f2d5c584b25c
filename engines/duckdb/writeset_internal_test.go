package duckdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/sql"
)

// setMember is a member's output and the rows a run writes to it: valid ones, and invalid ones
// ("" none: the run removes an older quarantine, keeping it as .prev).
type setMember struct {
	out            runner.ParquetOutput
	valid, invalid string
}

// stopped is the crash a test's crash point raises: the writes stop there, as if killed.
type stopped struct{}

// writeSetOf writes each member's rows through one write set, as a collection run does: the
// set's locks first, then each member staged on its own run, then every member put in place.
// A crash point that panics with stopped ends it as a kill would: no cleanup runs, only the
// locks are let go (the kernel lets a killed process's locks go).
func writeSetOf(t *testing.T, e *Engine, members []setMember, stage string) (killed bool, err error) {
	t.Helper()
	ctx := context.Background()
	var outs []memberOutput
	for _, m := range members {
		outs = append(outs, memberOutput{Output: m.out, QuarantineName: runner.QuarantineName(m.out.DefaultAssetName())})
	}
	ws, err := lockMembers(ctx, outs)
	if err != nil {
		return false, err
	}
	if stage != "" {
		restore := durable.SetCrashPoint(func(at string) {
			if at == stage {
				panic(stopped{})
			}
		})
		defer restore()
	}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stopped); !ok {
				panic(p)
			}
			ws.unlock()
			killed = true
		}
	}()
	for i, m := range members {
		r, err := e.newRun(ctx)
		require.NoError(t, err)
		defer r.close()
		r.set = ws
		name := outs[i].QuarantineName
		target := targetOf(r, m.out, name, false)
		steps := []compile.Step{{Op: compile.WriteValid, What: "write the valid rows",
			SQL: fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", m.valid, sql.String(target.TableFile))}}
		conds := compile.DropQuarant
		if m.invalid != "" {
			steps = append(steps, compile.Step{Op: compile.WriteInvalid, When: compile.WriteQuarant, What: "write the invalid rows",
				SQL: fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", m.invalid, sql.String(target.QuarantineFile))})
			conds = compile.WriteQuarant
		}
		if _, err := runner.Write(ctx, &backend{r: r}, writerOf(r, m.out, target, name, false), steps, conds); err != nil {
			ws.release()
			return false, err
		}
	}
	err = ws.finish(ctx)
	ws.release()
	return false, err
}

func newSetEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := Open(Config{Threads: 2})
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	return e
}

// setOutputs is three members in two folders: orders and items beside each other, refunds in
// another folder.
func setOutputs(t *testing.T) []runner.ParquetOutput {
	a, b := t.TempDir(), t.TempDir()
	return []runner.ParquetOutput{{Path: filepath.Join(a, "orders.parquet")}, {Path: filepath.Join(a, "items.parquet")}, {Path: filepath.Join(b, "refunds.parquet")}}
}

// previousRun and nextRun are the members' rows written by two runs: the previous one
// quarantines rows of every member; the next one has no invalid orders (their older quarantine
// is kept as .prev), new invalid items, and refunds all valid.
func previousRun(outs []runner.ParquetOutput) []setMember {
	return []setMember{
		{outs[0], "SELECT 'old' AS run, range AS id FROM range(10)", "SELECT 'old' AS run, -1 AS id"},
		{outs[1], "SELECT 'old' AS run, range AS id FROM range(20)", "SELECT 'old' AS run, -2 AS id"},
		{outs[2], "SELECT 'old' AS run, range AS id FROM range(5)", "SELECT 'old' AS run, -3 AS id"},
	}
}

func nextRun(outs []runner.ParquetOutput) []setMember {
	return []setMember{
		{outs[0], "SELECT 'new' AS run, range AS id FROM range(11)", ""},
		{outs[1], "SELECT 'new' AS run, range AS id FROM range(21)", "SELECT 'new' AS run, -20 AS id"},
		{outs[2], "SELECT 'new' AS run, range AS id FROM range(6)", ""},
	}
}

// setState reads every member's table and quarantine (and kept .prev) as "run:rows", and
// lists what else is in their folders.
func setState(t *testing.T, e *Engine, outs []runner.ParquetOutput) (state []string, others []string) {
	t.Helper()
	read := func(path string) string {
		if _, err := os.Stat(path); err != nil {
			return "absent"
		}
		var run string
		var n int64
		require.NoError(t, e.DB().QueryRow("SELECT min(run) || CASE WHEN min(run) = max(run) THEN '' ELSE '+mixed' END, count(*) FROM read_parquet("+sql.String(path)+")").Scan(&run, &n))
		return fmt.Sprintf("%s:%d", run, n)
	}
	dirs := map[string]bool{}
	for _, o := range outs {
		q := o.QuarantineAddress(runner.QuarantineName(o.DefaultAssetName()))
		state = append(state, read(o.Path), read(q), read(durable.PrevPath(q)))
		dirs[filepath.Dir(o.Path)] = true
	}
	for dir := range dirs {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, en := range entries {
			if !strings.HasSuffix(en.Name(), ".parquet") {
				others = append(others, en.Name())
			}
		}
	}
	return state, others
}

var (
	previousState = []string{"old:10", "old:1", "absent", "old:20", "old:1", "absent", "old:5", "old:1", "absent"}
	nextState     = []string{"new:11", "absent", "old:1", "new:21", "new:1", "absent", "new:6", "absent", "old:1"}
)

// TestWriteSetPutsEveryMemberInPlace: a set of three members in two folders writes every
// member's table and quarantine (an older quarantine that the run would lose kept as .prev),
// and leaves no temporary, journal, pointer or lock file.
func TestWriteSetPutsEveryMemberInPlace(t *testing.T) {
	e := newSetEngine(t)
	outs := setOutputs(t)
	_, err := writeSetOf(t, e, previousRun(outs), "")
	require.NoError(t, err)
	state, others := setState(t, e, outs)
	assert.Equal(t, previousState, state)
	assert.Empty(t, others)
	_, err = writeSetOf(t, e, nextRun(outs), "")
	require.NoError(t, err)
	state, others = setState(t, e, outs)
	assert.Equal(t, nextState, state)
	assert.Empty(t, others)
}

// TestWriteSetKilledAtEveryStage: a set killed at a step of its write leaves every member's
// previous files or every member's new ones once the next run touching ANY single member has
// recovered it (duckdb.RecoverOutput, which a single-table run does too); no temporary, journal or
// pointer is left after every member was touched. The quick loop kills it once before its journal
// decides the set (after the files are flushed) and once after (the journal written), recovered
// from the first member; TestSlowWriteSetKilledAtEveryStage every other step (after the kept
// links, after each member's pointer, after each rename, after the journal's removal) and member.
func TestWriteSetKilledAtEveryStage(t *testing.T) {
	killSetAt(t, quickSetKill)
}

// TestSlowWriteSetKilledAtEveryStage is TestWriteSetKilledAtEveryStage's sweep over every other
// step and every member recovering first.
func TestSlowWriteSetKilledAtEveryStage(t *testing.T) {
	testenv.Slow(t)
	killSetAt(t, func(stage string, first int) bool { return !quickSetKill(stage, first) })
}

func quickSetKill(stage string, first int) bool {
	return first == 0 && (stage == "outputs flushed" || stage == "set journal written")
}

// killSetAt kills a set's write at each of its steps that pick selects (with the member whose
// recovery comes first), and checks what the recovery leaves.
func killSetAt(t *testing.T, pick func(stage string, first int) bool) {
	var all []string
	func() {
		restore := durable.SetCrashPoint(func(at string) { all = append(all, at) })
		defer restore()
		e := newSetEngine(t)
		outs := setOutputs(t)
		_, err := writeSetOf(t, e, previousRun(outs), "")
		require.NoError(t, err)
		all = nil
		_, err = writeSetOf(t, e, nextRun(outs), "")
		require.NoError(t, err)
	}()
	require.Contains(t, all, "set journal written")
	require.Equal(t, "outputs flushed", all[0])
	decided := false
	for _, stage := range all {
		decided = decided || stage == "set journal written"
		for first := range 3 {
			if !pick(stage, first) {
				continue
			}
			t.Run(fmt.Sprintf("%s, then member %d", stage, first), func(t *testing.T) {
				e := newSetEngine(t)
				outs := setOutputs(t)
				_, err := writeSetOf(t, e, previousRun(outs), "")
				require.NoError(t, err)
				killed, err := writeSetOf(t, e, nextRun(outs), stage)
				require.NoError(t, err)
				require.True(t, killed)
				require.NoError(t, RecoverOutput(context.Background(), outs[first]))
				want := previousState
				if decided {
					want = nextState
				}
				state, _ := setState(t, e, outs)
				assert.Equal(t, want, state, "every member's previous files, or every member's new ones")
				for _, o := range outs {
					require.NoError(t, RecoverOutput(context.Background(), o))
				}
				state, others := setState(t, e, outs)
				assert.Equal(t, want, state)
				assert.Empty(t, others, "no temporary, journal, pointer or lock")
			})
		}
	}
}

// TestWriteSetRefused: a set no one commit covers (Parquet beside a DuckDB table; tables in two
// database files) and two members writing one file are refused before anything is locked or
// written, with what to do.
func TestWriteSetRefused(t *testing.T) {
	dir := t.TempDir()
	pq := runner.ParquetOutput{Path: filepath.Join(dir, "orders.parquet")}
	for _, tc := range []struct {
		name string
		outs []memberOutput
		want string
	}{
		{"parquet and a table", []memberOutput{{pq, "orders_quarantine"}, {runner.TableOutput{File: filepath.Join(dir, "wh.duckdb"), Table: "items"}, "items_quarantine"}},
			"cannot be written all or nothing: Parquet files are put in place by renames and DuckDB tables by a transaction"},
		{"two database files", []memberOutput{{runner.TableOutput{File: filepath.Join(dir, "a.duckdb"), Table: "orders"}, "orders_quarantine"},
			{runner.TableOutput{File: filepath.Join(dir, "b.duckdb"), Table: "items"}, "items_quarantine"}},
			"write every member's table to one database file"},
		{"one table twice", []memberOutput{{pq, "orders_quarantine"}, {pq, "items_quarantine"}}, "both write " + pq.Path},
		{"a table as another's quarantine", []memberOutput{{pq, "orders_quarantine"}, {runner.ParquetOutput{Path: filepath.Join(dir, "items.parquet")}, "orders"}},
			"both write " + pq.Path},
		{"one DuckDB table twice, in another case", []memberOutput{{runner.TableOutput{Table: "Orders"}, "a_quarantine"}, {runner.TableOutput{Table: "orders"}, "b_quarantine"}},
			"both write"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, err := lockMembers(context.Background(), tc.outs)
			require.Error(t, err)
			assert.Nil(t, ws)
			assert.Contains(t, err.Error(), tc.want)
			entries, rerr := os.ReadDir(dir)
			require.NoError(t, rerr)
			assert.Empty(t, entries, "nothing locked or written")
		})
	}
	var refused *SetRefusedError
	_, err := lockMembers(context.Background(), []memberOutput{{pq, "q"}, {runner.TableOutput{Table: "t"}, "tq"}})
	assert.ErrorAs(t, err, &refused)
}

// TestWriteSetRenameFailureWritesNoMember: when a member's rename fails after others were done
// (its temporary is gone), every member's rename is undone: the previous files of every member
// are in place, the error says the set was rolled back, and no temporary is left.
func TestWriteSetRenameFailureWritesNoMember(t *testing.T) {
	e := newSetEngine(t)
	outs := setOutputs(t)
	_, err := writeSetOf(t, e, previousRun(outs), "")
	require.NoError(t, err)
	tempOf := regexp.MustCompile(`^\.refunds\.parquet\.tablegate-\d+-\d+-table\.tmp$`)
	restore := durable.SetCrashPoint(func(at string) {
		if at == "set renamed 1 1" {
			entries, err := os.ReadDir(filepath.Dir(outs[2].Path))
			require.NoError(t, err)
			for _, en := range entries {
				if tempOf.MatchString(en.Name()) {
					require.NoError(t, os.Remove(filepath.Join(filepath.Dir(outs[2].Path), en.Name())))
				}
			}
		}
	})
	defer restore()
	_, err = writeSetOf(t, e, nextRun(outs), "")
	var rb *durable.RolledBackError
	require.ErrorAs(t, err, &rb)
	assert.Contains(t, err.Error(), "the previous files are in place")
	state, others := setState(t, e, outs)
	assert.Equal(t, previousState, state)
	assert.Empty(t, others)
}

// writeTablesSet writes each query to its table of one database file through one write set,
// every member on a run of its own on one connection, as a collection run does; a query that
// fails fails the set.
func writeTablesSet(t *testing.T, e *Engine, file string, queries map[string]string, order []string) error {
	t.Helper()
	ctx := context.Background()
	var outs []memberOutput
	for _, name := range order {
		outs = append(outs, memberOutput{Output: runner.TableOutput{File: file, Table: name}, QuarantineName: name + "_quarantine"})
	}
	ws, err := lockMembers(ctx, outs)
	if err != nil {
		return err
	}
	defer ws.release()
	root, err := e.newRun(ctx)
	require.NoError(t, err)
	defer root.close()
	root.setTables = map[string]setTable{}
	for i, name := range order {
		r := e.sibling(root)
		defer r.close()
		r.set = ws
		out := outs[i].Output
		target := targetOf(r, out, outs[i].QuarantineName, false)
		prog := compile.WriteProgram(queries[name], sinkOf(out), target)
		if _, err := runner.Write(ctx, &backend{r: r}, writerOf(r, out, target, outs[i].QuarantineName, false), prog.Steps(), 0); err != nil {
			return err
		}
	}
	return ws.finish(ctx)
}

// TestWriteSetTablesInOneTransaction: members writing tables of one database file write in one
// transaction: all new tables after the commit; a member whose write fails leaves every
// member's previous table (those written before it are rolled back too), and the file is
// usable by the next set.
func TestWriteSetTablesInOneTransaction(t *testing.T) {
	e := newSetEngine(t)
	file := filepath.Join(t.TempDir(), "wh.duckdb")
	order := []string{"orders", "items", "refunds"}
	read := func() []string {
		var got []string
		for _, name := range order {
			var n int64
			var run string
			require.NoError(t, e.DB().QueryRow(fmt.Sprintf("SELECT count(*), min(run) FROM %s.main.%s", "wh", sql.Ident(name))).Scan(&n, &run))
			got = append(got, fmt.Sprintf("%s:%d", run, n))
		}
		return got
	}
	attach := func(fn func()) {
		_, err := e.DB().Exec("ATTACH " + sql.String(file) + " AS wh (READ_ONLY)")
		require.NoError(t, err)
		defer func() { _, _ = e.DB().Exec("DETACH wh") }()
		fn()
	}
	old := map[string]string{"orders": "SELECT 'old' AS run FROM range(3)", "items": "SELECT 'old' AS run FROM range(4)", "refunds": "SELECT 'old' AS run FROM range(5)"}
	require.NoError(t, writeTablesSet(t, e, file, old, order))
	attach(func() { assert.Equal(t, []string{"old:3", "old:4", "old:5"}, read()) })

	failing := map[string]string{"orders": "SELECT 'new' AS run FROM range(6)", "items": "SELECT 'new' AS run FROM range(7)", "refunds": "SELECT error('the disk is full')"}
	err := writeTablesSet(t, e, file, failing, order)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the disk is full")
	attach(func() { assert.Equal(t, []string{"old:3", "old:4", "old:5"}, read(), "no member written") })

	next := map[string]string{"orders": "SELECT 'new' AS run FROM range(6)", "items": "SELECT 'new' AS run FROM range(7)", "refunds": "SELECT 'new' AS run FROM range(8)"}
	require.NoError(t, writeTablesSet(t, e, file, next, order))
	attach(func() { assert.Equal(t, []string{"new:6", "new:7", "new:8"}, read()) })
}
