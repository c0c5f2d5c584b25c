package spark

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	osexec "os/exec"
	"reflect"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/spark/internal/sparktest"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/store"
	"github.com/tablegate/tablegate/internal/testenv"
)

const testBucket = "tablegate-store"

// moto starts moto's S3 server for the test (TABLEGATE_MOTO_SERVER, or moto_server on PATH) and
// returns the engine's S3 options for it.
func moto(t *testing.T) S3Options {
	t.Helper()
	bin := os.Getenv("TABLEGATE_MOTO_SERVER")
	if bin == "" {
		var err error
		if bin, err = osexec.LookPath("moto_server"); err != nil {
			t.Skip("needs moto's S3 server: pip install 'moto[server]', or set TABLEGATE_MOTO_SERVER")
		}
	}
	srv, err := sparktest.StartS3(bin, t.TempDir(), os.Getenv("TABLEGATE_SPARK_PIDFILE"), 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	if err := srv.CreateBucket(context.Background(), testBucket); err != nil {
		t.Fatal(err)
	}
	return motoOptions(srv.Endpoint)
}

func motoOptions(endpoint string) S3Options {
	return S3Options{Config: aws.Config{Credentials: credentials.NewStaticCredentialsProvider("testing", "testing", "")}, Endpoint: endpoint, PathStyle: true}
}

func client(t testing.TB, o S3Options) *s3Client {
	t.Helper()
	return newS3Client(&o)
}

// s3Writer is a writer of s3a://BUCKET/<dir>/t.parquet and its quarantine, without a Spark server.
func s3Writer(t testing.TB, o S3Options, dir string) *writer {
	t.Helper()
	table, quarantine := "s3a://"+testBucket+"/"+dir+"/t.parquet", "s3a://"+testBucket+"/"+dir+"/t_quarantine.parquet"
	st, err := newS3Store(&o, table, quarantine)
	if err != nil {
		t.Fatal(err)
	}
	return &writer{b: &backend{id: 7}, st: st, table: table, quarantine: quarantine, tableTmp: st.Temp(7, "table"), quarTmp: st.Temp(7, "quarantine")}
}

// putDir makes the prefix of url a Parquet directory as Spark leaves it: part files holding marker
// (their names of the write, as Spark's are) and _SUCCESS.
func putDir(t testing.TB, c *s3Client, url, marker string) {
	t.Helper()
	key := strings.TrimPrefix(url, "s3a://"+testBucket+"/")
	for i := range 2 {
		if _, err := c.Put(context.Background(), testBucket, fmt.Sprintf("%s/part-%05d-%s.parquet", key, i, marker), []byte(fmt.Sprintf("%s %d", marker, i)), s3Cond{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Put(context.Background(), testBucket, key+"/_SUCCESS", nil, s3Cond{}); err != nil {
		t.Fatal(err)
	}
}

// contents are the objects under prefix: key (relative) → content.
func contents(t testing.TB, c *s3Client, prefix string) map[string]string {
	t.Helper()
	objs, err := c.List(context.Background(), testBucket, prefix)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, o := range objs {
		data, _, err := c.Get(context.Background(), testBucket, o.Key)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(o.Key, prefix)] = string(data)
	}
	return out
}

// dirMarker is the marker of the directory at prefix: every part file must hold it (else "mixed"),
// "" when the directory has none.
func dirMarker(t testing.TB, c *s3Client, prefix string) string {
	t.Helper()
	seen := map[string]bool{}
	parts := 0
	for name, data := range contents(t, c, prefix+"/") {
		if name == "_SUCCESS" {
			continue
		}
		parts++
		seen[strings.Fields(data)[0]] = true
	}
	if len(seen) > 1 || (parts != 0 && parts != 2) {
		return fmt.Sprintf("mixed %v (%d parts)", seen, parts)
	}
	for m := range seen {
		return m
	}
	return ""
}

// finishedS3 makes the writer's temporaries a finished write of marker.
func finishedS3(t testing.TB, c *s3Client, w *writer, marker string) {
	putDir(t, c, w.tableTmp, marker)
	putDir(t, c, w.quarTmp, marker)
	w.wroteTable, w.wroteQuar = true, true
}

func keysUnder(t testing.TB, c *s3Client, prefix string) []string {
	t.Helper()
	objs, err := c.List(context.Background(), testBucket, prefix)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, strings.TrimPrefix(o.Key, prefix))
	}
	sort.Strings(keys)
	return keys
}

// TestS3Store runs the S3 store's commit protocol on moto's S3 server: a commit replaces the
// table and the quarantine by the run's objects alone and leaves nothing beside them; a run
// without invalid rows keeps the older quarantine as .prev; a failed run leaves both untouched;
// a temporary emptied before the commit replaces nothing; a second writer waits for the first and is refused, naming the holder, when it gives up; a lock
// whose holder was killed is taken over once its lease ends; a run whose lock was taken over
// puts nothing in place; a run killed at each stage of its commit leaves the previous pair or,
// once its journal is written, the new pair after the next run's recovery.
func TestS3Store(t *testing.T) {
	o := moto(t)
	c := client(t, o)
	ctx := context.Background()

	t.Run("commit", func(t *testing.T) {
		w := s3Writer(t, o, "commit")
		putDir(t, c, w.table, "old")
		putDir(t, c, w.quarantine, "old")
		if err := w.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		finishedS3(t, c, w, "new")
		written, err := w.Finish(ctx, compile.WriteTable|compile.WriteQuarant)
		if err != nil {
			t.Fatal(err)
		}
		if !written.Table || !written.Quarantine || written.Kept != "" {
			t.Errorf("written %+v", written)
		}
		want := map[string]string{"part-00000-new.parquet": "new 0", "part-00001-new.parquet": "new 1", "_SUCCESS": ""}
		for _, dir := range []string{"commit/t.parquet/", "commit/t_quarantine.parquet/"} {
			if got := contents(t, c, dir); !reflect.DeepEqual(got, want) {
				t.Errorf("%s holds %v, want %v", dir, got, want)
			}
		}
		if got := keysUnder(t, c, "commit/"); len(got) != 6 {
			t.Errorf("left beside the outputs: %v", got)
		}
	})

	t.Run("keeps the older quarantine", func(t *testing.T) {
		w := s3Writer(t, o, "keep")
		putDir(t, c, w.quarantine, "old")
		putDir(t, c, durable.PrevPath(w.quarantine), "older")
		if err := w.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		finishedS3(t, c, w, "new")
		w.wroteQuar = false
		written, err := w.Finish(ctx, compile.WriteTable|compile.DropQuarant)
		if err != nil {
			t.Fatal(err)
		}
		if written.Kept != durable.PrevPath(w.quarantine) || written.Was != w.quarantine {
			t.Errorf("written %+v", written)
		}
		if m, q, p := dirMarker(t, c, "keep/t.parquet"), dirMarker(t, c, "keep/t_quarantine.parquet"), dirMarker(t, c, "keep/t_quarantine.prev.parquet"); m != "new" || q != "" || p != "old" {
			t.Errorf("table %q, quarantine %q, kept %q; want new, none, old", m, q, p)
		}
		if got := keysUnder(t, c, "keep/"); len(got) != 6 {
			t.Errorf("left beside the outputs: %v", got)
		}
	})

	t.Run("a failed run changes nothing", func(t *testing.T) {
		w := s3Writer(t, o, "failed")
		putDir(t, c, w.table, "old")
		putDir(t, c, w.quarantine, "old")
		before := contents(t, c, "failed/")
		if err := w.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		putDir(t, c, w.tableTmp, "new") // the table's job finished, the quarantine's failed
		w.wroteTable = true
		w.Abort("")
		if after := contents(t, c, "failed/"); !reflect.DeepEqual(after, before) {
			t.Errorf("after a failed run the output holds %v, before %v", after, before)
		}
	})

	t.Run("a temporary emptied before the commit replaces nothing", func(t *testing.T) {
		w := s3Writer(t, o, "emptied")
		putDir(t, c, w.table, "old")
		if err := w.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		finishedS3(t, c, w, "new")
		w.st.Discard(ctx, w.tableTmp)
		if _, err := w.Finish(ctx, compile.WriteTable|compile.WriteQuarant); err == nil || !strings.Contains(err.Error(), "_SUCCESS") {
			t.Fatalf("a commit of an emptied temporary: %v", err)
		}
		if m := dirMarker(t, c, "emptied/t.parquet"); m != "old" {
			t.Errorf("table %q, want old", m)
		}
	})

	t.Run("two writers", func(t *testing.T) {
		first, second := s3Writer(t, o, "lock"), s3Writer(t, o, "lock")
		if err := first.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		finishedS3(t, c, first, "first")
		wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		err := second.Begin(wctx)
		var le *LockedError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "another run writing the same output") || !strings.Contains(err.Error(), fmt.Sprintf("process %d", os.Getpid())) {
			t.Fatalf("a second writer began while the first held the output: %v", err)
		}
		if _, err := first.Finish(ctx, compile.WriteTable|compile.WriteQuarant); err != nil {
			t.Fatal(err)
		}
		if err := second.Begin(ctx); err != nil {
			t.Fatalf("the output stayed locked after the first writer finished: %v", err)
		}
		second.Abort("")
		if got := keysUnder(t, c, "lock/."); len(got) != 0 {
			t.Errorf("left beside the outputs: %v", got)
		}
	})

	t.Run("a dead holder's lease ends", func(t *testing.T) {
		w := s3Writer(t, o, "lease")
		dead := `{"owner":"killed","host":"elsewhere","pid":1,"started":"2020-01-01T00:00:00Z","lease_seconds":1}`
		if _, err := c.Put(ctx, testBucket, w.st.(*s3Store).lockKey(), []byte(dead), s3Cond{}); err != nil {
			t.Fatal(err)
		}
		if err := w.Begin(ctx); err != nil { // waits about a second, then takes it over
			t.Fatal(err)
		}
		data, _, err := c.Get(ctx, testBucket, w.st.(*s3Store).lockKey())
		if err != nil || !strings.Contains(string(data), w.st.(*s3Store).token) {
			t.Errorf("the lock holds %s (%v), want this run's", data, err)
		}
		w.Abort("")
	})

	t.Run("a run whose lock was taken over puts nothing in place", func(t *testing.T) {
		w := s3Writer(t, o, "lost")
		putDir(t, c, w.table, "old")
		if err := w.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		finishedS3(t, c, w, "new")
		// Another run took the lock over (this run's lease ended unrenewed).
		if _, err := c.Put(ctx, testBucket, w.st.(*s3Store).lockKey(), []byte(`{"owner":"other","lease_seconds":60}`), s3Cond{}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Finish(ctx, compile.WriteTable|compile.WriteQuarant); err == nil || !strings.Contains(err.Error(), "taken over") {
			t.Fatalf("a run without its lock committed: %v", err)
		}
		if m := dirMarker(t, c, "lost/t.parquet"); m != "old" {
			t.Errorf("table %q, want old", m)
		}
		if _, _, err := c.Get(ctx, testBucket, w.st.(*s3Store).journalKey()); !isNotFound(err) {
			t.Errorf("a journal was written: %v", err)
		}
	})

	t.Run("a write whose answer was lost", func(t *testing.T) {
		// The store takes the lock's renewal and the journal, but their answers are lost: the
		// client's retry of the journal is refused (412), and the run must see that it is its own.
		lossy := &lossyTransport{lose: map[string]int{".lock If-Match": 1, ".journal": 1}}
		lo := o
		lo.Config.HTTPClient = &http.Client{Transport: lossy}
		lo.Config.RetryMaxAttempts = 3
		w := s3Writer(t, lo, "lost-answer")
		putDir(t, c, w.table, "old")
		putDir(t, c, w.quarantine, "old")
		if err := w.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		finishedS3(t, c, w, "new")
		if _, err := w.Finish(ctx, compile.WriteTable|compile.WriteQuarant); err != nil {
			t.Fatalf("a commit whose writes landed failed: %v", err)
		}
		if lossy.lost() != 2 {
			t.Fatalf("lost %d answers, want 2 (the lock's renewal and the journal)", lossy.lost())
		}
		if m, q := dirMarker(t, c, "lost-answer/t.parquet"), dirMarker(t, c, "lost-answer/t_quarantine.parquet"); m != "new" || q != "new" {
			t.Errorf("table %q, quarantine %q; want both new", m, q)
		}
		if got := keysUnder(t, c, "lost-answer/"); len(got) != 6 {
			t.Errorf("left beside the outputs: %v", got)
		}
	})

	t.Run("a renewal whose answer was lost", func(t *testing.T) {
		// Where ETags are not the content's MD5 (moto's are), a renewal that landed changed the
		// lock's ETag, and its retry is refused: the run must read that the lock is still its own.
		w := s3Writer(t, o, "renewed")
		if err := w.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		defer w.Abort("")
		st := w.st.(*s3Store)
		st.mu.Lock()
		st.lockETag = `"an-etag-the-lost-answer-replaced"`
		st.mu.Unlock()
		if err := st.renew(ctx); err != nil {
			t.Fatalf("a renewal of a lock still this run's: %v", err)
		}
		if err := st.renew(ctx); err != nil {
			t.Fatalf("the renewal after it: %v", err)
		}
		if _, err := c.Put(ctx, testBucket, st.lockKey(), []byte(`{"owner":"other","lease_seconds":60}`), s3Cond{}); err != nil {
			t.Fatal(err)
		}
		if err := st.renew(ctx); err == nil || !strings.Contains(err.Error(), "taken over") {
			t.Fatalf("a renewal of a lock taken over: %v", err)
		}
	})

	t.Run("a journal whose write is unknown keeps the temporaries", func(t *testing.T) {
		// The journal lands, its answer is lost, and reading it back fails too: the run cannot
		// tell, so it keeps its temporaries and the next run completes the commit.
		lossy := &lossyTransport{lose: map[string]int{".journal": 1}}
		lo := o
		lo.Config.HTTPClient = &http.Client{Transport: lossy}
		lo.Config.RetryMaxAttempts = 3
		w := s3Writer(t, lo, "unknown")
		putDir(t, c, w.table, "old")
		putDir(t, c, w.quarantine, "old")
		if err := w.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		finishedS3(t, c, w, "new")
		lossy.mu.Lock()
		lossy.fail = map[string]bool{"GET .journal": true} // after Begin read that there is none
		lossy.mu.Unlock()
		if _, err := w.Finish(ctx, compile.WriteTable|compile.WriteQuarant); err == nil || !strings.Contains(err.Error(), "temporaries are kept") {
			t.Fatalf("a commit whose journal may not be written: %v", err)
		}
		next := s3Writer(t, o, "unknown")
		if _, err := store.Recover(ctx, next.st); err != nil {
			t.Fatal(err)
		}
		if m, q := dirMarker(t, c, "unknown/t.parquet"), dirMarker(t, c, "unknown/t_quarantine.parquet"); m != "new" || q != "new" {
			t.Errorf("table %q, quarantine %q after the recovery; want both new", m, q)
		}
		if got := keysUnder(t, c, "unknown/"); len(got) != 6 {
			t.Errorf("left beside the outputs: %v", got)
		}
	})

	t.Run("killed", func(t *testing.T) {
		for i, stage := range []string{"outputs flushed", "journal written", "copied 0", "moved 0", "copied 1", "moved 1"} {
			t.Run(stage, func(t *testing.T) {
				dir := fmt.Sprintf("killed%d", i)
				w := s3Writer(t, o, dir)
				putDir(t, c, w.table, "old")
				putDir(t, c, w.quarantine, "old")
				cmd := osexec.Command(os.Args[0], "-test.run=^TestS3StoreKillHelper$", "-test.count=1")
				cmd.Env = append(os.Environ(), "TG_S3_KILL_ENDPOINT="+o.Endpoint, "TG_S3_KILL_DIR="+dir, "TG_S3_KILL_STAGE="+stage, testenv.SlowVar+"=")
				out, err := cmd.CombinedOutput()
				var exit *osexec.ExitError
				if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
					t.Fatalf("the child was not killed: %v\n%s", err, out)
				}
				// The killed run's lock stays until its lease ends: the next run waits for it.
				next := s3Writer(t, o, dir)
				if _, err := store.Recover(ctx, next.st); err != nil {
					t.Fatal(err)
				}
				want := "new"
				if stage == "outputs flushed" {
					want = "old"
				}
				if m, q := dirMarker(t, c, dir+"/t.parquet"), dirMarker(t, c, dir+"/t_quarantine.parquet"); m != want || q != want {
					t.Errorf("table %q, quarantine %q after the recovery; want both %q", m, q, want)
				}
				if got := keysUnder(t, c, dir+"/"); len(got) != 6 {
					t.Errorf("left beside the outputs: %v", got)
				}
			})
		}
	})
}

// lossyTransport sends requests to the store, but loses the answers of the first few PUTs of
// keys with a given suffix ("SUFFIX" or "SUFFIX If-Match", those conditional on an ETag), and
// fails every request named in fail ("METHOD SUFFIX") without sending it.
type lossyTransport struct {
	mu   sync.Mutex
	lose map[string]int
	fail map[string]bool
	n    int
}

func (l *lossyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	var lose, fail bool
	for suffix, left := range l.lose {
		key, cond, _ := strings.Cut(suffix, " ")
		if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, key) && left > 0 && (cond == "" || r.Header.Get(cond) != "") {
			l.lose[suffix]--
			l.n++
			lose = true
		}
	}
	for what := range l.fail {
		method, key, _ := strings.Cut(what, " ")
		fail = fail || (r.Method == method && strings.HasSuffix(r.URL.Path, key))
	}
	l.mu.Unlock()
	if fail {
		return nil, errors.New("the store cannot be reached")
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || !lose {
		return resp, err
	}
	resp.Body.Close()
	return nil, errors.New("the answer was lost")
}

func (l *lossyTransport) lost() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// TestS3StoreKillHelper is the child of TestS3Store/killed: it commits a finished write with a
// lease of two seconds and kills itself at the stage it is given.
func TestS3StoreKillHelper(t *testing.T) {
	endpoint, dir, stage := os.Getenv("TG_S3_KILL_ENDPOINT"), os.Getenv("TG_S3_KILL_DIR"), os.Getenv("TG_S3_KILL_STAGE")
	if endpoint == "" {
		t.Skip("the child of TestS3Store/killed")
	}
	o := motoOptions(endpoint)
	o.Lease = 2 * time.Second
	c := client(t, o)
	w := s3Writer(t, o, dir)
	if err := w.Begin(context.Background()); err != nil {
		t.Fatal(err)
	}
	finishedS3(t, c, w, "new")
	defer durable.SetCrashPoint(func(at string) {
		if at == stage {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	})()
	if _, err := w.Finish(context.Background(), compile.WriteTable|compile.WriteQuarant); err != nil {
		t.Fatal(err)
	}
}
