package webhdfs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablegate/tablegate/engines/spark/internal/sparktest"
	"github.com/tablegate/tablegate/engines/spark/internal/webhdfs"
	"github.com/tablegate/tablegate/internal/testenv"
)

// startHDFS starts a MiniDFSCluster for the test (slow: it needs the minicluster jar and pyspark).
func startHDFS(t *testing.T) *sparktest.HDFS {
	t.Helper()
	testenv.Slow(t)
	jars, home := os.Getenv("TABLEGATE_HDFS_JARS"), os.Getenv(sparktest.HomeVar)
	if jars == "" || home == "" {
		t.Skipf("set TABLEGATE_HDFS_JARS (a folder with Hadoop's hadoop-client-minicluster jar) and %s", sparktest.HomeVar)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	cp, err := sparktest.MiniClusterClassPath(jars, home)
	if err != nil {
		t.Fatal(err)
	}
	h, err := sparktest.StartHDFS(java, cp, t.TempDir(), os.Getenv("TABLEGATE_SPARK_PIDFILE"), 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	return h
}

// TestSlowWebHDFS runs every operation of the client on a real HDFS: folders, small files
// written whole and read back, exclusive creation (one of many concurrent writers wins), atomic
// renames that refuse a target in the way, deletes, and HDFS's refusals as typed errors.
func TestSlowWebHDFS(t *testing.T) {
	h := startHDFS(t)
	user := "tablegate"
	root, err := webhdfs.New([]string{h.WebHDFS}, currentUser(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := root.Mkdirs(ctx, "/t/a dir é"); err != nil {
		t.Fatal(err)
	}
	if err := root.Mkdirs(ctx, "/t/a dir é"); err != nil {
		t.Fatalf("an existing directory: %v", err)
	}
	if err := root.Create(ctx, "/t/a dir é/f.json", []byte(`{"x":1}`), false); err != nil {
		t.Fatal(err)
	}
	if b, err := root.ReadFile(ctx, "/t/a dir é/f.json"); err != nil || string(b) != `{"x":1}` {
		t.Fatalf("read %q, %v", b, err)
	}
	if err := root.Create(ctx, "/t/a dir é/f.json", []byte("2"), false); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("a second exclusive create: %v, want fs.ErrExist", err)
	}
	if err := root.Create(ctx, "/t/a dir é/f.json", []byte("2"), true); err != nil {
		t.Fatal(err)
	}
	if b, _ := root.ReadFile(ctx, "/t/a dir é/f.json"); string(b) != "2" {
		t.Fatalf("after an overwrite: %q", b)
	}
	if err := root.Create(ctx, "/t/empty", nil, false); err != nil {
		t.Fatal(err)
	}
	st, err := root.Status(ctx, "/t/a dir é/f.json")
	if err != nil || st.IsDir() || st.Length != 1 {
		t.Fatalf("status %+v %v", st, err)
	}
	// The NameNode's clock comes with the status, to compare modification times with.
	if age := st.Now.Sub(time.UnixMilli(st.ModificationTime)); st.Now.IsZero() || age < -time.Second || age > 10*time.Minute {
		t.Fatalf("status at %v of a file modified at %d ms", st.Now, st.ModificationTime)
	}
	if _, err := root.Status(ctx, "/t/none"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing path: %v, want fs.ErrNotExist", err)
	}
	if _, err := root.ReadFile(ctx, "/t/none"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("reading a missing file: %v, want fs.ErrNotExist", err)
	}

	// Of eight concurrent exclusive creates of one file, exactly one wins.
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = root.Create(ctx, "/t/lock", []byte{byte('0' + i)}, false)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, fs.ErrExist):
			t.Errorf("a losing create: %v, want fs.ErrExist", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d exclusive creates won, want 1: %v", won, errs)
	}

	// Renames: a directory moves whole; a target in the way (file or directory) is refused and
	// nothing moves; a missing source is fs.ErrNotExist.
	if err := root.Rename(ctx, "/t/a dir é", "/t/moved"); err != nil {
		t.Fatal(err)
	}
	if err := root.Mkdirs(ctx, "/t/other"); err != nil {
		t.Fatal(err)
	}
	if err := root.Rename(ctx, "/t/moved", "/t/other"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("a rename onto a directory: %v, want fs.ErrExist", err)
	}
	if err := root.Rename(ctx, "/t/lock", "/t/empty"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("a rename onto a file: %v, want fs.ErrExist", err)
	}
	if err := root.Rename(ctx, "/t/none", "/t/none2"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a rename of a missing path: %v, want fs.ErrNotExist", err)
	}
	list, err := root.List(ctx, "/t")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.PathSuffix)
	}
	if want := []string{"empty", "lock", "moved", "other"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("listing %q, want %q", names, want)
	}
	if list, _ := root.List(ctx, "/t/moved"); len(list) != 1 || list[0].PathSuffix != "f.json" {
		t.Fatalf("the moved directory holds %+v", list)
	}

	// Deletes: a non-empty directory only when recursive; a missing path is no error.
	if err := root.Delete(ctx, "/t/moved", false); err == nil {
		t.Fatal("a non-recursive delete of a non-empty directory succeeded")
	}
	if err := root.Delete(ctx, "/t/moved", true); err != nil {
		t.Fatal(err)
	}
	if ok, err := root.Exists(ctx, "/t/moved"); ok || err != nil {
		t.Fatalf("after the delete: exists %v, %v", ok, err)
	}
	if err := root.Delete(ctx, "/t/none", true); err != nil {
		t.Fatalf("deleting a missing path: %v", err)
	}

	// Permissions are checked: another user cannot write into the harness user's folder.
	other, err := webhdfs.New([]string{strings.TrimPrefix(h.WebHDFS, "http://")}, user)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Create(ctx, "/t/theirs", []byte("x"), false); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("another user's create: %v, want fs.ErrPermission", err)
	}
	if err := other.Mkdirs(ctx, "/t/theirs"); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("another user's mkdirs: %v, want fs.ErrPermission", err)
	}
	var re *webhdfs.RemoteError
	if err := other.Delete(ctx, "/t/lock", false); !errors.As(err, &re) || re.Exception != "AccessControlException" {
		t.Fatalf("another user's delete: %v, want an AccessControlException", err)
	}
}

// TestWebHDFSAddress checks the addresses the client takes and refuses.
func TestWebHDFSAddress(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:9870":          "http://127.0.0.1:9870",
		"http://nn.example:9870":  "http://nn.example:9870",
		"https://nn.example:9871": "https://nn.example:9871",
	} {
		c, err := webhdfs.New([]string{addr}, "u")
		if err != nil || c.Addr() != want {
			t.Errorf("%s: %v %v, want %s", addr, c, err, want)
		}
	}
	for _, addr := range []string{"hdfs://nn:8020", "http://nn:9870/webhdfs/v1", "http://:9870", "ftp://nn"} {
		if _, err := webhdfs.New([]string{addr}, "u"); err == nil || !strings.Contains(err.Error(), "HTTP address") {
			t.Errorf("%s: %v, want refused", addr, err)
		}
	}
}

func currentUser(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("id", "-un").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// nameNode is a 127.0.0.1 server in front of the real NameNode: as a standby it answers every
// call as a standby NameNode does (403, StandbyException); as the active one it forwards, except
// that it answers the next fail[op] calls of op 503 (a NameNode busy or restarting) and, when
// kerberos, every call 401 asking for SPNEGO, as a Kerberized NameNode does.
type nameNode struct {
	mu       sync.Mutex
	standby  bool
	kerberos bool
	fail     map[string]int
	calls    map[string]int // by op
	url      string
}

func startNameNode(t *testing.T, real string, n *nameNode) *nameNode {
	t.Helper()
	target, err := url.Parse(real)
	if err != nil {
		t.Fatal(err)
	}
	fwd := httputil.NewSingleHostReverseProxy(target)
	n.calls = map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op := r.URL.Query().Get("op")
		n.mu.Lock()
		n.calls[op]++
		failing := n.fail[op] > 0
		if failing {
			n.fail[op]--
		}
		n.mu.Unlock()
		switch {
		case n.kerberos:
			w.Header().Set("WWW-Authenticate", "Negotiate")
			http.Error(w, "Authentication required", http.StatusUnauthorized)
		case n.standby:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"RemoteException":{"exception":"StandbyException","javaClassName":"org.apache.hadoop.ipc.StandbyException",`+
				`"message":"Operation category READ is not supported in state standby. Visit https://s.apache.org/sbnn-error"}}`)
		case failing:
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		default:
			fwd.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	n.url = srv.URL
	return n
}

func (n *nameNode) count(op string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.calls[op]
}

// TestSlowWebHDFSFailover runs the client on a nameservice of three NameNodes: one that refuses
// connections, a standby, and the real NameNode: it fails over to the active one and keeps to it;
// a busy NameNode's 503 is retried for an operation that may be repeated, and not for a rename;
// a nameservice of standbys alone is reported when the context ends; a Kerberized NameNode is
// refused, saying that hdfs:// outputs need simple authentication.
func TestSlowWebHDFSFailover(t *testing.T) {
	h := startHDFS(t)
	ctx := context.Background()
	dead := "http://127.0.0.1:1"
	standby := startNameNode(t, h.WebHDFS, &nameNode{standby: true})
	active := startNameNode(t, h.WebHDFS, &nameNode{fail: map[string]int{}})
	c, err := webhdfs.New([]string{dead, standby.url, active.url}, currentUser(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Mkdirs(ctx, "/ha/a"); err != nil {
		t.Fatal(err)
	}
	if c.Addr() != active.url || standby.count("MKDIRS") != 1 || active.count("MKDIRS") != 1 {
		t.Fatalf("after a failover: talking to %s, the standby had %d calls, the active one %d", c.Addr(), standby.count("MKDIRS"), active.count("MKDIRS"))
	}
	if err := c.Create(ctx, "/ha/a/f", []byte("x"), false); err != nil {
		t.Fatal(err)
	}
	if standby.count("CREATE") != 0 {
		t.Errorf("the client went back to the standby")
	}

	active.mu.Lock()
	active.fail["GETFILESTATUS"], active.fail["RENAME"] = 2, 1
	active.mu.Unlock()
	if st, err := c.Status(ctx, "/ha/a/f"); err != nil || st.Length != 1 {
		t.Fatalf("a status retried after two 503s: %+v, %v", st, err)
	}
	if n := active.count("GETFILESTATUS"); n != 3 {
		t.Errorf("the status was sent %d times, want 3", n)
	}
	if err := c.Rename(ctx, "/ha/a/f", "/ha/a/g"); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a rename answered 503: %v, want its error (a rename is not sent again)", err)
	}
	if n := active.count("RENAME"); n != 1 {
		t.Errorf("the rename was sent %d times, want once", n)
	}
	if err := c.Rename(ctx, "/ha/a/f", "/ha/a/g"); err != nil {
		t.Fatal(err)
	}

	only, err := webhdfs.New([]string{standby.url}, currentUser(t))
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := only.Status(sctx, "/ha"); err == nil || !strings.Contains(err.Error(), "StandbyException") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a nameservice of standbys: %v, want the StandbyException when the context ended", err)
	}

	krb := startNameNode(t, h.WebHDFS, &nameNode{kerberos: true})
	kc, err := webhdfs.New([]string{krb.url}, currentUser(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Status(ctx, "/ha"); err == nil || !strings.Contains(err.Error(), "Kerberos") || !strings.Contains(err.Error(), "simple authentication") || krb.count("GETFILESTATUS") != 1 {
		t.Errorf("a Kerberized NameNode (%d calls): %v, want one call refused naming Kerberos", krb.count("GETFILESTATUS"), err)
	}
}
