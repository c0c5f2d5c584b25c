package duckdb_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// tolerantRows: 10 rows, amount|min fails 2 (b, d: 20%), note|max_length (warn) fails 1.
const tolerantRows = `('a', 1.0, NULL), ('b', -1.0, NULL), ('c', 2.0, 'toolong'), ('d', -1.0, NULL), ('e', 3.0, NULL), ` +
	`('f', 4.0, NULL), ('g', 5.0, NULL), ('h', 6.0, NULL), ('i', 7.0, NULL), ('j', 8.0, NULL)`

func tolerantSchema(amount schema.Tolerance) *schema.Schema {
	return schema.New("Orders",
		schema.String("id").PrimaryKey(),
		schema.Float64("amount").Min(0).ToleranceOf("min", amount),
		schema.String("note").Nullable().MaxLength(5).Severity(schema.Warn).Tolerance(schema.Tolerance{Warn: schema.Rows(1)}),
	)
}

// TestTolerance pins how a tolerance judges a rule's check and where the rows go, with and without
// a quarantine, for limits as rows and as shares, at and beyond them.
func TestTolerance(t *testing.T) {
	cases := []struct {
		name       string
		tol        schema.Tolerance
		quarantine bool
		out        outcome.Outcome
		passed     bool
		severity   outcome.Severity
		table      int // rows written to the table (-1: not written)
		quarant    int // rows written to the quarantine (-1: not written)
		health     outcome.Health
		errType    string
	}{
		{"error tolerance, no quarantine: the rows stay, WARN", schema.Tolerance{Error: schema.Rows(2)}, false, outcome.AllValid, false, outcome.SeverityWarn, 10, -1, outcome.Warning, ""},
		{"error tolerance as a share, at the limit", schema.Tolerance{Error: schema.Share(0.2)}, false, outcome.AllValid, false, outcome.SeverityWarn, 10, -1, outcome.Warning, ""},
		{"beyond the error tolerance, no quarantine: aborts", schema.Tolerance{Error: schema.Share(0.19)}, false, outcome.Aborted, false, outcome.SeverityError, -1, -1, outcome.Degraded, "ValidationAbortError"},
		{"error tolerance with a quarantine: quarantined, WARN", schema.Tolerance{Error: schema.Rows(5)}, true, outcome.Quarantined, false, outcome.SeverityWarn, 8, 2, outcome.Warning, ""},
		{"beyond it with a quarantine: ERROR", schema.Tolerance{Error: schema.Rows(1)}, true, outcome.Quarantined, false, outcome.SeverityError, 8, 2, outcome.Degraded, ""},
		{"warn tolerance: passes, the rows stay", schema.Tolerance{Warn: schema.Rows(2), Error: schema.Rows(3)}, false, outcome.AllValid, true, outcome.SeverityWarn, 10, -1, outcome.Healthy, ""},
		{"warn tolerance with a quarantine: passes, quarantined", schema.Tolerance{Warn: schema.Share(0.5)}, true, outcome.Quarantined, true, outcome.SeverityWarn, 8, 2, outcome.Healthy, ""},
		{"a zero tolerance is none", schema.Tolerance{Error: schema.Rows(0)}, false, outcome.Aborted, false, outcome.SeverityError, -1, -1, outcome.Degraded, "ValidationAbortError"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			out := e.path("orders.parquet")
			rep, err := run(t, tolerantSchema(c.tol), runner.Asset{
				Input:  runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(tolerantRows))},
				Output: runner.ParquetOutput{Path: out}, Quarantine: c.quarantine,
			}, runner.Options{})
			if c.errType == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				require.Equal(t, c.errType, rep.Error.Type)
			}
			require.Equal(t, c.out, outcomeOf(rep))
			require.Equal(t, c.health, rep.Health)
			amount, note := checkNamed(rep, "dy_rule__amount__min"), checkNamed(rep, "dy_rule__note__max_length")
			require.Equal(t, c.passed, amount.Passed, amount.ResultDescription)
			require.Equal(t, c.severity, amount.Severity)
			require.Equal(t, int64(2), amount.Failed)
			require.NotNil(t, amount.Share)
			require.InDelta(t, 0.2, *amount.Share, 1e-12)
			require.NotNil(t, amount.Tolerance)
			// The warn rule's one failure is within its warn tolerance of 1 row.
			require.True(t, note.Passed, note.ResultDescription)
			require.Equal(t, int64(1), note.Failed)
			require.Contains(t, note.ResultDescription, "Within the warn tolerance of 1 row.")
			if c.table < 0 {
				require.False(t, exists(t, out))
			} else {
				require.Len(t, e.parquetRows(out), c.table)
			}
			if q := e.path("orders_quarantine.parquet"); c.quarant < 0 {
				require.False(t, exists(t, q))
			} else {
				require.Len(t, e.parquetRows(q), c.quarant)
			}
			m := metadata(t, rep, "dy_rule__amount__min")
			require.Equal(t, 0.2, m["tablegate/failed_share"])
			require.NotNil(t, m["tablegate/tolerance"])
		})
	}
}

// TestToleranceDeclaration refuses tolerances that mean nothing, each with its position.
func TestToleranceDeclaration(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"negative", "tolerance: {error: -1}", "is -1 rows; a limit is 0 rows or more"},
		{"share above 1", "tolerance: {error: 150%}", "a share is from 0% to 100% of the input"},
		{"both", "tolerance: {error: {rows: 3, share: 0.1}}", "gives both rows and a share"},
		{"a fraction", "tolerance: {error: 0.01}", "is not a whole number of rows; for a share of the input write 0.01% or {share: 0.01}"},
		{"unknown rule", "tolerance: {minimum: {error: 3}}", "names 'minimum', which is not one of its rules; they are 'nullability', 'min', 'inf', 'nan'"},
		{"error on a warn rule", "severity: {min: warn}\n    tolerance: {min: {error: 3}}", "the rule is warn and never fails at ERROR"},
		{"warn above error", "tolerance: {warn: 5, error: 3}", "warn (5) is above its error (3)"},
		{"unknown level", "tolerance: {min: {fail: 3}}", "unknown key 'fail'; a tolerance has warn and error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "schema: S\ncolumns:\n  - name: amount\n    type: Float64\n    min: 0\n    " + c.yaml + "\n"
			s, err := schema.Parse([]byte(src), "s.yaml")
			if err == nil {
				err = s.Validate()
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
			require.Contains(t, err.Error(), "s.yaml:")
			var errs *schema.Errors
			require.True(t, errors.As(err, &errs))
		})
	}
	good := "schema: S\ncolumns:\n  - name: amount\n    type: Float64\n    min: 0\n    tolerance: {min: {warn: 3, error: 1.5%}, nullable: {error: {rows: 2}}}\n" +
		"  - name: note\n    type: String\n    max_length: 3\n    severity: {max_length: warn}\n    tolerance: {error: 5}\n" +
		"  - name: id\n    type: Int64\n    primary_key: true\ntolerance: {primary_key: {error: '0.5%'}}\n"
	s, err := schema.Parse([]byte(good), "s.yaml")
	require.NoError(t, err)
	require.NoError(t, s.Validate())
	names := s.Columns[0].RuleNames()
	require.Equal(t, "{warn: 3, error: 1.5%}", s.Columns[0].Args.Tolerance.Of("min", names).String())
	require.Equal(t, "{error: 2}", s.Columns[0].Args.Tolerance.Of("nullability", names).String())
	require.Equal(t, "{error: 0.5%}", s.Tolerance.Of("primary_key", s.SchemaRuleNames()).String())
	// A column's one error tolerance applies to its error rules; its warn rule gets none.
	p, err := compile.Compile(s)
	require.NoError(t, err)
	for _, r := range p.Rules {
		switch r.Name {
		case "note|nullability":
			require.Equal(t, "{error: 5}", r.Tolerance.String())
		case "note|max_length":
			require.True(t, r.Tolerance.IsZero(), r.Tolerance.String())
		}
	}
}

// TestFailingValues pins a column check's most frequent failing values: counted over its failing
// rows, most frequent first, ties by value, NULL as null, at most five; none on a passing check.
func TestFailingValues(t *testing.T) {
	s := schema.New("Orders",
		schema.String("id").PrimaryKey(),
		schema.Float64("amount").Min(0),
		schema.String("note").Nullable().IsIn("ok", "fine").Severity(schema.Warn),
	)
	rows := `('a', -1.0, 'x'), ('b', -1.0, 'x'), ('c', -2.0, 'y'), ('d', -3.0, 'é"'), ('e', -4.0, 'x'), ('f', -5.0, NULL), ` +
		`('g', -6.0, 'ok'), ('h', -7.0, 'z'), ('a', 1.0, 'w')`
	e := newEnv(t)
	rep, err := run(t, s, runner.Asset{Input: runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(rows))}}, runner.Options{})
	require.Error(t, err)
	values := map[string]any{}
	for _, c := range rep.Checks {
		values[c.Name] = jsonValue(t, c.FailingValues)
	}
	require.Equal(t, parseJSON(t, `[{"count":2,"value":-1},{"count":1,"value":-2},{"count":1,"value":-3},{"count":1,"value":-4},{"count":1,"value":-5}]`), values["dy_rule__amount__min"])
	require.Equal(t, parseJSON(t, `[{"count":3,"value":"x"},{"count":1,"value":"w"},{"count":1,"value":"y"},{"count":1,"value":"z"},{"count":1,"value":"é\""}]`), values["dy_rule__note__is_in"])
	require.Nil(t, values["dy_rule__primary_key"], "a schema-level rule has no column")
	require.Nil(t, values["dy_rule__id__nullability"])
	m := metadata(t, rep, "dy_rule__amount__min")
	require.Len(t, m["tablegate/failing_values"], 5)
	require.InDelta(t, 8.0/9, m["tablegate/failed_share"], 1e-12)
}

// TestConditionShowsItsSides: a condition that is one comparison reports both sides' values, and
// a freshness check how old the newest row is; another condition reports its truth alone.
func TestConditionShowsItsSides(t *testing.T) {
	s := schema.New("Events",
		schema.Int64("id"),
		schema.Datetime("seen_at", schema.Micros, ""),
	).AddTableCheck(
		schema.Condition("fresh", "max(seen_at) >= now() - INTERVAL 1 DAY"),
		schema.Condition("enough", "count(*) >= 1 AND count(*) < 100"),
		schema.Condition("fresh_warn", "max(seen_at) >= now() - INTERVAL 1 DAY").Warn(),
	)
	e := newEnv(t)
	in := e.parquet("raw.parquet", "SELECT 1::BIGINT AS id, CAST(now() - INTERVAL 50 HOUR AS TIMESTAMP) AS seen_at UNION ALL "+
		"SELECT 2, CAST(now() - INTERVAL 51 HOUR AS TIMESTAMP)")
	rep, err := run(t, s, runner.Asset{Input: runner.ParquetInput{Path: in}}, runner.Options{})
	var tce *outcome.TableCheckError
	require.ErrorAs(t, err, &tce)
	fresh, enough := checkNamed(rep, "dy_table__fresh"), checkNamed(rep, "dy_table__enough")
	require.NotNil(t, fresh.Table)
	require.Len(t, fresh.Table.Compared, 2)
	newest := fresh.Table.Compared[0]
	require.Equal(t, "max(seen_at)", newest.Expr)
	require.NotNil(t, newest.AgeS)
	require.InDelta(t, 50*3600, *newest.AgeS, 120, "the newest row is 50 hours old")
	require.Nil(t, fresh.Table.Compared[1].AgeS)
	require.Regexp(t, `^max\(seen_at\) >= now\(\) - INTERVAL 1 DAY is false: max\(seen_at\) is \S+ \S+, 2 days 2 hours old; .+ is .+`, fresh.ResultDescription)
	require.Contains(t, tce.Error(), "2 days 2 hours old")
	require.Empty(t, enough.Table.Compared, "a conjunction is not one comparison")
	m := metadata(t, rep, "dy_table__fresh")
	require.Len(t, m["tablegate/compared"], 2)
}

// checkNamed is the report's check of that name (the zero check when it has none).
func checkNamed(rep *outcome.Report, name string) outcome.Check {
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	return outcome.Check{}
}
