package tablegate_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestREADMEGoSection keeps the README's Go section equal to example_test.go, whose examples
// compile and have their output checked: the first block is the file's imports and the body of
// Example, each further block (if any) the body of the next example, in file order.
func TestREADMEGoSection(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Go\n")
	if !ok {
		t.Fatal("README.md has no '## Go' section")
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var blocks []string
	for rest := section; ; {
		_, after, ok := strings.Cut(rest, "```go\n")
		if !ok {
			break
		}
		block, tail, _ := strings.Cut(after, "```\n")
		blocks = append(blocks, block)
		rest = tail
	}

	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "example_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	text := func(from, to token.Pos) string {
		return string(src[fset.Position(from).Offset:fset.Position(to).Offset])
	}
	var want []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				want = append(want, text(d.Pos(), d.End())+"\n\n")
			}
		case *ast.FuncDecl:
			if !strings.HasPrefix(d.Name.Name, "Example") {
				continue
			}
			body := strings.TrimPrefix(text(d.Body.Lbrace+1, d.Body.Rbrace), "\n")
			lines := strings.SplitAfter(body, "\n")
			for i, l := range lines {
				lines[i] = strings.TrimPrefix(l, "\t")
			}
			if len(want) == 1 && d.Name.Name == "Example" {
				want[0] += strings.Join(lines, "")
			} else {
				want = append(want, strings.Join(lines, ""))
			}
		}
	}
	if len(blocks) == 0 || len(blocks) > len(want) {
		t.Fatalf("README's Go section has %d go blocks; example_test.go makes %d", len(blocks), len(want))
	}
	for i := range blocks {
		if blocks[i] != want[i] {
			t.Errorf("README Go block %d differs from example_test.go:\n--- README\n%s\n--- example_test.go\n%s", i+1, blocks[i], want[i])
		}
	}
}
