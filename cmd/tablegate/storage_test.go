package main

import (
	bin "encoding/binary"
	"os"
	osexec "os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/internal/testenv"
)

// storageVersion is the storage_version tag DuckDB gives an attached database file
// ("v1.5.0+", "v2.0.0+").
func (f *fixture) storageVersion(file string) string {
	f.t.Helper()
	f.exec("ATTACH " + quoteLit(file) + " AS sv (READ_ONLY)")
	defer f.exec("DETACH sv")
	rows := f.query("SELECT tags['storage_version'] FROM duckdb_databases() WHERE database_name = 'sv'")
	require.Len(f.t, rows, 1)
	v, _ := rows[0][0].(string)
	return v
}

// databaseIn writes the orders input into a new database file of the given storage version.
func (f *fixture) databaseIn(name, version, rows string) string {
	f.t.Helper()
	file := f.path(name)
	f.exec("ATTACH " + quoteLit(file) + " AS d (STORAGE_VERSION " + quoteLit(version) + ")")
	defer f.exec("DETACH d")
	f.exec("CREATE TABLE d.orders AS " + ordersSelect(rows))
	return file
}

// TestStorageVersions: a database file keeps the storage format it has when tablegate writes the
// table and the quarantine into it, whether DuckDB 1.5's or 2.0's; a file tablegate creates is in
// DuckDB 1.5's format unless --storage-version asks for another.
func TestStorageVersions(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct{ version, tag string }{{"v1.5.0", "v1.5.0+"}, {"v2.0.0", "v2.0.0+"}} {
		t.Run(c.version, func(t *testing.T) {
			file := f.databaseIn("in-"+c.version+".duckdb", c.version, mixedRows)
			require.Equal(t, c.tag, f.storageVersion(file))
			code, _, stderr := cli(t, "validate", "--schema", f.schema, "--input", file+":orders", "--out", file+":clean", "--quarantine")
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, c.tag, f.storageVersion(file), "the file keeps its format")
			valid, ok := f.tableRows(file, "main", "clean")
			require.True(t, ok)
			assert.ElementsMatch(t, mixedValid, valid)
			quarantine, ok := f.tableRows(file, "main", "clean_quarantine")
			require.True(t, ok)
			assert.Len(t, quarantine, 5)
		})
	}
	in := f.parquet("in.parquet", ordersSelect(allValidRows))
	for _, c := range []struct {
		flag []string
		tag  string
	}{{nil, "v1.5.0+"}, {[]string{"--storage-version", "v1.5.0"}, "v1.5.0+"}, {[]string{"--storage-version", "latest"}, "v2.0.0+"}} {
		out := f.path("new-" + strings.Join(c.flag, "") + ".duckdb")
		code, _, stderr := cli(t, append([]string{"validate", "--schema", f.schema, "--input", in, "--out", out + ":orders"}, c.flag...)...)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, c.tag, f.storageVersion(out), "a new file, %v", c.flag)
		code, _, stderr = cli(t, append([]string{"sample", "--schema", f.schema, "--rows", "5", "--out", out + ":sampled"}, c.flag...)...)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, c.tag, f.storageVersion(out), "sample into the same file keeps it, %v", c.flag)
	}
	code, _, stderr := cli(t, "validate", "--schema", f.schema, "--input", in, "--out", f.path("x.duckdb:orders"), "--storage-version", "v9")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `--storage-version "v9"`)
	assert.NoFileExists(t, f.path("x.duckdb"))
}

// TestStorageVersionTooNew: a database file from a DuckDB newer than the embedded one is refused
// with a message that names the embedded DuckDB and how to convert the file.
func TestStorageVersionTooNew(t *testing.T) {
	f := newFixture(t)
	file := f.databaseIn("future.duckdb", "v1.5.0", allValidRows)
	setStorageNumber(t, file, 70)
	code, stdout, stderr := cli(t, "validate", "--schema", f.schema, "--input", file+":orders", "--format", "json")
	assert.Equal(t, exitUsage, code)
	rep := oneJSON(t, stdout)
	errInfo := rep["error"].(map[string]any)
	assert.Equal(t, "StorageVersionError", errInfo["type"])
	msg := errInfo["message"].(string)
	for _, want := range []string{"newer than the one tablegate embeds", "DuckDB " + duckdb.DuckDBVersion(), "the file has 70", "COPY FROM DATABASE src TO dst"} {
		assert.Contains(t, msg, want)
	}
	assert.Contains(t, stderr, "COPY FROM DATABASE")
	assert.Equal(t, duckdb.DuckDBVersion(), rep["duckdb_version"])

	old := f.databaseIn("old.duckdb", "v1.5.0", allValidRows)
	setStorageNumber(t, old, 51) // DuckDB 0.9's
	code, _, stderr = cli(t, "validate", "--schema", f.schema, "--input", old+":orders")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "older than 0.10")
	assert.Contains(t, stderr, "EXPORT DATABASE")
}

// setStorageNumber rewrites the storage version number in a DuckDB 1.5-format file's main header
// (bytes 12-20, after the checksum and the magic bytes) and mends the header's checksum, which
// DuckDB computes as 5381 XOR, over each 8-byte word w after the checksum, w × 0xbf58476d1ce4e5b9.
func setStorageNumber(t *testing.T, file string, version uint64) {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, "DUCK", string(b[8:12]))
	require.Equal(t, uint64(68), bin.LittleEndian.Uint64(b[12:20]), "a DuckDB 1.5-format file")
	word := func(off int) uint64 { return bin.LittleEndian.Uint64(b[off:off+8]) * 0xbf58476d1ce4e5b9 }
	sum := bin.LittleEndian.Uint64(b[0:8]) ^ word(8) ^ word(16)
	bin.LittleEndian.PutUint64(b[12:20], version)
	sum ^= word(8) ^ word(16)
	bin.LittleEndian.PutUint64(b[0:8], sum)
	require.NoError(t, os.WriteFile(file, b, 0o644))
}

// TestSlowStorageReadByOtherDuckDBs: the files tablegate writes open in a real DuckDB 1.5 (Python's
// duckdb 1.5.6), and a file written by DuckDB 2.0 (Python's duckdb 2.0.1) validates. CI
// installs both packages into folders of their own and names them in TABLEGATE_PY_DUCKDB15 and
// TABLEGATE_PY_DUCKDB20.
func TestSlowStorageReadByOtherDuckDBs(t *testing.T) {
	testenv.Slow(t) // needs DuckDB 1.5 and 2.0 from Python
	py15, py20 := os.Getenv("TABLEGATE_PY_DUCKDB15"), os.Getenv("TABLEGATE_PY_DUCKDB20")
	if py15 == "" || py20 == "" {
		t.Skip("TABLEGATE_PY_DUCKDB15 and TABLEGATE_PY_DUCKDB20 name no Python duckdb packages")
	}
	f := newFixture(t)
	python := func(path, script string) string {
		t.Helper()
		cmd := osexec.Command("python3", "-c", script)
		cmd.Env = append(os.Environ(), "PYTHONPATH="+path)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return strings.TrimSpace(string(out))
	}
	// Written by DuckDB 2.0: in, and tablegate's outputs beside it.
	from20 := f.path("from20.duckdb")
	assert.Equal(t, "2.0.1", python(py20, `import duckdb
c = duckdb.connect(`+pyString(from20)+`)
c.execute("CREATE TABLE orders AS `+strings.ReplaceAll(ordersSelect(mixedRows), `"`, `\"`)+`")
c.close()
print(duckdb.__version__)`))
	code, _, stderr := cli(t, "validate", "--schema", f.schema, "--input", from20+":orders", "--out", from20+":clean", "--quarantine")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "3 5", python(py20, `import duckdb
c = duckdb.connect(`+pyString(from20)+`, read_only=True)
print(c.execute("SELECT count(*) FROM clean").fetchone()[0], c.execute("SELECT count(*) FROM clean_quarantine").fetchone()[0])`))

	// A new file from tablegate, and a DuckDB 1.5 file tablegate wrote into: DuckDB 1.5 reads both.
	from15 := f.path("from15.duckdb")
	assert.Equal(t, "1.5.6", python(py15, `import duckdb
c = duckdb.connect(`+pyString(from15)+`)
c.execute("CREATE TABLE orders AS `+strings.ReplaceAll(ordersSelect(mixedRows), `"`, `\"`)+`")
c.close()
print(duckdb.__version__)`))
	created := f.path("created.duckdb")
	code, _, stderr = cli(t, "validate", "--schema", f.schema, "--input", from15+":orders", "--out", from15+":clean", "--quarantine")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = cli(t, "validate", "--schema", f.schema, "--input", from15+":orders", "--out", created+":clean", "--quarantine")
	require.Equal(t, 0, code, stderr)
	for _, file := range []string{from15, created} {
		assert.Equal(t, "3 5", python(py15, `import duckdb
c = duckdb.connect(`+pyString(file)+`, read_only=True)
print(c.execute("SELECT count(*) FROM clean").fetchone()[0], c.execute("SELECT count(*) FROM clean_quarantine").fetchone()[0])`), file)
	}
}

// pyString spells s as a Python string literal.
func pyString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// TestVersion: `version` and `--version` name tablegate's version and the embedded DuckDB's,
// and every JSON report carries both.
func TestVersion(t *testing.T) {
	code, byCommand, stderr := cli(t, "version")
	require.Equal(t, 0, code, stderr)
	code, byFlag, stderr := cli(t, "--version")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, byCommand, byFlag)
	lines := strings.Split(strings.TrimSpace(byCommand), "\n")
	require.Len(t, lines, 2, byCommand)
	assert.Equal(t, "tablegate (devel)", lines[0], "a test binary is built from the checkout")
	assert.True(t, strings.HasPrefix(lines[1], "DuckDB v2."), lines[1])
	assert.Contains(t, lines[1], duckdb.DefaultStorageVersion)

	// The JSON the Dagster integration reads to check that it speaks this binary's language.
	code, asJSON, stderr := cli(t, "version", "--format", "json")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, map[string]any{
		"tablegate_version": "(devel)", "duckdb_version": duckdb.DuckDBVersion(),
		"storage_version": duckdb.DefaultStorageVersion, "dagster_integration": float64(dagsterIntegration),
	}, oneJSON(t, asJSON))
	code, _, stderr = cli(t, "version", "--format", "yaml")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `--format "yaml": use text or json`)

	f := newFixture(t)
	in := f.parquet("in.parquet", ordersSelect(allValidRows))
	for _, args := range [][]string{
		{"validate", "--schema", f.schema, "--input", in, "--format", "json"},
		{"validate", "--schema", f.schema, "--format", "json"}, // a usage error
	} {
		_, stdout, _ := cli(t, args...)
		rep := oneJSON(t, stdout)
		assert.Equal(t, "(devel)", rep["tablegate_version"], args)
		assert.Equal(t, duckdb.DuckDBVersion(), rep["duckdb_version"], args)
	}
}
