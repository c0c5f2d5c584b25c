package collection_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/collection"
	"github.com/tablegate/tablegate/schema"
)

func TestLoadShop(t *testing.T) {
	c, err := collection.LoadFile(context.Background(), "../examples/shop/shop.yaml")
	require.NoError(t, err)
	require.Equal(t, "Shop", c.Name)
	names := []string{}
	for _, m := range c.Members {
		names = append(names, m.Name)
	}
	require.Equal(t, []string{"orders", "items", "invoices", "refunds", "products"}, names)
	require.True(t, c.Get("refunds").Optional)
	require.True(t, c.Get("refunds").PropagateRowFailures)
	require.True(t, c.Get("products").IgnoredInFilters)
	require.Equal(t, []string{"order_id"}, c.CommonKey())
	require.Len(t, c.Filters, 3)
	require.Equal(t, collection.SQL, c.Filters[2].Kind)
	require.Equal(t, []string{"items"}, c.Filters[2].Members)
	require.Equal(t, collection.Reference{Name: "item_product", From: "items", FromColumn: "product_id", To: "products", ToColumn: "product_id"},
		withoutPos(c.References[0]))
}

func withoutPos(r collection.Reference) collection.Reference {
	return collection.Reference{Name: r.Name, From: r.From, FromColumn: r.FromColumn, To: r.To, ToColumn: r.ToColumn}
}

// Every declaration problem of the file comes at once, each with its file and line.
func TestDeclarationErrorsAllAtOnce(t *testing.T) {
	_, err := collection.LoadFile(context.Background(), "testdata/bad/bad.yaml")
	var errs *schema.Errors
	require.True(t, errors.As(err, &errs), "%v", err)
	var got []string
	for _, p := range errs.Problems {
		got = append(got, p.Error())
	}
	msg := strings.Join(got, "\n")
	for _, want := range []string{
		"bad.yaml:5: collection Bad, key 'colour': member c has no key \"colour\"",
		"bad.yaml:6: collection Bad, key 'd': member d: read schema:",
		"bad.yaml:2: collection Bad, key 'members': the members have no common primary key, which filters and failure propagation need (primary keys: a: id; b: other_id)",
		"bad.yaml:9: collection Bad, key 'one_to_at_least_one': unknown member \"zed\"",
		"bad.yaml:10: collection Bad, key 'one_to_one': filter with_ignored reads member c, which is ignored_in_filters",
		"bad.yaml:11: collection Bad, key 'x': filter name \"x\" is already a column of member",
		"bad.yaml:12: collection Bad: filter two_kinds: give exactly one of",
		"bad.yaml:14: collection Bad, key 'to': reference bad_ref: b.x_ref is String but a.id is Int64",
		"bad.yaml:15: collection Bad, key 'ab': reference name \"ab\" is already taken",
		"bad.yaml:15: collection Bad, key 'from': reference ab: member a has no column \"nope\"",
	} {
		require.Contains(t, msg, want)
	}
}

func TestBuilderValidates(t *testing.T) {
	a := schema.New("a", schema.Int64("id").PrimaryKey())
	b := schema.New("b", schema.Int64("id").PrimaryKey(), schema.Int64("n").PrimaryKey())
	c := collection.New("ok").Member("a", a).Member("b", b, collection.Optional()).OneToAtLeastOne("has_b", "a", "b")
	require.NoError(t, c.Validate())
	require.Equal(t, []string{"id"}, c.CommonKey())

	noKey := collection.New("nokey").Member("a", a).Member("c", schema.New("c", schema.Int64("other").PrimaryKey())).
		Member("d", schema.New("d", schema.Int64("x")), collection.PropagateRowFailures())
	err := noKey.Validate()
	require.ErrorContains(t, err, "no common primary key")
	require.ErrorContains(t, err, "a: id; c: other; d: none")

	// An ignored member takes no part in the common key.
	ignored := collection.New("ign").Member("a", a).Member("c", schema.New("c", schema.Int64("other").PrimaryKey()), collection.IgnoredInFilters()).
		OneToOne("self", "a", "a")
	require.ErrorContains(t, ignored.Validate(), "between two different members")
	require.Equal(t, []string{"id"}, ignored.CommonKey())
}

// The common key's columns must compare across members.
func TestCommonKeyKinds(t *testing.T) {
	a := schema.New("a", schema.Int64("id").PrimaryKey())
	b := schema.New("b", schema.String("id").PrimaryKey())
	c := collection.New("kinds").Member("a", a).Member("b", b).OneToOne("ab", "a", "b")
	require.ErrorContains(t, c.Validate(), "the common primary key column id is Int64 in member a but String in member b")
	i32 := schema.New("c", schema.Int32("id").PrimaryKey())
	require.NoError(t, collection.New("ints").Member("a", a).Member("c", i32).OneToOne("ac", "a", "c").Validate())
}
