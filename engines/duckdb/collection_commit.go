package duckdb

import (
	"context"
	"strings"

	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// StagedWrite is one member's write whose temporaries are written (the Writer began and ran its
// write steps); Exec.Finish records it in the run's write set, Exec.Abort undoes it.
type StagedWrite struct {
	Member string
	Output runner.Output
	Exec   *runner.Execution
}

// commitMembers puts every staged write in place, all or nothing: each member's Finish records
// its renames (a Parquet output's) in the write set, which then puts every member in place at
// once (writeSet.finish: one journal over every member's renames, or the one commit of the
// transaction every member's DuckDB tables were written in). When it fails, no member was
// written.
func commitMembers(ctx context.Context, ws *writeSet, staged []StagedWrite) error {
	for i, s := range staged {
		if err := s.Exec.Finish(ctx); err != nil {
			for _, rest := range staged[i+1:] {
				rest.Exec.Abort()
			}
			unwritten(staged)
			return &outcome.MemberError{Member: s.Member, Err: err}
		}
	}
	if err := ws.finish(ctx); err != nil {
		unwritten(staged)
		outs := make([]string, len(staged))
		for i, s := range staged {
			outs[i] = s.Output.String()
		}
		return &runner.WriteError{Err: &outcome.OutputError{Output: strings.Join(outs, ", "), Err: err}}
	}
	return nil
}

// unwritten marks every staged member as not written.
func unwritten(staged []StagedWrite) {
	for _, s := range staged {
		s.Exec.Result().Written = runner.Written{}
	}
}

// checkCollectionOutputs refuses, before anything is read, members' outputs that a collection run
// cannot write all or nothing (checkSet).
func checkCollectionOutputs(members []*memberRun) error {
	return checkSet(memberOutputs(members))
}

// memberOutputs is the members' outputs, nil for a member absent or without one.
func memberOutputs(members []*memberRun) []memberOutput {
	var outs []memberOutput
	for _, m := range members {
		if !m.absent && m.a.Output != nil {
			outs = append(outs, memberOutput{Output: m.a.Output, QuarantineName: runner.QuarantineNameOf(m.a, m.rep.Asset)})
		}
	}
	return outs
}
