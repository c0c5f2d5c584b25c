package compile

import (
	"fmt"

	"github.com/tablegate/tablegate/sql"
)

// Output is what a program knows of the output it writes: a Parquet file, whose rows go to
// temporary files the engine then swaps into place, or a DuckDB table, written in one
// transaction.
type Output struct {
	// TableFile and QuarantineFile, for a Parquet output, are the temporary files the valid and
	// the invalid rows are written to; the engine names them, flushes them and renames them
	// into place.
	TableFile, QuarantineFile string
	// Catalog ("" the engine's database), Schema ("" main, and no CREATE SCHEMA) and Table, for
	// a DuckDB table output; Quarantine is the quarantine table's name beside it.
	Catalog, Schema, Table string
	Quarantine             string
	// AttachFile is the database file (absolute) the write attaches as Catalog; "" when the
	// run has it attached already, or writes to the engine's database.
	AttachFile string
	// Format, for a table in a catalog of a ProgramDialect's engine (a Spark catalog's Delta or
	// Iceberg table), is the table format: the program replaces Catalog.Schema.Table and
	// Catalog.Schema.Quarantine with WriteTable, each in one commit.
	Format string
	// KeepPrevious keeps an older quarantine that a new one replaces (the input is the table
	// itself, so its rows exist nowhere else); one a run without invalid rows removes is always
	// kept.
	KeepPrevious bool
	// Txn is how a DuckDB table output's write takes part in a transaction: its own, or the one
	// a collection's members writing tables of one database file share.
	Txn Txn
}

// Txn is the part a DuckDB table output's write takes in a transaction.
type Txn uint8

const (
	// OwnTxn: the write attaches the file (when AttachFile), begins, commits.
	OwnTxn Txn = iota
	// OpensTxn: the write attaches the file and begins the transaction that the later members'
	// writes of the database join; none of them commits or rolls back: the set does (SetEnd).
	OpensTxn
	// JoinsTxn: the write runs inside the transaction an earlier member's write began.
	JoinsTxn
)

// SetEnd is the steps that end the transaction in which a collection's members wrote their
// tables of one database file (file: its address, for the steps' descriptions): its commit, and
// its rollback when a member's write fails.
func SetEnd(file string) (commit, rollback Step) {
	of := ""
	if file != "" {
		of = " of " + file
	}
	return Step{Op: Commit, When: Writing, What: "commit every member's tables" + of, SQL: "COMMIT"},
		Step{Op: Rollback, When: Writing, What: "undo every member's write" + of, SQL: "ROLLBACK"}
}

func (o Output) schemaName() string {
	if o.Schema == "" {
		return "main"
	}
	return o.Schema
}

// validRows is one variant of the valid rows' query and when it is the one that runs.
type validRows struct {
	when  Cond
	query string
	sized bool // a Parquet table whose row group size a RowGroupSize step may set
	// input publishes the input itself (PublishInput) instead of writing the query's rows,
	// which are the whole input (publishable); from is its file, for a Parquet output.
	input bool
	from  string
}

// publishable reports whether the valid rows of a run that removes no row are the input as it
// is stored, so that the run publishes the input rather than writing its rows again: the query
// selects the input's columns, by the names the input gives them, in its order, with its types
// (no cast), and the output is either a Parquet file written from one Parquet file (a glob's
// files may change between the check and the copy) or the DuckDB table the input is. Nothing is
// lost: a DuckDB COPY reads the file into the types that the copy reads back, and writes no
// metadata of its own (no key-value metadata, no field ids); the copy keeps the input's row
// groups, compression and metadata, which tablegate never sets for an output.
func publishable(p *Plan, rel Relation, sink Sink, out Output) bool {
	if len(rel.Casts) > 0 || len(rel.Columns) != len(p.Columns) {
		return false
	}
	for i, c := range p.Columns {
		if rel.Columns[i] != c.Name {
			return false
		}
	}
	switch sink {
	case ToParquet:
		return rel.ParquetFile != "" && out.TableFile != ""
	case ToOutput:
		// KeepPrevious: the input is the output's table itself.
		return out.KeepPrevious && out.Table != "" && out.Format == ""
	}
	return false
}

// CopyText is what explain and the trace show for the PublishInput step that copies the file
// from to a Parquet output's temporary file to: no statement runs, so it is a comment.
func CopyText(from, to string) string {
	return fmt.Sprintf("-- copy the input file %s to %s byte for byte (a reflink or copy_file_range where the file system offers one)", sql.String(from), sql.String(to))
}

// BeginWrite is the statement that begins a DuckDB table output's write transaction.
const BeginWrite = "BEGIN TRANSACTION"

// WriteProgram is the program that writes a query's rows to an output as a run writes its valid
// rows, without a quarantine (`tablegate sample`); every step runs (Rollback only on failure).
func WriteProgram(query string, sink Sink, out Output) *Program {
	b := &builder{}
	b.writes(sink, out, []validRows{{query: query}}, "", false)
	return &b.prog
}

// writes adds the statements that write the valid rows (the variant whose condition holds) and
// the invalid ones ("" none) to the output. manage adds what a run does to the quarantine an
// earlier run left: remove it when there are no invalid rows, keep it as <name>_prev when asked.
func (b *builder) writes(sink Sink, out Output, valid []validRows, invalid string, manage bool) {
	if sink == ToParquet {
		for _, v := range valid {
			if v.input {
				b.prog.steps = append(b.prog.steps, Step{Op: PublishInput, When: v.when, What: "publish by copying the input's bytes",
					SQL: CopyText(v.from, out.TableFile), From: v.from})
				continue
			}
			copyTo := func(when Cond, options string) {
				b.add(WriteValid, v.when|when, "write the valid rows",
					fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet%s)", v.query, sql.String(out.TableFile), options))
			}
			if v.sized {
				copyTo(SizedGroups, ", ROW_GROUP_SIZE $1")
				copyTo(PlainGroups, "")
			} else {
				copyTo(0, "")
			}
		}
		if invalid != "" {
			b.add(WriteInvalid, WriteQuarant, "write the invalid rows",
				fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", invalid, sql.String(out.QuarantineFile)))
		}
		return
	}
	writing := Cond(0)
	if manage {
		writing = Writing
	}
	if out.Txn != JoinsTxn {
		if out.AttachFile != "" {
			b.add(AttachOutput, writing, "attach the output's database", Attach(out.AttachFile, out.Catalog, true))
		}
		b.add(Write, writing, "begin the write", BeginWrite)
	}
	if out.Schema != "" {
		b.add(Write, writing, "create the output's schema", "CREATE SCHEMA IF NOT EXISTS "+sql.QualifiedIdent(out.Catalog, out.Schema))
	}
	qName := sql.QualifiedIdent(out.Catalog, out.schemaName(), out.Quarantine)
	if manage {
		// An older quarantine is an earlier run's: removed when this run has no invalid rows,
		// kept as <name>_prev when the input is the table itself.
		find := Writing | DropQuarant
		if out.KeepPrevious {
			find = Writing
		}
		catalog := "current_database()"
		if out.Catalog != "" {
			catalog = sql.String(out.Catalog)
		}
		// DuckDB matches names in any case.
		b.add(FindQuarantine, find, "find the older quarantine", fmt.Sprintf(
			"SELECT count(*) FROM duckdb_tables() WHERE database_name = %s AND lower(schema_name) = lower(%s) AND lower(table_name) = lower(%s)",
			catalog, sql.String(out.schemaName()), sql.String(out.Quarantine)))
		prev := out.Quarantine + "_prev"
		b.add(Write, find|QuarantFound, "drop the quarantine kept before", "DROP TABLE IF EXISTS "+sql.QualifiedIdent(out.Catalog, out.schemaName(), prev))
		b.add(Write, find|QuarantFound, "keep the older quarantine", fmt.Sprintf("ALTER TABLE %s RENAME TO %s", qName, sql.Ident(prev)))
	}
	for _, v := range valid {
		table := sql.QualifiedIdent(out.Catalog, out.schemaName(), out.Table)
		if v.input {
			b.add(PublishInput, v.when, "keep the table: it is the input, and no row is removed", "-- "+table+" stays as it is")
			continue
		}
		b.add(WriteValid, v.when, "write the valid rows", fmt.Sprintf("CREATE OR REPLACE TABLE %s AS %s", table, v.query))
	}
	if invalid != "" {
		b.add(WriteInvalid, WriteQuarant, "write the invalid rows", fmt.Sprintf("CREATE OR REPLACE TABLE %s AS %s", qName, invalid))
	}
	if manage {
		b.add(Write, DropQuarant, "remove the older quarantine", "DROP TABLE IF EXISTS "+qName)
	}
	if out.Txn == OwnTxn {
		b.add(Commit, writing, "commit the write", "COMMIT")
		b.add(Rollback, writing, "undo the write", "ROLLBACK")
	}
}
