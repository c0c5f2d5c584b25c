package schema

import (
	"math"
	"strings"
)

// TableCheck is a check on the whole input rather than on each row: a boolean aggregate
// (SQL, `count(*) >= 1000`), or a numeric aggregate (Metric, `avg(amount)`) with bounds and/or an
// anomaly band from the run history. It is evaluated once per run over every input row and never
// marks rows. Its SQL may read the run's rule results: invalid_rows() counts the rows failing an
// error rule, failed_rows('amount|min') the rows failing one rule.
type TableCheck struct {
	Name        string
	Description string
	// SQL is a boolean aggregate; Metric a numeric one. Exactly one is set.
	SQL    string
	Metric string
	// Spark is the same SQL (or metric) in Spark SQL, for a run on Spark; "" means it has none,
	// and the run renders the DuckDB SQL in Spark SQL when it is portable (compile/spark).
	Spark string
	// MinValue and MaxValue bound a metric (inclusive); nil leaves that side open.
	MinValue, MaxValue *float64
	// Band compares a metric with its values in earlier runs.
	Band *Anomaly
	// Level is error (the default: a failure fails the run) or warn.
	Level Severity
	pos   Pos
}

// Anomaly is a band around a metric's median in the asset's recorded runs:
// median ± Threshold × 1.4826 × MAD of the last Lookback values, one-sided with Direction up or
// down. With fewer than MinHistory earlier values the check passes and says why.
type Anomaly struct {
	Lookback   int
	MinHistory int
	Threshold  float64
	Direction  string // both (default), up, down
	// zeros are the settings a schema file gives as 0, which Go's zero value would read as
	// "the default": they are refused as -1 is.
	zeros uint8
}

// The bits of Anomaly.zeros.
const (
	zeroLookback uint8 = 1 << iota
	zeroMinHistory
	zeroThreshold
)

// Anomaly defaults, as a user who writes `anomaly: {}` gets them.
const (
	DefaultLookback   = 30
	DefaultMinHistory = 5
	DefaultThreshold  = 3.0
	// MaxLookback bounds how many earlier runs a band reads.
	MaxLookback = 10000
	// MaxThreshold bounds a band's width in scaled MADs: past it, a band is wider than anything
	// it could flag, and near 1e308 no float holds its edges.
	MaxThreshold = 1000.0
)

// Anomaly directions.
const (
	DirectionBoth = "both"
	DirectionUp   = "up"
	DirectionDown = "down"
)

// WithDefaults fills what the band leaves unset (a schema file's explicit 0 is not unset).
func (a Anomaly) WithDefaults() Anomaly {
	if a.Lookback == 0 && a.zeros&zeroLookback == 0 {
		a.Lookback = DefaultLookback
	}
	if a.MinHistory == 0 && a.zeros&zeroMinHistory == 0 {
		a.MinHistory = min(DefaultMinHistory, max(a.Lookback, 1))
	}
	if a.Threshold == 0 && a.zeros&zeroThreshold == 0 {
		a.Threshold = DefaultThreshold
	}
	if a.Direction == "" {
		a.Direction = DirectionBoth
	}
	return a
}

// Condition declares a table check that passes when the boolean aggregate sql is true.
func Condition(name, sql string) *TableCheck { return &TableCheck{Name: name, SQL: sql} }

// Metric declares a table check that reports the numeric aggregate expr; bound it with Min, Max
// or Anomaly.
func Metric(name, expr string) *TableCheck { return &TableCheck{Name: name, Metric: expr} }

// Min sets the metric's lower bound (inclusive).
func (t *TableCheck) Min(v float64) *TableCheck { t.MinValue = &v; return t }

// Max sets the metric's upper bound (inclusive).
func (t *TableCheck) Max(v float64) *TableCheck { t.MaxValue = &v; return t }

// Anomaly compares the metric with its band from the run history.
func (t *TableCheck) Anomaly(a Anomaly) *TableCheck { t.Band = &a; return t }

// WithSpark gives the check its Spark SQL form (the same aggregate in Spark SQL), for a run on Spark.
func (t *TableCheck) WithSpark(sql string) *TableCheck { t.Spark = sql; return t }

// Warn makes a failure fail the check at WARN only.
func (t *TableCheck) Warn() *TableCheck { t.Level = Warn; return t }

// Describe sets the check's description.
func (t *TableCheck) Describe(text string) *TableCheck { t.Description = text; return t }

// Pos is where the check was declared.
func (t *TableCheck) Pos() Pos { return t.pos }

// Severity is the check's severity: error unless declared warn.
func (t *TableCheck) Severity() Severity {
	if t.Level == "" {
		return Error
	}
	return t.Level
}

// AddTableCheck adds table checks to the schema.
func (s *Schema) AddTableCheck(checks ...*TableCheck) *Schema {
	s.TableChecks = append(s.TableChecks, checks...)
	return s
}

// TableCheckName is the check a table check reports as: dy_table__<name>.
func TableCheckName(name string) string { return "dy_table__" + name }

func (t *TableCheck) clone() *TableCheck {
	c := *t
	if t.MinValue != nil {
		v := *t.MinValue
		c.MinValue = &v
	}
	if t.MaxValue != nil {
		v := *t.MaxValue
		c.MaxValue = &v
	}
	if t.Band != nil {
		b := *t.Band
		c.Band = &b
	}
	return &c
}

func cloneTableChecks(checks []*TableCheck) []*TableCheck {
	if checks == nil {
		return nil
	}
	out := make([]*TableCheck, len(checks))
	for i, t := range checks {
		out[i] = t.clone()
	}
	return out
}

// tableChecks validates the table checks' declarations; their SQL is checked by the compiler.
func (v *validator) tableChecks() {
	seen := map[string]bool{}
	for _, t := range v.s.TableChecks {
		if t == nil {
			v.add(Pos{File: v.s.File}, "", "table_checks", "a table check is nil")
			continue
		}
		bad := func(key, format string, args ...any) {
			v.add(t.pos, "", "table_checks."+key, "table check '"+t.Name+"': "+format, args...)
		}
		switch low := strings.ToLower(t.Name); {
		case !nameRE.MatchString(t.Name):
			v.add(t.pos, "", "table_checks.name", "table check name %q must be letters, digits and underscores", t.Name)
		case strings.HasPrefix(low, "__tg_"):
			v.add(t.pos, "", "table_checks.name", "table check name '%s' is in the reserved '__tg_' namespace", t.Name)
		case seen[low]:
			v.add(t.pos, "", "table_checks.name", "two table checks are named '%s'", t.Name)
		}
		seen[strings.ToLower(t.Name)] = true
		hasSQL, hasMetric := strings.TrimSpace(t.SQL) != "", strings.TrimSpace(t.Metric) != ""
		switch {
		case hasSQL && hasMetric:
			bad("sql", "give either sql (a boolean aggregate) or metric (a numeric aggregate with bounds), not both")
		case !hasSQL && !hasMetric:
			bad("sql", "the check has neither sql (a boolean aggregate, `count(*) >= 1000`) nor metric (a numeric aggregate, `avg(amount)`)")
		case hasSQL && (t.MinValue != nil || t.MaxValue != nil || t.Band != nil):
			bad("sql", "min, max and anomaly bound a metric; a check with sql passes when the SQL is true")
		}
		for key, b := range map[string]*float64{"min": t.MinValue, "max": t.MaxValue} {
			switch {
			case b != nil && math.IsNaN(*b):
				bad(key, "%s is NaN; give a number", key)
			case b != nil && math.IsInf(*b, 0):
				bad(key, "%s is %v; give a finite number, or leave it out to leave that side open", key, *b)
			}
		}
		if t.MinValue != nil && t.MaxValue != nil && *t.MinValue > *t.MaxValue {
			bad("min", "min %v is above max %v", *t.MinValue, *t.MaxValue)
		}
		if t.Level != "" && !validSeverity(t.Level) {
			bad("severity", "severity is %q; use \"error\" or \"warn\"", t.Level)
		}
		if t.Band != nil {
			v.anomaly(*t.Band, bad)
		}
	}
}

func (v *validator) anomaly(a Anomaly, bad func(key, format string, args ...any)) {
	a = a.WithDefaults()
	if a.Lookback < 1 || a.Lookback > MaxLookback {
		bad("anomaly.lookback", "lookback must be from 1 to %d earlier runs (the runs the band is drawn from)", MaxLookback)
	}
	if a.MinHistory < 1 || a.MinHistory > a.Lookback {
		bad("anomaly.min_history", "min_history is %d; give at least 1 and at most lookback (%d)", a.MinHistory, a.Lookback)
	}
	if !(a.Threshold > 0) || a.Threshold > MaxThreshold {
		bad("anomaly.threshold", "threshold is %v; give a positive number of scaled MADs up to %v (3 is usual)", a.Threshold, MaxThreshold)
	}
	switch a.Direction {
	case DirectionBoth, DirectionUp, DirectionDown:
	default:
		bad("anomaly.direction", "direction is %q; use both, up or down", a.Direction)
	}
}
