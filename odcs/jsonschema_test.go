package odcs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// odcsPackagesVar names the folders where .ci/run installs the open-data-contract-standard
// package, one per minor version of the standard (pip install --target), separated by ':'.
const odcsPackagesVar = "TABLEGATE_PY_ODCS"

// schemaResult is validate_odcs.py's verdict on one contract.
type schemaResult struct {
	File       string `json:"file"`
	APIVersion string `json:"apiVersion"`
	Schema     string `json:"schema"`
	Errors     []struct {
		Path    string `json:"path"`
		Message string `json:"message"`
	} `json:"errors"`
}

// odcsPackages finds the installed JSON schemas of the standard: the folders TABLEGATE_PY_ODCS
// names (CI sets it, and then a missing dependency fails the test), else the ones .ci/run leaves
// in ${TMPDIR:-/tmp}/tablegate-ci-python. Without either the test is skipped, saying how to get
// them.
func odcsPackages(t *testing.T) []string {
	t.Helper()
	explicit := os.Getenv(odcsPackagesVar)
	var dirs []string
	if explicit != "" {
		dirs = filepath.SplitList(explicit)
	} else {
		dirs, _ = filepath.Glob(filepath.Join(os.TempDir(), "tablegate-ci-python", "odcs-*"))
	}
	missing := func(format string, args ...any) {
		t.Helper()
		if explicit != "" {
			t.Fatalf(odcsPackagesVar+" is set, but "+format, args...)
		}
		t.Skipf("the ODCS JSON schemas are not installed ("+format+"): run the ODCS lines of .ci/run, or set "+odcsPackagesVar+" to folders with open-data-contract-standard 3.0.4, 3.1.2 and 3.2.0 installed by pip install --target", args...)
	}
	if len(dirs) == 0 {
		missing("no folder %s", filepath.Join(os.TempDir(), "tablegate-ci-python", "odcs-*"))
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "open_data_contract_standard", "schema.json")); err != nil {
			missing("%s has no open_data_contract_standard/schema.json", d)
		}
	}
	if out, err := exec.Command("python3", "-c", "import jsonschema, yaml").CombinedOutput(); err != nil {
		missing("python3 with jsonschema and pyyaml: %v: %s", err, bytes.TrimSpace(out))
	}
	return dirs
}

// validateAgainstJSONSchema validates contract files against the JSON schema of the standard's
// version each declares, with the jsonschema package, and returns the verdicts by file.
func validateAgainstJSONSchema(t *testing.T, files ...string) map[string]schemaResult {
	t.Helper()
	args := append([]string{filepath.Join("testdata", "validate_odcs.py")}, odcsPackages(t)...)
	args = append(append(args, "--"), files...)
	var stderr bytes.Buffer
	cmd := exec.Command("python3", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("validate_odcs.py: %v\n%s", err, stderr.String())
	}
	results := map[string]schemaResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r schemaResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("validate_odcs.py printed %q: %v", sc.Text(), err)
		}
		results[r.File] = r
	}
	if len(results) != len(files) {
		t.Fatalf("validate_odcs.py judged %d of %d files\n%s", len(results), len(files), stderr.String())
	}
	return results
}

// summary is a verdict in a line: "valid against v3.1.0", or the error count and paths.
func (r schemaResult) summary() string {
	if len(r.Errors) == 0 {
		return "valid against " + r.Schema
	}
	paths := make([]string, len(r.Errors))
	for i, e := range r.Errors {
		paths[i] = e.Path
		if paths[i] == "" {
			paths[i] = "(top)"
		}
	}
	against := r.Schema
	if against == "" {
		against = "no schema for " + r.APIVersion
	}
	return "invalid against " + against + " at " + strings.Join(paths, ", ")
}

// TestValidatorFindsMistakes: the harness reports a contract that breaks the JSON schema, with
// the path of the mistake, and passes one that keeps it; so the verdicts the other tests rely on
// can fail.
func TestValidatorFindsMistakes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", `apiVersion: v3.2.0
kind: DataContract
id: 5f0a1c2e-orders
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - name: id
        logicalType: integer
        physicalType: BIGINT
        required: true
`)
	bad := write("bad.yaml", `apiVersion: v3.2.0
kind: DataContract
id: orders
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - name: id
        logicalType: integer
        required: "yes"
`)
	dated := write("dated.yaml", `apiVersion: v3.0.2
kind: DataContract
id: d
version: 1.0.0
status: active
contractCreatedTs: 2024-01-01T00:00:00Z
`)
	got := validateAgainstJSONSchema(t, good, bad, dated)
	if s := got[good].summary(); s != "valid against v3.2.0" {
		t.Errorf("good contract: %s", s)
	}
	if s := got[bad].summary(); s != "invalid against v3.2.0 at schema[0].properties[0].required" {
		t.Errorf("bad contract: %s", s)
	}
	// A YAML timestamp is a string to a JSON schema, as it is to the contract's JSON form.
	if s := got[dated].summary(); s != "valid against v3.0.2" {
		t.Errorf("contract with a timestamp: %s", s)
	}
}
