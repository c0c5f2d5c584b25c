package tablegate

import "github.com/tablegate/tablegate/engines/duckdb"

// Input is where a run's rows come from.
type Input = duckdb.Input

// Output is where a run's valid rows go; the quarantine goes beside it.
type Output = duckdb.Output

// FromParquet reads a Parquet file or glob (data/*.parquet) in place.
func FromParquet(path string) Input { return duckdb.ParquetInput{Path: path} }

// FromCSV reads a CSV file with a header row (.tsv: tab-separated; .gz or .zst: compressed),
// each declared column as its dtype; a row with the wrong number of fields, or a value that does
// not read as its column's dtype (*UnreadableValueError), is an input error naming its line.
func FromCSV(path string) Input { return duckdb.CSVInput{Path: path} }

// FromNDJSON reads a newline-delimited JSON file (.gz or .zst: compressed), each declared key as
// its column's dtype.
func FromNDJSON(path string) Input { return duckdb.NDJSONInput{Path: path} }

// FromTable reads a table of the DuckDB database file (file "" is the engine's own database).
// For a table outside the main schema use TableInput, which is an Input too.
func FromTable(file, table string) Input { return duckdb.TableInput{File: file, Table: table} }

// FromQuery validates the result of a SQL query, run in the engine's database.
func FromQuery(sql string) Input { return duckdb.QueryInput{SQL: sql} }

// ToParquet writes the valid rows to a Parquet file, atomically; the quarantine is
// <asset>_quarantine.parquet in the same folder.
func ToParquet(path string) Output { return duckdb.ParquetOutput{Path: path} }

// ToTable writes the valid rows to a table of the DuckDB database file (file "" is the engine's
// own database), in one transaction with the quarantine, the table <asset>_quarantine. For a
// table outside the main schema use TableOutput, which is an Output too.
func ToTable(file, table string) Output { return duckdb.TableOutput{File: file, Table: table} }
