package tablegate

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablegate/tablegate/exec"
	"github.com/tablegate/tablegate/history"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/report/htmlreport"
)

// publish appends the settled run to o.History and writes its page to o.HTML, unless the run
// refused them (runErr is a *exec.ReportFileError: one would overwrite data). A history that
// fails is a warning in rep; the error is the page's, which the caller asked for.
func (o Options) publish(ctx context.Context, p *Plan, in Input, rep *outcome.Report, runErr error) error {
	var refused *exec.ReportFileError
	if rep == nil || (o.HTML == "" && o.History == "") || errors.As(runErr, &refused) {
		return nil
	}
	run := report.New(rep, p, report.Facts{Input: inputText(in), Flags: o.flags()})
	if o.History != "" {
		history.Record(ctx, o.History, run, func(msg string) { rep.Warnings = append(rep.Warnings, msg) })
	}
	if o.HTML != "" {
		return htmlreport.WriteFile(o.HTML, run)
	}
	return nil
}

func inputText(in Input) string {
	if in == nil {
		return "none"
	}
	return in.String()
}

// flags are the options that differ from the defaults, for the page's run facts.
func (o Options) flags() []string {
	var out []string
	add := func(on bool, name string, v any) {
		if on {
			out = append(out, fmt.Sprintf("%s=%v", name, v))
		}
	}
	add(o.Quarantine, "Quarantine", o.Quarantine)
	add(o.Name != "", "Name", o.Name)
	add(o.MaxFailureSamples != 0, "MaxFailureSamples", o.MaxFailureSamples)
	add(o.RowSample != 0, "RowSample", o.RowSample)
	add(o.Cast, "Cast", o.Cast)
	add(o.SkipMissing, "SkipMissing", o.SkipMissing)
	add(o.Granularity != "", "Granularity", o.Granularity)
	add(o.SchemaRulesPerRule, "SchemaRulesPerRule", o.SchemaRulesPerRule)
	return out
}
