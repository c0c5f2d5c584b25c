package tablegate

import (
	"context"
	"errors"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// LoadOption changes how LoadSchemaContext reads a schema file.
type LoadOption = schema.LoadOption

// WithSchemaRoot lets `extends` name files anywhere under dir. Without it, a schema may extend
// only files in its own folder tree: a schema from elsewhere must not read arbitrary files into
// messages and reports.
func WithSchemaRoot(dir string) LoadOption { return schema.WithRoot(dir) }

// LoadSchemaContext is LoadSchema stopped by ctx, with options; when the schema has declaration
// problems, the problems of its custom SQL are among them, so that every problem comes at once
// rather than the SQL's once the others are fixed. The schema comes with its *SchemaErrors as
// far as it loaded.
func LoadSchemaContext(ctx context.Context, path string, opts ...LoadOption) (*Schema, error) {
	s, err := schema.LoadFileContext(ctx, path, opts...)
	if errs := (*SchemaErrors)(nil); errors.As(err, &errs) && s != nil {
		errs.Problems = append(errs.Problems, compile.CheckCustomSQL(ctx, s)...)
	}
	return s, err
}
