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

// Samples are the check's failing rows, each a JSON object whose numbers stay json.Number, so
// that no digit of a BIGINT or DECIMAL is lost on the page.
func Samples(c outcome.Check) []map[string]any {
	rows := make([]map[string]any, 0, len(c.Samples))
	for _, raw := range c.Samples {
		var row map[string]any
		if decodeNumbers(raw, &row) {
			rows = append(rows, row)
		}
	}
	return rows
}

// ColumnErrors are the columns that do not match, on a failing column check, each as the JSON
// report has it.
func ColumnErrors(c outcome.Check) []map[string]any {
	if len(c.Mismatches) == 0 {
		return nil
	}
	data, err := json.Marshal(c.Mismatches)
	if err != nil {
		return nil
	}
	var rows []map[string]any
	if !decodeNumbers(data, &rows) {
		return nil
	}
	return rows
}

func decodeNumbers(data []byte, into any) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(into) == nil
}
