package tablegate_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestBinariesStandOnTheFacade: the commands import this package, the declaration loaders and
// what registers their engine, nothing else of the project: what they need of a run is this
// package's API, so that a library user has it too.
func TestBinariesStandOnTheFacade(t *testing.T) {
	const module = "github.com/tablegate/tablegate"
	loaders := []string{module, module + "/schema", module + "/collection", module + "/odcs"}
	for _, tc := range []struct {
		dir     string
		allowed []string
	}{
		// internal/pipes speaks Dagster Pipes; engines/duckdb registers the DuckDB engine.
		{"cmd/tablegate", append(slices.Clone(loaders), module+"/internal/pipes", module+"/engines/duckdb")},
		// history (the run history's DuckDB file) and compile/duckdbparser (DuckDB's SQL parser) are
		// linked in a cgo build only.
		{"engines/spark/cmd/tablegate-spark", append(slices.Clone(loaders), module+"/engines/spark", module+"/history", module+"/compile/duckdbparser")},
	} {
		files, err := filepath.Glob(filepath.Join(tc.dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", tc.dir, err)
		}
		imported := map[string]bool{}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path != module && !strings.HasPrefix(path, module+"/") {
					continue
				}
				imported[path] = true
				if !slices.Contains(tc.allowed, path) {
					t.Errorf("%s imports %s: use what the root package offers, or add it there", name, path)
				}
			}
		}
		if len(imported) > 5 {
			t.Errorf("%s imports %d project packages, more than 5: %v", tc.dir, len(imported), imported)
		}
	}
}
