package odcs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStandardNegativeTests: every negative test of the standard's repository
// (testdata/negative, each a contract its JSON schema must reject) is refused, with the path
// and line of the mistake.
func TestStandardNegativeTests(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"additional-unknown-property":               `unknownRootField: unknown key "unknownRootField"`,
		"enum-duplicate-values":                     "schema[0].properties[0].enum: items 0 and 1 are the same",
		"enum-empty":                                "schema[0].properties[0].enum: has 0 items; the standard wants at least 1",
		"enum-missing-value":                        `schema[0].properties[0].enum[0]: missing "value"`,
		"invalid-api-version":                       `apiVersion: apiVersion "v4.0.0" is not an ODCS version tablegate reads`,
		"invalid-kind":                              `kind: "DataModel" is not one of "DataContract"`,
		"invalid-quality-dimension":                 `schema[0].properties[0].quality[0].dimension: "validity" is not one of`,
		"invalid-quality-metric":                    `schema[0].properties[0].quality[0].metric: "invalidMetric" is not one of`,
		"invalid-quality-type":                      `schema[0].properties[0].quality[0].type: "unknown" is not one of`,
		"map-missing-block":                         `schema[0].properties[0]: missing "map"`,
		"map-missing-key":                           `schema[0].properties[0].map: missing "key"`,
		"map-missing-value":                         `schema[0].properties[0].map: missing "value"`,
		"missing-required-fields":                   `missing "id"`,
		"quality-custom-missing-implementation":     `schema[0].properties[0].quality[0]: missing "implementation"`,
		"quality-element-field":                     `schema[0].properties[0].quality[0].element: "element" is not a key the standard allows here`,
		"quality-library-missing-metric":            `schema[0].properties[0].quality[0]: missing "metric"`,
		"quality-multiple-operators":                "schema[0].properties[0].quality[0]: has several operators",
		"quality-mustbebetween-wrong-size":          "schema[0].quality[0].mustBeBetween: has 1 item; the standard wants at least 2",
		"quality-sql-missing-query":                 `schema[0].properties[0].quality[0]: missing "query"`,
		"relationship-property-level-with-from":     `schema[0].properties[0].relationships[0]: must not have "from" here`,
		"relationship-schema-level-missing-from-to": `schema[0].relationships[0]: missing "from", "to"`,
		"schema-property-invalid-logicaltype":       `schema[0].properties[0].logicalType: "binary" is not one of`,
		"schema-property-missing-name":              `schema[0].properties[0]: missing "name"`,
		"server-invalid-type":                       `servers[0].type: "mongodb" is not one of`,
		"server-missing-conditional-fields":         `servers[0]: missing "schema"`,
		"server-missing-required-fields":            `servers[0]: missing "server", "type"`,
		"sla-missing-required-value":                `slaProperties[0]: missing "value"`,
		"synonym-missing-term":                      `schema[0].properties[0].synonyms[0]: missing "synonym"`,
	}
	files, err := filepath.Glob(filepath.Join("testdata", "negative", "*.odcs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Fatalf("testdata/negative has %d contracts, the test knows %d", len(files), len(want))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".odcs.yaml")
		_, err := LoadFile(f)
		if err == nil {
			t.Errorf("%s: read, but the standard calls it invalid", name)
			continue
		}
		if !strings.Contains(err.Error(), want[name]) || !strings.Contains(err.Error(), f+":") {
			t.Errorf("%s: want %s:LINE: …%s…, got\n%v", name, f, want[name], err)
		}
	}
}

// TestMisspeltKeysRefused: a contract with a misspelt key (testdata/typos) is refused, naming
// the key's line and path, with the key it is close to.
func TestMisspeltKeysRefused(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"requried.odcs.yaml":          `:11: schema[0].properties[0].requried: unknown key "requried" (did you mean "required"?)`,
		"uniqe.odcs.yaml":             `:11: schema[0].properties[0].uniqe: unknown key "uniqe" (did you mean "unique"?)`,
		"logicalTypeOption.odcs.yaml": `:12: schema[0].properties[0].logicalTypeOption: unknown key "logicalTypeOption" (did you mean "logicalTypeOptions"?)`,
		"minimun.odcs.yaml":           `:13: schema[0].properties[0].logicalTypeOptions.minimun: unknown key "minimun" (did you mean "minimum"?)`,
		"property-qualtiy.odcs.yaml":  `:11: schema[0].properties[0].qualtiy: unknown key "qualtiy" (did you mean "quality"?)`,
		"object-qualtiy.odcs.yaml":    `:11: schema[0].qualtiy: unknown key "qualtiy" (did you mean "quality"?)`,
		"relationship.odcs.yaml":      `:11: schema[0].relationship: unknown key "relationship" (did you mean "relationships"?)`,
		"slaProperty.odcs.yaml":       `:11: slaProperty: unknown key "slaProperty" (did you mean "slaProperties"?)`,
		"mustbe.odcs.yaml":            `:13: schema[0].properties[0].quality[0].mustbe: unknown key "mustbe" (did you mean "mustBe"?)`,
		"metric-typo.odcs.yaml":       `:12: schema[0].properties[0].quality[0].metric: "nullValue" is not one of "nullValues", "missingValues", "invalidValues", "duplicateValues", "rowCount" (did you mean "nullValues"?)`,
		"required-string.odcs.yaml":   `:11: schema[0].properties[0].required: is a string; the standard wants a boolean`,
		"phsyicalType.odcs.yaml":      `:10: schema[0].properties[0].phsyicalType: unknown key "phsyicalType" (did you mean "physicalType"?)`,
	}
	dir := filepath.Join("testdata", "typos")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Fatalf("%s has %d contracts, the test knows %d", dir, len(entries), len(want))
	}
	for _, e := range entries {
		f := filepath.Join(dir, e.Name())
		_, err := LoadFile(f)
		var se *SchemaError
		if !errors.As(err, &se) {
			t.Errorf("%s: want a *SchemaError, got %v", f, err)
			continue
		}
		if !strings.Contains(err.Error(), f+want[e.Name()]) {
			t.Errorf("%s: want …%s…, got\n%v", f, want[e.Name()], err)
		}
	}
}

// TestSchemaErrorLines: a violation inside a flow mapping, an alias and a JSON document is
// placed on its line; a YAML timestamp is a string to the schema, as in the JSON form.
func TestSchemaErrorLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, file, text, want string }{
		{"flow mapping", "c.yaml", "apiVersion: v3.2.0\nkind: DataContract\nid: x\nversion: 1.0.0\nschema:\n  - name: t\n    properties:\n      - {name: a,\n         uniqe: true}\n",
			`c.yaml:9: schema[0].properties[0].uniqe: unknown key "uniqe" (did you mean "unique"?)`},
		{"json", "c.json", "{\n  \"apiVersion\": \"v3.2.0\",\n  \"kind\": \"DataContract\",\n  \"id\": \"x\",\n  \"version\": \"1.0.0\",\n  \"schema\": [{\"name\": \"t\",\n    \"properties\": [{\"name\": \"a\", \"requried\": true}]}]\n}\n",
			`c.json:7: schema[0].properties[0].requried: unknown key "requried" (did you mean "required"?)`},
		{"alias", "c.yaml", "apiVersion: v3.2.0\nkind: DataContract\nid: x\nversion: 1.0.0\nx-base: &p {name: a, uniqe: true}\nschema:\n  - name: t\n    properties: [*p]\n",
			`unknown key "uniqe"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.text), tc.file)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want …%s…, got %v", tc.want, err)
			}
		})
	}
	dated := "apiVersion: v3.0.2\nkind: DataContract\nid: d\nversion: 1.0.0\nstatus: active\ncontractCreatedTs: 2024-01-01T00:00:00Z\n"
	if _, err := Parse([]byte(dated), "d.yaml"); err != nil {
		t.Fatalf("a contract with a timestamp: %v", err)
	}
}
