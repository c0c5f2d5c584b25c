package htmlreport

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tablegate/tablegate/outcome"
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
		bounds = append(bounds, "≥ "+number(*t.Min))
	}
	if t.Max != nil {
		bounds = append(bounds, "≤ "+number(*t.Max))
	}
	if b := t.Baseline; b != nil {
		switch {
		case b.Median == nil:
			bounds = append(bounds, fmt.Sprintf("band: %d earlier runs, too few", b.Runs))
		default:
			low, high := "−∞", "+∞"
			if b.Low != nil {
				low = number(*b.Low)
			}
			if b.High != nil {
				high = number(*b.High)
			}
			bounds = append(bounds, fmt.Sprintf("band [%s, %s], median %s, MAD %s, %d runs", low, high, number(*b.Median), number(*b.MAD), b.Runs))
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
		return number(x)
	case json.Number:
		return x.String()
	}
	return fmt.Sprint(v)
}

func number(f float64) string { return strconv.FormatFloat(f, 'g', 10, 64) }
