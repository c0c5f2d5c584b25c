package sample

import (
	"math/rand/v2"
	"regexp/syntax"
	"strings"
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
