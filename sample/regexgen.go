package sample

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"regexp/syntax"
	"strings"

	"github.com/tablegate/tablegate/sql"
)

// matching returns a string that contains a match of the pattern, built by walking its syntax
// tree with seeded choices. ok is false for patterns it cannot satisfy (word boundaries etc.).
func matching(pattern string, rng *rand.Rand) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !genRegex(re.Simplify(), rng, &b) {
		return "", false
	}
	return b.String(), true
}

// notMatching returns a string that contains no match of the pattern.
func notMatching(match func(string) bool) (string, bool) {
	for _, cand := range []string{"", "!", "~~~", "0", "a", "ZZZZZZZZZZZZ", " ", "-"} {
		if !match(cand) {
			return cand, true
		}
	}
	return "", false
}

func genRegex(re *syntax.Regexp, rng *rand.Rand, b *strings.Builder) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return true
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
		return true
	case syntax.OpCharClass:
		// Rune holds inclusive ranges; prefer printable ASCII ones.
		var ranges [][2]rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo < 0x20 {
				lo = 0x20
			}
			if hi > 0x7e {
				hi = 0x7e
			}
			if lo <= hi {
				ranges = append(ranges, [2]rune{lo, hi})
			}
		}
		if len(ranges) == 0 {
			if len(re.Rune) == 0 {
				return false
			}
			b.WriteRune(re.Rune[0])
			return true
		}
		rg := ranges[rng.IntN(len(ranges))]
		b.WriteRune(rg[0] + rune(rng.IntN(int(rg[1]-rg[0]+1))))
		return true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(byte('a' + rng.IntN(26)))
		return true
	case syntax.OpCapture:
		return genRegex(re.Sub[0], rng, b)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !genRegex(sub, rng, b) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		return genRegex(re.Sub[rng.IntN(len(re.Sub))], rng, b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 {
				hi = lo + 3
			}
		}
		n := lo + rng.IntN(hi-lo+1)
		for range n {
			if !genRegex(re.Sub[0], rng, b) {
				return false
			}
		}
		return true
	}
	return false
}

// slot is one run of positions of an indexed pattern: between min and max characters (max -1:
// unbounded), each one of chars.
type slot struct {
	chars    []rune
	min, max int
}

// slots flattens a pattern into runs of character sets. ok is false for what cannot be spelt
// position by position: alternations, repeated groups, word boundaries.
func slots(re *syntax.Regexp) ([]slot, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return nil, true
	case syntax.OpLiteral:
		out := make([]slot, len(re.Rune))
		for i, r := range re.Rune {
			out[i] = slot{[]rune{r}, 1, 1}
		}
		return out, true
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		chars := classChars(re)
		return []slot{{chars, 1, 1}}, len(chars) > 0
	case syntax.OpCapture:
		return slots(re.Sub[0])
	case syntax.OpConcat:
		var out []slot
		for _, sub := range re.Sub {
			s, ok := slots(sub)
			if !ok {
				return nil, false
			}
			out = append(out, s...)
		}
		return out, true
	case syntax.OpAlternate:
		for _, sub := range re.Sub { // any branch spells matches; the first that can be spelt
			if s, ok := slots(sub); ok {
				return s, true
			}
		}
		return nil, false
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		inner, ok := slots(re.Sub[0])
		lo := map[syntax.Op]int{syntax.OpStar: 0, syntax.OpQuest: 0, syntax.OpPlus: 1, syntax.OpRepeat: re.Min}[re.Op]
		if ok && len(inner) == 1 && inner[0].min == 1 && inner[0].max == 1 {
			s := slot{inner[0].chars, lo, -1}
			switch re.Op {
			case syntax.OpQuest:
				s.max = 1
			case syntax.OpRepeat:
				s.max = re.Max
			}
			return []slot{s}, true
		}
		// A group repeated: spelt the fewest times it may be (an optional group left out), when
		// each of its positions is fixed.
		if lo == 0 {
			return nil, true
		}
		if !ok {
			return nil, false
		}
		var out []slot
		for range lo {
			for _, s := range inner {
				if s.min != s.max {
					return nil, false
				}
				out = append(out, s)
			}
		}
		return out, true
	}
	return nil, false
}

// anchoredEnd reports whether a pattern matches only up to the end of the text. One that is not
// matches any text that starts with a match, since a regex rule searches.
func anchoredEnd(re *syntax.Regexp) bool {
	for re.Op == syntax.OpConcat || re.Op == syntax.OpCapture {
		if len(re.Sub) == 0 {
			return false
		}
		re = re.Sub[len(re.Sub)-1]
	}
	return re.Op == syntax.OpEndText || re.Op == syntax.OpEndLine
}

// classChars lists the printable ASCII characters a class (or any character) matches, in order.
func classChars(re *syntax.Regexp) []rune {
	var out []rune
	for r := rune(0x21); r <= 0x7e; r++ {
		switch re.Op {
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
				out = append(out, r)
			}
		default:
			for i := 0; i+1 < len(re.Rune); i += 2 {
				if re.Rune[i] <= r && r <= re.Rune[i+1] {
					out = append(out, r)
					break
				}
			}
		}
	}
	return out
}

// indexedMatch spells index n (0 ≤ n < count) of a pattern: each run of positions as short as
// it may be, except that runs grow until count strings fit and the strings are minLen long, and
// the positions taken as digits of a mixed-radix number. It returns one SQL expression over idx and a Go function that
// spells the same strings (to check them), or ok false when the pattern cannot be spelt so or
// cannot reach count.
func indexedMatch(pattern, idx string, count *big.Int, minLen int) (string, func(n int64) string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", nil, false
	}
	// Not simplified: Simplify spells x{2,5} as xx(x(x(x)?)?)?, which slots cannot flatten.
	ss, ok := slots(re)
	if !ok {
		return "", nil, false
	}
	if !anchoredEnd(re) {
		// Free letters and digits after the match: [A-Z] spells more than 26 strings.
		ss = append(ss, slot{[]rune("abcdefghijklmnopqrstuvwxyz0123456789"), 0, -1})
	}
	lengths := make([]int, len(ss))
	capacity := big.NewInt(1)
	for i, s := range ss {
		lengths[i] = s.min
		capacity.Mul(capacity, new(big.Int).Exp(big.NewInt(int64(len(s.chars))), big.NewInt(int64(s.min)), nil))
	}
	for i, s := range ss {
		for capacity.Cmp(count) < 0 && len(s.chars) > 1 && (s.max < 0 || lengths[i] < s.max) && lengths[i] < 64 {
			lengths[i]++
			capacity.Mul(capacity, big.NewInt(int64(len(s.chars))))
		}
	}
	if capacity.Cmp(count) < 0 {
		return "", nil, false
	}
	total := 0
	for _, n := range lengths {
		total += n
	}
	for i, s := range ss {
		for total < minLen && (s.max < 0 || lengths[i] < s.max) && lengths[i] < 64 {
			lengths[i]++
			total++
		}
	}
	// Positions, most significant first, with their characters and place values.
	type digit struct {
		chars  []rune
		weight *big.Int // nil once it exceeds every index: that position is always its first
	}
	var digits []digit
	for i, s := range ss {
		for range lengths[i] {
			digits = append(digits, digit{chars: s.chars})
		}
	}
	weight := big.NewInt(1)
	for i := len(digits) - 1; i >= 0; i-- {
		if weight.Cmp(count) < 0 {
			digits[i].weight = new(big.Int).Set(weight)
		}
		weight.Mul(weight, big.NewInt(int64(len(digits[i].chars))))
	}
	parts := make([]string, len(digits))
	for i, d := range digits {
		if len(d.chars) == 1 || d.weight == nil {
			parts[i] = sql.String(string(d.chars[0]))
			continue
		}
		parts[i] = fmt.Sprintf("substr(%s, CAST((%s // %s) %% %d AS BIGINT) + 1, 1)", sql.String(string(d.chars)), idx, d.weight, len(d.chars))
	}
	spell := func(n int64) string {
		var b strings.Builder
		for _, d := range digits {
			if d.weight == nil {
				b.WriteRune(d.chars[0])
				continue
			}
			b.WriteRune(d.chars[(n/d.weight.Int64())%int64(len(d.chars))])
		}
		return b.String()
	}
	if len(parts) == 0 {
		return "''", spell, true // the empty string is the pattern's only spelling
	}
	return "(" + strings.Join(parts, " || ") + ")", spell, true
}
