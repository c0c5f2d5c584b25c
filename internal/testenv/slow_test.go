package testenv_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/internal/testenv"
)

// TestSlowNamesSelectThem: every test of the module that calls testenv.Slow is a top-level test
// named TestSlow…, so that CI's slow tier (-run '^TestSlow') runs every slow test and no quick
// one. engines/ holds modules of their own, which run their slow tests apart.
func TestSlowNamesSelectThem(t *testing.T) {
	root := filepath.Join("..", "..")
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "engines" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Slow" {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "testenv" {
					return true
				}
				found++
				if !strings.HasPrefix(fn.Name.Name, testenv.SlowPrefix) {
					t.Errorf("%s: %s calls testenv.Slow: a slow test is a top-level test named %s…", path, fn.Name.Name, testenv.SlowPrefix)
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no test calls testenv.Slow: the walk found no test files")
	}
}
