package main

import (
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
)

// resolveSettings layers the settings: defaults < TABLEGATE_* environment < flags.
func resolveSettings(cmd *cobra.Command, f *validateFlags) (tablegate.Options, error) {
	flags := []struct {
		flag, setting, value string
	}{
		{"granularity", tablegate.SettingCheckGranularity, f.granularity},
		{"schema-rules", tablegate.SettingSchemaRules, f.schemaRules},
		{"samples", tablegate.SettingMaxFailureSamples, strconv.Itoa(f.samples)},
		{"row-sample", tablegate.SettingRowSample, strconv.Itoa(f.rowSample)},
	}
	var given []string
	for _, fl := range flags {
		if cmd.Flags().Changed(fl.flag) {
			given = append(given, fl.setting)
		}
	}
	opts, err := optionsFromEnv(os.LookupEnv, given...)
	if err != nil {
		return opts, err
	}
	for _, fl := range flags {
		if !cmd.Flags().Changed(fl.flag) {
			continue
		}
		if err := opts.ApplySetting(fl.setting, fl.value, "flag --"+fl.flag); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

// traced sends the engine's statements to stderr when TABLEGATE_TRACE is set (whole statements
// when it is "full").
func traced(cfg *tablegate.Config, stderr io.Writer) {
	if v, ok := os.LookupEnv("TABLEGATE_TRACE"); ok && v != "" {
		cfg.Trace, cfg.TraceFull = stderr, v == "full"
	}
}
