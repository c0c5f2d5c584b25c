package exec

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/schema"
)

// checkReferences opens each foreign-key rule's other data and compares its key columns' types
// with the keys' declared dtypes, before any row is read: a reference that cannot be read is an
// input error naming it, one whose types differ a column-schema mismatch.
func (e *Engine) checkReferences(ctx context.Context, r *run, rep *outcome.Report, p *compile.Plan) error {
	for _, ref := range p.References() {
		err := referenceFilesKind(ref)
		var actual []casting.ColumnType
		if err == nil {
			actual, err = casting.Describe(ctx, r.conn, ref.Source)
		}
		if err != nil {
			return fail(rep, &outcome.InputError{Input: fmt.Sprintf("%s (the reference data of rule %s)", ref.Input, ref.Rule), Err: err})
		}
		want := make([]*schema.Column, len(ref.To))
		for i, to := range ref.To {
			want[i] = &schema.Column{Name: to, DType: p.Schema().Column(ref.Columns[i]).DType}
		}
		if mm := casting.CheckColumns(want, actual); len(mm) > 0 {
			return columnMismatch(rep, p, mm, fmt.Sprintf("the keys of rule %s (reference data %s)", ref.Rule, ref.Input), "file", actual)
		}
	}
	return nil
}

// referenceFilesKind refuses a reference whose files (each of a glob) are not regular files: a
// named pipe would block DuckDB's read for good.
func referenceFilesKind(ref compile.Reference) error {
	matches, _ := filepath.Glob(ref.Input)
	for _, m := range matches {
		if err := filekind.Regular(m); err != nil {
			return err
		}
	}
	return nil
}
