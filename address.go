package tablegate

import (
	"github.com/tablegate/tablegate/internal/datafile"
	"github.com/tablegate/tablegate/runner"
)

// The addresses of a run's inputs and outputs, for what the From* and To* constructors do not
// say (a CSV's options, a table outside the main schema, a query in a database file). Each is an
// Input or an Output.
type (
	// ParquetInput reads a Parquet file or glob in place.
	ParquetInput = runner.ParquetInput
	// CSVInput reads a CSV file (gzip- or zstd-compressed by its name), each declared column as
	// its dtype; its options set the header, the delimiter and the NULL spellings.
	CSVInput = runner.CSVInput
	// NDJSONInput reads a newline-delimited JSON file, each declared key as its column's dtype.
	NDJSONInput = runner.NDJSONInput
	// TableInput reads a table of a DuckDB database file ("" File: the engine's own database),
	// in the schema Schema ("" is main).
	TableInput = runner.TableInput
	// QueryInput validates the result of SQL, run in the DuckDB database file File when set.
	QueryInput = runner.QueryInput
	// ParquetOutput writes the table to a Parquet file; the quarantine goes beside it.
	ParquetOutput = runner.ParquetOutput
	// TableOutput writes the table to a DuckDB database file, in the schema Schema ("" is main);
	// the quarantine is the table named after it in the same schema.
	TableOutput = runner.TableOutput
	// CatalogOutput writes the table to a Spark catalog's table in an open table format (Delta
	// Lake, Apache Iceberg); only the Spark engine writes it.
	CatalogOutput = runner.CatalogOutput
)

// ParseCatalogOutput reads FORMAT:[catalog.]namespace.table (delta:spark_catalog.sales.orders,
// iceberg:lake.sales.orders); ok is false for an address that does not start with a format.
func ParseCatalogOutput(out string) (o CatalogOutput, ok bool, err error) {
	return runner.ParseCatalogOutput(out)
}

// DataExt is the lower-case extension of a data file's format beneath a compression suffix, as
// inputs are read by it: ".csv" for both a.csv and a.csv.gz.
func DataExt(path string) string { return datafile.Ext(path) }

// CheckAssetName refuses an asset name that cannot name a table and its quarantine (Options.Name):
// one with path separators or "..".
func CheckAssetName(name string) error { return runner.CheckAssetName(name) }

// A DataFile is a file a run reads besides its data, which no report file may overwrite: a
// schema file, a data contract, a collection file. What names it in messages ("the schema
// file").
type DataFile = runner.DataFile

// CheckReportFiles refuses, as a *ReportFileError, a report file of opts (Options.ReportFiles,
// else HTML and History) that is a named pipe or a device, or the same file as the input, its
// database, the table or quarantine out and opts name, another report file, or one of also: what
// a run checks before it reads anything, for a caller that writes a report without a run (a
// command line that failed before its run).
func CheckReportFiles(in Input, out Output, opts Options, also ...DataFile) error {
	return runner.CheckReportFilesWith(opts.asset(nil, in, out), also, opts.reportFiles()...)
}
