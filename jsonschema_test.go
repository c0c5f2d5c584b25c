package tablegate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/schema"
)

// jsonSchemas compiles the published JSON Schemas of schema and collection files.
func jsonSchemas(t *testing.T) (schemaFile, collectionFile *jsonschema.Schema) {
	t.Helper()
	c := jsonschema.NewCompiler()
	compile := func(path string) *jsonschema.Schema {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := c.AddResource(path, doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return s
	}
	return compile("schema/tablegate.schema.json"), compile("collection/collection.schema.json")
}

// instance reads a YAML (or JSON) document as a JSON Schema validator takes it, the way an
// editor's YAML language server sees it: YAML's .inf and .nan are numbers.
func instance(data []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	var conv func(any) any
	conv = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				out[k] = conv(e)
			}
			return out
		case map[any]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				out[fmt.Sprint(k)] = conv(e)
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = conv(e)
			}
			return out
		case time.Time: // an unquoted timestamp: text, as editors read it
			return x.Format(time.RFC3339Nano)
		case int:
			return json.Number(strconv.Itoa(x))
		case uint64:
			return json.Number(strconv.FormatUint(x, 10))
		case float64:
			if math.IsInf(x, 0) || math.IsNaN(x) {
				return json.Number("0")
			}
			return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
		}
		return v
	}
	return conv(v), nil
}

// fileKind tells a tablegate schema file ("schema") or collection file ("collection") by its
// keys; ODCS contracts (apiVersion, kind) and other YAML are neither.
func fileKind(doc any) string {
	m, ok := doc.(map[string]any)
	if !ok || m["apiVersion"] != nil || m["kind"] != nil {
		return ""
	}
	if _, ok := m["collection"]; ok {
		return "collection"
	}
	if _, ok := m["members"]; ok {
		return "collection"
	}
	for _, k := range []string{"schema", "columns", "extends"} {
		if _, ok := m[k]; ok {
			return "schema"
		}
	}
	return ""
}

var (
	yamlBlock = regexp.MustCompile("(?s)```ya?ml\n(.*?)```")
	modeline  = regexp.MustCompile(`(?m)^# yaml-language-server: \$schema=(\S+)`)
)

// TestJSONSchemas validates every schema and collection file of the repository (examples,
// testdata, the YAML blocks of the docs) against the published JSON Schemas: each one the loader
// accepts, the JSON Schema accepts too, so an editor never flags a file that works. Deliberately
// wrong documents fail both.
func TestJSONSchemas(t *testing.T) {
	schemaJS, collectionJS := jsonSchemas(t)
	ctx := context.Background()
	counts := map[string]int{}
	check := func(name string, data []byte, load func() error) {
		doc, err := instance(data)
		if err != nil {
			return // not YAML: the loader's own tests cover it
		}
		kind := fileKind(doc)
		if kind == "" || load() != nil {
			return // the loader refuses it: the JSON Schema may or may not
		}
		js := schemaJS
		if kind == "collection" {
			js = collectionJS
		}
		counts[kind]++
		if err := js.Validate(doc); err != nil {
			t.Errorf("%s loads as a %s file, but its JSON Schema refuses it: %v", name, kind, err)
		}
	}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		ext := strings.ToLower(filepath.Ext(path))
		if d.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json" && ext != ".md") || strings.HasSuffix(path, ".schema.json") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if ext == ".md" {
			for i, m := range yamlBlock.FindAllSubmatch(data, -1) {
				block := m[1]
				check(fmt.Sprintf("%s (YAML block %d)", path, i+1), block, func() error {
					_, err := schema.ParseContext(ctx, block, filepath.Join(filepath.Dir(path), "block.yaml"), schema.WithRoot("."))
					return err
				})
			}
			return nil
		}
		// A file that names its JSON Schema (the examples) names the right one.
		if m := modeline.FindSubmatch(data); m != nil && !strings.Contains(string(m[1]), "://") {
			doc, _ := instance(data)
			want := map[string]string{"schema": "schema/tablegate.schema.json", "collection": "collection/collection.schema.json"}[fileKind(doc)]
			if got := filepath.Join(filepath.Dir(path), string(m[1])); got != want {
				t.Errorf("%s names the JSON Schema %s, want %s", path, got, want)
			}
		}
		check(path, data, func() error {
			doc, _ := instance(data)
			if fileKind(doc) == "collection" {
				_, err := tablegate.LoadCollection(ctx, path)
				return err
			}
			_, err := schema.LoadFileContext(ctx, path, schema.WithRoot("."))
			return err
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Enough files were found for the test to mean something.
	if counts["schema"] < 20 || counts["collection"] < 2 {
		t.Errorf("validated %d schema files and %d collection files; the walk missed the repository's", counts["schema"], counts["collection"])
	}
	t.Logf("validated %d schema files and %d collection files", counts["schema"], counts["collection"])

	for _, tc := range []struct {
		name, kind, doc, want string
	}{
		{"unknown key", "schema", "schema: s\ncolumns: []\ncolums: []\n", "colums"},
		{"column without type", "schema", "schema: s\ncolumns:\n  - name: a\n", "type"},
		{"unknown dtype", "schema", "schema: s\ncolumns:\n  - {name: a, type: Int65}\n", "/columns/0/type"},
		{"nullable as a string", "schema", "schema: s\ncolumns:\n  - {name: a, type: Int64, nullable: 'yes'}\n", "nullable"},
		{"precision on a string", "schema", "schema: s\ncolumns:\n  - {name: a, type: String, precision: 3}\n", "precision"},
		{"unknown severity", "schema", "schema: s\ncolumns:\n  - {name: a, type: Int64, severity: fatal}\n", "severity"},
		{"inner column with a name", "schema", "schema: s\ncolumns:\n  - {name: a, type: List, inner: {name: x, type: Int64}}\n", "inner"},
		{"rule without a name", "schema", "schema: s\nrules:\n  - sql: a > 0\n", "name"},
		{"member with schema and contract", "collection", "collection: c\nmembers:\n  a: {schema: a.yaml, contract: a.odcs.yaml}\n", "members"},
		{"filter of no kind", "collection", "collection: c\nmembers: {a: a.yaml}\nfilters:\n  - {name: f}\n", "filters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := instance([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			js := schemaJS
			if tc.kind == "collection" {
				js = collectionJS
			}
			err = js.Validate(doc)
			if err == nil || !strings.Contains(fmt.Sprintf("%#v", err), tc.want) {
				t.Errorf("the JSON Schema: %v; want a refusal about %q", err, tc.want)
			}
			dir := t.TempDir()
			file := filepath.Join(dir, tc.kind+".yaml")
			if err := os.WriteFile(file, []byte(tc.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.kind == "collection" {
				_, err = tablegate.LoadCollection(ctx, file)
			} else {
				_, err = schema.LoadFileContext(ctx, file)
			}
			if err == nil {
				t.Errorf("the loader accepts what the JSON Schema refuses")
			}
		})
	}
}

// TestInitSchemaLine: the line init writes first names the published JSON Schema, which the
// repository holds.
func TestInitSchemaLine(t *testing.T) {
	data, err := os.ReadFile("schema/tablegate.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(data, &js); err != nil {
		t.Fatal(err)
	}
	if want := "# yaml-language-server: $schema=" + js.ID; !bytes.Equal([]byte(schema.LanguageServerLine), []byte(want)) {
		t.Errorf("init writes %q, the schema's $id is %q", schema.LanguageServerLine, js.ID)
	}
}
