package spark_test

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/engines/spark"
	"github.com/tablegate/tablegate/runner"
)

var benchRows = flag.Int("spark.rows", 200000, "rows of the Spark-against-DuckDB benchmark input")

// BenchmarkEngines validates the same Parquet file (the scalars differential schema: 30 rules,
// a group rule and a primary key) with quarantine and output, on DuckDB and on the local Spark
// Connect server (local[2]). Run: TABLEGATE_SLOW=1 go test -run '^$' -bench Engines -benchtime 1x.
func BenchmarkEngines(b *testing.B) {
	if server == nil {
		b.Skip("needs the Spark Connect server: TABLEGATE_SLOW=1 and TABLEGATE_SPARK_HOME")
	}
	tc := differentials[0]
	dir := b.TempDir()
	db := duck(b)
	in := filepath.Join(dir, "in.parquet")
	if _, err := db.Exec(fmt.Sprintf("COPY (%s) TO '%s' (FORMAT parquet)", strings.Replace(tc.data, "range(400)", fmt.Sprintf("range(%d)", *benchRows), 1), in)); err != nil {
		b.Fatal(err)
	}
	p := plan(b, tc.schema)
	b.Run("duckdb", func(b *testing.B) {
		eng, err := duckdb.Open(duckdb.Config{})
		if err != nil {
			b.Fatal(err)
		}
		defer eng.Close()
		for i := 0; i < b.N; i++ {
			out := filepath.Join(dir, fmt.Sprintf("duck%d", i), "out.parquet")
			rep, _ := eng.Run(context.Background(), runner.Asset{Name: "out", Plan: p, Input: runner.ParquetInput{Path: in}, Output: runner.ParquetOutput{Path: out}, Quarantine: true}, runner.Options{})
			if rep.Outcome == nil || rep.Rows.Input < int64(*benchRows) {
				b.Fatalf("DuckDB run: %+v", rep)
			}
		}
	})
	b.Run("spark", func(b *testing.B) {
		eng := spark.New(server.Remote)
		for i := 0; i < b.N; i++ {
			out := filepath.Join(dir, fmt.Sprintf("spark%d", i), "out.parquet")
			rep, _ := eng.Run(context.Background(), runner.Asset{Name: "out", Plan: p, Input: runner.ParquetInput{Path: in}, Output: runner.ParquetOutput{Path: out}, Quarantine: true}, runner.Options{})
			if rep.Outcome == nil || rep.Rows.Input < int64(*benchRows) {
				b.Fatalf("Spark run: %+v", rep)
			}
		}
	})
}
