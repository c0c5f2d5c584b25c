package spark

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/store"
)

// S3Options is this process's own access to the object store of s3a:// outputs: it lists,
// copies and deletes the objects Spark wrote, and holds the output's lock and journal. Spark
// reads and writes with its own s3a settings (the server's spark.hadoop.fs.s3a.*).
type S3Options struct {
	// Config is the AWS configuration of the requests: credentials (a provider, refreshed before
	// they expire), region (us-east-1 when ""), retries, HTTP client. config.LoadDefaultConfig
	// gives the default chain: the environment, the shared config and credentials files with
	// their profiles, SSO, web identity, container and instance credentials.
	Config aws.Config
	// Endpoint is the store's URL (http://127.0.0.1:9000), overriding the configuration's
	// (AWS_ENDPOINT_URL_S3…); "" with none is AWS S3 in the region.
	Endpoint string
	// PathStyle addresses buckets as the endpoint's first path element (most stores other than
	// AWS S3 want it), not as a host name.
	PathStyle bool
	// Lease is how long the output's lock lasts without being renewed (default one minute): a
	// run killed while holding it blocks the output's writers that long.
	Lease time.Duration
}

// defaultLease is the lock's lease when S3Options gives none; the holder renews it every third.
const defaultLease = time.Minute

// copyWorkers is how many copies a commit has the store make at once.
const copyWorkers = 8

// s3Store keeps the output's directories as key prefixes on S3 (s3a://BUCKET/KEY), which has no
// rename. Spark writes each directory into a hidden prefix beside the table, named after it and
// the run; Commit records the moves in a journal object (one PUT, the commit point), then copies
// the new objects into place on the server, deletes the objects they replace, and the temporaries
// and the journal last. A run killed after the journal was written leaves it, and the next run on
// the output completes it (Recover) before it reads anything. The lock is an object written only
// if absent (a conditional PUT), holding a lease its run renews.
type s3Store struct {
	c                 *s3Client
	bucket            string
	table, quarantine string // the URLs ("" no quarantine)
	scheme            string // s3a, as the output was given
	tableKey, quarKey string // the directories' key prefixes, without the trailing "/"
	token             string // this store's run, in its temporaries and its lock
	lease             time.Duration

	mu       sync.Mutex
	lockRec  []byte // the lock object's content while held
	lockETag string // its ETag
	lost     error  // why the lock was lost (taken over by another run after its lease ended)
}

// newS3Store is the store of the table and quarantine URLs (s3a://BUCKET/KEY).
func newS3Store(o *S3Options, table, quarantine string) (*s3Store, error) {
	if o == nil {
		return nil, errors.New("an s3a:// output needs this process's own access to S3 (it puts Spark's files in place): from Go pass spark.WithS3 with an aws.Config (config.LoadDefaultConfig)")
	}
	c := newS3Client(o)
	sch, bucket, key, err := splitS3(table)
	if err != nil {
		return nil, err
	}
	s := &s3Store{c: c, bucket: bucket, table: table, quarantine: quarantine, scheme: sch, tableKey: key, lease: o.Lease}
	if quarantine != "" {
		_, qb, qk, err := splitS3(quarantine)
		if err != nil {
			return nil, err
		}
		if qb != bucket {
			return nil, fmt.Errorf("the quarantine %s is not in the table's bucket %s", quarantine, bucket)
		}
		s.quarKey = qk
	}
	if s.lease <= 0 {
		s.lease = defaultLease
	}
	if s.token, err = storeToken(); err != nil {
		return nil, err
	}
	return s, nil
}

// storeToken names a run on a remote store: its lock's owner and its temporaries, unique across
// the machines that write the store.
func storeToken() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// splitS3 reads s3a://BUCKET/KEY (or s3://), the key without a trailing "/".
func splitS3(address string) (scheme, bucket, key string, err error) {
	u, err := url.Parse(address)
	if err != nil {
		return "", "", "", fmt.Errorf("output %s: %w", address, err)
	}
	key = strings.Trim(u.Path, "/")
	if u.Host == "" || key == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", "", "", fmt.Errorf("output %s: write s3a://BUCKET/PATH/NAME.parquet", address)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", "", "", fmt.Errorf("output %s: its path has an empty, \".\" or \"..\" element", address)
		}
	}
	return strings.ToLower(u.Scheme), u.Host, key, nil
}

// beside is the key of a hidden name beside the table: .<table>.tablegate<suffix>, which Spark
// and Hadoop skip when they read the table's folder.
func (s *s3Store) beside(suffix string) string {
	dir, base := "", s.tableKey
	if i := strings.LastIndex(base, "/"); i >= 0 {
		dir, base = base[:i+1], base[i+1:]
	}
	return dir + "." + base + ".tablegate" + suffix
}

func (s *s3Store) lockKey() string    { return s.beside(".lock") }
func (s *s3Store) journalKey() string { return s.beside(".journal") }
func (s *s3Store) staleKeys() string  { return s.beside("-") }

func (s *s3Store) url(key string) string { return s.scheme + "://" + s.bucket + "/" + key }

// key is the key prefix of one of the store's URLs.
func (s *s3Store) key(address string) string {
	return strings.TrimPrefix(address, s.scheme+"://"+s.bucket+"/")
}

// Check writes and deletes a probe object beside the table: the credentials, the bucket and the
// right to write are checked before any work.
func (s *s3Store) Check(ctx context.Context) error {
	if err := s.c.checkCredentials(ctx); err != nil {
		return err
	}
	probe := s.beside("-probe-" + s.token + ".tmp")
	if _, err := s.c.Put(ctx, s.bucket, probe, nil, s3Cond{}, func(o *s3.Options) { o.RetryMaxAttempts = checkAttempts }); err != nil {
		return fmt.Errorf("the output's bucket cannot be written: %w", err)
	}
	return s.c.Delete(ctx, s.bucket, []string{probe})
}

// lockRecord is the lock object's content.
type lockRecord struct {
	Owner   string `json:"owner"`
	Host    string `json:"host"`
	PID     int    `json:"pid"`
	Started string `json:"started"`
	// LeaseSeconds is how long the lock lasts after its object was last written (the store's
	// clock): its holder rewrites it every third of that.
	LeaseSeconds float64 `json:"lease_seconds"`
}

// renewing calls renew every third of lease, each call bounded by that, until the returned stop
// is called; stop waits for a renewal under way.
func renewing(lease time.Duration, renew func(context.Context)) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case <-time.After(lease / 3):
			}
			ctx, cancel := context.WithTimeout(context.Background(), lease/3)
			renew(ctx)
			cancel()
		}
	}()
	return func() { close(quit); <-done }
}

// LockedError is an output another run holds the lock of, when the wait for it ended.
type LockedError struct {
	Output, Lock string
	Holder       string // host and process of the holder, when it started
	Until        time.Time
	Err          error // why the wait ended
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("another run writing the same output holds %s (%s; its lease ends %s unless renewed): %v; "+
		"wait for it, or, if that run is gone, for its lease to end", e.Output, e.Holder, e.Until.UTC().Format(time.RFC3339), e.Err)
}

func (e *LockedError) Unwrap() error { return e.Err }

// Lock writes the lock object if none exists (If-None-Match: *). While another run holds it, it
// waits, reading it again every second; a lock whose lease ended (its run was killed) is taken
// over with a write conditional on the ETag read, so that of two waiters one wins. The lease is
// renewed every third of it until unlock.
func (s *s3Store) Lock(ctx context.Context) (func(), error) {
	host, _ := os.Hostname()
	rec, err := json.Marshal(lockRecord{Owner: s.token, Host: host, PID: os.Getpid(), Started: time.Now().UTC().Format(time.RFC3339),
		LeaseSeconds: s.lease.Seconds()})
	if err != nil {
		return nil, err
	}
	key := s.lockKey()
	for {
		etag, err := s.c.Put(ctx, s.bucket, key, rec, s3Cond{IfNoneMatch: true})
		if err == nil {
			return s.held(etag, rec), nil
		}
		if !isPreconditionFailed(err) {
			return nil, fmt.Errorf("take the output's lock %s: %w", s.url(key), err)
		}
		data, info, err := s.c.Get(ctx, s.bucket, key)
		if isNotFound(err) {
			continue // given back meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("read the output's lock %s: %w", s.url(key), err)
		}
		var other lockRecord
		if json.Unmarshal(data, &other) != nil || other.LeaseSeconds <= 0 {
			other = lockRecord{Host: "an unreadable lock", LeaseSeconds: defaultLease.Seconds()}
		}
		if other.Owner == s.token { // a retried write of ours that had succeeded
			return s.held(info.ETag, rec), nil
		}
		until := info.Modified.Add(time.Duration(other.LeaseSeconds * float64(time.Second)))
		if !info.Modified.IsZero() && !info.Now.IsZero() && info.Now.After(until) {
			etag, err := s.c.Put(ctx, s.bucket, key, rec, s3Cond{IfMatch: info.ETag})
			if err == nil {
				return s.held(etag, rec), nil
			}
			if !isPreconditionFailed(err) {
				return nil, fmt.Errorf("take over the output's lock %s: %w", s.url(key), err)
			}
			continue // another waiter took it
		}
		select {
		case <-ctx.Done():
			return nil, &LockedError{Output: s.table, Lock: s.url(key), Until: until, Err: context.Cause(ctx),
				Holder: fmt.Sprintf("process %d on %s since %s", other.PID, other.Host, other.Started)}
		case <-time.After(time.Second):
		}
	}
}

// held starts renewing the lock whose object has etag, and returns what gives it back.
func (s *s3Store) held(etag string, rec []byte) func() {
	s.mu.Lock()
	s.lockETag, s.lockRec, s.lost = etag, rec, nil
	s.mu.Unlock()
	stop := renewing(s.lease, func(ctx context.Context) { _ = s.renew(ctx) })
	var once sync.Once
	return func() {
		once.Do(func() {
			stop()
			s.mu.Lock()
			etag, lost := s.lockETag, s.lost
			s.lockETag = ""
			s.mu.Unlock()
			if lost == nil && etag != "" {
				ctx, cancel := context.WithTimeout(context.Background(), abortTimeout)
				s.release(ctx, etag) // left: it ends with its lease
				cancel()
			}
		})
	}
}

// release deletes the lock object if it is still this run's: conditionally on its ETag, or, on a
// store that takes no conditional delete, after reading that it is.
func (s *s3Store) release(ctx context.Context, etag string) {
	err := s.c.DeleteIf(ctx, s.bucket, s.lockKey(), etag)
	if err == nil || isPreconditionFailed(err) {
		return
	}
	data, _, err := s.c.Get(ctx, s.bucket, s.lockKey())
	var rec lockRecord
	if err == nil && json.Unmarshal(data, &rec) == nil && rec.Owner == s.token {
		_ = s.c.Delete(ctx, s.bucket, []string{s.lockKey()})
	}
}

// renew rewrites the lock object if it is still this run's; a lock another run took over (this
// run's lease ended) is lost, and the run puts nothing in place.
func (s *s3Store) renew(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost != nil {
		return s.lost
	}
	if s.lockETag == "" {
		return errors.New("the output's lock is not held")
	}
	etag, err := s.c.Put(ctx, s.bucket, s.lockKey(), s.lockRec, s3Cond{IfMatch: s.lockETag})
	switch {
	case err == nil:
		s.lockETag = etag
	case isPreconditionFailed(err) || isNotFound(err):
		// A retried write whose first attempt landed (its answer lost) is refused too: the
		// lock is lost only if it is no longer this run's.
		data, info, rerr := s.c.Get(ctx, s.bucket, s.lockKey())
		var rec lockRecord
		if rerr == nil && json.Unmarshal(data, &rec) == nil && rec.Owner == s.token {
			s.lockETag = info.ETag
			return nil
		}
		if rerr != nil && !isNotFound(rerr) {
			return fmt.Errorf("read the output's lock %s after its renewal was refused: %w", s.url(s.lockKey()), rerr)
		}
		s.lost = fmt.Errorf("the output's lock %s was taken over by another run: this run's lease ended before it renewed it", s.url(s.lockKey()))
		return s.lost
	}
	return err
}

// journal records a commit: the moves, in order, each with the objects it copies and the ones
// it deletes. Every step can be done again, so a commit is completed by doing it all again.
type journal struct {
	Run   string   `json:"run"`
	Moves []s3Move `json:"moves"`
	// Temporaries are the prefixes deleted once every move is done.
	Temporaries []string `json:"temporaries"`
}

// s3Move copies the objects named Objects from the prefix From to the prefix To, then deletes
// the objects named Replaced under To (those the copy did not overwrite), then, when Delete, the
// copied objects under From (a quarantine kept aside).
type s3Move struct {
	From     string   `json:"from"`
	To       string   `json:"to"`
	Objects  []string `json:"objects"`
	Replaced []string `json:"replaced"`
	Delete   bool     `json:"delete_from,omitempty"`
}

// Temp is a hidden prefix beside the table, of this store's run.
func (s *s3Store) Temp(run int64, role string) string {
	return s.url(s.beside(fmt.Sprintf("-%s-%d-%s.tmp", s.token, run, role)))
}

// Finished checks the temporary's _SUCCESS object.
func (s *s3Store) Finished(ctx context.Context, tmp string) error {
	objs, err := s.c.List(ctx, s.bucket, s.key(tmp)+"/_SUCCESS")
	if err != nil {
		return fmt.Errorf("check that Spark finished %s: %w", tmp, err)
	}
	for _, o := range objs {
		if o.Key == s.key(tmp)+"/_SUCCESS" {
			return nil
		}
	}
	return fmt.Errorf("the write reported success but %s has no _SUCCESS object (do this process and the Spark server reach the same store? compare the engine's S3 endpoint with the server's spark.hadoop.fs.s3a.endpoint)", tmp)
}

// names lists the objects under the prefix dir (names relative to it).
func (s *s3Store) names(ctx context.Context, dir string) ([]string, error) {
	sizes, err := s.sizes(ctx, dir)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(sizes)), nil
}

// sizes are the objects under the prefix dir by name (relative to it).
func (s *s3Store) sizes(ctx context.Context, dir string) (map[string]int64, error) {
	objs, err := s.c.List(ctx, s.bucket, dir+"/")
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(objs))
	for _, o := range objs {
		out[strings.TrimPrefix(o.Key, dir+"/")] = o.Size
	}
	return out, nil
}

// Commit lists what it moves, writes the journal (the commit point: before it nothing at the
// output changed, after it the next run completes the commit), and applies it.
func (s *s3Store) Commit(ctx context.Context, c store.Commit) (store.Committed, error) {
	var done store.Committed
	j := journal{Run: fmt.Sprintf("%s-%d", s.token, c.Run)}
	move := func(from, to string, del bool) error {
		objs, err := s.names(ctx, from)
		if err != nil {
			return err
		}
		old, err := s.names(ctx, to)
		if err != nil {
			return err
		}
		j.Moves = append(j.Moves, s3Move{From: from, To: to, Objects: objs, Replaced: without(old, objs), Delete: del})
		return nil
	}
	if c.Keep != "" && s.quarKey != "" {
		objs, err := s.names(ctx, s.quarKey)
		if err != nil {
			return done, err
		}
		if len(objs) > 0 {
			if err := move(s.quarKey, s.key(c.Keep), true); err != nil {
				return done, err
			}
			done.Kept = true
		}
	}
	for _, m := range []struct{ tmp, key string }{{c.Quarantine, s.quarKey}, {c.Table, s.tableKey}} {
		if m.tmp == "" {
			continue
		}
		if err := move(s.key(m.tmp), m.key, false); err != nil {
			return store.Committed{}, err
		}
		// Never replace an output by a temporary that is not whole.
		if !slices.Contains(j.Moves[len(j.Moves)-1].Objects, "_SUCCESS") {
			return store.Committed{}, fmt.Errorf("%s has no _SUCCESS object any more: nothing was put in place", m.tmp)
		}
		j.Temporaries = append(j.Temporaries, s.key(m.tmp))
	}
	if len(j.Moves) == 0 {
		return done, nil
	}
	data, err := json.Marshal(j)
	if err != nil {
		return store.Committed{}, err
	}
	durable.Crash("outputs flushed")
	if err := s.renew(ctx); err != nil { // still this run's lock: no other run applies
		return store.Committed{}, err
	}
	if _, err := s.c.Put(ctx, s.bucket, s.journalKey(), data, s3Cond{IfNoneMatch: true}); err != nil {
		err = fmt.Errorf("write the output's journal %s: %w", s.url(s.journalKey()), err)
		// A retried write whose first attempt landed (its answer lost) is refused: read what
		// is stored. While it may be this run's journal, the temporaries it names must stay.
		stored, _, gerr := s.c.Get(ctx, s.bucket, s.journalKey())
		var got journal
		switch {
		case isNotFound(gerr):
			return store.Committed{}, err
		case gerr != nil:
			done.Pending = true
			return done, fmt.Errorf("%w; whether it was written is unknown (%w): the run's temporaries are kept, and the next run on the output completes the commit if it was", err, gerr)
		case json.Unmarshal(stored, &got) != nil:
			done.Pending = true
			return done, fmt.Errorf("%w; %s cannot be read as a journal: the run's temporaries are kept", err, s.url(s.journalKey()))
		case got.Run != j.Run:
			return store.Committed{}, err
		}
		// This run's journal was written: go on.
	}
	durable.Crash("journal written")
	if err := s.apply(ctx, j); err != nil {
		done.Pending = true
		return done, fmt.Errorf("the run's outputs are recorded in %s but not all in place: %w; the next run on the output completes them", s.url(s.journalKey()), err)
	}
	return done, nil
}

// without is names not in drop.
func without(names, drop []string) []string {
	skip := make(map[string]bool, len(drop))
	for _, d := range drop {
		skip[d] = true
	}
	var out []string
	for _, n := range names {
		if !skip[n] {
			out = append(out, n)
		}
	}
	return out
}

// apply does the journal's moves, deletes the temporaries, then the journal. Done again after a
// kill it completes the commit: a copy whose source is gone was done (the sources go only after
// every copy of their move), unless its target is missing too, which it reports.
func (s *s3Store) apply(ctx context.Context, j journal) error {
	for i, m := range j.Moves {
		if err := s.copyAll(ctx, m); err != nil {
			return err
		}
		durable.Crash(fmt.Sprintf("copied %d", i))
		if err := s.c.Delete(ctx, s.bucket, prefixed(m.To, m.Replaced)); err != nil {
			return err
		}
		if m.Delete {
			if err := s.c.Delete(ctx, s.bucket, prefixed(m.From, m.Objects)); err != nil {
				return err
			}
		}
		durable.Crash(fmt.Sprintf("moved %d", i))
	}
	for _, tmp := range j.Temporaries {
		if err := s.removePrefix(ctx, tmp+"/"); err != nil {
			return err
		}
	}
	return s.c.Delete(ctx, s.bucket, []string{s.journalKey()})
}

// copyAll copies a move's objects, copyWorkers at a time. A source that is gone was copied
// before (sources go only after every copy of their move) if its target exists.
func (s *s3Store) copyAll(ctx context.Context, m s3Move) error {
	from, err := s.sizes(ctx, m.From)
	if err != nil {
		return err
	}
	var to map[string]int64 // listed once, if a source is gone
	var missing []string
	names := make(chan string)
	errs := make(chan error, copyWorkers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range copyWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				if err := s.c.Copy(ctx, s.bucket, m.From+"/"+name, m.To+"/"+name, from[name]); err != nil {
					errs <- err
					cancel()
					return
				}
			}
		}()
	}
	for _, name := range m.Objects {
		if _, ok := from[name]; !ok {
			missing = append(missing, name)
			continue
		}
		select {
		case names <- name:
		case <-ctx.Done():
		}
	}
	close(names)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	if len(missing) > 0 {
		if to, err = s.sizes(ctx, m.To); err != nil {
			return err
		}
		for _, name := range missing {
			if _, ok := to[name]; !ok {
				return fmt.Errorf("%s is gone and was not copied to %s", s.url(m.From+"/"+name), s.url(m.To+"/"+name))
			}
		}
	}
	return ctx.Err()
}

func prefixed(dir string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = dir + "/" + n
	}
	return out
}

func (s *s3Store) removePrefix(ctx context.Context, prefix string) error {
	objs, err := s.c.List(ctx, s.bucket, prefix)
	if err != nil {
		return err
	}
	keys := make([]string, len(objs))
	for i, o := range objs {
		keys[i] = o.Key
	}
	return s.c.Delete(ctx, s.bucket, keys)
}

// Recover completes the commit a killed run's journal records, then deletes the temporaries
// killed runs left (the caller holds the lock: no live run owns them).
func (s *s3Store) Recover(ctx context.Context) error {
	data, _, err := s.c.Get(ctx, s.bucket, s.journalKey())
	switch {
	case isNotFound(err):
	case err != nil:
		return fmt.Errorf("read the output's journal: %w", err)
	default:
		var j journal
		if err := json.Unmarshal(data, &j); err != nil {
			return fmt.Errorf("the output's journal %s cannot be read (%w): see what it records, complete or undo it by hand, then delete it", s.url(s.journalKey()), err)
		}
		if err := s.apply(ctx, j); err != nil {
			return fmt.Errorf("complete the commit a killed run recorded in %s: %w", s.url(s.journalKey()), err)
		}
	}
	return s.removePrefix(ctx, s.staleKeys())
}

// Discard deletes the temporaries' objects.
func (s *s3Store) Discard(ctx context.Context, tmps ...string) {
	for _, tmp := range tmps {
		_ = s.removePrefix(ctx, s.key(tmp)+"/")
	}
}
