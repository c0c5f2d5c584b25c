package spark_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/schema"
)

// TestCompileSchemaAsCompile: compiling a schema for Spark without DuckDB's parser
// (CompileSchema) renders the same Spark plan query and rules as rendering its DuckDB plan, and
// refuses the schemas that rendering refuses.
func TestCompileSchemaAsCompile(t *testing.T) {
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, wantErr := program(t, f)
			s, err := schema.LoadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p, err := spark.CompileSchema(context.Background(), s)
			if len(s.TableChecks) > 0 {
				// Table checks are checked by DuckDB's parser: without it they are refused by name.
				if !errors.Is(err, compile.ErrNoParser) && (err == nil || !strings.Contains(err.Error(), "no SQL parser")) {
					t.Fatalf("table checks compiled without DuckDB's parser: %v", err)
				}
				return
			}
			if wantErr != nil {
				if err == nil {
					t.Fatalf("compiled; rendering the DuckDB plan refuses it: %v", wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := spark.Compile(p)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := got.Query("__tg_input"), want.Query("__tg_input"); g != w {
				t.Errorf("plan query:\n%s\nwant\n%s", g, w)
			}
			if len(got.Rules) != len(want.Rules) {
				t.Fatalf("%d rules, want %d", len(got.Rules), len(want.Rules))
			}
			for i, r := range got.Rules {
				if r != want.Rules[i] || got.Plan.Rules[i].Name != want.Plan.Rules[i].Name || got.Spark().Rules[i].Keyed() != want.Spark().Rules[i].Keyed() {
					t.Errorf("rule %d: %+v (%s), want %+v (%s)", i, r, got.Plan.Rules[i].Name, want.Rules[i], want.Plan.Rules[i].Name)
				}
			}
		})
	}
}

// TestCompileSchemaRefuses: without DuckDB's parser, a custom rule with DuckDB SQL alone and a
// table check are refused by name; an aggregate Spark form is evaluated over the rows.
func TestCompileSchemaRefuses(t *testing.T) {
	s := schema.New("Orders", schema.Int64("qty"), schema.String("kind")).
		AddRule("duckdb_only", "qty > 0").
		AddSparkRule("big_total", "sum(qty) < 100", "SUM (qty) < 100").
		AddSparkRule("backquoted", "max(qty) < 100", "`max`(qty) < 100").
		AddSparkRule("quoted", "kind <> 'sum(x)'", `kind <> 'sum(x)' AND kind <> "count(1)" AND kind <> 'it''s max(1)'`)
	_, err := spark.CompileSchema(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "rule 'duckdb_only': it has no Spark SQL") {
		t.Fatalf("err = %v, want the DuckDB-only rule refused by name", err)
	}
	if strings.Contains(err.Error(), "big_total") || strings.Contains(err.Error(), "quoted") {
		t.Errorf("a rule with a Spark form is refused: %v", err)
	}

	s.Rules = s.Rules[1:]
	p, err := spark.CompileSchema(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	keyed := map[string]bool{}
	for _, r := range p.Rules {
		keyed[r.Name] = r.Keyed()
	}
	if !keyed["big_total"] || !keyed["backquoted"] || keyed["quoted"] {
		t.Errorf("keyed = %v, want big_total and backquoted (aggregates) alone", keyed)
	}

	withCheck := schema.New("Orders", schema.Int64("qty")).AddTableCheck(schema.Condition("enough", "count(*) > 0"))
	_, err = spark.CompileSchema(context.Background(), withCheck)
	if err == nil || !strings.Contains(err.Error(), "table check 'enough'") || !strings.Contains(err.Error(), "compile/duckdbparser") {
		t.Errorf("err = %v, want the table check refused, naming the parser's package", err)
	}
}
