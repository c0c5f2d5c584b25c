// Package javaregex translates a schema regex (RE2 syntax, the meaning DuckDB's regexp_matches
// gives it) into a Java regex with the same matches under Matcher.find(), which Spark's RLIKE
// uses. The translation spells every construct out explicitly, so no Java default (Unicode `\b`,
// `$` before a final line terminator, ASCII-only case folding, POSIX classes read as sets,
// `&&` intersections, flag letters with another meaning) applies. It refuses what it cannot
// promise to match the same, and patterns that a backtracking engine such as Java's can take
// exponential time on.
package javaregex

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is a pattern the translator refuses; Reason says why and what to do.
type Error struct {
	Pattern string
	Reason  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("regex %q cannot run on Spark: %s", e.Pattern, e.Reason)
}

// Translate returns the Java regex with the same matches as the RE2 pattern.
func Translate(pattern string) (string, error) {
	if !utf8.ValidString(pattern) {
		return "", &Error{pattern, "it is not valid UTF-8"}
	}
	if hasPropertyClass(pattern) {
		return "", &Error{pattern, `Unicode property classes (\p{…}, \pL) are refused: RE2's, Go's and Java's Unicode tables are of different versions, so the matches could differ; list the characters or ranges instead`}
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", &Error{pattern, err.Error()}
	}
	if n := nestedRepeat(re); n != "" {
		return "", &Error{pattern, fmt.Sprintf("the repetition %s repeats a group that itself repeats without bound; Java's regex engine backtracks and can take exponential time on such a pattern (RE2 does not). Rewrite it without the nested repetition", n)}
	}
	var b strings.Builder
	write(&b, re)
	return b.String(), nil
}

// hasPropertyClass reports whether the pattern uses \p or \P (outside an escaped backslash).
func hasPropertyClass(p string) bool {
	for i := 0; i+1 < len(p); i++ {
		if p[i] != '\\' {
			continue
		}
		if p[i+1] == 'p' || p[i+1] == 'P' {
			return true
		}
		i++ // skip the escaped character
	}
	return false
}

// repeats reports whether re is a repetition that may match its operand more than once.
func repeats(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus:
		return true
	case syntax.OpRepeat:
		return re.Max == -1 || re.Max > 1
	}
	return false
}

func unbounded(re *syntax.Regexp) bool {
	return re.Op == syntax.OpStar || re.Op == syntax.OpPlus || re.Op == syntax.OpRepeat && re.Max == -1
}

// nestedRepeat returns the text of the first repetition whose operand contains a repetition
// without bound ((a+)+, (.*a){3}), or "".
func nestedRepeat(re *syntax.Regexp) string {
	if repeats(re) && containsUnbounded(re.Sub[0]) {
		return "`" + re.String() + "`"
	}
	for _, sub := range re.Sub {
		if s := nestedRepeat(sub); s != "" {
			return s
		}
	}
	return ""
}

func containsUnbounded(re *syntax.Regexp) bool {
	if unbounded(re) {
		return true
	}
	for _, sub := range re.Sub {
		if containsUnbounded(sub) {
			return true
		}
	}
	return false
}

// wordClass is RE2's \w, the ASCII word characters: \b is defined by it.
const wordClass = `[0-9A-Z_a-z]`

func write(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString(`(?!)`)
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && foldable(r) {
				writeClass(b, foldOrbit(r))
				continue
			}
			writeRune(b, r)
		}
	case syntax.OpCharClass:
		writeClass(b, re.Rune)
	case syntax.OpAnyCharNotNL:
		b.WriteString(`[^\x{A}]`)
	case syntax.OpAnyChar:
		b.WriteString(`[\x{0}-\x{10FFFF}]`)
	case syntax.OpBeginLine:
		b.WriteString(`(?:\A|(?<=\x{A}))`)
	case syntax.OpEndLine:
		b.WriteString(`(?:\z|(?=\x{A}))`)
	case syntax.OpBeginText:
		b.WriteString(`\A`)
	case syntax.OpEndText:
		b.WriteString(`\z`)
	case syntax.OpWordBoundary:
		b.WriteString(`(?:(?<=` + wordClass + `)(?!` + wordClass + `)|(?<!` + wordClass + `)(?=` + wordClass + `))`)
	case syntax.OpNoWordBoundary:
		b.WriteString(`(?:(?<=` + wordClass + `)(?=` + wordClass + `)|(?<!` + wordClass + `)(?!` + wordClass + `))`)
	case syntax.OpCapture:
		b.WriteString(`(?:`)
		write(b, re.Sub[0])
		b.WriteString(`)`)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		b.WriteString(`(?:`)
		write(b, re.Sub[0])
		b.WriteString(`)`)
		switch re.Op {
		case syntax.OpStar:
			b.WriteString(`*`)
		case syntax.OpPlus:
			b.WriteString(`+`)
		case syntax.OpQuest:
			b.WriteString(`?`)
		default:
			switch {
			case re.Max == -1:
				fmt.Fprintf(b, `{%d,}`, re.Min)
			case re.Max == re.Min:
				fmt.Fprintf(b, `{%d}`, re.Min)
			default:
				fmt.Fprintf(b, `{%d,%d}`, re.Min, re.Max)
			}
		}
		if re.Flags&syntax.NonGreedy != 0 {
			b.WriteString(`?`)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			write(b, sub)
		}
	case syntax.OpAlternate:
		b.WriteString(`(?:`)
		for i, sub := range re.Sub {
			if i > 0 {
				b.WriteString(`|`)
			}
			write(b, sub)
		}
		b.WriteString(`)`)
	default:
		// syntax.Parse produces no other op; a new one must not pass untranslated.
		panic(fmt.Sprintf("javaregex: unknown regexp op %v", re.Op))
	}
}

// writeRune writes r as itself when it is an ASCII letter or digit, otherwise as \x{…}, which
// Java reads as that code point inside and outside classes alike.
func writeRune(b *strings.Builder, r rune) {
	if r < utf8.RuneSelf && (r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
		b.WriteRune(r)
		return
	}
	fmt.Fprintf(b, `\x{%X}`, r)
}

// writeClass writes a class of rune ranges (pairs lo, hi), every bound as \x{…}.
func writeClass(b *strings.Builder, ranges []rune) {
	if len(ranges) == 0 {
		b.WriteString(`(?!)`)
		return
	}
	b.WriteString(`[`)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		fmt.Fprintf(b, `\x{%X}`, lo)
		if hi != lo {
			fmt.Fprintf(b, `-\x{%X}`, hi)
		}
	}
	b.WriteString(`]`)
}

func foldable(r rune) bool { return unicode.SimpleFold(r) != r }

// foldOrbit is the class of every rune that case-folds to r (RE2's (?i) uses simple folding), in
// ascending order as ranges of one rune each.
func foldOrbit(r rune) []rune {
	orbit := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		orbit = append(orbit, f)
	}
	for i := 1; i < len(orbit); i++ {
		for j := i; j > 0 && orbit[j] < orbit[j-1]; j-- {
			orbit[j], orbit[j-1] = orbit[j-1], orbit[j]
		}
	}
	out := make([]rune, 0, 2*len(orbit))
	for _, o := range orbit {
		out = append(out, o, o)
	}
	return out
}
