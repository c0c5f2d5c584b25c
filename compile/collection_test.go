package compile_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/collection"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

func TestCompileCollectionAddsRules(t *testing.T) {
	c, err := collection.LoadFile(context.Background(), "../examples/shop/shop.yaml")
	require.NoError(t, err)
	cp, err := compile.CompileCollection(context.Background(), c)
	require.NoError(t, err)
	rules := func(member string) []string {
		var out []string
		for _, r := range cp.Member(member).Plan.Rules {
			if r.Kind == compile.KindFilter || r.Kind == compile.KindPropagation || r.Kind == compile.KindReference {
				out = append(out, r.Check)
			}
		}
		return out
	}
	filters := []string{"dy_rule__orders_have_items", "dy_rule__one_invoice", "dy_rule__items_have_quantity", "dy_rule__refunds__failure_propagation"}
	require.Equal(t, filters, rules("orders"))
	require.Equal(t, append(filters, "dy_rule__item_product"), rules("items"))
	require.Empty(t, rules("products"), "an ignored member gets no filter's rule")
}

// A custom filter's SQL is checked as a custom rule's, and its problems come with the
// collection's other declaration problems, each with the file and line.
func TestCollectionSQLFilterChecked(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("a.yaml", "schema: A\ncolumns:\n  - {name: id, type: Int64, primary_key: true}\n  - {name: n, type: Int64}\n")
	write("c.yaml", `collection: C
members:
  a: a.yaml
  b: a.yaml
filters:
  - {name: reads_file, member: a, sql: "(SELECT count(*) FROM read_csv('/etc/passwd')) > 0"}
  - {name: not_bool, member: a, sql: "sum(n)"}
  - {name: not_grouped, member: a, sql: "n > 0"}
  - {name: escapes, member: a, sql: "true) OR (true"}
  - {name: ok, member: a, sql: "sum(n) > 0"}
  - {name: unknown, one_to_one: [a, zed]}
`)
	_, err := compile.CompileCollection(context.Background(), mustLoad(t, filepath.Join(dir, "c.yaml")))
	var errs *schema.Errors
	require.True(t, errors.As(err, &errs), "%v", err)
	require.Len(t, errs.Problems, 5, "%v", err)
	msg := err.Error()
	for _, want := range []string{"c.yaml:6:", "filter reads_file: subqueries are not allowed", "c.yaml:7:", "filter not_bool:", "not a boolean expression",
		"c.yaml:8:", "filter not_grouped:", "c.yaml:9:", "filter escapes:", `c.yaml:11: collection C, key 'one_to_one': unknown member "zed"`} {
		require.Contains(t, msg, want)
	}
}

func mustLoad(t *testing.T, path string) *collection.Collection {
	t.Helper()
	c, _ := collection.LoadFile(context.Background(), path) // its problems come again from CompileCollection
	require.NotNil(t, c)
	return c
}

// The collection's steps find a relationship's lost keys for both its members in one full join
// of their key counts; the kept keys are found only for the members in filters beyond the
// relationship's two (invoices for orders_have_items, orders and items for one_invoice) and for
// SQL filters. Their aggregates run at the threshold fitted to the largest member's rows.
func TestCollectionStepsOneJoinPerRelationship(t *testing.T) {
	c, err := collection.LoadFile(context.Background(), "../examples/shop/shop.yaml")
	require.NoError(t, err)
	cp, err := compile.CompileCollection(context.Background(), c)
	require.NoError(t, err)
	runs := map[string]compile.MemberRun{}
	for i, m := range []string{"orders", "items", "invoices", "products"} {
		runs[m] = compile.MemberRun{Plan: cp.Member(m).Plan, Rel: compile.Placeholder, Failed: "__tg_failed_" + m, PerfectHashBits: 16 + 2*i}
	}
	steps, _ := cp.Steps(1, runs)
	require.NotEmpty(t, steps)
	require.Equal(t, "SET SESSION perfect_ht_threshold = 22", steps[0].SQL)
	var fullJoins, keeps []string
	for _, s := range steps {
		if strings.Contains(s.SQL, " FULL JOIN ") {
			fullJoins = append(fullJoins, s.What)
		}
		if strings.HasPrefix(s.What, "find the keys filter ") {
			keeps = append(keeps, s.What)
		}
	}
	require.Equal(t, []string{"find the valid keys of orders and items filter orders_have_items does not keep",
		"find the valid keys of orders and invoices filter one_invoice does not keep"}, fullJoins)
	require.Equal(t, []string{"find the keys filter items_have_quantity keeps", "find the keys filter one_invoice keeps",
		"find the keys filter orders_have_items keeps"}, keeps)
}
