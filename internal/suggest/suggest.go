// Package suggest finds the valid word a mistyped one was most likely meant to be, for "did you
// mean" hints in the schema loader and the command line.
package suggest

import "strings"

// Nearest returns the candidate closest to word, or "" when none is close: a candidate that
// differs only in case, else the one with the fewest edits (insertions, deletions, substitutions,
// swaps of two neighbours) when they are at most a third of the word's length (at least 1, at
// most 3). Ties go to the earlier candidate.
func Nearest(word string, candidates []string) string {
	for _, c := range candidates {
		if strings.EqualFold(c, word) && c != word {
			return c
		}
	}
	limit := min(max(len([]rune(word))/3, 1), 3)
	best, bestD := "", limit+1
	lw := strings.ToLower(word)
	for _, c := range candidates {
		if c == word {
			continue
		}
		if d := distance(lw, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Hint is Nearest as the end of a message: ` (did you mean 'X'?)`, or "".
func Hint(word string, candidates []string) string {
	if n := Nearest(word, candidates); n != "" {
		return " (did you mean '" + n + "'?)"
	}
	return ""
}

// distance is the optimal string alignment distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
