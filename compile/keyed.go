package compile

// Keyed reports whether the rule reads a failing-keys aggregate (unique, primary_key, group rules
// and aggregate checks) rather than its row alone. Another engine's dialect renders the plan's
// rules from the schema and needs to know which custom rules DuckDB's binder found aggregating.
func (r Rule) Keyed() bool { return r.group >= 0 }
