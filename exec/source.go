package exec

import (
	"bufio"
	"context"
	gosql "database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// ErrNoSourceData is the cause of an input error when the input matches no data at all (a
// missing file, a glob that matches nothing). Options.SkipMissing turns it into the skipped
// outcome.
var ErrNoSourceData = runner.ErrNoSourceData

// Input is where an asset's rows come from.
type Input interface {
	// String names the input in messages.
	String() string
	// open makes the input readable on the run's connection.
	open(ctx context.Context, r *run, writes map[string]bool) (compile.Relation, error)
}

// ParquetInput reads a Parquet file or glob in place.
type ParquetInput struct{ Path string }

// CSVInput reads a CSV file, gzip- or zstd-compressed when its name ends in .gz or .zst. A run
// reads each column the schema declares as its dtype (see UnreadableValueError); other
// columns' types are detected. The zero options read a header row, fields separated by commas
// (tabs for .tsv) and DuckDB's NULL spelling, the empty field.
type CSVInput struct {
	Path string
	// Delimiter separates fields; 0 is by extension.
	Delimiter rune
	// NoHeader reads the first line as data; DuckDB then names the columns column0, column1, …
	NoHeader bool
	// Null, when set, is the text that reads as NULL (instead of the empty field).
	Null *string

	reading
}

// NDJSONInput reads a newline-delimited JSON file, gzip- or zstd-compressed when its name ends
// in .gz or .zst. A run reads each key the schema declares as a column of its dtype.
type NDJSONInput struct {
	Path string

	reading
}

// reading is how a run reads a text file: declared are the schema's columns (nil: none, every
// type detected); sampleAll detects types from every row rather than a sample.
type reading struct {
	declared  []*schema.Column
	sampleAll bool
}

// readAs sets how a text input (CSV, NDJSON) is read; other inputs are returned as they are.
func readAs(in Input, how reading) Input {
	switch v := in.(type) {
	case CSVInput:
		v.reading = how
		return v
	case NDJSONInput:
		v.reading = how
		return v
	}
	return in
}

// TableInput reads a table of a DuckDB database file ("" File: the engine's own database).
type TableInput struct {
	File   string
	Schema string // "" is main
	Table  string
}

// QueryInput runs SQL as the input, in a DuckDB database file when File is set.
type QueryInput struct {
	SQL  string
	File string
}

// producerOf says what made an input, for a column-mismatch message's advice.
func producerOf(in Input) string {
	switch in.(type) {
	case ParquetInput, CSVInput, NDJSONInput:
		return "file"
	case TableInput:
		return "table"
	}
	return "query"
}

func (in ParquetInput) String() string { return in.Path }
func (in CSVInput) String() string     { return in.Path }
func (in NDJSONInput) String() string  { return in.Path }
func (in QueryInput) String() string   { return "query" }
func (in TableInput) String() string {
	name := in.Table
	if in.Schema != "" {
		name = in.Schema + "." + in.Table
	}
	if in.File == "" {
		return name
	}
	return in.File + ":" + name
}

func noData(path string) error {
	return fmt.Errorf("%s: %w (no file matches)", path, ErrNoSourceData)
}

func (in ParquetInput) open(ctx context.Context, r *run, _ map[string]bool) (compile.Relation, error) {
	matches, err := filepath.Glob(in.Path)
	if err != nil {
		return compile.Relation{}, fmt.Errorf("bad glob %q: %w", in.Path, err)
	}
	if len(matches) == 0 {
		return compile.Relation{}, noData(in.Path)
	}
	for _, m := range matches {
		if err := checkParquetMagic(m); err != nil {
			return compile.Relation{}, err
		}
	}
	// file_index and file_row_number give every row an input-ordered ordinal without a window.
	rel := compile.Relation{
		From:        compile.ParquetScan(in.Path),
		RowID:       "file_row_number",
		ScanFilters: true,
	}
	if len(matches) > 1 {
		// Dense across files (each file's rows follow the previous file's), so that the bitmaps
		// of invalid ordinals cover the rows, not 2^20 ordinals per file (measured, 500 files of
		// 20k rows: 500 bitmap blocks and 1 s of SET VARIABLE, against 10 blocks).
		// A column of the files named file_index hides DuckDB's and fails (or skews) the count;
		// load then copies the rows with an ordinal of its own (shadowsOrdinal).
		rel.RowID = compile.FileIndexRowID
		if offsets, err := fileOffsets(ctx, r, rel.From); err == nil {
			rel.RowID = compile.FileOffsetRowID(offsets)
			rel.DenseRowIDs = true
		}
	} else {
		rel.DenseRowIDs = true
	}
	// The footers and row groups are read by the run's probes (compile.Probes).
	rel.Parquet, rel.NoStatistics = in.Path, len(matches) > 1
	return rel, nil
}

// fileOffsets is a BIGINT list literal of the row each file of a multi-file scan starts at.
func fileOffsets(ctx context.Context, r *run, from string) (string, error) {
	rows, err := r.conn.QueryContext(ctx, compile.FileRowCounts(from))
	if err != nil {
		return "", fmt.Errorf("count the rows of each file: %w", err)
	}
	defer rows.Close()
	var b strings.Builder
	b.WriteString("[")
	var next, total int64
	for rows.Next() {
		var index, n int64
		if err := rows.Scan(&index, &n); err != nil {
			return "", err
		}
		for ; next <= index; next++ { // files without rows take no ordinals
			if next > 0 {
				b.WriteString(", ")
			}
			fmt.Fprint(&b, total)
		}
		total += n
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	b.WriteString("]::BIGINT[]")
	return b.String(), nil
}

// oneSelect refuses a query that is not exactly one SELECT statement: the query is wrapped as a
// subquery, and duckdb-go would run every statement of a string that smuggles in a second one.
func oneSelect(ctx context.Context, r *run, query string) error {
	var tree string
	if err := r.conn.QueryRowContext(ctx, compile.ParseQuery, query).Scan(&tree); err != nil {
		return fmt.Errorf("parse the query: %w", err)
	}
	var parsed struct {
		Error      bool              `json:"error"`
		Message    string            `json:"error_message"`
		Statements []json.RawMessage `json:"statements"`
	}
	if err := json.Unmarshal([]byte(tree), &parsed); err != nil {
		return fmt.Errorf("parse the query: %w", err)
	}
	switch {
	case parsed.Error:
		return fmt.Errorf("the query must be one SELECT statement: %s", parsed.Message)
	case len(parsed.Statements) != 1:
		return fmt.Errorf("the query must be one SELECT statement; it has %d statements", len(parsed.Statements))
	}
	return nil
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
func (in ParquetInput) unreadableFooter(ctx context.Context, r *run, err error) error {
	matches, gerr := filepath.Glob(in.Path)
	if gerr != nil || ctx.Err() != nil {
		return err
	}
	for _, m := range matches {
		var n int64
		ferr := r.conn.QueryRowContext(ctx, "SELECT count(*) FROM parquet_file_metadata("+sql.String(m)+")").Scan(&n)
		var de *duckdb.Error
		// Only a decoding error says the footer is bad; running out of memory says nothing of it.
		if errors.As(ferr, &de) && (de.Type == duckdb.ErrorTypeInvalid || de.Type == duckdb.ErrorTypeInvalidInput) && ctx.Err() == nil {
			return fmt.Errorf("%s is not a valid Parquet file: its footer (the file's metadata) cannot be read; was it written completely, by a Parquet writer? (DuckDB: %s)", m, firstLine(ferr.Error()))
		}
	}
	return err
}

// materialise copies a relation into a temp table, for inputs that have no stable row ordinal
// or that must not be evaluated twice (CSV parsing, queries).
func materialise(ctx context.Context, r *run, from string) (compile.Relation, error) {
	name := r.tempName("input")
	if err := r.exec(ctx, compile.Materialise(name, from)); err != nil {
		return compile.Relation{}, err
	}
	return compile.Relation{From: "temp.main." + sql.Ident(name), RowID: "rowid"}, nil
}

// materialiseOrdered copies a relation into a temp table with an explicit ordinal column, for
// inputs whose own columns hide DuckDB's rowid or Parquet row numbers.
func materialiseOrdered(ctx context.Context, r *run, from string) (compile.Relation, error) {
	name := r.tempName("input")
	if err := r.exec(ctx, compile.MaterialiseOrdered(name, from)); err != nil {
		return compile.Relation{}, err
	}
	return compile.Relation{From: "temp.main." + sql.Ident(name), RowID: "__tg_ord"}, nil
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

// open reads the file with a fixed delimiter (tab for .tsv, else comma), the header on the first
// line, double quotes and strict mode. Left to detect them, DuckDB's sniffer reads a file with a
// ragged row as something else (the data as headerless rows after skipping lines, or each line as
// one column), and one with an unterminated quote as unquoted (the quote kept in the value), and
// the run reports a misleading column mismatch, or nothing, instead of the bad line.
func (in CSVInput) open(ctx context.Context, r *run, _ map[string]bool) (compile.Relation, error) {
	if err := statFile(in.Path); err != nil {
		return compile.Relation{}, err
	}
	delim := in.Delimiter
	if delim == 0 {
		delim = ','
		if DataExt(in.Path) == ".tsv" {
			delim = '\t'
		}
	}
	if !in.NoHeader {
		if err := duplicateHeader(in.Path, delim); err != nil {
			return compile.Relation{}, err
		}
	}
	read := compile.CSVRead{Header: !in.NoHeader, Delim: string(delim), Null: in.Null, SampleAll: in.sampleAll}
	_, names, err := columnNames(ctx, r, compile.ReadCSV(in.Path, read))
	if err != nil {
		return compile.Relation{}, in.diagnose(delim, err)
	}
	if in.Delimiter == 0 && !in.NoHeader {
		if err := oneColumnDelimiter(in.Path, names); err != nil {
			return compile.Relation{}, err
		}
	}
	casts, cols := textCasts(in.declared, names)
	if in.declared != nil {
		// Every column is read as text, the declared ones to be cast strictly (DuckDB's own
		// reading rounds 3.7 into an integer column), the others because a run does not write
		// them: a type detected from a sample cannot fail on a later row.
		for _, n := range names {
			read.Types = append(read.Types, compile.NamedType{Name: n, Type: "VARCHAR"})
		}
		for _, col := range in.declared {
			if _, ok := compile.TextCastOf(col); !ok {
				read.Types = slices.DeleteFunc(read.Types, func(t compile.NamedType) bool { return t.Name == col.Name })
			}
		}
	}
	text, err := materialiseText(ctx, r, compile.ReadCSV(in.Path, read))
	if err != nil {
		return compile.Relation{}, in.diagnose(delim, err)
	}
	return castText(ctx, r, text, casts, cols, func(row int64, col *schema.Column, value string) error {
		return &UnreadableValueError{File: in.Path, Line: csvLine(in.Path, delim, !in.NoHeader, row), Row: row,
			Column: col.Name, Value: value, DType: col.DType.String(), csv: true}
	})
}

// diagnose names the line of an unterminated quote or a ragged row that made DuckDB's reading
// fail, or returns its error.
func (in CSVInput) diagnose(delim rune, err error) error {
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

func (in NDJSONInput) open(ctx context.Context, r *run, _ map[string]bool) (compile.Relation, error) {
	if err := statFile(in.Path); err != nil {
		return compile.Relation{}, err
	}
	detected := compile.ReadNDJSON(in.Path, nil, in.sampleAll)
	var casts []compile.TextCast
	var cols []*schema.Column
	var columns []compile.NamedType
	if in.declared != nil {
		// The declared keys are read as text and cast strictly; the others as JSON, which a
		// later row cannot fail. Nested and Any columns keep the types detected.
		found, names, err := columnNames(ctx, r, detected)
		if err != nil {
			return compile.Relation{}, err
		}
		casts, cols = textCasts(in.declared, names)
		cast := map[string]bool{}
		for _, tc := range casts {
			cast[tc.Name] = true
		}
		declared := map[string]bool{}
		for _, col := range in.declared {
			declared[col.Name] = true
		}
		for _, c := range found {
			t := c.Type
			switch {
			case cast[c.Name]:
				t = "VARCHAR"
			case !declared[c.Name] || t == `"NULL"` || t == "NULL":
				t = "JSON"
			}
			columns = append(columns, compile.NamedType{Name: c.Name, Type: t})
		}
	}
	text, err := materialiseText(ctx, r, compile.ReadNDJSON(in.Path, columns, in.sampleAll))
	if err != nil {
		return compile.Relation{}, err
	}
	rel := compile.Relation{From: "temp.main." + sql.Ident(text), RowID: "rowid"}
	if err := caseDuplicateKeys(ctx, r, in.Path, rel.From); err != nil {
		return rel, err
	}
	return castText(ctx, r, text, casts, cols, func(row int64, col *schema.Column, value string) error {
		return &UnreadableValueError{File: in.Path, Line: ndjsonLine(in.Path, row), Row: row,
			Column: col.Name, Value: value, DType: col.DType.String()}
	})
}

// caseDuplicateKeys refuses keys equal in any case ({"a": 1, "A": 2}): DuckDB matches column
// names in any case and renames the second one (A_1), so a rule would check only one copy. Only
// when the columns read look renamed (a column and the same name plus _<n>) are the objects'
// keys read again, to tell a rename from a real key.
func caseDuplicateKeys(ctx context.Context, r *run, path, from string) error {
	var suspect bool
	if err := r.conn.QueryRowContext(ctx, compile.RenamedColumns(from)).Scan(&suspect); err != nil || !suspect {
		return err
	}
	var list []any
	if err := r.conn.QueryRowContext(ctx, compile.CaseDuplicateKeys(path)).Scan(&list); err != nil {
		if errors.Is(err, gosql.ErrNoRows) {
			return nil
		}
		return err
	}
	return fmt.Errorf("%s: the objects have keys equal in any case (%q and %q); column names match in any case, so rename one of them",
		path, fmt.Sprint(list[0]), fmt.Sprint(list[1]))
}

func (in TableInput) open(ctx context.Context, r *run, writes map[string]bool) (compile.Relation, error) {
	catalog := ""
	if in.File != "" {
		if _, err := os.Stat(in.File); errors.Is(err, os.ErrNotExist) {
			return compile.Relation{}, noData(in.File)
		}
		abs, _ := filepath.Abs(in.File)
		alias, err := r.attach(ctx, in.File, writes[abs])
		if err != nil {
			return compile.Relation{}, err
		}
		catalog = alias
	}
	schemaName := in.Schema
	if schemaName == "" {
		schemaName = "main"
	}
	kind, err := tableKind(ctx, r, catalog, in.File, schemaName, in.Table)
	if err != nil {
		return compile.Relation{}, err
	}
	from := sql.QualifiedIdent(catalog, schemaName, in.Table)
	if kind != "BASE TABLE" {
		return materialise(ctx, r, from) // views have no rowid
	}
	return compile.Relation{From: from, RowID: "rowid"}, nil
}

// tableKind reads whether schemaName.table of catalog (the attachment of file; "" for the
// engine's database) is a base table or a view; a missing table is an error naming the tables
// there are.
func tableKind(ctx context.Context, r *run, catalog, file, schemaName, table string) (string, error) {
	var kind string
	args := []any{schemaName, table}
	if catalog != "" {
		args = append(args, catalog)
	}
	if err := r.conn.QueryRowContext(ctx, compile.TableKind(catalog != ""), args...).Scan(&kind); err != nil {
		return "", fmt.Errorf("no table %s.%s in %s (tables there: %s)", schemaName, table, orMemory(file), listTables(ctx, r, catalog))
	}
	return kind, nil
}

func orMemory(file string) string {
	if file == "" {
		return "the engine's database"
	}
	return file
}

func listTables(ctx context.Context, r *run, catalog string) string {
	args := []any{}
	if catalog != "" {
		args = append(args, catalog)
	}
	var list *string
	if err := r.conn.QueryRowContext(ctx, compile.TableList(catalog != ""), args...).Scan(&list); err != nil || list == nil {
		return "none"
	}
	return *list
}

func (in QueryInput) open(ctx context.Context, r *run, writes map[string]bool) (compile.Relation, error) {
	if strings.TrimSpace(in.SQL) == "" {
		return compile.Relation{}, fmt.Errorf("the query is empty")
	}
	if err := oneSelect(ctx, r, in.SQL); err != nil {
		return compile.Relation{}, err
	}
	if in.File != "" {
		abs, _ := filepath.Abs(in.File)
		alias, err := r.attach(ctx, in.File, writes[abs])
		if err != nil {
			return compile.Relation{}, err
		}
		var current string
		if err := r.conn.QueryRowContext(ctx, compile.CurrentDatabase).Scan(&current); err != nil {
			return compile.Relation{}, err
		}
		if err := r.exec(ctx, compile.Use(alias)); err != nil {
			return compile.Relation{}, err
		}
		defer func() { _ = r.exec(context.Background(), compile.Use(current)) }()
	}
	// The query runs once, into a temp table: a query may be non-deterministic or costly.
	return materialise(ctx, r, "(\n"+in.SQL+"\n)")
}

// fileMismatches checks every file of a multi-file Parquet input against the column types the
// scan reads (actual, which DuckDB takes from one file and casts the others' values to, as
// DOUBLE 3750.6 to BIGINT 3751): each declared column a file lacks or stores as another type is a
// mismatch naming the file. One query reads every footer's schema; no data is read.
func (in ParquetInput) fileMismatches(ctx context.Context, r *run, cols []*schema.Column, actual []casting.ColumnType) ([]casting.Mismatch, error) {
	rows, err := r.conn.QueryContext(ctx, compile.ParquetFileSchemas(in.Path))
	if err != nil {
		return nil, fmt.Errorf("read the files' schemas: %w", err)
	}
	defer rows.Close()
	type node struct {
		name, typ string
		children  int
	}
	var files []string
	byFile := map[string][]node{}
	for rows.Next() {
		var file string
		var n node
		if err := rows.Scan(&file, &n.name, &n.typ, &n.children); err != nil {
			return nil, fmt.Errorf("read the files' schemas: %w", err)
		}
		if _, ok := byFile[file]; !ok {
			files = append(files, file)
		}
		byFile[file] = append(byFile[file], n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the files' schemas: %w", err)
	}
	if len(files) < 2 {
		return nil, nil
	}
	// Each footer's schema is a tree in depth-first order; the root's children are the columns.
	top := make(map[string]map[string]string, len(files))
	for _, f := range files {
		nodes := byFile[f]
		var skip func(i int) int
		skip = func(i int) int {
			j := i + 1
			for k := 0; k < nodes[i].children && j < len(nodes); k++ {
				j = skip(j)
			}
			return j
		}
		top[f] = map[string]string{}
		if len(nodes) == 0 {
			continue
		}
		for i, k := 1, 0; k < nodes[0].children && i < len(nodes); k++ {
			top[f][nodes[i].name] = nodes[i].typ
			i = skip(i)
		}
	}
	read := make(map[string]string, len(actual))
	for _, c := range actual {
		read[c.Name] = c.Type
	}
	var out []casting.Mismatch
	for _, col := range cols {
		want, ok := read[col.Name]
		if !ok {
			continue // missing from the scan: the column check reports it
		}
		ref := ""
		for _, f := range files {
			if top[f][col.Name] == want {
				ref = f
				break
			}
		}
		for _, f := range files {
			got, ok := top[f][col.Name]
			switch {
			case !ok:
				got = casting.Missing
			case got == want:
				continue
			}
			out = append(out, casting.Mismatch{Column: col.Name, Expected: want, Actual: got, File: f, Reference: ref})
		}
	}
	return out, nil
}
