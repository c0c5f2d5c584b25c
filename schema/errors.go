package schema

import (
	"fmt"
	"strings"
)

// DeclarationError is a mistake in a schema declaration: it names the schema, where it was
// declared, the column (with its nesting path) and the key.
type DeclarationError struct {
	Schema string
	Pos    Pos
	Column string // "" for schema-level problems
	Key    string // the argument or key at fault, if any
	Msg    string
}

func (e *DeclarationError) Error() string {
	var b strings.Builder
	if p := e.Pos.String(); p != "" {
		b.WriteString(p + ": ")
	}
	b.WriteString(e.Schema)
	if e.Column != "" {
		fmt.Fprintf(&b, ", column '%s'", e.Column)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ", key '%s'", e.Key)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// InvalidSeverityError is a severity declaration tablegate cannot read. Its message is a whole
// sentence that names the schema and the column.
type InvalidSeverityError struct {
	Schema string
	Pos    Pos
	Column string
	Msg    string
}

func (e *InvalidSeverityError) Error() string {
	if p := e.Pos.String(); p != "" {
		return p + ": " + e.Msg
	}
	return e.Msg
}

// InvalidColumnNameError refuses a column name that cannot make check names ([A-Za-z0-9_]+).
type InvalidColumnNameError struct {
	Schema string
	Pos    Pos
	Column string
}

func (e *InvalidColumnNameError) Error() string {
	msg := fmt.Sprintf("%s: column name %q is not made of letters, digits and underscores only, so its check names would be invalid. Rename it in the query that produces the table (SELECT \"%s\" AS %s …).",
		e.Schema, e.Column, strings.ReplaceAll(e.Column, `"`, `""`), suggestName(e.Column))
	if p := e.Pos.String(); p != "" {
		return p + ": " + msg
	}
	return msg
}

func suggestName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), "_")
	if s == "" {
		return "column_1"
	}
	return s
}

// Errors is every declaration problem of one schema. errors.As finds each one.
type Errors struct {
	Schema   string
	Problems []error
}

func (e *Errors) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s has %d declaration errors:", e.Schema, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  - " + p.Error())
	}
	return b.String()
}

// Unwrap exposes each problem to errors.Is and errors.As.
func (e *Errors) Unwrap() []error { return e.Problems }

// TypeName names the error in reports: the problems' own type when they share one
// (InvalidSeverityError, InvalidColumnNameError), else DeclarationError.
func (e *Errors) TypeName() string {
	name := ""
	for _, p := range e.Problems {
		var n string
		switch p.(type) {
		case *InvalidSeverityError:
			n = "InvalidSeverityError"
		case *InvalidColumnNameError:
			n = "InvalidColumnNameError"
		default:
			n = "DeclarationError"
		}
		if name != "" && name != n {
			return "DeclarationError"
		}
		name = n
	}
	if name == "" {
		return "DeclarationError"
	}
	return name
}
