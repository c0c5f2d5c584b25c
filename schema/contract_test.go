package schema_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/schema"
)

func TestContractKey(t *testing.T) {
	doc := `schema: orders
columns: [{name: a, type: Int64}]
contract:
  id: c1
  name: Orders
  version: 1.0.0
  api_version: v3.2.0
  object: orders
  quality:
    - {rule: a|nullability, id: a_filled, name: A is filled}
    - {table_check: enough, id: enough}
`
	s, err := schema.Parse([]byte(doc), "s.yaml")
	require.NoError(t, err)
	want := &schema.Contract{ID: "c1", Name: "Orders", Version: "1.0.0", APIVersion: "v3.2.0", Object: "orders",
		Quality: []schema.ContractQuality{{Rule: "a|nullability", ID: "a_filled", Name: "A is filled"}, {Rule: "enough", Table: true, ID: "enough"}}}
	require.Equal(t, want, s.Contract)
	c := s.Clone()
	c.Contract.Quality[0].ID = "changed"
	require.Equal(t, "a_filled", s.Contract.Quality[0].ID, "a clone has its own contract")

	_, err = schema.Parse([]byte("schema: x\ncolumns: [{name: a, type: Int64}]\ncontract: {id: c, owner: me, quality: [{id: q}, 3]}\n"), "s.yaml")
	require.ErrorContains(t, err, "s.yaml:3: x, key 'contract.owner': unknown key 'owner'")
	require.ErrorContains(t, err, "the entry names neither a rule nor a table_check")
	require.ErrorContains(t, err, "a contract.quality entry is a mapping")
}
