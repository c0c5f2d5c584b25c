package duckdb

import (
	"context"
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/duckmsg"
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
