package compile

import (
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// Dialect is one engine's SQL for what the rule renderer writes differently per engine:
// identifiers, typed literals, byte length, regexes, list and struct access, the NULL-safe key
// match. The rules, their names, nesting, key groups and the plan query's shape are the
// renderer's, the same for every dialect. DuckDB is the plan's own (Compile); package
// compile/spark implements Spark SQL (Plan.In).
type Dialect interface {
	// Ident quotes an identifier; String renders a string literal.
	Ident(name string) string
	String(s string) string
	// Literal renders a parsed rule argument as a literal of the column's dtype, so that the
	// comparison happens in the column's own type.
	Literal(d schema.DType, p schema.Parsed) string
	// IsFloat32 is TRUE when the value ref is a 4-byte float: a Float column's bound takes the
	// column's own type.
	IsFloat32(ref string) string
	// ByteLength is a string's length in UTF-8 bytes, ListLength a list's element count.
	ByteLength(ref string) string
	ListLength(ref string) string
	// NotInf is TRUE unless the float ref is infinite.
	NotInf(ref string) string
	// Regex is TRUE when the RE2 pattern matches somewhere in ref (a search); the error refuses
	// a pattern the engine cannot match exactly as RE2 does.
	Regex(ref, pattern string) (string, error)
	// All is TRUE when pred (over the element named v) holds for every element of list; NULL
	// results and NULL or empty lists are NULL or TRUE (valid). Any is TRUE when pred holds
	// for some element; Filter keeps the elements for which it holds.
	All(list, v, pred string) string
	Any(list, v, pred string) string
	Filter(list, v, pred string) string
	// Distinct is TRUE when the elem values (over the element named v) of list's elements are
	// all different; keepNulls makes NULL values take part, as equal to each other.
	Distinct(list, v, elem string, keepNulls bool) string
	// Struct builds a struct of the named values.
	Struct(names, values []string) string
	// KeyMatch is the NULL-safe equality of two keys.
	KeyMatch(a, b string) string
	// Resolution is TRUE when the temporal value ref of dtype d sits on the grid of span (of
	// the given kind: fixed width, weeks or months).
	Resolution(d schema.DType, span schema.Span, kind schema.ResolutionKind, ref string) (string, error)
	// Inline is what follows AS in a common table expression that the engine must not
	// materialise ("" where it never does).
	Inline() string
}

// DuckDB is the DuckDB dialect, the one Compile renders.
var DuckDB Dialect = duckDB{}

// Tuning is the SQL of the statements with which an engine tunes a run, which a program carries
// as steps (ReadThreads, RaiseThreads, RestoreThreads, and an Exec of SetPerfectHash). DuckDB's
// (DuckDBTuning) is the only one: another engine's program has no such steps.
type Tuning interface {
	// ReadThreads reads the engine's thread count (one BIGINT); SetThreads sets it to n, and
	// RestoreThreads to its parameter $1.
	ReadThreads() string
	SetThreads(n int64) string
	RestoreThreads() string
	// SetPerfectHash sets the connection's perfect-hash threshold to bits.
	SetPerfectHash(bits int) string
}

// DuckDBTuning is DuckDB's tuning, for its programs and its engine.
var DuckDBTuning Tuning = duckDB{}

func (duckDB) ReadThreads() string       { return "SELECT CAST(current_setting('threads') AS BIGINT)" }
func (duckDB) SetThreads(n int64) string { return fmt.Sprintf("SET threads = %d", n) }
func (duckDB) RestoreThreads() string    { return "SET threads = $1" }
func (duckDB) SetPerfectHash(bits int) string {
	return fmt.Sprintf("SET SESSION perfect_ht_threshold = %d", bits)
}

type duckDB struct{}

func (duckDB) Ident(name string) string                       { return sql.Ident(name) }
func (duckDB) String(s string) string                         { return sql.String(s) }
func (duckDB) Literal(d schema.DType, p schema.Parsed) string { return sql.Literal(d, p) }
func (duckDB) IsFloat32(ref string) string                    { return fmt.Sprintf("typeof(%s) = 'FLOAT'", ref) }
func (duckDB) ByteLength(ref string) string                   { return "strlen(" + ref + ")" } // as Dataframely's len_bytes
func (duckDB) ListLength(ref string) string                   { return "len(" + ref + ")" }
func (duckDB) NotInf(ref string) string                       { return "NOT isinf(" + ref + ")" }
func (duckDB) Regex(ref, pattern string) (string, error) {
	return fmt.Sprintf("regexp_matches(%s, %s)", ref, sql.String(pattern)), nil
}
func (duckDB) KeyMatch(a, b string) string { return a + " IS NOT DISTINCT FROM " + b }
func (duckDB) Inline() string              { return "NOT MATERIALIZED " }
func (duckDB) Resolution(d schema.DType, span schema.Span, kind schema.ResolutionKind, ref string) (string, error) {
	return resolutionSQL(d, span, kind, ref)
}

// All: list_bool_and ignores NULL results and gives NULL for a NULL or empty list.
func (duckDB) All(list, v, pred string) string {
	return fmt.Sprintf("list_bool_and(list_transform(%s, lambda %s: %s))", list, v, pred)
}

func (duckDB) Any(list, v, pred string) string {
	return fmt.Sprintf("list_bool_or(list_transform(%s, lambda %s: %s))", list, v, pred)
}

func (duckDB) Filter(list, v, pred string) string {
	return fmt.Sprintf("list_filter(%s, lambda %s: %s)", list, v, pred)
}

// Distinct: list_distinct drops NULLs, so [x] wraps the values that must take part.
func (duckDB) Distinct(list, v, elem string, keepNulls bool) string {
	if keepNulls {
		elem = "[" + elem + "]"
	}
	return fmt.Sprintf("len(list_distinct(list_transform(%s, lambda %s: %s))) = len(%s)", list, v, elem, list)
}

func (duckDB) Struct(names, values []string) string {
	parts := make([]string, len(names))
	for i := range names {
		parts[i] = sql.String(names[i]) + ": " + values[i]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
