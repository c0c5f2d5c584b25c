package spark_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	_ "github.com/tablegate/tablegate/compile/duckdbparser" // the plans Spark renders are DuckDB's, checked by its parser
	"github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/schema"
)

// go test ./compile/spark -update rewrites testdata/<name>.spark.sql (or .err) from the schemas.
var update = flag.Bool("update", false, "rewrite compile/spark/testdata/*.spark.sql and *.err")

func program(t *testing.T, file string) (*spark.Program, error) {
	t.Helper()
	s, err := schema.LoadFile(file)
	if err != nil {
		t.Fatalf("load %s: %v", file, err)
	}
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatalf("compile %s: %v", file, err)
	}
	return spark.Compile(p)
}

// TestGolden renders every schema of testdata as the Spark plan query over a placeholder source
// (or, for a schema Spark refuses, the refusal) and compares with the golden file.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			prog, err := program(t, f)
			var got, golden string
			base := strings.TrimSuffix(f, ".yaml")
			if err != nil {
				var errs *schema.Errors
				if !errors.As(err, &errs) {
					t.Fatalf("refusal is %T, want *schema.Errors: %v", err, err)
				}
				got, golden = err.Error()+"\n", base+".err"
			} else {
				var b strings.Builder
				b.WriteString(prog.Query("__tg_input") + ";\n\n-- rules\n")
				for i, r := range prog.Rules {
					b.WriteString(prog.Plan.Rules[i].Name + "\t" + r.Expr + "\n")
				}
				if q := prog.Spark().TableChecksIn(spark.Dialect, "__tg_flagged"); q != "" {
					b.WriteString("\n-- table checks\n" + q + ";\n")
				}
				// A reference's path is absolute: the golden file has it under the folder's name.
				abs, err := filepath.Abs("testdata")
				if err != nil {
					t.Fatal(err)
				}
				got, golden = strings.ReplaceAll(b.String(), abs, "/TESTDATA"), base+".spark.sql"
			}
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the rendering (run with -update to rewrite it):\n%s", golden, got)
			}
		})
	}
}

// TestRulesLineUp checks that the program has one rule per plan rule, named alike.
func TestRulesLineUp(t *testing.T) {
	for _, f := range []string{"testdata/scalars.yaml", "testdata/nested.yaml", "testdata/keys.yaml"} {
		prog, err := program(t, f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(prog.Rules) != len(prog.Plan.Rules) || len(prog.Rules) == 0 {
			t.Fatalf("%s: %d Spark rules for %d plan rules", f, len(prog.Rules), len(prog.Plan.Rules))
		}
		for i, r := range prog.Rules {
			if r.Name != prog.Plan.Rules[i].Name || r.Expr == "" {
				t.Errorf("%s: rule %d is %q (%q), plan has %q", f, i, r.Name, r.Expr, prog.Plan.Rules[i].Name)
			}
		}
	}
}

// TestRefusalsNameTheRule checks that every refusal names the column or rule it is about.
func TestRefusalsNameTheRule(t *testing.T) {
	_, err := program(t, "testdata/refused_rules.yaml")
	if err == nil {
		t.Fatal("refused_rules.yaml compiled for Spark")
	}
	for _, want := range []string{"duck_only", "has no Spark SQL", "email", "check", "backtracks", "Unicode property", "no subquery", "unbalanced"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal does not say %q:\n%v", want, err)
		}
	}
	_, err = program(t, "testdata/refused.yaml")
	for _, want := range []string{"'small'", "unsigned", "'at'", "nanoseconds", "'kind'", "Enum", "'point'", "'lines'", "field 'took'"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("refusal does not say %q:\n%v", want, err)
		}
	}
}

// TestValidExprOneRule pins the bare column of a one-rule schema: Spark reads
// `FROM t WHERE (x)` as a table alias with a column list ([ASSIGNMENT_ARITY_MISMATCH]).
func TestValidExprOneRule(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"schema: One\ncolumns:\n  - {name: select, type: Int64, min: 0, nullable: true}\n", "`select|min`"},
		{"schema: Two\ncolumns:\n  - {name: a, type: Int64, min: 0, max: 9, nullable: true}\n", "(`a|min` AND `a|max`)"},
		{"schema: None\ncolumns:\n  - {name: a, type: Int64, nullable: true}\n", "TRUE"},
	} {
		s, err := schema.Parse([]byte(tc.yaml), "s.yaml")
		if err != nil {
			t.Fatal(err)
		}
		p, err := compile.Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := spark.Compile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := prog.ValidExpr(true); got != tc.want {
			t.Errorf("%s: ValidExpr = %s, want %s", s.Name, got, tc.want)
		}
	}
}
