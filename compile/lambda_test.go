package compile_test

import (
	"testing"

	"github.com/tablegate/tablegate/schema"
)

// TestLambdaParameterNamedValue: only a free `_` is the checked value; in the body of a lambda
// (or list comprehension) whose parameter is `_`, `_` is that parameter, as DuckDB binds it. Each
// case's rule must give, row by row, what plain DuckDB gives for the same expression written over
// the column (plain), NULL counting as valid.
func TestLambdaParameterNamedValue(t *testing.T) {
	parts := rtData{cols: "s VARCHAR", rows: []string{"'a,b'", "'a,,b'", "','"}}
	lists := rtData{cols: "l BIGINT[]", rows: []string{"[1, 2]", "[1, -1]", "[-1]"}}
	cases := []struct {
		name        string
		col         *schema.Column
		check       string
		plain, want string
		data        rtData
	}{
		{"lambda keyword in a list_transform", schema.String("s"),
			"list_bool_and(list_transform(string_split(_, ','), lambda _: _ <> ''))",
			"list_bool_and(list_transform(string_split(s, ','), lambda _: _ <> ''))", "TFF", parts},
		{"list_filter", schema.String("s"),
			"len(list_filter(string_split(_, ','), lambda _: _ = '')) = 0",
			"len(list_filter(string_split(s, ','), lambda _: _ = '')) = 0", "TFF", parts},
		{"list_reduce, `_` the second parameter", schema.String("s"),
			"list_reduce(string_split(_, ','), lambda acc, _: acc || '-' || _) = replace(_, ',', '-')",
			"list_reduce(string_split(s, ','), lambda acc, _: acc || '-' || _) = replace(s, ',', '-')", "TTT", parts},
		{"nested lambdas, the inner one binding `_`", schema.String("s"),
			"list_bool_and(list_transform(string_split(_, ','), lambda x: list_bool_and(list_transform([x], lambda _: _ <> ''))))",
			"list_bool_and(list_transform(string_split(s, ','), lambda x: list_bool_and(list_transform([x], lambda _: _ <> ''))))", "TFF", parts},
		{"free `_` inside a lambda of another parameter", schema.String("s"),
			"list_bool_and(list_transform(string_split(_, ','), lambda x: length(x) + 1 < length(_)))",
			"list_bool_and(list_transform(string_split(s, ','), lambda x: length(x) + 1 < length(s)))", "TTF", parts},
		{"List column", schema.List("l", schema.Int64("")),
			"list_bool_and(list_transform(_, lambda _: _ > 0))",
			"list_bool_and(list_transform(l, lambda _: _ > 0))", "TFF", lists},
		{"List column, list_filter", schema.List("l", schema.Int64("")),
			"len(list_filter(_, lambda _: _ < 0)) = 0",
			"len(list_filter(l, lambda _: _ < 0)) = 0", "TFF", lists},
	}
	// A list comprehension is lambdas in DuckDB's tree, but DuckDB does not print it back as it
	// reads it: refused, never run with the parameter taken for the column.
	if _, err := compileShared(rtOne(schema.String("s").Check("c", "len([_ FOR _ IN string_split(_, ',') IF _ = '']) = 0"))); err == nil {
		t.Errorf("a list comprehension binding `_` compiled; it needs a case above")
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := rtEval(t, rtOne(tc.col.Nullable().Check("c", tc.check)), tc.data)
			rule := res.plan.Columns[0].Name + "|check__c"
			got := rtBits(res.rules[rule])
			rows, err := rtDB(t).Query("SELECT COALESCE(" + tc.plain + ", TRUE) FROM t ORDER BY rowid")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plain []bool
			for rows.Next() {
				var b bool
				if err := rows.Scan(&b); err != nil {
					t.Fatal(err)
				}
				plain = append(plain, b)
			}
			if rtBits(plain) != tc.want {
				t.Fatalf("plain DuckDB gives %s, the case expects %s", rtBits(plain), tc.want)
			}
			if got != tc.want {
				t.Errorf("%s = %s, plain DuckDB gives %s\n%s", rule, got, tc.want, res.sql)
			}
		})
	}
}
