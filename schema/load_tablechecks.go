package schema

import (
	"math/big"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tablegate/tablegate/internal/suggest"
)

var tableCheckKeys = []string{"name", "description", "sql", "metric", "spark", "min", "max", "anomaly", "severity"}

var anomalyKeys = []string{"lookback", "min_history", "threshold", "direction"}

// tableChecks reads the schema's table_checks list.
func (l *loader) tableChecks(val *yaml.Node) []*TableCheck {
	if val.Kind != yaml.SequenceNode {
		l.bad(val, "", "table_checks", "table_checks is a list of {name, sql} or {name, metric, min, max, anomaly}; got %s", kindOf(val))
		return nil
	}
	var out []*TableCheck
	for _, n := range val.Content {
		if n.Kind != yaml.MappingNode {
			l.bad(n, "", "table_checks", "a table check is a mapping with name and sql (or metric); got %s", kindOf(n))
			continue
		}
		t := &TableCheck{pos: l.pos(n)}
		for _, kv := range pairs(n) {
			key, v := kv[0], kv[1]
			switch key.Value {
			case "name":
				t.Name = l.str(v, "", "table_checks.name")
			case "description":
				t.Description = l.str(v, "", "table_checks.description")
			case "sql":
				t.SQL = l.str(v, "", "table_checks.sql")
			case "metric":
				t.Metric = l.str(v, "", "table_checks.metric")
			case "spark":
				t.Spark = l.str(v, "", "table_checks.spark")
			case "min":
				t.MinValue = l.number(v, "table_checks.min")
			case "max":
				t.MaxValue = l.number(v, "table_checks.max")
			case "severity":
				t.Level = Severity(l.str(v, "", "table_checks.severity"))
			case "anomaly":
				t.Band = l.anomaly(v)
			default:
				l.bad(key, "", "table_checks."+excerpt(key.Value), "unknown key '%s'%s; a table check takes %s",
					excerpt(key.Value), suggest.Hint(key.Value, tableCheckKeys), strings.Join(tableCheckKeys, ", "))
			}
		}
		if t.Name == "" {
			l.bad(n, "", "table_checks.name", "the table check has no name")
		}
		out = append(out, t)
	}
	return out
}

// number reads a bound: a YAML number.
func (l *loader) number(n *yaml.Node, key string) *float64 {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		l.bad(n, "", key, "%s must be a number; got %s", key, kindOf(n))
		return nil
	}
	text := strings.ToLower(strings.TrimPrefix(n.Value, "+"))
	switch text {
	case ".inf", "-.inf", ".nan":
		l.bad(n, "", key, "%s must be a finite number; leave it out to leave that side open", key)
		return nil
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(text, "_", ""), 64)
	if err != nil {
		if i, ierr := strconv.ParseInt(text, 0, 64); ierr == nil {
			f, err = float64(i), nil
		}
	}
	if err != nil {
		l.bad(n, "", key, "%s must be a number; got %s", key, excerpt(n.Value))
		return nil
	}
	// A bound is a 64-bit float; an integer it cannot hold would silently move the bound, and a
	// metric is compared with it exactly.
	if i, ok := new(big.Int).SetString(strings.ReplaceAll(text, "_", ""), 0); ok {
		if held, _ := big.NewFloat(f).Int(nil); held.Cmp(i) != 0 {
			l.bad(n, "", key, "%s %s is not a 64-bit float (integers are exact up to 2^53); the nearest is %s", key, excerpt(n.Value), held)
			return nil
		}
	}
	return &f
}

// anomaly reads an anomaly band: a mapping, or {} / true for the defaults.
func (l *loader) anomaly(n *yaml.Node) *Anomaly {
	a := &Anomaly{}
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!bool" && n.Value == "true":
		return a
	case n.Kind != yaml.MappingNode:
		l.bad(n, "", "table_checks.anomaly", "anomaly is a mapping of %s; got %s", strings.Join(anomalyKeys, ", "), kindOf(n))
		return nil
	}
	for _, kv := range pairs(n) {
		key, v := kv[0], kv[1]
		switch key.Value {
		case "lookback":
			if i, ok := l.integer(v, "", "anomaly.lookback"); ok {
				a.Lookback = clampInt(i)
				a.zeros |= zeroIf(i == 0, zeroLookback)
			}
		case "min_history":
			if i, ok := l.integer(v, "", "anomaly.min_history"); ok {
				a.MinHistory = clampInt(i)
				a.zeros |= zeroIf(i == 0, zeroMinHistory)
			}
		case "threshold":
			if f := l.number(v, "anomaly.threshold"); f != nil {
				a.Threshold = *f
				a.zeros |= zeroIf(*f == 0, zeroThreshold)
			}
		case "direction":
			a.Direction = l.str(v, "", "anomaly.direction")
		default:
			l.bad(key, "", "table_checks.anomaly."+excerpt(key.Value), "unknown key '%s'%s; anomaly takes %s",
				excerpt(key.Value), suggest.Hint(key.Value, anomalyKeys), strings.Join(anomalyKeys, ", "))
		}
	}
	return a
}

func zeroIf(zero bool, bit uint8) uint8 {
	if zero {
		return bit
	}
	return 0
}

// clampInt keeps a count in range for the validator to judge: past MaxLookback it is refused.
func clampInt(i int64) int {
	return int(max(-1, min(i, MaxLookback+1)))
}
