package report

import (
	"bytes"
	"encoding/json"

	"github.com/tablegate/tablegate/outcome"
)

// Trend is a check's recent history, oldest run first.
type Trend struct {
	Failed []int64 `json:"failed"`
	Passed []bool  `json:"passed"`
	// LastPassed is the start (RFC 3339) of the newest run in which the check passed; "" when
	// none did.
	LastPassed string `json:"last_passed"`
	// Values are a table check's metric per run, null where a run has none; absent for checks
	// without values.
	Values []*float64 `json:"values,omitempty"`
}

// FailedCount is how many rows failed the check (0 when it passed or is the column check).
func FailedCount(c outcome.Check) int64 {
	v, ok := c.Metadata[outcome.MetaFailedRowCount]
	if !ok {
		return 0
	}
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case float64: // a report read back from JSON
		return int64(n)
	case json.Number:
		i, _ := n.Int64()
		return i
	}
	return 0
}

// Samples are the check's failing rows, each a JSON object.
func Samples(c outcome.Check) []map[string]any { return objects(c, outcome.MetaFailedExamples) }

// ColumnErrors are the columns that do not match, on a failing column check.
func ColumnErrors(c outcome.Check) []map[string]any {
	return objects(c, outcome.MetaColumnSchemaErrors)
}

// objects reads a metadata value that is a list of JSON objects; nil when absent or not one.
func objects(c outcome.Check, key string) []map[string]any {
	v, ok := c.Metadata[key]
	if !ok {
		return nil
	}
	var rows []map[string]any
	if !remarshal(v, &rows) {
		return nil
	}
	return rows
}

// remarshal converts v, of whatever Go types the report holds it in, through its JSON form;
// numbers stay json.Number, so that no digit of a BIGINT or DECIMAL is lost on the page.
func remarshal(v, into any) bool {
	data, err := json.Marshal(v)
	if err != nil {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(into) == nil
}
