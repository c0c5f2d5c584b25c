package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/internal/testenv"
)

// runBinary runs the built tablegate in dir and kills it after limit: a command that blocks (in
// open() on a named pipe, which SIGTERM does not end) fails its test instead of hanging it.
func runBinary(t *testing.T, dir string, limit time.Duration, args ...string) (code int, stdout, stderr string, hung bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := osexec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		return -1, out.String(), errOut.String(), true
	}
	var exitErr *osexec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, out.String(), errOut.String(), false
}

// TestSpecialFilesRefused: every path validate reads or writes that names a named pipe or a
// device (here /dev/zero, through a link whose name has the extension the flag wants) is
// refused before it is opened, with a message naming the path and its kind, exit 2, and
// nothing changed. Before, a named pipe blocked open() for good (SIGINT and SIGTERM ignored),
// and /dev/zero was "an empty file". The quick loop tries a named pipe as the input, the output
// and the history; TestSlowSpecialFilesRefused every other path, and /dev/zero at each.
func TestSpecialFilesRefused(t *testing.T) {
	t.Parallel()
	specialFilesRefused(t, func(kind, name string) bool { return kind == "fifo" && quickSpecial[name] })
}

// TestSlowSpecialFilesRefused is TestSpecialFilesRefused's sweep: every path and kind it leaves out.
func TestSlowSpecialFilesRefused(t *testing.T) {
	testenv.Slow(t)
	t.Parallel()
	specialFilesRefused(t, func(kind, name string) bool { return kind != "fifo" || !quickSpecial[name] })
}

var quickSpecial = map[string]bool{"parquet input": true, "parquet out": true, "--history": true}

// specialFilesRefused runs the binary on each special file pick selects (by its kind and the
// path it stands for).
func specialFilesRefused(t *testing.T, pick func(kind, name string) bool) {
	require.NoError(t, buildErr)
	f := newFixture(t)
	valid := f.parquet("valid.parquet", ordersSelect(allValidRows))
	mixed := f.parquet("mixed.parquet", ordersSelect(mixedRows))
	out := f.path("out", "orders.parquet")
	code, _, stderr := cli(t, "validate", "--schema", f.schema, "--input", mixed, "--out", out, "--quarantine")
	require.Equal(t, 0, code, stderr)
	wh := f.path("out", "wh.duckdb")
	code, _, stderr = cli(t, "validate", "--schema", f.schema, "--input", mixed, "--out", wh+":orders", "--quarantine")
	require.Equal(t, 0, code, stderr)

	kinds := []struct {
		name, kind string
		make       func(path string)
	}{
		{"fifo", "is a named pipe (FIFO)", func(p string) { require.NoError(t, syscall.Mkfifo(p, 0o644)) }},
		{"device", "is a character device", func(p string) { require.NoError(t, os.Symlink("/dev/zero", p)) }},
	}
	for _, k := range kinds {
		special := func(name string) string {
			p := f.path(k.name, name)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			k.make(p)
			return p
		}
		glob := f.path(k.name, "glob")
		require.NoError(t, os.MkdirAll(glob, 0o755))
		copyFile(t, valid, filepath.Join(glob, "a.parquet"))
		globBad := filepath.Join(glob, "b.parquet")
		k.make(globBad)
		quarantined := f.path(k.name, "q", "orders.parquet")
		require.NoError(t, os.MkdirAll(filepath.Dir(quarantined), 0o755))
		quarantine := filepath.Join(filepath.Dir(quarantined), "orders_quarantine.parquet")
		k.make(quarantine)
		cases := []struct {
			name string
			args []string
			path string // the special file the message names
		}{
			{"parquet input", []string{"--input", special("in.parquet")}, f.path(k.name, "in.parquet")},
			{"csv input", []string{"--input", special("in.csv")}, f.path(k.name, "in.csv")},
			{"ndjson input", []string{"--input", special("in.ndjson")}, f.path(k.name, "in.ndjson")},
			{"a file of a glob", []string{"--input", filepath.Join(glob, "*.parquet")}, globBad},
			{"database input", []string{"--input", special("in.duckdb") + ":raw"}, f.path(k.name, "in.duckdb")},
			{"--db", []string{"--query", "SELECT 'a' AS id, 1.0 AS amount, NULL AS note", "--db", special("db.duckdb")}, f.path(k.name, "db.duckdb")},
			{"parquet out", []string{"--input", valid, "--out", special("out.parquet")}, f.path(k.name, "out.parquet")},
			{"quarantine", []string{"--input", mixed, "--out", quarantined, "--quarantine"}, quarantine},
			{"database out", []string{"--input", valid, "--out", special("out.duckdb") + ":orders"}, f.path(k.name, "out.duckdb")},
			{"--history", []string{"--input", valid, "--out", out, "--history", special("history.duckdb")}, f.path(k.name, "history.duckdb")},
			{"--html", []string{"--input", valid, "--out", out, "--html", special("page.html")}, f.path(k.name, "page.html")},
			{"--report", []string{"--input", valid, "--out", out, "--report", special("report.json")}, f.path(k.name, "report.json")},
			{"--temp-dir", []string{"--input", valid, "--temp-dir", special("spill")}, f.path(k.name, "spill")},
			{"--schema", []string{"--input", valid}, f.path(k.name, "orders.yaml")},
		}
		for _, tc := range cases {
			if !pick(k.name, tc.name) {
				continue
			}
			schemaPath := f.schema
			if tc.name == "--schema" {
				schemaPath = special("orders.yaml")
			}
			beforeOut := treeState(t, f.path("out"))
			args := append([]string{"validate", "--schema", schemaPath}, tc.args...)
			code, _, stderr, hung := runBinary(t, f.dir, 60*time.Second, args...)
			require.False(t, hung, "%s %s: validate hung (killed after 60 s)\nstderr: %s", k.name, tc.name, stderr)
			assert.Equal(t, 2, code, "%s %s: %s", k.name, tc.name, stderr)
			assert.Contains(t, stderr, tc.path, "%s %s: the message names the path", k.name, tc.name)
			assert.Contains(t, stderr, k.kind, "%s %s: the message names the kind", k.name, tc.name)
			assert.NotContains(t, stderr, "empty file", "%s %s", k.name, tc.name)
			assert.Empty(t, treeDiff(beforeOut, treeState(t, f.path("out"))), "%s %s: the outputs are unchanged", k.name, tc.name)
			st, err := os.Lstat(tc.path)
			require.NoError(t, err, "%s %s: the special file is still there", k.name, tc.name)
			assert.False(t, st.Mode().IsRegular(), "%s %s: not replaced by a file", k.name, tc.name)
			t.Logf("%s %s: %s", k.name, tc.name, strings.TrimSpace(stderr))
		}
	}
}

// TestReportPathsThatWouldOverwriteData: an --html, --report or --history path that is the same
// file as the run's data (the input, every file of a glob, --db, the table, the quarantine) or
// as another report path is refused with exit 2, and nothing is written; also through links,
// for paths that do not exist yet, and on runs that fail before they start. Before, --html equal
// to --out replaced the new table with the page and exited 0.
func TestReportPathsThatWouldOverwriteData(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mixed := f.parquet("in/mixed.parquet", ordersSelect(mixedRows))
	f.parquet("in/glob/a.parquet", ordersSelect(allValidRows))
	globFile := f.parquet("in/glob/b.parquet", ordersSelect(allValidRows))
	csv := f.write("in/orders.csv", "id,amount,note\na,1.0,\nb,-2.0,x\n")
	out := f.path("out", "orders.parquet")
	quarantine := f.path("out", "orders_quarantine.parquet")
	wh := f.path("out", "wh.duckdb")
	for _, o := range []string{out, wh + ":orders"} {
		code, _, stderr := cli(t, "validate", "--schema", f.schema, "--input", mixed, "--out", o, "--quarantine")
		require.Equal(t, 0, code, stderr)
	}
	src := f.path("in", "src.duckdb")
	f.withDB(src, "CREATE TABLE d.raw AS "+ordersSelect(allValidRows))
	links := t.TempDir() // outside the folder whose files are compared
	require.NoError(t, os.Symlink(f.path("out"), filepath.Join(links, "out")))
	require.NoError(t, os.Symlink(out, filepath.Join(links, "table.html")))

	for _, tc := range []struct {
		name  string
		args  []string
		other string // what the message says the path is the same file as
	}{
		{"--html is --out", []string{"--input", mixed, "--out", out, "--quarantine", "--html", out}, "the table " + out},
		{"--html is --out through a link", []string{"--input", mixed, "--out", out, "--quarantine", "--html", filepath.Join(links, "table.html")}, "the table " + out},
		{"--html is a new --out through a linked folder", []string{"--input", mixed, "--out", f.path("out", "new.parquet"), "--html", filepath.Join(links, "out", "new.parquet")}, "the table"},
		{"--report is the quarantine", []string{"--input", mixed, "--out", out, "--quarantine", "--report", quarantine}, "the quarantine " + quarantine},
		{"--report is the kept previous quarantine", []string{"--input", mixed, "--out", out, "--report", f.path("out", "orders_quarantine.prev.parquet")}, "the kept previous quarantine"},
		{"--report is the input of an aborted run", []string{"--input", mixed, "--report", mixed}, "the input file " + mixed},
		{"--report is a csv input", []string{"--input", csv, "--report", csv}, "the input " + csv},
		{"--html is a file of the glob", []string{"--input", f.path("in", "glob", "*.parquet"), "--html", globFile}, "the input file " + globFile},
		{"--history is the output's database", []string{"--input", mixed, "--out", wh + ":orders", "--history", wh}, "the output's database " + wh},
		{"--history is the input's database", []string{"--input", src + ":raw", "--history", src}, "the input's database " + src},
		{"--report is --db", []string{"--query", "SELECT * FROM raw", "--db", src, "--report", src}, "the query's database " + src},
		{"--report is --html", []string{"--input", mixed, "--html", f.path("page.html"), "--report", f.path(".", "page.html")}, "--html " + f.path("page.html")},
		{"--history is --report", []string{"--input", mixed, "--report", f.path("r.json"), "--history", f.path("r.json")}, "--report " + f.path("r.json")},
		{"--report is the input, the run failing before it starts", []string{"--input", mixed, "--report", mixed, "--format", "xml"}, "the input file " + mixed},
		{"--report is the input, the flags failing to parse", []string{"--input", mixed, "--report", mixed, "--no-such-flag"}, ""},
	} {
		before := treeState(t, f.dir)
		args := append([]string{"validate", "--schema", f.schema}, tc.args...)
		code, stdout, stderr := cli(t, args...)
		assert.Equal(t, 2, code, "%s: %s", tc.name, stderr)
		if tc.other != "" {
			assert.Contains(t, stderr, "is the same file as "+tc.other, tc.name)
		}
		assert.Empty(t, treeDiff(before, treeState(t, f.dir)), "%s: nothing is written", tc.name)
		t.Logf("%s: %s%s", tc.name, strings.TrimSpace(stderr), stdout)
	}

	// With --format json the refusal is the one JSON object, and still nothing is written.
	before := treeState(t, f.dir)
	code, stdout, _ := cli(t, "validate", "--schema", f.schema, "--input", mixed, "--out", out, "--quarantine", "--html", out, "--format", "json")
	assert.Equal(t, 2, code)
	rep := oneJSON(t, stdout)
	assert.Nil(t, rep["outcome"])
	typ, msg := errorOf(rep)
	assert.Equal(t, "ReportFileError", typ)
	assert.Contains(t, msg, "--html "+out+" is the same file as the table")
	assert.Empty(t, treeDiff(before, treeState(t, f.dir)))

	// tablegate report: --html the history file itself.
	hist := f.path("runs.duckdb")
	code, _, stderr := cli(t, "validate", "--schema", f.schema, "--input", mixed, "--history", hist)
	require.Equal(t, 1, code, stderr)
	before = treeState(t, f.dir)
	code, _, stderr = cli(t, "report", "--history", hist, "--run", "any", "--html", hist)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "the page "+hist+" is the same file as the history "+hist)
	assert.Empty(t, treeDiff(before, treeState(t, f.dir)))

	// The previous outputs hold the first run's rows.
	assert.Equal(t, mixedValid, f.parquetRows(out))
	rows, ok := f.tableRows(wh, "main", "orders")
	require.True(t, ok)
	assert.Equal(t, mixedValid, rows)
}

// TestSwapThatCannotCompleteDoesNotWedge: a --quarantine-name longer than the file system allows
// and an --out that is a folder are refused before anything is written or recorded (before, the
// swap was journaled and failed, and every later run of the table exited 2 until the journal was
// deleted by hand; with the folder, the new quarantine was already in place). The previous table
// and quarantine stay as they were, and the next run works.
func TestSwapThatCannotCompleteDoesNotWedge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mixed := f.parquet("in/mixed.parquet", ordersSelect(mixedRows))
	valid := f.parquet("in/valid.parquet", ordersSelect(allValidRows))
	out := f.path("out", "orders.parquet")
	code, _, stderr := cli(t, "validate", "--schema", f.schema, "--input", mixed, "--out", out, "--quarantine")
	require.Equal(t, 0, code, stderr)
	folderOut := f.path("out", "folder.parquet")
	require.NoError(t, os.MkdirAll(filepath.Join(folderOut, "keep"), 0o755))

	long := strings.Repeat("q", 250) // q….parquet is 258 bytes, past ext4's and tmpfs's 255
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"an overlong --quarantine-name", []string{"--input", mixed, "--out", out, "--quarantine", "--quarantine-name", long}, "use a shorter quarantine name"},
		{"an overlong --quarantine-name, all rows valid", []string{"--input", valid, "--out", out, "--quarantine", "--quarantine-name", long}, "use a shorter quarantine name"},
		{"an --out that is a folder", []string{"--input", mixed, "--out", folderOut, "--quarantine"}, folderOut + " is a directory, not a regular file"},
	} {
		before := treeState(t, f.dir)
		code, _, stderr := cli(t, append([]string{"validate", "--schema", f.schema}, tc.args...)...)
		assert.Equal(t, 2, code, "%s: %s", tc.name, stderr)
		assert.Contains(t, stderr, tc.want, tc.name)
		assert.Contains(t, stderr, "the previous table is unchanged", tc.name)
		assert.Empty(t, treeDiff(before, treeState(t, f.dir)), "%s: nothing is written, no journal", tc.name)
		t.Logf("%s: %s", tc.name, strings.TrimSpace(stderr))
	}
	assert.Equal(t, mixedValid, f.parquetRows(out))

	// The next runs work, without removing anything by hand.
	code, _, stderr = cli(t, "validate", "--schema", f.schema, "--input", valid, "--out", out, "--quarantine")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.RemoveAll(folderOut))
	code, _, stderr = cli(t, "validate", "--schema", f.schema, "--input", mixed, "--out", folderOut, "--quarantine")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, mixedValid, f.parquetRows(folderOut))
}

// cliWithin runs the command line in process, and fails the test when it has not returned
// within limit; then it opens each of unblock (named pipes) for reading and writing, which
// releases an open() blocked on it, so that the suite goes on.
func cliWithin(t *testing.T, limit time.Duration, unblock []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errOut bytes.Buffer
		c := run(context.Background(), args, &out, &errOut)
		done <- result{c, out.String(), errOut.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(limit):
		for _, p := range unblock {
			if f, err := os.OpenFile(p, os.O_RDWR, 0); err == nil {
				_ = f.Close()
			}
		}
		select { // a command that nothing unblocks is left behind
		case <-done:
		case <-time.After(5 * time.Second):
		}
		t.Fatalf("%v hung (blocked for %s)", args, limit)
		return 0, "", ""
	}
}

// TestContractPathsThatAreNamedPipes: every command that reads a data contract (validate, check,
// checks and sample with --contract, import --odcs, a collection member {contract: FILE}) refuses
// a named pipe at once, naming the path and its kind. Before, each blocked in open() for good.
func TestContractPathsThatAreNamedPipes(t *testing.T) {
	t.Parallel()
	dir := copyShop(t)
	fifo := filepath.Join(dir, "orders.odcs.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	shop, err := os.ReadFile(filepath.Join(dir, "shop.yaml"))
	require.NoError(t, err)
	coll := filepath.Join(dir, "shop_contract.yaml")
	require.NoError(t, os.WriteFile(coll, []byte(strings.Replace(string(shop), "  orders: orders.yaml", "  orders: {contract: orders.odcs.yaml}", 1)), 0o644))
	in := filepath.Join(dir, "orders.parquet")
	for _, args := range [][]string{
		{"validate", "--contract", fifo, "--input", in},
		{"check", "--contract", fifo},
		{"checks", "--contract", fifo},
		{"sample", "--contract", fifo, "--out", filepath.Join(dir, "sample.parquet")},
		{"import", "--odcs", fifo},
		{"check", "--collection", coll},
		{"validate", "--collection", coll, "--input-dir", dir},
	} {
		code, _, stderr := cliWithin(t, 20*time.Second, []string{fifo}, args...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, "is a named pipe (FIFO), not a regular file", "%v", args)
		assert.Contains(t, stderr, "orders.odcs.yaml", "%v: the message names the path", args)
	}
}

// TestReportPathsThatWouldOverwriteDeclarations: an --html, --report or --history path that is
// the run's own schema file, data contract or collection file is refused with exit 2 and nothing
// is written: on a passing run, an aborted one, one that fails before it starts, also through a
// link. Before, the page or the report replaced the schema and the run exited 0.
func TestReportPathsThatWouldOverwriteDeclarations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	valid := f.parquet("in/valid.parquet", ordersSelect(allValidRows))
	invalid := f.parquet("in/invalid.parquet", ordersSelect(allInvalidRows))
	code, contract, stderr := cli(t, "export", "--odcs", "--schema", f.schema)
	require.Equal(t, exitOK, code, stderr)
	contractPath := f.write("orders.odcs.yaml", contract)
	links := t.TempDir()
	linked := filepath.Join(links, "schema.html")
	require.NoError(t, os.Symlink(f.schema, linked))
	shop := copyShop(t)
	coll := filepath.Join(shop, "shop.yaml")

	for _, tc := range []struct {
		name  string
		args  []string
		other string
	}{
		{"--html is the schema of a passing run", []string{"--schema", f.schema, "--input", valid, "--html", f.schema}, "the schema file " + f.schema},
		{"--report is the schema of an aborted run", []string{"--schema", f.schema, "--input", invalid, "--report", f.schema}, "the schema file " + f.schema},
		{"--html is the schema through a link", []string{"--schema", f.schema, "--input", valid, "--html", linked}, "the schema file " + f.schema},
		{"--history is the schema", []string{"--schema", f.schema, "--input", valid, "--history", f.schema}, "the schema file " + f.schema},
		{"--report is the schema, the run failing before it starts", []string{"--schema", f.schema, "--input", valid, "--report", f.schema, "--format", "xml"}, "the schema file " + f.schema},
		{"--report is the schema, the flags failing to parse", []string{"--schema", f.schema, "--input", valid, "--report", f.schema, "--no-such-flag"}, ""},
		{"--report is the contract", []string{"--contract", contractPath, "--input", valid, "--report", contractPath}, "the data contract " + contractPath},
		{"--report is the contract, the run failing before it starts", []string{"--contract", contractPath, "--input", valid, "--report", contractPath, "--format", "xml"}, "the data contract " + contractPath},
		{"--html is the collection file", []string{"--collection", coll, "--input-dir", shop, "--html", coll}, "the collection file " + coll},
		{"--report is the collection file", []string{"--collection", coll, "--input-dir", shop, "--report", coll}, "the collection file " + coll},
		{"--report is the collection file, the run failing before it starts", []string{"--collection", coll, "--input-dir", shop, "--report", coll, "--format", "xml"}, "the collection file " + coll},
		{"--report is a member's schema file", []string{"--collection", coll, "--input-dir", shop, "--report", filepath.Join(shop, "orders.yaml")}, "the schema file "},
		{"--report is a member's schema file, the run failing before it starts", []string{"--collection", coll, "--input-dir", shop, "--report", filepath.Join(shop, "items.yaml"), "--format", "xml"}, "the schema file of member items"},
		{"--report is a member's schema file, the flags failing to parse", []string{"--collection", coll, "--input-dir", shop, "--report", filepath.Join(shop, "items.yaml"), "--no-such-flag"}, ""},
		{"--report is a member's input, the run failing before it starts", []string{"--collection", coll, "--input", "orders=" + filepath.Join(shop, "orders.parquet"), "--input-dir", shop, "--report", filepath.Join(shop, "orders.parquet"), "--format", "xml"}, "the input file "},
	} {
		before, beforeShop := treeState(t, f.dir), treeState(t, shop)
		code, stdout, stderr := cli(t, append([]string{"validate"}, tc.args...)...)
		assert.Equal(t, exitUsage, code, "%s: %s", tc.name, stderr)
		if tc.other != "" {
			assert.Contains(t, stderr, "is the same file as "+tc.other, tc.name)
		}
		assert.Empty(t, treeDiff(before, treeState(t, f.dir)), "%s: nothing is written", tc.name)
		assert.Empty(t, treeDiff(beforeShop, treeState(t, shop)), "%s: nothing is written", tc.name)
		t.Logf("%s: %s%s", tc.name, strings.TrimSpace(stderr), stdout)
	}
}

// TestCollectionOutputsThroughALinkedFolder: two members whose outputs are one file through a
// symbolically linked folder (or one table of one database file named through a link) are
// refused before anything is read, naming both outputs, and nothing is written. Before, they
// passed the same-output check and the run waited on its own lock for good.
func TestCollectionOutputsThroughALinkedFolder(t *testing.T) {
	t.Parallel()
	shop := copyShop(t)
	coll := filepath.Join(shop, "shop.yaml")
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "o"), 0o755))
	require.NoError(t, os.Symlink("o", filepath.Join(dir, "lnk")))
	const both, oneFile = "both write", "are one database file"
	for _, tc := range []struct{ name, a, b, says, names string }{
		{"parquet", filepath.Join(dir, "o", "t.parquet"), filepath.Join(dir, "lnk", "t.parquet"), both, filepath.Join(dir, "o", "t.parquet")},
		{"quarantine", filepath.Join(dir, "o", "t.parquet"), filepath.Join(dir, "lnk", "orders_quarantine.parquet"), both, filepath.Join(dir, "o", "orders_quarantine.parquet")},
		{"duckdb table", filepath.Join(dir, "o", "wh.duckdb") + ":t", filepath.Join(dir, "lnk", "wh.duckdb") + ":t", oneFile, filepath.Join(dir, "lnk", "wh.duckdb")},
		{"duckdb file", filepath.Join(dir, "o", "wh.duckdb") + ":a", filepath.Join(dir, "lnk", "wh.duckdb") + ":b", oneFile, filepath.Join(dir, "lnk", "wh.duckdb")},
	} {
		before := treeState(t, filepath.Join(dir, "o"))
		code, _, stderr := cliWithin(t, 30*time.Second, nil, "validate", "--collection", coll, "--input-dir", shop, "--quarantine",
			"--out", "orders="+tc.a, "--out", "items="+tc.b, "--out-dir", filepath.Join(dir, "rest"))
		assert.Equal(t, exitUsage, code, "%s: %s", tc.name, stderr)
		assert.Contains(t, stderr, tc.says, tc.name)
		assert.Contains(t, stderr, tc.names, tc.name)
		assert.Empty(t, treeDiff(before, treeState(t, filepath.Join(dir, "o"))), "%s: nothing is written", tc.name)
		assert.NoFileExists(t, filepath.Join(dir, "rest"), tc.name)
		t.Logf("%s: %s", tc.name, strings.TrimSpace(stderr))
	}
}
