package tablegate

import (
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
)

// ErrorInfo is a failing run's error in the report (Report.Error): its type, as ErrorType names
// it, and its message.
type ErrorInfo = outcome.ErrorInfo

// CollectionOutcome is the result of a collection's run as a whole.
type CollectionOutcome = outcome.CollectionOutcome

// The outcomes of a collection's run: passed when every member's outcome succeeds (then every
// member's output is written), failed when one does not (then none is).
const (
	CollectionPassed = outcome.CollectionPassed
	CollectionFailed = outcome.CollectionFailed
)

// The kinds (Plan.Rules' Kind) of the rules a collection adds to its members' plans, whose
// results its run's steps set: a filter's, the propagation of another member's failures, a
// reference's.
const (
	KindFilter      = compile.KindFilter
	KindPropagation = compile.KindPropagation
	KindReference   = compile.KindReference
)
