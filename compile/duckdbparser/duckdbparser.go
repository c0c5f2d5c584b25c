// Package duckdbparser is DuckDB's parser and binder for package compile: a private in-memory
// DuckDB that parses, binds and prints custom SQL and compiles regexes, nothing else: no table,
// no file, no network (duckdbtune.Lockdown), one thread. Importing it registers it
// (compile/parser.Register), as importing a database/sql driver does; the DuckDB engine imports
// it, so every program that links the engine checks custom SQL with it.
package duckdbparser

import (
	"context"
	gosql "database/sql"
	"fmt"
	"sync"

	_ "github.com/duckdb/duckdb-go/v2" // DuckDB's own parser and binder judge custom SQL

	"github.com/tablegate/tablegate/compile/parser"
	"github.com/tablegate/tablegate/internal/duckdbtune"
)

func init() {
	parser.Register("duckdb", func() (parser.Parser, error) { return Open() })
}

// Parser is an in-memory DuckDB under duckdbtune.Lockdown. It is safe for concurrent use; the
// caller closes it.
type Parser struct {
	db *gosql.DB
}

// Open opens a parser.
func Open() (*Parser, error) {
	// One thread: a parser binds and prints small statements, and a process shares one.
	db, err := gosql.Open("duckdb", duckdbtune.LockedDSN("", "threads=1"))
	if err != nil {
		return nil, fmt.Errorf("open DuckDB to check custom SQL: %w", err)
	}
	return &Parser{db: db}, nil
}

// Close closes the parser's database.
func (p *Parser) Close() error { return p.db.Close() }

// Trees parses each statement with json_serialize_sql, all in one query.
func (p *Parser) Trees(ctx context.Context, statements ...string) ([]string, error) {
	if len(statements) == 0 {
		return nil, nil
	}
	query := "SELECT "
	args := make([]any, len(statements))
	for i, s := range statements {
		if i > 0 {
			query += ", "
		}
		query += "CAST(json_serialize_sql(?::VARCHAR) AS VARCHAR)"
		args[i] = s
	}
	trees := make([]string, len(statements))
	dest := make([]any, len(statements))
	for i := range trees {
		dest[i] = &trees[i]
	}
	if err := p.db.QueryRowContext(ctx, query, args...).Scan(dest...); err != nil {
		return nil, err
	}
	return trees, nil
}

// SQL prints a parse tree with json_deserialize_sql.
func (p *Parser) SQL(ctx context.Context, tree string) (string, error) {
	var text string
	err := p.db.QueryRowContext(ctx, "SELECT json_deserialize_sql(CAST(? AS JSON))", tree).Scan(&text)
	return text, err
}

// Types binds query with DESCRIBE: nothing of it is evaluated but its constants.
func (p *Parser) Types(ctx context.Context, query string) ([]string, error) {
	rows, err := p.db.QueryContext(ctx, "DESCRIBE "+query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var types []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		types = append(types, fmt.Sprint(vals[1])) // column_name, column_type, …
	}
	return types, rows.Err()
}

// Value evaluates a constant expression: reading nothing, it runs in the parser's database.
func (p *Parser) Value(ctx context.Context, expr string) (typ, text string, err error) {
	err = p.db.QueryRowContext(ctx, "SELECT typeof(v), CAST(v AS VARCHAR) FROM (SELECT "+expr+" AS v)").Scan(&typ, &text)
	return typ, text, err
}

// catalog is the same for every database of the embedded DuckDB: the first parser reads it and
// the others share it.
var catalog struct {
	once sync.Once
	c    *parser.Catalog
	err  error
}

// Catalog reads DuckDB's aggregates, macros and lambda functions from duckdb_functions(), once
// per process: a cancelled first read is not to be remembered as the catalog's error, so it is
// not cancelled.
func (p *Parser) Catalog(context.Context) (*parser.Catalog, error) {
	catalog.once.Do(func() { catalog.c, catalog.err = readCatalog(context.Background(), p.db) })
	return catalog.c, catalog.err
}

func readCatalog(ctx context.Context, db *gosql.DB) (*parser.Catalog, error) {
	c := &parser.Catalog{Aggregates: map[string]bool{}, Lambdas: map[string]map[int]bool{}}
	rows, err := db.QueryContext(ctx, "SELECT DISTINCT lower(function_name) FROM duckdb_functions() WHERE function_type = 'aggregate'")
	if err != nil {
		return nil, fmt.Errorf("list DuckDB aggregate functions: %w", err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, err
		}
		c.Aggregates[name] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	rows, err = db.QueryContext(ctx, "SELECT lower(function_name), function_type, coalesce(macro_definition, '') FROM duckdb_functions() WHERE function_type IN ('macro', 'table_macro')")
	if err != nil {
		return nil, fmt.Errorf("list DuckDB macros: %w", err)
	}
	for rows.Next() {
		var m parser.Macro
		var typ string
		if err := rows.Scan(&m.Name, &typ, &m.Body); err != nil {
			rows.Close()
			return nil, err
		}
		m.Table = typ == "table_macro"
		c.Macros = append(c.Macros, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	// The lambda functions (list_transform, list_filter, list_reduce, …, and those list
	// comprehensions are written with) and which of their arguments take a lambda.
	rows, err = db.QueryContext(ctx, "SELECT DISTINCT lower(function_name), i - 1 FROM (SELECT function_name, unnest(parameter_types) AS t, "+
		"generate_subscripts(parameter_types, 1) AS i FROM duckdb_functions() WHERE list_contains(parameter_types, 'LAMBDA')) WHERE t = 'LAMBDA'")
	if err != nil {
		return nil, fmt.Errorf("list DuckDB lambda functions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var pos int
		if err := rows.Scan(&name, &pos); err != nil {
			return nil, err
		}
		if c.Lambdas[name] == nil {
			c.Lambdas[name] = map[int]bool{}
		}
		c.Lambdas[name][pos] = true
	}
	return c, rows.Err()
}
