package tablegate

import "github.com/tablegate/tablegate/runner"

// Input is where a run's rows come from.
type Input = runner.Input

// Output is where a run's valid rows go; the quarantine goes beside it.
type Output = runner.Output

// FromParquet reads a Parquet file or glob (data/*.parquet) in place.
func FromParquet(path string) Input { return runner.ParquetInput{Path: path} }

// FromCSV reads a CSV file with a header row (.tsv: tab-separated; .gz or .zst: compressed),
// each declared column as its dtype; a row with the wrong number of fields, or a value that does
// not read as its column's dtype (an *InputError), is an input error naming its line.
func FromCSV(path string) Input { return runner.CSVInput{Path: path} }

// FromNDJSON reads a newline-delimited JSON file (.gz or .zst: compressed), each declared key as
// its column's dtype.
func FromNDJSON(path string) Input { return runner.NDJSONInput{Path: path} }

// FromTable reads a table of the DuckDB database file (file "" is the engine's own database).
// For a table outside the main schema use TableInput, which is an Input too.
func FromTable(file, table string) Input { return runner.TableInput{File: file, Table: table} }

// FromQuery validates the result of a SQL query, run in the engine's database.
func FromQuery(sql string) Input { return runner.QueryInput{SQL: sql} }

// ToParquet writes the valid rows to a Parquet file, atomically; the quarantine is
// <asset>_quarantine.parquet in the same folder.
func ToParquet(path string) Output { return runner.ParquetOutput{Path: path} }

// ToTable writes the valid rows to a table of the DuckDB database file (file "" is the engine's
// own database), in one transaction with the quarantine, the table <asset>_quarantine. For a
// table outside the main schema use TableOutput, which is an Output too.
func ToTable(file, table string) Output { return runner.TableOutput{File: file, Table: table} }
