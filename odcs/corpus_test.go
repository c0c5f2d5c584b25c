package odcs

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/examples/outcomes.txt from the corpus")

// corpusDir holds the ODCS examples of the standard's repository and of datacontract-cli, with
// their licences (testdata/examples/README.md says where each came from).
var corpusDir = filepath.Join("testdata", "examples")

// corpusFiles lists the contracts of the corpus, sorted.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(corpusDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(p); !d.IsDir() && (ext == ".yaml" || ext == ".yml") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	if len(files) < 100 {
		t.Fatalf("the corpus has %d contracts; expected the ~130 of testdata/examples", len(files))
	}
	return files
}

// TestCorpus: every contract of the corpus is validated against the JSON schema of its
// apiVersion, and the verdicts are the ones testdata/examples/outcomes.txt records (go test
// -run TestCorpus -update rewrites it; review its diff).
func TestCorpus(t *testing.T) {
	files := corpusFiles(t)
	verdicts := validateAgainstJSONSchema(t, files...)
	var b strings.Builder
	for _, f := range files {
		rel, _ := filepath.Rel(corpusDir, f)
		b.WriteString(filepath.ToSlash(rel) + "\n")
		b.WriteString("  json schema: " + verdicts[f].summary() + "\n")
	}
	compareGolden(t, filepath.Join(corpusDir, "outcomes.txt"), b.String())
}

// compareGolden compares got with the golden file, or rewrites it with -update.
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs from the run at line %d:\n got: %s\nwant: %s\n(go test -run %s -update rewrites it; review the diff)", path, i+1, g, w, t.Name())
		}
	}
}
