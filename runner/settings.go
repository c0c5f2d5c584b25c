package runner

import (
	"fmt"
	"strconv"
)

// SettingError is a setting with a value tablegate cannot use. It names the setting, the value,
// where the value came from, and what is allowed.
type SettingError struct {
	Setting string
	Value   string
	Source  string // "environment variable TABLEGATE_ROW_SAMPLE", "flag --samples", "argument Options.RowSample"
	Allowed string
	Err     error // DuckDB's refusal, for the DuckDB settings Open makes; nil for tablegate's own
}

func (e *SettingError) Error() string {
	msg := fmt.Sprintf("setting %s: %q (from %s) is not allowed; use %s", e.Setting, e.Value, e.Source, e.Allowed)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *SettingError) Unwrap() error { return e.Err }

// Setting names, as ApplySetting takes them (and the CLI's environment variables after
// TABLEGATE_).
const (
	SettingCheckGranularity  = "check_granularity"
	SettingSchemaRules       = "schema_rules"
	SettingMaxFailureSamples = "max_failure_samples"
	SettingRowSample         = "row_sample"
)

// ApplySetting sets one setting on opts from its text, validating it; source says where the
// text came from, for the error.
func (o *Options) ApplySetting(setting, value, source string) error {
	bad := func(allowed string) error {
		return &SettingError{Setting: setting, Value: value, Source: source, Allowed: allowed}
	}
	switch setting {
	case SettingCheckGranularity:
		switch g := Granularity(value); g {
		case PerRule, PerColumn, PerSchema:
			o.Granularity = g
		default:
			return bad("rule, column or schema")
		}
	case SettingSchemaRules:
		switch value {
		case "collapsed":
			o.SchemaRulesPerRule = false
		case "per_rule":
			o.SchemaRulesPerRule = true
		default:
			return bad("collapsed or per_rule")
		}
	case SettingMaxFailureSamples, SettingRowSample:
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return bad("a whole number from 0 up")
		}
		if setting == SettingRowSample {
			o.RowSample = n
		} else if n == 0 {
			o.MaxFailureSamples = -1
		} else {
			o.MaxFailureSamples = n
		}
	default:
		return fmt.Errorf("unknown setting %q", setting)
	}
	return nil
}

// Validate checks the settings given as Go arguments (the Options fields), as ApplySetting checks
// them as text: a run with a setting it cannot use fails before reading anything.
func (o Options) Validate() error {
	var scratch Options
	if o.Granularity != "" {
		if err := scratch.ApplySetting(SettingCheckGranularity, string(o.Granularity), "argument Options.Granularity"); err != nil {
			return err
		}
	}
	return scratch.ApplySetting(SettingRowSample, strconv.Itoa(o.RowSample), "argument Options.RowSample")
}

// TypeName names the error in the JSON report.
func (e *SettingError) TypeName() string { return "SettingError" }
