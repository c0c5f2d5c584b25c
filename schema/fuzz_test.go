package schema_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tablegate/tablegate/schema"
)

// FuzzParse feeds arbitrary text to the YAML and JSON loaders: they must never panic, and a
// schema they accept must validate without panicking and list its rules.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("../examples/*/*.yaml")
	more, _ := filepath.Glob("../benchmarks/schemas/*.yaml")
	for _, p := range append(seeds, more...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data, false)
		}
	}
	f.Add([]byte(`{"schema": "S", "columns": [{"name": "a", "type": "Int64", "min": 1}]}`), true)
	f.Add([]byte("schema: S\ncolumns:\n  - {name: a, type: List, inner: {type: String, min_length: 1}}\n"), false)
	f.Add([]byte("schema: S\ncolumns: [{name: a, type: Struct, fields: [{name: b, type: Decimal, precision: 5, scale: 2, max: 1.5}]}]\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		name := "fuzz.yaml"
		if asJSON {
			name = "fuzz.json"
		}
		s, err := schema.Parse(data, name)
		if err != nil || s == nil {
			return
		}
		for _, c := range s.Columns {
			_ = c.RuleNames()
			_ = c.DType.String()
			_ = c.DType.DuckDBType()
		}
		_ = s.AllRuleNames()
	})
}
