package duckdb

import (
	"context"
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/duckmsg"
	"github.com/tablegate/tablegate/runner"
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

// tableCheckRuntimeError names the plan's i-th table check as raising err (i < 0: none alone
// did), with what to do.
func tableCheckRuntimeError(p *compile.Plan, i int, err error) *TableCheckRuntimeError {
	msg := firstLine(err.Error())
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

// blameTableCheck finds the table check whose SQL raises the error the table checks' statement
// raised, by evaluating each alone over the input (with the rule counts res read), and names it.
// It runs only after the statement failed, so the cost of a scan per check is paid only then.
func blameTableCheck(ctx context.Context, r *run, p *compile.Plan, rel compile.Relation, res *runner.Result, err error) error {
	if ctx.Err() != nil {
		return err
	}
	if len(p.TableChecks) > 1 {
		want := firstLine(err.Error())
		counts := append([]int64{res.Invalid}, res.Failed...)
		for i := range p.TableChecks {
			q, readsCounts := p.TableCheckProbe(rel, i)
			var args []any
			if readsCounts {
				args = append(args, counts)
			}
			var v any
			perr := r.conn.QueryRowContext(ctx, q, args...).Scan(&v)
			if ctx.Err() != nil {
				return err
			}
			if perr != nil && firstLine(perr.Error()) == want {
				return tableCheckRuntimeError(p, i, err)
			}
		}
	}
	return tableCheckRuntimeError(p, -1, err)
}
