package odcs

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/sample"
)

var update = flag.Bool("update", false, "rewrite testdata/examples/outcomes.txt from the corpus")

// corpusDir holds the ODCS examples of the standard's repository and of datacontract-cli, with
// their licences (testdata/examples/README.md says where each came from).
var corpusDir = filepath.Join("testdata", "examples")

// corpusFiles lists the contracts of the corpus, sorted.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(corpusDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(p); !d.IsDir() && (ext == ".yaml" || ext == ".yml") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	if len(files) < 100 {
		t.Fatalf("the corpus has %d contracts; expected the ~130 of testdata/examples", len(files))
	}
	return files
}

// TestSlowCorpus: every contract of the corpus is validated against the JSON schema of its
// apiVersion (LoadFile refuses one that breaks it), then each of its schema objects is imported (or refused, with the contract paths
// of the parts that have no exact form), compiled, given sampled data (sample.Query, a tenth of
// the rows breaking a rule) and validated; the related objects' data are their own samples.
// The outcomes are the ones testdata/examples/outcomes.txt records (TABLEGATE_SLOW=1 go test
// -run TestSlowCorpus -update rewrites it; review its diff). A slow test: it sweeps the ~130
// contracts.
func TestSlowCorpus(t *testing.T) {
	testenv.Slow(t)
	t.Parallel()
	files := corpusFiles(t)
	ctx := context.Background()
	eng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	var b strings.Builder
	for _, f := range files {
		rel, _ := filepath.Rel(corpusDir, f)
		b.WriteString(filepath.ToSlash(rel) + "\n")
		for _, line := range corpusContract(ctx, t, eng, f) {
			b.WriteString("  " + line + "\n")
		}
	}
	compareGolden(t, filepath.Join(corpusDir, "outcomes.txt"), b.String())
}

// corpusContract imports, compiles, samples and runs every object of one contract, and says
// how each went.
func corpusContract(ctx context.Context, t *testing.T, eng *duckdb.Engine, file string) []string {
	t.Helper()
	c, err := LoadFile(file)
	var invalid *SchemaError
	switch {
	case errors.As(err, &invalid):
		paths := make([]string, len(invalid.Problems))
		for i, p := range invalid.Problems {
			paths[i] = p.Pos.Path
			if paths[i] == "" {
				paths[i] = "(top)"
			}
		}
		return []string{"json schema: invalid against " + invalid.APIVersion + " at " + strings.Join(paths, ", ")}
	case err != nil:
		return []string{"read: " + strings.ReplaceAll(err.Error(), file, "FILE")}
	}
	lines := []string{"json schema: valid against " + c.APIVersion}
	dir := t.TempDir()
	data := map[string]string{}
	for i, o := range c.Schema {
		if o != nil {
			data[o.Name] = filepath.Join(dir, fmt.Sprintf("object%d.parquet", i))
		}
	}
	type imported struct {
		object string
		res    *Result
		plan   *compile.Plan
	}
	var runs []imported
	for _, o := range c.Schema {
		if o == nil {
			continue
		}
		res, err := Import(ctx, c, ImportOptions{Object: o.Name, References: data})
		var refused *ImportError
		switch {
		case errors.As(err, &refused):
			paths := make([]string, len(refused.Problems))
			for i, p := range refused.Problems {
				paths[i] = p.Pos.Path
			}
			lines = append(lines, fmt.Sprintf("object %s: refused at %s", o.Name, strings.Join(paths, ", ")))
			continue
		case err != nil:
			lines = append(lines, fmt.Sprintf("object %s: import failed: %s", o.Name, strings.ReplaceAll(err.Error(), file, "FILE")))
			continue
		}
		plan, err := compile.CompileContext(ctx, res.Schema)
		if err != nil {
			t.Errorf("%s: object %s: the imported schema does not compile: %v\n%s", file, o.Name, err, res.YAML)
			continue
		}
		query, _, err := sample.Query(res.Schema, sample.Spec{Rows: 200, InvalidRate: 0.1, Seed: 7})
		if err != nil {
			t.Errorf("%s: object %s: sample: %v", file, o.Name, err)
			continue
		}
		if err := eng.WriteQuery(ctx, query, runner.ParquetOutput{Path: data[o.Name]}); err != nil {
			t.Errorf("%s: object %s: write the sample: %v", file, o.Name, err)
			continue
		}
		runs = append(runs, imported{o.Name, res, plan})
	}
	// Every object's sample is written before any runs: a relationship reads another's.
	for _, r := range runs {
		line := fmt.Sprintf("object %s: imported (%d columns, %d rules, %d table checks, %d notices)",
			r.object, len(r.plan.Columns), len(r.plan.Rules), len(r.plan.TableChecks), len(r.res.Notices))
		// Parquet has no ENUM, ARRAY or TIMESTAMP_MS: the sample reads back cast to the schema's types.
		rep, err := eng.Run(ctx, runner.Asset{Name: r.object, Plan: r.plan, Input: runner.ParquetInput{Path: data[r.object]}},
			runner.Options{Cast: true, MaxFailureSamples: -1})
		switch {
		case rep == nil || rep.Outcome == nil:
			// A relationship to an object that was refused has no data to read.
			lines = append(lines, line+"; not run: "+strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""))
			continue
		case *rep.Outcome == outcome.ColumnSchemaMismatch:
			t.Errorf("%s: object %s: its own sample does not match its columns: %v", file, r.object, err)
		}
		line += fmt.Sprintf("; sample of %d rows: %d valid, %d invalid, %s", rep.Rows.Input, rep.Rows.Valid, rep.Rows.Invalid, *rep.Outcome)
		lines = append(lines, line)
	}
	return lines
}

// compareGolden compares got with the golden file, or rewrites it with -update.
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got == string(want) {
		return
	}
	t.Fatalf("%s differs from the run at %s\n(go test -run %s -update rewrites it; review the diff)", path, firstDifference(string(want), got), t.Name())
}

// TestParseStandardExamples: every contract of the corpus that parses is written back (Marshal)
// as a document that parses again; which ones parse is TestSlowCorpus's record.
func TestParseStandardExamples(t *testing.T) {
	parsed := 0
	for _, f := range corpusFiles(t) {
		c, err := LoadFile(f)
		if err != nil {
			continue
		}
		parsed++
		out, err := Marshal(c)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if _, err := Parse(out, f); err != nil {
			t.Fatalf("%s written back does not parse: %v\n%s", f, err, strings.TrimSpace(string(out)))
		}
	}
	if parsed < 100 {
		t.Fatalf("only %d contracts of the corpus parse", parsed)
	}
}
