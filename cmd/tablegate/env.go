package main

import (
	"slices"
	"strings"

	"github.com/tablegate/tablegate"
)

// envName is the environment variable of a setting: TABLEGATE_CHECK_GRANULARITY.
func envName(setting string) string { return "TABLEGATE_" + strings.ToUpper(setting) }

// optionsFromEnv reads the settings from TABLEGATE_* environment variables over the defaults,
// except those named in skip (given by a higher tier, such as a flag).
func optionsFromEnv(lookup func(string) (string, bool), skip ...string) (tablegate.Options, error) {
	var o tablegate.Options
	for _, s := range []string{tablegate.SettingCheckGranularity, tablegate.SettingSchemaRules, tablegate.SettingMaxFailureSamples, tablegate.SettingRowSample} {
		if slices.Contains(skip, s) {
			continue
		}
		if v, ok := lookup(envName(s)); ok && v != "" {
			if err := o.ApplySetting(s, v, "environment variable "+envName(s)); err != nil {
				return o, err
			}
		}
	}
	return o, nil
}
