package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/sample"
	"github.com/tablegate/tablegate/schema"
)

// TestSlowDataframelyAgrees runs the benchmark rule sets (the integer-keyed and the string-keyed) through tablegate and through dataframely
// (the reference implementation of these semantics) on the same generated data and requires the
// same valid-row count and the same failure count per rule. It needs python3 with dataframely
// and polars (CI installs them); elsewhere it is skipped. A slow test: it runs another program
// (CI's slow tier).
func TestSlowDataframelyAgrees(t *testing.T) {
	testenv.Slow(t)
	py := findDataframely()
	if py == "" {
		t.Skip("python3 with dataframely and polars is not available")
	}
	ctx := context.Background()
	dir := t.TempDir()
	eng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	generate := func(schemaFile string) string {
		gen, err := schema.LoadFile("../../" + schemaFile)
		if err != nil {
			t.Fatal(err)
		}
		q, _, err := sample.Query(gen, sample.Spec{Rows: 20000, InvalidRate: 0.2, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		data := filepath.Join(dir, filepath.Base(schemaFile)+".parquet")
		if err := eng.WriteQuery(ctx, q, runner.ParquetOutput{Path: data}); err != nil {
			t.Fatal(err)
		}
		return data
	}
	benchRows, stringRows := generate(benchSchema), generate(stringSchema)
	for _, rules := range append([]string{"5", "15", "40"}, stringSets...) {
		data, file := benchRows, "../schemas/bench"+rules+".yaml"
		if slices.Contains(stringSets, rules) {
			data, file = stringRows, "../schemas/"+rules+".yaml"
		}
		t.Run(rules+" rules", func(t *testing.T) {
			plan, err := loadPlan(file)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := eng.Run(ctx, runner.Asset{Plan: plan, Input: runner.ParquetInput{Path: data}}, runner.Options{MaxFailureSamples: -1})
			if rep == nil || rep.Outcome == nil {
				t.Fatalf("run failed before an outcome: %v", err)
			}
			ours := ruleCounts(rep)
			out, err := exec.Command(py, "../peers/dataframely_bench.py", "--rules", rules, "--input", data, "--out", t.TempDir()).Output()
			if err != nil {
				t.Fatalf("dataframely: %v", err)
			}
			var theirs struct {
				Valid  int64            `json:"valid"`
				Counts map[string]int64 `json:"counts"`
			}
			if err := json.Unmarshal(out, &theirs); err != nil {
				t.Fatalf("dataframely output %q: %v", out, err)
			}
			// dataframely has no is_in for strings; the peer schema spells it as a named check.
			peer := map[string]int64{}
			for k, v := range theirs.Counts {
				peer[strings.Replace(k, "|check__is_in", "|is_in", 1)] = v
			}
			if rep.Rows.Valid != theirs.Valid {
				t.Errorf("valid rows: tablegate %d, dataframely %d", rep.Rows.Valid, theirs.Valid)
			}
			for rule, n := range peer {
				if ours[rule] != n {
					t.Errorf("rule %s: tablegate %d failures, dataframely %d", rule, ours[rule], n)
				}
			}
			for rule, n := range ours {
				if _, ok := peer[rule]; !ok {
					t.Errorf("rule %s: tablegate %d failures, dataframely none", rule, n)
				}
			}
		})
	}
}
