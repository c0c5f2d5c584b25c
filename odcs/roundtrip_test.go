package odcs

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// repoSchemas lists every schema file of the repository (a YAML or JSON file with `schema` and
// `columns` at the top), outside this package's corpus of contracts.
func repoSchemas(t *testing.T) []string {
	t.Helper()
	root := ".."
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || p == filepath.Join(root, "odcs", "testdata")) {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(p) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var top map[string]any
		if yaml.Unmarshal(data, &top) != nil {
			return nil
		}
		if _, ok := top["schema"].(string); !ok {
			return nil
		}
		if _, ok := top["columns"].([]any); ok {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// planText prints what a plan runs: its columns, rules, table checks and references, the plan
// query (explain's text) and the program of a Parquet run with a quarantine.
func planText(p *compile.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "plan %s\n", p.Name)
	for _, c := range p.Columns {
		fmt.Fprintf(&b, "column %q %s\n", c.Name, c.DType)
	}
	for _, r := range p.Rules {
		fmt.Fprintf(&b, "rule %q check=%s column=%q kind=%s severity=%s expr=%q description=%q short=%q\n",
			r.Name, r.Check, r.Column, r.Kind, r.Severity, r.Expr, r.Description, r.Short)
	}
	for _, t := range p.TableChecks {
		fmt.Fprintf(&b, "table check %q severity=%s description=%q expr=%q metric=%v min=%v max=%v anomaly=%+v\n",
			t.Name, t.Severity, t.Description, t.Expr, t.Metric, deref(t.Min), deref(t.Max), t.Anomaly)
	}
	for _, r := range p.References() {
		fmt.Fprintf(&b, "reference %+v\n", r)
	}
	b.WriteString(p.Explain())
	prog := p.Program(compile.Relation{From: "read_parquet('in.parquet')", RowID: "file_row_number"},
		compile.Facts{Rows: 1000, LastRowID: 999, MemoryBudget: 1 << 30},
		compile.ProgramOptions{ID: 1, Samples: 5, Sink: compile.ToParquet,
			Output: compile.Output{TableFile: "out.parquet.tmp", QuarantineFile: "quarantine.parquet.tmp"}})
	b.WriteString(prog.String())
	return b.String()
}

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// roundTrip exports s, checks the contract against nothing but itself (Marshal, Parse), imports
// it back and returns the contract text and the imported schema.
func roundTrip(t *testing.T, s *schema.Schema) ([]byte, *schema.Schema, error) {
	t.Helper()
	ctx := context.Background()
	c, err := Export(ctx, s, ExportOptions{})
	if err != nil {
		return nil, nil, err
	}
	text, err := Marshal(c)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	file := "contract.odcs.yaml"
	if s.File != "" {
		file = strings.TrimSuffix(s.File, filepath.Ext(s.File)) + ".odcs.yaml"
	}
	back, err := Parse(text, file)
	if err != nil {
		t.Fatalf("the exported contract does not parse: %v\n%s", err, text)
	}
	res, err := Import(ctx, back, ImportOptions{References: ExportedReferences(back)})
	if err != nil {
		t.Fatalf("the exported contract does not import: %v\n%s", err, text)
	}
	return text, res.Schema, nil
}

// TestRoundTripRepoSchemas: every schema of the repository, exported as a contract and
// imported back, compiles to the same plan and program; every contract is valid against the
// JSON schema of ODCS v3.2 (Parse refuses it otherwise).
func TestRoundTripRepoSchemas(t *testing.T) {
	t.Parallel()
	files := repoSchemas(t)
	if len(files) < 20 {
		t.Fatalf("found %d schema files; expected the repository's examples, testdata and benchmark schemas", len(files))
	}
	for _, f := range files {
		t.Run(strings.TrimPrefix(f, "../"), func(t *testing.T) {
			s, err := schema.LoadFile(f)
			if err != nil {
				t.Skipf("not a valid schema (a test's deliberate mistake): %v", err)
			}
			want, err := compile.Compile(s)
			if err != nil {
				t.Skipf("does not compile (a test's deliberate mistake): %v", err)
			}
			text, back, err := roundTrip(t, s)
			if err != nil {
				t.Fatalf("export: %v", err)
			}
			got, err := compile.Compile(back)
			if err != nil {
				t.Fatalf("the imported schema does not compile: %v\n%s", err, text)
			}
			if w, g := planText(want), planText(got); w != g {
				t.Errorf("the round trip changed the plan:\n%s\ncontract:\n%s", firstDifference(w, g), text)
			}
		})
	}
}

// firstDifference shows the first line where two texts differ.
func firstDifference(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant: %s\n got: %s", i+1, w, g)
		}
	}
	return ""
}

// TestRoundTripEveryForm: a schema with what the repository's schema files lack (table checks
// of every form, references of every form, dtype families, numbers YAML 1.1 reads differently,
// severities ODCS has no key for) round-trips too.
func TestRoundTripEveryForm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "every.yaml")
	text := `schema: Every_Form
description: Every form export writes.
columns:
  - {name: id, type: Int64, primary_key: true}
  - {name: line, type: Int32, primary_key: true, min: +1, max: 1000}
  - {name: vendor, type: String, references: {input: data/vendors.parquet, column: id}}
  - {name: sku, type: String, nullable: true, unique: true, regex: '\bsku\d+', severity: warn}
  - {name: other_vendor, type: String, nullable: true, references: {input: other/vendors.csv, column: code}, severity: {references: warn}}
  - {name: n, type: Integer, min: 007, check: {sql: "_ > 0", spark: "_ > 0"}}
  - {name: x, type: Float, max: 1.5e30, allow_nan: true, severity: {nullable: warn, inf: warn}}
  - {name: d, type: Decimal, scale: 2, max_exclusive: 10.50}
  - {name: took, type: Duration, min: 1s, resolution: 1ms}
  - {name: bytes, type: Binary, nullable: true}
  - {name: anything, type: Any, check: {not_null: "_ IS NOT NULL"}}
  - {name: mood, type: Enum, categories: ["it's", 'say "hi"', a;b]}
  - {name: code, type: String, regex: '^[A-Z]{2}$', min_length: 2, max_length: 2, is_in: [AB, AB, CD]}
  - {name: label, type: String, max_length: 10, is_in: []}
  - {name: city, type: String, nullable: true, check: {min_chars: length(_) >= 1, max_chars: length(_) <= 20, other: _ <> 'x'}}
  - {name: tags, type: List, min_length: 1, severity: {inner_min_length: warn}, inner: {type: String, min_length: 2}}
rules:
  - name: same_vendor_twice
    references: {columns: [vendor, sku], input: data/vendors.parquet, to: [id, sku]}
  - name: lines_per_id
    description: At most 100 lines per id.
    sql: count(*) <= 100
    group_by: [id]
  - name: positive
    sql: n > 0
  - name: known_code
    references: {columns: [code], input: codes.duckdb:main.codes, to: [code]}
severity: {primary_key: warn, positive: warn}
table_checks:
  - {name: enough_rows, sql: count(*) >= 1, description: Something arrived.}
  - {name: mean_between, metric: avg(n), min: 0.5, max: 1000000, severity: warn}
  - {name: at_least, metric: count(*), min: 1}
  - {name: at_most, metric: max(n), max: 2.5e-7}
  - {name: exactly, metric: count(DISTINCT id), min: 3, max: 3}
  - {name: volume, metric: count(*), anomaly: {lookback: 10, threshold: 2.5, direction: up}}
  - {name: positive_share, metric: count(*) FILTER (WHERE n > 0), min: 1}
  - {name: few_invalid, sql: invalid_rows() <= 0.05 * count(*)}
`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := schema.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	contract, back, err := roundTrip(t, s)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	got, err := compile.Compile(back)
	if err != nil {
		t.Fatalf("the imported schema does not compile: %v\n%s", err, contract)
	}
	if w, g := planText(want), planText(got); w != g {
		t.Errorf("the round trip changed the plan:\n%s\ncontract:\n%s", firstDifference(w, g), contract)
	}
	// Native forms where the meaning is ODCS's own.
	for _, want := range []string{
		"physicalType: BIGINT", "primaryKeyPosition: 2", "pattern: ^[A-Z]{2}$", "minLength: 2", "minItems: 1",
		"query: SELECT avg(n) FROM {object}", "mustBeBetween:", "mustBe: 3", "to: vendors.id", "metric: nullValues",
		"format: duration", "logicalType: array", "engine: tablegate", "- Every_Form.code", "- codes.code",
		"minLength: 1\n          maxLength: 20", "property: tablegateLengths\n            value: chars",
	} {
		if !strings.Contains(string(contract), want) {
			t.Errorf("the contract has no %q:\n%s", want, contract)
		}
	}
}

// TestExampleContract: examples/orders/orders.odcs.yaml is what export writes for the example
// schema beside it (go test -run TestExampleContract -update rewrites it).
func TestExampleContract(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "examples", "orders")
	s, err := schema.LoadFile(filepath.Join(dir, "orders.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Export(context.Background(), s, ExportOptions{ID: "orders", Folder: dir})
	if err != nil {
		t.Fatal(err)
	}
	text, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	compareGolden(t, filepath.Join(dir, "orders.odcs.yaml"), string(text))
}
