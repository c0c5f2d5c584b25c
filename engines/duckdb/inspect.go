package duckdb

import (
	"context"
	gosql "database/sql"

	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// Inspect makes the input readable as a run would (CSV and NDJSON read as a run reads them) and
// calls fn with the connection and the FROM clause of its rows, for tools that study an input
// rather than validate it (tablegate init). A text file's types are detected from every row,
// not a sample: there is no schema to read them by. The connection is closed when fn returns.
func (e *Engine) Inspect(ctx context.Context, in runner.Input, fn func(ctx context.Context, c *gosql.Conn, from string) error) error {
	r, err := e.newRun(ctx)
	if err != nil {
		return err
	}
	defer r.close()
	o, err := (&backend{r: r}).openInput(ctx, in, reading{sampleAll: true}, false)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return &outcome.InputError{Input: in.String(), Err: err}
	}
	return fn(ctx, r.conn.Conn, o.Rel.From)
}
