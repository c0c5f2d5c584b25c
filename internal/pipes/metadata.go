package pipes

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/tablegate/tablegate/outcome"
)

// Value is one typed metadata value: on the wire {"raw_value": ..., "type": ...}. Dagster builds
// the matching MetadataValue from the type, so a value is always sent with an explicit one (Go
// writes float64(3) as 3, which Dagster would infer as an int).
type Value struct {
	Type string
	Raw  any
}

// Metadata is a check's or a materialization's metadata by key.
type Metadata map[string]Value

func (m Metadata) wire() any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = map[string]any{"raw_value": v.Raw, "type": v.Type}
	}
	return out
}

// Text is a text value.
func Text(s string) Value { return Value{"text", s} }

// Int is an integer value.
func Int(n int64) Value { return Value{"int", n} }

// Float is a number value, always written with a fraction or an exponent: Dagster refuses a
// float written as 1, which is what Go writes for float64(1).
func Float(f float64) Value { return Value{"float", wireFloat(f)} }

type wireFloat float64

func (f wireFloat) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(float64(f))
	if err == nil && !bytes.ContainsAny(b, ".eE") {
		b = append(b, ".0"...)
	}
	return b, err
}

// Bool is a true/false value.
func Bool(b bool) Value { return Value{"bool", b} }

// Null is a null value.
func Null() Value { return Value{"null", nil} }

// JSON is a JSON value (an object or an array).
func JSON(v any) Value { return Value{"json", v} }

// Column is one column of a table value's schema.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Table is a table value. Dagster accepts only scalar cells (string, number, bool, null): a cell
// that is an object or an array is sent as its JSON text, since one such cell would stop
// Dagster's reader and lose every later message.
func Table(columns []Column, records []map[string]any) Value {
	rows := make([]map[string]any, len(records))
	for i, r := range records {
		row := make(map[string]any, len(r))
		for k, v := range r {
			row[k] = scalar(v)
		}
		rows[i] = row
	}
	return Value{"table", map[string]any{"schema": columns, "records": rows}}
}

// scalar is v when Dagster accepts it as a table cell, else its JSON text.
func scalar(v any) any {
	switch x := v.(type) {
	case nil, string, bool, int, int32, int64, json.Number:
		return v
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return outcome.NonFinite(x)
		}
		return v
	}
	data, err := json.Marshal(v)
	if err != nil {
		return "<unencodable>"
	}
	return string(data)
}
