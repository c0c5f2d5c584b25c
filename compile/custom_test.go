package compile_test

import (
	gosql "database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// The injection corpus: hostile custom SQL, values and names. Each case is either rejected by
// Compile with a declaration error that names the rule or check (or, for column names, an
// InvalidColumnNameError), or it compiles to a query that DuckDB runs as one statement that only
// validates: a sentinel table and the input survive, the catalog is unchanged.

// injBase has columns without rules of their own, so the hostile rule is the plan's only rule.
func injBase() *schema.Schema {
	return schema.New("Hostile",
		schema.Float64("amount").Nullable().AllowInf().AllowNaN(),
		schema.String("name").Nullable(),
		schema.List("tags", schema.String("").Nullable()).Nullable(),
	)
}

type injCase struct {
	label  string
	schema func() *schema.Schema
	// reject: Compile fails with a *schema.DeclarationError whose message has every want string.
	reject bool
	want   []string
	// badName: Compile fails with an InvalidColumnNameError for this column.
	badName string
	// rules: for accepted cases, the rules the plan must have (in order), when set.
	rules []string
}

// Builders for the four places custom SQL goes.
func injRule(sql string) func() *schema.Schema {
	return func() *schema.Schema { return injBase().AddRule("hostile", sql) }
}

func injGroup(sql string) func() *schema.Schema {
	return func() *schema.Schema { return injBase().AddGroupRule("hostile", sql, "name") }
}

func injCheck(sql string) func() *schema.Schema {
	return func() *schema.Schema {
		s := injBase()
		s.Columns[1].Check("hostile", sql)
		return s
	}
}

func injInner(sql string) func() *schema.Schema {
	return func() *schema.Schema {
		s := injBase()
		s.Columns[2].DType.Inner.Check("hostile", sql)
		return s
	}
}

func injColumns(cols ...*schema.Column) func() *schema.Schema {
	return func() *schema.Schema { return schema.New("Hostile", cols...) }
}

var (
	injRuleErr  = []string{"rule 'hostile'"}
	injCheckErr = []string{"column 'name'", "check__hostile"}
	injInnerErr = []string{"column 'tags'", "check__hostile"}
)

func injCorpus() []injCase {
	rejectRule := func(label, sql string) injCase {
		return injCase{label: "rule/" + label, schema: injRule(sql), reject: true, want: injRuleErr}
	}
	acceptRule := func(label, sql string) injCase {
		return injCase{label: "rule/" + label, schema: injRule(sql), rules: []string{"hostile"}}
	}
	rejectCheck := func(label, sql string) injCase {
		return injCase{label: "check/" + label, schema: injCheck(sql), reject: true, want: injCheckErr}
	}
	acceptCheck := func(label, sql string) injCase {
		return injCase{label: "check/" + label, schema: injCheck(sql), rules: []string{"name|check__hostile"}}
	}
	rejectInner := func(label, sql string) injCase {
		return injCase{label: "inner/" + label, schema: injInner(sql), reject: true, want: injInnerErr}
	}
	acceptInner := func(label, sql string) injCase {
		return injCase{label: "inner/" + label, schema: injInner(sql), rules: []string{"tags|inner_check__hostile"}}
	}
	rejectGroup := func(label, sql string) injCase {
		return injCase{label: "group/" + label, schema: injGroup(sql), reject: true, want: injRuleErr}
	}
	acceptGroup := func(label, sql string) injCase {
		return injCase{label: "group/" + label, schema: injGroup(sql), rules: []string{"hostile"}}
	}
	rejectDecl := func(label string, s func() *schema.Schema, want ...string) injCase {
		return injCase{label: "decl/" + label, schema: s, reject: true, want: want}
	}
	acceptDecl := func(label string, s func() *schema.Schema, rules ...string) injCase {
		return injCase{label: "decl/" + label, schema: s, rules: rules}
	}
	badName := func(name string) injCase {
		return injCase{label: "name/" + name, schema: injColumns(schema.Int64("ok"), schema.String(name).Regex("x")), badName: name}
	}

	return []injCase{
		// A second statement, or an escape from the expression.
		rejectRule("close-and-drop", `1) AS r FROM t; DROP TABLE t; SELECT (1`),
		rejectRule("semicolon-drop", `TRUE; DROP TABLE x`),
		rejectRule("close-drop-comment", `TRUE); DROP TABLE t; --`),
		rejectRule("trailing-semicolon", `amount > 0;`),
		rejectRule("close-attach", `TRUE) AS r FROM t; ATTACH 'evil.db' AS evil; SELECT (TRUE`),
		rejectRule("close-union", `TRUE) UNION SELECT (TRUE`),
		rejectRule("union", `TRUE UNION ALL SELECT FALSE`),
		rejectRule("close-union-from", `TRUE) AS r FROM t UNION SELECT (FALSE`),
		rejectRule("two-items", `TRUE) AS r, (TRUE`),
		rejectRule("order-by", `amount > 0 ORDER BY 1`),
		rejectRule("limit", `amount > 0 LIMIT 1`),
		rejectRule("close-where", `TRUE) AS r FROM t WHERE (TRUE`),
		// Subqueries, CTEs and table functions.
		rejectRule("scalar-subquery", `(SELECT count(*) FROM t) > 0`),
		rejectRule("exists", `EXISTS (SELECT 1 FROM t)`),
		rejectRule("in-subquery", `amount IN (SELECT amount FROM t)`),
		rejectRule("any-subquery", `amount > ANY (SELECT 1)`),
		rejectRule("subquery-in-and", `amount > 0 AND (SELECT 1) = 1`),
		rejectRule("subquery-in-lambda", `list_bool_and(list_transform([1], lambda x: (SELECT x > 0)))`),
		rejectRule("subquery-cast", `CAST((SELECT 1) AS BOOLEAN)`),
		rejectRule("bare-select", `SELECT TRUE`),
		rejectRule("cte", `WITH x AS (SELECT 1) SELECT TRUE`),
		rejectRule("read-csv", `read_csv('/etc/passwd') IS NOT NULL`),
		rejectRule("from-read-csv", `(FROM read_csv('/etc/passwd')) IS NOT NULL`),
		rejectRule("read-text", `(SELECT count(*) FROM read_text('/etc/passwd')) > 0`),
		rejectRule("query-function", `query('DROP TABLE t') IS NOT NULL`),
		// Statements that are not expressions.
		rejectRule("copy", `COPY t TO '/tmp/tg_evil.csv'`),
		rejectRule("attach", `ATTACH '/tmp/tg_evil.db' AS evil`),
		rejectRule("pragma", `PRAGMA show_tables`),
		rejectRule("install", `INSTALL httpfs`),
		rejectRule("load", `LOAD httpfs`),
		rejectRule("set", `SET threads = 1`),
		rejectRule("create", `CREATE TABLE y AS SELECT 1`),
		rejectRule("drop", `DROP TABLE t`),
		rejectRule("delete", `DELETE FROM t`),
		rejectRule("insert", `INSERT INTO t VALUES (1)`),
		rejectRule("update", `UPDATE t SET amount = 0`),
		// Comments that try to swallow the rest.
		rejectRule("only-comment", `-- TRUE`),
		rejectRule("unterminated-block", `TRUE /* ) AS r FROM t; DROP TABLE t; --`),
		rejectRule("close-block", `TRUE */ ; DROP TABLE t; /*`),
		acceptRule("trailing-line-comment", `TRUE -- ) AS r FROM t; DROP TABLE t; --`),
		acceptRule("trailing-comment-no-space", "amount > 0 --"),
		acceptRule("block-comment", `/* ) AS r FROM t; DROP TABLE t; SELECT ( */ amount > 0`),
		acceptRule("multiline-comments", "-- first line\namount > 0 /* mid */\n  OR name IS NULL -- last"),
		// Not one boolean over the row's columns.
		rejectRule("not-boolean", `amount + 1`),
		rejectRule("varchar", `name`),
		rejectRule("unknown-column", `nosuch > 0`),
		rejectRule("other-table", `t.amount > 0`),
		rejectRule("empty", ``),
		rejectRule("blank", " \n\t "),
		rejectRule("columns-star", `COLUMNS(*) IS NOT NULL`),
		rejectRule("columns-one", `COLUMNS('amount') > 0`),
		rejectRule("positional", `#1 > 0`),
		rejectRule("internal-name", `__tg_probe.amount > 0`),
		rejectRule("internal-rowid", `__tg_rid >= 0`),
		rejectRule("parameter", `amount > $1`),
		rejectRule("placeholder", `amount > ?`),
		rejectRule("nul-byte", "TRUE\x00; DROP TABLE t"),
		rejectRule("no-getenv", `getenv('HOME') IS NOT NULL`),
		// Harmless text that only looks hostile.
		acceptRule("string-with-drop", `name <> ''';DROP TABLE t;--'`),
		acceptRule("dollar-string", `$$) AS r FROM t; DROP TABLE t; SELECT ($$ <> name`),
		acceptRule("escape-string", `name <> E'\'; DROP TABLE t; --'`),
		acceptRule("quoted-column", `"name" IS DISTINCT FROM 'x'`),
		acceptRule("aggregate", `sum(amount) IS NULL OR sum(amount) > -1e300`),
		acceptRule("lambda", `list_bool_and(list_transform(tags, lambda x: x IS NULL OR x <> ';'))`),

		// Column checks: `_` is the value.
		rejectCheck("close-and-drop", `_) AS r FROM t; DROP TABLE t; SELECT (_ IS NULL`),
		rejectCheck("semicolon-drop", `_ IS NOT NULL; DROP TABLE t`),
		rejectCheck("not-boolean", `length(_) + 1`),
		rejectCheck("unknown-column", `_ = nosuch`),
		rejectCheck("subquery", `(SELECT max(name) FROM t) = _`),
		rejectCheck("quoted-placeholder", `"_" IS NULL`),
		rejectCheck("empty", ``),
		acceptCheck("escape-string-then-placeholder", `E'\'' = _`),
		acceptCheck("trailing-comment", `_ LIKE '%' -- '); DROP TABLE t; --`),
		acceptCheck("underscore-in-string", `_ <> '_' AND _ <> '"_"'`),
		acceptCheck("escape-string-quote", `E'\'' IS NULL OR struct_pack("'" := 1, "y _ z" := 2) IS NOT NULL`),
		acceptCheck("dollar-string-placeholder", `$x$ _ $x$ <> _`),
		acceptCheck("aggregate", `count(_) >= 0`),
		acceptCheck("lowercase", `lower(_) = _`),

		// Checks inside a list: evaluated per element in a lambda.
		rejectInner("close-and-drop", `_) AS r FROM t; DROP TABLE t; SELECT (_`),
		rejectInner("subquery", `(SELECT 1) = 1 OR _ IS NULL`),
		rejectInner("aggregate", `count(*) > 0`),
		acceptInner("trailing-comment", `strlen(_) < 10 -- ))) ; DROP TABLE t; --`),

		// Group rules.
		rejectGroup("close-and-drop", `count(*) > 0) FROM t; DROP TABLE t; SELECT (TRUE`),
		rejectGroup("ungrouped-column", `amount > 0`),
		acceptGroup("trailing-comment", `count(*) < 5 -- per name`),

		// Values, categories and names end up quoted, or are refused.
		acceptDecl("regex-quotes", injColumns(schema.String("s").Regex(`^O'Brien\'; DROP TABLE t; --$`)), "s|nullability", "s|regex"),
		acceptDecl("regex-backslashes", injColumns(schema.String("s").Nullable().Regex(`C:\\Users\\[^\\]+\\.*\'`)), "s|regex"),
		acceptDecl("regex-quote-only", injColumns(schema.String("s").Nullable().Regex(`''`)), "s|regex"),
		acceptDecl("regex-dollars", injColumns(schema.String("s").Nullable().Regex(`$$; DROP TABLE t; $$`)), "s|regex"),
		acceptDecl("is-in-quotes", injColumns(schema.String("s").Nullable().IsIn("it's", "a;b", "'); DROP TABLE t; --", `\`, `\'`, `"`, "", "$$", "_")), "s|is_in"),
		acceptDecl("enum-quotes", injColumns(schema.Enum("e", "don't", "'); DROP TABLE t; --", `a"b`, `\`).Unique()), "e|nullability", "e|unique"),
		acceptDecl("descriptions", func() *schema.Schema {
			return injBase().Describe("'); DROP TABLE t; --").AddRule("r", "amount > 0").DescribeRule(`"; DROP TABLE t; --`)
		}, "r"),
		acceptDecl("schema-name", func() *schema.Schema {
			return schema.New(`Orders"; DROP TABLE t; --`, schema.Int64("a").Min(0))
		}, "a|nullability", "a|min"),
		rejectDecl("check-name", func() *schema.Schema {
			s := injBase()
			s.Columns[1].Check(`x"; DROP TABLE t; --`, "TRUE")
			return s
		}, "column 'name'", "check name"),
		rejectDecl("rule-name", func() *schema.Schema {
			return injBase().AddRule(`r"; DROP TABLE t; --`, "TRUE")
		}, "rule name"),
		rejectDecl("group-by-name", func() *schema.Schema {
			return injBase().AddGroupRule("hostile", "count(*) > 0", `name"; DROP TABLE t; --`)
		}, "rule 'hostile'", "group_by"),
		rejectDecl("float-bound", injColumns(schema.Float64("f").Min("0; DROP TABLE t")), "column 'f'", "key 'min'"),
		rejectDecl("date-bound", injColumns(schema.Date("d").Max("2020-01-01'; DROP TABLE t; --")), "column 'd'", "key 'max'"),
		rejectDecl("int-is-in", injColumns(schema.Int64("i").IsIn("1); DROP TABLE t; --")), "column 'i'", "key 'is_in'"),
		rejectDecl("time-zone", injColumns(schema.Datetime("ts", schema.Micros, "UTC'; DROP TABLE t; --")), "column 'ts'", "key 'time_zone'"),
		rejectDecl("resolution", injColumns(schema.Date("d").Resolution("1d'; DROP TABLE t; --")), "column 'd'", "key 'resolution'"),
		rejectDecl("field-name", injColumns(schema.Struct("st", schema.String(`a"; DROP TABLE t; --`))), "column 'st'", "field name"),
		rejectDecl("internal-column", injColumns(schema.Int64("__tg_rid")), "column '__tg_rid'", "reserved"),
		rejectDecl("internal-rule", func() *schema.Schema { return injBase().AddRule("__tg_rid", "TRUE") }, "__tg_"),

		// Column names outside [A-Za-z0-9_] are refused at declaration.
		badName(`a"b`),
		badName(`a;b`),
		badName(`a b`),
		badName(`a'b`),
		badName(`x"; DROP TABLE t; --`),
		badName(`a.b`),
		badName(`a|b`),
		badName(`a--b`),
		badName("a\nb"),
		badName(`é`),
		badName(`*/`),

		// Reserved words and mixed case work, quoted everywhere.
		acceptDecl("reserved-words", func() *schema.Schema {
			s := schema.New("Reserved",
				schema.Int64("select").PrimaryKey().Min(0),
				schema.String("order").Regex("^o").Check("", `_ <> 'from'`),
				schema.Date("from").Nullable().Unique(),
				schema.Int32("where").IsIn(1, 2),
				schema.String("group").Nullable().IsIn("by"),
				schema.Float64("table").Nullable().Max(1),
				schema.Bool("null"),
				schema.Bool("true").Nullable(),
				schema.Int64("limit").Nullable().Unique(),
				schema.Int64("_").Nullable().Check("", "_ >= 0"),
				schema.String("CamelCase").Nullable().MinLength(1),
				schema.Int64("count").Nullable(),
			)
			return s.AddRule("select_positive", `"select" >= 0 AND "order" IS NOT NULL AND "CamelCase" <> 'x'`).
				AddGroupRule("per_order", "count(*) >= 1", "order", "where")
		}, "select_positive", "per_order", "primary_key",
			"select|nullability", "select|min",
			"order|nullability", "order|check", "order|regex",
			"from|unique",
			"where|nullability", "where|is_in",
			"group|is_in",
			"table|max", "table|inf", "table|nan",
			"null|nullability",
			"limit|unique",
			"_|check",
			"CamelCase|min_length"),
	}
}

func TestInjectionCorpus(t *testing.T) {
	cases := injCorpus()
	if len(cases) < 50 {
		t.Fatalf("the corpus has %d cases, want at least 50", len(cases))
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.label] {
			t.Fatalf("two cases are labelled %q", tc.label)
		}
		seen[tc.label] = true
		t.Run(tc.label, func(t *testing.T) {
			p, err := compileShared(tc.schema())
			switch {
			case tc.badName != "":
				var bad *schema.InvalidColumnNameError
				if !errors.As(err, &bad) {
					t.Fatalf("Compile error = %v, want an InvalidColumnNameError", err)
				}
				if bad.Column != tc.badName {
					t.Errorf("InvalidColumnNameError names %q, want %q", bad.Column, tc.badName)
				}
			case tc.reject:
				if err == nil {
					t.Fatalf("Compile accepted it; the query would be:\n%s", p.Explain())
				}
				t.Logf("rejected: %v", err)
				var decl *schema.DeclarationError
				if !errors.As(err, &decl) {
					t.Errorf("Compile error %T is not a declaration error: %v", err, err)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("the error does not name %q: %v", w, err)
					}
				}
			default:
				if err != nil {
					t.Fatalf("Compile: %v", err)
				}
				if tc.rules != nil {
					var got []string
					for _, r := range p.Rules {
						got = append(got, r.Name)
					}
					if strings.Join(got, ", ") != strings.Join(tc.rules, ", ") {
						t.Errorf("rules = %q, want %q", got, tc.rules)
					}
				}
				injRunOnly(t, p)
			}
		})
	}
}

// injCatalog describes everything a stray statement could change.
func injCatalog(t *testing.T, db *gosql.DB) string {
	t.Helper()
	var parts []string
	for _, q := range []string{
		"SELECT coalesce(string_agg(database_name || '.' || schema_name || '.' || table_name || ':' || estimated_size, ',' ORDER BY database_name, schema_name, table_name), '') FROM duckdb_tables()",
		"SELECT coalesce(string_agg(database_name, ',' ORDER BY database_name), '') FROM duckdb_databases()",
		"SELECT coalesce(string_agg(view_name, ',' ORDER BY view_name), '') FROM duckdb_views() WHERE NOT internal",
		"SELECT coalesce(string_agg(sequence_name, ',' ORDER BY sequence_name), '') FROM duckdb_sequences()",
		"SELECT coalesce(string_agg(extension_name, ',' ORDER BY extension_name), '') FROM duckdb_extensions() WHERE loaded",
		"SELECT current_setting('threads')::VARCHAR",
		"SELECT count(*)::VARCHAR || '/' || coalesce(sum(v), 0)::VARCHAR FROM tg_sentinel",
		"SELECT count(*)::VARCHAR FROM t",
		"SELECT count(*)::VARCHAR FROM x",
	} {
		var s string
		if err := db.QueryRow(q).Scan(&s); err != nil {
			t.Fatalf("inspect the catalog (%s): %v", q, err)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "\n")
}

// injRunOnly runs the compiled query over a table of the schema's types (a NULL row and two rows
// of values) beside a sentinel table, and checks that it only returned the validation result.
func injRunOnly(t *testing.T, p *compile.Plan) {
	t.Helper()
	db := goldenDB(t)
	samples := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		samples[i] = goldenSample(c.DType)
	}
	row := "(" + strings.Join(samples, ", ") + ")"
	for _, stmt := range []string{
		"CREATE OR REPLACE TABLE tg_sentinel AS SELECT 42 AS v",
		"CREATE OR REPLACE TABLE x AS SELECT 1 AS v",
		"CREATE OR REPLACE TABLE t (" + goldenTableDDL(p) + ")",
		"INSERT INTO t DEFAULT VALUES",
		"INSERT INTO t VALUES " + row + ", " + row,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("set up (%s): %v", stmt, err)
		}
	}
	before := injCatalog(t, db)

	q := p.Query(compile.Relation{From: "t", RowID: "rowid"})
	goldenSingleStatement(t, q)
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("DuckDB rejects the compiled query: %v\n%s", err, q)
	}
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{}
	for _, c := range p.Columns {
		want = append(want, c.Name)
	}
	want = append(want, compile.RowIDColumn)
	for _, r := range p.Rules {
		want = append(want, r.Name)
	}
	if strings.Join(cols, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("query columns = %q, want %q", cols, want)
	}
	n := 0
	for rows.Next() {
		n++
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i := len(p.Columns) + 1; i < len(vals); i++ {
			if _, ok := vals[i].(bool); !ok {
				t.Errorf("rule column %q = %#v, want a boolean", cols[i], vals[i])
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("run the compiled query: %v\n%s", err, q)
	}
	if rows.NextResultSet() {
		t.Error("the query produced a second result set")
	}
	rows.Close()
	if n != 3 {
		t.Errorf("the query returned %d rows for 3 input rows", n)
	}
	if after := injCatalog(t, db); after != before {
		t.Errorf("running the query changed the database:\nbefore:\n%s\nafter:\n%s\nquery:\n%s", before, after, q)
	}
}
