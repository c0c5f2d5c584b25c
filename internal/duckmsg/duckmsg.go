// Package duckmsg shortens DuckDB's error messages for reports and logs: an error raised by the
// user's SQL on the data quotes the data's values, and an INTERNAL error carries DuckDB's C++
// stack trace, neither of which belongs whole in every report.
package duckmsg

import (
	"strings"
	"unicode"
)

// MaxQuoted is how much of a quoted value (a value of the data, in DuckDB's message) a message
// shows: enough to find the row, not a cell's whole text in every report and log.
const MaxQuoted = 32

// OnData is the message of an error the user's SQL raised on the data (a rule, a table check, a
// collection's filter): its first line (no stack trace, no caret under the SQL), each quoted
// value cut (Excerpts).
func OnData(err error) string { return Excerpts(FirstLine(err.Error())) }

// FirstLine is the text up to its first line break.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// WithoutStackTrace is msg without the stack trace DuckDB appends to an INTERNAL error.
func WithoutStackTrace(msg string) string {
	if i := strings.Index(msg, "\nStack Trace:"); i >= 0 {
		return strings.TrimRight(msg[:i], "\n")
	}
	return msg
}

// Excerpts cuts each '…'-quoted value in msg to MaxQuoted characters, control characters
// replaced.
func Excerpts(msg string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(msg, '\'')
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		j := strings.IndexByte(msg[i+1:], '\'')
		if j < 0 {
			b.WriteString(msg)
			return b.String()
		}
		b.WriteString(msg[:i+1])
		val := []rune(msg[i+1 : i+1+j])
		cut := len(val) > MaxQuoted
		if cut {
			val = val[:MaxQuoted]
		}
		for _, r := range val {
			if unicode.IsControl(r) {
				r = '?'
			}
			b.WriteRune(r)
		}
		if cut {
			b.WriteString("…")
		}
		b.WriteByte('\'')
		msg = msg[i+2+j:]
	}
}
