package outcome_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tablegate/tablegate/outcome"
)

// TestSeverityAndBlocking: the severity is the rule's, whatever the quarantine; only blocking
// depends on it.
func TestSeverityAndBlocking(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                                string
		errorRuleFailed, quarantine, hasErr bool
		severity                            outcome.Severity
		blocking                            bool
	}{
		{"error rule failed, no quarantine", true, false, true, outcome.SeverityError, true},
		{"error rule failed, quarantine", true, true, true, outcome.SeverityError, false},
		{"only a warn rule failed, no quarantine", false, false, true, outcome.SeverityWarn, true},
		{"warn rules only, no quarantine", false, false, false, outcome.SeverityWarn, false},
		{"passed, quarantine", false, true, true, outcome.SeverityWarn, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.severity, outcome.FailedSeverity(tt.errorRuleFailed), tt.name)
		assert.Equal(t, tt.blocking, outcome.Blocks(tt.quarantine, tt.hasErr), tt.name)
	}
}

func TestResultDescriptions(t *testing.T) {
	t.Parallel()
	tests := []struct{ got, want string }{
		{outcome.RowsDescription(0), "No row failed."},
		{outcome.RowsDescription(1), "1 row failed."},
		{outcome.RowsDescription(2), "2 rows failed."},
		{outcome.RowsDescription(1 << 40), "1099511627776 rows failed."},
		{outcome.ColumnsDescription(nil), "Every column matches."},
		{outcome.ColumnsDescription([]string{"größe"}), "1 column does not match: größe."},
		{outcome.ColumnsDescription([]string{"customer_id", "email"}), "2 columns do not match: customer_id, email."},
		{outcome.RulesDescription(nil), "No rule failed."},
		{outcome.RulesDescription([]outcome.RuleFailure{{"amount|nullability", 0}, {"amount|min", 0}}), "No rule failed."},
		{outcome.RulesDescription([]outcome.RuleFailure{{"amount|nullability", 0}, {"amount|min", 2}}), "1 rule failed: amount|min (2 rows)."},
		{outcome.RulesDescription([]outcome.RuleFailure{{"amount|min", 1}, {"amount|nan", 0}, {"primary_key", 3}}),
			"2 rules failed: amount|min (1 row), primary_key (3 rows)."},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.got)
	}
}

func TestMarkErrorRows(t *testing.T) {
	t.Parallel()
	checks := []outcome.Check{{Name: "a"}, {Name: "b", Rule: "x|min"}}
	outcome.MarkErrorRows(checks, "out/orders__error_rows.parquet")
	for _, c := range checks {
		assert.Equal(t, "out/orders__error_rows.parquet", c.ErrorRowsAddress, c.Name)
	}
	assert.Equal(t, "x|min", checks[1].Rule, "other results are kept")
}

// TestHealthFollowsSeverity: a quarantined run whose error rule failed is Degraded.
func TestHealthFollowsSeverity(t *testing.T) {
	t.Parallel()
	pass := outcome.Check{Passed: true, Severity: outcome.SeverityWarn}
	warn := outcome.Check{Severity: outcome.FailedSeverity(false)}
	quarantinedErr := outcome.Check{Severity: outcome.FailedSeverity(true), Blocking: outcome.Blocks(true, true)}
	assert.Equal(t, outcome.Healthy, outcome.HealthOf([]outcome.Check{pass}))
	assert.Equal(t, outcome.Healthy, outcome.HealthOf(nil))
	assert.Equal(t, outcome.Warning, outcome.HealthOf([]outcome.Check{pass, warn}))
	assert.Equal(t, outcome.Degraded, outcome.HealthOf([]outcome.Check{warn, quarantinedErr}))
}
