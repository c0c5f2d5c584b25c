package s3

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	osexec "os/exec"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tablegate/tablegate/engines/spark/internal/sparktest"
)

// TestClient runs every request of the client against moto's S3 server (signed, path-style):
// listings over several pages, keys with spaces and Unicode, conditional writes and deletes, a
// copy in one request and one in parts, batch deletes of present and missing keys.
func TestClient(t *testing.T) {
	bin := os.Getenv("TABLEGATE_MOTO_SERVER")
	if bin == "" {
		var err error
		if bin, err = osexec.LookPath("moto_server"); err != nil {
			t.Skip("needs moto's S3 server: pip install 'moto[server]', or set TABLEGATE_MOTO_SERVER")
		}
	}
	srv, err := sparktest.StartS3(bin, t.TempDir(), "", 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	ctx := context.Background()
	const bucket = "tablegate-client"
	if err := srv.CreateBucket(ctx, bucket); err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Endpoint: srv.Endpoint, PathStyle: true, Credentials: Credentials{AccessKeyID: "testing", SecretAccessKey: "testing"}})
	if err != nil {
		t.Fatal(err)
	}
	c.pageSize = 2

	keys := []string{"d/a file é.parquet", "d/b", "d/day=1/c", "d/d+e", "d/f"}
	for _, k := range keys {
		if _, err := c.Put(ctx, bucket, k, []byte(k), Cond{}); err != nil {
			t.Fatalf("put %s: %v", k, err)
		}
	}
	objs, err := c.List(ctx, bucket, "d/")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, o := range objs {
		listed = append(listed, o.Key)
		if o.Size != int64(len(o.Key)) {
			t.Errorf("%s: size %d", o.Key, o.Size)
		}
	}
	if want := slices.Sorted(slices.Values(keys)); !reflect.DeepEqual(listed, want) {
		t.Errorf("listed %q over pages of 2, want %q", listed, want)
	}
	if data, _, err := c.Get(ctx, bucket, "d/a file é.parquet"); err != nil || string(data) != "d/a file é.parquet" {
		t.Errorf("get: %q, %v", data, err)
	}
	if _, _, err := c.Get(ctx, bucket, "d/none"); !IsNotFound(err) {
		t.Errorf("get of a missing key: %v", err)
	}

	etag, err := c.Put(ctx, bucket, "lock", []byte("one"), Cond{IfNoneMatch: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(ctx, bucket, "lock", []byte("two"), Cond{IfNoneMatch: true}); !IsPreconditionFailed(err) {
		t.Errorf("a second If-None-Match write: %v", err)
	}
	if _, err := c.Put(ctx, bucket, "lock", []byte("two"), Cond{IfMatch: `"other"`}); !IsPreconditionFailed(err) {
		t.Errorf("an If-Match write on another ETag: %v", err)
	}
	etag2, err := c.Put(ctx, bucket, "lock", []byte("two"), Cond{IfMatch: etag})
	if err != nil || etag2 == etag {
		t.Errorf("an If-Match write on its ETag: %q, %v", etag2, err)
	}
	if err := c.DeleteIf(ctx, bucket, "lock", etag); !IsPreconditionFailed(err) {
		t.Errorf("a delete on an old ETag: %v", err)
	}
	if err := c.DeleteIf(ctx, bucket, "lock", etag2); err != nil {
		t.Errorf("a delete on its ETag: %v", err)
	}
	if _, _, err := c.Get(ctx, bucket, "lock"); !IsNotFound(err) {
		t.Errorf("the lock is still there: %v", err)
	}

	if err := c.Copy(ctx, bucket, "d/a file é.parquet", "e/copied é", int64(len("d/a file é.parquet"))); err != nil {
		t.Fatal(err)
	}
	if data, _, err := c.Get(ctx, bucket, "e/copied é"); err != nil || string(data) != "d/a file é.parquet" {
		t.Errorf("copy: %q, %v", data, err)
	}
	big := make([]byte, 11<<20+123)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(ctx, bucket, "big", big, Cond{}); err != nil {
		t.Fatal(err)
	}
	c.maxSingle, c.partSize = 1<<20, 5<<20 // three parts: 5, 5 and 1 MiB
	if err := c.Copy(ctx, bucket, "big", "e/big", int64(len(big))); err != nil {
		t.Fatal(err)
	}
	if data, _, err := c.Get(ctx, bucket, "e/big"); err != nil || !bytes.Equal(data, big) {
		t.Errorf("copy in parts: %d bytes, %v", len(data), err)
	}
	if err := c.Copy(ctx, bucket, "none", "e/none", 5); !IsNotFound(err) {
		t.Errorf("a copy of a missing key: %v", err)
	}

	var many []string
	for i := range 1203 {
		many = append(many, fmt.Sprintf("gone/%d", i))
	}
	if err := c.Delete(ctx, bucket, append(many, keys...)); err != nil {
		t.Fatal(err)
	}
	if objs, err := c.List(ctx, bucket, "d/"); err != nil || len(objs) != 0 {
		t.Errorf("left after the delete: %v, %v", objs, err)
	}
}
