package spark

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/schema"
)

// UnsupportedColumnError means a Parquet input stores a column in a type Spark cannot carry
// exactly (unsigned integers, millisecond or nanosecond timestamps, UUID, INTERVAL, TIME). Spark
// would read it as another type, or not at all, so the run stops before reading any row.
type UnsupportedColumnError struct {
	File    string
	Columns []string // "name (why)"
	// Mismatches are the same columns for the report: the declared dtype, and why as the actual.
	Mismatches []casting.Mismatch
}

func (e *UnsupportedColumnError) Error() string {
	return fmt.Sprintf("%s stores %s in a type Spark cannot read exactly, so the run on Spark stopped before reading any row. "+
		"Write the column as a type Spark has (a signed integer wide enough, microsecond timestamps, a string), or validate it with the DuckDB engine.",
		e.File, strings.Join(e.Columns, ", "))
}

// TypeName names the error in the report.
func (e *UnsupportedColumnError) TypeName() string { return "ColumnSchemaError" }

// parquetFiles lists the Parquet files of a local input: the file, or a directory's *.parquet
// files (Spark's part files), in name order.
func parquetFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	files, err := filepath.Glob(filepath.Join(path, "*.parquet"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no .parquet files", path)
	}
	return files, nil
}

// storedTypes checks the Parquet footers of the columns the schema declares for types Spark
// cannot carry; it reads no rows.
func storedTypes(files []string, cols []*schema.Column) error {
	for _, f := range files {
		r, err := file.OpenParquetFile(f, false)
		if err != nil {
			return fmt.Errorf("read the Parquet footer of %s: %w", f, err)
		}
		err = footerTypes(f, r.MetaData().Schema, cols)
		r.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// footerTypes checks one file's Parquet schema (from its footer) for declared columns stored in
// a type Spark cannot carry.
func footerTypes(name string, sc *pqschema.Schema, cols []*schema.Column) error {
	declared := map[string]string{}
	for _, c := range cols {
		declared[c.Name] = c.DType.String()
	}
	seen := map[string]bool{}
	var bad []string
	var mm []casting.Mismatch
	for i := 0; i < sc.NumColumns(); i++ {
		c := sc.Column(i)
		path := c.ColumnPath()
		dtype, ok := "", len(path) > 0
		if ok {
			dtype, ok = declared[path[0]]
		}
		if !ok || seen[path[0]] {
			continue
		}
		if why := unsupportedStored(c); why != "" {
			seen[path[0]] = true
			bad = append(bad, fmt.Sprintf("'%s' (%s)", path[0], why))
			mm = append(mm, casting.Mismatch{Column: path[0], Expected: dtype, Actual: why})
		}
	}
	if len(bad) > 0 {
		return &UnsupportedColumnError{File: name, Columns: bad, Mismatches: mm}
	}
	return nil
}

func unsupportedStored(c *pqschema.Column) string {
	switch lt := c.LogicalType().(type) {
	case pqschema.IntLogicalType:
		if !lt.IsSigned() {
			return fmt.Sprintf("unsigned %d-bit integers", lt.BitWidth())
		}
	case pqschema.TimestampLogicalType:
		switch lt.TimeUnit() {
		case pqschema.TimeUnitMillis:
			return "millisecond timestamps, which Spark reads as microseconds"
		case pqschema.TimeUnitNanos:
			return "nanosecond timestamps"
		}
	case pqschema.UUIDLogicalType:
		return "UUID"
	case pqschema.IntervalLogicalType:
		return "INTERVAL"
	case pqschema.TimeLogicalType:
		return "TIME"
	}
	return ""
}

// ColumnMismatches are the columns for the report's columns check (runner.MismatchError): the run
// ends with the column_schema_mismatch outcome.
func (e *UnsupportedColumnError) ColumnMismatches() []casting.Mismatch { return e.Mismatches }
