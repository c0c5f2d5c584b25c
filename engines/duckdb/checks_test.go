package duckdb_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// Check granularity, descriptions and failure samples, beyond run_test.go (docs/report.md).

// describedSchema has a rule of every kind that has a description of its own.
func describedSchema() *schema.Schema {
	return schema.New("Orders",
		schema.String("order_id").PrimaryKey().Regex(`^ORD-\d+$`),
		schema.Int32("line_no").PrimaryKey().IsIn(1, 2, 3),
		schema.Float64("amount").Min(0),
		schema.String("email").Check("lowercase", "lower(_) = _").MaxLength(254),
		schema.String("status").Nullable().IsIn("placed", "paid"),
		schema.Datetime("placed_at", schema.Micros, "").Resolution("1h"),
		schema.List("tags", schema.String("")).Nullable(),
		schema.String("note").Nullable(),
	).AddRule("amount_is_rounded", "round(amount * 100) = amount * 100").DescribeRule("Require whole cents.").
		AddRule("paid_has_amount", "status <> 'paid' OR amount > 0")
}

func descriptions(rep *outcome.Report) map[string]string {
	out := map[string]string{}
	for _, c := range rep.Checks {
		out[c.Name] = c.Description
	}
	return out
}

func checkNamesOf(rep *outcome.Report) []string {
	var out []string
	for _, c := range rep.Checks {
		out = append(out, c.Name)
	}
	return out
}

// TestCheckDescriptions: every check has a description: a custom rule's own (else its SQL), the
// rendered constraint of a built-in rule, the key of primary_key, and for collapsed checks the
// list of their members.
func TestCheckDescriptions(t *testing.T) {
	t.Parallel()
	rep, err := run(t, describedSchema(), runner.Asset{}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"dy_schema__columns":               "Columns and dtypes match Orders.",
		"dy_rule__amount_is_rounded":       "Require whole cents.",
		"dy_rule__paid_has_amount":         "status <> 'paid' OR amount > 0",
		"dy_rule__primary_key":             "PK: order_id, line_no",
		"dy_rule__order_id__nullability":   "order_id not null",
		"dy_rule__order_id__regex":         `order_id matches ^ORD-\d+$`,
		"dy_rule__line_no__nullability":    "line_no not null",
		"dy_rule__line_no__is_in":          "line_no in (1, 2, 3)",
		"dy_rule__amount__nullability":     "amount not null",
		"dy_rule__amount__min":             "amount >= 0",
		"dy_rule__amount__inf":             "amount not infinite",
		"dy_rule__amount__nan":             "amount not NaN",
		"dy_rule__email__nullability":      "email not null",
		"dy_rule__email__check__lowercase": "email: lower(_) = _",
		"dy_rule__email__max_length":       "email length <= 254 bytes",
		"dy_rule__status__is_in":           "status in (placed, paid)",
		"dy_rule__placed_at__nullability":  "placed_at not null",
		"dy_rule__placed_at__resolution":   "placed_at aligned to 1h",
		"dy_rule__tags__inner_nullability": "tags elements not null",
	}, descriptions(rep))

	rep, err = run(t, describedSchema(), runner.Asset{}, runner.Options{Granularity: runner.PerColumn})
	require.NoError(t, err)
	assert.Equal(t, []string{"dy_schema__columns", "dy_col__order_id", "dy_col__line_no", "dy_col__amount", "dy_col__email",
		"dy_col__status", "dy_col__placed_at", "dy_col__tags", "dy_schema__rules"}, checkNamesOf(rep), "note has no rules")
	assert.Equal(t, map[string]string{
		"dy_schema__columns": "Columns and dtypes match Orders.",
		"dy_col__order_id":   `Every rule on order_id: not null, matches ^ORD-\d+$.`,
		"dy_col__line_no":    "Every rule on line_no: not null, in (1, 2, 3).",
		"dy_col__amount":     "Every rule on amount: not null, >= 0, not infinite, not NaN.",
		"dy_col__email":      "Every rule on email: not null, lowercase, length <= 254 bytes.",
		"dy_col__status":     "Every rule on status: in (placed, paid).",
		"dy_col__placed_at":  "Every rule on placed_at: not null, aligned to 1h.",
		"dy_col__tags":       "Every rule on tags: elements not null.",
		"dy_schema__rules":   "Every schema-level rule of Orders: amount_is_rounded, paid_has_amount, primary_key.",
	}, descriptions(rep))

	rep, err = run(t, describedSchema(), runner.Asset{}, runner.Options{Granularity: runner.PerColumn, SchemaRulesPerRule: true})
	require.NoError(t, err)
	d := descriptions(rep)
	assert.Equal(t, "Require whole cents.", d["dy_rule__amount_is_rounded"])
	assert.Equal(t, "PK: order_id, line_no", d["dy_rule__primary_key"])

	rep, err = run(t, describedSchema(), runner.Asset{}, runner.Options{Granularity: runner.PerSchema})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"dy_schema__columns": "Columns and dtypes match Orders.",
		"dy_schema__rules":   "Every rule of Orders.",
	}, descriptions(rep))
}

// TestNestedDescriptions: nested rules say which value they check, relative to the column in a
// collapsed check.
func TestNestedDescriptions(t *testing.T) {
	t.Parallel()
	s := schema.New("Nested",
		schema.List("tags", schema.String("").MinLength(2).Unique()).MaxLength(5),
		schema.Struct("address",
			schema.String("city").MinLength(1),
			schema.Struct("geo", schema.Float64("lat").Min(-90).AllowInf().AllowNaN()).Nullable(),
		).Nullable(),
		schema.List("lines", schema.Struct("", schema.String("sku").PrimaryKey(), schema.Int32("qty").Nullable().Min(1))).Nullable(),
		schema.List("a", schema.List("", schema.String("").MinLength(2)).Nullable()).Nullable(),
		schema.Struct("s1",
			schema.Struct("s2", schema.String("a").Nullable().MinLength(3)).Nullable(),
			schema.List("s3", schema.Struct("", schema.String("a").Nullable().MinLength(3)).Nullable()).Nullable(),
		).Nullable(),
		schema.List("ids", schema.Int64("").PrimaryKey().Check("positive", "_ > 0")).Nullable(),
		schema.Array("grid", schema.Int8("").Nullable().IsIn(0, 1), 2, 2).Nullable(),
	)
	rep, err := run(t, s, runner.Asset{}, runner.Options{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"dy_schema__columns":                                "Columns and dtypes match Nested.",
		"dy_rule__tags__nullability":                        "tags not null",
		"dy_rule__tags__max_length":                         "tags length <= 5 elements",
		"dy_rule__tags__inner_nullability":                  "tags elements not null",
		"dy_rule__tags__inner_unique":                       "tags elements unique within each list",
		"dy_rule__tags__inner_min_length":                   "tags elements length >= 2 bytes",
		"dy_rule__address__inner_city_nullability":          "address.city not null",
		"dy_rule__address__inner_city_min_length":           "address.city length >= 1 bytes",
		"dy_rule__address__inner_geo_inner_lat_nullability": "address.geo.lat not null",
		"dy_rule__address__inner_geo_inner_lat_min":         "address.geo.lat >= -90",
		"dy_rule__lines__primary_key":                       "lines elements distinct by sku",
		"dy_rule__lines__inner_nullability":                 "lines elements not null",
		"dy_rule__lines__inner_inner_sku_nullability":       "lines elements' sku not null",
		"dy_rule__lines__inner_inner_qty_min":               "lines elements' qty >= 1",
		"dy_rule__a__inner_inner_min_length":                "a elements' elements length >= 2 bytes",
		"dy_rule__a__inner_inner_nullability":               "a elements' elements not null",
		"dy_rule__s1__inner_s2_inner_a_min_length":          "s1.s2.a length >= 3 bytes",
		"dy_rule__s1__inner_s3_inner_inner_a_min_length":    "s1.s3 elements' a length >= 3 bytes",
		"dy_rule__ids__inner_nullability":                   "ids elements not null",
		"dy_rule__ids__primary_key":                         "ids elements distinct",
		"dy_rule__ids__inner_check__positive":               "ids elements: _ > 0",
		"dy_rule__grid__inner_is_in":                        "grid elements in (0, 1)",
	}, descriptions(rep))

	rep, err = run(t, s, runner.Asset{}, runner.Options{Granularity: runner.PerColumn})
	require.NoError(t, err)
	d := descriptions(rep)
	assert.Equal(t, "Every rule on tags: not null, length <= 5 elements, elements not null, elements unique within each list, elements length >= 2 bytes.", d["dy_col__tags"])
	assert.Equal(t, "Every rule on address: city not null, city length >= 1 bytes, geo.lat not null, geo.lat >= -90.", d["dy_col__address"])
	assert.Equal(t, "Every rule on lines: elements distinct by sku, elements not null, elements' sku not null, elements' qty >= 1.", d["dy_col__lines"])
	assert.Equal(t, "Every rule on ids: elements distinct, elements not null, elements positive.", d["dy_col__ids"])
	assert.Equal(t, "Every rule on s1: s2.a length >= 3 bytes, s3 elements' a length >= 3 bytes.", d["dy_col__s1"])
	for _, c := range rep.Checks {
		assert.NotEmpty(t, c.Description, c.Name)
	}
}

// gateSchema mixes severities within a column. Rules in order:
//
//	ok|nullability, a|nullability, a|min (error), w|max_length (warn), m|nullability, m|min (error),
//	m|max (warn)
func gateSchema() *schema.Schema {
	return schema.New("Gate",
		schema.Int64("ok"),
		schema.Int64("a").Min(0),
		schema.String("w").Nullable().MaxLength(2).Severity(schema.Warn),
		schema.Int64("m").Min(0).Max(10).SeverityOf("max", schema.Warn),
		schema.String("free").Nullable(),
	)
}

func gateSelect(values string) string {
	return "SELECT ok::BIGINT AS ok, a::BIGINT AS a, w::VARCHAR AS w, m::BIGINT AS m, free::VARCHAR AS free FROM (VALUES " +
		values + ") AS t(ok, a, w, m, free)"
}

// TestCollapsedSeverityAndBlocking: a collapsed check is blocking when there is no quarantine and
// a member is an error rule; it fails at ERROR when a failing member is an error rule, with or
// without a quarantine, else at WARN (also when it passes).
func TestCollapsedSeverityAndBlocking(t *testing.T) {
	t.Parallel()
	E, W := outcome.SeverityError, outcome.SeverityWarn
	for _, tc := range []struct {
		name       string
		rows       string
		quarantine bool
		out        outcome.Outcome
		want       []chk
	}{
		{
			// m fails only its warn rule: WARN although it has an error member and the run aborts.
			name: "aborted", rows: `(1, -1, 'abc', 11, NULL), (2, 1, NULL, 1, NULL)`, out: outcome.Aborted,
			want: []chk{{"dy_schema__columns", true, E, true}, {"dy_col__ok", true, W, true}, {"dy_col__a", false, E, true},
				{"dy_col__w", false, W, false}, {"dy_col__m", false, W, true}},
		},
		{
			name: "aborted on the mixed column", rows: `(1, 1, NULL, -1, NULL), (2, 1, NULL, 1, NULL)`, out: outcome.Aborted,
			want: []chk{{"dy_schema__columns", true, E, true}, {"dy_col__ok", true, W, true}, {"dy_col__a", true, W, true},
				{"dy_col__w", true, W, false}, {"dy_col__m", false, E, true}},
		},
		{
			name: "quarantined", rows: `(1, -1, 'abc', 11, NULL), (2, 1, NULL, 1, NULL)`, quarantine: true, out: outcome.Quarantined,
			want: []chk{{"dy_schema__columns", true, E, true}, {"dy_col__ok", true, W, false}, {"dy_col__a", false, E, false},
				{"dy_col__w", false, W, false}, {"dy_col__m", false, W, false}},
		},
		{
			name: "no valid rows", rows: `(1, -1, 'abc', 11, NULL), (2, 1, NULL, -1, NULL)`, quarantine: true, out: outcome.NoValidRows,
			want: []chk{{"dy_schema__columns", true, E, true}, {"dy_col__ok", true, W, false}, {"dy_col__a", false, E, false},
				{"dy_col__w", false, W, false}, {"dy_col__m", false, E, false}},
		},
		{
			name: "warn rules only", rows: `(1, 1, 'abc', 11, NULL)`, out: outcome.AllValid,
			want: []chk{{"dy_schema__columns", true, E, true}, {"dy_col__ok", true, W, true}, {"dy_col__a", true, W, true},
				{"dy_col__w", false, W, false}, {"dy_col__m", false, W, true}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			a := runner.Asset{Input: runner.ParquetInput{Path: e.parquet("raw.parquet", gateSelect(tc.rows))}}
			if tc.quarantine {
				a.Output, a.Quarantine = runner.ParquetOutput{Path: e.path("out", "gate.parquet")}, true
			}
			rep, _ := run(t, gateSchema(), a, runner.Options{Granularity: runner.PerColumn})
			require.Equal(t, tc.out, outcomeOf(rep))
			assert.Equal(t, tc.want, summary(rep))
			health := outcome.Warning
			for _, c := range tc.want {
				if !c.Passed && c.Severity == E {
					health = outcome.Degraded
				}
			}
			assert.Equal(t, health, rep.Health)

			// The same at schema granularity: one check, every member.
			rep, _ = run(t, gateSchema(), a, runner.Options{Granularity: runner.PerSchema})
			sev := W
			blocking := !tc.quarantine
			for _, c := range tc.want[1:] {
				if !c.Passed && c.Severity == E {
					sev = E
				}
			}
			assert.Equal(t, []chk{{"dy_schema__columns", true, E, true}, {"dy_schema__rules", false, sev, blocking}}, summary(rep))
			assert.Len(t, metadata(t, rep, "dy_schema__rules")["dataframely/rules"], 7)
		})
	}
}

// TestCollapsedSamples: the failing rows of a collapsed check, each led by a dy_rule field naming
// the member it failed, members in rule order and rows in input order, at most N in all; 0
// disables them while the counts stay.
func TestCollapsedSamples(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", gateSelect(
		`(1, 1, NULL, 11, 'x'), (2, 1, NULL, -1, NULL), (3, 1, NULL, 12, NULL), (4, 1, NULL, -2, NULL), (5, 1, NULL, 5, NULL)`))}
	raw := func(t *testing.T, rep *outcome.Report, name string) string {
		for _, c := range rep.Checks {
			if c.Name == name {
				data, err := json.Marshal(c.Samples)
				require.NoError(t, err)
				return string(data)
			}
		}
		t.Fatalf("no check %s", name)
		return ""
	}
	rep, err := run(t, gateSchema(), runner.Asset{Input: in}, runner.Options{Granularity: runner.PerColumn})
	require.Error(t, err)
	assert.Equal(t, `[{"dy_rule":"m|min","ok":2,"a":1,"w":null,"m":-1,"free":null},`+
		`{"dy_rule":"m|min","ok":4,"a":1,"w":null,"m":-2,"free":null},`+
		`{"dy_rule":"m|max","ok":1,"a":1,"w":null,"m":11,"free":"x"},`+
		`{"dy_rule":"m|max","ok":3,"a":1,"w":null,"m":12,"free":null}]`, raw(t, rep, "dy_col__m"))
	m := metadata(t, rep, "dy_col__m")
	assert.Equal(t, 4.0, m["dataframely/failed_row_count"], "rows failing any member")
	assert.Equal(t, parseJSON(t, `[{"rule": "m|nullability", "failed": 0, "expr": "\"m\" IS NOT NULL"},
		{"rule": "m|min", "failed": 2, "expr": "\"m\" >= 0"},
		{"rule": "m|max", "failed": 2, "expr": "\"m\" <= 10"}]`), m["dataframely/rules"])
	assert.NotContains(t, metadata(t, rep, "dy_col__a"), "dataframely/failed_examples")

	rep, err = run(t, gateSchema(), runner.Asset{Input: in}, runner.Options{Granularity: runner.PerSchema, MaxFailureSamples: 3})
	require.Error(t, err)
	assert.Equal(t, `[{"dy_rule":"m|min","ok":2,"a":1,"w":null,"m":-1,"free":null},`+
		`{"dy_rule":"m|min","ok":4,"a":1,"w":null,"m":-2,"free":null},`+
		`{"dy_rule":"m|max","ok":1,"a":1,"w":null,"m":11,"free":"x"}]`, raw(t, rep, "dy_schema__rules"))

	rep, err = run(t, gateSchema(), runner.Asset{Input: in}, runner.Options{Granularity: runner.PerSchema, MaxFailureSamples: -1})
	require.Error(t, err)
	m = metadata(t, rep, "dy_schema__rules")
	assert.NotContains(t, m, "dataframely/failed_examples")
	assert.Equal(t, 4.0, m["dataframely/failed_row_count"])
}

// TestSamplesSchemaColumnsOnly: samples and row samples hold the schema's columns in the schema's
// order whatever the input's order and extra columns, and rows in input order.
func TestSamplesSchemaColumnsOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	db := e.path("wh.duckdb")
	e.table(db, "raw", "SELECT 'secret' AS extra, free, m, w, a, ok FROM ("+gateSelect(
		`(1, -1, NULL, 1, 'x'), (2, 1, NULL, 1, NULL), (3, -3, 'abc', 1, NULL), (4, -4, NULL, 1, NULL)`)+")")
	rep, err := run(t, gateSchema(), runner.Asset{Input: runner.TableInput{File: db, Table: "raw"}}, runner.Options{MaxFailureSamples: 2, RowSample: 1})
	require.Error(t, err)
	i := slices.IndexFunc(rep.Checks, func(c outcome.Check) bool { return c.Name == "dy_rule__a__min" })
	require.GreaterOrEqual(t, i, 0, "no check dy_rule__a__min")
	data, err := json.Marshal(rep.Checks[i].Samples)
	require.NoError(t, err)
	assert.Equal(t, `[{"ok":1,"a":-1,"w":null,"m":1,"free":"x"},{"ok":3,"a":-3,"w":"abc","m":1,"free":null}]`, string(data))
	data, err = json.Marshal(map[string]any{"valid": rep.ValidSample, "invalid": rep.InvalidSample})
	require.NoError(t, err)
	assert.Equal(t, `{"invalid":[{"ok":1,"a":-1,"w":null,"m":1,"free":"x"}],"valid":[{"ok":2,"a":1,"w":null,"m":1,"free":null}]}`, string(data))
	assert.Equal(t, []outcome.RuleSet{{Rules: "dy_rule__a__min", Count: 2}, {Rules: "dy_rule__a__min, dy_rule__w__max_length", Count: 1}}, rep.InvalidByRules)
}

// TestColumnNamedSchema: a column named `schema` has its own dy_col__schema, distinct from
// dy_schema__rules; the quarantine keeps one column per rule at every granularity.
func TestColumnNamedSchema(t *testing.T) {
	t.Parallel()
	s := schema.New("Named",
		schema.String("schema").MinLength(2),
		schema.Int64("n").Nullable(),
	).AddRule("n_small", "n < 10")
	rows := `('ok', 1), ('x', 2), ('fine', 20), ('good', 3)`
	sel := "SELECT s::VARCHAR AS schema, n::BIGINT AS n FROM (VALUES " + rows + ") AS t(s, n)"
	wantQuar := [][]any{
		{"x", int64(2), "valid", "valid", "invalid"},
		{"fine", int64(20), "invalid", "valid", "valid"},
	}
	for _, tc := range []struct {
		opts  runner.Options
		names []string
	}{
		{runner.Options{}, []string{"dy_schema__columns", "dy_rule__n_small", "dy_rule__schema__nullability", "dy_rule__schema__min_length"}},
		{runner.Options{Granularity: runner.PerColumn}, []string{"dy_schema__columns", "dy_col__schema", "dy_schema__rules"}},
		{runner.Options{Granularity: runner.PerColumn, SchemaRulesPerRule: true}, []string{"dy_schema__columns", "dy_col__schema", "dy_rule__n_small"}},
		{runner.Options{Granularity: runner.PerSchema}, []string{"dy_schema__columns", "dy_schema__rules"}},
	} {
		name := string(tc.opts.Granularity)
		if tc.opts.SchemaRulesPerRule {
			name += "_per_rule"
		}
		t.Run("g"+name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			db := e.path("wh.duckdb")
			e.table(db, "raw", sel)
			rep, err := run(t, s, runner.Asset{Input: runner.TableInput{File: db, Table: "raw"}, Output: runner.TableOutput{File: db, Table: "named"}, Quarantine: true}, tc.opts)
			require.NoError(t, err)
			assert.Equal(t, tc.names, checkNamesOf(rep))
			rows, cols, ok := e.tableRows(db, "named_quarantine")
			require.True(t, ok)
			assert.Equal(t, []string{"schema VARCHAR", "n BIGINT", "dy_rule__n_small VARCHAR", "dy_rule__schema__nullability VARCHAR", "dy_rule__schema__min_length VARCHAR"}, cols)
			assert.Equal(t, wantQuar, rows)
			if tc.opts.Granularity == runner.PerColumn {
				assert.Equal(t, parseJSON(t, `[{"rule": "schema|nullability", "failed": 0, "expr": "\"schema\" IS NOT NULL"},
					{"rule": "schema|min_length", "failed": 1, "expr": "strlen(\"schema\") >= 2"}]`), metadata(t, rep, "dy_col__schema")["dataframely/rules"])
				assert.Equal(t, "Every rule on schema: not null, length >= 2 bytes.", descriptions(rep)["dy_col__schema"])
			}
		})
	}
}

// TestSchemaGranularityColumnRulesOnly: without schema-level rules, schema granularity still gives
// one dy_schema__rules and column granularity none.
func TestSchemaGranularityColumnRulesOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := schema.New("Cols", schema.Int64("a").Min(0), schema.String("b").Nullable(), schema.Int64("c").Max(5))
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", "SELECT 1::BIGINT AS a, NULL::VARCHAR AS b, 9::BIGINT AS c")}
	rep, err := run(t, s, runner.Asset{Input: in}, runner.Options{Granularity: runner.PerSchema})
	require.Error(t, err)
	assert.Equal(t, []chk{{"dy_schema__columns", true, outcome.SeverityError, true}, {"dy_schema__rules", false, outcome.SeverityError, true}}, summary(rep))
	m := metadata(t, rep, "dy_schema__rules")
	assert.Len(t, m["dataframely/rules"], 4)
	assert.Equal(t, 1.0, m["dataframely/failed_row_count"])

	rep, err = run(t, s, runner.Asset{Input: in}, runner.Options{Granularity: runner.PerColumn})
	require.Error(t, err)
	assert.Equal(t, []string{"dy_schema__columns", "dy_col__a", "dy_col__c"}, checkNamesOf(rep))
}

// TestSettingsAsArguments: settings given in Go (the Options fields) are validated too, naming the
// setting, the value, the field and what is allowed; nothing is read or written.
func TestSettingsAsArguments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", ordersSelect(allValidRows))}
	out := runner.ParquetOutput{Path: e.path("out", "orders.parquet")}
	for _, tc := range []struct {
		opts runner.Options
		want runner.SettingError
	}{
		{runner.Options{Granularity: "table"}, runner.SettingError{Setting: "check_granularity", Value: "table", Source: "argument Options.Granularity", Allowed: "rule, column or schema"}},
		{runner.Options{RowSample: -2}, runner.SettingError{Setting: "row_sample", Value: "-2", Source: "argument Options.RowSample", Allowed: "a whole number from 0 up"}},
	} {
		rep, err := run(t, ordersSchema(), runner.Asset{Input: in, Output: out}, tc.opts)
		var se *runner.SettingError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, tc.want, *se)
		assert.Equal(t, `setting `+tc.want.Setting+`: "`+tc.want.Value+`" (from `+tc.want.Source+`) is not allowed; use `+tc.want.Allowed, err.Error())
		assert.Nil(t, rep.Outcome)
		assert.Equal(t, "SettingError", rep.Error.Type)
		assert.False(t, exists(t, out.Path))
	}
	// The zero value and every documented value are fine.
	for _, g := range []runner.Granularity{"", runner.PerRule, runner.PerColumn, runner.PerSchema} {
		_, err := run(t, ordersSchema(), runner.Asset{Input: in}, runner.Options{Granularity: g, MaxFailureSamples: -1})
		require.NoError(t, err, g)
	}
}

// TestSamplesReadNoMoreThanNeeded: a collapsed check stops reading samples once it has N rows
// (sampleTakes, in pipeline_internal_test.go, gives the rows each rule gives), the reports show
// N rows a check, and N = 0 reads none: no statement picks samples. Watched through the
// engine's trace, which has every statement.
func TestSamplesReadNoMoreThanNeeded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Every row fails a|min; even rows fail m|min, odd ones m|max.
	in := runner.ParquetInput{Path: e.parquet("raw.parquet", "SELECT i::BIGINT AS ok, -i::BIGINT AS a, NULL::VARCHAR AS w, "+
		"CASE WHEN i % 2 = 0 THEN -1 ELSE 11 END::BIGINT AS m, NULL::VARCHAR AS free FROM range(1, 1001) t(i)")}
	sampled := func(opts runner.Options) (bool, *outcome.Report) {
		rep, trace, err := runTraced(t, gateSchema(), runner.Asset{Input: in}, opts)
		require.Error(t, err) // every row is invalid and there is no quarantine
		// The statement that picks samples (the failing values' statement also unnests a list).
		return strings.Contains(trace, "SELECT k, CAST(__tg_rid AS VARCHAR)"), rep
	}
	picked, rep := sampled(runner.Options{Granularity: runner.PerSchema, MaxFailureSamples: 3})
	assert.True(t, picked)
	assert.Len(t, metadata(t, rep, "dy_schema__rules")["dataframely/failed_examples"], 3)
	_, rep = sampled(runner.Options{Granularity: runner.PerColumn, MaxFailureSamples: 3})
	assert.Len(t, metadata(t, rep, "dy_col__m")["dataframely/failed_examples"], 3)
	_, rep = sampled(runner.Options{MaxFailureSamples: 3})
	assert.Len(t, metadata(t, rep, "dy_rule__m__max")["dataframely/failed_examples"], 3)
	picked, rep = sampled(runner.Options{MaxFailureSamples: -1})
	assert.False(t, picked)
	assert.Equal(t, 1000.0, metadata(t, rep, "dy_rule__a__min")["dataframely/failed_row_count"])
}

// TestFileSchemasReadOnlyForSeveralFiles: the per-file type check reads every file's schema,
// which a single file does not need (its one schema is the relation's).
func TestFileSchemasReadOnlyForSeveralFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.parquet("parts/a.parquet", "SELECT i::BIGINT AS ok, i::BIGINT AS a, NULL::VARCHAR AS w, 5::BIGINT AS m, NULL::VARCHAR AS free FROM range(1, 11) t(i)")
	e.parquet("parts/b.parquet", "SELECT i::BIGINT AS ok, i::BIGINT AS a, NULL::VARCHAR AS w, 5::BIGINT AS m, NULL::VARCHAR AS free FROM range(11, 21) t(i)")
	for _, c := range []struct {
		path  string
		reads bool
	}{{e.path("parts", "a.parquet"), false}, {e.path("parts", "*.parquet"), true}} {
		_, trace, err := runTraced(t, gateSchema(), runner.Asset{Input: runner.ParquetInput{Path: c.path}}, runner.Options{})
		require.NoError(t, err)
		assert.Equal(t, c.reads, strings.Contains(trace, "FROM parquet_schema("), c.path)
	}
}
