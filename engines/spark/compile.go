package spark

import (
	"context"

	"github.com/tablegate/tablegate/compile"
	dialect "github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/schema"
)

// Compile compiles a schema for the Spark engine. A program that links DuckDB's parser compiles
// it as every engine does (compile.CompileContext: DuckDB's custom SQL checked too); one that
// links none, Spark's SQL alone (dialect.CompileSchema): each custom rule is its Spark form, a
// rule with DuckDB SQL alone is refused by name, and table checks are refused.
func Compile(ctx context.Context, s *schema.Schema) (*compile.Plan, error) {
	if compile.HasParser() {
		return compile.CompileContext(ctx, s)
	}
	return dialect.CompileSchema(ctx, s)
}
