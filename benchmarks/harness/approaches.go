package main

import (
	"context"
	gosql "database/sql"
	"fmt"
	"path/filepath"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// target is an output address: a Parquet path, or FILE.duckdb:table.
type target struct {
	file, table string
}

func parseTarget(addr string) target {
	if i := strings.LastIndex(addr, ".duckdb:"); i >= 0 {
		return target{file: addr[:i+len(".duckdb")], table: addr[i+len(".duckdb:"):]}
	}
	return target{file: addr}
}

// open reads the input in and, when out names a DuckDB file, attaches it as dst for writing.
func open(storage, in string, out target) (*gosql.DB, compile.Relation, error) {
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		return nil, compile.Relation{}, err
	}
	db.SetMaxOpenConns(1) // one connection: ATTACH and temp state stay put
	if storage == "parquet" {
		return db, compile.Relation{From: fmt.Sprintf("read_parquet(%s)", sql.String(in)), RowID: "((file_index::BIGINT << 40) + file_row_number)"}, nil
	}
	src := parseTarget(in)
	stmts := []string{fmt.Sprintf("ATTACH %s AS src (READ_ONLY)", sql.String(src.file))}
	if out.file != "" {
		stmts = append(stmts, fmt.Sprintf("ATTACH %s AS dst", sql.String(out.file)))
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			db.Close()
			return nil, compile.Relation{}, err
		}
	}
	return db, compile.Relation{From: "src.main." + sql.Ident(src.table), RowID: "rowid"}, nil
}

// countRows counts the rows of an input (read only).
func countRows(ctx context.Context, storage, in string) (int64, error) {
	db, rel, err := open(storage, in, target{})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int64
	err = db.QueryRowContext(ctx, "SELECT count(*) FROM "+rel.From).Scan(&n)
	return n, err
}

// write copies a query's rows to the output the way the floor does: COPY for Parquet, CREATE
// TABLE AS for DuckDB.
func write(db *gosql.DB, storage string, out target, name, query string) error {
	var stmt string
	if storage == "parquet" {
		path := filepath.Join(filepath.Dir(out.file), name+".parquet")
		stmt = fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", query, sql.String(path))
	} else {
		stmt = fmt.Sprintf("CREATE OR REPLACE TABLE dst.main.%s AS %s", sql.Ident(name), query)
	}
	_, err := db.Exec(stmt)
	return err
}

func loadPlan(file string) (*compile.Plan, error) {
	s, err := schema.LoadFile(file)
	if err != nil {
		return nil, err
	}
	return compile.Compile(s)
}

func columns(p *compile.Plan) string {
	cols := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		cols[i] = sql.Ident(c.Name)
	}
	return strings.Join(cols, ", ")
}

// approach is what the floor and per-rule subcommands share: STORAGE SCHEMA IN OUT parsed, the
// plan compiled and the input opened.
type approach struct {
	storage string
	plan    *compile.Plan
	out     target
	db      *gosql.DB
	rel     compile.Relation
}

func openApproach(name string, args []string) (*approach, error) {
	if len(args) != 4 {
		return nil, fmt.Errorf("usage: harness %s parquet|duckdb SCHEMA IN OUT", name)
	}
	a := &approach{storage: args[0], out: parseTarget(args[3])}
	var err error
	if a.plan, err = loadPlan(args[1]); err != nil {
		return nil, err
	}
	if a.db, a.rel, err = open(a.storage, args[2], a.out); err != nil {
		return nil, err
	}
	return a, nil
}

// floorMain: harness floor STORAGE SCHEMA IN OUT — a plain copy of the schema's columns.
func floorMain(args []string) error {
	a, err := openApproach("floor", args)
	if err != nil {
		return err
	}
	defer a.db.Close()
	return writeFloor(a.db, a.storage, a.plan, a.rel, a.out)
}

// writeFloor writes the floor, a plain copy of the plan's columns, from an opened input (open).
func writeFloor(db *gosql.DB, storage string, plan *compile.Plan, rel compile.Relation, out target) error {
	return write(db, storage, out, "orders", fmt.Sprintf("SELECT %s FROM %s", columns(plan), rel.From))
}

// perRuleMain: harness perrule STORAGE SCHEMA IN OUT — the per-rule-query approach: one
// count query per rule, then the valid rows and the invalid rows, each a query of its own.
func perRuleMain(args []string) error {
	a, err := openApproach("perrule", args)
	if err != nil {
		return err
	}
	defer a.db.Close()
	db, plan, rel, storage, out := a.db, a.plan, a.rel, a.storage, a.out
	ctx := context.Background()
	for i, r := range plan.Rules {
		var n int64
		q := fmt.Sprintf("SELECT count(*) FROM (%s) WHERE NOT %s", plan.Subset(i).Query(rel), sql.Ident(r.Name))
		if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			return fmt.Errorf("rule %s: %w", r.Name, err)
		}
	}
	valid := plan.ValidExpr(true)
	if err := write(db, storage, out, "orders", fmt.Sprintf("SELECT %s FROM (%s) WHERE %s ORDER BY %s", columns(plan), plan.Query(rel), valid, compile.RowIDColumn)); err != nil {
		return err
	}
	var flags []string
	for _, r := range plan.Rules {
		flags = append(flags, fmt.Sprintf("CASE WHEN %s THEN 'valid' ELSE 'invalid' END AS %s", sql.Ident(r.Name), sql.Ident(r.Check)))
	}
	return write(db, storage, out, "orders_quarantine", fmt.Sprintf("SELECT %s, %s FROM (%s) WHERE NOT %s ORDER BY %s",
		columns(plan), strings.Join(flags, ", "), plan.Query(rel), valid, compile.RowIDColumn))
}

// loadMain: harness load IN.parquet OUT.duckdb — the DuckDB-table input (not timed).
func loadMain(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: harness load IN.parquet OUT.duckdb")
	}
	db, err := gosql.Open("duckdb", args[1])
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(fmt.Sprintf("CREATE OR REPLACE TABLE t AS SELECT * FROM read_parquet(%s)", sql.String(args[0])))
	return err
}
