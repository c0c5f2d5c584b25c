package tablegate

import (
	"context"
	gosql "database/sql"
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/sql"
)

// CopyColumns copies the plan's columns of the input to the Parquet file path with DuckDB alone,
// checking nothing: the floor that validation's cost is measured against (tablegate bench).
func (e *Engine) CopyColumns(ctx context.Context, p *Plan, in Input, path string) error {
	cols := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		cols[i] = sql.Ident(c.Name)
	}
	return e.e.Inspect(ctx, in, func(ctx context.Context, c *gosql.Conn, from string) error {
		_, err := c.ExecContext(ctx, fmt.Sprintf("COPY (SELECT %s FROM %s) TO %s (FORMAT parquet)", strings.Join(cols, ", "), from, sql.String(path)))
		return err
	})
}
