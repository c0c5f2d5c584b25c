package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
)

// checksList is the JSON of `tablegate checks`: the checks, and what an orchestrator shows of
// the schema without a run (Dagster's code version and Columns tab).
type checksList struct {
	Schema      string                `json:"schema"`
	Fingerprint string                `json:"schema_fingerprint"`
	Columns     []checksColumn        `json:"columns"`
	Checks      []tablegate.CheckSpec `json:"checks"`
}

// checksColumn is a schema column: its dtype as the schema writes it, whether it may be null,
// whether it is part of the primary key, its description, and its rules' descriptions.
type checksColumn struct {
	Name        string   `json:"name"`
	DType       string   `json:"dtype"`
	Nullable    bool     `json:"nullable"`
	PrimaryKey  bool     `json:"primary_key"`
	Description string   `json:"description"`
	Rules       []string `json:"rules"`
}

func listColumns(plan *tablegate.Plan) []checksColumn {
	rules := map[string][]string{}
	for _, r := range plan.Rules {
		if r.Column != "" {
			rules[r.Column] = append(rules[r.Column], r.Description)
		}
	}
	cols := make([]checksColumn, 0, len(plan.Schema().Columns))
	for _, c := range plan.Schema().Columns {
		cols = append(cols, checksColumn{
			Name: c.Name, DType: c.DType.String(), Nullable: c.Args.Nullable, PrimaryKey: c.Args.PrimaryKey,
			Description: c.Args.Description, Rules: append([]string{}, rules[c.Name]...),
		})
	}
	return cols
}

func checksCmd(stdout io.Writer) *cobra.Command {
	var f validateFlags
	cmd := &cobra.Command{
		Use:   "checks --schema S [--quarantine] [--granularity rule|column|schema] [--format text|json]",
		Short: "List the checks a validate run would report (name, blocking, description, rules), without reading data",
		Example: `  tablegate checks --schema orders.yaml
  tablegate checks --schema orders.yaml --quarantine --format json
  tablegate checks --collection shop.yaml --granularity column`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.format != "text" && f.format != "json" {
				return usagef("--format %q: use text or json", f.format)
			}
			settings, err := resolveSettings(cmd, &f)
			if err != nil {
				return err
			}
			if f.collection.path != "" {
				return collectionChecks(cmd, &f, settings, stdout)
			}
			plan, err := loadPlan(cmd.Context(), f.schema)
			if err != nil {
				return err
			}
			settings.Quarantine = f.quarantine
			list := checksList{
				Schema: plan.Name, Fingerprint: tablegate.Fingerprint(plan), Columns: listColumns(plan),
				Checks: tablegate.Checks(plan, settings),
			}
			if f.format == "json" {
				data, err := indentJSON(list)
				if err != nil {
					return err
				}
				fmt.Fprintln(stdout, string(data))
				return nil
			}
			printCheckSpecs(stdout, list.Checks)
			return nil
		},
	}
	fl := cmd.Flags()
	f.schema.add(cmd)
	f.collection.add(cmd, false)
	fl.BoolVar(&f.quarantine, "quarantine", false, "the run declares a quarantine (no rule check blocks)")
	fl.StringVar(&f.granularity, "granularity", "", "checks per rule, column or schema (env TABLEGATE_CHECK_GRANULARITY; default rule)")
	fl.StringVar(&f.schemaRules, "schema-rules", "", "at column granularity: collapsed or per_rule (env TABLEGATE_SCHEMA_RULES; default collapsed)")
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	return cmd
}

// printCheckSpecs lists the checks in aligned columns: name, declared severity (ERROR when one of
// the check's rules is an error; the column check always is), whether a failure blocks, and
// the description.
func printCheckSpecs(w io.Writer, checks []tablegate.CheckSpec) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tSEVERITY\tBLOCKING\tDESCRIPTION")
	for _, c := range checks {
		sev := "WARN"
		if len(c.Rules) == 0 {
			sev = "ERROR"
		}
		for _, r := range c.Rules {
			if r.Severity != "warn" {
				sev = "ERROR"
			}
		}
		block := "no"
		if c.Blocking {
			block = "blocking"
		}
		desc := c.Description
		for _, r := range c.Rules {
			if t := r.Tolerance; t != nil {
				desc += fmt.Sprintf(" [%s tolerates %s]", r.Rule, toleranceText(t.Warn, t.Error))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Name, sev, block, desc)
	}
	_ = tw.Flush()
}

// toleranceText spells a rule's tolerance as the text outputs show it: "warn 10, error 1.5%".
func toleranceText(warn, errLimit string) string {
	var parts []string
	if warn != "" {
		parts = append(parts, "warn "+warn)
	}
	if errLimit != "" {
		parts = append(parts, "error "+errLimit)
	}
	return strings.Join(parts, ", ")
}

// collectionChecks lists the checks of every member of a collection, the collection's rules
// among them: a section per member, or JSON {collection, members: [{member, …checks list}]}.
func collectionChecks(cmd *cobra.Command, f *validateFlags, settings tablegate.Options, stdout io.Writer) error {
	if err := refuseSingleTable(cmd, "schema", "schema-root"); err != nil {
		return err
	}
	cp, err := loadCollection(cmd, f.collection.path)
	if err != nil {
		return err
	}
	settings.Quarantine = f.quarantine
	specs := tablegate.CollectionChecks(cp, settings)
	type memberChecks struct {
		Member string `json:"member"`
		checksList
	}
	out := struct {
		Collection string         `json:"collection"`
		Members    []memberChecks `json:"members"`
	}{Collection: cp.Collection.Name}
	for _, m := range cp.Members {
		out.Members = append(out.Members, memberChecks{Member: m.Name, checksList: checksList{
			Schema: m.Plan.Name, Fingerprint: tablegate.Fingerprint(m.Plan), Columns: listColumns(m.Plan), Checks: specs[m.Name]}})
	}
	if f.format == "json" {
		data, err := indentJSON(out)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(data))
		return nil
	}
	for i, m := range out.Members {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "== member %s (%s) ==\n", m.Member, m.Schema)
		printCheckSpecs(stdout, m.Checks)
	}
	return nil
}
