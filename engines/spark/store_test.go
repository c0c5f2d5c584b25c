package spark_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/engines/spark"
	"github.com/tablegate/tablegate/exec"
	"github.com/tablegate/tablegate/outcome"
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

// TestS3OutputRefused checks that an output on an object store is refused before anything runs,
// naming it.
func TestS3OutputRefused(t *testing.T) {
	needS3(t)
	dir := t.TempDir()
	db := duck(t)
	in := filepath.Join(dir, "in.parquet")
	writeParquet(t, db, "SELECT 1::BIGINT AS id, 1::DOUBLE AS amount", in)
	_, err := spark.New(server.Remote).Run(context.Background(), exec.Asset{Plan: plan(t, outcomeSchema), Input: exec.ParquetInput{Path: in},
		Output: exec.ParquetOutput{Path: "s3a://tablegate-test/out/t.parquet"}}, exec.Options{})
	if err == nil || !strings.Contains(err.Error(), "s3a://tablegate-test/out/t.parquet") {
		t.Fatalf("error %v, want the object-store output refused by name", err)
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
	rep, err := spark.New(server.Remote).Run(ctx, exec.Asset{Plan: plan(t, outcomeSchema), Input: exec.ParquetInput{Path: url}}, exec.Options{})
	var uc *spark.UnsupportedColumnError
	if !errors.As(err, &uc) || rep.Outcome == nil || *rep.Outcome != outcome.ColumnSchemaMismatch || !strings.Contains(err.Error(), "'id' (unsigned 64-bit integers)") {
		t.Fatalf("outcome %v, error %v; want column_schema_mismatch naming 'id'", rep.Outcome, err)
	}
}
