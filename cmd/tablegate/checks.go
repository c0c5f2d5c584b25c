package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
)

// checksList is the JSON of `tablegate checks`.
type checksList struct {
	Schema string                `json:"schema"`
	Checks []tablegate.CheckSpec `json:"checks"`
}

func checksCmd(stdout io.Writer) *cobra.Command {
	var f validateFlags
	cmd := &cobra.Command{
		Use:   "checks --schema S [--quarantine] [--granularity rule|column|schema] [--format text|json]",
		Short: "List the checks a validate run would report (name, blocking, description, rules), without reading data",
		Example: `  tablegate checks --schema orders.yaml
  tablegate checks --schema orders.yaml --quarantine --format json
  tablegate checks --schema orders.yaml --granularity column --schema-rules per_rule`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.format != "text" && f.format != "json" {
				return usagef("--format %q: use text or json", f.format)
			}
			settings, err := resolveSettings(cmd, &f)
			if err != nil {
				return err
			}
			plan, err := loadPlan(cmd.Context(), f.schema)
			if err != nil {
				return err
			}
			settings.Quarantine = f.quarantine
			list := checksList{Schema: plan.Name, Checks: tablegate.Checks(plan, settings)}
			if f.format == "json" {
				data, err := json.MarshalIndent(list, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintln(stdout, string(data))
				return nil
			}
			for _, c := range list.Checks {
				block := ""
				if c.Blocking {
					block = "blocking"
				}
				fmt.Fprintf(stdout, "%-40s %-8s %s\n", c.Name, block, c.Description)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	f.schema.add(cmd)
	fl.BoolVar(&f.quarantine, "quarantine", false, "the run declares a quarantine (no rule check blocks)")
	fl.StringVar(&f.granularity, "granularity", "", "checks per rule, column or schema (env TABLEGATE_CHECK_GRANULARITY; default rule)")
	fl.StringVar(&f.schemaRules, "schema-rules", "", "at column granularity: collapsed or per_rule (env TABLEGATE_SCHEMA_RULES; default collapsed)")
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	return cmd
}
