package spark_test

import (
	"context"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/engines/spark"
	"github.com/tablegate/tablegate/engines/spark/internal/webhdfs"
	"github.com/tablegate/tablegate/exec"
	"github.com/tablegate/tablegate/outcome"
)

// needHDFS skips unless the shared Spark has a MiniDFSCluster beside it, and returns a WebHDFS
// client of it acting as this process's user (the one Spark writes as).
func needHDFS(t *testing.T) *webhdfs.Client {
	t.Helper()
	needSpark(t)
	if server.HDFS == nil {
		t.Skipf("needs Hadoop's hadoop-client-minicluster jar: set %s (.ci/run resolves it from Maven Central)", hdfsJarsVar)
	}
	c, err := webhdfs.New(server.HDFS.WebHDFS, hdfsUser(t))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func hdfsUser(t *testing.T) string {
	t.Helper()
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return u.Username
}

// putHDFS copies a local file to path on HDFS and returns its hdfs:// URL.
func putHDFS(t *testing.T, c *webhdfs.Client, local, path string) string {
	t.Helper()
	b, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(context.Background(), path, b, true); err != nil {
		t.Fatal(err)
	}
	return server.HDFS.URL + path
}

// TestHDFSFooter runs the footer check of hdfs:// inputs through Spark: unsigned integers and
// millisecond timestamps are refused by name in the first file, a clean input passes, and a
// missing folder fails.
func TestHDFSFooter(t *testing.T) {
	c := needHDFS(t)
	db := duck(t)
	dir := t.TempDir()
	writeParquet(t, db, "SELECT 1::UBIGINT AS id, TIMESTAMP_MS '2020-01-01 00:00:00' AS at, 'x' AS other", filepath.Join(dir, "a.parquet"))
	writeParquet(t, db, "SELECT 1::BIGINT AS id, TIMESTAMP '2020-01-01 00:00:00' AS at, 'x' AS other", filepath.Join(dir, "b.parquet"))
	bad := putHDFS(t, c, filepath.Join(dir, "a.parquet"), "/footer/bad/a.parquet")
	putHDFS(t, c, filepath.Join(dir, "b.parquet"), "/footer/bad/b.parquet")
	good := putHDFS(t, c, filepath.Join(dir, "b.parquet"), "/footer/good/b.parquet")
	p := plan(t, "schema: T\ncolumns:\n  - name: id\n    type: Int64\n  - name: at\n    type: Datetime\n")
	ctx := context.Background()
	s, err := spark.Connect(ctx, server.Remote)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = spark.RemoteFooterTypes(ctx, s, strings.TrimSuffix(bad, "/a.parquet"), p.Schema().Columns)
	var uc *spark.UnsupportedColumnError
	if !errors.As(err, &uc) || !strings.Contains(err.Error(), "'id' (unsigned 64-bit integers)") || !strings.Contains(err.Error(), "'at' (millisecond timestamps") || uc.File != bad {
		t.Errorf("%v, want 'id' and 'at' refused in %s", err, bad)
	}
	if err := spark.RemoteFooterTypes(ctx, s, strings.TrimSuffix(good, "/b.parquet"), p.Schema().Columns); err != nil {
		t.Errorf("a clean input: %v", err)
	}
	if err := spark.RemoteFooterTypes(ctx, s, server.HDFS.URL+"/footer/none", p.Schema().Columns); err == nil {
		t.Error("a missing input passed the footer check")
	}
}

// TestHDFSInput validates a Parquet folder on HDFS (hdfs://, two files) and compares everything
// with DuckDB on the same files read locally.
func TestHDFSInput(t *testing.T) {
	c := needHDFS(t)
	dir := t.TempDir()
	db := duck(t)
	yaml, data := scalars(400)
	local := filepath.Join(dir, "in")
	if err := os.MkdirAll(local, 0o755); err != nil {
		t.Fatal(err)
	}
	writeParquet(t, db, "SELECT * FROM ("+data+") LIMIT 200", filepath.Join(local, "part-0.parquet"))
	writeParquet(t, db, "SELECT * FROM ("+data+") OFFSET 200", filepath.Join(local, "part-1.parquet"))
	for _, f := range []string{"part-0.parquet", "part-1.parquet"} {
		putHDFS(t, c, filepath.Join(local, f), "/input/scalars/"+f)
	}
	compareOn(t, db, plan(t, yaml), dir, 5, comparison{in: filepath.Join(local, "*.parquet"), sparkIn: server.HDFS.URL + "/input/scalars"})
}

// TestHDFSInputUnsupportedType validates an input on HDFS whose footer stores a declared column
// as unsigned integers: the footer check (through Spark) stops the run with the
// column_schema_mismatch outcome, naming the column.
func TestHDFSInputUnsupportedType(t *testing.T) {
	c := needHDFS(t)
	in := filepath.Join(t.TempDir(), "in.parquet")
	writeParquet(t, duck(t), "SELECT 1::UBIGINT AS id, 1::DOUBLE AS amount", in)
	url := putHDFS(t, c, in, "/unsigned/in.parquet")
	rep, err := spark.New(server.Remote).Run(context.Background(), exec.Asset{Plan: plan(t, outcomeSchema), Input: exec.ParquetInput{Path: url}}, exec.Options{})
	var uc *spark.UnsupportedColumnError
	if !errors.As(err, &uc) || rep.Outcome == nil || *rep.Outcome != outcome.ColumnSchemaMismatch || !strings.Contains(err.Error(), "'id' (unsigned 64-bit integers)") {
		t.Fatalf("outcome %v, error %v; want column_schema_mismatch naming 'id'", rep.Outcome, err)
	}
}
