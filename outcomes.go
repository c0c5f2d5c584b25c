package tablegate

import (
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/outcome"
)

// UnreadableValueError is a value of a CSV or NDJSON input that does not read as its column's
// declared dtype (abc or 3.7 in an Int64 column), with its file, line, column and value: the
// cause of the run's *InputError.
type UnreadableValueError = duckdb.UnreadableValueError

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
