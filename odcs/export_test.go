package odcs

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/schema"
)

// TestExportRewritesReferenceInputs: a relative reference input, relative to the schema's
// folder, is written relative to the folder the contract goes to; an absolute one stays.
func TestExportRewritesReferenceInputs(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "abs", "codes.parquet")
	s, err := schema.Parse([]byte(`schema: Refs
columns:
  - {name: vendor, type: String, references: {input: data/vendors.parquet, column: id}}
  - {name: code, type: String, references: {input: `+abs+`, column: code}}
`), filepath.Join(dir, "schemas", "refs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ folder, want string }{
		{"", "data/vendors.parquet"},
		{filepath.Join(dir, "contracts"), filepath.Join("..", "schemas", "data", "vendors.parquet")},
		{filepath.Join(dir, "schemas"), filepath.Join("data", "vendors.parquet")},
	} {
		c, err := Export(context.Background(), s, ExportOptions{Folder: tc.folder})
		if err != nil {
			t.Fatal(err)
		}
		refs := ExportedReferences(c)
		if refs["vendors"] != tc.want || refs["codes"] != abs {
			t.Errorf("folder %q: references %v; want vendors=%s, codes=%s", tc.folder, refs, tc.want, abs)
		}
	}
}

// TestExportRefusesInvalidSchemas: a schema with declaration errors is not exported; the error
// is the schema's, every problem at once.
func TestExportRefusesInvalidSchemas(t *testing.T) {
	s := schema.New("Bad", schema.Int64("a").Min("x"), schema.Date("b").Max("tomorrow"))
	_, err := Export(context.Background(), s, ExportOptions{})
	var errs *schema.Errors
	if !errors.As(err, &errs) || len(errs.Problems) != 2 {
		t.Fatalf("got %v; want the schema's two declaration errors", err)
	}
}

// TestImportReadsExportedInputs: a contract export wrote names its relationships' data, relative
// to the contract's folder; import reads it from there when no reference data is given, and a
// given one wins.
func TestImportReadsExportedInputs(t *testing.T) {
	dir := t.TempDir()
	s, err := schema.Parse([]byte(`schema: Refs
columns:
  - {name: vendor, type: String, references: {input: data/vendors.parquet, column: id}}
`), filepath.Join(dir, "schemas", "refs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "contracts")
	c, err := Export(context.Background(), s, ExportOptions{Folder: folder})
	if err != nil {
		t.Fatal(err)
	}
	c.File = filepath.Join(folder, "refs.odcs.yaml")
	for _, tc := range []struct {
		given map[string]string
		want  string
	}{
		{nil, filepath.Join(dir, "schemas", "data", "vendors.parquet")},
		{map[string]string{"vendors": "/elsewhere/v.parquet"}, "/elsewhere/v.parquet"},
	} {
		res, err := Import(context.Background(), c, ImportOptions{References: tc.given})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Schema.Column("vendor").Args.References; got == nil || got.Input != tc.want || got.Column != "id" {
			t.Errorf("given %v: reference %+v; want input %s", tc.given, got, tc.want)
		}
	}
}

// TestExportedEntriesNameTheirRules: the import ties each exported tablegate entry to the rule it
// makes (the contract's quality references), and names none that makes no rule or that belongs
// to a nested column.
func TestExportedEntriesNameTheirRules(t *testing.T) {
	s := schema.New("Named",
		schema.Float64("x").AllowNaN().Max(1).SeverityOf("max", schema.Warn),
		schema.Struct("address", schema.String("city").MinLength(1)),
	)
	c, err := Export(context.Background(), s, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(context.Background(), c, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, q := range res.Schema.Contract.Quality {
		rules = append(rules, q.Rule)
	}
	if got := strings.Join(rules, " "); got != "x|max" {
		t.Errorf("quality references %q; want x|max", got)
	}
}
