package sparktest

import (
	"context"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestS3Emulator starts moto's server and puts and lists objects through the helpers the Spark
// tests use (keys with spaces and Unicode included).
func TestS3Emulator(t *testing.T) {
	bin, err := exec.LookPath("moto_server")
	if err != nil {
		t.Skip("moto_server is not on PATH (pip install 'moto[server]')")
	}
	s, err := StartS3(bin, t.TempDir(), "", 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	ctx := context.Background()
	if err := s.CreateBucket(ctx, "tablegate-test"); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"in/b.parquet", "in/a file é.parquet", "other/c"} {
		if err := s.Put(ctx, "tablegate-test", key, strings.NewReader(key)); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := s.List(ctx, "tablegate-test", "in/")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"in/a file é.parquet", "in/b.parquet"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
	if err := s.CreateBucket(ctx, "x"); err == nil || !strings.Contains(err.Error(), "InvalidBucketName") {
		t.Errorf("a bucket name too short: %v, want moto's refusal", err)
	}
	if s.Conf()["spark.hadoop.fs.s3a.endpoint"] != s.Endpoint {
		t.Errorf("conf %v", s.Conf())
	}
}
