package sql

import "strings"

// ReplaceIdent returns expr with every bare identifier token equal to name replaced by
// replacement. String literals, quoted identifiers and comments are left alone, so a `_` inside
// '…' or "…" is never touched. It is how a column check's `_` becomes the checked value.
func ReplaceIdent(expr, name, replacement string) string {
	var b strings.Builder
	i := 0
	for i < len(expr) {
		c := expr[i]
		switch {
		case c == '\'' || c == '"':
			j := skipQuoted(expr, i, c)
			b.WriteString(expr[i:j])
			i = j
		case c == '-' && i+1 < len(expr) && expr[i+1] == '-':
			j := strings.IndexByte(expr[i:], '\n')
			if j < 0 {
				j = len(expr) - i
			}
			b.WriteString(expr[i : i+j])
			i += j
		case c == '/' && i+1 < len(expr) && expr[i+1] == '*':
			j := strings.Index(expr[i+2:], "*/")
			end := len(expr)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(expr[i:end])
			i = end
		case c == '$':
			// Dollar-quoted string: $tag$ … $tag$.
			if end, ok := skipDollar(expr, i); ok {
				b.WriteString(expr[i:end])
				i = end
				continue
			}
			b.WriteByte(c)
			i++
		case (c == 'E' || c == 'e') && i+1 < len(expr) && expr[i+1] == '\'':
			// Escape string E'…': a backslash escapes the next character (E'\'' is one quote).
			j := skipEscaped(expr, i+1)
			b.WriteString(expr[i:j])
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(expr) && isIdentPart(expr[j]) {
				j++
			}
			word := expr[i:j]
			// A word directly after a dot is a field or qualified name, not the placeholder.
			if word == name && !precededByDot(expr, i) {
				b.WriteString(replacement)
			} else {
				b.WriteString(word)
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

func skipQuoted(s string, start int, q byte) int {
	i := start + 1
	for i < len(s) {
		if s[i] == q {
			if i+1 < len(s) && s[i+1] == q {
				i += 2
				continue
			}
			return i + 1
		}
		i++
	}
	return len(s)
}

func skipEscaped(s string, start int) int {
	i := start + 1
	for i < len(s) {
		switch {
		case s[i] == '\\':
			i += 2
			continue
		case s[i] == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i += 2
			continue
		case s[i] == '\'':
			return i + 1
		}
		i++
	}
	return len(s)
}

func skipDollar(s string, start int) (int, bool) {
	j := start + 1
	for j < len(s) && isIdentPart(s[j]) && s[j] != '$' {
		j++
	}
	if j >= len(s) || s[j] != '$' {
		return 0, false
	}
	tag := s[start : j+1]
	k := strings.Index(s[j+1:], tag)
	if k < 0 {
		return len(s), true
	}
	return j + 1 + k + len(tag), true
}

func precededByDot(s string, i int) bool {
	for i > 0 {
		i--
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '.':
			return true
		default:
			return false
		}
	}
	return false
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9') || c == '$'
}
