// The tests of this package link compile and the packages that compile schemas for others
// (compile/spark, report, odcs) without any parser: they show what a program that links no
// DuckDB gets.
package parser_test

import (
	"context"
	gosql "database/sql"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/compile/parser"
	"github.com/tablegate/tablegate/compile/spark"
	_ "github.com/tablegate/tablegate/odcs"
	_ "github.com/tablegate/tablegate/report"
	"github.com/tablegate/tablegate/schema"
)

// TestCompileLinksNoDuckDB: linking compile (and report, odcs, compile/spark) registers no DuckDB
// driver and no parser. DuckDB's Go driver registers itself with database/sql when it is linked.
func TestCompileLinksNoDuckDB(t *testing.T) {
	if slices.Contains(gosql.Drivers(), "duckdb") {
		t.Errorf("a DuckDB driver is linked: database/sql has %v", gosql.Drivers())
	}
	if parser.Registered() != nil || compile.HasParser() {
		t.Error("a parser is registered without compile/duckdbparser")
	}
}

// TestSlowCompileLinksNoDuckDB: no package of DuckDB is among the dependencies of compile,
// report and odcs (go list reads them all, the driver's bindings included).
func TestSlowCompileLinksNoDuckDB(t *testing.T) {
	if os.Getenv("TABLEGATE_SLOW") == "" {
		t.Skip("set TABLEGATE_SLOW=1")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/tablegate/tablegate/compile", "github.com/tablegate/tablegate/report",
		"github.com/tablegate/tablegate/odcs", "github.com/tablegate/tablegate/compile/spark").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "duckdb-go") || strings.Contains(dep, "libduckdb") || strings.HasSuffix(dep, "/duckdbparser") {
			t.Errorf("linked: %s", dep)
		}
	}
}

// TestNoParser: without a parser, a schema with custom SQL, a regex or a table check is refused
// with ErrNoParser, which names the package to import; one without compiles; and Spark compiles
// its own forms (spark.CompileSchema) while refusing, by name, a rule that has DuckDB SQL alone.
func TestNoParser(t *testing.T) {
	ctx := context.Background()
	for name, s := range map[string]*schema.Schema{
		"custom rule":  schema.New("T", schema.Int64("a")).AddRule("positive", "a > 0"),
		"column check": schema.New("T", schema.Int64("a").Check("small", "_ < 10")),
		"regex":        schema.New("T", schema.String("s").Regex("^[a-z]+$")),
		"table check":  schema.New("T", schema.Int64("a")).AddTableCheck(schema.Condition("enough", "count(*) > 0")),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := compile.CompileContext(ctx, s)
			if !errors.Is(err, compile.ErrNoParser) {
				t.Fatalf("err = %v, want ErrNoParser", err)
			}
			if !strings.Contains(err.Error(), `import _ "github.com/tablegate/tablegate/compile/duckdbparser"`) {
				t.Errorf("the error does not say what to import: %v", err)
			}
		})
	}

	plain := schema.New("T", schema.Int64("a").Min(0).PrimaryKey(), schema.String("s").MaxLength(3))
	if _, err := compile.CompileContext(ctx, plain); err != nil {
		t.Errorf("a schema without custom SQL needs no parser: %v", err)
	}

	forSpark := schema.New("T", schema.Int64("a"), schema.String("s").Regex("^[a-z]+$")).
		AddSparkRule("positive", "a > 0", "a > 0").
		AddRule("duckdb_only", "a < 100")
	_, err := spark.CompileSchema(ctx, forSpark)
	if err == nil || !strings.Contains(err.Error(), "rule 'duckdb_only': it has no Spark SQL") || strings.Contains(err.Error(), "positive") {
		t.Fatalf("err = %v, want the rule with DuckDB SQL alone refused by name", err)
	}
	forSpark.Rules = forSpark.Rules[:1]
	p, err := spark.CompileSchema(ctx, forSpark)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range p.Rules {
		got[r.Name] = r.Expr
	}
	if got["positive"] != "(a > 0)" || !strings.Contains(got["s|regex"], "RLIKE") {
		t.Errorf("rules %q, want positive as its Spark form and the regex in Java's", got)
	}
}
