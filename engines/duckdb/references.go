package duckdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/runner"
)

// OpenReference makes a reference readable and reads its columns: a table of a DuckDB database
// file is attached (read-only unless the run writes the file, or found attached already, as the
// run's input) and read through the reference's view; files are read in place.
func (b *backend) OpenReference(ctx context.Context, ref compile.Reference) ([]casting.ColumnType, error) {
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
