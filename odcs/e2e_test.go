package odcs_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate"
	"github.com/tablegate/tablegate/odcs"
)

// TestImportedContractValidatesData imports a contract, compiles it and runs it on data with
// NULLs, NaN, Unicode and a reserved-word column: each rule fails exactly the rows the contract
// says are wrong.
func TestImportedContractValidatesData(t *testing.T) {
	props := `      - {name: id, physicalType: BIGINT, primaryKey: true}
      - name: select
        physicalType: INTEGER
        logicalType: integer
        required: true
        logicalTypeOptions: {minimum: 0}
      - name: city
        physicalType: VARCHAR
        logicalType: string
        logicalTypeOptions: {maxLength: 3}
      - name: score
        physicalType: DOUBLE
        quality:
          - {metric: nullValues, mustBe: 0, id: score_filled, severity: warning}
      - name: ratio
        logicalType: number
        logicalTypeOptions: {format: f64}
        required: true
      - name: status
        physicalType: VARCHAR
        enum: [{value: open}, {value: closed}]
      - name: email
        physicalType: VARCHAR
        unique: true
`
	object := `    quality:
      - {metric: rowCount, mustBeGreaterOrEqualTo: 1, id: not_empty}
      - {metric: duplicateValues, arguments: {properties: [status]}, mustBeLessThan: 50, unit: percent, id: few_dup_status}
      - {metric: rowCount, mustBeLessThan: 3, id: small, severity: warning}
`
	c, err := odcs.Parse([]byte(strings.Replace(contract(props, object), "v3.1.0", "v3.2.0", 1)), "c.odcs.yaml")
	require.NoError(t, err)
	ctx := context.Background()
	_, err = odcs.Import(ctx, c, odcs.ImportOptions{})
	require.ErrorContains(t, err, "maxLength 3 counts characters")
	res, err := odcs.Import(ctx, c, odcs.ImportOptions{Lengths: odcs.LengthsChars})
	require.NoError(t, err)
	plan, err := tablegate.Compile(ctx, res.Schema)
	require.NoError(t, err)

	eng, err := tablegate.Open(tablegate.Config{TempDirectory: t.TempDir()})
	require.NoError(t, err)
	defer eng.Close()
	rows := tablegate.FromQuery(`SELECT * FROM (VALUES
		(1::BIGINT, 5, 'Zür', 1.5::DOUBLE, 0.5::DOUBLE, 'open', 'a@x'),
		(2, -1, 'Köln', 'NaN'::DOUBLE, 0.5, 'open', NULL),
		(3, 0, NULL, NULL, 'NaN'::DOUBLE, 'gone', NULL),
		(4, 7, 'Åås', 'inf'::DOUBLE, 1.0, NULL, 'a@x')
	) t(id, "select", city, score, ratio, status, email)`)
	out, err := eng.Validate(ctx, plan, rows, nil, tablegate.Options{})
	var abort *tablegate.ValidationAbortError
	require.ErrorAs(t, err, &abort)
	failed := map[string]int64{}
	for _, ch := range out.Report.Checks {
		failed[ch.Name] = ch.Failed
		if ch.Table != nil && !ch.Passed {
			failed[ch.Name] = -1
		}
	}
	require.Equal(t, map[string]int64{
		"dy_schema__columns":              0,
		"dy_rule__email_unique":           2, // two a@x; the two NULLs are not duplicates
		"dy_rule__primary_key":            0,
		"dy_rule__id__nullability":        0,
		"dy_rule__select__nullability":    0,
		"dy_rule__select__min":            1, // -1
		"dy_rule__city__check__max_chars": 1, // Köln has 4 characters; Zür and Åås 3 (4 and 5 bytes)
		"dy_rule__score__nullability":     1, // warn
		"dy_rule__ratio__nullability":     0,
		"dy_rule__ratio__nan":             1, // logicalType number: a JSON number is never NaN
		"dy_rule__ratio__inf":             0,
		"dy_rule__status__is_in":          1, // gone; NULL passes
		"dy_table__not_empty":             0,
		"dy_table__few_dup_status":        0, // open twice: 1 of 4 rows, 25%
		"dy_table__small":                 -1,
	}, failed)
	require.Equal(t, int64(4), out.Report.Rows.Input)
	require.Equal(t, int64(4), out.Report.Rows.Invalid, "1 and 4 share an email, 2 has select -1 and Köln, 3 a NaN ratio and status gone")
}

// TestJSONContractEndToEnd: a contract written in JSON is read (its lines kept for messages),
// imported and run like its YAML form.
func TestJSONContractEndToEnd(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "min.json")
	text := `{
  "apiVersion": "v3.2.0",
  "kind": "DataContract",
  "id": "urn:datacontract:min",
  "version": "2.1.0",
  "schema": [{
    "name": "orders",
    "properties": [
      {"name": "id", "physicalType": "BIGINT", "logicalType": "integer", "required": true},
      {"name": "code", "physicalType": "VARCHAR", "logicalType": "string",
       "logicalTypeOptions": {"pattern": "^[A-Z]+$", "maxLength": 3},
       "quality": [{"id": "code_filled", "metric": "nullValues", "mustBe": 0}]},
      {"name": "status", "physicalType": "VARCHAR", "logicalType": "string",
       "enum": [{"value": "open"}, {"value": "closed"}]}
    ]
  }]
}
`
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	ctx := context.Background()
	res, err := tablegate.LoadContract(ctx, path, tablegate.ContractOptions{})
	require.NoError(t, err)
	require.Equal(t, "urn:datacontract:min", res.Schema.Contract.ID)
	plan, err := tablegate.Compile(ctx, res.Schema)
	require.NoError(t, err)
	eng, err := tablegate.Open(tablegate.Config{TempDirectory: t.TempDir()})
	require.NoError(t, err)
	defer eng.Close()
	rows := tablegate.FromQuery(`SELECT * FROM (VALUES (1::BIGINT, 'AB', 'open'), (2, NULL, 'gone'), (3, 'ABCD', NULL), (NULL, 'x', 'open')) t(id, code, status)`)
	out, err := eng.Validate(ctx, plan, rows, nil, tablegate.Options{})
	var abort *tablegate.ValidationAbortError
	require.ErrorAs(t, err, &abort)
	failed := map[string]int64{}
	for _, ch := range out.Report.Checks {
		if ch.Failed > 0 {
			failed[ch.Name] = ch.Failed
		}
	}
	require.Equal(t, map[string]int64{
		"dy_rule__id__nullability":   1,
		"dy_rule__code__nullability": 1,
		"dy_rule__code__max_length":  1, // ABCD
		"dy_rule__code__regex":       1, // x
		"dy_rule__status__is_in":     1, // gone
	}, failed)

	// A mistake in a JSON contract is placed on its line.
	bad := strings.Replace(text, `"required": true`, `"requried": true`, 1)
	require.NoError(t, os.WriteFile(path, []byte(bad), 0o644))
	_, err = tablegate.LoadContract(ctx, path, tablegate.ContractOptions{})
	var se *odcs.SchemaError
	require.ErrorAs(t, err, &se)
	require.ErrorContains(t, err, path+`:9: schema[0].properties[0].requried: unknown key "requried" (did you mean "required"?)`)
}
