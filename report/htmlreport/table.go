package htmlreport

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
)

// tableRow is a table check on the page: its value against its bounds or band.
type tableRow struct {
	Name, Description, Result string
	Passed                    bool
	Severity                  outcome.Severity
	Value, Bound              string
	Contract                  []outcome.ContractQuality
}

// newTableRow lays out a table check (c.Table is set).
func newTableRow(c outcome.Check) tableRow {
	t := c.Table
	row := tableRow{Name: c.Name, Description: c.Description, Result: c.ResultDescription, Passed: c.Passed, Severity: c.Severity,
		Value: tableValue(t.Value), Bound: "–", Contract: c.Contract}
	var bounds []string
	if t.Min != nil {
		bounds = append(bounds, "≥ "+report.Number(*t.Min))
	}
	if t.Max != nil {
		bounds = append(bounds, "≤ "+report.Number(*t.Max))
	}
	if b := t.Baseline; b != nil {
		switch {
		case b.Median == nil:
			bounds = append(bounds, fmt.Sprintf("band: %d earlier runs, too few", b.Runs))
		default:
			low, high := "−∞", "+∞"
			if b.Low != nil {
				low = report.Number(*b.Low)
			}
			if b.High != nil {
				high = report.Number(*b.High)
			}
			bounds = append(bounds, fmt.Sprintf("band [%s, %s], median %s, MAD %s, %d runs", low, high, report.Number(*b.Median), report.Number(*b.MAD), b.Runs))
		}
	}
	if len(bounds) > 0 {
		row.Bound = strings.Join(bounds, "; ")
	}
	return row
}

func tableValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case float64:
		return report.Number(x)
	case json.Number:
		return x.String()
	}
	return fmt.Sprint(v)
}
