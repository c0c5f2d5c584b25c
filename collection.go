package tablegate

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablegate/tablegate/collection"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/report/htmlreport"
	"github.com/tablegate/tablegate/runner"
)

// Collection declares several related tables (members) validated together: each by its schema,
// then the collection's filters on the members' common primary key, its failure propagation and
// its references (see docs/collections.md). Build one with NewCollection or load one with
// LoadCollection.
type Collection = collection.Collection

// CollectionPlan is a compiled collection.
type CollectionPlan = compile.CollectionPlan

// CollectionReport is the report of a collection's run: its outcome and a report per member.
type CollectionReport = outcome.CollectionReport

// CollectionError is a collection's run in which a member's outcome failed; errors.As finds the
// member's typed error (*ValidationAbortError, …).
type CollectionError = outcome.CollectionError

// MemberError is a member's input or output that ended a collection's run.
type MemberError = outcome.MemberError

// Member options for Collection.Member.
var (
	Optional             = collection.Optional
	IgnoredInFilters     = collection.IgnoredInFilters
	PropagateRowFailures = collection.PropagateRowFailures
)

// NewCollection starts a collection built in Go: add members (Member), filters (OneToOne,
// OneToAtLeastOne, SQLFilter) and references (Reference), then CompileCollection.
func NewCollection(name string) *Collection { return collection.New(name) }

// LoadCollection reads a collection file (YAML or JSON) and its members' schema files and data
// contracts (ODCS, as LoadContract reads them), named relative to it. Declaration problems come
// with the collection (*SchemaErrors), a contract's at their lines of the contract: pass it to
// CompileCollection to have them all, with the SQL filters' own, or stop here. What a contract
// does not enforce exactly is in its member's Contract.Notices.
func LoadCollection(ctx context.Context, path string) (*Collection, error) {
	return collection.LoadFile(ctx, path, collection.WithContracts(loadMemberContract))
}

// CompileCollection validates the collection and compiles its members and filters; every
// declaration problem comes at once (*SchemaErrors).
func CompileCollection(ctx context.Context, c *Collection) (*CollectionPlan, error) {
	return compile.CompileCollection(ctx, c)
}

// MemberIO is a member's input and output in a collection's run. A nil Input leaves an optional
// member out; a nil Output validates the member in place.
type MemberIO struct {
	// Input is the member's rows; nil leaves an optional member out.
	Input Input
	// Output is where the member's valid rows go; nil validates it in place.
	Output Output
}

// ValidateCollection validates every member in one DuckDB session and writes the outputs all or
// none: only when every member's outcome succeeds (opts.Quarantine applies to every member;
// without it one invalid row in any member writes none). The report is always returned. The
// error is a *CollectionError when a member's outcome failed, a *MemberError when a member's
// input or output failed, or a problem with the members given (an unknown member, a required
// one without input). With opts.History every member's run is appended to the history, under
// its own run id (the collection's, a dot and the member's name; its report's `collection`
// names the collection's run). With opts.HTML the run's page is written there: the collection's
// outcome, members and filters, then a section per member (a *PageError when it cannot be).
// opts.Name and QuarantineName are single-table options and are refused.
func (e *Engine) ValidateCollection(ctx context.Context, cp *CollectionPlan, members map[string]MemberIO, opts Options) (*CollectionReport, error) {
	ca, err := opts.collectionAsset(cp, members)
	if err != nil {
		return &CollectionReport{Collection: cp.Collection.Name}, err
	}
	crep, err := e.e.RunCollection(ctx, ca, opts.run())
	var refused *runner.ReportFileError
	if crep == nil || (opts.History == "" && opts.HTML == "") || errors.As(err, &refused) {
		return crep, err
	}
	runs := map[string]*report.Run{}
	var recorded []*report.Run
	for _, m := range cp.Members {
		rep := crep.Members[m.Name]
		if rep == nil || (rep.Outcome == nil && rep.Error == nil) {
			continue // the run never got to it
		}
		run := report.New(rep, m.Plan, report.Facts{Input: inputText(members[m.Name].Input), Flags: opts.flags()})
		runs[m.Name] = run
		recorded = append(recorded, run)
	}
	if opts.History != "" {
		warn := func(msg string) {
			crep.Warnings = append(crep.Warnings, msg)
			if opts.Warnings != nil {
				fmt.Fprintf(opts.Warnings, "warning: %s\n", msg)
			}
		}
		if h, err := runner.RunHistory(); err != nil {
			warn(fmt.Sprintf("%v; the collection's run is not recorded, its outcome and outputs are unaffected", err))
		} else {
			h.RecordCollection(ctx, opts.History, crep, recorded, warn)
		}
	}
	if opts.HTML != "" {
		if perr := htmlreport.WriteCollectionFile(opts.HTML, htmlreport.Collection{Report: crep, Members: runs}); perr != nil {
			err = errors.Join(err, &PageError{Path: opts.HTML, Err: perr})
		}
	}
	return crep, err
}

// ExplainCollection prints every statement a collection's run would execute, in order: each
// member's program up to its counts, the collection's steps, each member's counts and report,
// every member's writes, the cleanup.
func (e *Engine) ExplainCollection(ctx context.Context, cp *CollectionPlan, members map[string]MemberIO, opts Options) (string, error) {
	ca, err := opts.collectionAsset(cp, members)
	if err != nil {
		return "", err
	}
	return e.e.ExplainCollection(ctx, ca, opts.run())
}

// CollectionChecks lists, per member, the checks a collection's run would report, its
// collection rules' among them, without reading data.
func CollectionChecks(cp *CollectionPlan, opts Options) map[string][]CheckSpec {
	out := map[string][]CheckSpec{}
	for _, m := range cp.Members {
		out[m.Name] = runner.CheckSpecs(m.Plan, opts.Quarantine, opts.run())
	}
	return out
}

func (o Options) collectionAsset(cp *CollectionPlan, members map[string]MemberIO) (runner.CollectionAsset, error) {
	if o.Name != "" || o.QuarantineName != "" {
		return runner.CollectionAsset{}, errors.New("a collection's run names its members after the collection: leave Options.Name and QuarantineName empty")
	}
	ca := runner.CollectionAsset{Plan: cp, Members: map[string]runner.Asset{}}
	for name, io := range members {
		ca.Members[name] = runner.Asset{Name: name, Input: io.Input, Output: io.Output, Quarantine: o.Quarantine && io.Output != nil}
	}
	return ca, nil
}
