package tablegate

import "github.com/tablegate/tablegate/schema"

// Table checks judge the whole input, once per run: add them with Schema.AddTableCheck.
type (
	// TableCheck is a check on the whole input: a boolean aggregate (Condition) or a numeric one
	// with bounds or an anomaly band (Metric).
	TableCheck = schema.TableCheck
	// Anomaly is a metric's band from the run history (Options.History).
	Anomaly = schema.Anomaly
)

// Condition declares a table check that passes when the boolean aggregate sql is true:
// `count(*) >= 1000`, `invalid_rows() <= 0.05 * count(*)`.
func Condition(name, sql string) *TableCheck { return schema.Condition(name, sql) }

// Metric declares a table check that reports the numeric aggregate expr (`avg(amount)`); bound
// it with Min, Max or Anomaly.
func Metric(name, expr string) *TableCheck { return schema.Metric(name, expr) }
