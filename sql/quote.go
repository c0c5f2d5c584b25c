// Package sql holds the DuckDB dialect details tablegate relies on: identifier quoting, string
// literals, and the lexical helpers used to splice user SQL safely. Nothing here pastes a user
// value into SQL unquoted.
package sql

import (
	"strings"
)

// Ident quotes one identifier for DuckDB. Embedded double quotes are doubled, so any string is a
// safe identifier.
func Ident(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// QualifiedIdent quotes each part and joins them with dots ("db"."schema"."table").
func QualifiedIdent(parts ...string) string {
	quoted := make([]string, 0, len(parts))
	for _, p := range parts {
		if p == "" {
			continue
		}
		quoted = append(quoted, Ident(p))
	}
	return strings.Join(quoted, ".")
}

// String renders a VARCHAR literal. DuckDB string literals have no backslash escapes, so only the
// single quote needs doubling; a NUL byte cannot appear in a DuckDB string and is refused by the
// caller's validation long before rendering.
func String(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// StringList renders a parenthesised list of string literals: ('a', 'b').
func StringList(values []string) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = String(v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
