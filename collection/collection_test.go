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
		"bad.yaml:16: collection Bad, key 'severity': severity is \"fatal\"; use \"error\" or \"warn\"",
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

// A member's data contract is read by the loader given (WithContracts) with the member's
// options, its path and references read from the collection file's folder; without one it is a
// declaration error at the member's line.
func TestContractMember(t *testing.T) {
	src := []byte("collection: C\nmembers:\n  orders: {contract: c/orders.odcs.yaml, object: orders, lengths: bytes, allow_lossy: true, references: {customers: customers.parquet}}\n")
	_, err := collection.Parse(context.Background(), src, "testdata/shop.yaml")
	require.ErrorContains(t, err, "testdata/shop.yaml:3: collection C, key 'orders': member orders names a data contract, which this loader does not read")

	orders, err := schema.Parse([]byte("schema: Orders\ncolumns:\n  - {name: order_id, type: Int64, primary_key: true}\n"), "orders.yaml")
	require.NoError(t, err)
	var got collection.Contract
	load := func(_ context.Context, member string, c *collection.Contract) (*schema.Schema, error) {
		require.Equal(t, "orders", member)
		got = *c
		c.Notices = []string{"not enforced: something"}
		return orders, nil
	}
	c, err := collection.Parse(context.Background(), src, "testdata/shop.yaml", collection.WithContracts(load))
	require.NoError(t, err)
	require.Equal(t, collection.Contract{File: "c/orders.odcs.yaml", Path: "testdata/c/orders.odcs.yaml", Object: "orders", Lengths: "bytes",
		AllowLossy: true, References: map[string]string{"customers": "testdata/customers.parquet"}}, got)
	m := c.Get("orders")
	require.Same(t, orders, m.Schema)
	require.Equal(t, []string{"not enforced: something"}, m.Contract.Notices)

	// The loader's declaration problems join the collection's.
	failing := func(context.Context, string, *collection.Contract) (*schema.Schema, error) {
		return nil, &schema.Errors{Problems: []error{&schema.DeclarationError{Schema: "member orders", Pos: schema.Pos{File: "orders.odcs.yaml", Line: 7}, Msg: "no"}}}
	}
	_, err = collection.Parse(context.Background(), src, "testdata/shop.yaml", collection.WithContracts(failing))
	require.ErrorContains(t, err, "orders.odcs.yaml:7: member orders: no")
}

// A filter or a reference may be declared warn, as a single table's reference may.
func TestWarnFilterAndReference(t *testing.T) {
	src := []byte("collection: W\nmembers:\n  a: a.yaml\n  c: a.yaml\nfilters:\n  - {name: ac, one_to_one: [a, c], severity: warn}\n" +
		"  - {name: ca, one_to_one: [c, a]}\nreferences:\n  - {name: self, from: a.x, to: c.id, severity: warn}\n")
	c, err := collection.Parse(context.Background(), src, "testdata/bad/w.yaml")
	require.NoError(t, err)
	require.Equal(t, schema.Warn, c.Filters[0].Severity)
	require.Equal(t, schema.Severity(""), c.Filters[1].Severity, "error unless declared")
	require.Equal(t, schema.Warn, c.References[0].Severity)
}
