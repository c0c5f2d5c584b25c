package durable

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/outcome"
)

// A SetSwap is the swaps of several tables (a collection's members, each with its quarantine and
// kept previous quarantine) decided as one: a run killed at any moment leaves every member's
// previous files, or every member's new ones, once the next run touching any member recovered.
//
// Its journal lies beside the first member's table (at its JournalPath) and lists every member's
// renames. Beside each other member's table, at its JournalPath, lies a pointer to that journal,
// written and flushed before the journal: the journal is the moment the set is decided, and its
// rename into place is one step. The next run that touches any member finds the journal, or a
// pointer to it, and completes the whole set (RecoverSwap) before anything else; a pointer whose
// journal is not there (or is another set's) is left by a set never decided, which renamed
// nothing, or by one completed, and is removed.
//
// The caller holds the lock of every member's table (LockAll) from before Commit until Apply
// returns, and recovers every member (RecoverSwap) before it builds the set: no member may have
// a journal or a pointer of its own when the set is committed.
type SetSwap struct {
	Members []SetMember
	id      string
}

// SetMember is one member's swap; Table is its table's path (the swap's folder is the table's),
// beside which its journal or its pointer to the set's journal lies.
type SetMember struct {
	Table string
	Swap  Swap
}

// setRecord is a set's journal (Members) or a member's pointer to it (Journal), as JSON; a
// single table's journal is a JSON array of renames instead.
type setRecord struct {
	Set     string         `json:"set"`
	Journal string         `json:"journal,omitempty"`
	Members []memberRecord `json:"members,omitempty"`
}

type memberRecord struct {
	Table string   `json:"table"`
	Steps []rename `json:"steps"`
}

// SharedTargetError is a file that two members of a set would both write or both move away
// (one member's table named as another's quarantine, say).
type SharedTargetError struct {
	Path string
	// Members are the two members' tables.
	Members [2]string
}

func (e *SharedTargetError) Error() string {
	return fmt.Sprintf("the outputs of %s and %s both write %s: give each member its own table and quarantine", e.Members[0], e.Members[1], e.Path)
}

// PendingSwapError is a member that still has a journal or a pointer of its own when a set is
// committed: the caller did not recover it.
type PendingSwapError struct{ Journal string }

func (e *PendingSwapError) Error() string {
	return fmt.Sprintf("the unfinished swap %s must be completed (RecoverSwap) before the set is written", e.Journal)
}

// Check refuses a set that cannot complete, before anything is kept, recorded or renamed: a
// member's swap that its own Check refuses, two members writing or moving the same file, a
// member with an unfinished swap of its own.
func (s *SetSwap) Check() error {
	if err := s.absolute(); err != nil {
		return err
	}
	writers := map[string]string{} // a file the set writes or moves away -> the member's table
	for _, m := range s.Members {
		if err := m.Swap.Check(); err != nil {
			return err
		}
		journal := JournalPath(m.Table)
		if _, err := os.Lstat(journal); err == nil {
			return &PendingSwapError{Journal: journal}
		}
		if n, limit := fmt.Sprintf("%s-%d.tmp", filepath.Base(journal), math.MaxInt32), NameMax(m.Swap.Dir); len(n) > limit {
			return &NameTooLongError{Dir: m.Swap.Dir, Name: n, Max: limit}
		}
		touched := map[string]bool{}
		for _, st := range m.Swap.Steps {
			for _, n := range []string{st.From, st.To} {
				p := filepath.Join(m.Swap.Dir, n)
				if other, ok := writers[p]; ok && other != m.Table {
					return &SharedTargetError{Path: p, Members: [2]string{other, m.Table}}
				}
				touched[p] = true
			}
		}
		for p := range touched {
			writers[p] = m.Table
		}
	}
	return nil
}

// absolute makes every member's table an absolute path and its swap's folder the table's: the
// pointers name the journal by an absolute path, so that a run started in another working
// directory finds it.
func (s *SetSwap) absolute() error {
	seen := map[string]bool{}
	for i := range s.Members {
		m := &s.Members[i]
		abs, err := filepath.Abs(m.Table)
		if err != nil {
			return err
		}
		if seen[abs] {
			return &SharedTargetError{Path: abs, Members: [2]string{abs, abs}}
		}
		seen[abs] = true
		m.Table = abs
		m.Swap.Dir = filepath.Dir(abs)
	}
	return nil
}

// Commit checks the set (Check), keeps a hard link to each file it replaces (keep names the
// link of a member's step: a temporary of that member's table, which its cleanup removes),
// writes and flushes the pointers beside every member but the first, then writes and flushes the
// journal beside the first: from then on the set is decided. When any of it fails, what was
// written is removed and nothing was renamed.
func (s *SetSwap) Commit(keep func(member, step int) string) error {
	if len(s.Members) == 0 {
		return nil
	}
	if err := s.Check(); err != nil {
		return err
	}
	for i := range s.Members {
		m := &s.Members[i]
		if err := m.Swap.keepReplaced(func(step int) string { return keep(i, step) }); err != nil {
			s.discard()
			return err
		}
	}
	Crash("set kept")
	id := make([]byte, 12)
	if _, err := rand.Read(id); err != nil {
		s.discard()
		return err
	}
	s.id = hex.EncodeToString(id)
	journal := s.journal()
	for i, m := range s.Members[1:] {
		data, err := json.Marshal(setRecord{Set: s.id, Journal: journal})
		if err == nil {
			err = writeSynced(m.Swap.Dir, JournalPath(m.Table), data)
		}
		if err != nil {
			s.discard()
			return fmt.Errorf("write the set's journal: %w", err)
		}
		Crash(fmt.Sprintf("set pointer %d written", i+1))
	}
	rec := setRecord{Set: s.id}
	for _, m := range s.Members {
		rec.Members = append(rec.Members, memberRecord{Table: m.Table, Steps: m.Swap.Steps})
	}
	data, err := json.Marshal(rec)
	if err == nil {
		err = writeSynced(s.Members[0].Swap.Dir, journal, data)
	}
	if err != nil {
		s.discard()
		return fmt.Errorf("write the set's journal: %w", err)
	}
	Crash("set journal written")
	return nil
}

// journal is the set's journal: beside the first member's table.
func (s *SetSwap) journal() string { return JournalPath(s.Members[0].Table) }

// discard removes what an undecided set wrote: the pointers and the keeps.
func (s *SetSwap) discard() {
	for _, m := range s.Members[1:] {
		_ = os.Remove(JournalPath(m.Table))
	}
	for _, m := range s.Members {
		m.Swap.removeKeeps()
	}
}

// Apply does every member's renames, flushes the folders and removes the journal, the pointers
// and the kept files. When a rename fails, every rename done (of any member) is undone and the
// journal removed: the error is a *RolledBackError; if the rollback fails too the journal stays,
// for the next run.
func (s *SetSwap) Apply() error {
	if len(s.Members) == 0 {
		return nil // nothing was committed: no journal to apply
	}
	return s.apply(make([]int, len(s.Members)))
}

// apply does the renames of each member m from step from[m] on.
func (s *SetSwap) apply(from []int) error {
	for m := range s.Members {
		sw := &s.Members[m].Swap
		for i := from[m]; i < len(sw.Steps); i++ {
			if err := sw.do(i); err != nil {
				return s.rollback(m, i, err)
			}
			Crash(fmt.Sprintf("set renamed %d %d", m, i))
		}
	}
	for _, m := range s.Members {
		if err := SyncDir(m.Swap.Dir); err != nil {
			return err
		}
	}
	// The journal goes first: a pointer without its journal is a set done (or never decided).
	if err := os.Remove(s.journal()); err != nil {
		return err
	}
	_ = SyncDir(s.Members[0].Swap.Dir)
	Crash("set journal removed")
	s.discard()
	for _, m := range s.Members {
		_ = SyncDir(m.Swap.Dir)
	}
	return nil
}

// rollback undoes every rename done before member m's step failed, newest first, then removes
// the journal and the pointers.
func (s *SetSwap) rollback(failed, step int, cause error) error {
	done := func(m int) int {
		if m == failed {
			return step
		}
		return len(s.Members[m].Swap.Steps)
	}
	for m := 0; m <= failed; m++ {
		if to := s.Members[m].Swap.notUndoable(done(m)); to != "" {
			return fmt.Errorf("%w; the set cannot be rolled back (the file system keeps no hard link to %s); it stays recorded in %s, which the next run completes or rolls back",
				cause, filepath.Join(s.Members[m].Swap.Dir, to), s.journal())
		}
	}
	for m := failed; m >= 0; m-- {
		sw := &s.Members[m].Swap
		for i := done(m) - 1; i >= 0; i-- {
			if err := sw.undo(i); err != nil {
				return fmt.Errorf("%w; rolling the set back failed too: %w; it stays recorded in %s, which the next run completes or rolls back", cause, err, s.journal())
			}
			Crash(fmt.Sprintf("set undone %d %d", m, i))
		}
	}
	for _, m := range s.Members {
		_ = SyncDir(m.Swap.Dir)
	}
	if err := os.Remove(s.journal()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w; the set was rolled back but its journal %s could not be removed: %w", cause, s.journal(), err)
	}
	_ = SyncDir(s.Members[0].Swap.Dir)
	s.discard()
	return &RolledBackError{Err: cause}
}

// readSetRecord reads a set's journal or pointer at path; nil, nil when there is none.
func readSetRecord(path string) (*setRecord, error) {
	if err := filekind.Regular(path); err != nil {
		return nil, fmt.Errorf("the unfinished swap %s cannot be read: %w; check the outputs beside it, then remove it", path, err)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the unfinished swap %s: %w", path, err)
	}
	if !isSetRecord(data) {
		return nil, nil
	}
	var rec setRecord
	if err := json.Unmarshal(data, &rec); err != nil || !rec.valid() {
		return nil, fmt.Errorf("the unfinished set of swaps %s cannot be read (%d bytes); check the outputs of its members, then remove it", path, len(data))
	}
	return &rec, nil
}

// isSetRecord tells a set's journal or pointer (a JSON object) from a single table's journal (a
// JSON array).
func isSetRecord(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(data), []byte("{"))
}

func (r *setRecord) valid() bool {
	if r.Set == "" || (r.Journal == "") == (len(r.Members) == 0) {
		return false
	}
	if r.Journal != "" {
		return filepath.IsAbs(r.Journal) && r.Journal == filepath.Clean(r.Journal)
	}
	for _, m := range r.Members {
		s := Swap{Steps: m.Steps}
		if !filepath.IsAbs(m.Table) || m.Table != filepath.Clean(m.Table) || !s.valid() {
			return false
		}
	}
	return true
}

// pendingSet is the decided set the table's journal or pointer belongs to, with the path of its
// journal; nil when there is none. A pointer whose journal is not there, or is another set's, is
// stale: stale says so.
func pendingSet(table string) (set *setRecord, journal string, stale bool, err error) {
	rec, err := readSetRecord(JournalPath(table))
	if rec == nil || err != nil {
		return nil, "", false, err
	}
	if rec.Journal == "" {
		return rec, JournalPath(table), false, nil
	}
	set, err = readSetRecord(rec.Journal)
	if err != nil {
		return nil, "", false, err
	}
	if set == nil || set.Set != rec.Set || set.Journal != "" {
		return nil, "", true, nil
	}
	return set, rec.Journal, false, nil
}

// SetMembers is the tables of the decided set that the table's journal or pointer belongs to,
// sorted, the table among them; nil when the table is in no unfinished set. A run locks them all
// (LockAll) before it recovers the table: RecoverSwap completes the whole set.
func SetMembers(table string) ([]string, error) {
	set, _, _, err := pendingSet(table)
	if set == nil || err != nil {
		return nil, err
	}
	var tables []string
	for _, m := range set.Members {
		tables = append(tables, m.Table)
	}
	slices.Sort(tables)
	return tables, nil
}

// recoverSet is RecoverSwap for a table whose journal is a set's journal or a pointer to one:
// the caller holds every member's lock (SetMembers).
func recoverSet(table string) error {
	set, journal, stale, err := pendingSet(table)
	if err != nil {
		return err
	}
	if stale {
		if err := os.Remove(JournalPath(table)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove the finished set's pointer %s: %w", JournalPath(table), err)
		}
		return SyncDir(filepath.Dir(table))
	}
	if set == nil {
		return nil
	}
	s := SetSwap{id: set.Set}
	from := make([]int, len(set.Members))
	for i, m := range set.Members {
		s.Members = append(s.Members, SetMember{Table: m.Table, Swap: Swap{Dir: filepath.Dir(m.Table), Steps: m.Steps}})
		from[i] = s.Members[i].Swap.doneUpTo()
	}
	if s.journal() != journal {
		return fmt.Errorf("the unfinished set of swaps %s names another first member (%s); check the outputs of its members, then remove it", journal, s.Members[0].Table)
	}
	if err := s.apply(from); err != nil {
		var rb *RolledBackError
		if errors.As(err, &rb) {
			return &RolledBackError{Err: fmt.Errorf("the unfinished set of swaps %s could not be completed: %w", journal, rb.Err)}
		}
		return fmt.Errorf("complete the unfinished set of swaps %s: %w", journal, err)
	}
	return nil
}

// LockAll takes LockPath on every path, in sorted order (so that runs locking overlapping sets
// never wait for each other in a circle), and returns what gives them all back. When one cannot
// be taken, those taken are given back.
func LockAll(ctx context.Context, paths []string) (func(), error) {
	sorted := make([]string, 0, len(paths))
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		sorted = append(sorted, abs)
	}
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	var unlocks []func()
	unlock := func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
	}
	for _, p := range sorted {
		u, err := LockPath(ctx, p)
		if err != nil {
			unlock()
			return nil, err
		}
		unlocks = append(unlocks, u)
	}
	return unlock, nil
}

// RecoverAll takes the locks of the tables in sorted order, and of every member of an
// unfinished set of swaps that any of them belongs to, then completes or rolls back their
// unfinished swaps and removes their stale temporaries. rolledBack are the swaps rolled back.
func RecoverAll(ctx context.Context, tables []string) (unlock func(), rolledBack []error, err error) {
	tables = slices.Clone(tables)
	for {
		locks := make([]string, len(tables))
		for i, t := range tables {
			locks[i] = LockFile(t)
		}
		if unlock, err = LockAll(ctx, locks); err != nil {
			return nil, nil, err
		}
		extra, err := setMembersBeyond(tables)
		if err != nil {
			unlock()
			return nil, nil, err
		}
		if len(extra) == 0 {
			break
		}
		// A set that also writes tables outside these: lock them too, in order, from scratch.
		unlock()
		tables = append(tables, extra...)
	}
	for _, t := range tables {
		if err := RecoverSwap(t); err != nil {
			if rb := (*RolledBackError)(nil); !errors.As(err, &rb) {
				unlock()
				return nil, nil, &outcome.OutputError{Output: t, Err: err}
			}
			rolledBack = append(rolledBack, err)
		}
	}
	for _, t := range tables {
		RemoveStale(t)
	}
	return unlock, rolledBack, nil
}

// setMembersBeyond is the members of the unfinished sets of swaps the tables belong to that are
// not among the tables.
func setMembersBeyond(tables []string) ([]string, error) {
	var extra []string
	for _, t := range tables {
		members, err := SetMembers(t)
		if err != nil {
			return nil, &outcome.OutputError{Output: t, Err: err}
		}
		for _, m := range members {
			if !slices.Contains(tables, m) && !slices.Contains(extra, m) {
				extra = append(extra, m)
			}
		}
	}
	return extra, nil
}
