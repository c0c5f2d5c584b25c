package spark

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/tablegate/tablegate/engines/spark/internal/webhdfs"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/store"
)

// HDFSOptions is this process's own access to the HDFS of hdfs:// outputs, through the
// NameNode's REST API (WebHDFS): it checks, renames and deletes the directories Spark wrote, and
// holds the output's lock and journal. Spark reads and writes with its own Hadoop settings.
type HDFSOptions struct {
	// NameNodes are the HTTP addresses (http://NAMENODE:9870, dfs.namenode.http-address) of the
	// NameNode of the outputs' hdfs:// URLs, or of every NameNode of their highly available
	// nameservice (HDFSNameNodes reads them from the Hadoop configuration): a standby or an
	// unreachable one is failed over to the next.
	NameNodes []string
	// User is the HDFS user this process acts as (simple authentication, WebHDFS's user.name):
	// the user the Spark driver writes as, so that it may rename and delete what Spark wrote.
	User string
	// Lease is how long the output's lock lasts without being renewed (default one minute): a
	// run killed while holding it blocks the output's writers that long.
	Lease time.Duration
}

// hdfsStore keeps the output's directories on HDFS (hdfs://AUTHORITY/PATH), whose renames are
// atomic: the local folder's protocol, over WebHDFS. Spark writes each directory into a hidden
// temporary beside the table, named after it and the run (as on a local folder); Commit renames
// each directory it replaces aside, then the temporaries into place, the quarantine's side first.
// A commit of more than one rename is first recorded in a journal beside the table (written
// under a temporary name, then renamed into place: the commit point), which a run killed between
// the renames leaves for the next run to complete (Recover). The lock is a file created only if
// absent (HDFS decides: of two writers, one wins), holding a lease its run renews; a lock whose
// lease ended (its run was killed) is taken over.
type hdfsStore struct {
	c                 *webhdfs.Client
	prefix            string // hdfs://AUTHORITY
	table, quarantine string // paths on HDFS ("" no quarantine)
	dir, base         string // the table's folder and name
	lease             time.Duration
	token             string // this store's lock owner

	mu   sync.Mutex
	lost error // why the lock was lost (taken over after its lease ended)
}

func newHDFSStore(o *HDFSOptions, table, quarantine string) (*hdfsStore, error) {
	if o == nil || len(o.NameNodes) == 0 {
		return nil, fmt.Errorf("the output %s is on HDFS: give the NameNode's WebHDFS address (http://NAMENODE:9870), or HADOOP_CONF_DIR with its nameservice, for this process to put Spark's writes in place", table)
	}
	c, err := webhdfs.New(o.NameNodes, o.User)
	if err != nil {
		return nil, err
	}
	prefix, p, err := splitHDFS(table)
	if err != nil {
		return nil, err
	}
	s := &hdfsStore{c: c, prefix: prefix, table: p, dir: path.Dir(p), base: path.Base(p), lease: o.Lease}
	if quarantine != "" {
		qprefix, q, err := splitHDFS(quarantine)
		if err != nil {
			return nil, err
		}
		if qprefix != prefix || path.Dir(q) != s.dir {
			return nil, fmt.Errorf("the quarantine %s is not beside the table %s", quarantine, table)
		}
		s.quarantine = q
	}
	if s.lease <= 0 {
		s.lease = defaultLease
	}
	if s.token, err = storeToken(); err != nil {
		return nil, err
	}
	return s, nil
}

// normalizeHDFS is an hdfs:// output's address as its store takes it: its path clean, with no
// trailing slash.
func normalizeHDFS(out string) (string, error) {
	prefix, p, err := splitHDFS(out)
	if err != nil {
		return "", err
	}
	return prefix + p, nil
}

// splitHDFS splits hdfs://AUTHORITY/PATH into hdfs://AUTHORITY and /PATH (clean).
func splitHDFS(address string) (prefix, p string, err error) {
	u, err := url.Parse(address)
	if err != nil || u.Scheme != "hdfs" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", "", fmt.Errorf("the output %s: want hdfs://NAMENODE:PORT/PATH", address)
	}
	p = path.Clean(u.Path)
	if !path.IsAbs(p) || p == "/" || u.Path != p && u.Path != p+"/" {
		return "", "", fmt.Errorf("the output %s: want hdfs://NAMENODE:PORT/PATH, a clean absolute path below the root", address)
	}
	return "hdfs://" + u.Host, p, nil
}

func (s *hdfsStore) url(p string) string { return s.prefix + p }

// hdfsPath is the HDFS path of one of the store's URLs.
func (s *hdfsStore) hdfsPath(address string) string { return strings.TrimPrefix(address, s.prefix) }

// beside names a hidden file beside the table; no *.parquet glob matches it.
func (s *hdfsStore) beside(suffix string) string { return path.Join(s.dir, "."+s.base+suffix) }

func (s *hdfsStore) lockPath() string    { return s.beside(".tablegate.lock") }
func (s *hdfsStore) journalPath() string { return s.beside(".tablegate-journal") }

// tempPath is a temporary of the run (a role: table, quarantine, old-table, …), named after the
// store's random token, unique across machines, so that Recover's clean-up finds what a killed
// run left.
func (s *hdfsStore) tempPath(run int64, role string) string {
	return s.beside(fmt.Sprintf(".tablegate-%s-%d-%s.tmp", s.token, run, role))
}

func isTemp(base, name string) bool {
	return strings.HasPrefix(name, "."+base+".tablegate-") && strings.HasSuffix(name, ".tmp")
}

// Check makes the output's folder and writes and deletes a probe file in it: WebHDFS answers,
// and the user may write there.
func (s *hdfsStore) Check(ctx context.Context) error {
	if err := s.c.Mkdirs(ctx, s.dir); err != nil {
		return fmt.Errorf("make the output's folder %s: %w", s.url(s.dir), err)
	}
	probe := s.tempPath(0, "probe")
	if err := s.c.Create(ctx, probe, nil, true); err != nil {
		return fmt.Errorf("the output's folder %s cannot be written: %w", s.url(s.dir), err)
	}
	return s.c.Delete(ctx, probe, false)
}

// Lock creates the lock file if none exists. While another run holds it, it waits, reading it
// again every second; a lock whose lease ended (its run was killed) is taken over: renamed aside
// (of two waiters, one rename wins), checked to be the lock that expired, and deleted, before
// the lock is created again. The lease is renewed every third of it until unlock.
func (s *hdfsStore) Lock(ctx context.Context) (func(), error) {
	host, _ := os.Hostname()
	rec, err := json.Marshal(lockRecord{Owner: s.token, Host: host, PID: os.Getpid(), Started: time.Now().UTC().Format(time.RFC3339),
		LeaseSeconds: s.lease.Seconds()})
	if err != nil {
		return nil, err
	}
	lock := s.lockPath()
	for {
		err := s.c.Create(ctx, lock, rec, false)
		if err == nil {
			return s.held(rec), nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("take the output's lock %s: %w", s.url(lock), err)
		}
		other, until, now, err := s.readLock(ctx, lock)
		if errors.Is(err, fs.ErrNotExist) {
			continue // given back meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("read the output's lock %s: %w", s.url(lock), err)
		}
		if other.Owner == s.token { // a retried create of ours that had succeeded
			return s.held(rec), nil
		}
		if now.After(until) {
			if err := s.takeOver(ctx, lock, other.Owner); err != nil {
				return nil, err
			}
			continue
		}
		select {
		case <-ctx.Done():
			return nil, &LockedError{Output: s.url(s.table), Lock: s.url(lock), Until: until, Err: context.Cause(ctx),
				Holder: fmt.Sprintf("process %d on %s since %s", other.PID, other.Host, other.Started)}
		case <-time.After(time.Second):
		}
	}
}

// readLock reads the lock file: its record, when its lease ends, and the NameNode's clock.
func (s *hdfsStore) readLock(ctx context.Context, lock string) (rec lockRecord, until, now time.Time, err error) {
	st, err := s.c.Status(ctx, lock)
	if err != nil {
		return rec, until, now, err
	}
	data, err := s.c.ReadFile(ctx, lock)
	if err != nil {
		return rec, until, now, err
	}
	if json.Unmarshal(data, &rec) != nil || rec.LeaseSeconds <= 0 {
		// Being written, or not ours: it lasts the default lease from its last write.
		rec = lockRecord{Host: "an unreadable lock", LeaseSeconds: defaultLease.Seconds()}
	}
	until = time.UnixMilli(st.ModificationTime).Add(time.Duration(rec.LeaseSeconds * float64(time.Second)))
	return rec, until, st.Now, nil
}

// takeOver removes the lock whose lease ended, owned by owner ("" an unreadable lock): renamed
// aside, it is deleted once read to be that lock, and put back otherwise (another waiter took it
// over and created its own meanwhile) or when it cannot be read.
func (s *hdfsStore) takeOver(ctx context.Context, lock, owner string) error {
	aside := s.beside(fmt.Sprintf(".tablegate-lock-%s-%s.tmp", owner, s.token))
	if err := s.c.Rename(ctx, lock, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist) {
			return nil // another waiter moved it first
		}
		return fmt.Errorf("take over the output's lock %s: %w", s.url(lock), err)
	}
	data, err := s.c.ReadFile(ctx, aside)
	var rec lockRecord
	if err == nil && (json.Unmarshal(data, &rec) != nil || rec.LeaseSeconds <= 0) {
		rec = lockRecord{} // unreadable, as readLock took it
	}
	if err != nil || rec.Owner != owner {
		// Maybe a fresh lock: its owner keeps it.
		if rerr := s.c.Rename(ctx, aside, lock); rerr != nil {
			return fmt.Errorf("put back the output's lock %s, renamed aside to %s while taking it over: %w; if no run holds it, remove it", s.url(lock), s.url(aside), rerr)
		}
		if err != nil {
			return fmt.Errorf("read the output's lock %s, renamed aside while taking it over (put back): %w", s.url(lock), err)
		}
		return nil
	}
	if err := s.c.Delete(ctx, aside, false); err != nil {
		return fmt.Errorf("take over the output's lock %s: %w", s.url(lock), err)
	}
	return nil
}

// held starts renewing the lock, and returns what gives it back.
func (s *hdfsStore) held(rec []byte) func() {
	s.mu.Lock()
	s.lost = nil
	s.mu.Unlock()
	stop := renewing(s.lease, func(ctx context.Context) { _ = s.renew(ctx, rec) })
	var once sync.Once
	return func() {
		once.Do(func() {
			stop()
			ctx, cancel := context.WithTimeout(context.Background(), abortTimeout)
			defer cancel()
			if s.owned(ctx) == nil {
				_ = s.c.Delete(ctx, s.lockPath(), false) // left: it ends with its lease
			}
		})
	}
}

// owned checks that the lock is still this run's; a lock another run took over (this run's
// lease ended) is lost, and the run puts nothing in place.
func (s *hdfsStore) owned(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost != nil {
		return s.lost
	}
	data, err := s.c.ReadFile(ctx, s.lockPath())
	var rec lockRecord
	if errors.Is(err, fs.ErrNotExist) || err == nil && (json.Unmarshal(data, &rec) != nil || rec.Owner != s.token) {
		s.lost = fmt.Errorf("the output's lock %s was taken over by another run: this run's lease ended before it renewed it", s.url(s.lockPath()))
		return s.lost
	}
	return err
}

// renew rewrites the lock file, which starts its lease again, if it is still this run's.
func (s *hdfsStore) renew(ctx context.Context, rec []byte) error {
	if err := s.owned(ctx); err != nil {
		return err
	}
	return s.c.Create(ctx, s.lockPath(), rec, true)
}

func (s *hdfsStore) Temp(run int64, role string) string { return s.url(s.tempPath(run, role)) }

// Finished checks the temporary's _SUCCESS marker over WebHDFS.
func (s *hdfsStore) Finished(ctx context.Context, tmp string) error {
	marker := path.Join(s.hdfsPath(tmp), "_SUCCESS")
	if _, err := s.c.Status(ctx, marker); err != nil {
		return fmt.Errorf("the write reported success but %s has no _SUCCESS marker: %w (is %s the NameNode of %s?)", tmp, err, s.c.Addr(), s.prefix)
	}
	return nil
}

// hdfsMove is a rename of a commit, as its journal records it (paths on HDFS).
type hdfsMove struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Commit renames the finished directories into place, the quarantine's side first, so that a
// new table never sits beside an older quarantine: each directory replaced is renamed aside
// first, and removed once every rename is done. A commit of more than one rename is journaled
// first.
func (s *hdfsStore) Commit(ctx context.Context, c store.Commit) (done store.Committed, err error) {
	var moves []hdfsMove
	var aside []string
	kept := false
	replace := func(from, to, role string) error {
		ok, err := s.c.Exists(ctx, to)
		if err != nil {
			return err
		}
		if ok {
			old := s.tempPath(c.Run, role)
			moves = append(moves, hdfsMove{to, old})
			aside = append(aside, old)
		}
		moves = append(moves, hdfsMove{s.hdfsPath(from), to})
		return nil
	}
	if c.Keep != "" && s.quarantine != "" {
		ok, err := s.c.Exists(ctx, s.quarantine)
		if err != nil {
			return done, err
		}
		if ok {
			moves = append(moves, hdfsMove{s.quarantine, s.hdfsPath(c.Keep)})
			kept = true
		}
	}
	if c.Quarantine != "" {
		if err := replace(c.Quarantine, s.quarantine, "old-quarantine"); err != nil {
			return done, err
		}
	}
	if c.Table != "" {
		if err := replace(c.Table, s.table, "old-table"); err != nil {
			return done, err
		}
	}
	if len(moves) == 0 {
		return done, nil
	}
	if err := s.owned(ctx); err != nil { // before anything is deleted
		return done, err
	}
	if kept {
		if err := s.c.Delete(ctx, s.hdfsPath(c.Keep), true); err != nil { // the one an earlier run kept
			return done, err
		}
	}
	durable.Crash("outputs flushed")
	journal := ""
	if len(moves) > 1 {
		journal = s.journalPath()
		if err := s.writeJournal(ctx, c.Run, moves); err != nil {
			return done, err
		}
	}
	durable.Crash("journal written")
	if err := s.apply(ctx, moves, 0, journal); err != nil {
		return store.Committed{Pending: journal != ""}, err
	}
	for _, old := range aside {
		_ = s.c.Delete(ctx, old, true) // left by a kill here: the next run's Recover removes it
	}
	done.Kept = kept
	return done, nil
}

// writeJournal writes the journal under a temporary name, then renames it into place: a journal
// is whole or absent.
func (s *hdfsStore) writeJournal(ctx context.Context, run int64, moves []hdfsMove) error {
	data, err := json.Marshal(moves)
	if err != nil {
		return err
	}
	tmp := s.tempPath(run, "journal")
	if err := s.c.Create(ctx, tmp, data, true); err != nil {
		return fmt.Errorf("write the commit's journal: %w", err)
	}
	if err := s.c.Rename(ctx, tmp, s.journalPath()); err != nil {
		return fmt.Errorf("write the commit's journal %s: %w", s.url(s.journalPath()), err)
	}
	return nil
}

// apply does the renames from from on, then removes the journal ("" none).
func (s *hdfsStore) apply(ctx context.Context, moves []hdfsMove, from int, journal string) error {
	for i := from; i < len(moves); i++ {
		if err := s.c.Rename(ctx, moves[i].From, moves[i].To); err != nil {
			return fmt.Errorf("put the output in place: %w%s", err, s.pending(journal))
		}
		durable.Crash(fmt.Sprintf("renamed %d", i))
	}
	if journal == "" {
		return nil
	}
	if err := s.c.Delete(ctx, journal, false); err != nil {
		return fmt.Errorf("remove the commit's journal: %w%s", err, s.pending(journal))
	}
	return nil
}

func (s *hdfsStore) pending(journal string) string {
	if journal == "" {
		return ""
	}
	return fmt.Sprintf("; the commit stays recorded in %s, which the next run completes", s.url(journal))
}

// Recover completes the commit a killed run's journal records — a rename whose source is gone
// and whose target is there was done, and so were those before it — then deletes the
// temporaries killed runs left.
func (s *hdfsStore) Recover(ctx context.Context) error {
	journal := s.journalPath()
	data, err := s.c.ReadFile(ctx, journal)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read the unfinished commit %s: %w", s.url(journal), err)
	default:
		var moves []hdfsMove
		if json.Unmarshal(data, &moves) != nil || !s.validMoves(moves) {
			return fmt.Errorf("the unfinished commit %s cannot be read (%d bytes); check the outputs beside it, then remove it", s.url(journal), len(data))
		}
		from := 0
		for i, m := range moves {
			fromThere, err := s.c.Exists(ctx, m.From)
			if err != nil {
				return err
			}
			toThere, err := s.c.Exists(ctx, m.To)
			if err != nil {
				return err
			}
			if !fromThere && toThere {
				from = i + 1
			}
		}
		if err := s.apply(ctx, moves, from, journal); err != nil {
			return fmt.Errorf("complete the unfinished commit %s: %w", s.url(journal), err)
		}
	}
	entries, err := s.c.List(ctx, s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list the output's folder %s: %w", s.url(s.dir), err)
	}
	for _, e := range entries {
		if isTemp(s.base, e.PathSuffix) {
			if err := s.c.Delete(ctx, path.Join(s.dir, e.PathSuffix), true); err != nil {
				return fmt.Errorf("remove a killed run's temporary: %w", err)
			}
		}
	}
	return nil
}

// validMoves tells whether every path of a journal is beside the table.
func (s *hdfsStore) validMoves(moves []hdfsMove) bool {
	if len(moves) == 0 {
		return false
	}
	for _, m := range moves {
		for _, p := range []string{m.From, m.To} {
			if path.Dir(p) != s.dir || path.Clean(p) != p {
				return false
			}
		}
	}
	return true
}

// Discard deletes the temporaries.
func (s *hdfsStore) Discard(ctx context.Context, tmps ...string) {
	for _, tmp := range tmps {
		_ = s.c.Delete(ctx, s.hdfsPath(tmp), true)
	}
}
