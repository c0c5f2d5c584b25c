package duckdb

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/datafile"
	"github.com/tablegate/tablegate/runner"
)

// A text file (CSV, NDJSON) has no column types of its own, or only JSON's: a run reads each
// column the schema declares as text and casts it to the declared dtype, strictly, rather than
// trusting the types DuckDB detects from a sample of the rows (a column empty in the first
// 30,000 rows reads as VARCHAR there). A value that does not read is an UnreadableValueError
// naming the file, the line and the column.

// DataExt is the lower-case extension of a file's data format, beneath a compression suffix
// DuckDB reads: ".csv" for both a.csv and a.csv.gz.
func DataExt(path string) string { return datafile.Ext(path) }

// openText opens a file for reading its text, decompressed when its extension says it is
// compressed (as DuckDB reads it).
func openText(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".gz":
		z, err := gzip.NewReader(bufio.NewReader(f))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return readCloser{z, f}, nil
	case ".zst":
		z, err := zstd.NewReader(bufio.NewReader(f))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return readCloser{z.IOReadCloser(), f}, nil
	}
	return f, nil
}

type readCloser struct {
	io.ReadCloser
	file *os.File
}

func (r readCloser) Close() error {
	r.ReadCloser.Close()
	return r.file.Close()
}

// UnreadableValueError is a value of a CSV or NDJSON file that does not read as its column's
// declared dtype (abc in an Int64 column, 3.7 in an Int64 column, which a cast would round).
type UnreadableValueError struct {
	File string
	// Line is the file's line where the row starts (0: unknown); Row counts data rows from 1.
	Line, Row int64
	Column    string
	Value     string
	DType     string
	csv       bool
}

func (e *UnreadableValueError) Error() string {
	where := fmt.Sprintf("row %d", e.Row)
	if e.Line > 0 {
		where = fmt.Sprintf("line %d", e.Line)
	}
	missing := ""
	if e.csv {
		missing = fmt.Sprintf(" or, if it spells a missing value, give --csv-null %q (repeatable)", e.Value)
	}
	return fmt.Sprintf("%s %s, column %q: %q does not read as %s, the column's declared dtype; fix the value%s, or declare the column String and check it with a rule",
		e.File, where, e.Column, e.Value, e.DType, missing)
}

// unreadableValue is the UnreadableValueError of a value of the text file in that does not read
// as its column's dtype, with the line it is on.
func unreadableValue(in runner.Input, u *compile.UnreadableText) error {
	e := &UnreadableValueError{Row: u.Row, Column: u.Column.Name, Value: u.Value, DType: u.Column.DType.String()}
	switch in := in.(type) {
	case runner.CSVInput:
		e.File, e.Line, e.csv = in.Path, csvLine(in.Path, csvDelim(in), !in.NoHeader, u.Row), true
	case runner.NDJSONInput:
		e.File, e.Line = in.Path, ndjsonLine(in.Path, u.Row)
	}
	return e
}

// csvLine is the line where a CSV file's data row (from 1) starts, counting quoted line breaks;
// 0 when the file cannot be read that far.
func csvLine(path string, delim rune, header bool, row int64) int64 {
	f, err := openText(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	cr.Comma, cr.LazyQuotes, cr.FieldsPerRecord, cr.ReuseRecord = delim, true, -1, true
	if header {
		row++
	}
	for i := int64(1); ; i++ {
		if _, err := cr.Read(); err != nil {
			return 0
		}
		if i == row {
			line, _ := cr.FieldPos(0)
			return int64(line)
		}
	}
}

// ndjsonLine is the line of an NDJSON file's row (from 1): blank lines hold no row.
func ndjsonLine(path string, row int64) int64 {
	f, err := openText(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var line, rows int64
	for {
		text, err := br.ReadString('\n')
		if text == "" && err != nil {
			return 0
		}
		line++
		if strings.TrimSpace(text) != "" {
			if rows++; rows == row {
				return line
			}
		}
	}
}
