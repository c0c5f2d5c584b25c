package compile

import (
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// Attach is the statement that attaches the database file path (absolute) as alias, for reading
// only unless write.
func Attach(path, alias string, write bool) string {
	stmt := "ATTACH " + sql.String(path) + " AS " + sql.Ident(alias)
	if !write {
		stmt += " (READ_ONLY)"
	}
	return stmt
}

// Detach is the statement that detaches the database attached as alias.
func Detach(alias string) string { return "DETACH DATABASE " + sql.Ident(alias) }

// The statements that open an input, for the engine's input adapters: each the text the engine
// runs, with the caller's paths and names as literals or quoted identifiers.

// ParquetScan is the relation of the Parquet files path matches. can_have_nan: polars, pyarrow
// and other writers leave NaN out of a float column's min/max statistics and write no NaN count;
// DuckDB would trust those statistics, skip row groups and pages, and fold comparisons (NaN <=
// 1000 read as TRUE), so that a NaN row passes a bound it fails.
func ParquetScan(path string) string {
	return fmt.Sprintf("read_parquet(%s, can_have_nan = true)", sql.String(path))
}

// FileIndexRowID is the ordinal of a multi-file scan's row when the files' row counts are
// unknown: unique, not dense.
const FileIndexRowID = "((file_index::BIGINT << 40) + file_row_number)"

// FileOffsetRowID is the dense ordinal of a multi-file scan's row, from offsets, a BIGINT list
// literal of the row each file starts at.
func FileOffsetRowID(offsets string) string {
	return fmt.Sprintf("((%s)[file_index::BIGINT + 1] + file_row_number)", offsets)
}

// FileRowCounts reads (file_index, rows) of each file of a multi-file scan.
func FileRowCounts(from string) string {
	return "SELECT file_index, count(*) FROM " + from + " GROUP BY file_index ORDER BY file_index"
}

// ParquetRowGroups reads the rows of each row group of a Parquet file, in file order.
func ParquetRowGroups(path string) string {
	return fmt.Sprintf("SELECT row_group_num_rows FROM parquet_metadata(%s) GROUP BY row_group_id, row_group_num_rows ORDER BY row_group_id", sql.String(path))
}

// ParquetFooters reads, per top-level column of the footers: whether no column chunk has a
// dictionary, whether every chunk has integer statistics (or only NULLs), and the smallest and
// largest value.
func ParquetFooters(path string) string {
	return fmt.Sprintf(`SELECT path_in_schema,
	NOT bool_or(dictionary_page_offset IS NOT NULL OR encodings LIKE '%%DICTIONARY%%'),
	bool_and(coalesce(TRY_CAST(stats_min_value AS BIGINT) IS NOT NULL AND TRY_CAST(stats_max_value AS BIGINT) IS NOT NULL OR stats_null_count = num_values, false)),
	min(TRY_CAST(stats_min_value AS BIGINT)), max(TRY_CAST(stats_max_value AS BIGINT))
FROM parquet_metadata(%s) GROUP BY path_in_schema`, sql.String(path))
}

// ParquetFileFooter reads the footer of the Parquet file path, only to learn whether it decodes.
func ParquetFileFooter(path string) string {
	return "SELECT count(*) FROM parquet_file_metadata(" + sql.String(path) + ")"
}

// ParquetFileSchemas reads (file, column, type, children) of every footer's schema, in order.
func ParquetFileSchemas(path string) string {
	return fmt.Sprintf("SELECT file_name, name, coalesce(duckdb_type, ''), coalesce(num_children, 0) FROM parquet_schema(%s) ORDER BY file_name, column_id", sql.String(path))
}

// ParseQuery reads the parse tree of the query bound as its one parameter, as JSON.
const ParseQuery = "SELECT CAST(json_serialize_sql(?::VARCHAR) AS VARCHAR)"

// Materialise copies the relation from into the temp table name.
func Materialise(name, from string) string {
	return fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS SELECT * FROM %s", sql.Ident(name), from)
}

// MaterialiseOrdered copies the relation from into the temp table name with an ordinal column,
// __tg_ord.
func MaterialiseOrdered(name, from string) string {
	return fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS SELECT *, row_number() OVER () AS __tg_ord FROM %s", sql.Ident(name), from)
}

// NamedType is a column and the DuckDB type to read it as.
type NamedType struct{ Name, Type string }

// structOf renders columns as the struct literal read_csv's types and read_json's columns take.
func structOf(cols []NamedType) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = sql.String(c.Name) + ": " + sql.String(c.Type)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// CSVRead is how a CSV file is read.
type CSVRead struct {
	Header bool
	Delim  string
	// Null are the texts that read as NULL (nil: DuckDB's, the empty field). The empty field
	// still reads as NULL in a declared column of another dtype than String (csvMaterialise).
	Null []string
	// Types are the columns read as the given types; the others' types are detected.
	Types []NamedType
	// SampleAll detects types from every row rather than a sample.
	SampleAll bool
}

// ReadCSV is the relation of a CSV file (compressed or not, as its extension says), strict,
// with quotes and without skipped lines.
func ReadCSV(path string, o CSVRead) string {
	opts := fmt.Sprintf("header = %t, delim = %s, quote = '\"', skip = 0, strict_mode = true", o.Header, sql.String(o.Delim))
	if o.Null != nil {
		nulls := make([]string, len(o.Null))
		for i, n := range o.Null {
			nulls[i] = sql.String(n)
		}
		opts += ", nullstr = [" + strings.Join(nulls, ", ") + "]"
	}
	if len(o.Types) > 0 {
		opts += ", types = " + structOf(o.Types)
	}
	if o.SampleAll {
		opts += ", sample_size = -1"
	}
	return fmt.Sprintf("read_csv(%s, %s)", sql.String(path), opts)
}

// ReadNDJSON is the relation of a newline-delimited JSON file (compressed or not, as its
// extension says). columns, when given, are every column to read, each as its type; otherwise
// the keys and types are detected, from every object when sampleAll.
func ReadNDJSON(path string, columns []NamedType, sampleAll bool) string {
	opts := "format = 'newline_delimited'"
	switch {
	case len(columns) > 0:
		opts += ", columns = " + structOf(columns)
	case sampleAll:
		opts += ", sample_size = -1"
	}
	return fmt.Sprintf("read_json(%s, %s)", sql.String(path), opts)
}

// TextCast is a column read as text and cast to its declared type, strictly: a text that the
// cast would round (3.7 to an integer, 1.234 to two decimals) does not read.
type TextCast struct {
	Name, Type string
	// pattern, when set, is what the whole text must match besides casting.
	pattern string
	// emptyIsNull reads the empty text as NULL: a CSV's empty field in a column that is not a
	// String, when other texts spell NULL.
	emptyIsNull bool
}

// text is the column's text as the cast reads it.
func (tc TextCast) text() string {
	if tc.emptyIsNull {
		return fmt.Sprintf("NULLIF(%s, '')", sql.Ident(tc.Name))
	}
	return sql.Ident(tc.Name)
}

// TextCastOf is how a column of a text file (CSV, NDJSON) is read as its dtype; false for the
// dtypes read as the file gives them (Any, and nested types, which a text cell does not spell).
func TextCastOf(col *schema.Column) (TextCast, bool) {
	d := col.DType
	tc := TextCast{Name: col.Name, Type: d.DuckDBType()}
	switch d.Kind {
	case schema.KindAny, schema.KindList, schema.KindArray, schema.KindStruct:
		return tc, false
	case schema.KindInteger:
		// The family takes any integer type; HUGEINT holds what NDJSON's detection would read.
		tc.Type, tc.pattern = "HUGEINT", `\s*[+-]?[0-9]+\s*`
	case schema.KindInt8, schema.KindInt16, schema.KindInt32, schema.KindInt64,
		schema.KindUInt8, schema.KindUInt16, schema.KindUInt32, schema.KindUInt64:
		tc.pattern = `\s*[+-]?[0-9]+\s*`
	case schema.KindDecimal:
		tc.pattern = fmt.Sprintf(`\s*[+-]?([0-9]+(\.[0-9]{0,%d})?|\.[0-9]{1,%d})\s*`, d.Scale, max(d.Scale, 1))
	}
	return tc, true
}

// unreadable is the condition that a column's text is there and does not read as its type.
func (tc TextCast) unreadable() string {
	v := tc.text()
	cond := fmt.Sprintf("TRY_CAST(%s AS %s) IS NULL", v, tc.Type)
	if tc.pattern != "" {
		cond += fmt.Sprintf(" OR NOT regexp_full_match(%s, %s)", v, sql.String(tc.pattern))
	}
	return fmt.Sprintf("(%s IS NOT NULL AND (%s))", v, cond)
}

// ReadAsDtypes copies the relation from (a text file's rows, the columns of casts read as text)
// into the temp table name, in its order, with each of casts cast to its type where it reads,
// and two columns more for the first value of the row that does not: __tg_col, its index in
// casts (NULL: every value reads), and __tg_text, its text. One copy of the rows does both: when
// FirstUnreadable finds no such value, every cast is the strict one and DropUnreadable leaves
// the typed rows (measured against the text copied, scanned and cast into a second temp table:
// BenchmarkCSVInput).
func ReadAsDtypes(name, from string, casts []TextCast) string {
	repl, which, texts := make([]string, len(casts)), make([]string, len(casts)), make([]string, len(casts))
	for i, tc := range casts {
		id := sql.Ident(tc.Name)
		repl[i] = fmt.Sprintf("TRY_CAST(%s AS %s) AS %s", tc.text(), tc.Type, id)
		which[i] = fmt.Sprintf("WHEN %s THEN %d", tc.unreadable(), i)
		texts[i] = fmt.Sprintf("WHEN %d THEN %s", i, id)
	}
	return fmt.Sprintf(`CREATE OR REPLACE TEMP TABLE %s AS SELECT * REPLACE (%s), CASE __tg_col %s END AS __tg_text FROM (
	SELECT *, CASE %s END AS __tg_col FROM %s)`,
		sql.Ident(name), strings.Join(repl, ", "), strings.Join(texts, " "), strings.Join(which, " "), from)
}

// FirstUnreadable finds the first row of the temp table name (ReadAsDtypes; its rowid, from 0)
// with a value that does not read as its type: (rowid, index in the casts, text).
func FirstUnreadable(name string) string {
	return "SELECT rowid, __tg_col, __tg_text FROM temp.main." + sql.Ident(name) + " WHERE __tg_col IS NOT NULL ORDER BY rowid LIMIT 1"
}

// DropUnreadable drops the columns ReadAsDtypes adds to the temp table name, one statement each.
func DropUnreadable(name string) []string {
	return []string{
		"ALTER TABLE temp.main." + sql.Ident(name) + " DROP COLUMN __tg_col",
		"ALTER TABLE temp.main." + sql.Ident(name) + " DROP COLUMN __tg_text",
	}
}

// RenamedColumns reads whether the relation has a column and the same name plus _<n>, as DuckDB
// renames keys equal in any case.
func RenamedColumns(from string) string {
	return fmt.Sprintf(`SELECT count(*) > 0 FROM (DESCRIBE SELECT * FROM %s) AS a, (DESCRIBE SELECT * FROM %s) AS b
WHERE regexp_matches(lower(b.column_name), '^' || regexp_escape(lower(a.column_name)) || '_[0-9]+$')`, from, from)
}

// CaseDuplicateKeys reads the first list of an NDJSON file's object keys equal in any case.
func CaseDuplicateKeys(path string) string {
	return fmt.Sprintf(`SELECT list(k ORDER BY k) FROM (SELECT DISTINCT unnest(json_keys(json)) AS k FROM read_ndjson_objects(%s))
GROUP BY lower(k) HAVING count(*) > 1 ORDER BY min(k) LIMIT 1`, sql.String(path))
}

// TableKind reads a table's type; its parameters are the schema, the table and, when catalog
// is true, the catalog.
func TableKind(catalog bool) string {
	q := "SELECT table_type FROM information_schema.tables WHERE table_schema = ? AND table_name = ?"
	if catalog {
		q += " AND table_catalog = ?"
	}
	return q
}

// TableList reads the tables there are, as one text; its parameter, when catalog is true, is
// the catalog.
func TableList(catalog bool) string {
	q := "SELECT string_agg(table_schema || '.' || table_name, ', ' ORDER BY table_schema, table_name) FROM information_schema.tables WHERE table_schema NOT IN ('information_schema', 'pg_catalog')"
	if catalog {
		q += " AND table_catalog = ?"
	}
	return q
}

// CurrentDatabase reads the current database's name.
const CurrentDatabase = "SELECT current_database()"

// Use makes db the current database.
func Use(db string) string { return "USE " + sql.Ident(db) }

// The statements that clean up after a run.

// DropTemp drops the run's temp table name.
func DropTemp(name string) string { return "DROP TABLE IF EXISTS temp.main." + sql.Ident(name) }

// DropView drops the run's view name.
func DropView(name string) string { return "DROP VIEW IF EXISTS " + sql.Ident(name) }

// ResetVariable resets the session variable name (a name the program chose, not quoted).
func ResetVariable(name string) string { return "RESET VARIABLE " + name }

// DetachIfExists detaches the database attached as alias, if it is.
func DetachIfExists(alias string) string { return "DETACH DATABASE IF EXISTS " + sql.Ident(alias) }
