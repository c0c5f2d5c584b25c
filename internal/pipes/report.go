package pipes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/tablegate/tablegate/outcome"
)

// ReportPayloadKey is the key of the custom message that carries the whole JSON report.
const ReportPayloadKey = "tablegate_report"

// SendReport sends a run's report to Dagster: one report_asset_check per check, a
// report_asset_materialization only when the table was written, and the whole JSON report as a
// custom message. It sends what it can and returns the first error.
func (s *Session) SendReport(assetKey string, rep *outcome.Report) error {
	first := s.SendAssetResults(assetKey, rep)
	if err := s.ReportCustomMessage(map[string]any{ReportPayloadKey: rep}); first == nil {
		first = err
	}
	return first
}

// SendCollectionReport sends a collection run's report: each member's checks and
// materialization under its asset key (assetKeys by member; a member without one sends
// nothing), then the whole collection report as the custom message.
func (s *Session) SendCollectionReport(assetKeys map[string]string, rep *outcome.CollectionReport) error {
	var first error
	for _, name := range rep.MemberOrder {
		key, ok := assetKeys[name]
		if m := rep.Members[name]; ok && m != nil {
			if err := s.SendAssetResults(key, m); first == nil {
				first = err
			}
		}
	}
	if err := s.ReportCustomMessage(map[string]any{ReportPayloadKey: rep}); first == nil {
		first = err
	}
	return first
}

// SendAssetResults sends one asset's results: a report_asset_check per check and a
// report_asset_materialization when the table was written. It sends what it can and returns the
// first error.
func (s *Session) SendAssetResults(assetKey string, rep *outcome.Report) error {
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
		cols, rows, err := tableOf(rep.ValidSample)
		if err != nil {
			return m, fmt.Errorf("dagster pipes: the valid rows' sample: %w", err)
		}
		m[MetaPreview] = Table(cols, rows)
	}
	return m, nil
}

// MetaPreview is the materialization metadata key of the valid rows' sample.
const MetaPreview = "tablegate/preview"

// CheckMetadata types a check's results for Dagster under the keys of the JSON report: counts
// as int, the rule, its SQL and the quarantine's address as text, samples and column errors as
// tables, the members of a collapsed check and a table check's value, bounds and band as JSON.
func CheckMetadata(c outcome.Check) (Metadata, error) {
	m := Metadata{}
	if len(c.Mismatches) > 0 {
		items := make([]json.RawMessage, len(c.Mismatches))
		for i, mm := range c.Mismatches {
			items[i], _ = json.Marshal(mm) // strings only: it cannot fail
		}
		cols, rows, err := tableOf(items)
		if err != nil {
			return nil, fmt.Errorf("dagster pipes: check %s: %s: %w", c.Name, outcome.MetaColumnSchemaErrors, err)
		}
		m[outcome.MetaColumnSchemaErrors] = Table(cols, rows)
	}
	if c.ErrorRowsAddress != "" {
		m[outcome.MetaErrorRowsAddress] = Text(c.ErrorRowsAddress)
	}
	if len(c.Samples) > 0 {
		cols, rows, err := tableOf(c.Samples)
		if err != nil {
			return nil, fmt.Errorf("dagster pipes: check %s: %s: %w", c.Name, outcome.MetaFailedExamples, err)
		}
		m[outcome.MetaFailedExamples] = Table(cols, rows)
	}
	if c.Failed > 0 {
		m[outcome.MetaFailedRowCount] = Int(c.Failed)
	}
	if c.Share != nil {
		m[outcome.MetaFailedShare] = Float(*c.Share)
	}
	if len(c.FailingValues) > 0 {
		items := make([]json.RawMessage, len(c.FailingValues))
		for i, v := range c.FailingValues {
			items[i], _ = json.Marshal(v) // a count and a JSON value: it cannot fail
		}
		cols, rows, err := tableOf(items)
		if err != nil {
			return nil, fmt.Errorf("dagster pipes: check %s: %s: %w", c.Name, outcome.MetaFailingValues, err)
		}
		m[outcome.MetaFailingValues] = Table(cols, rows)
	}
	if c.Tolerance != nil {
		m[outcome.MetaTolerance] = JSON(c.Tolerance)
	}
	if c.Rule != "" {
		m[outcome.MetaRule] = Text(c.Rule)
	}
	if c.Rule != "" || c.Table != nil {
		m[outcome.MetaRuleExpr] = Text(c.Expr)
	}
	if len(c.Rules) > 0 {
		m[outcome.MetaRules] = JSON(c.Rules)
	}
	if t := c.Table; t != nil {
		// Dagster takes only objects and arrays as JSON: a scalar is sent as its own type.
		m[outcome.MetaValue] = valueOf(t.Value)
		if t.Min != nil {
			m[outcome.MetaMin] = number(*t.Min)
		}
		if t.Max != nil {
			m[outcome.MetaMax] = number(*t.Max)
		}
		if t.Baseline != nil {
			m[outcome.MetaBaseline] = JSON(t.Baseline)
		}
		if len(t.Compared) > 0 {
			m[outcome.MetaCompared] = JSON(t.Compared)
		}
	}
	return m, nil
}

// number is a whole number as int, others as float: JSON writes 100000.0 as 100000, which
// Dagster refuses as a float.
func number(f float64) Value {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return Int(int64(f))
	}
	return Float(f)
}

// valueOf types a table check's value: a number, a truth, NULL, or text (NaN, infinities).
func valueOf(v any) Value {
	switch x := v.(type) {
	case nil:
		return Null()
	case bool:
		return Bool(x)
	case float64:
		return number(x)
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return number(f)
		}
		return Text(x.String())
	case string:
		return Text(x)
	}
	return Text(fmt.Sprint(v))
}

// tableOf reads JSON objects into a table: the columns in the order of their first appearance,
// each typed by its first non-null value.
func tableOf(items []json.RawMessage) ([]Column, []map[string]any, error) {
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
