package tablegate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/filekind"
	"github.com/tablegate/tablegate/runner"
)

// Exit statuses of the tablegate commands (tablegate, and tablegate-spark for the Spark engine):
// what ExitStatus gives for a run's error.
const (
	ExitOK          = 0 // the run passed (its warnings too)
	ExitDataFailed  = 1 // rows or a table check failed it: aborted, no valid rows, a cast, a table check
	ExitUsage       = 2 // a usage, schema, input, output, setting or run error (the report's outcome is null)
	ExitColumnCheck = 3 // the input's columns or dtypes are not the schema's
)

// ExitStatus is the exit status of a command whose run ended with err.
func ExitStatus(err error) int {
	var (
		colErr   *ColumnSchemaError
		mismatch runner.MismatchError
		abortErr *ValidationAbortError
		noValid  *NoValidRowsError
		castErr  *CastError
		tableErr *TableCheckError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &colErr), errors.As(err, &mismatch):
		return ExitColumnCheck
	case errors.As(err, &abortErr), errors.As(err, &noValid), errors.As(err, &castErr), errors.As(err, &tableErr):
		return ExitDataFailed
	}
	return ExitUsage
}

// WriteReport writes the JSON report of a run that ended with err (WithError(rep, err)) to the
// file path ("" none), then to w (nil none): what the commands' --report and --format json write.
// The JSON is indented and does not escape <, > and & (>= reads as >=): it is read by people and
// parsers, never embedded in HTML.
func WriteReport(rep *Report, err error, path string, w io.Writer) error {
	data, jerr := IndentJSON(WithError(rep, err))
	if jerr != nil {
		return jerr
	}
	if path != "" {
		if werr := WriteReportFile(path, data); werr != nil {
			return werr
		}
	}
	if w != nil {
		_, werr := fmt.Fprintln(w, string(data))
		return werr
	}
	return nil
}

// WriteReportFile replaces the file path with the JSON report data, whole: it is written beside
// and renamed into place, so that a failed write (a full disk) leaves the previous report as it
// was. A named pipe or a device there is refused, not waited on.
func WriteReportFile(path string, data []byte) error {
	if err := filekind.Regular(path); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	err := durable.ReplaceFile(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
	if err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	return nil
}

// IndentJSON is v as indented JSON that does not escape <, > and &, as WriteReport writes it.
func IndentJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
