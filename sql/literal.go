package sql

import (
	"fmt"

	"github.com/tablegate/tablegate/schema"
)

// Literal renders a parsed rule argument as a DuckDB literal of the column's dtype, so that the
// comparison happens in the column's own type: FLOAT bounds as FLOAT (0.1f <= 0.1 holds),
// decimals exactly, temporal values with their unit and zone.
func Literal(d schema.DType, p schema.Parsed) string {
	switch k := d.Kind; {
	case k.IsInteger():
		return p.Text
	case k == schema.KindFloat32:
		return fmt.Sprintf("CAST(%s AS FLOAT)", String(p.Text))
	case k.IsFloat():
		return fmt.Sprintf("CAST(%s AS DOUBLE)", String(p.Text))
	case k == schema.KindDecimal:
		return fmt.Sprintf("CAST(%s AS %s)", String(p.Text), decimalType(d, p.Text))
	case k == schema.KindDate:
		return "DATE " + String(p.Text)
	case k == schema.KindTime:
		return "TIME " + String(p.Text)
	case k == schema.KindDatetime:
		if d.TimeZone != "" {
			if d.TimeUnit == schema.Nanos {
				return "TIMESTAMPTZ_NS " + String(p.Text)
			}
			return "TIMESTAMPTZ " + String(p.Text)
		}
		switch d.TimeUnit {
		case schema.Millis:
			return "TIMESTAMP_MS " + String(p.Text)
		case schema.Nanos:
			return "TIMESTAMP_NS " + String(p.Text)
		}
		return "TIMESTAMP " + String(p.Text)
	case k == schema.KindDuration:
		return fmt.Sprintf("to_microseconds(%s)", p.Text)
	}
	return String(p.Text)
}

// decimalType is the declared DECIMAL type, or, when the schema leaves precision open, the
// narrowest type that holds the literal: DuckDB widens to a common type, so the comparison stays
// exact either way.
func decimalType(d schema.DType, text string) string {
	if d.Precision > 0 {
		return fmt.Sprintf("DECIMAL(%d,%d)", d.Precision, d.Scale)
	}
	digits := 0
	for _, r := range text {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	p := max(digits, d.Scale+1)
	if p > 38 {
		p = 38
	}
	return fmt.Sprintf("DECIMAL(%d,%d)", p, d.Scale)
}
