package duckdb

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	duckdbgo "github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// reading is how a run reads a text file: declared are the schema's columns (nil: none, every
// type detected); sampleAll detects types from every row rather than a sample.
type reading struct {
	declared  []*schema.Column
	sampleAll bool
}

// sourceOf is what the engine knows of the input without a statement, from which compile builds
// the statements that open it (compile.Source); a text file is read as how says, and writes are
// the database files the run writes, which the input attaches for writing too.
func sourceOf(ctx context.Context, r *run, in runner.Input, how reading, writes map[string]bool) (compile.Source, error) {
	switch in := in.(type) {
	case runner.ParquetInput:
		return parquetSource(ctx, r, in)
	case runner.CSVInput:
		return csvSource(in, how)
	case runner.NDJSONInput:
		return ndjsonSource(in, how)
	case runner.TableInput:
		return tableSource(r, in, writes)
	case runner.QueryInput:
		return querySource(r, in, writes)
	}
	return otherSource(ctx, r, in)
}

func noData(path string) error {
	return fmt.Errorf("%s: %w (no file matches)", path, runner.ErrNoSourceData)
}

func parquetSource(ctx context.Context, r *run, in runner.ParquetInput) (compile.Source, error) {
	matches, err := filepath.Glob(in.Path)
	if err != nil {
		return compile.Source{}, fmt.Errorf("bad glob %q: %w", in.Path, err)
	}
	if len(matches) == 0 {
		return compile.Source{}, noData(in.Path)
	}
	for _, m := range matches {
		if err := checkParquetMagic(m); err != nil {
			return compile.Source{}, err
		}
	}
	return compile.Source{Kind: compile.ParquetSource, Path: in.Path, Files: len(matches),
		Diagnose: func(err error) error { return unreadableFooter(ctx, r, in, err) }}, nil
}

// checkParquetMagic checks that a file starts and ends with Parquet's magic bytes, for a message
// that says what is wrong with a truncated or foreign file (DuckDB's is "No magic bytes found at
// end of file"). It reads 8 bytes.
func checkParquetMagic(path string) error {
	if err := filekind.Regular(path); err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return err
	case st.IsDir():
		return fmt.Errorf("%s is a directory, not a Parquet file", path)
	case st.Size() == 0:
		return fmt.Errorf("%s is an empty file, not Parquet", path)
	}
	head, tail := make([]byte, 4), make([]byte, 4)
	_, herr := f.ReadAt(head, 0)
	_, terr := f.ReadAt(tail, max(st.Size()-4, 0))
	switch {
	case herr != nil || string(head) != "PAR1":
		return fmt.Errorf("%s is not a Parquet file: it does not start with Parquet's magic bytes", path)
	case st.Size() < 12 || terr != nil || string(tail) != "PAR1":
		return fmt.Errorf("%s is truncated or corrupt: a Parquet file ends with its footer and magic bytes, this one does not (%d bytes; was it still being written?)", path, st.Size())
	}
	return nil
}

// unreadableFooter names the file of the input whose footer DuckDB cannot read, when reading
// the input's columns failed with err: DuckDB's own message is its Thrift decoder's ("don't know
// what type:", "Variable-length int over 10 bytes") and names no file. It returns err when every
// footer reads.
func unreadableFooter(ctx context.Context, r *run, in runner.ParquetInput, err error) error {
	matches, gerr := filepath.Glob(in.Path)
	if gerr != nil || ctx.Err() != nil {
		return err
	}
	for _, m := range matches {
		var n int64
		ferr := r.conn.QueryRowContext(ctx, compile.ParquetFileFooter(m)).Scan(&n)
		var de *duckdbgo.Error
		// Only a decoding error says the footer is bad; running out of memory says nothing of it.
		if errors.As(ferr, &de) && (de.Type == duckdbgo.ErrorTypeInvalid || de.Type == duckdbgo.ErrorTypeInvalidInput) && ctx.Err() == nil {
			return fmt.Errorf("%s is not a valid Parquet file: its footer (the file's metadata) cannot be read; was it written completely, by a Parquet writer? (DuckDB: %s)", m, firstLine(ferr.Error()))
		}
	}
	return err
}

func statFile(path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return noData(path)
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return filekind.Regular(path)
	case st.Size() == 0:
		return fmt.Errorf("%s is an empty file", path)
	}
	return nil
}

// source reads the file with a fixed delimiter (tab for .tsv, else comma), the header on the
// first line, double quotes and strict mode (compile.ReadCSV).
func csvSource(in runner.CSVInput, how reading) (compile.Source, error) {
	if err := statFile(in.Path); err != nil {
		return compile.Source{}, err
	}
	delim := csvDelim(in)
	if !in.NoHeader {
		if err := duplicateHeader(in.Path, delim); err != nil {
			return compile.Source{}, err
		}
	}
	return compile.Source{Kind: compile.CSVSource, Path: in.Path, Declared: how.declared,
		CSV:            compile.CSVRead{Header: !in.NoHeader, Delim: string(delim), Null: in.Null, SampleAll: how.sampleAll},
		GuessDelimiter: in.Delimiter == 0 && !in.NoHeader,
		Diagnose:       func(err error) error { return diagnoseCSV(in, delim, err) }}, nil
}

// csvDelim is the file's delimiter: the one given, else a tab for .tsv and a comma for others.
func csvDelim(in runner.CSVInput) rune {
	switch {
	case in.Delimiter != 0:
		return in.Delimiter
	case DataExt(in.Path) == ".tsv":
		return '\t'
	}
	return ','
}

// diagnoseCSV names the line of an unterminated quote or a ragged row that made DuckDB's reading
// fail, or returns its error.
func diagnoseCSV(in runner.CSVInput, delim rune, err error) error {
	if bad := unterminatedQuote(in.Path, byte(delim)); bad != nil {
		return bad
	}
	if ragged := raggedRow(in.Path, delim); ragged != nil {
		return ragged
	}
	return err
}

// maxHeader bounds what duplicateHeader reads looking for the header's end.
const maxHeader = 16 << 20

// duplicateHeader refuses a header that names a column twice, in any case: DuckDB matches column
// names in any case and renames the second one (a_1, A_1), so a rule would check only one copy.
func duplicateHeader(path string, delim rune) error {
	f, err := openText(path)
	if err != nil {
		return err
	}
	defer f.Close()
	cr := csv.NewReader(io.LimitReader(f, maxHeader))
	cr.Comma, cr.LazyQuotes, cr.FieldsPerRecord = delim, true, -1
	header, err := cr.Read()
	if err != nil {
		return nil // DuckDB's reading says what is wrong
	}
	seen := map[string]int{}
	for i, n := range header {
		k := strings.ToLower(n)
		if j, ok := seen[k]; ok {
			return fmt.Errorf("%s: the header names column %q twice (columns %d and %d: %q and %q); column names match in any case, so rename one of them",
				path, header[j], j+1, i+1, header[j], n)
		}
		seen[k] = i
	}
	return nil
}

// unterminatedQuote names the line where a quoted field opens that does not close where a field
// ends (a doubled quote inside one is a quote): its closing quote is missing, so the field runs
// on to the end of the file or to a later line's quote. DuckDB refuses such a file but, when the
// line is among those its sniffer samples, says only that it could not detect the dialect.
func unterminatedQuote(path string, delim byte) error {
	f, err := openText(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	const (
		fieldStart = iota
		unquoted
		quoted
		afterQuote // a quote inside a quoted field: its end, or the first of a doubled quote
	)
	state, line, opened := fieldStart, 1, 0
	br := bufio.NewReaderSize(f, 1<<20)
	for {
		c, err := br.ReadByte()
		if err != nil {
			break
		}
		switch {
		case state == quoted:
			if c == '"' {
				state = afterQuote
			}
		case c == '"' && state == fieldStart:
			state, opened = quoted, line
		case c == '"' && state == afterQuote:
			state = quoted
		case c == delim || c == '\n':
			state = fieldStart
		case c == '\r' && state == afterQuote:
		case state == afterQuote:
			return unterminated(path, opened)
		default:
			state = unquoted
		}
		if c == '\n' {
			line++
		}
	}
	if state == quoted {
		return unterminated(path, opened)
	}
	return nil
}

func unterminated(path string, line int) error {
	return fmt.Errorf("%s line %d: a quoted field opens there and is not closed (an unterminated quote); fix the file or export it again", path, line)
}

// raggedRow names the first row whose field count differs from the header's. DuckDB fails on
// such a file, but when the row is among the lines its sniffer samples it only says that it
// could not detect the dialect.
func raggedRow(path string, delim rune) error {
	f, err := openText(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	cr.Comma = delim
	header, err := cr.Read()
	if err != nil {
		return nil
	}
	for {
		rec, err := cr.Read()
		var pe *csv.ParseError
		switch {
		case err == nil:
		case errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount):
			return fmt.Errorf("%s line %d has %d fields where the header has %d (a ragged row); fix the file or export it again", path, pe.StartLine, len(rec), len(header))
		default:
			return nil // io.EOF, or a quoting problem DuckDB's own message describes better
		}
	}
}

func ndjsonSource(in runner.NDJSONInput, how reading) (compile.Source, error) {
	if err := statFile(in.Path); err != nil {
		return compile.Source{}, err
	}
	return compile.Source{Kind: compile.NDJSONSource, Path: in.Path, Declared: how.declared, SampleAll: how.sampleAll}, nil
}

func tableSource(r *run, in runner.TableInput, writes map[string]bool) (compile.Source, error) {
	src := compile.Source{Kind: compile.TableSource, Schema: in.Schema, Table: in.Table, File: in.File}
	if in.File == "" {
		return src, nil
	}
	if _, err := os.Stat(in.File); errors.Is(err, os.ErrNotExist) {
		return src, noData(in.File)
	}
	return src, r.attachInput(&src, in.File, writes)
}

func querySource(r *run, in runner.QueryInput, writes map[string]bool) (compile.Source, error) {
	src := compile.Source{Kind: compile.QuerySource, Query: in.SQL}
	if in.File == "" {
		return src, nil
	}
	return src, r.attachInput(&src, in.File, writes)
}

// attachInput sets src to attach the database file of an input or a reference, read-only unless
// the run writes it too, once per run: a file attached already is read under its alias. The alias
// is the run's from now on: when the ATTACH fails the run ends, and DETACH IF EXISTS when it
// closes is then a no-op.
func (r *run) attachInput(src *compile.Source, path string, writes map[string]bool) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if alias, ok := r.attached[abs]; ok {
		src.Catalog = alias
		return nil
	}
	write := writes[abs]
	if !write {
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("database file: %w", err)
		}
	}
	if err := filekind.Regular(path); err != nil {
		return err
	}
	src.Catalog = r.alias(path)
	src.Attach = compile.Attach(abs, src.Catalog, write)
	src.Diagnose = func(err error) error { return openError(path, err) }
	r.attached[abs] = src.Catalog
	return nil
}

// columnTypes are the columns an opening read, as casting compares them.
func columnTypes(cols []compile.NamedType) []casting.ColumnType {
	out := make([]casting.ColumnType, len(cols))
	for i, c := range cols {
		out[i] = casting.ColumnType{Name: c.Name, Type: c.Type}
	}
	return out
}

// fileMismatches are the declared columns the files of a multi-file Parquet input store
// otherwise than the scan reads them (compile.Source.FileMismatches).
func fileMismatches(src compile.Source, o *compile.Opening) []casting.Mismatch {
	var out []casting.Mismatch
	for _, m := range src.FileMismatches(o) {
		actual := m.Actual
		if actual == "" {
			actual = casting.Missing
		}
		out = append(out, casting.Mismatch{Column: m.Column, Expected: m.Expected, Actual: actual, File: m.File, Reference: m.Reference})
	}
	return out
}
