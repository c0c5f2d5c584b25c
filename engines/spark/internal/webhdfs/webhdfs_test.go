package webhdfs_test

import (
	"context"
	"errors"
	"io/fs"
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
	root, err := webhdfs.New(h.WebHDFS, currentUser(t))
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
	other, err := webhdfs.New(strings.TrimPrefix(h.WebHDFS, "http://"), user)
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
		c, err := webhdfs.New(addr, "u")
		if err != nil || c.Addr() != want {
			t.Errorf("%s: %v %v, want %s", addr, c, err, want)
		}
	}
	for _, addr := range []string{"hdfs://nn:8020", "http://nn:9870/webhdfs/v1", "http://:9870", "ftp://nn"} {
		if _, err := webhdfs.New(addr, "u"); err == nil || !strings.Contains(err.Error(), "HTTP address") {
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
