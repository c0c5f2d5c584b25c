// Package parser is what package compile asks of an engine's SQL parser to check custom SQL and
// regexes, and where an implementation registers itself, as a database/sql driver does: compile
// links no engine, and a program that links DuckDB's parser (package compile/duckdbparser, which
// the DuckDB engine imports) checks custom SQL with it. Parse trees are DuckDB's JSON parse trees
// (json_serialize_sql); the checks over them are compile's.
package parser

import (
	"context"
	"sync"
)

// Parser parses, binds and prints SQL for the compiler. It reads no table, file or network, and
// is safe for concurrent use.
type Parser interface {
	// Trees parses each statement and returns its parse tree as JSON, errors included in the
	// JSON as the parser reports them (a statement that does not parse is not an error here).
	Trees(ctx context.Context, statements ...string) ([]string, error)
	// SQL prints a parse tree (JSON, as Trees gives) back as SQL text.
	SQL(ctx context.Context, tree string) (string, error)
	// Types binds a SELECT statement and returns the type of each of its result columns; the
	// binder's error is returned as the engine words it.
	Types(ctx context.Context, query string) ([]string, error)
	// Value evaluates a constant expression: its type and its value as text.
	Value(ctx context.Context, expr string) (typ, text string, err error)
	// Catalog is what the parser's engine has built in. It is the same for every call and never
	// changes.
	Catalog(ctx context.Context) (*Catalog, error)
	// Close releases the parser.
	Close() error
}

// Catalog lists the engine's built-in functions that the compiler judges rules by.
type Catalog struct {
	// Aggregates are the aggregate functions' names, lower case.
	Aggregates map[string]bool
	// Macros are the built-in macros, whose bodies run in the query that calls them.
	Macros []Macro
	// Lambdas are the functions that take a lambda (lower case), with the positions (from 0) of
	// their arguments that do: only there does `x -> …` bind x (elsewhere `a -> b` is JSON's arrow).
	Lambdas map[string]map[int]bool
}

// Macro is one built-in macro (one overload).
type Macro struct {
	Name string // lower case
	// Table is set for a table macro; Body is a scalar macro's expression as SQL text.
	Table bool
	Body  string
}

var registered struct {
	sync.Mutex
	name string
	open func() (Parser, error)
}

// Register makes open the process's way to open a parser; name says which one it is. It is
// called from the init function of the implementing package, once: a second registration panics.
func Register(name string, open func() (Parser, error)) {
	registered.Lock()
	defer registered.Unlock()
	if registered.open != nil {
		panic("parser: Register called twice (" + registered.name + ", then " + name + ")")
	}
	registered.name, registered.open = name, open
}

// Registered returns the registered opener, nil when the program links none.
func Registered() func() (Parser, error) {
	registered.Lock()
	defer registered.Unlock()
	return registered.open
}
