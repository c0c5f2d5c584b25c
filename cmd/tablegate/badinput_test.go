package main

import (
	"bufio"
	"crypto/sha256"
	gosql "database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/internal/testenv"
)

// treeState is every file under a folder with its size and SHA-256.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			out[rel+"/"] = "dir"
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out[rel] = fmt.Sprintf("%d bytes %s", len(data), hex.EncodeToString(sum[:8]))
		return nil
	}))
	return out
}

// treeDiff lists what changed between two tree states.
func treeDiff(before, after map[string]string) []string {
	var diff []string
	for k, v := range after {
		if w, ok := before[k]; !ok {
			diff = append(diff, "created "+k)
		} else if w != v {
			diff = append(diff, "changed "+k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			diff = append(diff, "removed "+k)
		}
	}
	sort.Strings(diff)
	return diff
}

// holdDuckDB starts a process that opens a database file for writing (creating the table raw)
// and holds it until the test ends, as another program writing the warehouse would.
func holdDuckDB(t *testing.T, path string) {
	t.Helper()
	cmd := osexec.Command(os.Args[0], "-test.run=^TestHelperHoldDuckDB$")
	cmd.Env = append(os.Environ(), "TABLEGATE_HOLD_DUCKDB="+path)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close() // the helper closes the database and exits
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if lines.Text() == "holding" {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return
		}
	}
	t.Fatalf("the helper process did not open %s", path)
}

// TestHelperHoldDuckDB is the process holdDuckDB starts; run directly, it does nothing.
func TestHelperHoldDuckDB(t *testing.T) {
	path := os.Getenv("TABLEGATE_HOLD_DUCKDB")
	if path == "" {
		t.Skip("the helper process of holdDuckDB")
	}
	db, err := gosql.Open("duckdb", path)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec("CREATE OR REPLACE TABLE raw AS " + ordersSelect(allValidRows))
	require.NoError(t, err)
	fmt.Println("holding")
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// TestBadInput: each bad input, schema or output location exits 2 with one message that says
// what was wrong and where (the path, the table, the line), prints one JSON object with outcome
// null, and writes nothing: the previous Parquet and DuckDB tables (with their quarantines) are
// byte-identical afterwards, and no file is created anywhere. The quick loop runs one case of
// each kind of mistake (quickBadInput) against the previous Parquet table;
// TestSlowBadInput runs every other case, and each against the previous DuckDB table too.
func TestBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, func(name string, duckdbOut bool) bool { return quickBadInput[name] && !duckdbOut })
}

// TestSlowBadInput is TestBadInput's sweep: every case TestBadInput leaves out.
func TestSlowBadInput(t *testing.T) {
	testenv.Slow(t)
	t.Parallel()
	badInput(t, func(name string, duckdbOut bool) bool { return !quickBadInput[name] || duckdbOut })
}

// quickBadInput are the cases of TestBadInput the quick loop runs: a missing, an empty, a
// truncated and a wrong file, a ragged and an unterminated CSV, a broken NDJSON, a locked
// database and a missing table, YAML that does not parse and a key it does not know, a bad flag,
// and outputs that cannot be written.
var quickBadInput = map[string]bool{
	"missing parquet": true, "empty csv": true, "truncated parquet": true, "not parquet": true,
	"ragged csv row": true, "unterminated quote": true, "broken ndjson line": true,
	"locked database": true, "no such table": true, "yaml syntax": true, "unknown key": true,
	"negative threads": true, "parquet out under a file": true, "out is locked": true,
}

// badInput runs the cases pick selects: by name, and for a case run against each previous
// output, whether this is the second one (the DuckDB table).
func badInput(t *testing.T, pick func(name string, duckdbOut bool) bool) {
	require.NoError(t, buildErr) // the locked-database case runs a second process
	f := newFixture(t)

	// The last-known-good outputs.
	mixed := f.parquet("in/mixed.parquet", ordersSelect(mixedRows))
	pq := f.path("out", "orders.parquet")
	wh := f.path("out", "wh.duckdb")
	for _, out := range []string{pq, wh + ":orders"} {
		code, _, stderr := cli(t, "validate", "--schema", f.schema, "--input", mixed, "--out", out, "--quarantine")
		require.Equal(t, 0, code, stderr)
	}

	// Bad inputs.
	in := func(name string) string { return f.path("in", name) }
	valid := f.parquet("in/valid.parquet", ordersSelect(allValidRows))
	good, err := os.ReadFile(valid)
	require.NoError(t, err)
	f.write("in/empty.parquet", "")
	f.write("in/empty.csv", "")
	f.write("in/empty.ndjson", "")
	f.write("in/truncated.parquet", string(good[:len(good)/2]))
	f.write("in/notparquet.parquet", "id,amount,note\na,1.0,\n")
	// A footer whose metadata is garbage: the magic bytes are in place.
	corrupt := append([]byte(nil), good...)
	for i := len(corrupt) - 60; i < len(corrupt)-8; i++ {
		corrupt[i] = 0xAB
	}
	f.write("in/corrupt.parquet", string(corrupt))
	f.write("in/ragged.csv", "id,amount,note\na,1.0,x\nb,2.0\nc,3.0,z\n")
	var late strings.Builder
	late.WriteString("id,amount,note\n")
	for i := range 5000 {
		fmt.Fprintf(&late, "r%d,%d.5,n\n", i, i)
		if i == 4000 {
			late.WriteString("bad,1.0,n,extra\n")
		}
	}
	f.write("in/ragged_late.csv", late.String())
	f.write("in/dup.csv", "id,amount,id\na,1.0,b\n")
	f.write("in/dupcase.csv", "id,amount,Amount\na,1.0,2.0\n")
	f.write("in/dupquoted.csv", "id,\"amount\",\"AMOUNT\"\na,1.0,2.0\n")
	f.write("in/dup.tsv", "id\tamount\tnote\tID\na\t1.0\tx\tb\n")
	f.write("in/unterminated.csv", "id,amount,note\na,1.0,x\nb,2.0,\"open\nc,3.0,z\n")
	var lateQuote strings.Builder
	lateQuote.WriteString("id,amount,note\n")
	for i := range 5000 {
		fmt.Fprintf(&lateQuote, "r%d,%d.5,\"n, \"\"quoted\"\"\"\n", i, i)
		if i == 4000 {
			lateQuote.WriteString("bad,1.0,\"never closed\n")
		}
	}
	f.write("in/unterminated_late.csv", lateQuote.String())
	f.write("in/dupcase.ndjson", `{"id": "a", "amount": 1.0, "note": null, "Note": "x"}`+"\n")
	f.write("in/dupkey.ndjson", `{"id": "a", "amount": 1.0, "note": null, "note": "x"}`+"\n")
	f.write("in/broken.ndjson", `{"id": "a", "amount": 1.0, "note": null}`+"\n"+`{"id": "b", "amount": 2.0, "note": "x"`+"\n"+`{"id": "c", "amount": 3.0, "note": null}`+"\n")
	f.write("in/notdb.duckdb", "this is not a database\n")
	src := f.path("in", "src.duckdb")
	f.withDB(src, "CREATE TABLE d.raw AS "+ordersSelect(allValidRows))
	locked := f.path("in", "locked.duckdb")
	holdDuckDB(t, locked)

	// Bad schemas.
	schemaFile := func(name, text string) string { return f.write("schemas/"+name, text) }
	synYAML := schemaFile("syntax.yaml", "schema: Orders\ncolumns:\n  - name: id\n    type: String\n   nullable: true\n")
	synJSON := schemaFile("syntax.json", "{\n  \"schema\": \"Orders\",\n  \"columns\": [{\"name\": \"id\", \"type\": \"String\",}]\n}\n")
	unknown := schemaFile("unknown.yaml", "schema: Orders\ncolumns:\n  - name: id\n    type: String\n    minimum_length: 1\n")
	wrongType := schemaFile("wrongtype.yaml", "schema: Orders\ncolumns:\n  - name: id\n    type: String\n  - name: amount\n    type: Float64\n    nullable: maybe\n")
	wrongValue := schemaFile("wrongvalue.yaml", "schema: Orders\ncolumns:\n  - name: id\n    type: String\n  - name: amount\n    type: Int64\n    min: zero\n")
	wrongShape := schemaFile("wrongshape.yaml", "schema: Orders\ncolumns:\n  name: id\n  type: String\n")
	duplicate := schemaFile("duplicate.yaml", "schema: Orders\ncolumns:\n  - name: amount\n    type: Float64\n    min: 0\n    min: 5\n    min: 6\ncolumns: []\n")

	// Output locations that cannot be written (tests run as root, so permissions stop nothing:
	// a path under a regular file, and /proc, are refused to root too).
	aFile := f.write("afile", "a regular file\n")

	type badCase struct {
		name   string
		schema string   // "" is the orders schema
		input  string   // --input
		out    string   // "" runs once with each previous output (Parquet, DuckDB)
		extra  []string // more flags
		errTyp string   // "" skips the type check
		want   []string // every one is in the message
	}
	cases := []badCase{
		{name: "missing parquet", input: in("absent.parquet"), errTyp: "InputError", want: []string{in("absent.parquet"), "no source data", "no file matches"}},
		{name: "missing csv", input: in("absent.csv"), errTyp: "InputError", want: []string{in("absent.csv"), "no file matches"}},
		{name: "missing ndjson", input: in("absent.ndjson"), errTyp: "InputError", want: []string{in("absent.ndjson"), "no file matches"}},
		{name: "missing database", input: in("absent.duckdb") + ":raw", errTyp: "InputError", want: []string{in("absent.duckdb"), "no file matches"}},
		{name: "glob matching nothing", input: f.path("none", "*.parquet"), errTyp: "InputError", want: []string{f.path("none", "*.parquet"), "no source data"}},
		{name: "empty parquet", input: in("empty.parquet"), errTyp: "InputError", want: []string{in("empty.parquet"), "empty file"}},
		{name: "empty csv", input: in("empty.csv"), errTyp: "InputError", want: []string{in("empty.csv"), "empty file"}},
		{name: "empty ndjson", input: in("empty.ndjson"), errTyp: "InputError", want: []string{in("empty.ndjson"), "empty file"}},
		{name: "truncated parquet", input: in("truncated.parquet"), errTyp: "InputError", want: []string{in("truncated.parquet"), "truncated or corrupt"}},
		{name: "not parquet", input: in("notparquet.parquet"), errTyp: "InputError", want: []string{in("notparquet.parquet"), "not a Parquet file"}},
		{name: "corrupt parquet footer", input: in("corrupt.parquet"), errTyp: "InputError", want: []string{"input " + in("corrupt.parquet") + ": "}},
		{name: "ragged csv row", input: in("ragged.csv"), errTyp: "InputError", want: []string{in("ragged.csv") + " line 3 has 2 fields where the header has 3"}},
		{name: "ragged csv row past the sniffer", input: in("ragged_late.csv"), errTyp: "InputError", want: []string{in("ragged_late.csv") + " line 4003 has 4 fields where the header has 3"}},
		{name: "duplicate csv header", input: in("dup.csv"), errTyp: "InputError", want: []string{in("dup.csv") + `: the header names column "id" twice (columns 1 and 3: "id" and "id")`}},
		{name: "csv header equal in any case", input: in("dupcase.csv"), errTyp: "InputError", want: []string{in("dupcase.csv") + `: the header names column "amount" twice (columns 2 and 3: "amount" and "Amount")`}},
		{name: "quoted csv header equal in any case", input: in("dupquoted.csv"), errTyp: "InputError", want: []string{`columns 2 and 3: "amount" and "AMOUNT"`}},
		{name: "duplicate tsv header", input: in("dup.tsv"), errTyp: "InputError", want: []string{in("dup.tsv") + `: the header names column "id" twice (columns 1 and 4: "id" and "ID")`}},
		{name: "unterminated quote", input: in("unterminated.csv"), errTyp: "InputError", want: []string{in("unterminated.csv") + " line 3: a quoted field opens there and is not closed (an unterminated quote)"}},
		{name: "unterminated quote past the sniffer", input: in("unterminated_late.csv"), errTyp: "InputError", want: []string{in("unterminated_late.csv") + " line 4003: a quoted field opens there and is not closed (an unterminated quote)"}},
		{name: "ndjson keys equal in any case", input: in("dupcase.ndjson"), errTyp: "InputError", want: []string{in("dupcase.ndjson") + `: the objects have keys equal in any case ("Note" and "note")`}},
		{name: "duplicate ndjson key", input: in("dupkey.ndjson"), errTyp: "InputError", want: []string{in("dupkey.ndjson"), `duplicate key "note"`}},
		{name: "asset name with a path", input: valid, extra: []string{"--name", "../../x"}, errTyp: "UsageError", want: []string{`--name: asset name "../../x": use a plain name, without path separators or ".."`}},
		{name: "asset name with a separator", input: valid, extra: []string{"--name", "sub/x"}, errTyp: "UsageError", want: []string{`asset name "sub/x"`}},
		{name: "broken ndjson line", input: in("broken.ndjson"), errTyp: "InputError", want: []string{in("broken.ndjson"), "Malformed JSON", "line 3"}},
		{name: "not a database", input: in("notdb.duckdb") + ":raw", errTyp: "InputError", want: []string{in("notdb.duckdb"), "not a valid DuckDB database file"}},
		{name: "locked database", input: locked + ":raw", errTyp: "InputError", want: []string{locked, "Could not set lock", "Conflicting lock"}},
		{name: "no such table", input: src + ":nosuch", errTyp: "InputError", want: []string{"no table main.nosuch in " + src, "tables there: main.raw"}},
		{name: "no such schema", input: src + ":staging.raw", errTyp: "InputError", want: []string{"no table staging.raw in " + src}},
		{name: "yaml syntax", schema: synYAML, input: valid, want: []string{synYAML + ": line 5:", "column 4"}},
		{name: "json syntax", schema: synJSON, input: valid, want: []string{synJSON + ":3:", "invalid JSON"}},
		{name: "unknown key", schema: unknown, input: valid, want: []string{unknown + ":5:", "column 'id'", "unknown key 'minimum_length'"}},
		{name: "wrong value type", schema: wrongType, input: valid, want: []string{wrongType + ":7:", "column 'amount'", "key 'nullable'", `"maybe"`}},
		{name: "wrong bound type", schema: wrongValue, input: valid, want: []string{wrongValue + ":", "column 'amount'", "key 'min'", `"zero" is not an integer`}},
		{name: "columns not a list", schema: wrongShape, input: valid, want: []string{wrongShape + ":3:", "columns is a list"}},
		{name: "duplicate key", schema: duplicate, input: valid, want: []string{duplicate + ":6: Orders, column 'amount', key 'min': given twice (first on line 5)", duplicate + ":7: Orders, column 'amount', key 'min': given twice (first on line 5)", duplicate + ":8: Orders, key 'columns': given twice (first on line 2)"}},
		{name: "missing schema", schema: f.path("schemas", "absent.yaml"), input: valid, want: []string{f.path("schemas", "absent.yaml")}},
		{name: "bad memory limit", input: valid, extra: []string{"--memory-limit", "lots"}, errTyp: "UsageError", want: []string{`--memory-limit "lots"`, "Memory must have a number"}},
		{name: "negative threads", input: valid, extra: []string{"--threads", "-1"}, errTyp: "UsageError", want: []string{"--threads -1", "or 0 for every core"}},
		{name: "memory limit too small", input: mixed, extra: []string{"--memory-limit", "1KB"}, errTyp: "InputError",
			want: []string{"input " + mixed, "Out of Memory Error", "DuckDB ran out of memory under --memory-limit 1KB", "raise --memory-limit, or lower --threads"}},
		{name: "parquet out under a file", input: valid, out: filepath.Join(aFile, "orders.parquet"), errTyp: "OutputError", want: []string{"output " + filepath.Join(aFile, "orders.parquet"), "not a directory"}},
		{name: "duckdb out under a file", input: valid, out: filepath.Join(aFile, "wh.duckdb") + ":orders", errTyp: "OutputError", want: []string{"output " + filepath.Join(aFile, "wh.duckdb"), "not a directory"}},
		{name: "parquet out in /proc", input: valid, out: "/proc/tablegate-test/orders.parquet", errTyp: "OutputError", want: []string{"output /proc/tablegate-test/orders.parquet"}},
		{name: "out is not a database", input: valid, out: in("notdb.duckdb") + ":orders", errTyp: "OutputError", want: []string{"output " + in("notdb.duckdb"), "not a valid DuckDB database file"}},
		{name: "out is locked", input: valid, out: locked + ":orders", errTyp: "OutputError", want: []string{"output " + locked, "Could not set lock"}},
	}
	for _, tc := range cases {
		outs := []string{tc.out}
		if tc.out == "" {
			outs = []string{pq, wh + ":orders"}
		}
		for _, out := range outs {
			if !pick(tc.name, out != outs[0]) {
				continue
			}
			schemaPath := tc.schema
			if schemaPath == "" {
				schemaPath = f.schema
			}
			before := treeState(t, f.dir)
			args := append([]string{"validate", "--schema", schemaPath, "--input", tc.input, "--out", out, "--quarantine", "--format", "json"}, tc.extra...)
			code, stdout, stderr := cli(t, args...)
			assert.Equal(t, 2, code, "%s (out %s): exit status\nstderr: %s", tc.name, out, stderr)
			rep := oneJSON(t, stdout)
			assert.Nil(t, rep["outcome"], "%s: an exit-2 error has no outcome", tc.name)
			typ, msg := errorOf(rep)
			t.Logf("%s (out %s): exit %d, %s: %s", tc.name, filepath.Base(out), code, typ, msg)
			for _, w := range tc.want {
				assert.Contains(t, msg, w, "%s (out %s)", tc.name, out)
			}
			if tc.errTyp != "" {
				assert.Equal(t, tc.errTyp, typ, "%s", tc.name)
			}
			assert.NotContains(t, msg, "LINE 1:", "%s: the message carries no SQL excerpt", tc.name)
			assert.Contains(t, stderr, "tablegate: "+msg+"\n", "%s: stderr is the one message", tc.name)
			assert.NotContains(t, stderr, "Possible solutions", "%s: no advice about SQL settings", tc.name)
			assert.Empty(t, treeDiff(before, treeState(t, f.dir)), "%s (out %s): nothing is written", tc.name, out)
			assert.NoFileExists(t, filepath.Join(aFile, "orders.parquet"))
		}
	}

	// --skip-missing turns the glob that matches nothing into the skipped outcome; still
	// nothing is written.
	before := treeState(t, f.dir)
	code, stdout, stderr := cli(t, "validate", "--schema", f.schema, "--input", f.path("none", "*.parquet"), "--skip-missing",
		"--out", pq, "--quarantine", "--format", "json")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "skipped", oneJSON(t, stdout)["outcome"])
	assert.Empty(t, treeDiff(before, treeState(t, f.dir)))

	// The previous outputs are still readable and hold the first run's rows.
	assert.Equal(t, mixedValid, f.parquetRows(pq))
	rows, ok := f.tableRows(wh, "main", "orders")
	require.True(t, ok)
	assert.Equal(t, mixedValid, rows)
}
