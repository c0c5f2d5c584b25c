package tablegate_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tablegate/tablegate"
)

func openEngine(t *testing.T) *tablegate.Engine {
	t.Helper()
	eng, err := tablegate.Open(tablegate.Config{TempDirectory: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	return eng
}

func compileSchema(t *testing.T, s *tablegate.Schema) *tablegate.Plan {
	t.Helper()
	p, err := tablegate.Compile(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The typed result carries what the report's metadata holds, for single-rule and collapsed checks.
func TestResultChecks(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t)
	plan := compileSchema(t, tablegate.NewSchema("Orders",
		tablegate.Int64("id").PrimaryKey(),
		tablegate.Float64("amount").Min(0).Max(100),
	))
	rows := tablegate.FromQuery(`SELECT * FROM (VALUES (1::BIGINT, 5.0::DOUBLE), (2, -1.0), (2, 200.0), (4, 7.0)) t(id, amount)`)

	share := func(f float64) *float64 { return &f }
	tests := []struct {
		name  string
		opts  tablegate.Options
		check string
		want  tablegate.Check // Samples compared by count only
		nSamp int
	}{
		{"rule", tablegate.Options{}, "dy_rule__amount__max",
			tablegate.Check{Name: "dy_rule__amount__max", Description: "amount <= 100", Severity: tablegate.CheckError, Declared: tablegate.CheckError, Blocking: true,
				ResultDescription: "1 row failed.", Failed: 1, Rule: "amount|max", Share: share(0.25),
				FailingValues: []tablegate.ValueCount{{Count: 1, Value: json.RawMessage("200.0")}}}, 1},
		{"rule quarantined", tablegate.Options{Quarantine: true}, "dy_rule__primary_key",
			tablegate.Check{Name: "dy_rule__primary_key", Description: "PK: id", Severity: tablegate.CheckError, Declared: tablegate.CheckError,
				ResultDescription: "2 rows failed.", Failed: 2, Rule: "primary_key", Share: share(0.5)}, 2},
		{"passing", tablegate.Options{Quarantine: true}, "dy_rule__id__nullability",
			tablegate.Check{Name: "dy_rule__id__nullability", Description: "id not null", Passed: true, Severity: tablegate.CheckWarn, Declared: tablegate.CheckError,
				ResultDescription: "No row failed.", Rule: "id|nullability"}, 0},
		{"collapsed", tablegate.Options{RunOptions: tablegate.RunOptions{Granularity: tablegate.PerColumn, MaxFailureSamples: 1}}, "dy_col__amount",
			tablegate.Check{Name: "dy_col__amount", Severity: tablegate.CheckError, Declared: tablegate.CheckError, Blocking: true, Failed: 2, Share: share(0.5),
				ResultDescription: "2 rules failed: amount|min (1 row), amount|max (1 row).",
				Rules: []tablegate.RuleResult{
					{Rule: "amount|nullability", Failed: 0},
					{Rule: "amount|min", Failed: 1},
					{Rule: "amount|max", Failed: 1},
					{Rule: "amount|inf", Failed: 0},
					{Rule: "amount|nan", Failed: 0},
				}}, 1},
	}
	// The rules' SQL is the plan's.
	exprs := map[string]string{}
	for _, r := range plan.Rules {
		exprs[r.Name] = r.Expr
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want.Rule != "" {
				tt.want.Expr = exprs[tt.want.Rule]
			}
			for i, m := range tt.want.Rules {
				tt.want.Rules[i].Expr = exprs[m.Rule]
			}
			out := tablegate.ToParquet(filepath.Join(t.TempDir(), "orders.parquet"))
			res, err := eng.Validate(ctx, plan, rows, out, tt.opts)
			if tt.opts.Quarantine {
				if err != nil || res.Outcome != tablegate.Quarantined {
					t.Fatalf("outcome %q, error %v; want quarantined", res.Outcome, err)
				}
			} else {
				var abort *tablegate.ValidationAbortError
				if !errors.As(err, &abort) || res.Outcome != tablegate.Aborted {
					t.Fatalf("outcome %q, error %v; want aborted with a ValidationAbortError", res.Outcome, err)
				}
			}
			if res.Rows != (tablegate.Rows{Input: 4, Valid: 2, Invalid: 2}) {
				t.Errorf("rows %+v", res.Rows)
			}
			if tt.opts.Quarantine {
				tt.want.ErrorRowsAddress = res.Quarantine.Address // every check of a run that wrote invalid rows
			}
			got, ok := res.Check(tt.check)
			if !ok {
				t.Fatalf("no check %s in %v", tt.check, res.Checks)
			}
			if len(got.Samples) != tt.nSamp {
				t.Errorf("%d samples, want %d: %s", len(got.Samples), tt.nSamp, got.Samples)
			}
			for _, s := range got.Samples {
				var row map[string]any
				if err := json.Unmarshal(s, &row); err != nil || row["id"] == nil {
					t.Errorf("sample %s is not a row with an id: %v", s, err)
				}
				if tt.want.Rules != nil && row["dy_rule"] == nil {
					t.Errorf("collapsed sample %s names no member rule", s)
				}
			}
			got.Samples = nil
			if tt.want.Description == "" {
				got.Description = ""
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(tt.want)
			if string(gj) != string(wj) {
				t.Errorf("check\n got %s\nwant %s", gj, wj)
			}
		})
	}
}

// Each failing run gives its typed error, and a result whose outcome says how far it got.
func TestValidateErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	eng := openEngine(t)
	plan := compileSchema(t, tablegate.NewSchema("Orders", tablegate.Int64("id"), tablegate.Float64("amount").Min(0)))
	tests := []struct {
		name    string
		in      tablegate.Input
		opts    tablegate.Options
		outcome tablegate.Outcome
		check   func(t *testing.T, err error, res *tablegate.Result)
	}{
		{"column schema", tablegate.FromQuery(`SELECT 1::INTEGER AS id, 1.5::DECIMAL(4,1) AS amount`), tablegate.Options{}, tablegate.ColumnSchemaMismatch,
			func(t *testing.T, err error, res *tablegate.Result) {
				var cse *tablegate.ColumnSchemaError
				if !errors.As(err, &cse) || len(cse.Mismatches) != 2 {
					t.Fatalf("error %v, want a ColumnSchemaError with 2 mismatches", err)
				}
				c := res.Checks[0]
				if c.Name != "dy_schema__columns" || c.Passed || len(c.Mismatches) != 2 || c.Mismatches[1].Cast == "" {
					t.Errorf("columns check %+v: want it failed with 2 mismatches and a cast hint", c)
				}
			}},
		{"all rows invalid", tablegate.FromQuery(`SELECT 1::BIGINT AS id, -1.0::DOUBLE AS amount`), tablegate.Options{Quarantine: true}, tablegate.NoValidRows,
			func(t *testing.T, err error, res *tablegate.Result) {
				var nv *tablegate.NoValidRowsError
				if !errors.As(err, &nv) || nv.Rows != 1 || nv.Counts[0] != (tablegate.RuleCount{Rule: "amount|min", Count: 1}) {
					t.Fatalf("error %v, want a NoValidRowsError of 1 row by amount|min", err)
				}
				if !res.Quarantine.Written || res.Quarantine.Rows != 1 || res.Table.Written {
					t.Errorf("quarantine %+v table %+v: want only the quarantine written", res.Quarantine, res.Table)
				}
			}},
		{"cast", tablegate.FromQuery(`SELECT 'x' AS id, 1.0::DOUBLE AS amount`), tablegate.Options{RunOptions: tablegate.RunOptions{Cast: true}}, "",
			func(t *testing.T, err error, res *tablegate.Result) {
				var ce *tablegate.CastError
				if !errors.As(err, &ce) || ce.Column != "id" || ce.Value != "x" {
					t.Fatalf("error %v, want a CastError on id's value x", err)
				}
			}},
		{"missing file", tablegate.FromParquet(filepath.Join(dir, "none-*.parquet")), tablegate.Options{}, "",
			func(t *testing.T, err error, res *tablegate.Result) {
				var ie *tablegate.InputError
				if !errors.As(err, &ie) || !errors.Is(err, tablegate.ErrNoSourceData) {
					t.Fatalf("error %v, want an InputError of no source data", err)
				}
			}},
		{"skip missing", tablegate.FromParquet(filepath.Join(dir, "none-*.parquet")), tablegate.Options{RunOptions: tablegate.RunOptions{SkipMissing: true}}, tablegate.Skipped,
			func(t *testing.T, err error, res *tablegate.Result) {
				if err != nil {
					t.Fatal(err)
				}
			}},
		{"bad setting", tablegate.FromQuery(`SELECT 1::BIGINT AS id, 1.0::DOUBLE AS amount`), tablegate.Options{RunOptions: tablegate.RunOptions{Granularity: "rows"}}, "",
			func(t *testing.T, err error, res *tablegate.Result) {
				var se *tablegate.SettingError
				if !errors.As(err, &se) {
					t.Fatalf("error %v, want a SettingError", err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := eng.Validate(ctx, plan, tt.in, tablegate.ToParquet(filepath.Join(dir, tt.name, "orders.parquet")), tt.opts)
			if res == nil {
				t.Fatalf("no result (error %v)", err)
			}
			if res.Outcome != tt.outcome {
				t.Errorf("outcome %q, want %q", res.Outcome, tt.outcome)
			}
			tt.check(t, err, res)
		})
	}
}

// Every input and output constructor reaches its format: the rows written through one are read
// back through the others.
func TestInputsAndOutputs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	eng := openEngine(t)
	plan := compileSchema(t, tablegate.NewSchema("Items", tablegate.Int64("id").Min(1), tablegate.String("name")))
	db := filepath.Join(dir, "wh.duckdb")
	csv := filepath.Join(dir, "items.csv")
	ndjson := filepath.Join(dir, "items.ndjson")
	if err := os.WriteFile(csv, []byte("id,name\n1,a\n0,b\n3,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ndjson, []byte(`{"id":1,"name":"a"}`+"\n"+`{"id":0,"name":"b"}`+"\n"+`{"id":3,"name":"c"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		in   tablegate.Input
		out  tablegate.Output
		// want is the table's and the quarantine's address.
		table, quarantine string
	}{
		{"csv to parquet", tablegate.FromCSV(csv), tablegate.ToParquet(filepath.Join(dir, "a.parquet")),
			filepath.Join(dir, "a.parquet"), filepath.Join(dir, "a_quarantine.parquet")},
		{"ndjson to table", tablegate.FromNDJSON(ndjson), tablegate.ToTable(db, "items"), db + ":items", db + ":items_quarantine"},
		{"query to table", tablegate.FromQuery(`SELECT 5::BIGINT AS id, 'e' AS name UNION ALL SELECT 0, 'z'`), tablegate.ToTable(db, "more"),
			db + ":more", db + ":more_quarantine"},
	}
	for _, s := range steps {
		res, err := eng.Validate(ctx, plan, s.in, s.out, tablegate.Options{Quarantine: true})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if res.Outcome != tablegate.Quarantined || res.Table.Address != s.table || res.Quarantine.Address != s.quarantine ||
			!res.Table.Written || res.Quarantine.Rows != 1 {
			t.Errorf("%s: outcome %s, table %+v, quarantine %+v", s.name, res.Outcome, res.Table, res.Quarantine)
		}
	}
	// What was written validates again, read back as Parquet and as a DuckDB table.
	for _, in := range []tablegate.Input{tablegate.FromParquet(filepath.Join(dir, "a.parquet")), tablegate.FromTable(db, "items")} {
		res, err := eng.Validate(ctx, plan, in, nil, tablegate.Options{RunOptions: tablegate.RunOptions{RowSample: 5}})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if res.Outcome != tablegate.AllValid || res.Rows.Valid != 2 || len(res.ValidSample) != 2 || res.Health != tablegate.Healthy {
			t.Errorf("%s: outcome %s, rows %+v, valid sample %s, health %s", in, res.Outcome, res.Rows, res.ValidSample, res.Health)
		}
	}
}

// A schema that does not compile lists every problem, each reachable with errors.As.
func TestCompileErrors(t *testing.T) {
	_, err := tablegate.Compile(context.Background(), tablegate.NewSchema("Bad",
		tablegate.Int64("n").Min(5).Max(1),
		tablegate.String("s").SeverityOf("regx", tablegate.Warn),
	))
	var all *tablegate.SchemaErrors
	if !errors.As(err, &all) || len(all.Problems) != 2 {
		t.Fatalf("error %v, want SchemaErrors with 2 problems", err)
	}
	var decl *tablegate.DeclarationError
	var sev *tablegate.InvalidSeverityError
	if !errors.As(err, &decl) || decl.Column != "n" || !errors.As(err, &sev) || sev.Column != "s" {
		t.Errorf("error %v: want a DeclarationError on n and an InvalidSeverityError on s", err)
	}
	if _, err := tablegate.ParseSchema([]byte("schema: X\ncolumns:\n  - {name: a, type: Int65}\n"), "x.yaml"); !errors.As(err, &all) {
		t.Errorf("ParseSchema of an unknown dtype: %v, want SchemaErrors", err)
	}
}
