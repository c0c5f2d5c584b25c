package spark

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// bindSQL checks that a custom rule's Spark SQL reads as one expression and returns it
// parenthesised, with every `_` token replaced by ref (the checked value; "" for schema rules,
// where `_` is refused). The text is tokenised as Spark's lexer reads it: quoted strings and
// identifiers and comments are never split, comments are dropped (a trailing -- cannot swallow
// the closing parenthesis), parentheses must balance, and no statement separator, subquery or
// window may appear. Spark's analyzer then types it (Rule.Probe) before any row is read.
func bindSQL(expr, ref string) (string, error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return "", fmt.Errorf("the SQL is empty")
	}
	if !utf8.ValidString(expr) || strings.ContainsRune(expr, 0) {
		return "", fmt.Errorf("the SQL is not valid UTF-8 text")
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '-' && strings.HasPrefix(expr[i:], "--"):
			j := strings.IndexByte(expr[i:], '\n')
			if j < 0 {
				j = len(expr) - i
			}
			i += j
			b.WriteByte(' ')
		case c == '/' && strings.HasPrefix(expr[i:], "/*"):
			// Spark's bracketed comments nest.
			n, j := 0, i
			for ; j < len(expr); j++ {
				if strings.HasPrefix(expr[j:], "/*") {
					n++
					j++
				} else if strings.HasPrefix(expr[j:], "*/") {
					n--
					j++
					if n == 0 {
						break
					}
				}
			}
			if n != 0 {
				return "", fmt.Errorf("a /* comment is not closed")
			}
			i = j + 1
			b.WriteByte(' ')
		case c == '\'' || c == '"':
			j := i + 1
			for ; j < len(expr) && expr[j] != c; j++ {
				if expr[j] == '\\' {
					j++
				}
			}
			if j >= len(expr) {
				return "", fmt.Errorf("a string literal is not closed")
			}
			b.WriteString(expr[i : j+1])
			i = j + 1
		case c == '`':
			j := i + 1
			for ; j < len(expr); j++ {
				if expr[j] == '`' {
					if j+1 < len(expr) && expr[j+1] == '`' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(expr) {
				return "", fmt.Errorf("a `quoted identifier` is not closed")
			}
			b.WriteString(expr[i : j+1])
			i = j + 1
		case isWord(rune(c)) || c >= utf8.RuneSelf:
			j := i
			for j < len(expr) {
				r, n := utf8.DecodeRuneInString(expr[j:])
				if !isWord(r) {
					break
				}
				j += n
			}
			if j == i { // a non-word rune outside ASCII: pass it through
				_, n := utf8.DecodeRuneInString(expr[i:])
				b.WriteString(expr[i : i+n])
				i += n
				continue
			}
			word := expr[i:j]
			switch lw := strings.ToLower(word); {
			case lw == "_":
				if ref == "" {
					return "", fmt.Errorf("`_` stands for the checked value, which a schema-level rule has none of")
				}
				b.WriteString(ref)
			case lw == "select":
				// Every subquery (and every WITH) has one; FROM alone is fine (extract(YEAR FROM d)).
				return "", fmt.Errorf("a rule is one expression: no subquery (%s)", word)
			case lw == "over":
				return "", fmt.Errorf("a rule is one expression over its row: no window functions (OVER)")
			case strings.HasPrefix(lw, "__tg_"):
				return "", fmt.Errorf("the prefix __tg_ is reserved for tablegate's generated names")
			default:
				b.WriteString(word)
			}
			i = j
		case c == ';':
			return "", fmt.Errorf("a rule is one expression: no ';'")
		case c == '(':
			depth++
			b.WriteByte(c)
			i++
		case c == ')':
			depth--
			if depth < 0 {
				return "", fmt.Errorf("a ')' closes a parenthesis the rule did not open")
			}
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	if depth != 0 {
		return "", fmt.Errorf("a '(' is not closed")
	}
	return "(" + strings.TrimSpace(b.String()) + ")", nil
}

func isWord(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
}
