package spark

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/datafile"
	"github.com/tablegate/tablegate/schema"
)

// The statements of a Spark run's program (compile.ProgramDialect): Spark caches the rule
// columns of every row once, and writes Parquet directories.

// CacheTable caches the rows of query, computed once, under name (a temporary view).
func (dialect) CacheTable(name, query string) string { return "CACHE TABLE " + name + " AS " + query }

// Uncache drops the cached rows and their view.
func (dialect) Uncache(name string) string { return "UNCACHE TABLE IF EXISTS " + name }

// RowJSON: to_json drops NULL fields unless told not to; DuckDB's keeps them.
func (dialect) RowJSON(names, values []string) string {
	return fmt.Sprintf("to_json(%s, map('ignoreNullFields', 'false'))", Dialect.Struct(names, values))
}

// WriteParquet writes into the directory dir (a local path, or a URL Spark reads).
func (dialect) WriteParquet(dir, query string) string {
	return fmt.Sprintf("INSERT OVERWRITE DIRECTORY %s USING parquet %s", String(Location(dir)), query)
}

// WriteTable replaces a catalog table in one commit (CREATE OR REPLACE TABLE … AS, atomic for
// Delta and Iceberg tables), its properties tablegate.run ($1) and tablegate.pair ($2) bound by
// the engine's writer. The format is named (USING): a catalog that holds another format refuses
// the statement rather than writing a plain file table.
func (dialect) WriteTable(format, table, query string) string {
	return fmt.Sprintf("CREATE OR REPLACE TABLE %s USING %s TBLPROPERTIES ('tablegate.run' = %s, 'tablegate.pair' = %s) AS %s",
		table, format, compile.Param(1), compile.Param(2), query)
}

// ReferenceSource reads a foreign key's other data (compile.ReferenceDialect): Parquet, a file,
// a directory or a glob, at a local path or a URL Spark reads (s3a://, hdfs://).
func (dialect) ReferenceSource(input string) (string, error) {
	if _, _, _, ok := schema.SplitTableAddress(input); ok {
		return "", fmt.Errorf("Spark cannot read a table of a DuckDB database file; give the reference as Parquet")
	}
	if datafile.Ext(input) == ".csv" {
		return "", fmt.Errorf("Spark reads references from Parquet only (CSV has no types to check the keys against); give the reference as Parquet")
	}
	return "parquet." + Ident(Location(input)), nil
}

// Location is the URL Spark reads a local absolute path at (Spark reads a path without a scheme
// against its own default file system); a URL is kept. Unescaped: Spark reads the path as
// Hadoop's Path does, which does not decode %XX.
func Location(path string) string {
	if strings.HasPrefix(path, "/") {
		return "file://" + path
	}
	return path
}

// Literal renders a value the run binds to a program's parameter (compile.Param) as a typed
// Spark literal: the Spark Connect client has no bound parameters. It takes the values the run
// binds: a list of BIGINT (the rows each rule's checks show) or of STRING (ordinals).
func Literal(v any) (string, error) {
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10) + "L", nil
	case string:
		return String(v), nil
	case []int64:
		parts := make([]string, len(v))
		for i, n := range v {
			parts[i] = strconv.FormatInt(n, 10) + "L"
		}
		return "CAST(array(" + strings.Join(parts, ", ") + ") AS ARRAY<BIGINT>)", nil
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = String(s)
		}
		return "CAST(array(" + strings.Join(parts, ", ") + ") AS ARRAY<STRING>)", nil
	}
	return "", fmt.Errorf("no Spark literal for a parameter of type %T", v)
}

// Bind renders a program's statement with its parameters ($1, $2…) replaced by the values' typed
// literals (Literal). Markers are found outside string literals, quoted identifiers and comments,
// so no text of the statement is read as one; a marker without a value, or a value without a
// marker, is an error.
func Bind(stmt string, args ...any) (string, error) {
	if len(args) == 0 {
		return stmt, nil
	}
	lits := make([]string, len(args))
	for i, a := range args {
		lit, err := Literal(a)
		if err != nil {
			return "", err
		}
		lits[i] = lit
	}
	used := make([]bool, len(args))
	var b strings.Builder
	for i := 0; i < len(stmt); i++ {
		c := stmt[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			end := quotedEnd(stmt, i)
			b.WriteString(stmt[i:end])
			i = end - 1
		case c == '-' && strings.HasPrefix(stmt[i:], "--"):
			end := strings.IndexByte(stmt[i:], '\n')
			if end < 0 {
				end = len(stmt) - i
			}
			b.WriteString(stmt[i : i+end])
			i += end - 1
		case c == '/' && strings.HasPrefix(stmt[i:], "/*"):
			end := strings.Index(stmt[i+2:], "*/")
			if end < 0 {
				end = len(stmt) - i - 2
			} else {
				end += 2
			}
			b.WriteString(stmt[i : i+2+end])
			i += 1 + end
		case c == '$' && i+1 < len(stmt) && stmt[i+1] >= '0' && stmt[i+1] <= '9':
			j := i + 1
			for j < len(stmt) && stmt[j] >= '0' && stmt[j] <= '9' {
				j++
			}
			n, err := strconv.Atoi(stmt[i+1 : j])
			if err != nil || n < 1 || n > len(args) {
				return "", fmt.Errorf("the statement's parameter %s has no value (%d given)", stmt[i:j], len(args))
			}
			b.WriteString(lits[n-1])
			used[n-1] = true
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	for i, u := range used {
		if !u {
			return "", fmt.Errorf("the statement has no parameter $%d for its value", i+1)
		}
	}
	return b.String(), nil
}

// quotedEnd is the index after the quoted text that starts at stmt[start]: a string literal
// ('…' or "…", with backslash escapes) or a quoted identifier (`…`, a backtick doubled inside).
func quotedEnd(stmt string, start int) int {
	q := stmt[start]
	for i := start + 1; i < len(stmt); i++ {
		switch {
		case q != '`' && stmt[i] == '\\':
			i++
		case stmt[i] == q:
			if q == '`' && i+1 < len(stmt) && stmt[i+1] == '`' {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(stmt)
}

var (
	_ compile.ProgramDialect    = dialect{}
	_ compile.TableCheckDialect = dialect{}
	_ compile.ReferenceDialect  = dialect{}
)
