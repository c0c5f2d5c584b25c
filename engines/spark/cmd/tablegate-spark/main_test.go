package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate/outcome"
)

// TestEarlyReports: a command line that fails before its run (a flag that does not parse, a
// missing server, a refused option) still prints one JSON report, with outcome null, writes it to
// --report, and exits 2; a refusal names what to do instead. No server is needed.
func TestEarlyReports(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(schemaFile, []byte("schema: S\ncolumns:\n  - name: id\n    type: Int64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.json")
	env := func(string) string { return "" }
	for _, tc := range []struct {
		args     []string
		typ, msg string
	}{
		{[]string{"validate", "--bogus", "--format", "json", "--report", report}, "UsageError", "unknown flag: --bogus"},
		{[]string{"validate", "--schema", schemaFile, "--input", "in.parquet", "--format=json", "--report=" + report}, "UsageError", "--spark-remote"},
		{[]string{"validate", "--schema", schemaFile, "--input", "in.csv", "--spark-remote", "sc://127.0.0.1:1", "--granularity", "table", "--format", "json", "--report", report},
			"SettingError", "granularity"},
		{[]string{"validate", "--schema", schemaFile, "--input", "in.parquet", "--spark-remote", "sc://127.0.0.1:1", "--out", "delta:orders", "--format", "json", "--report", report},
			"UsageError", "delta:[catalog.]namespace.table"},
	} {
		os.Remove(report)
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, &stdout, &stderr, env)
		var rep outcome.Report
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("%v: stdout is not one report (%v): %s", tc.args, err, stdout.String())
		}
		if code != 2 || rep.Outcome != nil || rep.Error == nil || rep.Error.Type != tc.typ || !strings.Contains(rep.Error.Message, tc.msg) {
			t.Errorf("%v: exit %d, report %+v; want exit 2, a %s about %q", tc.args, code, rep.Error, tc.typ, tc.msg)
		}
		if data, err := os.ReadFile(report); err != nil || !bytes.Equal(bytes.TrimSpace(data), bytes.TrimSpace(stdout.Bytes())) {
			t.Errorf("%v: --report holds %q, %v", tc.args, data, err)
		}
	}
}

// TestS3Access: an s3a:// output needs this process's own S3 access, loaded as the AWS CLI loads
// it. With no credentials anywhere the run stops before it connects, saying where they are
// looked for; with them, the endpoint comes from --s3-endpoint, else AWS_ENDPOINT_URL, and a
// store that does not answer stops the run before it connects, naming the output. No server is
// needed.
func TestS3Access(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(schemaFile, []byte("schema: S\ncolumns:\n  - name: id\n    type: Int64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"validate", "--schema", schemaFile, "--input", filepath.Join(dir, "in.parquet"), "--spark-remote", "sc://127.0.0.1:1",
		"--out", "s3a://bucket/out/t.parquet", "--format", "json"}
	keys := map[string]string{"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s", "AWS_ENDPOINT_URL": "http://127.0.0.1:1"}
	for _, tc := range []struct {
		env   map[string]string
		flags []string
		want  []string
	}{
		{nil, nil, []string{"s3a://bucket/out/t.parquet", "no AWS credentials", "AWS_PROFILE"}},
		{keys, nil, []string{"s3a://bucket/out/t.parquet", "http://127.0.0.1:1/bucket/out/.t.parquet.tablegate-probe-"}},
		{keys, []string{"--s3-endpoint", "http://127.0.0.1:2"}, []string{"http://127.0.0.1:2/bucket/out/"}},
	} {
		// The AWS SDK reads the process's environment: give it one with no credentials,
		// files or instance metadata of the machine, then the case's.
		for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ROLE_ARN",
			"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
			"AWS_CONTAINER_CREDENTIALS_FULL_URI"} {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
		t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "none"))
		t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "none"))
		t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append(append([]string(nil), args...), tc.flags...), &stdout, &stderr, os.Getenv)
		var rep outcome.Report
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("%v: stdout is not one report (%v): %s", tc.env, err, stdout.String())
		}
		if code == 0 || rep.Error == nil {
			t.Fatalf("%v %v: exit %d, report error %v", tc.env, tc.flags, code, rep.Error)
		}
		for _, w := range tc.want {
			if !strings.Contains(rep.Error.Message, w) {
				t.Errorf("%v %v: %q does not say %q", tc.env, tc.flags, rep.Error.Message, w)
			}
		}
	}
}

// TestS3PathStyle: buckets are addressed path-style when an endpoint is given (by flag, by
// AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL), not for AWS S3, and as --s3-path-style says when given.
func TestS3PathStyle(t *testing.T) {
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	for _, tc := range []struct {
		env   map[string]string
		flags []string
		want  bool
	}{
		{nil, nil, false},
		{nil, []string{"--s3-endpoint", "http://minio:9000"}, true},
		{map[string]string{"AWS_ENDPOINT_URL_S3": "http://minio:9000"}, nil, true},
		{map[string]string{"AWS_ENDPOINT_URL": "http://minio:9000"}, nil, true},
		{map[string]string{"AWS_ENDPOINT_URL": "http://minio:9000"}, []string{"--s3-path-style=false"}, false},
		{nil, []string{"--s3-path-style"}, true},
	} {
		f := &flags{out: "s3a://bucket/out/t.parquet"}
		cmd := &cobra.Command{}
		cmd.Flags().StringVar(&f.s3Endpoint, "s3-endpoint", "", "")
		cmd.Flags().BoolVar(&f.s3PathStyle, "s3-path-style", false, "")
		if err := cmd.ParseFlags(tc.flags); err != nil {
			t.Fatal(err)
		}
		cmd.SetContext(context.Background())
		o, ok, err := f.s3(cmd, func(k string) string { return tc.env[k] })
		if err != nil || !ok || o.PathStyle != tc.want {
			t.Errorf("%v %v: path style %v (%v, %v), want %v", tc.env, tc.flags, o.PathStyle, ok, err, tc.want)
		}
	}
}

// TestLockDir: the locks are in the user's own folder, so that users of one machine do not share
// (and cannot block) one folder of locks.
func TestLockDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the cache folder follows XDG_CACHE_HOME on Linux")
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	if got, want := lockDir(), filepath.Join(cache, "tablegate", "spark-locks"); got != want {
		t.Errorf("with XDG_CACHE_HOME=%s the locks are in %s, want %s", cache, got, want)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if got, want := lockDir(), filepath.Join(os.TempDir(), "tablegate-spark-locks-"+strconv.Itoa(os.Getuid())); got != want {
		t.Errorf("with no cache folder the locks are in %s, want %s", got, want)
	}
}
