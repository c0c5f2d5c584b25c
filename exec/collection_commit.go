package exec

import (
	"context"

	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// StagedWrite is one member's write whose temporaries are written (the Writer began and ran its
// write steps); Exec.Finish puts them in place, Exec.Abort undoes them.
type StagedWrite struct {
	Member string
	Output Output
	Exec   *runner.Execution
}

// commitMembers puts every staged write in place: in member order, and on a failure it undoes
// the writes not yet in place. A crash between two members' Finish leaves some members new and
// some old.
func commitMembers(ctx context.Context, staged []StagedWrite) error {
	for i, s := range staged {
		if err := s.Exec.Finish(ctx); err != nil {
			for _, rest := range staged[i+1:] {
				rest.Exec.Abort()
			}
			return &outcome.MemberError{Member: s.Member, Err: err}
		}
	}
	return nil
}
