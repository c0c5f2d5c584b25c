package compile

import (
	gosql "database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	_ "github.com/duckdb/duckdb-go/v2" // DuckDB's own parser and binder judge custom SQL

	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// parser is a private in-memory DuckDB used only to parse and bind custom SQL at compile time.
var parser struct {
	once       sync.Once
	db         *gosql.DB
	aggregates map[string]bool
	err        error
}

func parserDB() (*gosql.DB, map[string]bool, error) {
	parser.once.Do(func() {
		db, err := gosql.Open("duckdb", "")
		if err != nil {
			parser.err = fmt.Errorf("open DuckDB to check custom SQL: %w", err)
			return
		}
		rows, err := db.Query("SELECT DISTINCT lower(function_name) FROM duckdb_functions() WHERE function_type = 'aggregate'")
		if err != nil {
			parser.err = fmt.Errorf("list DuckDB aggregate functions: %w", err)
			return
		}
		defer rows.Close()
		agg := map[string]bool{}
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				parser.err = err
				return
			}
			agg[name] = true
		}
		parser.db, parser.aggregates, parser.err = db, agg, rows.Err()
	})
	return parser.db, parser.aggregates, parser.err
}

const (
	probeTable = "__tg_probe"
	probeValue = "__tg_v"
)

type sqlInfo struct {
	sql       string // the expression as written (trimmed)
	aggregate bool   // it aggregates over rows (evaluated per group, or over the whole input)
}

// checkSQL verifies that expr is exactly one boolean SQL expression over the schema's columns
// (and `_`, the checked value, when value is set): DuckDB's parser must see one SELECT with one
// select item and our FROM, no subquery, and its binder must type it BOOLEAN. Everything else
// (a second statement, a closing parenthesis that escapes the expression) is refused here.
func (c *compiler) checkSQL(expr string, value *schema.DType, groupBy []string) (sqlInfo, error) {
	expr = strings.TrimSpace(expr)
	info := sqlInfo{sql: expr}
	if strings.ContainsRune(expr, 0) {
		return info, fmt.Errorf("the SQL contains a NUL byte")
	}
	if strings.Contains(strings.ToLower(expr), "__tg_") {
		// The probe and the plan query name their internals differently; a reference to one
		// would pass here and break the plan query.
		return info, fmt.Errorf("the prefix __tg_ is reserved for tablegate's generated names")
	}
	if i := strings.LastIndexByte(expr, '\n'); strings.Contains(expr[i+1:], "--") {
		// A trailing -- comment must not swallow what the plan query writes after the expression.
		info.sql += "\n"
	}
	db, aggregates, err := parserDB()
	if err != nil {
		return info, err
	}
	probe := expr
	if value != nil {
		probe = sql.ReplaceIdent(expr, "_", probeValue)
	}
	// Newlines keep a trailing -- comment from swallowing the closing parenthesis.
	stmt := "SELECT (\n" + probe + "\n) AS __tg_r FROM " + probeTable
	var tree string
	if err := db.QueryRowContext(c.ctx, "SELECT CAST(json_serialize_sql(?::VARCHAR) AS VARCHAR)", stmt).Scan(&tree); err != nil {
		return info, fmt.Errorf("parse: %w", err)
	}
	agg, err := inspectTree(tree, aggregates)
	if err != nil {
		return info, err
	}
	if err := checkBuilds(tree); err != nil {
		return info, err
	}
	info.aggregate = agg

	// Only the columns the expression may name (every one whose name occurs in it as a word):
	// binding every column for every rule made a wide schema's compile quadratic. A column it
	// names some other way is not found, and the rule is refused, never passed unchecked.
	var cols []string
	for _, col := range c.s.Columns {
		if sqlMentions(expr, col.Name) || groupsBy(groupBy, col.Name) {
			cols = append(cols, typedNull(col.DType)+" AS "+sql.Ident(col.Name))
		}
	}
	if value != nil {
		cols = append(cols, typedNull(*value)+" AS "+probeValue)
	}
	if len(cols) == 0 {
		cols = append(cols, "NULL AS __tg_none")
	}
	bind := "DESCRIBE SELECT (\n" + probe + "\n) AS __tg_r FROM (SELECT " + strings.Join(cols, ", ") + ") AS " + probeTable
	if len(groupBy) > 0 {
		keys := make([]string, len(groupBy))
		for i, k := range groupBy {
			keys[i] = quote(k)
		}
		bind += " GROUP BY " + strings.Join(keys, ", ")
	}
	rows, err := db.QueryContext(c.ctx, bind)
	if err != nil {
		return info, fmt.Errorf("DuckDB cannot bind %q: %s", expr, firstLine(err.Error()))
	}
	defer rows.Close()
	colNames, _ := rows.Columns()
	var typ string
	for rows.Next() {
		vals := make([]any, len(colNames))
		ptrs := make([]any, len(colNames))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return info, err
		}
		typ = fmt.Sprint(vals[1])
	}
	if err := rows.Err(); err != nil {
		return info, fmt.Errorf("DuckDB cannot bind %q: %s", expr, firstLine(err.Error()))
	}
	if typ != "BOOLEAN" {
		return info, fmt.Errorf("%q is %s, not a boolean expression", expr, typ)
	}
	return info, nil
}

func groupsBy(keys []string, name string) bool {
	for _, k := range keys {
		if k == name {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func typedNull(d schema.DType) string {
	if d.Kind == schema.KindAny {
		return "NULL"
	}
	return "CAST(NULL AS " + d.DuckDBType() + ")"
}

// inspectTree checks the parse tree of the probe statement and reports whether the expression
// aggregates.
func inspectTree(tree string, aggregates map[string]bool) (bool, error) {
	var parsed struct {
		Error      bool   `json:"error"`
		ErrorType  string `json:"error_type"`
		ErrorMsg   string `json:"error_message"`
		Statements []struct {
			Node map[string]any `json:"node"`
		} `json:"statements"`
	}
	if err := json.Unmarshal([]byte(tree), &parsed); err != nil {
		return false, fmt.Errorf("read DuckDB parse tree: %w", err)
	}
	if parsed.Error {
		if parsed.ErrorType == "parser" {
			return false, fmt.Errorf("not a single SQL expression: %s", parsed.ErrorMsg)
		}
		return false, fmt.Errorf("not exactly one SQL expression (it ends the expression or adds a statement)")
	}
	if len(parsed.Statements) != 1 {
		return false, fmt.Errorf("not exactly one SQL expression: it makes %d statements", len(parsed.Statements))
	}
	node := parsed.Statements[0].Node
	if node["type"] != "SELECT_NODE" {
		return false, fmt.Errorf("not exactly one SQL expression: it escapes into a %v", node["type"])
	}
	from, _ := node["from_table"].(map[string]any)
	list, _ := node["select_list"].([]any)
	switch {
	case len(list) != 1:
		return false, fmt.Errorf("not exactly one SQL expression: it makes %d select items", len(list))
	case from == nil || from["type"] != "BASE_TABLE" || from["table_name"] != probeTable || from["alias"] != "":
		return false, fmt.Errorf("not exactly one SQL expression: it adds a FROM clause")
	case node["where_clause"] != nil || node["having"] != nil || node["qualify"] != nil || node["sample"] != nil ||
		len(asList(node["group_expressions"])) > 0 || len(asList(node["modifiers"])) > 0:
		return false, fmt.Errorf("not exactly one SQL expression: it adds clauses to the query")
	}
	if cte, _ := node["cte_map"].(map[string]any); cte != nil && len(asList(cte["map"])) > 0 {
		return false, fmt.Errorf("not exactly one SQL expression: it adds a WITH clause")
	}
	agg := false
	var walk func(v any, inWindow bool) error
	walk = func(v any, inWindow bool) error {
		switch t := v.(type) {
		case map[string]any:
			class, _ := t["class"].(string)
			switch class {
			case "SUBQUERY":
				return fmt.Errorf("subqueries are not allowed in rules; a rule is an expression over the row")
			case "STAR", "POSITIONAL_REFERENCE":
				// COLUMNS(…), *, #n expand to other columns (or several) in the plan query.
				return fmt.Errorf("*, COLUMNS(…) and #n are not allowed in rules; name the columns")
			case "WINDOW":
				inWindow = true
			case "FUNCTION":
				if name, _ := t["function_name"].(string); aggregates[strings.ToLower(name)] && !inWindow {
					agg = true
				}
			}
			for _, child := range t {
				if err := walk(child, inWindow); err != nil {
					return err
				}
			}
		case []any:
			for _, child := range t {
				if err := walk(child, inWindow); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(list[0], false); err != nil {
		return false, err
	}
	return agg, nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
