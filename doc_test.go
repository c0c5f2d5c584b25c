package tablegate_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryExportedNameDocumented: go doc on the package reads as a guide: a package comment
// with its sections, and a comment on every exported name and struct field (a grouped
// declaration's comment covers its names).
func TestEveryExportedNameDocumented(t *testing.T) {
	fset := token.NewFileSet()
	// Every file of the package, whatever its build tags (arrow.go needs duckdb_arrow).
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	var pkgDoc string
	missing := func(pos token.Pos, name string) { t.Errorf("%s: %s has no doc comment", fset.Position(pos), name) }
	for _, f := range files {
		if f.Doc != nil {
			pkgDoc += f.Doc.Text()
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && d.Doc == nil {
					missing(d.Pos(), d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						if s.Doc == nil && d.Doc == nil {
							missing(s.Pos(), s.Name.Name)
						}
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fld := range st.Fields.List {
								for _, n := range fld.Names {
									if n.IsExported() && fld.Doc == nil && fld.Comment == nil {
										missing(n.Pos(), s.Name.Name+"."+n.Name)
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && s.Doc == nil && d.Doc == nil && s.Comment == nil {
								missing(n.Pos(), n.Name)
							}
						}
					}
				}
			}
		}
	}
	for _, heading := range []string{"Package tablegate validates", "# Getting it", "-replace=github.com/tablegate/tablegate=", "# Schemas", "# Inputs and outputs", "# Running", "# Results and errors"} {
		if !strings.Contains(pkgDoc, heading) {
			t.Errorf("the package comment lacks %q", heading)
		}
	}
}
