package tablegate

import (
	"github.com/tablegate/tablegate/internal/suggest"
	"github.com/tablegate/tablegate/report"
)

// FormatCount spells a count with thousands separators (1,234,567), as the HTML page and the
// CLI's text print counts.
func FormatCount(n int64) string { return report.Count(n) }

// FormatNumber spells a value as the HTML page and the CLI's text print values: to 10
// significant digits, without an exponent below 10^21, its whole part with thousands
// separators (336,776; 1,234.5; 0.000012).
func FormatNumber(f float64) string { return report.Number(f) }

// FormatPercent spells a share of the input (0 to 1) as a percentage of at most two decimals:
// 20%, 1.25%; a share that rounds to 0% or 100% but is not says so (<0.01%, >99.99%).
func FormatPercent(share float64) string { return report.Percent(share) }

// FormatValues spells a column check's most frequent failing values with their counts:
// `-1 (2 rows), "x" (1 row)`.
func FormatValues(values []ValueCount) string { return report.Values(values) }

// Nearest is the candidate a mistyped word most likely meant, as tablegate's declaration errors
// suggest one: a candidate that differs only in case, else the one with the fewest edits
// (insertions, deletions, substitutions, swaps of two neighbours) when they are at most a third
// of the word's length (at least 1, at most 3); "" when none is that near.
func Nearest(word string, candidates []string) string { return suggest.Nearest(word, candidates) }
