package durable

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/internal/store"
)

// setFixture is three members in two folders: orders (its previous quarantine becomes .prev:
// an all-valid run), items (a new quarantine and table over previous ones) in one folder, and
// refunds (a table where there was none) in another.
type setFixture struct {
	dirs   [2]string
	tables [3]string
}

func newSetFixture(t *testing.T) *setFixture {
	t.Helper()
	f := &setFixture{dirs: [2]string{t.TempDir(), t.TempDir()}}
	f.tables = [3]string{filepath.Join(f.dirs[0], "orders.parquet"), filepath.Join(f.dirs[0], "items.parquet"), filepath.Join(f.dirs[1], "refunds.parquet")}
	writeFiles(t, f.dirs[0], map[string]string{
		"orders.parquet": "old orders", "orders_quarantine.parquet": "old orders q", ".orders.tmp": "new orders",
		"items.parquet": "old items", "items_quarantine.parquet": "old items q", ".items.tmp": "new items", ".items_q.tmp": "new items q",
	})
	writeFiles(t, f.dirs[1], map[string]string{".refunds.tmp": "new refunds"})
	return f
}

// previous and next are the folders' outputs before and after the set, temporaries aside.
func (f *setFixture) previous() [2]map[string]string {
	return [2]map[string]string{
		{"orders.parquet": "old orders", "orders_quarantine.parquet": "old orders q", "items.parquet": "old items", "items_quarantine.parquet": "old items q"},
		{},
	}
}

func (f *setFixture) next() [2]map[string]string {
	return [2]map[string]string{
		{"orders.parquet": "new orders", "orders_quarantine.prev.parquet": "old orders q", "items.parquet": "new items", "items_quarantine.parquet": "new items q"},
		{"refunds.parquet": "new refunds"},
	}
}

func (f *setFixture) set() *SetSwap {
	orders := Swap{Dir: f.dirs[0]}
	orders.Add("orders_quarantine.parquet", "orders_quarantine.prev.parquet")
	orders.Add(".orders.tmp", "orders.parquet")
	items := Swap{Dir: f.dirs[0]}
	items.Add(".items_q.tmp", "items_quarantine.parquet")
	items.Add(".items.tmp", "items.parquet")
	refunds := Swap{Dir: f.dirs[1]}
	refunds.Add(".refunds.tmp", "refunds.parquet")
	return &SetSwap{Members: []SetMember{{Table: f.tables[0], Swap: orders}, {Table: f.tables[1], Swap: items}, {Table: f.tables[2], Swap: refunds}}}
}

// keepName names a member's kept file as a temporary of its table.
func keepName(f *setFixture) func(m, step int) string {
	return func(m, step int) string {
		return fmt.Sprintf(".%s.tablegate-keep%d.tmp", filepath.Base(f.tables[m]), step)
	}
}

// outputs is the folders' files but the temporaries (hidden *.tmp names, which a table's
// cleanup removes); journals and pointers are among them.
func (f *setFixture) outputs(t *testing.T) [2]map[string]string {
	t.Helper()
	var out [2]map[string]string
	for i, dir := range f.dirs {
		out[i] = folder(t, dir)
		for name := range out[i] {
			if strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp") {
				delete(out[i], name)
			}
		}
	}
	return out
}

// killed is the crash a test's crash point raises: the run stops there, as if killed, with
// nothing of it running after (the swap's code defers nothing).
type killed struct{ stage string }

// stopAt runs fn, stopped at stage ("" never) as if killed there.
func stopAt(stage string, fn func() error) (stopped bool, err error) {
	restore := SetCrashPoint(func(at string) {
		if at == stage {
			panic(killed{at})
		}
	})
	defer restore()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(killed); !ok {
				panic(r)
			}
			stopped = true
		}
	}()
	return false, fn()
}

// runSet commits and applies the set, stopped at stage.
func runSet(s *SetSwap, keep func(m, step int) string, stage string) (bool, error) {
	return stopAt(stage, func() error {
		if err := s.Commit(keep); err != nil {
			return err
		}
		return s.Apply()
	})
}

// stages are the crash points a complete set passes, in order.
func stages(t *testing.T) []string {
	t.Helper()
	f := newSetFixture(t)
	var seen []string
	restore := SetCrashPoint(func(at string) { seen = append(seen, at) })
	defer restore()
	s := f.set()
	require.NoError(t, s.Commit(keepName(f)))
	require.NoError(t, s.Apply())
	assert.Equal(t, f.next(), f.outputs(t))
	return seen
}

// recoverMember recovers the set from one member, as a run writing that member does: it reads
// which members the set has, and completes or rolls back the whole set.
func recoverMember(t *testing.T, f *setFixture, m int) error {
	t.Helper()
	members, err := SetMembers(f.tables[m])
	require.NoError(t, err)
	if members != nil {
		assert.Contains(t, members, f.tables[m])
		assert.Len(t, members, 3, "the set's journal names every member")
	}
	return RecoverSwap(f.tables[m])
}

// TestSetKilledAtEveryStage: a set of three members (two folders, a kept previous quarantine, a
// new table where there was none) stopped at each of its steps leaves, once the next run that
// touches ANY one member has recovered, every member's previous files or every member's new
// ones, never a mix; the other members' recoveries then find nothing to do, and no journal or
// pointer is left.
func TestSetKilledAtEveryStage(t *testing.T) {
	all := stages(t)
	require.Equal(t, []string{"set kept", "set pointer 1 written", "set pointer 2 written", "set journal written",
		"set renamed 0 0", "set renamed 0 1", "set renamed 1 0", "set renamed 1 1", "set renamed 2 0", "set journal removed"}, all)
	decided := false
	for _, stage := range all {
		decided = decided || stage == "set journal written"
		for first := range 3 {
			t.Run(fmt.Sprintf("%s, then member %d", stage, first), func(t *testing.T) {
				f := newSetFixture(t)
				stopped, err := runSet(f.set(), keepName(f), stage)
				require.NoError(t, err)
				require.True(t, stopped)
				require.NoError(t, recoverMember(t, f, first))
				want := f.previous()
				if decided {
					want = f.next()
				}
				got := f.outputs(t)
				// Pointers of members not touched yet may remain; the outputs are already one set's.
				for i := range got {
					for name := range got[i] {
						if strings.HasSuffix(name, ".tablegate-journal") {
							delete(got[i], name)
						}
					}
				}
				assert.Equal(t, want, got, "every member's previous files, or every member's new ones")
				for m := range 3 {
					require.NoError(t, recoverMember(t, f, m))
				}
				assert.Equal(t, want, f.outputs(t), "no journal or pointer left")
			})
		}
	}
}

// TestSetRolledBackWhenARenameFails: a rename of the last member that fails (its source is gone)
// undoes the renames of every member, puts each replaced file back, and removes the journal, the
// pointers and the kept links.
func TestSetRolledBackWhenARenameFails(t *testing.T) {
	f := newSetFixture(t)
	s := f.set()
	require.NoError(t, s.Commit(keepName(f)))
	require.NoError(t, os.Remove(filepath.Join(f.dirs[1], ".refunds.tmp")))
	err := s.Apply()
	var rb *RolledBackError
	require.ErrorAs(t, err, &rb)
	assert.ErrorIs(t, err, os.ErrNotExist)
	want := f.previous()
	assert.Equal(t, want, f.outputs(t))
	assert.NotContains(t, folder(t, f.dirs[0]), ".orders.parquet.tablegate-keep1.tmp", "the kept links are removed")
}

// TestSetRollbackKilledIsCompletedByRecovery: a set whose rename failed, killed while it rolled
// back, still has its journal: the next run tries to complete it, fails on the same rename, and
// rolls the whole set back, saying so; all previous files are in place.
func TestSetRollbackKilledIsCompletedByRecovery(t *testing.T) {
	for _, stage := range []string{"set undone 1 1", "set undone 1 0", "set undone 0 0"} {
		t.Run(stage, func(t *testing.T) {
			f := newSetFixture(t)
			s := f.set()
			require.NoError(t, s.Commit(keepName(f)))
			require.NoError(t, os.Remove(filepath.Join(f.dirs[1], ".refunds.tmp")))
			stopped, _ := stopAt(stage, s.Apply)
			require.True(t, stopped)
			err := recoverMember(t, f, 2)
			var rb *RolledBackError
			require.ErrorAs(t, err, &rb)
			assert.Contains(t, err.Error(), "could not be completed")
			assert.Equal(t, f.previous(), f.outputs(t))
		})
	}
}

// TestSetCheckRefusesBeforeRecording: two members writing one file, a member whose target is a
// folder, a member with an unfinished swap of its own, and one table named twice are refused
// before anything is kept, recorded or renamed.
func TestSetCheckRefusesBeforeRecording(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(f *setFixture, s *SetSwap)
		want  string
		as    any
	}{
		{"one member's quarantine is another's table", func(f *setFixture, s *SetSwap) {
			s.Members[1].Swap.Steps[0].To = "orders.parquet"
		}, "both write " + filepath.Join("DIR0", "orders.parquet"), new(*SharedTargetError)},
		{"a table named twice", func(f *setFixture, s *SetSwap) {
			s.Members[2].Table = f.tables[0]
		}, "both write", new(*SharedTargetError)},
		{"a target that is a folder", func(f *setFixture, s *SetSwap) {
			require.NoError(t, os.Mkdir(filepath.Join(f.dirs[1], "refunds.parquet"), 0o755))
		}, "is a directory, not a regular file", nil},
		{"an unfinished swap", func(f *setFixture, s *SetSwap) {
			require.NoError(t, os.WriteFile(JournalPath(f.tables[1]), []byte(`[]`), 0o644))
		}, "must be completed", new(*PendingSwapError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newSetFixture(t)
			s := f.set()
			tc.setup(f, s)
			before := [2]map[string]string{folder(t, f.dirs[0]), folder(t, f.dirs[1])}
			err := s.Commit(keepName(f))
			require.Error(t, err)
			assert.Contains(t, err.Error(), strings.ReplaceAll(tc.want, "DIR0", f.dirs[0]))
			if tc.as != nil {
				assert.ErrorAs(t, err, tc.as)
			}
			assert.Equal(t, before, [2]map[string]string{folder(t, f.dirs[0]), folder(t, f.dirs[1])}, "nothing changed")
		})
	}
}

// TestStaleSetPointerIsRemoved: a pointer whose journal is gone, or is another set's, or a
// single table's, is left by a set completed (or never decided): recovering its member removes
// it and touches nothing else; SetMembers names no set.
func TestStaleSetPointerIsRemoved(t *testing.T) {
	for name, journal := range map[string]string{
		"no journal":       "",
		"another set's":    `{"set":"other","members":[{"table":"/x/t.parquet","steps":[{"from":"a","to":"b"}]}]}`,
		"a single table's": `[{"from":"a","to":"b"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newSetFixture(t)
			if journal != "" {
				require.NoError(t, os.WriteFile(JournalPath(f.tables[0]), []byte(journal), 0o644))
			}
			data, err := json.Marshal(setRecord{Set: "mine", Journal: JournalPath(f.tables[0])})
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(JournalPath(f.tables[2]), data, 0o644))
			members, err := SetMembers(f.tables[2])
			require.NoError(t, err)
			assert.Nil(t, members)
			require.NoError(t, RecoverSwap(f.tables[2]))
			assert.NoFileExists(t, JournalPath(f.tables[2]))
			assert.Equal(t, map[string]string{".refunds.tmp": "new refunds"}, folder(t, f.dirs[1]))
		})
	}
}

// TestUnreadableSetJournalIsReported: a set journal that is not valid JSON, or names a relative
// table, stops recovery with a message saying what to check.
func TestUnreadableSetJournalIsReported(t *testing.T) {
	for name, journal := range map[string]string{
		"truncated":      `{"set":"x","members":[{"tab`,
		"relative table": `{"set":"x","members":[{"table":"t.parquet","steps":[{"from":"a","to":"b"}]}]}`,
		"a step's path":  `{"set":"x","members":[{"table":"/t.parquet","steps":[{"from":"../a","to":"b"}]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newSetFixture(t)
			require.NoError(t, os.WriteFile(JournalPath(f.tables[0]), []byte(journal), 0o644))
			err := RecoverSwap(f.tables[0])
			require.Error(t, err)
			assert.Contains(t, err.Error(), "cannot be read")
			assert.Contains(t, err.Error(), "check the outputs of its members, then remove it")
		})
	}
}

// TestLockAllInAnyOrderNeverDeadlocks: runs locking overlapping sets named in opposite orders
// take turns and all finish.
func TestLockAllInAnyOrderNeverDeadlocks(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, ".a.lock"), filepath.Join(dir, ".b.lock"), filepath.Join(dir, ".c.lock")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	holders := 0
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			order := [][]string{{a, b, c}, {c, b, a}, {b, c}, {c, a}}[i%4]
			for range 10 {
				unlock, err := LockAll(ctx, order)
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				holders++
				mu.Unlock()
				unlock()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 120, holders)
	assert.NoError(t, ctx.Err(), "no deadlock")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "every lock file is removed when let go")
}

// TestEmptySetIsNoOp: a collection run with no outputs (the check after `sample --collection`)
// commits and applies a set of no members; it must write nothing and not fail.
func TestEmptySetIsNoOp(t *testing.T) {
	var s SetSwap
	require.NoError(t, s.Commit(func(int, int) string { return "" }))
	require.NoError(t, s.Apply())
	assert.Empty(t, s.Members)
}

// TestLocalRecoversTheWholeSet: the local store of any member of a collection's decided set of
// swaps (a DuckDB Parquet file, or a Spark directory beside it) completes the whole set when it
// takes its lock, under every member's lock, and reports nothing rolled back.
func TestLocalRecoversTheWholeSet(t *testing.T) {
	for m := range 3 {
		f := newSetFixture(t)
		stopped, err := runSet(f.set(), keepName(f), "set journal written")
		require.NoError(t, err)
		require.True(t, stopped)
		rolledBack, err := store.Recover(context.Background(), &Local{Table: f.tables[m], Dirs: m == 2})
		require.NoError(t, err)
		assert.NoError(t, rolledBack)
		for i := range 3 {
			_, err := os.Lstat(JournalPath(f.tables[i]))
			assert.ErrorIs(t, err, os.ErrNotExist, "no journal or pointer left beside member %d", i)
		}
		assert.Equal(t, f.next(), f.outputs(t), "every member's new files, recovered from member %d", m)
	}
}

// TestLocalReportsARollback: a recorded swap that cannot complete is rolled back by Recover, which
// says so with a *RolledBackError (a warning: the output may be written); LockRecovered, which a
// writer calls, takes it as done.
func TestLocalReportsARollback(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("q", NameMax(dir)+1) + ".parquet"
	writeFiles(t, dir, map[string]string{"t.parquet": "old table", "q.tmp": "new quarantine", "t.tmp": "new table"})
	table := filepath.Join(dir, "t.parquet")
	data, err := json.Marshal([]rename{{From: "q.tmp", To: long}, {From: "t.tmp", To: "t.parquet"}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(JournalPath(table), data, 0o644))

	rolledBack, err := store.Recover(context.Background(), &Local{Table: table})
	require.NoError(t, err)
	var rb *RolledBackError
	require.ErrorAs(t, rolledBack, &rb)
	assert.Equal(t, map[string]string{"t.parquet": "old table", "q.tmp": "new quarantine", "t.tmp": "new table"}, folder(t, dir), "the previous table")

	require.NoError(t, os.WriteFile(JournalPath(table), data, 0o644))
	unlock, err := store.LockRecovered(context.Background(), &Local{Table: table})
	require.NoError(t, err)
	unlock()
}

// TestLocalCheck: a table, quarantine or kept quarantine of the wrong kind, and a table name whose
// temporaries would pass the folder's limit, are refused before anything is written; a Spark
// output's folder is made.
func TestLocalCheck(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "t.parquet"), 0o755))
	assert.ErrorContains(t, (&Local{Table: filepath.Join(dir, "t.parquet")}).Check(ctx), "not a regular file")
	assert.NoError(t, (&Local{Table: filepath.Join(dir, "t.parquet"), Dirs: true}).Check(ctx))
	writeFiles(t, dir, map[string]string{"q.prev.parquet": "a file"})
	assert.ErrorContains(t, (&Local{Table: filepath.Join(dir, "t.parquet"), Quarantine: filepath.Join(dir, "q.parquet"), Dirs: true}).Check(ctx), "not a directory")

	long := strings.Repeat("t", NameMax(dir)-len(".parquet")) + ".parquet"
	for _, dirs := range []bool{false, true} {
		err := (&Local{Table: filepath.Join(dir, "new", long), Dirs: dirs}).Check(ctx)
		var tooLong *NameTooLongError
		assert.ErrorAs(t, err, &tooLong)
		assert.ErrorContains(t, err, "use a shorter table name")
	}
	_, err := os.Stat(filepath.Join(dir, "new"))
	assert.NoError(t, err, "a Spark output's folder is made")
}
