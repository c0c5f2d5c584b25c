package compile

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// SourceKind is what an input is, as the statements that open it read it.
type SourceKind int

// Source kinds.
const (
	// ParquetSource is a Parquet file or glob, read in place.
	ParquetSource SourceKind = iota
	// CSVSource and NDJSONSource are a text file, read into a temp table, its declared columns
	// as text cast strictly to their dtypes.
	CSVSource
	NDJSONSource
	// TableSource is a table or view of a database (a view is copied into a temp table: it has
	// no rowid).
	TableSource
	// QuerySource is a query, run once into a temp table.
	QuerySource
	// ViewSource is a view the engine made of rows handed to it (Arrow records), copied into a
	// temp table and dropped.
	ViewSource
	// ReferenceSource is what a foreign-key rule reads: a table of a database file, through the
	// temp view View, or files, read in place by View.
	ReferenceSource
)

// Source is an input as a run opens it: what the engine knows of it without a statement (the
// files a glob matches, the database file's alias), from which Next builds the statements that
// open it, in stages. Each stage is built from what the stages before it read, as the program
// is built from the probes' facts; within a stage a value reaches a step only as a parameter.
type Source struct {
	Kind SourceKind
	// ID is the run's number, which names its temp tables.
	ID int64
	// Path is the Parquet file or glob, or the CSV or NDJSON file.
	Path string
	// Files is how many files Path matches (Parquet).
	Files int
	// CSV is how a CSV file is read; its Types are built from the columns the file has.
	CSV CSVRead
	// GuessDelimiter tells that a CSV file's delimiter is the one its extension implies: a
	// header that reads as one column holding another common delimiter is refused, naming it.
	GuessDelimiter bool
	// SampleAll detects an NDJSON file's types from every object rather than a sample.
	SampleAll bool
	// Declared are the schema's columns, which a text file reads as their dtypes (nil: every
	// type detected), and whose types the files of a multi-file input are checked for.
	Declared []*schema.Column
	// Check ends the opening by reading what the run checks against the schema: the columns,
	// and for several Parquet files each file's columns.
	Check bool
	// Attach, when not "", attaches the database file of a table or query input as Catalog.
	Attach, Catalog string
	// Schema and Table name a table input's table; File names its database in messages ("":
	// the engine's own).
	Schema, Table, File string
	// Query is a query input's SQL; View the view a ViewSource copies, or a ReferenceSource
	// makes.
	Query, View string
	// Diagnose, when set, tells what made a statement that reads the file fail (a CSV file's
	// unterminated quote or ragged row, an unreadable Parquet footer, a database file DuckDB
	// cannot open), or returns err: what the engine knows of the file beyond the statement.
	Diagnose func(err error) error
}

// Stage is statements that open an input, run in order. Args are their parameters (Args[i] step
// i's, nil none). A step of op Cleanup runs also when a step before it failed. A failed step
// ends the opening with Fail's error (nil Fail: the statement's), unless the stage is Advisory:
// then what it reads is left empty and the opening goes on.
type Stage struct {
	Steps    []Step
	Args     [][]any
	Fail     func(error) error
	Advisory bool
}

// Opening is what the statements that open an input read and made, stage by stage: the
// relation the program reads once it is open.
type Opening struct {
	Rel Relation
	// Columns are the input's columns and their engine types (Source.Check).
	Columns []NamedType
	// Steps are the statements that ran, in order: explain lists them.
	Steps []Step
	// Temps are the temp tables the opening made.
	Temps []string
	// FileColumns are the top-level columns of each file of a multi-file Parquet input and
	// their types (Source.Check); Files their names, in order.
	Files       []string
	FileColumns map[string]map[string]string

	stage int
	// read is what each step of the last stage read: its rows (ReadRow: one or none).
	read [][][]any
	// facts the stages keep for the next.
	casts    []TextCast
	castCols []*schema.Column
	typed    string // the temp table of the rows cast (ReadAsDtypes)
	current  string
	kind     string
}

// Ran records a step of the current stage as run, with the rows it read (nil for a step that
// reads nothing or failed in an advisory stage).
func (o *Opening) Ran(s Step, rows [][]any) {
	o.Steps = append(o.Steps, s)
	o.read = append(o.read, rows)
}

// Read is the rows step i of the last stage read: nil when it read none, or did not run.
func (o *Opening) Read(i int) [][]any {
	if i >= len(o.read) {
		return nil
	}
	return o.read[i]
}

// row is the first row the step i of the last stage read, nil for none.
func (o *Opening) row(i int) []any {
	if i >= len(o.read) || len(o.read[i]) == 0 {
		return nil
	}
	return o.read[i][0]
}

// UnreadableText is a value of a text file that does not read as its column's dtype: Row counts
// the file's data rows from 1.
type UnreadableText struct {
	Row    int64
	Column *schema.Column
	Value  string
}

func (e *UnreadableText) Error() string {
	return fmt.Sprintf("row %d, column %q: %q does not read as %s", e.Row, e.Column.Name, e.Value, e.Column.DType)
}

// Opener is an input's opening in stages, which the run's one interpreter of inputs runs
// (runner.OpenSource): Source in DuckDB SQL, the Spark engine's in Spark SQL.
type Opener interface {
	// Next is the next stage that opens the input, built from what the stages before it read
	// (Opening.Ran); an empty stage means the input is open (Opening.Rel). An error is the
	// input's, found in what a stage read.
	Next(o *Opening) (Stage, error)
}

// StageBuilders are the builders of an opening's stages over a source of type S, in order: each builds
// its stage from what the stages before it read (Opening.Read), or nothing when it does not
// apply.
type StageBuilders[S any] []func(S, *Opening) (Stage, error)

// Next is the next stage of src that has steps (Opener's Next), its builders in order.
func (stages StageBuilders[S]) Next(src S, o *Opening) (Stage, error) {
	for o.stage < len(stages) {
		build := stages[o.stage]
		o.stage++
		st, err := build(src, o)
		o.read = nil
		if err != nil || len(st.Steps) > 0 {
			return st, err
		}
	}
	return Stage{}, nil
}

// Next is the next stage that opens the input (Opener).
func (s Source) Next(o *Opening) (Stage, error) { return s.stages().Next(s, o) }

type stageFunc = func(Source, *Opening) (Stage, error)

// stages are the input's stages, in order; each builds nothing when it does not apply.
func (s Source) stages() StageBuilders[Source] {
	var open []stageFunc
	switch s.Kind {
	case ParquetSource:
		open = []stageFunc{parquetFileRows, parquetRelation}
	case CSVSource:
		open = []stageFunc{csvColumns, csvMaterialise, findUnreadable, dropUnreadable}
	case NDJSONSource:
		open = []stageFunc{ndjsonColumns, ndjsonMaterialise, renamedKeys, duplicateKeys, refuseDuplicateKeys, findUnreadable, dropUnreadable}
	case TableSource:
		open = []stageFunc{attach, tableKind, tableList, tableRelation}
	case QuerySource:
		open = []stageFunc{parseQuery, querySelect, attach, currentDatabase, useDatabase, materialiseQuery}
	case ViewSource:
		open = []stageFunc{materialiseView}
	case ReferenceSource:
		open = []stageFunc{attach, tableKind, tableList, tableRelation}
		if s.Table == "" {
			open = []stageFunc{referenceFiles}
		}
	}
	if s.Check {
		open = append(open, readColumns, readFileSchemas, ordinalCopy)
	}
	return open
}

// one is a stage of one step.
func one(op Op, what, stmt string) Stage {
	return Stage{Steps: []Step{{Op: op, What: what, SQL: stmt}}}
}

// tempName is the run's temp table for base, recorded as made.
func (s Source) tempName(o *Opening, base string) string {
	name := fmt.Sprintf("__tg_%s_%d", base, s.ID)
	o.Temps = append(o.Temps, name)
	return name
}

// diagnose is the stage's failure as Source.Diagnose tells it.
func (s Source) diagnose(wrap string) func(error) error {
	return func(err error) error {
		if wrap != "" {
			err = fmt.Errorf(wrap+": %w", err)
		}
		if s.Diagnose != nil {
			return s.Diagnose(err)
		}
		return err
	}
}

// Describe reads a relation's columns: (name, type, …) rows.
func Describe(from string) string { return "DESCRIBE SELECT * FROM " + from }

// describeFailed is the failure of a Describe step.
func describeFailed(err error) error { return fmt.Errorf("describe input: %w", err) }

// columnsRead are the (name, type) pairs a Describe step read.
func columnsRead(rows [][]any) []NamedType {
	cols := make([]NamedType, len(rows))
	for i, r := range rows {
		cols[i] = NamedType{Name: fmt.Sprint(r[0]), Type: fmt.Sprint(r[1])}
	}
	return cols
}

func namesOf(cols []NamedType) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return names
}

// Parquet: a multi-file scan's rows per file give its dense ordinals.

func parquetFileRows(s Source, _ *Opening) (Stage, error) {
	if s.Files < 2 {
		return Stage{}, nil
	}
	st := one(ReadRows, "count the rows of each file", FileRowCounts(ParquetScan(s.Path)))
	st.Advisory = true
	return st, nil
}

func parquetRelation(s Source, o *Opening) (Stage, error) {
	// file_index and file_row_number give every row an input-ordered ordinal without a window.
	o.Rel = Relation{From: ParquetScan(s.Path), RowID: "file_row_number", ScanFilters: true, DenseRowIDs: true,
		Parquet: s.Path, NoStatistics: s.Files > 1}
	if s.Files == 1 && !strings.ContainsAny(s.Path, "*?[{") {
		o.Rel.ParquetFile = s.Path
	}
	if s.Files > 1 {
		// Dense across files (each file's rows follow the previous file's), so that the bitmaps
		// of invalid ordinals cover the rows, not 2^20 ordinals per file (measured, 500 files of
		// 20k rows: 500 bitmap blocks and 1 s of SET VARIABLE, against 10 blocks). Unread, the
		// ordinals are unique, not dense. A column of the files named file_index hides DuckDB's
		// and fails (or skews) the count; the check then copies the rows with an ordinal of its
		// own (ordinalCopy).
		o.Rel.RowID, o.Rel.DenseRowIDs = FileIndexRowID, false
		if o.read[0] != nil {
			o.Rel.RowID, o.Rel.DenseRowIDs = FileOffsetRowID(fileOffsets(o.read[0])), true
		}
	}
	return Stage{}, nil
}

// fileOffsets is a BIGINT list literal of the row each file of a multi-file scan starts at, from
// its (file_index, rows) rows.
func fileOffsets(rows [][]any) string {
	var b strings.Builder
	b.WriteString("[")
	var next, total int64
	for _, r := range rows {
		index, n := toInt64(r[0]), toInt64(r[1])
		for ; next <= index; next++ { // files without rows take no ordinals
			if next > 0 {
				b.WriteString(", ")
			}
			fmt.Fprint(&b, total)
		}
		total += n
	}
	b.WriteString("]::BIGINT[]")
	return b.String()
}

// toInt64 is an integer an engine read, of whatever Go integer type its driver gives.
func toInt64(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int32:
		return int64(n)
	case int16:
		return int64(n)
	case int8:
		return int64(n)
	case int:
		return int64(n)
	case uint64:
		return int64(n)
	case uint32:
		return int64(n)
	case uint16:
		return int64(n)
	case uint8:
		return int64(n)
	}
	return 0
}

// CSV: the header's columns, then the rows as text (the declared columns) into a temp table.
// Left to detect them, DuckDB's sniffer reads a file with a ragged row as something else and one
// with an unterminated quote as unquoted; the read is strict, with the delimiter fixed.

func csvColumns(s Source, _ *Opening) (Stage, error) {
	st := one(ReadRows, "read the file's columns", Describe(ReadCSV(s.Path, s.CSV)))
	st.Fail = func(err error) error { return s.diagnose("")(describeFailed(err)) }
	return st, nil
}

func csvMaterialise(s Source, o *Opening) (Stage, error) {
	names := namesOf(columnsRead(o.read[0]))
	if s.GuessDelimiter {
		if err := oneColumnDelimiter(s.Path, names); err != nil {
			return Stage{}, err
		}
	}
	o.casts, o.castCols = textCasts(s.Declared, names)
	if s.CSV.Null != nil {
		// Other texts spell NULL, yet an empty field in a number, date, … column is missing
		// too: only a String column reads it as the empty string.
		for i, col := range o.castCols {
			o.casts[i].emptyIsNull = col.DType.Kind != schema.KindString
		}
	}
	read := s.CSV
	if s.Declared != nil {
		// Every column is read as text, the declared ones to be cast strictly (DuckDB's own
		// reading rounds 3.7 into an integer column), the others because a run does not write
		// them: a type detected from a sample cannot fail on a later row. Nested and Any columns
		// keep the types detected.
		keep := map[string]bool{}
		for _, col := range s.Declared {
			if _, ok := TextCastOf(col); !ok {
				keep[col.Name] = true
			}
		}
		for _, n := range names {
			if !keep[n] {
				read.Types = append(read.Types, NamedType{Name: n, Type: "VARCHAR"})
			}
		}
	}
	st := s.readText(o, ReadCSV(s.Path, read))
	st.Fail = s.diagnose("")
	return st, nil
}

// readText reads a text file's rows (from) into a temp table, the declared columns cast to their
// dtypes where they read (ReadAsDtypes).
func (s Source) readText(o *Opening, from string) Stage {
	if len(o.casts) == 0 {
		name := s.tempName(o, "input")
		o.Rel = textRelation(name)
		return one(Exec, "read the file into a temp table", Materialise(name, from))
	}
	name := s.tempName(o, "typed")
	o.Rel, o.typed = textRelation(name), name
	return one(Exec, "read the file into a temp table, its columns as their dtypes where they read", ReadAsDtypes(name, from, o.casts))
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

// textCasts are the columns of a text file read as text and cast to their declared dtype:
// those of declared that the file has (names, as read).
func textCasts(declared []*schema.Column, names []string) (casts []TextCast, cols []*schema.Column) {
	has := make(map[string]bool, len(names))
	for _, n := range names {
		has[n] = true
	}
	for _, col := range declared {
		if tc, ok := TextCastOf(col); ok && has[col.Name] {
			casts, cols = append(casts, tc), append(cols, col)
		}
	}
	return casts, cols
}

// The first value that does not read as its dtype is an *UnreadableText; else the columns that
// found it are dropped.

func textRelation(name string) Relation {
	return Relation{From: "temp.main." + sql.Ident(name), RowID: "rowid"}
}

func readAsDtypes(err error) error { return fmt.Errorf("read the columns as their dtypes: %w", err) }

func findUnreadable(_ Source, o *Opening) (Stage, error) {
	if len(o.casts) == 0 {
		return Stage{}, nil
	}
	st := one(ReadRow, "find the first value that does not read as its dtype", FirstUnreadable(o.typed))
	st.Fail = readAsDtypes
	return st, nil
}

func dropUnreadable(_ Source, o *Opening) (Stage, error) {
	if len(o.casts) == 0 {
		return Stage{}, nil
	}
	if r := o.row(0); r != nil {
		i := toInt64(r[1])
		if i < 0 || i >= int64(len(o.castCols)) {
			return Stage{}, readAsDtypes(fmt.Errorf("column %d is out of range", i))
		}
		return Stage{}, &UnreadableText{Row: toInt64(r[0]) + 1, Column: o.castCols[i], Value: fmt.Sprint(r[2])}
	}
	var st Stage
	for _, stmt := range DropUnreadable(o.typed) {
		st.Steps = append(st.Steps, Step{Op: Exec, What: "drop the columns that found no unreadable value", SQL: stmt})
	}
	return st, nil
}

// NDJSON: the declared keys read as text, the others as JSON, which a later row cannot fail;
// keys equal in any case refused.

func ndjsonColumns(s Source, _ *Opening) (Stage, error) {
	if s.Declared == nil {
		return Stage{}, nil
	}
	st := one(ReadRows, "read the file's keys", Describe(ReadNDJSON(s.Path, nil, s.SampleAll)))
	st.Fail = describeFailed
	return st, nil
}

func ndjsonMaterialise(s Source, o *Opening) (Stage, error) {
	var columns []NamedType
	if s.Declared != nil {
		found := columnsRead(o.read[0])
		o.casts, o.castCols = textCasts(s.Declared, namesOf(found))
		cast, declared := map[string]bool{}, map[string]bool{}
		for _, tc := range o.casts {
			cast[tc.Name] = true
		}
		for _, col := range s.Declared {
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
			columns = append(columns, NamedType{Name: c.Name, Type: t})
		}
	}
	return s.readText(o, ReadNDJSON(s.Path, columns, s.SampleAll)), nil
}

// renamedKeys reads whether the columns look renamed (a column and the same name plus _<n>), as
// DuckDB renames keys equal in any case; only then are the objects' keys read again
// (duplicateKeys), to tell a rename from a real key.
func renamedKeys(_ Source, o *Opening) (Stage, error) {
	return one(ReadRow, "read whether keys look renamed", RenamedColumns(o.Rel.From)), nil
}

func duplicateKeys(s Source, o *Opening) (Stage, error) {
	if r := o.row(0); r == nil || r[0] != true {
		return Stage{}, nil
	}
	return one(ReadRow, "read the keys equal in any case", CaseDuplicateKeys(s.Path)), nil
}

// refuseDuplicateKeys refuses the keys equal in any case duplicateKeys read, if any.
func refuseDuplicateKeys(s Source, o *Opening) (Stage, error) {
	r := o.row(0)
	if r == nil {
		return Stage{}, nil
	}
	list, _ := r[0].([]any)
	if len(list) < 2 {
		return Stage{}, nil
	}
	return Stage{}, fmt.Errorf("%s: the objects have keys equal in any case (%q and %q); column names match in any case, so rename one of them",
		s.Path, fmt.Sprint(list[0]), fmt.Sprint(list[1]))
}

// referenceFiles is a reference's files, which View reads in place.
func referenceFiles(s Source, o *Opening) (Stage, error) {
	o.Rel = Relation{From: s.View}
	return Stage{}, nil
}

// Tables and queries of a database file: the file attached first.

func attach(s Source, _ *Opening) (Stage, error) {
	if s.Attach == "" {
		return Stage{}, nil
	}
	st := one(Exec, "attach the input's database", s.Attach)
	st.Fail = s.diagnose("")
	return st, nil
}

func tableKind(s Source, _ *Opening) (Stage, error) {
	args := []any{s.schemaName(), s.Table}
	if s.Catalog != "" {
		args = append(args, s.Catalog)
	}
	st := one(ReadRow, "read the table's kind", TableKind(s.Catalog != ""))
	st.Args, st.Advisory = [][]any{args}, true
	return st, nil
}

func (s Source) schemaName() string {
	if s.Schema == "" {
		return "main"
	}
	return s.Schema
}

func tableList(s Source, o *Opening) (Stage, error) {
	if r := o.row(0); r != nil {
		o.kind = fmt.Sprint(r[0])
		return Stage{}, nil
	}
	st := one(ReadRow, "list the tables there are", TableList(s.Catalog != ""))
	if s.Catalog != "" {
		st.Args = [][]any{{s.Catalog}}
	}
	st.Advisory = true
	return st, nil
}

func tableRelation(s Source, o *Opening) (Stage, error) {
	if o.kind == "" {
		list := "none"
		if r := o.row(0); r != nil && r[0] != nil {
			list = fmt.Sprint(r[0])
		}
		where := s.File
		if where == "" {
			where = "the engine's database"
		}
		return Stage{}, fmt.Errorf("no table %s.%s in %s (tables there: %s)", s.schemaName(), s.Table, where, list)
	}
	if s.Kind == ReferenceSource {
		o.Rel = Relation{From: s.View}
		return one(Exec, "make the reference's view", ReferenceView(s.View, s.Catalog, s.schemaName(), s.Table)), nil
	}
	from := sql.QualifiedIdent(s.Catalog, s.schemaName(), s.Table)
	if o.kind == "BASE TABLE" {
		o.Rel = Relation{From: from, RowID: "rowid"}
		return Stage{}, nil
	}
	return materialiseRel(s, o, from) // views have no rowid
}

// materialiseRel copies from into a temp table, for inputs that have no stable row ordinal or
// that must not be evaluated twice.
func materialiseRel(s Source, o *Opening, from string) (Stage, error) {
	name := s.tempName(o, "input")
	o.Rel = textRelation(name)
	return one(Exec, "copy the input into a temp table", Materialise(name, from)), nil
}

// parseQuery reads the query's parse tree, the query bound as a parameter: the query is wrapped
// as a subquery, and it must be exactly one SELECT statement (duckdb-go would run every
// statement of a string that smuggles in a second one).
func parseQuery(s Source, _ *Opening) (Stage, error) {
	if strings.TrimSpace(s.Query) == "" {
		return Stage{}, fmt.Errorf("the query is empty")
	}
	st := one(ReadRow, "parse the query", ParseQuery)
	st.Args = [][]any{{s.Query}}
	st.Fail = func(err error) error { return fmt.Errorf("parse the query: %w", err) }
	return st, nil
}

// querySelect refuses a query whose parse tree (parseQuery) is not exactly one statement.
func querySelect(_ Source, o *Opening) (Stage, error) {
	var tree string
	if r := o.row(0); r != nil {
		tree = fmt.Sprint(r[0])
	}
	return Stage{}, oneSelect(tree)
}

func oneSelect(tree string) error {
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

func currentDatabase(s Source, _ *Opening) (Stage, error) {
	if s.Attach == "" {
		return Stage{}, nil
	}
	return one(ReadRow, "read the current database", CurrentDatabase), nil
}

func useDatabase(s Source, o *Opening) (Stage, error) {
	if s.Attach == "" {
		return Stage{}, nil
	}
	if r := o.row(0); r != nil {
		o.current = fmt.Sprint(r[0])
	}
	return one(Exec, "run the query in its database", Use(s.Catalog)), nil
}

// materialiseQuery runs the query once, into a temp table: a query may be non-deterministic or
// costly. In its database, the current one is given back after it, also when it fails.
func materialiseQuery(s Source, o *Opening) (Stage, error) {
	st, _ := materialiseRel(s, o, "(\n"+s.Query+"\n)")
	if s.Attach != "" {
		st.Steps = append(st.Steps, Step{Op: Cleanup, What: "give back the current database", SQL: Use(o.current)})
	}
	return st, nil
}

func materialiseView(s Source, o *Opening) (Stage, error) {
	st, _ := materialiseRel(s, o, sql.Ident(s.View))
	st.Steps = append(st.Steps, Step{Op: Cleanup, What: "drop the view", SQL: DropView(s.View)})
	st.Fail = func(err error) error { return fmt.Errorf("read Arrow records: %w", err) }
	return st, nil
}

// The check's reads: the columns, and each file's of a multi-file Parquet input.

func readColumns(s Source, o *Opening) (Stage, error) {
	st := one(ReadRows, "read the columns", Describe(o.Rel.From))
	st.Fail = describeFailed
	if s.Kind == ParquetSource {
		st.Fail = func(err error) error { return s.diagnose("")(describeFailed(err)) }
	}
	return st, nil
}

// readFileSchemas reads every footer's schema of a multi-file Parquet input: DuckDB casts every
// file to one file's types without a word, and the check compares each file's.
func readFileSchemas(s Source, o *Opening) (Stage, error) {
	o.Columns = columnsRead(o.read[0])
	o.Rel.Columns = namesOf(o.Columns)
	if s.Kind != ParquetSource || s.Files < 2 {
		return Stage{}, nil
	}
	st := one(ReadRows, "read the files' schemas", ParquetFileSchemas(s.Path))
	st.Fail = func(err error) error { return s.diagnose("")(fmt.Errorf("read the files' schemas: %w", err)) }
	return st, nil
}

// ordinalCopy copies the rows with an ordinal of their own when a real column named rowid (or
// file_row_number, file_index) hides the one the engine provides, unless the files' types
// differ (the check then fails).
func ordinalCopy(s Source, o *Opening) (Stage, error) {
	if o.read != nil {
		o.Files, o.FileColumns = fileColumns(o.read[0])
	}
	if len(s.FileMismatches(o)) > 0 || !shadowsOrdinal(o.Columns, o.Rel) {
		return Stage{}, nil
	}
	name, from := s.tempName(o, "input"), o.Rel.From
	o.Rel = Relation{From: "temp.main." + sql.Ident(name), RowID: "__tg_ord"}
	return one(Exec, "copy the rows with an ordinal", MaterialiseOrdered(name, from)), nil
}

func shadowsOrdinal(cols []NamedType, rel Relation) bool {
	for _, c := range cols {
		switch strings.ToLower(c.Name) {
		case "rowid", "file_row_number", "file_index":
			if strings.Contains(rel.RowID, strings.ToLower(c.Name)) {
				return true
			}
		}
	}
	return false
}

// fileColumns are the top-level columns of each footer's schema read by ParquetFileSchemas,
// (file, name, type, children) rows: each schema is a tree in depth-first order, whose root's
// children are the columns.
func fileColumns(rows [][]any) ([]string, map[string]map[string]string) {
	type node struct {
		name, typ string
		children  int
	}
	var files []string
	byFile := map[string][]node{}
	for _, r := range rows {
		file := fmt.Sprint(r[0])
		if _, ok := byFile[file]; !ok {
			files = append(files, file)
		}
		byFile[file] = append(byFile[file], node{name: fmt.Sprint(r[1]), typ: fmt.Sprint(r[2]), children: int(toInt64(r[3]))})
	}
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
	return files, top
}

// FileMismatch is a declared column a file of a multi-file input lacks (Actual "") or stores as
// another type than the scan reads (Expected); Reference is a file that stores it as read.
type FileMismatch struct {
	Column, Expected, Actual, File, Reference string
}

// FileMismatches are the declared columns the files of a multi-file Parquet input store
// otherwise than the scan reads them (DuckDB takes the types from one file and casts the others'
// values, as DOUBLE 3750.6 to BIGINT 3751), per column and file.
func (s Source) FileMismatches(o *Opening) []FileMismatch {
	if len(o.Files) < 2 {
		return nil
	}
	read := make(map[string]string, len(o.Columns))
	for _, c := range o.Columns {
		read[c.Name] = c.Type
	}
	var out []FileMismatch
	for _, col := range s.Declared {
		want, ok := read[col.Name]
		if !ok {
			continue // missing from the scan: the column check reports it
		}
		ref := ""
		for _, f := range o.Files {
			if o.FileColumns[f][col.Name] == want {
				ref = f
				break
			}
		}
		for _, f := range o.Files {
			got, ok := o.FileColumns[f][col.Name]
			if ok && got == want {
				continue
			}
			out = append(out, FileMismatch{Column: col.Name, Expected: want, Actual: got, File: f, Reference: ref})
		}
	}
	return out
}
