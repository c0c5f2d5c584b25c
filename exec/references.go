package exec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// checkReferences opens each foreign-key rule's other data and compares its key columns' types
// with the keys' declared dtypes, before any row is read: a reference that cannot be read is an
// input error naming it, one whose types differ a column-schema mismatch.
// written are the database files the run writes (outputFiles): a reference in one of them is
// attached for writing, as the write will need it.
func (e *Engine) checkReferences(ctx context.Context, r *run, rep *outcome.Report, p *compile.Plan, written map[string]bool) error {
	for _, ref := range p.References() {
		var err error
		if ref.File != "" {
			err = r.openReferenceTable(ctx, ref, written[ref.File])
		} else {
			err = referenceFilesKind(ref)
		}
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
			producer := "file"
			if ref.File != "" {
				producer = "table"
			}
			return columnMismatch(rep, p, mm, fmt.Sprintf("the keys of rule %s (reference data %s)", ref.Rule, ref.Input), producer, actual)
		}
	}
	return nil
}

// openReferenceTable attaches a reference's DuckDB database file, read-only unless write (or finds
// it attached already, as the run's input), and points the reference's view at its table.
func (r *run) openReferenceTable(ctx context.Context, ref compile.Reference, write bool) error {
	if _, err := os.Stat(ref.File); err != nil {
		return fmt.Errorf("database file: %w", err)
	}
	alias, err := r.attach(ctx, ref.File, write)
	if err != nil {
		return err
	}
	o, err := runner.OpenSource(ctx, &backend{r: r}, compile.Source{Kind: compile.ReferenceSource, Catalog: alias,
		Schema: ref.DBSchema, Table: ref.Table, File: ref.File, View: ref.Source})
	if o.Rel.From != "" {
		r.views = append(r.views, ref.Source) // made, or being made when it failed
	}
	return err
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
