package runner

import (
	"path/filepath"
	"strings"
)

// Input is where an asset's rows come from: one of this package's addresses (ParquetInput,
// CSVInput, NDJSONInput, TableInput, QueryInput, ArrowInput). An engine serves those it can and
// refuses the others, naming them.
type Input interface {
	// String names the input in messages.
	String() string
	isInput()
}

// ParquetInput reads a Parquet file or glob in place (on Spark, a file or a directory of part
// files, also at an s3a:// or hdfs:// address).
type ParquetInput struct{ Path string }

// CSVInput reads a CSV file, gzip- or zstd-compressed when its name ends in .gz or .zst. A run
// reads each column the schema declares as its dtype (an unreadable value is an input error
// naming its line); other columns' types are detected. The zero options read a header row,
// fields separated by commas (tabs for .tsv) and the empty field as NULL.
type CSVInput struct {
	Path string
	// Delimiter separates fields; 0 is by extension.
	Delimiter rune
	// NoHeader reads the first line as data; the columns are then named column0, column1, …
	NoHeader bool
	// Null, when set, are the texts that read as NULL instead of the empty field, which still
	// reads as NULL in a declared column of another dtype than String.
	Null []string
}

// NDJSONInput reads a newline-delimited JSON file, gzip- or zstd-compressed when its name ends
// in .gz or .zst. A run reads each key the schema declares as a column of its dtype.
type NDJSONInput struct {
	Path string
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

func (ParquetInput) isInput() {}
func (CSVInput) isInput()     {}
func (NDJSONInput) isInput()  {}
func (TableInput) isInput()   {}
func (QueryInput) isInput()   {}

// ProducerOf says what made an input, for a column-mismatch message's advice.
func ProducerOf(in Input) string {
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

// Output is where an asset's table goes; its quarantine goes beside it. It is one of this
// package's addresses (ParquetOutput, TableOutput, CatalogOutput); an engine writes those it can
// and refuses the others before the run reads anything.
type Output interface {
	// String is the table's address.
	String() string
	// QuarantineAddress is the address of the quarantine named name (orders_quarantine) beside
	// the table.
	QuarantineAddress(name string) string
	// DefaultAssetName is the asset name when none is given: the table's base name.
	DefaultAssetName() string
	isOutput()
}

// ParquetOutput writes the table to a Parquet file (on Spark, a directory of part files, also at
// an s3a:// or hdfs:// address); the quarantine is <quarantine name>.parquet in the same folder.
type ParquetOutput struct{ Path string }

// TableOutput writes the table to a DuckDB database file ("" File: the engine's own database);
// the quarantine is the table named after it in the same schema.
type TableOutput struct {
	File   string
	Schema string // "" is main
	Table  string
}

func (ParquetOutput) isOutput() {}
func (TableOutput) isOutput()   {}

func (o ParquetOutput) String() string { return o.Path }

// QuarantineAddress is <dir>/<name>.parquet; beside a URL's last element for a URL
// (s3a://bucket/out/t.parquet -> s3a://bucket/out/<name>.parquet).
func (o ParquetOutput) QuarantineAddress(name string) string {
	if i := strings.Index(o.Path, "://"); i > 1 {
		if j := strings.LastIndex(o.Path, "/"); j > i+2 {
			return o.Path[:j+1] + name + ".parquet"
		}
	}
	return filepath.Join(filepath.Dir(o.Path), name+".parquet")
}

// DefaultAssetName is the file's base name without extension.
func (o ParquetOutput) DefaultAssetName() string {
	return strings.TrimSuffix(filepath.Base(o.Path), filepath.Ext(o.Path))
}

// SchemaName is the table's schema: Schema, or main.
func (o TableOutput) SchemaName() string {
	if o.Schema == "" {
		return "main"
	}
	return o.Schema
}

func (o TableOutput) String() string { return o.address(o.Table) }

func (o TableOutput) address(table string) string {
	name := table
	if o.Schema != "" {
		name = o.Schema + "." + table
	}
	if o.File == "" {
		return name
	}
	return o.File + ":" + name
}

// QuarantineAddress is the table name beside the output table.
func (o TableOutput) QuarantineAddress(name string) string { return o.address(name) }

// DefaultAssetName is the table's name.
func (o TableOutput) DefaultAssetName() string { return o.Table }
