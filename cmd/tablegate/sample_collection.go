package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tablegate/tablegate/collection"
	"github.com/tablegate/tablegate/exec"
	"github.com/tablegate/tablegate/sample"
)

// parseMemberRows reads --member-rows MEMBER=N flags.
func parseMemberRows(flags []string) (map[string]int64, error) {
	rows := map[string]int64{}
	for _, f := range flags {
		name, count, ok := strings.Cut(f, "=")
		n, err := strconv.ParseInt(strings.ReplaceAll(count, "_", ""), 10, 64)
		if !ok || name == "" || err != nil || n < 0 {
			return nil, usagef("--member-rows %q: use MEMBER=N, N a count of rows", f)
		}
		if _, dup := rows[name]; dup {
			return nil, usagef("--member-rows names %s twice", name)
		}
		rows[name] = n
	}
	return rows, nil
}

// sampleCollection writes every member of the collection file's sample to outDir/<member>.parquet.
func sampleCollection(ctx context.Context, stdout io.Writer, file, outDir string, spec sample.CollectionSpec, cfg exec.Config) error {
	c, err := collection.LoadFile(ctx, file)
	if err != nil {
		return err
	}
	queries, err := sample.CollectionQueries(c, spec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	cfg.AllowedDirectories = []string{outDir}
	eng, err := exec.Open(cfg)
	if err != nil {
		return engineFlagError(err, cfg.MemoryLimit, cfg.StorageVersion)
	}
	defer eng.Close()
	var uncontrolled []string
	for _, q := range queries {
		path := filepath.Join(outDir, q.Member+".parquet")
		if err := eng.WriteQuery(ctx, q.Query, exec.ParquetOutput{Path: path}); err != nil {
			return fmt.Errorf("member %s: %w", q.Member, err)
		}
		var n int64
		if err := eng.DB().QueryRowContext(ctx, "SELECT count(*) FROM read_parquet(?)", path).Scan(&n); err != nil {
			return fmt.Errorf("member %s: count the written rows: %w", q.Member, err)
		}
		fmt.Fprintf(stdout, "wrote %d rows of %s to %s\n", n, q.Member, path)
		for _, u := range q.Uncontrolled {
			if !slices.Contains(uncontrolled, u) {
				uncontrolled = append(uncontrolled, u)
			}
		}
	}
	fmt.Fprintf(stdout, "%d common keys, asking for %.2f%% of each member's rows to break one of its rules and %.2f%% of the keys to break each relationship\n",
		spec.Rows, spec.InvalidRate*100, spec.InvalidRate*100)
	if len(uncontrolled) > 0 {
		fmt.Fprintf(stdout, "note: the generator does not control %s: they pass or fail as the generated values happen to\n", strings.Join(uncontrolled, ", "))
	}
	return nil
}
