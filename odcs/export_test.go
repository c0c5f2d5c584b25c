package odcs

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
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

// TestExportKeepsTheContract: a schema imported from a contract exports with the contract's
// id, name, version, object and quality ids, each library metric in ODCS's own form (no
// tablegate entry), and imports back to the same plan.
func TestExportKeepsTheContract(t *testing.T) {
	t.Parallel()
	text := `apiVersion: v3.1.0
kind: DataContract
id: urn:datacontract:sensors:iot_sensor_data
name: Sensors
version: 2.1.0
status: active
schema:
  - name: sensor_readings
    properties:
      - {name: id, physicalType: BIGINT, logicalType: integer, quality: [{id: id_filled, metric: nullValues, mustBe: 0}, {id: id_once, metric: duplicateValues, mustBe: 0}]}
      - name: site
        physicalType: VARCHAR
        logicalType: string
        logicalTypeOptions: {maxLength: 12}
        quality:
          - {id: site_nulls, metric: nullValues, mustBeLessThan: 5, unit: percent, severity: warning}
          - {id: site_dups, metric: duplicateValues, mustBeLessOrEqualTo: 100}
    quality:
      - {id: volume, metric: rowCount, mustBeBetween: [1, 1000000]}
      - {id: not_huge, metric: rowCount, mustNotBeBetween: [2000000, 3000000]}
      - {id: one_per_site, metric: duplicateValues, arguments: {properties: [id, site]}, mustBe: 0}
`
	ctx := context.Background()
	c, err := Parse([]byte(text), "sensors.odcs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(ctx, c, ImportOptions{Lengths: LengthsChars})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Export(ctx, res.Schema, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	contract, err := Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"id: urn:datacontract:sensors:iot_sensor_data\nname: Sensors\nversion: 2.1.0\n", "- name: sensor_readings\n",
		"- id: id_filled\n            metric: nullValues\n            mustBe: 0\n", "- id: id_once\n            metric: duplicateValues\n            mustBe: 0\n",
		"maxLength: 12", "- id: site_nulls\n            metric: nullValues\n            mustBeLessThan: 5\n            unit: percent\n            severity: warning\n",
		"- id: site_dups\n            metric: duplicateValues\n            mustBeLessOrEqualTo: 100\n",
		"- id: volume\n        metric: rowCount\n        mustBeBetween:\n          - 1\n          - 1000000\n",
		"- id: not_huge\n        metric: rowCount\n        mustNotBeBetween:\n          - 2000000\n          - 3000000\n",
		"- id: one_per_site\n        metric: duplicateValues\n        arguments:\n          properties:\n            - id\n            - site\n        mustBe: 0\n",
	} {
		if !strings.Contains(string(contract), want) {
			t.Errorf("the export has no\n%s\nin\n%s", want, contract)
		}
	}
	if strings.Contains(string(contract), "engine: tablegate") || strings.Contains(string(contract), "e+") {
		t.Errorf("the export has a tablegate entry or a number in exponent form:\n%s", contract)
	}
	back, err := Parse(contract, "back.odcs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	again, err := Import(ctx, back, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := compile.CompileContext(ctx, res.Schema)
	if err != nil {
		t.Fatal(err)
	}
	got, err := compile.CompileContext(ctx, again.Schema)
	if err != nil {
		t.Fatal(err)
	}
	if w, g := planText(want), planText(got); w != g {
		t.Errorf("the round trip changed the plan:\n%s", firstDifference(w, g))
	}
	// The same entries (the export is of v3.2, and writes an object's rules before its checks).
	key := func(c *schema.Contract) string {
		entries := make([]string, len(c.Quality))
		for i, q := range c.Quality {
			entries[i] = fmt.Sprint(q)
		}
		slices.Sort(entries)
		return fmt.Sprint(c.ID, c.Name, c.Version, c.Object, entries)
	}
	if w, g := key(res.Schema.Contract), key(again.Schema.Contract); w != g {
		t.Errorf("the contract key changed:\n%s\n%s", w, g)
	}
}

// TestExportWritesPlainDigits: a bound of tablegate's own table check is written as digits, not
// 1e+06.
func TestExportWritesPlainDigits(t *testing.T) {
	t.Parallel()
	s, err := schema.Parse([]byte(`schema: Volume
columns:
  - {name: id, type: Int64}
table_checks:
  - {name: volume, metric: count(*), min: 1000000, max: 2500000.5, anomaly: {lookback: 10}}
`), "volume.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Export(context.Background(), s, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "min: 1000000\n") || !strings.Contains(string(text), "max: 2500000.5\n") || strings.Contains(string(text), "e+") {
		t.Errorf("want min: 1000000 and max: 2500000.5 in\n%s", text)
	}
}
