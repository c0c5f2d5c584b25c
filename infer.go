package tablegate

import (
	"context"
	gosql "database/sql"

	"github.com/tablegate/tablegate/infer"
)

// InferOptions say what InferSchema infers: the schema's name, the input's name in the file's
// header comment, bounds, how few distinct values make an is_in, and the row count under which
// all-distinct columns are only proposed unique.
type InferOptions = infer.Options

// InferredSchema is a starting schema as YAML, and the rows it was inferred from.
type InferredSchema = infer.Result

// InferSchema writes a starting schema from the input's data: exact dtypes (so that the column
// check passes), nullable where NULLs occur, is_in for strings with few distinct values, bounds
// on request, unique where every value is distinct. The input is read as a run reads it, its
// text files' types detected from every row.
func (e *Engine) InferSchema(ctx context.Context, in Input, opts InferOptions) (*InferredSchema, error) {
	var res *InferredSchema
	err := e.e.Inspect(ctx, in, func(ctx context.Context, c *gosql.Conn, from string) error {
		var err error
		res, err = infer.Infer(ctx, c, from, opts)
		return err
	})
	return res, err
}
