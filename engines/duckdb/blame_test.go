package duckdb_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestRuleRuntimeErrorNamesTheRule: a custom rule whose SQL fails on the data is named in the
// error, a rule over groups or over the whole input too, and the data's text is quoted only in
// part.
func TestRuleRuntimeErrorNamesTheRule(t *testing.T) {
	long := strings.Repeat("secret-cell-text ", 20)
	input := runner.QueryInput{SQL: "SELECT * FROM (VALUES ('a', '1'), ('b', '" + long + "')) AS t(k, s)"}
	base := func() *schema.Schema { return schema.New("T", schema.String("k"), schema.String("s")) }
	cases := []struct {
		name, rule string
		s          *schema.Schema
	}{
		{"row rule", "as_number", base().AddRule("as_number", "CAST(s AS INTEGER) > 0")},
		{"group rule", "group_sum", base().AddGroupRule("group_sum", "sum(CAST(s AS INTEGER)) > 0", "k")},
		{"whole-input aggregate", "total", base().AddRule("total", "sum(CAST(s AS INTEGER)) > 0")},
		{"column check", "s|check__num", schema.New("T", schema.String("k"), schema.String("s").Check("num", "CAST(_ AS INTEGER) > 0"))},
	}
	eng, err := duckdb.Open(duckdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := compile.Compile(tc.s)
			if err != nil {
				t.Fatal(err)
			}
			_, err = eng.Run(context.Background(), runner.Asset{Plan: plan, Input: input}, runner.Options{})
			var rre *duckdb.RuleRuntimeError
			if !errors.As(err, &rre) {
				t.Fatalf("error %T %v, want a RuleRuntimeError", err, err)
			}
			if rre.Rule != tc.rule {
				t.Errorf("the error blames %q, want %q", rre.Rule, tc.rule)
			}
			msg := err.Error()
			if !strings.Contains(msg, "rule '"+tc.rule+"'") || !strings.Contains(msg, "TRY_CAST") {
				t.Errorf("message %q does not name the rule and what to do", msg)
			}
			if strings.Count(msg, "secret-cell-text") > 2 {
				t.Errorf("the message pastes the cell's whole text: %s", msg)
			}
		})
	}
}
