package odcs

import (
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ECMA-262's \s: white space and line terminators, Unicode ones included; RE2's \s is ASCII.
const ecmaSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// ECMA-262's dot matches anything but a line terminator; RE2's anything but \n.
const ecmaDot = `[^\n\r\x{2028}\x{2029}]`

// patternToRE2 rewrites an ECMA-262 pattern (as JSON Schema and ODCS write them, read with the u
// flag: characters are code points) into an RE2 pattern (DuckDB's regexp_matches) that matches
// exactly the same strings. The error names a construct RE2 has no exact form for.
func patternToRE2(p string) (string, error) {
	if !utf8.ValidString(p) {
		return "", fmt.Errorf("the pattern is not valid UTF-8")
	}
	var b strings.Builder
	rs := []rune(p)
	inClass := false
	classStart := 0 // the index of the class's first member
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\':
			if i+1 >= len(rs) {
				return "", fmt.Errorf("the pattern ends with a lone backslash")
			}
			i++
			if inClass && strings.ContainsRune("dDwWsSpP", rs[i]) && classRange(rs, i, classStart) {
				return "", fmt.Errorf(`[…\%c…] is a range with a class escape as an end, which ECMA-262 refuses with the u flag; write - first or last in the class to mean a hyphen`, rs[i])
			}
			out, skip, err := escape(rs, i, inClass)
			if err != nil {
				return "", err
			}
			b.WriteString(out)
			i += skip
		case inClass:
			switch r {
			case ']':
				inClass = false
				b.WriteRune(r)
			case '[':
				// A literal in ECMA-262; RE2 would read [: as a POSIX class.
				b.WriteString(`\[`)
			default:
				b.WriteRune(r)
			}
		case r == '[':
			neg := i+1 < len(rs) && rs[i+1] == '^'
			start := i + 1
			if neg {
				start++
			}
			if start < len(rs) && rs[start] == ']' {
				// [] matches nothing and [^] anything in ECMA-262; RE2 reads ] there as a member.
				if neg {
					b.WriteString(`[\x{0}-\x{10FFFF}]`)
				} else {
					b.WriteString(`[^\x{0}-\x{10FFFF}]`)
				}
				i = start
				continue
			}
			inClass = true
			classStart = start
			b.WriteRune('[')
			if neg {
				b.WriteRune('^')
				i++
			}
		case r == '.':
			b.WriteString(ecmaDot)
		case r == '(' && i+1 < len(rs) && rs[i+1] == '?':
			rest := string(rs[i+2:])
			switch {
			case strings.HasPrefix(rest, ":"):
				b.WriteString("(?:")
				i += 2
			case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"), strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, "<!"):
				return "", fmt.Errorf("the pattern uses a lookaround (?%s…), which RE2 (DuckDB) does not have", string(rs[i+2]))
			case strings.HasPrefix(rest, "<"):
				b.WriteString("(?P<")
				i += 2
			default:
				return "", fmt.Errorf("(?%s is not ECMA-262 syntax", excerptRunes(rs[i+2:]))
			}
		default:
			b.WriteRune(r)
		}
	}
	if inClass {
		return "", fmt.Errorf("a character class [ is not closed")
	}
	out := b.String()
	if _, err := syntax.Parse(out, syntax.Perl); err != nil {
		return "", fmt.Errorf("RE2 (DuckDB) does not read it: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return out, nil
}

// classRange reports whether the class escape at rs[i] (the letter after the backslash) is an
// end of a range: a hyphen after it that does not close the class, or one before it that does
// not open it.
func classRange(rs []rune, i, classStart int) bool {
	if i+2 < len(rs) && rs[i+1] == '-' && rs[i+2] != ']' {
		return true
	}
	return i-2 > classStart && rs[i-2] == '-' && rs[i-3] != '\\'
}

func excerptRunes(rs []rune) string {
	if len(rs) > 8 {
		rs = rs[:8]
	}
	return string(rs)
}

// escape rewrites the escape at rs[i] (the character after the backslash); skip is how many more
// characters it used.
func escape(rs []rune, i int, inClass bool) (out string, skip int, err error) {
	r := rs[i]
	switch r {
	case 'd', 'D', 'w', 'W':
		return `\` + string(r), 0, nil // ASCII in both
	case 'b', 'B':
		if inClass {
			if r == 'b' {
				return `\x{8}`, 0, nil // backspace inside a class
			}
			return "", 0, fmt.Errorf(`\B inside a character class is not ECMA-262 syntax`)
		}
		return `\` + string(r), 0, nil
	case 's':
		if inClass {
			return ecmaSpace, 0, nil
		}
		return "[" + ecmaSpace + "]", 0, nil
	case 'S':
		if inClass {
			return "", 0, fmt.Errorf(`\S inside a character class has no exact RE2 form (ECMA-262's \s holds Unicode spaces, RE2's does not)`)
		}
		return "[^" + ecmaSpace + "]", 0, nil
	case 't', 'n', 'r', 'f', 'v':
		return `\` + string(r), 0, nil
	case '0':
		if i+1 < len(rs) && rs[i+1] >= '0' && rs[i+1] <= '9' {
			return "", 0, fmt.Errorf(`\0 followed by a digit is not ECMA-262 syntax with the u flag`)
		}
		return `\x{0}`, 0, nil
	case 'c':
		if i+1 < len(rs) && (rs[i+1] >= 'a' && rs[i+1] <= 'z' || rs[i+1] >= 'A' && rs[i+1] <= 'Z') {
			return fmt.Sprintf(`\x{%x}`, rs[i+1]%32), 1, nil
		}
		return "", 0, fmt.Errorf(`\c must be followed by a letter`)
	case 'x':
		if i+2 < len(rs) && isHex(rs[i+1]) && isHex(rs[i+2]) {
			return `\x{` + string(rs[i+1:i+3]) + `}`, 2, nil
		}
		return "", 0, fmt.Errorf(`\x must be followed by two hex digits`)
	case 'u':
		if i+1 < len(rs) && rs[i+1] == '{' {
			end := i + 2
			for end < len(rs) && isHex(rs[end]) {
				end++
			}
			if end == i+2 || end >= len(rs) || rs[end] != '}' {
				return "", 0, fmt.Errorf(`\u{…} must hold hex digits`)
			}
			return `\x{` + string(rs[i+2:end]) + `}`, end - i, nil
		}
		if i+4 < len(rs) && isHex(rs[i+1]) && isHex(rs[i+2]) && isHex(rs[i+3]) && isHex(rs[i+4]) {
			cp, _ := strconv.ParseUint(string(rs[i+1:i+5]), 16, 32)
			if cp >= 0xD800 && cp <= 0xDFFF {
				return "", 0, fmt.Errorf(`\u%s is a UTF-16 surrogate; write the character as \u{…}`, string(rs[i+1:i+5]))
			}
			return fmt.Sprintf(`\x{%x}`, cp), 4, nil
		}
		return "", 0, fmt.Errorf(`\u must be followed by four hex digits or {…}`)
	case 'p', 'P':
		// Unicode properties: the short general categories and script names read the same.
		if i+1 < len(rs) && rs[i+1] == '{' {
			end := i + 2
			for end < len(rs) && rs[end] != '}' {
				end++
			}
			if end >= len(rs) {
				return "", 0, fmt.Errorf(`\%c{ is not closed`, r)
			}
			name := string(rs[i+2 : end])
			if strings.Contains(name, "=") {
				return "", 0, fmt.Errorf(`\%c{%s}: RE2 (DuckDB) has no property=value form`, r, name)
			}
			return `\` + string(r) + "{" + name + "}", end - i, nil
		}
		return "", 0, fmt.Errorf(`\%c must be followed by {name}`, r)
	case 'k':
		return "", 0, fmt.Errorf(`the pattern uses a named backreference \k<…>, which RE2 (DuckDB) does not have`)
	}
	if r >= '1' && r <= '9' {
		return "", 0, fmt.Errorf(`the pattern uses a backreference \%c, which RE2 (DuckDB) does not have`, r)
	}
	if strings.ContainsRune(`^$\.*+?()[]{}|/-`, r) {
		return `\` + string(r), 0, nil
	}
	return "", 0, fmt.Errorf(`\%c is not an ECMA-262 escape (with the u flag)`, r)
}

func isHex(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'
}

// asciiOnly reports whether every string the RE2 pattern matches in full is ASCII: each literal
// and class it holds is, and it is anchored at both ends, so that a value it accepts has as many
// bytes as characters. Only then is a character length also a byte length.
func asciiOnly(re2 string) bool {
	re, err := syntax.Parse(re2, syntax.Perl)
	if err != nil {
		return false
	}
	re = re.Simplify()
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return false
	}
	first, last := re.Sub[0], re.Sub[len(re.Sub)-1]
	if first.Op != syntax.OpBeginText && first.Op != syntax.OpBeginLine || last.Op != syntax.OpEndText && last.Op != syntax.OpEndLine {
		return false
	}
	// ^ and $ are text anchors here (no m flag), so the whole value is matched by the middle.
	return ascii(re)
}

func ascii(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r > 0x7f {
				return false
			}
		}
		if re.Flags&syntax.FoldCase != 0 {
			return false
		}
	case syntax.OpCharClass:
		for _, r := range re.Rune {
			if r > 0x7f {
				return false
			}
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	}
	for _, s := range re.Sub {
		if !ascii(s) {
			return false
		}
	}
	return true
}
