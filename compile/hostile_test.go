package compile_test

import (
	gosql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/schema"
)

// hostileCorpus reads testdata/hostile_sql.txt: "=== label" lines start entries, "#" lines
// before the first entry are comments.
func hostileCorpus(t *testing.T) [][2]string {
	t.Helper()
	data, err := os.ReadFile("testdata/hostile_sql.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]string
	for _, part := range strings.Split(string(data), "\n=== ")[1:] {
		label, body, _ := strings.Cut(part, "\n")
		out = append(out, [2]string{label, strings.TrimSuffix(body, "\n")})
	}
	return out
}

// hostilePlace is where custom SQL goes: the schema, the rule whose tree to inspect, the alias
// that SQL carries in the compiled query, and the wrapper the checked expression sits in (hole
// stands for it), with what `_` stands for ("" where `_` is not the value).
type hostilePlace struct {
	name    string
	schema  func(string) *schema.Schema
	rule    string
	alias   string
	wrapper string
	value   string
}

var hostilePlaces = []hostilePlace{
	{"rule", func(s string) *schema.Schema { return injRule(s)() }, "hostile", "hostile", "COALESCE(__tg_hole, TRUE)", ""},
	{"group", func(s string) *schema.Schema { return injGroup(s)() }, "hostile", "__tg_m0", "(NOT COALESCE(__tg_hole, TRUE))", ""},
	{"check", func(s string) *schema.Schema { return injCheck(s)() }, "name|check__hostile", "name|check__hostile", "COALESCE(__tg_hole, TRUE)", `"name"`},
	{"inner", func(s string) *schema.Schema { return injInner(s)() }, "tags|inner_check__hostile", "tags|inner_check__hostile",
		"COALESCE(list_bool_and(list_transform(tags, lambda __tg_x0: __tg_hole)), TRUE)", "__tg_x0"},
}

// TestHostileSQL: for every corpus entry in every place, Compile refuses the schema with a
// declaration error, or the compiled query's parse tree holds, where the rule is, exactly the
// expression DuckDB reads from the text alone (with `_` the checked value), in the rule's wrapper;
// the accepted queries then run as one statement that changes nothing. The quick loop puts
// every entry in a plain rule; TestSlowHostileSQL in the other places (a group rule, a column
// check, an inner check of a list).
func TestHostileSQL(t *testing.T) { hostileSQL(t, hostilePlaces[:1]) }

// TestSlowHostileSQL is TestHostileSQL in every other place custom SQL goes.
func TestSlowHostileSQL(t *testing.T) {
	testenv.Slow(t)
	hostileSQL(t, hostilePlaces[1:])
}

func hostileSQL(t *testing.T, places []hostilePlace) {
	db := goldenDB(t)
	corpus := hostileCorpus(t)
	if len(corpus) < 80 {
		t.Fatalf("the corpus has %d entries, want at least 80", len(corpus))
	}
	tried, refused, mismatched := 0, 0, 0
	for _, entry := range corpus {
		label, expr := entry[0], entry[1]
		for _, place := range places {
			t.Run(place.name+"/"+label, func(t *testing.T) {
				tried++
				p, err := compileShared(place.schema(expr))
				if err != nil {
					refused++
					var decl *schema.DeclarationError
					if !errors.As(err, &decl) {
						t.Fatalf("Compile error %T is not a declaration error: %v", err, err)
					}
					return
				}
				q := p.Query(compile.Relation{From: "t", RowID: "rowid"})
				tree := hostileTree(t, db, q)
				got := findAlias(tree, place.alias)
				if got == nil {
					t.Fatalf("no select item %q in the compiled query:\n%s", place.alias, q)
				}
				if keyed := hostileTreeText(t, db, "SELECT COALESCE(NOT __tg_k0.__tg_m0, TRUE)"); place.alias != "__tg_m0" &&
					reflect.DeepEqual(stripLoc(withoutAlias(got)), stripLoc(statementList(t, keyed)[0]["select_list"].([]any)[0])) {
					// An aggregate: the rule reads its key group's marker, where the expression is.
					place.alias, place.wrapper = "__tg_m0", hostilePlaces[1].wrapper
					got = findAlias(tree, place.alias)
				}
				want, ok := hostileExpected(t, db, expr, place)
				if !ok {
					mismatched++
					t.Fatalf("accepted, but DuckDB does not read %q alone as one expression:\n%s", expr, p.Explain())
				}
				got = withoutAlias(got)
				if !reflect.DeepEqual(stripLoc(got), stripLoc(want)) {
					mismatched++
					g, _ := json.Marshal(stripLoc(got))
					w, _ := json.Marshal(stripLoc(want))
					t.Fatalf("the rule that runs is not the expression checked:\n got: %s\nwant: %s\nquery:\n%s", g, w, q)
				}
				t.Logf("accepted, runs as %s", p.Rules[len(p.Rules)-1].Expr)
				injRunOnly(t, p)
			})
		}
	}
	t.Logf("hostile SQL: %d tried, %d refused at declaration, %d accepted, %d ran other than checked", tried, refused, tried-refused, mismatched)
}

// hostileExpected is the wrapper's tree with the hole replaced by expr as DuckDB parses it alone;
// false when DuckDB does not read expr alone as one expression.
func hostileExpected(t *testing.T, db *gosql.DB, expr string, place hostilePlace) (map[string]any, bool) {
	t.Helper()
	stmt := "SELECT\n" + expr + "\n"
	var tree string
	if err := db.QueryRow("SELECT CAST(json_serialize_sql(?::VARCHAR) AS VARCHAR)", stmt).Scan(&tree); err != nil {
		t.Fatal(err)
	}
	nodes := statementList(t, tree)
	if len(nodes) != 1 {
		return nil, false
	}
	items, _ := nodes[0]["select_list"].([]any)
	if len(items) != 1 {
		return nil, false
	}
	checked := items[0]
	if place.value != "" {
		ref := statementList(t, hostileTreeText(t, db, "SELECT "+place.value))[0]["select_list"].([]any)[0].(map[string]any)
		checked = replaceFree(checked, hostileLambdas(t, db), func(n map[string]any) any {
			names, _ := n["column_names"].([]any)
			loc, _ := strconv.Atoi(fmt.Sprint(n["query_location"]))
			if n["class"] != "COLUMN_REF" || len(names) == 0 || names[0] != "_" || loc >= len(stmt) || stmt[loc] != '_' {
				return nil
			}
			out := map[string]any{}
			for k, v := range ref {
				out[k] = v
			}
			out["column_names"] = append(append([]any{}, ref["column_names"].([]any)...), names[1:]...)
			return out
		})
	}
	wrapper := statementList(t, hostileTreeText(t, db, "SELECT "+place.wrapper))[0]["select_list"].([]any)[0]
	return replaceNodes(wrapper, func(n map[string]any) any {
		if names, _ := n["column_names"].([]any); n["class"] == "COLUMN_REF" && len(names) == 1 && names[0] == "__tg_hole" {
			return checked
		}
		return nil
	}).(map[string]any), true
}

func hostileTreeText(t *testing.T, db *gosql.DB, q string) string {
	t.Helper()
	var tree string
	if err := db.QueryRow("SELECT CAST(json_serialize_sql(?::VARCHAR) AS VARCHAR)", q).Scan(&tree); err != nil {
		t.Fatal(err)
	}
	return tree
}

func hostileTree(t *testing.T, db *gosql.DB, q string) any {
	t.Helper()
	nodes := statementList(t, hostileTreeText(t, db, q))
	if len(nodes) != 1 {
		t.Fatalf("the compiled query is %d statements", len(nodes))
	}
	return nodes[0]
}

func statementList(t *testing.T, tree string) []map[string]any {
	t.Helper()
	var parsed struct {
		Error      bool `json:"error"`
		Statements []struct {
			Node map[string]any `json:"node"`
		} `json:"statements"`
	}
	d := json.NewDecoder(strings.NewReader(tree))
	d.UseNumber()
	if err := d.Decode(&parsed); err != nil {
		t.Fatal(err)
	}
	if parsed.Error {
		return nil
	}
	out := make([]map[string]any, len(parsed.Statements))
	for i, s := range parsed.Statements {
		out[i] = s.Node
	}
	return out
}

// replaceNodes copies a tree, replacing the nodes for which f returns non-nil.
func replaceNodes(v any, f func(map[string]any) any) any {
	switch t := v.(type) {
	case map[string]any:
		if r := f(t); r != nil {
			return r
		}
		out := make(map[string]any, len(t))
		for k, c := range t {
			out[k] = replaceNodes(c, f)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = replaceNodes(c, f)
		}
		return out
	}
	return v
}

// hostileLambdas are DuckDB's functions that take a lambda.
func hostileLambdas(t *testing.T, db *gosql.DB) map[string]bool {
	t.Helper()
	rows, err := db.Query("SELECT DISTINCT lower(function_name) FROM duckdb_functions() WHERE list_contains(parameter_types, 'LAMBDA')")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		out[name] = true
	}
	return out
}

// replaceFree is replaceNodes outside the bodies of lambdas, passed to a lambda function, whose
// parameters include `_`: there `_` is the parameter, not the checked value. Elsewhere a LAMBDA
// node is JSON's arrow, both sides expressions.
func replaceFree(v any, lambdas map[string]bool, f func(map[string]any) any) any {
	switch t := v.(type) {
	case map[string]any:
		if r := f(t); r != nil {
			return r
		}
		fn, _ := t["function_name"].(string)
		binder := t["class"] == "FUNCTION" && lambdas[strings.ToLower(fn)]
		out := make(map[string]any, len(t))
		for k, c := range t {
			if !binder || k != "arguments" {
				out[k] = replaceFree(c, lambdas, f)
				continue
			}
			var args []any
			for _, a := range c.([]any) {
				arg := a.(map[string]any)
				if e, _ := arg["expression"].(map[string]any); e["class"] == "LAMBDA" && bindsUnderscore(e["lhs"]) {
					args = append(args, arg)
				} else {
					args = append(args, replaceFree(arg, lambdas, f))
				}
			}
			out[k] = args
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = replaceFree(c, lambdas, f)
		}
		return out
	}
	return v
}

func bindsUnderscore(lhs any) bool {
	found := false
	replaceNodes(lhs, func(n map[string]any) any {
		if names, _ := n["column_names"].([]any); n["class"] == "COLUMN_REF" && len(names) == 1 && names[0] == "_" {
			found = true
		}
		return nil
	})
	return found
}

// findAlias finds the expression named alias anywhere in a tree (select items and CTEs).
func findAlias(v any, alias string) map[string]any {
	switch t := v.(type) {
	case map[string]any:
		if t["alias"] == alias && t["class"] != nil {
			return t
		}
		for _, c := range t {
			if r := findAlias(c, alias); r != nil {
				return r
			}
		}
	case []any:
		for _, c := range t {
			if r := findAlias(c, alias); r != nil {
				return r
			}
		}
	}
	return nil
}

func withoutAlias(n map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range n {
		out[k] = v
	}
	out["alias"] = ""
	return out
}

func stripLoc(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, c := range t {
			if k != "query_location" && k != "query_location_length" {
				out[k] = stripLoc(c)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = stripLoc(c)
		}
		return out
	}
	return v
}

// TestDeclarationRefusals: what would only fail at run time (or blame the input) is refused when
// the schema is checked, with a message that names the rule.
func TestDeclarationRefusals(t *testing.T) {
	huge := strings.Repeat("a", 1<<20)
	cases := []struct {
		name   string
		schema *schema.Schema
		want   []string
	}{
		{"1 MB regex", rtOne(schema.String("s").Regex(huge)), []string{"column 's'", "regex", "1048576 bytes", "at most 65536"}},
		{"regex too large for DuckDB's RE2", rtOne(schema.String("s").Regex(strings.Repeat(`\pL{1000}`, 6))), []string{"column 's'", "regex", "DuckDB cannot compile the regex", "pattern too large"}},
		{"regex of a list's elements", rtOne(schema.List("l", schema.String("").Regex(strings.Repeat(`\pL{1000}`, 6)))), []string{"column 'l'", "inner_regex", "DuckDB cannot compile the regex"}},
		{"window in a rule", injBase().AddRule("ranked", "rank() OVER (ORDER BY amount) < 10"), []string{"rule 'ranked'", "window functions"}},
		{"window in a check", rtOne(schema.Int64("a").Check("mean", "_ >= avg(_) OVER ()")), []string{"column 'a'", "check__mean", "window functions"}},
		{"window in a group rule", injBase().AddGroupRule("g", "count(*) OVER () > 0", "name"), []string{"rule 'g'", "window functions"}},
		{"macro with a subquery", injBase().AddRule("v", "pg_get_viewdef(1) IS NULL"), []string{"rule 'v'", "pg_get_viewdef()", "subqueries"}},
		{"settings in an error", injBase().AddRule("leak", "error(current_setting('memory_limit') || current_query()) IS NULL"), []string{"rule 'leak'", "error()"}},
		{"extension function", injBase().AddRule("x", "text(amount, '0.00') <> ''"), []string{"rule 'x'", "excel extension"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compileShared(tc.schema)
			var decl *schema.DeclarationError
			if !errors.As(err, &decl) {
				t.Fatalf("Compile error = %v, want a declaration error", err)
			}
			msg := err.Error()
			if len(msg) > 2000 {
				t.Errorf("the message is %d bytes long", len(msg))
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("the error does not say %q: %.300s", w, msg)
				}
			}
		})
	}
}
