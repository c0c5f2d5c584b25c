package tablegate

import (
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// The errors of a failing run, for errors.As. Each names what failed and leaves the previous
// table as it was.
type (
	// ColumnSchemaError means the input's columns or dtypes are not the schema's; no row was read.
	ColumnSchemaError = outcome.ColumnSchemaError
	// ValidationAbortError means rows failed an error rule and there is no quarantine; Counts
	// says how many per rule.
	ValidationAbortError = outcome.ValidationAbortError
	// NoValidRowsError means every row failed: they are in the quarantine, and the table was not
	// written.
	NoValidRowsError = outcome.NoValidRowsError
	// TableCheckError means an error table check failed (volume, freshness, a metric out of its
	// bounds or band): nothing was written, and the rule checks still report their counts.
	TableCheckError = outcome.TableCheckError
	// TableCheckRuntimeError means a table check's SQL failed on the data (a value that does not
	// convert, a division by zero, an overflow): the run has no outcome and wrote nothing; the
	// rule checks still report their counts.
	TableCheckRuntimeError = runner.TableCheckRuntimeError
	// CastError means Options.Cast met a value that does not convert.
	CastError = outcome.CastError
	// InputError means the input cannot be read.
	InputError = outcome.InputError
	// OutputError means the output cannot be written.
	OutputError = outcome.OutputError
	// TimeoutError means the run took longer than Options.Timeout and was stopped.
	TimeoutError = outcome.TimeoutError
	// SettingError is an Options or Config value that cannot be used.
	SettingError = runner.SettingError
	// ReportFileError is an Options.HTML or Options.History path the run refused before it read
	// anything: the same file as its input, database, table or quarantine, or as the other one, or
	// a named pipe or a device. Neither is written.
	ReportFileError = runner.ReportFileError
	// ReportFile is a file the caller writes a run's report to, named as its user knows it.
	ReportFile = runner.ReportFile
	// StorageVersionError is a database file in a storage format the embedded DuckDB cannot open.
	StorageVersionError = runner.StorageVersionError
	// RuleCount is how many invalid rows failed one rule, in ValidationAbortError and
	// NoValidRowsError.
	RuleCount = outcome.RuleCount
)

// The errors of a schema that does not compile: SchemaErrors lists every problem, and errors.As
// finds each one in it.
type (
	// SchemaErrors is every declaration problem of one schema.
	SchemaErrors = schema.Errors
	// DeclarationError names the schema, the place, the column and the key at fault.
	DeclarationError = schema.DeclarationError
	// InvalidSeverityError is a severity declaration that cannot be read, such as a misspelled rule.
	InvalidSeverityError = schema.InvalidSeverityError
	// InvalidColumnNameError is a column name that cannot make check names.
	InvalidColumnNameError = schema.InvalidColumnNameError
)

// ErrNoSourceData is the cause of an input error when the input matches no data at all;
// Options.SkipMissing turns it into the skipped outcome.
var ErrNoSourceData = runner.ErrNoSourceData

// ErrorType names err as the JSON report's error.type does: ColumnSchemaError,
// ValidationAbortError, …; "Error" for an error of no named type (a cancelled context).
func ErrorType(err error) string { return outcome.TypeName(err) }

// WithError gives rep err as its error when it names none yet; a nil rep becomes the report of a
// run that never started (outcome null), so that every failure has one JSON report.
func WithError(rep *Report, err error) *Report {
	if rep == nil {
		rep = runner.NewReport("", "")
		if d, err := runner.Registered(); err == nil {
			rep.DuckDBVersion = d.Version()
		}
	}
	if err != nil && rep.Error == nil {
		rep.Error = &outcome.ErrorInfo{Type: outcome.TypeName(err), Message: err.Error()}
	}
	return rep
}
