package pipes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/outcome"
)

// ReportPayloadKey is the key of the custom message that carries the whole JSON report.
const ReportPayloadKey = "tablegate_report"

// SendReport sends a run's report to Dagster: one report_asset_check per check, a
// report_asset_materialization only when the table was written, and the whole JSON report as a
// custom message. It sends what it can and returns the first error.
func (s *Session) SendReport(assetKey string, rep *outcome.Report) error {
	var first error
	keep := func(err error) {
		if first == nil && err != nil {
			first = err
		}
	}
	for _, c := range rep.Checks {
		meta, err := CheckMetadata(c)
		keep(err)
		keep(s.ReportAssetCheck(assetKey, c.Name, c.Passed, Severity(c.Severity), meta))
	}
	if rep.Table.Written {
		meta, err := MaterializationMetadata(rep)
		keep(err)
		keep(s.ReportAssetMaterialization(assetKey, meta, ""))
	}
	keep(s.ReportCustomMessage(map[string]any{ReportPayloadKey: rep}))
	return first
}

// MaterializationMetadata is the metadata of a written table: its rows (dagster/row_count), where
// it and the quarantine went, the invalid rows by the rules they failed, and with --row-sample a
// preview of the valid rows.
func MaterializationMetadata(rep *outcome.Report) (Metadata, error) {
	m := Metadata{
		"dagster/row_count":         Int(rep.Rows.Valid),
		"tablegate/table_address":   Text(rep.Table.Address),
		"tablegate/input_row_count": Int(rep.Rows.Input),
		"tablegate/invalid_by_rules": Table([]Column{{"rules", "string"}, {"count", "int"}}, func() []map[string]any {
			rows := make([]map[string]any, len(rep.InvalidByRules))
			for i, r := range rep.InvalidByRules {
				rows[i] = map[string]any{"rules": r.Rules, "count": r.Count}
			}
			return rows
		}()),
	}
	if rep.Quarantine.Written {
		m[outcome.MetaErrorRowsAddress] = Text(rep.Quarantine.Address)
		m["tablegate/error_row_count"] = Int(rep.Quarantine.Rows)
	}
	if len(rep.ValidSample) > 0 {
		data, err := json.Marshal(rep.ValidSample)
		if err != nil {
			return m, fmt.Errorf("dagster pipes: the valid rows' sample: %w", err)
		}
		cols, rows, err := tableOf(data)
		if err != nil {
			return m, fmt.Errorf("dagster pipes: the valid rows' sample: %w", err)
		}
		m[MetaPreview] = Table(cols, rows)
	}
	return m, nil
}

// MetaPreview is the materialization metadata key of the valid rows' sample.
const MetaPreview = "tablegate/preview"

// CheckMetadata types a check's metadata for Dagster, from its JSON form (the report's
// contract): counts as int, the rule and its SQL as text, samples and column errors as tables,
// the members of a collapsed check as JSON.
func CheckMetadata(c outcome.Check) (Metadata, error) {
	data, err := json.Marshal(c.Metadata)
	if err != nil {
		return nil, fmt.Errorf("dagster pipes: check %s: %w", c.Name, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	m := Metadata{}
	for k, v := range raw {
		switch k {
		case outcome.MetaFailedRowCount:
			var n int64
			if err := json.Unmarshal(v, &n); err != nil {
				return nil, fmt.Errorf("dagster pipes: check %s: %s: %w", c.Name, k, err)
			}
			m[k] = Int(n)
		case outcome.MetaFailedExamples, outcome.MetaColumnSchemaErrors:
			cols, rows, err := tableOf(v)
			if err != nil {
				return nil, fmt.Errorf("dagster pipes: check %s: %s: %w", c.Name, k, err)
			}
			m[k] = Table(cols, rows)
		default:
			var x any
			dec := json.NewDecoder(bytes.NewReader(v))
			dec.UseNumber()
			if err := dec.Decode(&x); err != nil {
				return nil, err
			}
			if str, ok := x.(string); ok {
				m[k] = Text(str)
			} else {
				m[k] = JSON(x)
			}
		}
	}
	return m, nil
}

// tableOf reads a JSON array of objects into a table: the columns in the order of their first
// appearance, each typed by its first non-null value.
func tableOf(data json.RawMessage) ([]Column, []map[string]any, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return nil, nil, err
	}
	var cols []Column
	index := map[string]int{}
	rows := make([]map[string]any, 0, len(items))
	for _, item := range items {
		keys, values, err := orderedObject(item)
		if err != nil {
			return nil, nil, err
		}
		row := make(map[string]any, len(keys))
		for i, k := range keys {
			j, seen := index[k]
			if !seen {
				j = len(cols)
				index[k] = j
				cols = append(cols, Column{Name: k})
			}
			if cols[j].Type == "" {
				cols[j].Type = typeName(values[i])
			}
			row[k] = values[i]
		}
		rows = append(rows, row)
	}
	for i := range cols {
		if cols[i].Type == "" {
			cols[i].Type = "null"
		}
	}
	return cols, rows, nil
}

// orderedObject decodes one JSON object keeping its keys' order; numbers stay json.Number, so
// their digits go to Dagster as written.
func orderedObject(data json.RawMessage) ([]string, []any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, fmt.Errorf("a sample row is not a JSON object: %.80s", data)
	}
	var keys []string
	var values []any
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, t.(string))
		values = append(values, v)
	}
	return keys, values, nil
}

func typeName(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(x.String(), ".eE") {
			return "float"
		}
		return "int"
	}
	return "json" // a nested value, sent as its JSON text
}
