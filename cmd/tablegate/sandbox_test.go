package main

import (
	gosql "database/sql"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/schema"
)

// inetSyscall is a socket or connect call of an internet family in strace's output.
var inetSyscall = regexp.MustCompile(`(socket|connect)\((\d+, )?.*AF_INET6?\b`)

// TestSlowNoSockets: check, explain and validate open no internet socket on any corpus schema: every
// entry of the hostile SQL corpus as a rule (check), those that compile (explain, validate over a
// Parquet input), and the example schemas. Run under strace; a rule naming an extension's
// function would otherwise make DuckDB download the extension.
func TestSlowNoSockets(t *testing.T) {
	testenv.Slow(t) // needs strace
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	strace, err := osexec.LookPath("strace")
	if err != nil {
		t.Fatal("strace is needed to watch the CLI's system calls (apt-get install strace)")
	}
	dir := t.TempDir()
	data, err := os.ReadFile("../../compile/testdata/hostile_sql.txt")
	if err != nil {
		t.Fatal(err)
	}
	var all, accepted []string
	for _, part := range strings.Split(string(data), "\n=== ")[1:] {
		_, expr, _ := strings.Cut(part, "\n")
		expr = strings.TrimSuffix(expr, "\n")
		all = append(all, expr)
		s := schema.New("Hostile", schema.Float64("amount").Nullable(), schema.String("name").Nullable()).AddRule("r", expr)
		if _, err := compile.Compile(s); err == nil {
			accepted = append(accepted, expr)
		}
	}
	if len(all) < 80 || len(accepted) < 10 || len(accepted) == len(all) {
		t.Fatalf("corpus: %d entries, %d compile", len(all), len(accepted))
	}
	hostile := func(name string, exprs []string) string {
		var b strings.Builder
		b.WriteString("schema: Hostile\ncolumns:\n  - name: amount\n    type: Float64\n    nullable: true\n  - name: name\n    type: String\n    nullable: true\nrules:\n")
		for i, e := range exprs {
			b.WriteString("  - name: r" + strings.Repeat("x", i) + "\n    sql: " + yamlQuote(e) + "\n")
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	allPath, okPath := hostile("all.yaml", all), hostile("accepted.yaml", accepted)
	input := filepath.Join(dir, "in.parquet")
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("COPY (SELECT 1.5::DOUBLE AS amount, 'x' AS name UNION ALL SELECT NULL, NULL) TO '" + input + "' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	runs := [][]string{
		{"check", "--schema", allPath},
		{"check", "--schema", okPath},
		{"explain", "--schema", okPath, "--input", input},
		{"validate", "--schema", okPath, "--input", input, "--out", filepath.Join(dir, "out.parquet"), "--quarantine", "--format", "json"},
	}
	examples, _ := filepath.Glob("../../compile/testdata/*.yaml")
	for _, ex := range examples {
		runs = append(runs, []string{"check", "--schema", ex}, []string{"explain", "--schema", ex})
	}
	sockets := 0
	for _, args := range runs {
		trace := filepath.Join(dir, "trace.txt")
		cmd := osexec.Command(strace, append([]string{"-f", "-qq", "-e", "trace=socket,connect", "-o", trace, binary}, args...)...)
		out, _ := cmd.CombinedOutput() // the check of all.yaml fails: the corpus is hostile
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() > 9 {
			t.Fatalf("%s: did not run: %s", args, out)
		}
		text, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(text), "\n") {
			if inetSyscall.MatchString(line) {
				sockets++
				t.Errorf("%s: %s", strings.Join(args, " "), line)
			}
		}
	}
	t.Logf("%d runs (%d corpus entries, %d compile), %d internet sockets", len(runs), len(all), len(accepted), sockets)
}

func yamlQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "\x00", `\0`).Replace(s) + `"`
}

// TestConfinedFiles: a command's DuckDB reads and writes only inside the folders of its input,
// output and database files and those given by --allow-dir; a --query that reads elsewhere is
// refused with DuckDB's permission error and a hint.
func TestConfinedFiles(t *testing.T) {
	f := newFixture(t)
	f.parquet("data/in.parquet", ordersSelect(allValidRows))
	elsewhere := f.parquet("elsewhere/in.parquet", ordersSelect(allValidRows))
	out := f.path("out", "orders.parquet")
	require.NoError(t, os.MkdirAll(filepath.Dir(out), 0o755))

	code, _, stderr := cli(t, "validate", "--schema", f.schema, "--input", f.path("data", "*.parquet"), "--out", out)
	require.Equal(t, 0, code, stderr)
	assert.FileExists(t, out)

	query := "SELECT * FROM read_parquet(" + quoteLit(elsewhere) + ")"
	code, stdout, stderr := cli(t, "validate", "--schema", f.schema, "--query", query, "--out", out, "--format", "json")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "file system operations are disabled")
	assert.Contains(t, stderr, "add --allow-dir DIR")
	assert.Contains(t, oneJSON(t, stdout)["error"].(map[string]any)["message"], "add --allow-dir DIR")

	for _, secret := range []string{"/etc/passwd", "/proc/self/environ"} {
		code, _, stderr = cli(t, "validate", "--schema", f.schema, "--query", "SELECT * FROM read_csv("+quoteLit(secret)+")")
		assert.Equal(t, exitUsage, code, secret)
		assert.Contains(t, stderr, "file system operations are disabled", secret)
	}

	code, _, stderr = cli(t, "validate", "--schema", f.schema, "--query", query, "--out", out, "--allow-dir", filepath.Dir(elsewhere))
	require.Equal(t, 0, code, stderr)
}
