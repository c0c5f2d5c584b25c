package duckdb

import (
	"context"
	gosql "database/sql"
)

// Inspect makes the input readable as a run would (CSV and NDJSON read as a run reads them) and
// calls fn with the connection and the FROM clause of its rows, for tools that study an input
// rather than validate it (tablegate init). A text file's types are detected from every row,
// not a sample: there is no schema to read them by. The connection is closed when fn returns.
func (e *Engine) Inspect(ctx context.Context, in Input, fn func(ctx context.Context, c *gosql.Conn, from string) error) error {
	r, err := e.newRun(ctx)
	if err != nil {
		return err
	}
	defer r.close()
	o, err := (&backend{r: r}).openInput(ctx, readAs(in, reading{sampleAll: true}), false)
	if err != nil {
		return inputOrRun(in, err)
	}
	return fn(ctx, r.conn.Conn, o.Rel.From)
}
