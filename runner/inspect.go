package runner

import (
	"context"
	gosql "database/sql"
	"errors"
)

// Inspector is a Connector whose engine lets tools study an input rather than validate it
// (tablegate init, bench): DuckDB's.
type Inspector interface {
	// Inspect makes the input readable as a run would and calls fn with the connection and the
	// FROM clause of its rows; the connection is closed when fn returns.
	Inspect(ctx context.Context, in Input, fn func(ctx context.Context, c *gosql.Conn, from string) error) error
}

// QueryWriter is a Connector whose engine writes a query's rows to an output atomically, as a
// run writes a table (tablegate sample): DuckDB's.
type QueryWriter interface {
	WriteQuery(ctx context.Context, query string, out Output) error
}

// errLocalOnly is the error of a tool that needs the local engine's database.
var errLocalOnly = errors.New("this runs on the local DuckDB engine (Open or New), not on another engine (NewOn)")

// Inspect is the engine's Inspector's Inspect.
func (e *Engine) Inspect(ctx context.Context, in Input, fn func(ctx context.Context, c *gosql.Conn, from string) error) error {
	i, ok := e.c.(Inspector)
	if !ok {
		return errLocalOnly
	}
	return i.Inspect(ctx, in, fn)
}

// WriteQuery is the engine's QueryWriter's WriteQuery.
func (e *Engine) WriteQuery(ctx context.Context, query string, out Output) error {
	w, ok := e.c.(QueryWriter)
	if !ok {
		return errLocalOnly
	}
	return w.WriteQuery(ctx, query, out)
}
