package spark_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	dialect "github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/sample"
	"github.com/tablegate/tablegate/schema"
)

// randomColumn is a dtype Spark carries exactly, with the rules a random schema may give it.
type randomColumn struct {
	dtype string
	rules []string // YAML flow-map entries, each adding one rule
}

var randomColumns = []randomColumn{
	{"{type: Int8", []string{"min: -5", "max: 100"}},
	{"{type: Int16", []string{"is_in: [1, 2, 3, 5, 8]", "unique: true"}}, // is_in takes no bounds beside it
	{"{type: Int32", []string{"min: 0", "max_exclusive: 1000", "unique: true"}},
	{"{type: Int64", []string{"min_exclusive: -1", "max: 1000000", "unique: true"}},
	{"{type: Int64, nullable: true", []string{"is_in: []"}}, // nothing but NULL is valid
	{"{type: Float32, allow_nan: true, allow_inf: true", []string{"min: 0.1", "max: 100.25"}},
	{"{type: Float64", []string{"min: -1.5", "max_exclusive: 3.3"}}, // and the nan and inf rules, unless allowed
	{"{type: Decimal, precision: 10, scale: 2", []string{"min: -1.5", "max: 99.99"}},
	{"{type: String", []string{"min_length: 2", "max_length: 5", "regex: '^[a-z]+$'", "is_in: [a, ab, é, ' ']"}},
	{"{type: Bool", nil},
	{"{type: Date", []string{"min: '2020-01-06'", "max: '2030-12-30'", "resolution: 1w"}},
	{"{type: Datetime", []string{"min: '2020-01-01'", "resolution: 1h"}},
	{"{type: Datetime, time_zone: Europe/Berlin", []string{"max: '2030-12-31 23:00:00+00:00'", "resolution: 1d"}},
	{"{type: List, inner: {type: Int32, nullable: true}", []string{"min_length: 1", "max_length: 3"}},
}

// Column names, reserved words among them (quoted by both engines, each its own way).
var randomNames = []string{"id", "select", "order", "from", "v", "Amount_2", "_x"}

// randomSchema is a seeded schema of 1 to 5 columns. With oneRule it has exactly one rule: one
// nullable column with one rule, the rest nullable and ruleless (floats allow NaN and inf).
func randomSchema(rng *rand.Rand, name string, oneRule bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "schema: %s\ncolumns:\n", name)
	n := 1 + rng.IntN(5)
	names := rng.Perm(len(randomNames))[:n]
	ruled := rng.IntN(n)
	for i, ni := range names {
		col := randomColumns[rng.IntN(len(randomColumns))]
		if oneRule && i == ruled {
			for len(col.rules) == 0 {
				col = randomColumns[rng.IntN(len(randomColumns))]
			}
		}
		fmt.Fprintf(&b, "  - %s, name: %s", col.dtype, randomNames[ni])
		switch {
		case oneRule:
			if !strings.HasSuffix(col.dtype, "nullable: true") {
				b.WriteString(", nullable: true")
			}
			if strings.Contains(col.dtype, "Float64") {
				b.WriteString(", allow_nan: true, allow_inf: true")
			}
			if i == ruled {
				b.WriteString(", " + col.rules[rng.IntN(len(col.rules))])
			}
		default:
			if rng.IntN(2) == 0 && !strings.HasSuffix(col.dtype, "nullable: true") {
				b.WriteString(", nullable: true")
			}
			for _, r := range col.rules {
				if rng.IntN(3) == 0 {
					b.WriteString(", " + r)
				}
			}
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// randomCase is seed's random schema compiled, and the sample generator's data for it (20% of
// the rows break a rule it can break) as a DuckDB query.
func randomCase(t *testing.T, seed uint64) (*compile.Plan, string, []string) {
	t.Helper()
	oneRule := seed%3 == 0
	name := fmt.Sprintf("Random%d", seed)
	yaml := randomSchema(rand.New(rand.NewPCG(seed, 38)), name, oneRule)
	s, err := schema.Parse([]byte(yaml), name+".yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, yaml)
	}
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatalf("%v\n%s", err, yaml)
	}
	if oneRule && len(p.Rules) != 1 {
		t.Fatalf("%d rules in a one-rule schema:\n%s", len(p.Rules), yaml)
	}
	if _, err := dialect.Compile(p); err != nil {
		t.Fatalf("Spark refuses it: %v\n%s", err, yaml)
	}
	q, broken, err := sample.Query(s, sample.Spec{Rows: 400, InvalidRate: 0.2, Seed: seed})
	if err != nil {
		t.Fatalf("%v\n%s", err, yaml)
	}
	t.Logf("%d rules, the sample breaks %d:\n%s", len(p.Rules), len(broken), yaml)
	return p, q, broken
}

const randomCases = 12

// TestRandomSchemas checks the random schemas without a server: each compiles for both engines.
func TestRandomSchemas(t *testing.T) {
	for seed := range uint64(randomCases) {
		randomCase(t, seed)
	}
}

// TestDifferentialRandom runs seeded random schemas, a third of them with exactly one rule, on
// DuckDB and on Spark.
func TestDifferentialRandom(t *testing.T) {
	needSpark(t)
	for seed := range uint64(randomCases) {
		t.Run(fmt.Sprintf("Random%d", seed), func(t *testing.T) {
			p, q, broken := randomCase(t, seed)
			compareEngines(t, p, q, min(1, len(broken)))
		})
	}
}

// TestExample runs the shipped example (examples/orders, its custom rules with their spark:
// forms) on DuckDB and on Spark.
func TestExample(t *testing.T) {
	needSpark(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "orders"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.LoadFile(filepath.Join(dir, "orders.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := compile.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	compareEngines(t, p, fmt.Sprintf("SELECT * FROM read_parquet('%s')", strings.ReplaceAll(filepath.Join(dir, "orders.parquet"), "'", "''")), 5)
}
