package duckdb

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
// input error naming it, one whose types differ a column-schema mismatch. Its statements are
// steps of the input's opening (runner.OpenSource), which explain lists. A reference in a
// database file the run writes (outputFiles) is attached for writing, as the write will need it.
func (e *Engine) checkReferences(ctx context.Context, b *backend, rep *outcome.Report, p *compile.Plan) error {
	var problems []outcome.ReferenceMismatch
	for _, ref := range p.References() {
		actual, err := b.openReference(ctx, ref)
		if err != nil {
			return fail(rep, &outcome.InputError{Input: fmt.Sprintf("%s (the reference data of rule %s)", ref.Input, ref.Rule), Err: err})
		}
		want := make([]*schema.Column, len(ref.To))
		key := make(map[string]*schema.Column, len(ref.To))
		for i, to := range ref.To {
			col := p.Schema().Column(ref.Columns[i])
			want[i] = &schema.Column{Name: to, DType: col.DType}
			key[to] = col
		}
		names := make([]string, len(actual))
		for i, c := range actual {
			names[i] = c.Name
		}
		for _, m := range casting.CheckColumns(want, actual) {
			problems = append(problems, outcome.ReferenceMismatch{Rule: ref.Rule, Input: ref.Input, Key: key[m.Column].Name,
				DType: m.Expected, Column: m.Column, Actual: m.Actual, Columns: names})
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return referenceMismatch(rep, p, &outcome.ColumnSchemaError{Schema: p.Name, References: problems})
}

// referenceMismatch reports references whose key types differ from the keys' dtypes, found once
// the input's columns matched: the column check fails on the references, which it names.
func referenceMismatch(rep *outcome.Report, p *compile.Plan, err *outcome.ColumnSchemaError) error {
	out := outcome.ColumnSchemaMismatch
	rep.Outcome = &out
	c := columnsCheck(p, nil)
	c.Passed, c.ResultDescription = false, err.Error()
	rep.Checks = []outcome.Check{c}
	return fail(rep, err)
}

// openReference makes a reference readable and reads its columns: a table of a DuckDB database
// file is attached (read-only unless the run writes the file, or found attached already, as the
// run's input) and read through the reference's view; files are read in place.
func (b *backend) openReference(ctx context.Context, ref compile.Reference) ([]casting.ColumnType, error) {
	r := b.r
	src := compile.Source{Kind: compile.ReferenceSource, View: ref.Source, Check: true}
	if ref.File != "" {
		if _, err := os.Stat(ref.File); err != nil {
			return nil, fmt.Errorf("database file: %w", err)
		}
		if err := r.attachInput(&src, ref.File, b.written); err != nil {
			return nil, err
		}
		src.Schema, src.Table, src.File = ref.DBSchema, ref.Table, ref.File
	} else if err := referenceFilesKind(ref); err != nil {
		return nil, err
	}
	o, err := runner.OpenSource(ctx, b, src)
	if b.opening != nil {
		b.opening.Steps = append(b.opening.Steps, o.Steps...)
	}
	if ref.File != "" && o.Rel.From != "" {
		r.views = append(r.views, ref.Source) // made, or being made when it failed
	}
	if err != nil {
		return nil, err
	}
	return columnTypes(o.Columns), nil
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
