package spark

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/compile"
)

// Source is a Parquet input as a Spark run opens it (a compile.Opener, which the run's one
// interpreter of inputs runs), in Spark SQL: when this process cannot open the files (an object
// store, HDFS), Spark lists them and returns the end of the first one, whose footer Footer
// checks; then views of the files with each row's ordinal (a file's row index, after the rows of
// the files before it in name order: Spark lists a directory's files in that order, and
// row_index counts within one file); then the input's columns, in Spark's type syntax.
type Source struct {
	// ID is the run's number, which names its views.
	ID int64
	// URL is where Spark reads the input.
	URL string
	// Files is how many files the input has when this process listed them (a local input), 0
	// when it could not: one file needs no count of the rows per file.
	Files int
	// Ordinal, when set, is the row ordinal of a directory of files whose row counts this process
	// read from their footers (by file name, __tg_name): Spark then need not count each file's rows.
	Ordinal string
	// Footer, when set, checks the footer of the input's first Parquet file (in name order),
	// which Spark reads for this process: tail is the file's last bytes, size its size. It
	// returns an error wrapping ErrShortTail when the footer is longer than tail.
	Footer func(file string, size int64, tail []byte) error

	// What the footer's stages read for the next: the first file and its size.
	footerFile string
	footerSize int64
}

// ErrShortTail is a footer longer than the bytes read of its file's end.
var ErrShortTail = errors.New("the footer is longer than the bytes read")

// footerTail is how much of a file's end the first read fetches: most footers fit.
const footerTail = 64 << 10

// Next is the next stage that opens the input (compile.Opener).
func (s *Source) Next(o *compile.Opening) (compile.Stage, error) {
	return compile.StageBuilders[*Source]{footerFiles, footerRead, footerCheck, footerCheckWhole,
		rawView, fileRows, inputView, describeInput, inputColumns}.Next(s, o)
}

func (s *Source) footerView() string { return fmt.Sprintf("__tg_footer_%d", s.ID) }
func (s *Source) rawView() string    { return fmt.Sprintf("__tg_raw_%d", s.ID) }
func (s *Source) inputView() string  { return fmt.Sprintf("__tg_input_%d", s.ID) }

// footerFiles lists the input's Parquet files, reading no content, and reads the first one's name
// and size.
func footerFiles(s *Source, o *compile.Opening) (compile.Stage, error) {
	if s.Footer == nil {
		return compile.Stage{}, nil
	}
	view := s.footerView()
	o.Temps = append(o.Temps, view)
	return compile.Stage{
		Steps: []compile.Step{
			{Op: compile.Exec, What: "list the input's Parquet files", SQL: fmt.Sprintf(
				"CREATE OR REPLACE TEMPORARY VIEW %s USING binaryFile OPTIONS (path %s, pathGlobFilter '*.parquet')", view, String(s.URL))},
			{Op: compile.ReadRow, What: "read the first file's name and size", SQL: fmt.Sprintf(
				"SELECT path, length FROM %s ORDER BY path LIMIT 1", view)},
		},
		Fail: func(err error) error { return fmt.Errorf("list the input's Parquet files: %w", err) },
	}, nil
}

// footerRead reads the end of the first file: the filter on its path is applied before Spark
// reads any content, so only this file is read, whatever the input's size.
func footerRead(s *Source, o *compile.Opening) (compile.Stage, error) {
	if s.Footer == nil {
		return compile.Stage{}, nil
	}
	rows := o.Read(1)
	if len(rows) == 0 {
		return compile.Stage{}, fmt.Errorf("%s holds no .parquet files", s.URL)
	}
	s.footerFile, _ = rows[0][0].(string)
	s.footerSize, _ = rows[0][1].(int64)
	return s.readTail(min(s.footerSize, footerTail)), nil
}

// readTail is the stage that reads the last n bytes of the first file.
func (s *Source) readTail(n int64) compile.Stage {
	return compile.Stage{
		Steps: []compile.Step{{Op: compile.ReadRows, What: "read the first file's footer", SQL: fmt.Sprintf(
			"SELECT hex(substring(content, %d)) FROM %s WHERE path = %s", s.footerSize-n+1, s.footerView(), String(s.footerFile))}},
		Fail: func(err error) error { return fmt.Errorf("read the Parquet footer of %s: %w", s.footerFile, err) },
	}
}

// footerCheck checks the footer the last stage read; a footer longer than the bytes read is read
// again from the whole file.
func footerCheck(s *Source, o *compile.Opening) (compile.Stage, error) {
	if s.Footer == nil {
		return compile.Stage{}, nil
	}
	err := s.checkTail(o)
	if errors.Is(err, ErrShortTail) && s.footerSize > footerTail {
		return s.readTail(s.footerSize), nil
	}
	return compile.Stage{}, err
}

// footerCheckWhole checks the footer of the whole file, when footerCheck read it.
func footerCheckWhole(s *Source, o *compile.Opening) (compile.Stage, error) {
	if o.Read(0) == nil {
		return compile.Stage{}, nil
	}
	return compile.Stage{}, s.checkTail(o)
}

// checkTail checks the footer in the bytes the last stage read.
func (s *Source) checkTail(o *compile.Opening) error {
	rows := o.Read(0)
	if len(rows) != 1 {
		return fmt.Errorf("read the Parquet footer of %s: Spark returned %d rows", s.footerFile, len(rows))
	}
	text, _ := rows[0][0].(string)
	tail, err := hex.DecodeString(text)
	if err != nil {
		return fmt.Errorf("read the Parquet footer of %s: %w", s.footerFile, err)
	}
	return s.Footer(s.footerFile, s.footerSize, tail)
}

// rawView makes the input a view with each row's file and its index in the file.
func rawView(s *Source, o *compile.Opening) (compile.Stage, error) {
	o.Temps = append(o.Temps, s.rawView())
	return compile.Stage{Steps: []compile.Step{{Op: compile.Exec, What: "open the input", SQL: fmt.Sprintf(
		"CREATE OR REPLACE TEMPORARY VIEW %s AS SELECT *, _metadata.file_path AS __tg_file, _metadata.file_name AS __tg_name, _metadata.row_index AS __tg_row FROM parquet.%s",
		s.rawView(), Ident(s.URL))}}}, nil
}

// fileRows counts the rows of each file through Spark (a pass over the files' rows, reading no
// column's values), unless the input is one file or this process read the counts (Ordinal).
func fileRows(s *Source, _ *compile.Opening) (compile.Stage, error) {
	if s.Files == 1 || s.Ordinal != "" {
		return compile.Stage{}, nil
	}
	return compile.Stage{Steps: []compile.Step{{Op: compile.ReadRows, What: "count the rows of each file", SQL: fmt.Sprintf(
		"SELECT __tg_file, count(*) FROM %s GROUP BY __tg_file ORDER BY __tg_file", s.rawView())}}}, nil
}

// inputView makes the relation the program reads: the rows with their ordinal, the row index
// offset by the rows of the files before it.
func inputView(s *Source, o *compile.Opening) (compile.Stage, error) {
	ordinal := "__tg_row"
	if s.Ordinal != "" {
		ordinal = s.Ordinal
	} else if rows := o.Read(0); len(rows) > 1 {
		var b strings.Builder
		b.WriteString("__tg_row + CASE __tg_file")
		var offset int64
		for _, row := range rows {
			f, _ := row[0].(string)
			n, _ := row[1].(int64)
			fmt.Fprintf(&b, " WHEN %s THEN %d", String(f), offset)
			offset += n
		}
		b.WriteString(" END")
		ordinal = b.String()
	}
	input := s.inputView()
	o.Temps = append(o.Temps, input)
	o.Rel = compile.Relation{From: input, RowID: RowID, DenseRowIDs: true}
	return compile.Stage{Steps: []compile.Step{{Op: compile.Exec, What: "open the input", SQL: fmt.Sprintf(
		"CREATE OR REPLACE TEMPORARY VIEW %s AS SELECT *, %s AS %s FROM %s", input, ordinal, RowID, s.rawView())}}}, nil
}

// describeInput reads the input's columns in Spark's type syntax.
func describeInput(s *Source, _ *compile.Opening) (compile.Stage, error) {
	return compile.Stage{Steps: []compile.Step{{Op: compile.ReadRows, What: "read the column types", SQL: "DESCRIBE QUERY SELECT * FROM parquet." + Ident(s.URL)}}}, nil
}

// inputColumns keeps the columns describeInput read; a column of the input may not take the
// row ordinal's name.
func inputColumns(_ *Source, o *compile.Opening) (compile.Stage, error) {
	for _, row := range o.Read(0) {
		name, _ := row[0].(string)
		typ, _ := row[1].(string)
		if name == RowID {
			return compile.Stage{}, fmt.Errorf("the input has a column %s, the name tablegate gives the row ordinal", name)
		}
		o.Columns = append(o.Columns, compile.NamedType{Name: name, Type: typ})
	}
	return compile.Stage{}, nil
}

// ProbeSource is the statement that makes __tg_src, the view of the relation from that the
// custom rules' probes (Rule.Probe) read.
func ProbeSource(from string) compile.Step {
	return compile.Step{Op: compile.Exec, What: "open the input for the custom rules' probes", SQL: "CREATE OR REPLACE TEMPORARY VIEW __tg_src AS SELECT * FROM " + from}
}
