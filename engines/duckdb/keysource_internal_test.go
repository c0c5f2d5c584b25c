package duckdb

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestKeySources: over a multi-file Parquet input (no statistics), the key groups keyed by
// integer columns whose footer range fits the perfect hash read a temp table of the columns
// they need; a string key, a range past the threshold, a copy past the memory budget and a
// single file read the source; so do a group reading a string column (whose copy's size the
// check cannot judge) and a group aggregating DISTINCT values (no perfect hash for those).
func TestKeySources(t *testing.T) {
	ctx := context.Background()
	s, err := schema.Parse([]byte(`schema: K
columns:
  - {name: id, type: Int64, primary_key: true}
  - {name: code, type: String, unique: true}
  - {name: cust, type: Int64}
  - {name: amt, type: Float64}
  - {name: wide, type: Int64, unique: true}
  - {name: note, type: String}
  - {name: grp, type: Int64}
rules:
  - {name: small_total, sql: "sum(amt) < 100", group_by: [cust]}
  - {name: short_notes, sql: "max(strlen(note)) < 1000", group_by: [grp]}
  - {name: few_amounts, sql: "count(DISTINCT amt) < 50", group_by: [id, cust]}
`), "k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := newTestRun(t)
	for f := range 3 {
		q := fmt.Sprintf("COPY (SELECT i AS id, 'c' || i AS code, i %% 7 AS cust, 1.5 AS amt, i * 1099511627776 AS wide, 'n' AS note, i %% 3 AS grp FROM range(%d, %d) t(i)) TO '%s' (FORMAT parquet)",
			f*100, f*100+100, filepath.Join(dir, fmt.Sprintf("part-%d.parquet", f)))
		if err := r.exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	sources := func(path string, rows int64, budget int64) []string {
		t.Helper()
		o, err := (&backend{r: r}).openInput(ctx, runner.ParquetInput{Path: path}, reading{}, false)
		if err != nil {
			t.Fatal(err)
		}
		rel := o.Rel
		// The footers' ranges, from the probes (a backend that is no Tuner: the test sets the
		// facts that steer the copy itself).
		if rel, _, _, err = runner.Probe(ctx, struct{ runner.Backend }{&backend{r: r}}, rel); err != nil {
			t.Fatal(err)
		}
		prog := p.Program(rel, compile.Facts{Rows: rows, LastRowID: rows - 1, PerfectHashBits: r.perfectHashBits, MemoryBudget: budget}, compile.ProgramOptions{})
		// The key aggregates run in the order of the used key groups.
		var aggregates []string
		for _, s := range prog.Steps() {
			if s.Op == compile.KeyAggregate {
				aggregates = append(aggregates, s.SQL)
			}
		}
		var keyed []string
		i := 0
		for _, kg := range p.KeyGroups() {
			if !kg.Used {
				continue
			}
			if strings.Contains(aggregates[i], "__tg_keysource") {
				keyed = append(keyed, kg.Columns...)
			}
			i++
		}
		sort.Strings(keyed)
		return keyed
	}
	glob := filepath.Join(dir, "*.parquet")
	if got := fmt.Sprint(sources(glob, 300, 1<<30)); got != "[cust id]" {
		t.Errorf("glob: key groups reading the copy %s, want [cust id] (not code: a string; not wide: past 2^%d; not grp: it reads a string; not (id, cust): DISTINCT)", got, r.perfectHashBits)
	}
	if got := sources(glob, 300, 300*3*8-1); len(got) != 0 {
		t.Errorf("a copy past the memory budget: %v read it", got)
	}
	if got := sources(filepath.Join(dir, "part-1.parquet"), 100, 1<<30); len(got) != 0 {
		t.Errorf("a single file has statistics: %v read a copy", got)
	}

	// A file whose key column holds only NULLs has no range of its own; the others give it.
	nulls := t.TempDir()
	for f, id := range []string{"i", "NULL::BIGINT"} {
		q := fmt.Sprintf("COPY (SELECT %s AS id, 'c' || i AS code, i %% 7 AS cust, 1.5 AS amt, 0 AS wide, 'n' AS note, 0 AS grp FROM range(100) t(i)) TO '%s' (FORMAT parquet)",
			id, filepath.Join(nulls, fmt.Sprintf("part-%d.parquet", f)))
		if err := r.exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if got := fmt.Sprint(sources(filepath.Join(nulls, "*.parquet"), 200, 1<<30)); got != "[cust id wide]" {
		t.Errorf("with an all-NULL column chunk: key groups reading the copy %s, want [cust id wide]", got)
	}
}

// TestRowCountSteersKeyCopy: runs and explain count the input's rows before they pick the key
// groups that read a copy, so that a key whose range is too sparse for the rows gets no copy
// for a perfect hash it would not use: 300 ids spaced by 100 span 2^15 values, too sparse;
// 300,000 consecutive ids span 2^19, dense enough.
func TestRowCountSteersKeyCopy(t *testing.T) {
	ctx := context.Background()
	s, err := schema.Parse([]byte("schema: K\ncolumns:\n  - {name: id, type: Int64, primary_key: true}\n"), "k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(Config{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range []struct {
		perFile, step int
		copied        bool
	}{{100, 100, false}, {100_000, 1, true}} {
		dir := t.TempDir()
		for f := range 3 {
			q := fmt.Sprintf("COPY (SELECT i * %d AS id FROM range(%d, %d) t(i)) TO '%s' (FORMAT parquet)",
				c.step, f*c.perFile, (f+1)*c.perFile, filepath.Join(dir, fmt.Sprintf("part-%d.parquet", f)))
			if _, err := e.db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		in := runner.ParquetInput{Path: filepath.Join(dir, "*.parquet")}
		explained, err := e.Explain(ctx, p, in)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(explained, "__tg_keysource"); got != c.copied {
			t.Errorf("%d rows: explain shows a copy of the key columns: %v, want %v", 3*c.perFile, got, c.copied)
		}

		r, err := e.newRun(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b := newBackend(r, runner.Asset{Plan: p, Input: in}, nil)
		rel, err := b.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		prep, err := runner.PrepareJob(ctx, b, b.a, runner.JobOf(b, b.a, runner.Options{}, outcome.PolicyAbort), rel)
		if err != nil {
			t.Fatal(err)
		}
		// The copy is a temp table, which the program's cleanup drops.
		copied := slices.ContainsFunc(prep.Program.Steps(), func(s compile.Step) bool {
			return s.Op == compile.Cleanup && strings.Contains(s.SQL, "keysource")
		})
		if copied != c.copied {
			t.Errorf("%d rows: the run copied the key columns: %v, want %v (threshold 2^%d)", 3*c.perFile, copied, c.copied, r.perfectHashBits)
		}
		r.close()
	}
}
