package tablegate

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/report/htmlreport"
	"github.com/tablegate/tablegate/runner"
)

// publish appends the settled run to o.History and writes its page to o.HTML, unless the run
// refused them (runErr is a *runner.ReportFileError: one would overwrite data). A history that
// fails is a warning in rep (and on o.Warnings); the error is the page's, which the caller asked
// for.
func (o Options) publish(ctx context.Context, p *Plan, in Input, rep *outcome.Report, runErr error) error {
	var refused *runner.ReportFileError
	if rep == nil || (o.HTML == "" && o.History == "") || errors.As(runErr, &refused) {
		return nil
	}
	facts := report.Facts{Input: inputText(in), Flags: o.flags()}
	if o.Facts != nil {
		facts = *o.Facts
	}
	run := report.New(rep, p, facts)
	if o.History != "" {
		warnings := runner.Options{Warnings: o.Warnings}
		warn := func(msg string) { warnings.Warn(rep, msg) }
		if h, err := runner.RunHistory(); err != nil {
			warn(fmt.Sprintf("%v; the run is not recorded, its outcome and outputs are unaffected", err))
		} else {
			h.Record(ctx, o.History, run, warn)
		}
	}
	if o.HTML != "" {
		if err := htmlreport.WriteFile(o.HTML, run); err != nil {
			return &PageError{Path: o.HTML, Err: err}
		}
	}
	return nil
}

// PageError means the run's HTML page (Options.HTML) could not be written; the run itself went
// as its result says.
type PageError struct {
	Path string // the page's file (Options.HTML)
	Err  error  // why it could not be written
}

// Error says which page could not be written and why.
func (e *PageError) Error() string { return e.Err.Error() }

// Unwrap is the cause, for errors.Is and errors.As.
func (e *PageError) Unwrap() error { return e.Err }

// annotate gives a failing run's error to o.AnnotateError, and its message to the report.
func (o Options) annotate(rep *outcome.Report, err error) error {
	if err == nil || o.AnnotateError == nil {
		return err
	}
	err = o.AnnotateError(err)
	if rep != nil && rep.Error != nil {
		rep.Error.Message = err.Error()
	}
	return err
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

// WriteRunPage writes the HTML page of a recorded run (its run_id) to htmlPath, from the run
// history alone: the run's report and plan facts as recorded, with its checks' trends up to it.
// A collection's run id writes the collection's page: its outcome, members and filters, then a
// section per member.
func WriteRunPage(ctx context.Context, historyPath, runID, htmlPath string) error {
	if err := runner.CheckReportFiles(runner.Asset{}, ReportFile{Role: "the history", Path: historyPath}, ReportFile{Role: "the page", Path: htmlPath}); err != nil {
		return err
	}
	h, err := runner.RunHistory()
	if err != nil {
		return err
	}
	crep, members, err := h.LoadCollection(ctx, historyPath, runID)
	switch {
	case err == nil:
		return htmlreport.WriteCollectionFile(htmlPath, htmlreport.Collection{Report: crep, Members: members})
	case !errors.Is(err, runner.ErrNoCollectionRun):
		return err
	}
	run, err := h.Load(ctx, historyPath, runID)
	if err != nil {
		return err
	}
	return htmlreport.WriteFile(htmlPath, run)
}
