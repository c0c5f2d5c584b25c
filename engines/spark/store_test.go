package spark_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	osexec "os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/tablegate/tablegate/engines/spark"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// needS3 skips unless the shared Spark has the s3a connector and an S3 emulator.
func needS3(t *testing.T) {
	t.Helper()
	needSpark(t)
	if server.S3 == nil {
		t.Skipf("needs the s3a connector's jars: set %s (.ci/run resolves them from Maven Central)", s3JarsVar)
	}
}

// putFile uploads a local file to the emulator and returns its s3a:// URL.
func putFile(t *testing.T, bucket, key, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := server.S3.Put(context.Background(), bucket, key, f); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("s3a://%s/%s", bucket, key)
}

// TestRemoteFooter runs the footer check of inputs this process cannot open through Spark:
// unsigned integers and millisecond timestamps are refused by name, a clean input passes, and a
// footer longer than the first read (1,500 columns) is read whole. Over file:// URLs on any
// server, and over s3a:// when the emulator runs.
func TestRemoteFooter(t *testing.T) {
	needSpark(t)
	db := duck(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	good := filepath.Join(dir, "good")
	wide := filepath.Join(dir, "wide")
	for _, d := range []string{bad, good, wide} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// In name order the first file is the one checked: a.parquet.
	writeParquet(t, db, "SELECT 1::UBIGINT AS id, TIMESTAMP_MS '2020-01-01 00:00:00' AS at, 'x' AS other", filepath.Join(bad, "a.parquet"))
	writeParquet(t, db, "SELECT 1::BIGINT AS id, TIMESTAMP '2020-01-01 00:00:00' AS at, 'x' AS other", filepath.Join(bad, "b.parquet"))
	writeParquet(t, db, "SELECT 1::BIGINT AS id, TIMESTAMP '2020-01-01 00:00:00' AS at", filepath.Join(good, "a.parquet"))
	cols := make([]string, 1500)
	for i := range cols {
		cols[i] = fmt.Sprintf("%d::UTINYINT AS \"c%04d\"", i%200, i)
	}
	writeParquet(t, db, "SELECT "+strings.Join(cols, ", "), filepath.Join(wide, "a.parquet"))
	if st, err := os.Stat(filepath.Join(wide, "a.parquet")); err != nil || st.Size() < 64<<10 {
		t.Fatalf("the wide file's footer must pass 64 KB: %v %v", st, err)
	}
	p := plan(t, `schema: T
columns:
  - name: id
    type: Int64
  - name: at
    type: Datetime
`)
	widePlan := plan(t, "schema: W\ncolumns:\n  - name: c1499\n    type: Int16\n")
	urls := func(local string) []string {
		out := []string{"file://" + local}
		if server.S3 != nil {
			entries, err := os.ReadDir(local)
			if err != nil {
				t.Fatal(err)
			}
			prefix := "footer/" + filepath.Base(local)
			for _, e := range entries {
				putFile(t, "tablegate-test", prefix+"/"+e.Name(), filepath.Join(local, e.Name()))
			}
			out = append(out, "s3a://tablegate-test/"+prefix)
		}
		return out
	}
	ctx := context.Background()
	if server.S3 != nil {
		if err := server.S3.CreateBucket(ctx, "tablegate-test"); err != nil && !strings.Contains(err.Error(), "BucketAlready") {
			t.Fatal(err)
		}
	}
	s, err := spark.Connect(ctx, server.Remote)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, u := range urls(bad) {
		err := spark.RemoteFooterTypes(ctx, s, u, p.Schema().Columns)
		var uc *spark.UnsupportedColumnError
		if !errors.As(err, &uc) || !strings.Contains(err.Error(), "'id' (unsigned 64-bit integers)") || !strings.Contains(err.Error(), "'at' (millisecond timestamps") || !strings.HasSuffix(uc.File, "a.parquet") {
			t.Errorf("%s: %v, want 'id' and 'at' refused in a.parquet", u, err)
		}
	}
	for _, u := range urls(good) {
		if err := spark.RemoteFooterTypes(ctx, s, u, p.Schema().Columns); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, u := range urls(wide) {
		err := spark.RemoteFooterTypes(ctx, s, u, widePlan.Schema().Columns)
		if err == nil || !strings.Contains(err.Error(), "'c1499' (unsigned 8-bit integers)") {
			t.Errorf("%s: %v, want c1499 refused", u, err)
		}
	}
	if err := spark.RemoteFooterTypes(ctx, s, "file://"+filepath.Join(dir, "none"), p.Schema().Columns); err == nil {
		t.Error("a missing input passed the footer check")
	}
}

// TestS3Input validates a Parquet file on S3 (s3a://, the emulator) and compares everything with
// DuckDB on the same file read locally.
func TestS3Input(t *testing.T) {
	needS3(t)
	ctx := context.Background()
	if err := server.S3.CreateBucket(ctx, "tablegate-test"); err != nil && !strings.Contains(err.Error(), "BucketAlready") {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db := duck(t)
	yaml, data := scalars(400)
	in := filepath.Join(dir, "in.parquet")
	writeParquet(t, db, data, in)
	url := putFile(t, "tablegate-test", "input/scalars.parquet", in)
	compareOn(t, db, plan(t, yaml), dir, 5, comparison{in: in, sparkIn: url})
}

// s3Access is the engine's own access to the emulator, and a client that reads it back.
func s3Access(t *testing.T) (spark.S3Options, *spark.S3Client) {
	t.Helper()
	o := spark.S3Options{Config: aws.Config{Credentials: credentials.NewStaticCredentialsProvider("testing", "testing", "")}, Endpoint: server.S3.Endpoint, PathStyle: true}
	return o, spark.NewS3Client(o)
}

// objects are the objects under prefix of the test bucket: key → content.
func objects(t *testing.T, c *spark.S3Client, prefix string) map[string]string {
	t.Helper()
	objs, err := c.List(context.Background(), "tablegate-test", prefix)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, o := range objs {
		data, _, err := c.Get(context.Background(), "tablegate-test", o.Key)
		if err != nil {
			t.Fatal(err)
		}
		out[o.Key] = string(data)
	}
	return out
}

// fetchDir downloads the Parquet directory at url (s3a://tablegate-test/…) into a local folder
// and returns it.
func fetchDir(t *testing.T, c *spark.S3Client, url string) string {
	t.Helper()
	prefix := strings.TrimPrefix(url, "s3a://tablegate-test/") + "/"
	dir := t.TempDir()
	n := 0
	for key, data := range objects(t, c, prefix) {
		if !strings.HasSuffix(key, ".parquet") {
			continue
		}
		n++
		if err := os.WriteFile(filepath.Join(dir, strings.TrimPrefix(key, prefix)), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		t.Fatalf("%s holds no Parquet part", url)
	}
	return dir
}

// TestS3Output validates into s3a:// outputs and compares the table and the quarantine, read back
// from the emulator, and the report with DuckDB's local run; nothing but the two directories is
// left beside them (no temporary, lock or journal). Then a write job failing mid-write, the
// quarantine's and then the table's, leaves both outputs byte for byte as they were.
func TestS3Output(t *testing.T) {
	needS3(t)
	ctx := context.Background()
	if err := server.S3.CreateBucket(ctx, "tablegate-test"); err != nil && !strings.Contains(err.Error(), "BucketAlready") {
		t.Fatal(err)
	}
	o, c := s3Access(t)
	dir := t.TempDir()
	db := duck(t)
	yaml, data := scalars(400)
	in := filepath.Join(dir, "in.parquet")
	writeParquet(t, db, data, in)
	compareOn(t, db, plan(t, yaml), dir, 5, comparison{in: in, sparkOut: "s3a://tablegate-test/output/cmp", opts: []spark.Option{spark.WithS3(o)},
		fetch: func(t *testing.T, url string) string { return fetchDir(t, c, url) }})
	for key := range objects(t, c, "output/cmp/") {
		if !strings.HasPrefix(key, "output/cmp/out.parquet/") && !strings.HasPrefix(key, "output/cmp/out_quarantine.parquet/") {
			t.Errorf("left beside the outputs: %s", key)
		}
	}

	p := plan(t, outcomeSchema)
	first := filepath.Join(dir, "first.parquet")
	writeParquet(t, db, "SELECT i::BIGINT AS id, (i - 2)::DOUBLE AS amount FROM range(50) t(i)", first)
	second := filepath.Join(dir, "second.parquet")
	writeParquet(t, db, "SELECT i::BIGINT AS id, (i - 30)::DOUBLE AS amount FROM range(60) t(i)", second)
	a := runner.Asset{Name: "t", Plan: p, Input: runner.ParquetInput{Path: first}, Output: runner.ParquetOutput{Path: "s3a://tablegate-test/output/failing/t.parquet"}, Quarantine: true}
	rep, err := spark.New(server.Remote, spark.WithS3(o)).Run(ctx, a, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Quarantine.Address != "s3a://tablegate-test/output/failing/t_quarantine.parquet" || rep.Rows.Valid != 48 || rep.Rows.Invalid != 2 {
		t.Fatalf("first run: quarantine at %q, rows %+v", rep.Quarantine.Address, rep.Rows)
	}
	before := objects(t, c, "output/failing/")
	for _, match := range []string{"'invalid'", "ORDER BY"} { // the quarantine's job, then the table's
		eng := spark.NewWith(func(ctx context.Context) (spark.Session, error) {
			s, err := spark.Connect(ctx, server.Remote)
			return failingWrites{s, match}, err
		}, spark.WithS3(o))
		a.Input = runner.ParquetInput{Path: second}
		rep, err := eng.Run(ctx, a, runner.Options{})
		var oe *outcome.OutputError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), "a job failing mid-write") || rep.Outcome != nil {
			t.Fatalf("error %v (outcome %v), want the injected write failure", err, rep.Outcome)
		}
		if after := objects(t, c, "output/failing/"); !reflect.DeepEqual(after, before) {
			t.Errorf("after a failed write (%s) the outputs hold %d objects, before %d: %v", match, len(after), len(before), slices.Sorted(maps.Keys(after)))
		}
	}
}

// TestS3InputUnsupportedType validates an input on S3 whose footer stores a declared column as
// unsigned integers: Spark would read it as a wider signed type, so the footer check (through
// Spark) stops the run with the column_schema_mismatch outcome, naming the column.
func TestS3InputUnsupportedType(t *testing.T) {
	needS3(t)
	ctx := context.Background()
	if err := server.S3.CreateBucket(ctx, "tablegate-test"); err != nil && !strings.Contains(err.Error(), "BucketAlready") {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "in.parquet")
	writeParquet(t, duck(t), "SELECT 1::UBIGINT AS id, 1::DOUBLE AS amount", in)
	url := putFile(t, "tablegate-test", "unsigned/in.parquet", in)
	rep, err := spark.New(server.Remote).Run(ctx, runner.Asset{Plan: plan(t, outcomeSchema), Input: runner.ParquetInput{Path: url}}, runner.Options{})
	var uc *spark.UnsupportedColumnError
	if !errors.As(err, &uc) || rep.Outcome == nil || *rep.Outcome != outcome.ColumnSchemaMismatch || !strings.Contains(err.Error(), "'id' (unsigned 64-bit integers)") {
		t.Fatalf("outcome %v, error %v; want column_schema_mismatch naming 'id'", rep.Outcome, err)
	}
}

// TestCLIS3 runs `tablegate validate --engine spark` with an s3a:// output, the S3 access from
// the environment as a shell would give it (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_ENDPOINT_URL): tablegate delegates, tablegate-spark reads them, and the table and the
// quarantine are on the emulator.
func TestCLIS3(t *testing.T) {
	needS3(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := server.S3.CreateBucket(ctx, "tablegate-test"); err != nil && !strings.Contains(err.Error(), "BucketAlready") {
		t.Fatal(err)
	}
	_, c := s3Access(t)
	dir, db, in, schemaFile := cliFixture(ctx, t)
	cmd := osexec.CommandContext(ctx, filepath.Join(dir, "tablegate"), "validate", "--engine", "spark", "--spark-remote", server.Remote,
		"--schema", schemaFile, "--input", in, "--out", "s3a://tablegate-test/cli/small.parquet", "--quarantine", "--format", "json")
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=testing", "AWS_SECRET_ACCESS_KEY=testing", "AWS_ENDPOINT_URL="+server.S3.Endpoint)
	stdout, err := cmd.Output()
	var rep outcome.Report
	if jerr := json.Unmarshal(stdout, &rep); jerr != nil || err != nil {
		t.Fatalf("exit %v, stdout %s", err, stdout)
	}
	if rep.Outcome == nil || *rep.Outcome != outcome.Quarantined || rep.Quarantine.Address != "s3a://tablegate-test/cli/small_quarantine.parquet" {
		t.Fatalf("outcome %v, quarantine at %q", rep.Outcome, rep.Quarantine.Address)
	}
	if n := len(rowsOf(t, db, fetchDir(t, c, "s3a://tablegate-test/cli/small.parquet"))); n != 7 {
		t.Errorf("the table has %d rows, want 7", n)
	}
	if n := len(rowsOf(t, db, fetchDir(t, c, "s3a://tablegate-test/cli/small_quarantine.parquet"))); n != 3 {
		t.Errorf("the quarantine has %d rows, want 3", n)
	}
}
