package main

import (
	"errors"
	"path/filepath"
	"strings"

	duckdbgo "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate"
)

// allowedDirs are the folders a command's DuckDB may touch: those of its input, output and
// database files, and the ones the user adds with --allow-dir (for the files a --query reads).
func allowedDirs(in tablegate.Input, out tablegate.Output, extra []string) []string {
	var dirs []string
	add := func(path string) {
		if path != "" {
			dirs = append(dirs, filepath.Dir(globPrefix(path)))
		}
	}
	switch in := in.(type) {
	case tablegate.ParquetInput:
		add(in.Path)
	case tablegate.CSVInput:
		add(in.Path)
	case tablegate.NDJSONInput:
		add(in.Path)
	case tablegate.TableInput:
		add(in.File)
	case tablegate.QueryInput:
		add(in.File)
	}
	switch out := out.(type) {
	case tablegate.ParquetOutput:
		add(out.Path)
	case tablegate.TableOutput:
		add(out.File)
	}
	return append(dirs, extra...)
}

// referenceDirs are the folders of the reference data the plan's foreign keys read: named by
// the schema, like --input by the command line.
func referenceDirs(p *tablegate.Plan) []string {
	var dirs []string
	for _, r := range p.References() {
		if r.File != "" {
			dirs = append(dirs, filepath.Dir(r.File))
			continue
		}
		dirs = append(dirs, filepath.Dir(globPrefix(r.Input)))
	}
	return dirs
}

// globPrefix is the part of a path before its first glob character: data/2024-*/x.parquet
// reads inside data/.
func globPrefix(path string) string {
	if i := strings.IndexAny(path, "*?[{"); i >= 0 {
		return path[:i] + "x"
	}
	return path
}

// confinedHint adds what to do to DuckDB's refusal of a file outside the allowed folders.
func confinedHint(err error) error {
	var de *duckdbgo.Error
	if errors.As(err, &de) && de.Type == duckdbgo.ErrorTypePermission {
		return &hintError{err: err, hint: "tablegate lets DuckDB read and write only inside the folders of --input, --out and --db; " +
			"for other files a --query reads, add --allow-dir DIR"}
	}
	return err
}

// hintError is an error with advice appended; it unwraps to the error it advises on.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() + ". " + e.hint }
func (e *hintError) Unwrap() error { return e.err }
