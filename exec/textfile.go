package exec

import (
	"bufio"
	"compress/gzip"
	"context"
	gosql "database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/datafile"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
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
		missing = " or, if it spells a missing value, give --csv-null"
	}
	return fmt.Sprintf("%s %s, column %q: %q does not read as %s, the column's declared dtype; fix the value%s, or declare the column String and check it with a rule",
		e.File, where, e.Column, e.Value, e.DType, missing)
}

// textCasts are the columns of a text file read as text and cast to their declared dtype:
// those of declared that the file has (names, as read).
func textCasts(declared []*schema.Column, names []string) (casts []compile.TextCast, cols []*schema.Column) {
	has := make(map[string]bool, len(names))
	for _, n := range names {
		has[n] = true
	}
	for _, col := range declared {
		if tc, ok := compile.TextCastOf(col); ok && has[col.Name] {
			casts, cols = append(casts, tc), append(cols, col)
		}
	}
	return casts, cols
}

// castText makes the temp table of a text file's rows, read with the cast columns as VARCHAR,
// typed: the first value that does not read is an UnreadableValueError (line finds its line),
// else the columns are cast into a new temp table and the text's is dropped.
func castText(ctx context.Context, r *run, text string, casts []compile.TextCast, cols []*schema.Column,
	unreadable func(row int64, col *schema.Column, value string) error) (compile.Relation, error) {
	rel := compile.Relation{From: "temp.main." + sql.Ident(text), RowID: "rowid"}
	if len(casts) == 0 {
		return rel, nil
	}
	var rowid int64
	var i int
	var value string
	err := r.conn.QueryRowContext(ctx, compile.FirstUnreadable(text, casts)).Scan(&rowid, &i, &value)
	switch {
	case err == nil:
		return rel, unreadable(rowid+1, cols[i], value)
	case !errors.Is(err, gosql.ErrNoRows):
		return rel, fmt.Errorf("read the columns as their dtypes: %w", err)
	}
	name := r.tempName("typed")
	if err := r.exec(ctx, compile.CastText(name, text, casts)); err != nil {
		return rel, fmt.Errorf("read the columns as their dtypes: %w", err)
	}
	if err := r.exec(ctx, compile.DropTemp(text)); err != nil {
		return rel, err
	}
	return compile.Relation{From: "temp.main." + sql.Ident(name), RowID: "rowid"}, nil
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

// materialiseText copies a text file's rows into a temp table, named as returned.
func materialiseText(ctx context.Context, r *run, from string) (string, error) {
	name := r.tempName("input")
	return name, r.exec(ctx, compile.Materialise(name, from))
}

// columnNames reads the names of a relation's columns.
func columnNames(ctx context.Context, r *run, from string) ([]casting.ColumnType, []string, error) {
	cols, err := casting.Describe(ctx, r.conn, from)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return cols, names, nil
}

// oneColumnDelimiter says, for a CSV header read as one column whose name holds another common
// delimiter, which one the file seems to use.
func oneColumnDelimiter(path string, names []string) error {
	if len(names) != 1 {
		return nil
	}
	for _, d := range []string{";", "\t", "|"} {
		if strings.Contains(names[0], d) {
			flag := d
			if d == "\t" {
				flag = `\t`
			}
			return fmt.Errorf("%s: the header reads as one column, %q, which holds %q: are the fields separated by %q? give --csv-delimiter '%s' (or --csv-delimiter ',' if the one column is right)",
				path, names[0], d, d, flag)
		}
	}
	return nil
}
