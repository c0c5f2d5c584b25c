package compile

import (
	"reflect"
	"testing"

	"github.com/tablegate/tablegate/schema"
)

// TestKeyGroups: each key group names the whole columns it is keyed by (none for a struct field
// or an ungrouped aggregate) and every column its keys and conditions may read.
func TestKeyGroups(t *testing.T) {
	s, err := schema.Parse([]byte(`schema: K
columns:
  - {name: id, type: Int64, primary_key: true}
  - {name: Code, type: String, unique: true}
  - {name: customer_id, type: Int64}
  - {name: amount, type: Float64, check: {positive_total: "sum(_) > 0"}}
  - {name: customer, type: Int64}
  - name: address
    type: Struct
    fields:
      - {name: zip, type: String, unique: true}
rules:
  - {name: small_total, sql: "SUM(Amount) < 1000 AND count(*) < 10", group_by: [customer_id]}
`), "k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]KeyGroup{}
	for _, kg := range p.KeyGroups() {
		if !kg.Used {
			t.Errorf("group %v unused in a whole plan", kg)
		}
		got[kg.key()] = kg
	}
	for key, want := range map[string]KeyGroup{
		// customer_id, not customer: names match as whole words only, in any case.
		"customer_id": {Used: true, Columns: []string{"customer_id"}, Reads: []string{"customer_id", "amount"}},
		"id":          {Used: true, Columns: []string{"id"}, Reads: []string{"id"}},
		"Code":        {Used: true, Columns: []string{"Code"}, Reads: []string{"Code"}},
		"address":     {Used: true, Reads: []string{"address"}},
		"":            {Used: true, Reads: []string{"amount"}},
	} {
		if g, ok := got[key]; !ok || !reflect.DeepEqual(g, want) {
			t.Errorf("key group %q: got %+v (found %v), want %+v", key, g, ok, want)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d key groups, want 5: %+v", len(got), got)
	}
}

// key names a group in the test by its columns, or by what it reads when it has none.
func (kg KeyGroup) key() string {
	if len(kg.Columns) > 0 {
		return kg.Columns[0]
	}
	if len(kg.Reads) == 1 && kg.Reads[0] == "address" {
		return "address"
	}
	return ""
}

func TestSQLMentions(t *testing.T) {
	for _, c := range []struct {
		text, name string
		want       bool
	}{
		{`"id"`, "id", true},
		{`count(*) > 1`, "id", false},
		{`SUM(Amount) < 10`, "amount", true},
		{`"customer_id" IS NULL`, "customer", false},
		{`customer_id2 + 1`, "customer_id", false},
		{`x.customer_id`, "customer_id", true},
		{`"address"."zip"`, "zip", true},
		{`idé`, "id", false},
	} {
		if got := sqlMentions(c.text, c.name); got != c.want {
			t.Errorf("sqlMentions(%q, %q) = %v, want %v", c.text, c.name, got, c.want)
		}
	}
}
