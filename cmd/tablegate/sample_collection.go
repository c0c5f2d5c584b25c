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

	"github.com/tablegate/tablegate"
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
func sampleCollection(ctx context.Context, stdout, stderr io.Writer, prog *progress, file, outDir string, spec tablegate.CollectionSampleSpec, cfg tablegate.Config) error {
	c, err := tablegate.LoadCollection(ctx, file)
	if err != nil {
		return err
	}
	printMemberNotices(stderr, c)
	queries, err := tablegate.CollectionSampleQueries(c, spec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	cfg.AllowedDirectories = []string{outDir}
	eng, err := tablegate.Open(cfg)
	if err != nil {
		return engineFlagError(err, cfg.MemoryLimit, cfg.StorageVersion)
	}
	defer eng.Close()
	var uncontrolled []string
	inputs := map[string]tablegate.MemberIO{}
	for _, q := range queries {
		path := filepath.Join(outDir, q.Member+".parquet")
		inputs[q.Member] = tablegate.MemberIO{Input: tablegate.ParquetInput{Path: path}}
		prog.update(tablegate.Progress{Phase: "writing " + path, Member: q.Member})
		if err := eng.WriteQuery(ctx, q.Query, tablegate.ParquetOutput{Path: path}); err != nil {
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
	return validateSampleCollection(ctx, stdout, eng, c, inputs, spec.Spec, prog)
}

// validateSampleCollection validates the written members as one collection run, counts only,
// and prints what was produced, not what was asked: each member's invalid rows and each
// filter's, propagation's and reference's failed rows.
func validateSampleCollection(ctx context.Context, stdout io.Writer, eng *tablegate.Engine, c *tablegate.Collection, inputs map[string]tablegate.MemberIO, spec tablegate.SampleSpec, prog *progress) error {
	plan, err := tablegate.CompileCollection(ctx, c)
	if err != nil {
		return err
	}
	rep, err := eng.ValidateCollection(ctx, plan, inputs, tablegate.Options{RunOptions: tablegate.RunOptions{MaxFailureSamples: -1, Progress: prog.update}})
	if rep == nil || rep.Outcome == nil {
		return fmt.Errorf("validate the written sample: %w", err)
	}
	for _, name := range rep.MemberOrder {
		r := rep.Members[name]
		if r == nil || r.Outcome == nil {
			continue
		}
		share := 0.0
		if r.Rows.Input > 0 {
			share = float64(r.Rows.Invalid) / float64(r.Rows.Input) * 100
		}
		fmt.Fprintf(stdout, "validated %s: %d of %d rows (%.2f%%) are invalid; %s\n", name, r.Rows.Invalid, r.Rows.Input, share, *r.Outcome)
		if err := allInvalid(name, inputs[name].Input.String(), spec, r); err != nil {
			return err
		}
	}
	for _, f := range rep.Filters {
		var failed int64
		for _, n := range f.Failed {
			failed += n
		}
		fmt.Fprintf(stdout, "validated %s %s: %d rows failed it\n", f.Kind, f.Name, failed)
	}
	return nil
}
