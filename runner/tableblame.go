package runner

import (
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/duckmsg"
)

// TableCheckRuntimeError is a table check whose SQL failed on the data (not at compile time): a
// value that does not convert, a division by zero, an overflow. The run has no outcome: the
// table checks decide it, and one of them could not be evaluated.
type TableCheckRuntimeError struct {
	// Check is the failing check (dy_table__boom); Checks every check of the run when no one of
	// them alone raised the error (then Check is "").
	Check  string
	Checks []string
	// SQL is the check's SQL as written ("" with Checks).
	SQL, Hint string
	Err       error
}

func (e *TableCheckRuntimeError) Error() string {
	what := fmt.Sprintf("table check '%s' (%s)", e.Check, e.SQL)
	if e.Check == "" {
		what = "the table checks " + strings.Join(e.Checks, ", ")
	}
	return fmt.Sprintf("%s failed on the data: %s; %s. Nothing was written, and the run has no outcome", what,
		duckmsg.OnData(e.Err), e.Hint)
}

func (e *TableCheckRuntimeError) Unwrap() error { return e.Err }

// TypeName names the error in the JSON report.
func (e *TableCheckRuntimeError) TypeName() string { return "TableCheckRuntimeError" }

// NewTableCheckRuntimeError names the plan's i-th table check as raising err (i < 0: none alone
// did), with what to do.
func NewTableCheckRuntimeError(p *compile.Plan, i int, err error) *TableCheckRuntimeError {
	msg := duckmsg.FirstLine(err.Error())
	hint := "fix the check's SQL: try(x) gives NULL where x raises an error (a division by zero, an overflow, a date out of range)"
	if strings.Contains(msg, "Could not convert") {
		hint = "a value does not convert: use TRY_CAST(x AS type), which gives NULL for such a value, or fix the input"
	}
	e := &TableCheckRuntimeError{Hint: hint, Err: err}
	if i < 0 && len(p.TableChecks) == 1 {
		i = 0
	}
	if i >= 0 {
		e.Check, e.SQL = p.TableChecks[i].Check, p.TableChecks[i].Text
		return e
	}
	for _, t := range p.TableChecks {
		e.Checks = append(e.Checks, t.Check)
	}
	return e
}
