package spark

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/config"
)

// TestS3Client runs every call of the store's S3 client against moto's S3 server: keys with
// spaces, "+" and Unicode, conditional writes (If-None-Match, If-Match) and deletes (If-Match),
// a copy in one request and one in parts, batch deletes of present and missing keys.
func TestS3Client(t *testing.T) {
	o := moto(t)
	c := client(t, o)
	ctx := context.Background()
	const bucket = testBucket

	keys := []string{"d/a file é.parquet", "d/b", "d/day=1/c", "d/d+e", "d/f"}
	for _, k := range keys {
		if _, err := c.Put(ctx, bucket, k, []byte(k), s3Cond{}); err != nil {
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
		t.Errorf("listed %q, want %q", listed, want)
	}
	if data, info, err := c.Get(ctx, bucket, "d/a file é.parquet"); err != nil || string(data) != "d/a file é.parquet" || info.ETag == "" || info.Modified.IsZero() || info.Now.IsZero() {
		t.Errorf("get: %q, %+v, %v", data, info, err)
	}
	if _, _, err := c.Get(ctx, bucket, "d/none"); !isNotFound(err) {
		t.Errorf("get of a missing key: %v", err)
	}

	etag, err := c.Put(ctx, bucket, "lock", []byte("one"), s3Cond{IfNoneMatch: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(ctx, bucket, "lock", []byte("two"), s3Cond{IfNoneMatch: true}); !isPreconditionFailed(err) {
		t.Errorf("a second If-None-Match write: %v", err)
	}
	if _, err := c.Put(ctx, bucket, "lock", []byte("two"), s3Cond{IfMatch: `"other"`}); !isPreconditionFailed(err) {
		t.Errorf("an If-Match write on another ETag: %v", err)
	}
	etag2, err := c.Put(ctx, bucket, "lock", []byte("two"), s3Cond{IfMatch: etag})
	if err != nil || etag2 == etag {
		t.Errorf("an If-Match write on its ETag: %q, %v", etag2, err)
	}
	if err := c.DeleteIf(ctx, bucket, "lock", etag); !isPreconditionFailed(err) {
		t.Errorf("a delete on an old ETag: %v", err)
	}
	if err := c.DeleteIf(ctx, bucket, "lock", etag2); err != nil {
		t.Errorf("a delete on its ETag: %v", err)
	}
	if _, _, err := c.Get(ctx, bucket, "lock"); !isNotFound(err) {
		t.Errorf("the lock is still there: %v", err)
	}

	for _, k := range []string{"d/a file é.parquet", "d/d+e"} {
		if err := c.Copy(ctx, bucket, k, "e/"+k, int64(len(k))); err != nil {
			t.Fatal(err)
		}
		if data, _, err := c.Get(ctx, bucket, "e/"+k); err != nil || string(data) != k {
			t.Errorf("copy of %s: %q, %v", k, data, err)
		}
	}
	big := make([]byte, 11<<20+123)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(ctx, bucket, "big é", big, s3Cond{}); err != nil {
		t.Fatal(err)
	}
	parts := *c
	parts.maxSingle, parts.partSize = 1<<20, 5<<20 // three parts: 5, 5 and 1 MiB
	if err := parts.Copy(ctx, bucket, "big é", "e/big", int64(len(big))); err != nil {
		t.Fatal(err)
	}
	if data, _, err := c.Get(ctx, bucket, "e/big"); err != nil || !bytes.Equal(data, big) {
		t.Errorf("copy in parts: %d bytes, %v", len(data), err)
	}
	if err := c.Copy(ctx, bucket, "none", "e/none", 5); !isNotFound(err) {
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

// recorder is a reverse proxy to moto on 127.0.0.1 that records the access key id of every
// request and answers the first `throttle` PUTs of keys ending in suffix 503 SlowDown.
type recorder struct {
	mu        sync.Mutex
	keys      []string // access key ids, in order
	tokens    int      // requests with a session token
	suffix    string
	throttle  int
	throttled int
}

func proxy(t *testing.T, endpoint string, r *recorder) string {
	t.Helper()
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	fwd := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		auth := req.Header.Get("Authorization")
		if _, rest, ok := strings.Cut(auth, "Credential="); ok {
			r.keys = append(r.keys, strings.SplitN(rest, "/", 2)[0])
		}
		if req.Header.Get("X-Amz-Security-Token") != "" {
			r.tokens++
		}
		slow := req.Method == http.MethodPut && r.suffix != "" && strings.HasSuffix(req.URL.Path, r.suffix) && r.throttled < r.throttle
		if slow {
			r.throttled++
		}
		r.mu.Unlock()
		if slow {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
			return
		}
		fwd.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// awsEnv gives the test an AWS environment of its own: no credentials, files or instance
// metadata from the machine, then env.
func awsEnv(t *testing.T, env map[string]string) {
	dir := t.TempDir()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
		"AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL_STS",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_MAX_ATTEMPTS", "AWS_RETRY_MODE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_REGION", "us-east-1")
	for k, v := range env {
		t.Setenv(k, v)
	}
}

// storeRoundTrip takes and gives back an output's lock through a store of o, the S3 calls of a
// run's start and end.
func storeRoundTrip(t *testing.T, o S3Options, dir string) {
	t.Helper()
	w := s3Writer(t, o, dir)
	if err := w.st.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := w.Begin(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.Abort("")
}

// TestS3Credentials: the store's requests are signed with what config.LoadDefaultConfig finds,
// as the tablegate-spark binary loads it: a named profile of a shared credentials file
// (AWS_SHARED_CREDENTIALS_FILE, AWS_PROFILE), and a web identity token exchanged for temporary
// credentials at moto's STS (AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_ARN: AssumeRoleWithWebIdentity).
// Throttled answers (503 SlowDown) are retried, past the SDK's default number of attempts. With
// no credentials anywhere, Check says where they are looked for.
func TestS3Credentials(t *testing.T) {
	base := moto(t)
	ctx := context.Background()

	t.Run("profile", func(t *testing.T) {
		creds := filepath.Join(t.TempDir(), "credentials")
		if err := os.WriteFile(creds, []byte("[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = s\n\n"+
			"[etl]\naws_access_key_id = AKIDETLPROFILE\naws_secret_access_key = s\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		awsEnv(t, map[string]string{"AWS_SHARED_CREDENTIALS_FILE": creds, "AWS_PROFILE": "etl"})
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		o := S3Options{Config: cfg, Endpoint: proxy(t, base.Endpoint, rec), PathStyle: true}
		storeRoundTrip(t, o, "profile")
		if len(rec.keys) == 0 || slices.ContainsFunc(rec.keys, func(k string) bool { return k != "AKIDETLPROFILE" }) {
			t.Errorf("signed with %v, want the etl profile's AKIDETLPROFILE only", rec.keys)
		}
	})

	t.Run("web identity", func(t *testing.T) {
		token := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(token, []byte("eyJhbGciOiJSUzI1NiJ9.e30.c2ln"), 0o600); err != nil {
			t.Fatal(err)
		}
		awsEnv(t, map[string]string{"AWS_WEB_IDENTITY_TOKEN_FILE": token, "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/etl",
			"AWS_ROLE_SESSION_NAME": "tablegate-test", "AWS_ENDPOINT_URL_STS": base.Endpoint})
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		o := S3Options{Config: cfg, Endpoint: proxy(t, base.Endpoint, rec), PathStyle: true}
		storeRoundTrip(t, o, "web-identity")
		if len(rec.keys) == 0 || rec.tokens != len(rec.keys) || slices.ContainsFunc(rec.keys, func(k string) bool { return !strings.HasPrefix(k, "ASIA") }) {
			t.Errorf("signed with %v (%d with a session token), want STS's temporary credentials (ASIA…) on every request", rec.keys, rec.tokens)
		}
	})

	t.Run("throttled", func(t *testing.T) {
		// Four in a row: more than the SDK's default of three attempts allows.
		rec := &recorder{suffix: ".lock", throttle: 4}
		o := base
		o.Endpoint = proxy(t, base.Endpoint, rec)
		storeRoundTrip(t, o, "throttled")
		if rec.throttled != 4 {
			t.Errorf("throttled %d writes of the lock, want 4", rec.throttled)
		}
	})

	t.Run("no credentials", func(t *testing.T) {
		awsEnv(t, nil)
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			t.Fatal(err)
		}
		st, err := newS3Store(&S3Options{Config: cfg, Endpoint: base.Endpoint, PathStyle: true}, "s3a://"+testBucket+"/none/t.parquet", "")
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Check(ctx); err == nil || !strings.Contains(err.Error(), "no AWS credentials") || !strings.Contains(err.Error(), "AWS_PROFILE") {
			t.Errorf("a check without credentials: %v", err)
		}
	})
}
