package odcs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/odcs"
)

const orders = `apiVersion: v3.2.0
kind: DataContract
id: orders-contract
version: 1.2.0
name: Orders
schema:
  - name: orders
    physicalType: table
    properties:
      - name: order_id
        physicalType: BIGINT
        primaryKey: true
        primaryKeyPosition: 1
        required: true
      - name: "größe"
        logicalType: string
        physicalType: VARCHAR
        logicalTypeOptions:
          maxLength: 10
          pattern: "^[a-z]+$"
      - name: amount
        logicalType: number
        physicalType: DECIMAL(12,2)
        logicalTypeOptions:
          minimum: 0.10
          exclusiveMaximum: 1e6
        quality:
          - id: amount_nulls
            metric: nullValues
            mustBe: 0
            severity: warning
      - name: status
        physicalType: VARCHAR
        enum: [{value: open}, {value: closed, label: Closed}, {value: 3}]
        relationships:
          - to: statuses.code
    relationships:
      - from: [orders.order_id, orders.status]
        to: [lines.order_id, lines.status]
    quality:
      - metric: rowCount
        mustBeGreaterThan: 100
slaProperties:
  - property: latency
    value: 4
    unit: d
`

func TestParseKeepsValuesAndPlaces(t *testing.T) {
	c, err := odcs.Parse([]byte(orders), "orders.odcs.yaml")
	require.NoError(t, err)
	require.Equal(t, "orders-contract", c.ID)
	o := c.Object("orders")
	require.NotNil(t, o)
	require.Len(t, o.Properties, 4)

	size := o.Properties[1]
	require.Equal(t, "größe", size.Name)
	require.Equal(t, "10", size.LogicalTypeOptions.MaxLength.Text)
	require.Equal(t, odcs.Pos{File: "orders.odcs.yaml", Line: 19, Path: "schema[0].properties[1].logicalTypeOptions.maxLength"},
		size.LogicalTypeOptions.Pos("maxLength"))
	require.Equal(t, "orders.odcs.yaml:19: schema[0].properties[1].logicalTypeOptions.maxLength", size.LogicalTypeOptions.Pos("maxLength").String())

	amount := o.Properties[2]
	require.Equal(t, "0.10", amount.LogicalTypeOptions.Minimum.Text, "a decimal bound keeps its digits")
	require.True(t, amount.LogicalTypeOptions.Minimum.IsNumber())
	require.Equal(t, "1e6", amount.LogicalTypeOptions.ExclusiveMaximum.Text)
	q := amount.Quality[0]
	require.Equal(t, "nullValues", q.MetricName())
	require.Equal(t, "library", q.QualityType())
	require.Equal(t, "0", q.MustBe.Text)
	require.Equal(t, "schema[0].properties[2].quality[0].severity", q.Pos("severity").Path)
	require.Equal(t, 31, q.Pos("severity").Line)

	status := o.Properties[3]
	require.Len(t, status.Enum, 3)
	require.Equal(t, "open", status.Enum[0].Value.Text)
	require.Equal(t, "closed", status.Enum[1].Value.Text)
	require.Equal(t, "!!int", status.Enum[2].Value.Tag)
	require.Equal(t, []string{"statuses.code"}, status.Relationships[0].To.Names)
	require.False(t, status.Relationships[0].To.List)

	require.Equal(t, 1, *o.Properties[0].PrimaryKeyPosition)
	require.Equal(t, []string{"orders.order_id", "orders.status"}, o.Relationships[0].From.Names)
	require.True(t, o.Relationships[0].From.List)
	require.Equal(t, "schema[0].quality[0]", o.Quality[0].Pos().Path)
	require.Equal(t, "slaProperties[0].value", c.SLAProperties[0].Pos("value").Path)
}

func TestMarshalReadsBackTheSame(t *testing.T) {
	c, err := odcs.Parse([]byte(orders), "orders.odcs.yaml")
	require.NoError(t, err)
	out, err := odcs.Marshal(c)
	require.NoError(t, err)
	back, err := odcs.Parse(out, "back.yaml")
	require.NoError(t, err, string(out))
	again, err := odcs.Marshal(back)
	require.NoError(t, err)
	require.Equal(t, string(out), string(again))
	require.Contains(t, string(out), "minimum: 0.10")
	require.Contains(t, string(out), "from:\n")
	require.Contains(t, string(out), "- to: statuses.code")
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"empty", "  \n", "is empty"},
		{"not a mapping", "- a\n- b\n", "is a mapping"},
		{"old version", "apiVersion: v2.2.2\nkind: DataContract\nid: x\n", `apiVersion "v2.2.2" is not an ODCS version`},
		{"other kind", "apiVersion: v3.1.0\nkind: Schema\nid: x\nversion: 1.0.0\nstatus: active\n", `x.yaml:2: kind: "Schema" is not one of "DataContract"`},
		{"bad bool", "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\nschema:\n  - name: t\n    properties:\n      - name: a\n        required: maybe\n",
			"x.yaml:10: schema[0].properties[0].required: is a string; the standard wants a boolean"},
		{"list bound", "apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\nschema:\n  - name: t\n    properties:\n      - name: a\n        logicalType: number\n        logicalTypeOptions:\n          maximum: [1]\n",
			"x.yaml:12: schema[0].properties[0].logicalTypeOptions.maximum: is an array; the standard wants a number"},
		{"no version", "apiVersion: v3.1.0\nkind: DataContract\nid: x\nstatus: active\n", `x.yaml:1: missing "version", which the standard requires here`},
		{"options without logicalType", "apiVersion: v3.2.0\nkind: DataContract\nid: x\nversion: 1.0.0\nschema:\n  - name: t\n    properties:\n      - name: a\n        logicalTypeOptions:\n          maximum: 1\n",
			"x.yaml:9: schema[0].properties[0].logicalTypeOptions: the standard reads logicalTypeOptions by the property's logicalType, which is missing"},
		{"syntax", "apiVersion: v3.1.0\nkind: [\n", "x.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := odcs.Parse([]byte(tc.doc), "x.yaml")
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}
