package duckdb

import (
	"context"
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/duckmsg"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// blameRule finds the custom rule whose SQL raises the error the plan query raised (a value that
// does not convert, a division by zero), by evaluating each custom rule alone, and names it with
// what to do. It returns err unchanged when no single rule raises the same error. It runs only
// after a failed evaluation, so the cost of a scan per custom rule is paid only then.
func blameRule(ctx context.Context, r *run, p *compile.Plan, rel compile.Relation, err error) error {
	want := firstLine(err.Error())
	for _, rule := range p.Rules {
		if rule.Kind != "custom" && rule.Kind != "group" && rule.Kind != schema.RuleCheck {
			continue
		}
		if ctx.Err() != nil {
			return err
		}
		var n int64
		perr := r.conn.QueryRowContext(ctx, p.RuleProbe(rel, rule)).Scan(&n)
		if perr == nil || firstLine(perr.Error()) != want {
			continue
		}
		hint := "fix the rule's SQL"
		if strings.Contains(want, "Conversion Error") || strings.Contains(want, "Could not convert") {
			hint = "a value does not convert: use TRY_CAST(x AS type), which gives NULL for such a value, or fix the input"
		}
		return &RuleRuntimeError{Rule: rule.Name, Expr: rule.Expr, Hint: hint, Err: err}
	}
	return err
}

// RuleRuntimeError is a custom rule whose SQL failed on the data (not at compile time).
type RuleRuntimeError struct {
	Rule, Expr, Hint string
	Err              error
}

func (e *RuleRuntimeError) Error() string {
	return fmt.Sprintf("rule '%s' (%s) failed on the data: %s; %s", e.Rule, e.Expr, duckmsg.OnData(e.Err), e.Hint)
}

func (e *RuleRuntimeError) Unwrap() error { return e.Err }

// TypeName names the error in the JSON report.
func (e *RuleRuntimeError) TypeName() string { return "RuleRuntimeError" }

func firstLine(s string) string { return duckmsg.FirstLine(s) }

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
				return runner.NewTableCheckRuntimeError(p, i, err)
			}
		}
	}
	return runner.NewTableCheckRuntimeError(p, -1, err)
}
