package compile_test

import (
	gosql "database/sql"
	"fmt"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// fuzzSchema builds a schema from fuzz bytes: each column's dtype and arguments are chosen by
// the next bytes, so every byte string is a (possibly invalid) declaration.
func fuzzSchema(data []byte) *schema.Schema {
	i := 0
	next := func() int {
		if i >= len(data) {
			return 0
		}
		i++
		return int(data[i-1])
	}
	makers := []func(string) *schema.Column{
		schema.Int8, schema.Int32, schema.Int64, schema.UInt8, schema.UInt64, schema.Integer,
		schema.Float32, schema.Float64, schema.String, schema.Bool, schema.Date, schema.Time, schema.Binary,
		func(n string) *schema.Column { return schema.Decimal(n, 10, 2) },
		func(n string) *schema.Column { return schema.Datetime(n, schema.Micros, "") },
		func(n string) *schema.Column { return schema.List(n, schema.String("").MinLength(1)) },
		func(n string) *schema.Column { return schema.Struct(n, schema.Int64("x").Min(0)) },
	}
	bounds := []any{0, 1, -1, 127, 200, 3.5, "0.1", "2020-01-01", "12:00:00", 1e300}
	var cols []*schema.Column
	for n := 0; n < 1+next()%5; n++ {
		c := makers[next()%len(makers)](fmt.Sprintf("c%d", n))
		flags := next()
		if flags&1 != 0 {
			c.Nullable()
		}
		if flags&2 != 0 {
			c.Min(bounds[next()%len(bounds)])
		}
		if flags&4 != 0 {
			c.Max(bounds[next()%len(bounds)])
		}
		if flags&8 != 0 {
			c.Unique()
		}
		if flags&16 != 0 {
			c.Regex(`^[a-z]+\d*$`)
		}
		if flags&32 != 0 {
			c.MaxLength(int64(next() % 10))
		}
		if flags&64 != 0 {
			c.Check("", "_ IS NOT DISTINCT FROM _")
		}
		if flags&128 != 0 && n == 0 {
			c.PrimaryKey()
		}
		cols = append(cols, c)
	}
	s := schema.New("Fuzz", cols...)
	if next()%2 == 1 {
		s.AddGroupRule("few_per_group", "count(*) < 1000", "c0")
	}
	return s
}

// FuzzCompile: every schema the compiler accepts yields SQL that DuckDB binds and evaluates on
// a table of the declared types.
func FuzzCompile(f *testing.F) {
	for _, seed := range [][]byte{{1, 0, 0}, {3, 2, 2, 6, 7}, {4, 13, 255, 9, 9, 9, 1}, {2, 15, 1, 16, 3, 0}} {
		f.Add(seed)
	}
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		s := fuzzSchema(data)
		plan, err := compileShared(s)
		if err != nil {
			return
		}
		var defs []string
		for _, c := range s.Columns {
			defs = append(defs, sql.Ident(c.Name)+" "+c.DType.DuckDBType())
		}
		conn, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(t.Context(), "CREATE OR REPLACE TEMP TABLE t ("+strings.Join(defs, ", ")+")"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(t.Context(), "INSERT INTO t DEFAULT VALUES"); err != nil {
			t.Fatal(err)
		}
		rows, err := conn.QueryContext(t.Context(), plan.Query(compile.Relation{From: "t", RowID: "rowid"}))
		if err != nil {
			t.Fatalf("DuckDB rejects compiled SQL: %v\n%s", err, plan.Explain())
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		if want := len(s.Columns) + 1 + len(plan.Rules); len(cols) != want {
			t.Fatalf("query has %d columns, want %d", len(cols), want)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("DuckDB cannot evaluate compiled SQL: %v\n%s", err, plan.Explain())
		}
	})
}
