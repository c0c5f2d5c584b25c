package compile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tablegate/tablegate/compile/parser"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// Parser parses, binds and prints the custom SQL and regexes of a schema (package compile/parser).
// One may serve any number of compilations, concurrently. CompileContext uses the process's own,
// opened on first use from the registered implementation (compile/duckdbparser); CompileWith
// takes the caller's.
type Parser = parser.Parser

// ErrNoParser is the error of compiling custom SQL, a regex or a table check in a program that
// links no SQL parser.
var ErrNoParser = errors.New("no SQL parser is linked to check custom SQL (sql:), regexes and table checks: " +
	"import _ \"github.com/tablegate/tablegate/compile/duckdbparser\" (a program that imports the DuckDB engine, engines/duckdb, has it)")

// HasParser tells whether the program links a parser (compile/parser.Register): without one,
// CompileContext refuses custom SQL, regexes and table checks (ErrNoParser).
func HasParser() bool { return parser.Registered() != nil }

// shared is the process's parser, opened on first use and kept: opening one (a DuckDB) for each
// compile was a large part of a small one.
var shared struct {
	sync.Mutex
	p Parser
}

// sharedParser is the process's parser: ErrNoParser when none is registered, an error to retry
// when it did not open.
func sharedParser() (Parser, error) {
	shared.Lock()
	defer shared.Unlock()
	if shared.p == nil {
		open := parser.Registered()
		if open == nil {
			return nil, ErrNoParser
		}
		p, err := open()
		if err != nil {
			return nil, err
		}
		shared.p = p
	}
	return shared.p, nil
}

// sqlParser is a parser with what the compiler derives from its catalog.
type sqlParser struct {
	Parser
	*judged
}

// judged is a catalog as the compiler judges rules by it.
type judged struct {
	aggregates map[string]bool
	refused    map[string]string       // function name -> why a rule may not call it
	lambdas    map[string]map[int]bool // lambda function name -> the argument positions that take a lambda
	template   map[string]any          // the parse tree of SELECT NULL, to render one expression
}

// judgements caches each catalog's judged (by its *parser.Catalog): judging one parses every
// macro's body, and a catalog never changes.
var judgements sync.Map

// refusedFunctions are DuckDB functions a rule may not call, whatever it passes them: they read
// the engine's state or the running query, raise errors of the rule's own text, sleep, write to
// the log, advance sequences, or (unnest) change the number of rows of the plan query.
var refusedFunctions = map[string]string{
	"error":                  "it raises an error of the rule's own text",
	"current_setting":        "it reads the engine's settings",
	"current_query":          "it reads the query that runs",
	"current_query_id":       "it reads the engine's state",
	"current_connection_id":  "it reads the engine's state",
	"current_transaction_id": "it reads the engine's state",
	"txid_current":           "it reads the engine's state",
	"getvariable":            "it reads the engine's session variables",
	"sleep_ms":               "it only makes the run slower",
	"write_log":              "it writes to the engine's log",
	"nextval":                "it changes a sequence",
	"currval":                "it reads a sequence",
	"unnest":                 "it changes the number of rows",
}

// useParser is the compilation's parser: the caller's, else the process's.
func (c *compiler) useParser() (*sqlParser, error) {
	if c.ps != nil {
		return c.ps, nil
	}
	p := c.parser
	if p == nil {
		var err error
		if p, err = sharedParser(); err != nil {
			c.parserErr = err
			return nil, err
		}
	}
	j, err := judge(c.ctx, p)
	if err != nil {
		c.parserErr = err
		return nil, err
	}
	c.ps = &sqlParser{Parser: p, judged: j}
	return c.ps, nil
}

// judge reads p's catalog and judges it, once per catalog.
func judge(ctx context.Context, p Parser) (*judged, error) {
	cat, err := p.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	type once struct {
		sync.Once
		j   *judged
		err error
	}
	v, _ := judgements.LoadOrStore(cat, &once{})
	o := v.(*once)
	o.Do(func() {
		j := &judged{aggregates: cat.Aggregates, lambdas: cat.Lambdas}
		// Not cancelled: the judgement is kept for the process.
		ctx := context.Background()
		if j.refused, o.err = refusedMacros(ctx, p, cat.Macros); o.err != nil {
			return
		}
		tree, err := parseTrees(ctx, p, "SELECT NULL")
		if err != nil {
			o.err = err
			return
		}
		j.template, o.j = tree[0], j
	})
	return o.j, o.err
}

// refusedMacros extends refusedFunctions with DuckDB's built-in macros whose bodies a rule could
// not contain itself (a subquery, a window, a refused function or macro), and with every table
// macro. A macro runs its body in the plan query, so it is judged by its body.
func refusedMacros(ctx context.Context, p Parser, macros []parser.Macro) (map[string]string, error) {
	refused := map[string]string{}
	for name, why := range refusedFunctions {
		refused[name] = why
	}
	var scalar []parser.Macro
	for _, m := range macros {
		if m.Table {
			refused[m.Name] = "it is a table macro"
		} else {
			scalar = append(scalar, m)
		}
	}
	bodies := map[string][]any{}
	const batch = 100 // bodies parsed per statement
	for len(scalar) > 0 {
		n := min(batch, len(scalar))
		stmts := make([]string, n)
		for i, m := range scalar[:n] {
			stmts[i] = "SELECT " + m.Body
		}
		trees, err := p.Trees(ctx, stmts...)
		if err != nil {
			// One body the parser fails on (rather than reporting it in its tree) fails them
			// all: parse them one by one.
			trees = make([]string, n)
			for i, stmt := range stmts {
				if t, err := p.Trees(ctx, stmt); err == nil {
					trees[i] = t[0]
				}
			}
		}
		for i, m := range scalar[:n] {
			nodes, err := statementNodes(trees[i])
			if err != nil || len(nodes) == 0 || len(asList(nodes[0]["select_list"])) != 1 {
				refused[m.Name] = "its body is not one expression"
				continue
			}
			bodies[m.Name] = append(bodies[m.Name], asList(nodes[0]["select_list"])[0])
		}
		scalar = scalar[n:]
	}
	// A macro may call another: repeat until no more are refused.
	for changed := true; changed; {
		changed = false
		for name, overloads := range bodies {
			if refused[name] != "" {
				continue
			}
			for _, body := range overloads {
				if err := walkTree(body, refused, nil, nil); err != nil {
					refused[name] = "its body is not allowed in a rule (" + err.Error() + ")"
					changed = true
					break
				}
			}
		}
	}
	return refused, nil
}

const (
	probeTable = "__tg_probe"
	probeValue = "__tg_v"
	// MaxRegexBytes bounds a regex rule's pattern: DuckDB's RE2 refuses much longer ones at run
	// time, so a longer pattern is refused when the schema is checked.
	MaxRegexBytes = 64 << 10
)

type sqlInfo struct {
	text      string // the expression as written (trimmed), for people
	sql       string // the SQL that runs: DuckDB's rendering of the checked parse tree, `_` substituted
	aggregate bool   // it aggregates over rows (evaluated per group, or over the whole input)
}

// checkSQL verifies that expr is exactly one boolean SQL expression over the schema's columns
// (and `_`, the checked value, when value is set) and returns the SQL to run for it. DuckDB's
// parser must read one SELECT with one select item and our FROM, with the expression's
// parentheses balanced, and no subquery, window or refused function; its binder must type it
// BOOLEAN. The SQL that runs is not the text as written: it is the checked parse tree, with `_`
// replaced by ref in the tree, printed back by DuckDB and read again to the same tree. So no
// text can escape the expression, and no comment or quote can hide a `_` from the substitution.
func (c *compiler) checkSQL(expr string, value *schema.DType, ref string, groupBy []string) (sqlInfo, error) {
	expr = strings.TrimSpace(expr)
	info := sqlInfo{text: expr}
	parsed, err := c.parseChecked(expr)
	if err != nil {
		return info, err
	}
	ps, node, stmt := parsed.ps, parsed.node, parsed.stmt
	info.aggregate = parsed.aggregate

	// Bind: the value is a column of the probe relation.
	probe := node
	if value != nil {
		if probe, err = substitute(node, map[string]any{"class": "COLUMN_REF", "type": "COLUMN_REF", "alias": "", "column_names": []any{probeValue}}, stmt, ps.lambdas); err != nil {
			return info, err
		}
	}
	bindExpr, err := c.bindable(ps, probe)
	if err != nil {
		return info, err
	}

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
	bind := "SELECT " + bindExpr + " AS __tg_r FROM (SELECT " + strings.Join(cols, ", ") + ") AS " + probeTable
	if len(groupBy) > 0 {
		keys := make([]string, len(groupBy))
		for i, k := range groupBy {
			keys[i] = quote(k)
		}
		bind += " GROUP BY " + strings.Join(keys, ", ")
	}
	typ, err := describeType(c, ps, bind)
	if err != nil {
		return info, fmt.Errorf("DuckDB cannot bind %q: %s", expr, firstLine(err.Error()))
	}
	if typ != "BOOLEAN" {
		return info, fmt.Errorf("%q is %s, not a boolean expression", expr, typ)
	}

	run := node
	if value != nil {
		refTrees, err := parseTrees(c.ctx, ps, "SELECT "+ref)
		if err != nil {
			return info, fmt.Errorf("parse %s: %w", ref, err)
		}
		refNode, _ := asList(refTrees[0]["select_list"])[0].(map[string]any)
		if run, err = substitute(node, refNode, stmt, ps.lambdas); err != nil {
			return info, err
		}
	}
	if info.sql, err = render(c, ps, run); err != nil {
		return info, err
	}
	return info, nil
}

// parsedSQL is a custom expression that DuckDB's parser read as one expression of the probe
// statement, with no subquery, window, parameter or refused function.
type parsedSQL struct {
	ps        *sqlParser
	stmt      string         // the probe statement around the expression
	node      map[string]any // the expression's parse tree
	aggregate bool           // it calls an aggregate
}

// parseChecked reads expr with DuckDB's parser and checks it as every custom SQL is checked
// (rules and table checks alike), before anything binds it.
func (c *compiler) parseChecked(expr string) (parsedSQL, error) {
	var p parsedSQL
	if strings.ContainsRune(expr, 0) {
		return p, fmt.Errorf("the SQL contains a NUL byte")
	}
	if strings.Contains(strings.ToLower(expr), "__tg_") {
		// The probe and the plan query name their internals differently; a reference to one
		// would pass here and break the plan query.
		return p, fmt.Errorf("the prefix __tg_ is reserved for tablegate's generated names")
	}
	ps, err := c.useParser()
	if err != nil {
		return p, err
	}
	p.ps = ps
	// Newlines keep a trailing -- comment from swallowing what follows. The bracketed copy must
	// read as the same expression: a parenthesis that closes the probe's own would not match
	// a bracket.
	p.stmt = "SELECT (\n" + expr + "\n) AS __tg_r FROM " + probeTable
	trees, err := ps.Trees(c.ctx, p.stmt, "SELECT [\n"+expr+"\n] AS __tg_r FROM "+probeTable)
	if err != nil {
		return p, fmt.Errorf("parse: %w", err)
	}
	probe, bracketed := trees[0], trees[1]
	if p.node, err = probeNode(probe); err != nil {
		return p, err
	}
	if err := sameAsBracketed(p.node, bracketed); err != nil {
		return p, err
	}
	if err := walkTree(p.node, ps.refused, ps.aggregates, &p.aggregate); err != nil {
		return p, err
	}
	if err := checkBuilds(probe); err != nil {
		return p, err
	}
	return p, nil
}

// bindable renders tree as DuckDB's binder is to see it: with its calls of constants replaced
// (unfoldable), so that binding evaluates none of them.
func (c *compiler) bindable(ps *sqlParser, tree map[string]any) (string, error) {
	tree, err := c.unfoldable(ps, tree)
	if err != nil {
		return "", err
	}
	return render(c, ps, tree)
}

// unfoldable returns the tree to bind in place of node, which DuckDB can type without
// evaluating any of it: DuckDB's binder evaluates a call whose arguments are all constant when it
// binds the call around it, so binding `len(range(100000000))` or `length(printf('%1500000000d',
// 1))` built the whole value (seconds, gigabytes, not interruptible). Each call of constant
// arguments (its own type read first, binding it alone evaluates only its constant arguments) is
// replaced by a value of that type that is not constant, so nothing above it is evaluated. What
// is still evaluated is a constant, a cast of one, or operators over them: no larger than the
// text. Only the binding sees this tree; the rule that runs is the expression as written.
func (c *compiler) unfoldable(ps *sqlParser, node map[string]any) (map[string]any, error) {
	var calls []any
	var refused error
	var collect func(v any)
	collect = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if liftable(t, ps) {
				calls = append(calls, t)
				return
			}
			if name, _ := t["function_name"].(string); t["class"] == "FUNCTION" && takesRegex(name) {
				if args := functionArgs(t); len(args) > 1 {
					if pattern, _ := args[1].(map[string]any); liftable(pattern, ps) && refused == nil {
						// DuckDB compiles a constant pattern when the rule is bound; one made by
						// a call would first be compiled in the run.
						refused = fmt.Errorf("the pattern of %s() is made by a call of constants; write it as a string literal (or read it from the row)", strings.ToLower(name))
					}
				}
			}
			for _, child := range t {
				collect(child)
			}
		case []any:
			for _, child := range t {
				collect(child)
			}
		}
	}
	collect(node)
	if refused != nil {
		return nil, refused
	}
	if len(calls) == 0 {
		return node, nil
	}
	stmt := shallowCopy(ps.template)
	stmt["select_list"] = calls
	doc, err := json.Marshal(map[string]any{"error": false, "statements": []any{map[string]any{"node": stmt, "named_param_map": []any{}}}})
	if err != nil {
		return nil, err
	}
	text, err := ps.SQL(c.ctx, string(doc))
	if err != nil {
		return nil, err
	}
	types, err := ps.Types(c.ctx, text)
	if err != nil {
		return nil, fmt.Errorf("DuckDB cannot bind %s: %s", strings.TrimPrefix(text, "SELECT "), firstLine(err.Error()))
	}
	casts := make([]string, len(types))
	for i, typ := range types {
		casts[i] = "CAST(CASE WHEN random() < 0 THEN NULL END AS " + typ + ")"
	}
	trees, err := parseTrees(c.ctx, ps, "SELECT "+strings.Join(casts, ", "))
	if err != nil {
		return nil, err
	}
	values := asList(trees[0]["select_list"])
	if len(values) != len(calls) {
		return nil, fmt.Errorf("DuckDB typed %d of %d calls", len(values), len(calls))
	}
	value := make(map[uintptr]any, len(calls)) // a call's node, by identity, to its value
	for i, call := range calls {
		value[reflect.ValueOf(call).Pointer()] = values[i]
	}
	var rec func(v any) any
	rec = func(v any) any {
		switch t := v.(type) {
		case map[string]any:
			if v, ok := value[reflect.ValueOf(t).Pointer()]; ok {
				return v
			}
			out := make(map[string]any, len(t))
			for k, child := range t {
				out[k] = rec(child)
			}
			return out
		case []any:
			out := make([]any, len(t))
			for i, child := range t {
				out[i] = rec(child)
			}
			return out
		}
		return v
	}
	return rec(node).(map[string]any), nil
}

// takesRegex tells whether DuckDB's function name takes an RE2 pattern as its second argument.
func takesRegex(name string) bool {
	name = strings.ToLower(name)
	return strings.HasPrefix(name, "regexp_") || name == "string_split_regex" || name == "str_split_regex"
}

// liftable tells whether n is a call, not of an aggregate, whose arguments are all constant.
func liftable(n map[string]any, ps *sqlParser) bool {
	if n["class"] != "FUNCTION" {
		return false
	}
	name, _ := n["function_name"].(string)
	args := functionArgs(n)
	if len(args) == 0 || ps.aggregates[strings.ToLower(name)] {
		return false
	}
	for _, a := range args {
		if !constant(a) {
			return false
		}
	}
	return true
}

// constant tells whether an expression holds no call, column or lambda: a constant, a cast of
// one, operators over them.
func constant(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		switch t["class"] {
		case "FUNCTION", "COLUMN_REF", "LAMBDA", "LAMBDA_REF", "SUBQUERY", "STAR", "WINDOW", "PARAMETER":
			return false
		}
		for _, child := range t {
			if !constant(child) {
				return false
			}
		}
	case []any:
		for _, child := range t {
			if !constant(child) {
				return false
			}
		}
	}
	return true
}

// probeNode checks the parse tree of the probe statement and returns its one select item.
func probeNode(tree string) (map[string]any, error) {
	var parsed struct {
		Error      bool   `json:"error"`
		ErrorType  string `json:"error_type"`
		ErrorMsg   string `json:"error_message"`
		Statements []struct {
			Node map[string]any `json:"node"`
		} `json:"statements"`
	}
	if err := decodeJSON(tree, &parsed); err != nil {
		return nil, fmt.Errorf("read DuckDB parse tree: %w", err)
	}
	if parsed.Error {
		if parsed.ErrorType == "parser" {
			return nil, fmt.Errorf("not a single SQL expression: %s", parsed.ErrorMsg)
		}
		return nil, fmt.Errorf("not exactly one SQL expression (it ends the expression or adds a statement)")
	}
	if len(parsed.Statements) != 1 {
		return nil, fmt.Errorf("not exactly one SQL expression: it makes %d statements", len(parsed.Statements))
	}
	node := parsed.Statements[0].Node
	if node["type"] != "SELECT_NODE" {
		return nil, fmt.Errorf("not exactly one SQL expression: it escapes into a %v", node["type"])
	}
	from, _ := node["from_table"].(map[string]any)
	list := asList(node["select_list"])
	switch {
	case len(list) != 1:
		return nil, fmt.Errorf("not exactly one SQL expression: it makes %d select items", len(list))
	case from == nil || from["type"] != "BASE_TABLE" || from["table_name"] != probeTable || from["alias"] != "":
		return nil, fmt.Errorf("not exactly one SQL expression: it adds a FROM clause")
	case node["where_clause"] != nil || node["having"] != nil || node["qualify"] != nil || node["sample"] != nil ||
		len(asList(node["group_expressions"])) > 0 || len(asList(node["modifiers"])) > 0:
		return nil, fmt.Errorf("not exactly one SQL expression: it adds clauses to the query")
	}
	if cte, _ := node["cte_map"].(map[string]any); cte != nil && len(asList(cte["map"])) > 0 {
		return nil, fmt.Errorf("not exactly one SQL expression: it adds a WITH clause")
	}
	item, _ := list[0].(map[string]any)
	if item == nil || item["alias"] != "__tg_r" {
		return nil, fmt.Errorf("not exactly one SQL expression: it names its result")
	}
	item = shallowCopy(item)
	item["alias"] = ""
	return item, nil
}

// sameAsBracketed refuses an expression whose bracketed probe is not a list of exactly the
// checked expression: its parentheses close more than they open (or it is only a comment).
func sameAsBracketed(node map[string]any, tree string) error {
	const unbalanced = "not exactly one SQL expression: it is empty, or a parenthesis in it closes one it did not open"
	trees, err := statementNodes(tree)
	if err != nil || len(trees) != 1 {
		return fmt.Errorf("%s", unbalanced)
	}
	list := asList(trees[0]["select_list"])
	if len(list) != 1 {
		return fmt.Errorf("%s", unbalanced)
	}
	item, _ := list[0].(map[string]any)
	var args []any
	if item != nil && item["function_name"] == "list_value" {
		for _, a := range asList(item["arguments"]) {
			arg, _ := a.(map[string]any)
			args = append(args, arg["expression"])
		}
	}
	if len(args) != 1 || !sameTree(args[0], node) {
		return fmt.Errorf("%s", unbalanced)
	}
	return nil
}

// Refusals that a table check words its own way (checkTableSQL).
var (
	errSubquery = errors.New("subqueries are not allowed in rules; a rule is an expression over the row")
	errWindow   = errors.New("window functions (… OVER …) are not allowed in rules: the rule is evaluated row by row and in filters; use a group rule (group_by) for values over several rows")
)

// walkTree refuses what a rule may not contain; it reports whether the expression aggregates
// (agg), when asked.
func walkTree(node any, refused map[string]string, aggregates map[string]bool, agg *bool) error {
	switch t := node.(type) {
	case map[string]any:
		class, _ := t["class"].(string)
		switch class {
		case "SUBQUERY":
			return errSubquery
		case "STAR", "POSITIONAL_REFERENCE":
			// COLUMNS(…), *, #n expand to other columns (or several) in the plan query.
			return fmt.Errorf("*, COLUMNS(…) and #n are not allowed in rules; name the columns")
		case "WINDOW":
			return errWindow
		case "PARAMETER":
			return fmt.Errorf("parameters ($1, ?) are not allowed in rules")
		case "FUNCTION":
			name, _ := t["function_name"].(string)
			name = strings.ToLower(name)
			if why := refused[name]; why != "" {
				return fmt.Errorf("%s() is not allowed in rules: %s", name, why)
			}
			if agg != nil && aggregates[name] {
				*agg = true
			}
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the same expression gives the same first error
		for _, k := range keys {
			if err := walkTree(t[k], refused, aggregates, agg); err != nil {
				return err
			}
		}
	case []any:
		for _, child := range t {
			if err := walkTree(child, refused, aggregates, agg); err != nil {
				return err
			}
		}
	}
	return nil
}

// placeholder tells whether a column reference starts with the checked value `_` written bare
// (`_`, `_.city`); a quoted "_" is the column or field of that name. The statement's text at
// DuckDB's location of the reference tells them apart.
func placeholder(n map[string]any, stmt string) bool {
	names := asList(n["column_names"])
	loc, err := strconv.ParseUint(fmt.Sprint(n["query_location"]), 10, 64)
	return len(names) > 0 && names[0] == "_" && err == nil && loc < uint64(len(stmt)) && stmt[loc] == '_'
}

// substitute returns a copy of the tree with the checked value replaced by ref, a column
// reference: `_` becomes ref and `_.city` ref's field city. Only a free `_` is the value: in the
// body of a lambda that names a parameter `_` (`lambda _: …`, `_ -> …`, `[_ FOR _ IN …]`), `_`
// is that parameter, as DuckDB binds it. lambdas are the lambda functions' lambda arguments
// (Parser.lambdas); stmt is the text the tree was parsed from.
func substitute(node map[string]any, ref map[string]any, stmt string, lambdas map[string]map[int]bool) (map[string]any, error) {
	if ref["class"] != "COLUMN_REF" {
		return nil, fmt.Errorf("the checked value is not a column reference")
	}
	var rec func(v any, bound bool) any
	rec = func(v any, bound bool) any {
		switch t := v.(type) {
		case map[string]any:
			if t["class"] == "COLUMN_REF" && !bound && placeholder(t, stmt) {
				out := shallowCopy(ref)
				out["column_names"] = append(append([]any{}, asList(ref["column_names"])...), asList(t["column_names"])[1:]...)
				return out
			}
			var at map[int]bool
			if t["class"] == "FUNCTION" {
				name, _ := t["function_name"].(string)
				at = lambdas[strings.ToLower(name)]
			}
			out := make(map[string]any, len(t))
			for k, c := range t {
				if k == "arguments" && at != nil {
					out[k] = lambdaArguments(asList(c), at, bound, rec)
				} else {
					out[k] = rec(c, bound)
				}
			}
			return out
		case []any:
			out := make([]any, len(t))
			for i, c := range t {
				out[i] = rec(c, bound)
			}
			return out
		}
		return v
	}
	return rec(node, false).(map[string]any), nil
}

// lambdaArguments substitutes in a lambda function's arguments: a lambda at a position that
// takes one keeps its parameters as written, and its body sees `_` bound when a parameter is `_`.
func lambdaArguments(args []any, at map[int]bool, bound bool, rec func(any, bool) any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		arg, _ := a.(map[string]any)
		lambda, _ := arg["expression"].(map[string]any)
		if !at[i] || lambda == nil || lambda["class"] != "LAMBDA" {
			out[i] = rec(a, bound)
			continue
		}
		l := shallowCopy(lambda)
		l["expr"] = rec(lambda["expr"], bound || bindsValue(lambda["lhs"]))
		a2 := shallowCopy(arg)
		a2["expression"] = l
		out[i] = a2
	}
	return out
}

// bindsValue tells whether a lambda's parameters (one name, or row(a, b) for several) include `_`.
func bindsValue(lhs any) bool {
	n, _ := lhs.(map[string]any)
	params := []any{n}
	if n["class"] == "FUNCTION" {
		params = functionArgs(n)
	}
	for _, p := range params {
		if m, _ := p.(map[string]any); m["class"] == "COLUMN_REF" {
			if names := asList(m["column_names"]); len(names) == 1 && names[0] == "_" {
				return true
			}
		}
	}
	return false
}

// render prints an expression's parse tree as SQL with DuckDB's own printer, and checks that
// DuckDB reads the printed SQL back as the same tree, alone and in parentheses.
func render(c *compiler, ps *sqlParser, node map[string]any) (string, error) {
	stmt := shallowCopy(ps.template)
	stmt["select_list"] = []any{node}
	doc, err := json.Marshal(map[string]any{"error": false, "statements": []any{map[string]any{"node": stmt, "named_param_map": []any{}}}})
	if err != nil {
		return "", fmt.Errorf("write the parse tree: %w", err)
	}
	text, err := ps.SQL(c.ctx, string(doc))
	if err != nil {
		return "", fmt.Errorf("DuckDB cannot print the expression back: %s", firstLine(err.Error()))
	}
	expr, ok := strings.CutPrefix(text, "SELECT ")
	if !ok {
		return "", fmt.Errorf("DuckDB prints the expression back as %q", text)
	}
	both, err := ps.Trees(c.ctx, "SELECT "+expr, "SELECT ("+expr+")")
	if err != nil {
		return "", fmt.Errorf("parse: %w", err)
	}
	for _, tree := range both {
		trees, err := statementNodes(tree)
		if err != nil || len(trees) != 1 || len(asList(trees[0]["select_list"])) != 1 || !sameTree(asList(trees[0]["select_list"])[0], node) {
			return "", fmt.Errorf("DuckDB does not read the expression back as it printed it (%s); write it differently", expr)
		}
	}
	return expr, nil
}

// describeType binds a SELECT of one column and returns its type.
func describeType(c *compiler, ps *sqlParser, query string) (string, error) {
	types, err := ps.Types(c.ctx, query)
	if err != nil || len(types) == 0 {
		return "", err
	}
	return types[len(types)-1], nil
}

// checkRegex compiles a regex rule's pattern with DuckDB's RE2, as the run will.
func (c *compiler) checkRegex(pattern string) error {
	ps, err := c.useParser()
	if err != nil {
		return err
	}
	// A constant pattern is compiled when DuckDB binds the call.
	if _, err := describeType(c, ps, "SELECT regexp_matches(CAST(NULL AS VARCHAR), "+sql.String(pattern)+")"); err != nil {
		return fmt.Errorf("DuckDB cannot compile the regex: %s", firstLine(strings.TrimPrefix(err.Error(), "Invalid Input Error: ")))
	}
	return nil
}

// parseTrees parses SQL into its statements' nodes.
func parseTrees(ctx context.Context, p Parser, query string) ([]map[string]any, error) {
	trees, err := p.Trees(ctx, query)
	if err != nil {
		return nil, err
	}
	nodes, err := statementNodes(trees[0])
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("no statement")
	}
	return nodes, nil
}

func statementNodes(tree string) ([]map[string]any, error) {
	var parsed struct {
		Error      bool   `json:"error"`
		ErrorMsg   string `json:"error_message"`
		Statements []struct {
			Node map[string]any `json:"node"`
		} `json:"statements"`
	}
	if err := decodeJSON(tree, &parsed); err != nil {
		return nil, err
	}
	if parsed.Error {
		return nil, fmt.Errorf("%s", parsed.ErrorMsg)
	}
	nodes := make([]map[string]any, len(parsed.Statements))
	for i, s := range parsed.Statements {
		nodes[i] = s.Node
	}
	return nodes, nil
}

// decodeJSON keeps numbers as written: DuckDB marks an unknown location as 2^64-1, which a
// float64 would not give back.
func decodeJSON(s string, v any) error {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	return d.Decode(v)
}

// sameTree compares two parse trees, ignoring where in their statements they were written.
func sameTree(a, b any) bool {
	return reflect.DeepEqual(stripLocations(a), stripLocations(b))
}

func stripLocations(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			if k != "query_location" && k != "query_location_length" {
				out[k] = stripLocations(c)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = stripLocations(c)
		}
		return out
	}
	return v
}

func shallowCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
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

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
