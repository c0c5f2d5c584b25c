package schema

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // zone names must resolve the same on every machine
)

// Parsed is a rule argument read for a column's dtype. Exactly the field of its family is set.
type Parsed struct {
	Int   *big.Int  // integer dtypes
	Float float64   // float dtypes
	Rat   *big.Rat  // decimal dtypes (exact)
	Time  time.Time // Date, Time (on 0000-01-01), Datetime (UTC for zoned)
	Nanos *big.Int  // Duration
	// Text is the canonical SQL-literal body: 12, 0.1, 3.14, 2020-04-01, 12:00:00,
	// 2020-03-01 12:00:00, 2020-03-01 10:00:00+00, or microseconds for durations.
	Text string
}

// Compare orders two values of the same dtype: -1, 0 or +1.
func (p Parsed) Compare(q Parsed) int {
	switch {
	case p.Int != nil:
		return p.Int.Cmp(q.Int)
	case p.Rat != nil:
		return p.Rat.Cmp(q.Rat)
	case p.Nanos != nil:
		return p.Nanos.Cmp(q.Nanos)
	case !p.Time.IsZero() || !q.Time.IsZero():
		return p.Time.Compare(q.Time)
	}
	switch {
	case p.Float < q.Float:
		return -1
	case p.Float > q.Float:
		return 1
	}
	return 0
}

// IntRange is the inclusive value range of an integer dtype. Integer uses the Int64 range.
func IntRange(k Kind) (lo, hi *big.Int) {
	bits := map[Kind]uint{KindInt8: 8, KindInt16: 16, KindInt32: 32, KindInt64: 64, KindInteger: 64,
		KindUInt8: 8, KindUInt16: 16, KindUInt32: 32, KindUInt64: 64}[k]
	one := big.NewInt(1)
	if k.IsUnsigned() {
		hi = new(big.Int).Sub(new(big.Int).Lsh(one, bits), one)
		return big.NewInt(0), hi
	}
	hi = new(big.Int).Sub(new(big.Int).Lsh(one, bits-1), one)
	lo = new(big.Int).Neg(new(big.Int).Lsh(one, bits-1))
	return lo, hi
}

// ParseValue reads v as a value of dtype d, checking it is representable.
func ParseValue(d DType, v Value) (Parsed, error) {
	text := strings.TrimSpace(v.Text)
	switch k := d.Kind; {
	case k.IsInteger():
		n, ok := new(big.Int).SetString(text, 10)
		if !ok {
			return Parsed{}, fmt.Errorf("%q is not an integer", v.Text)
		}
		lo, hi := IntRange(k)
		if n.Cmp(lo) < 0 || n.Cmp(hi) > 0 {
			return Parsed{}, fmt.Errorf("%s is outside the range of %s (%s to %s)", n, k, lo, hi)
		}
		return Parsed{Int: n, Text: n.String()}, nil
	case k.IsFloat():
		f, err := strconv.ParseFloat(text, 64)
		if err != nil && !isRangeErr(err) {
			return Parsed{}, fmt.Errorf("%q is not a number", v.Text)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return Parsed{}, fmt.Errorf("%s is not a finite number", v.Text)
		}
		if k == KindFloat32 && math.Abs(f) > math.MaxFloat32 {
			return Parsed{}, fmt.Errorf("%s is outside the range of Float32", v.Text)
		}
		return Parsed{Float: f, Text: strconv.FormatFloat(f, 'g', -1, 64)}, nil
	case k == KindDecimal:
		return parseDecimal(d, text)
	case k == KindDate:
		t, err := time.Parse("2006-01-02", text)
		if err != nil {
			return Parsed{}, fmt.Errorf("%q is not a date (YYYY-MM-DD)", v.Text)
		}
		return Parsed{Time: t, Text: t.Format("2006-01-02")}, nil
	case k == KindTime:
		for _, layout := range []string{"15:04:05.999999999", "15:04"} {
			if t, err := time.Parse(layout, text); err == nil {
				return Parsed{Time: t, Text: t.Format("15:04:05.999999")}, nil
			}
		}
		return Parsed{}, fmt.Errorf("%q is not a time (HH:MM:SS)", v.Text)
	case k == KindDatetime:
		return parseDatetime(d, text)
	case k == KindDuration:
		// A bound may be negative: -1h30m is minus one hour thirty.
		unsigned, negative := strings.CutPrefix(text, "-")
		dur, err := ParseDuration(unsigned)
		if err != nil && zeroDurationRE.MatchString(unsigned) {
			// A zero span is no resolution, but it is a fine bound (min: 0s).
			dur, err = Span{}, nil
		}
		if err != nil {
			return Parsed{}, err
		}
		if dur.Months != 0 {
			return Parsed{}, fmt.Errorf("%q has months, quarters or years, which have no fixed length; use days", v.Text)
		}
		ns := dur.FixedNanos()
		if negative {
			ns.Neg(ns)
		}
		us := new(big.Int).Quo(ns, big.NewInt(1000))
		if new(big.Int).Rem(ns, big.NewInt(1000)).Sign() != 0 {
			return Parsed{}, fmt.Errorf("%q is finer than the microseconds an INTERVAL holds", v.Text)
		}
		return Parsed{Nanos: ns, Text: us.String()}, nil
	}
	return Parsed{}, fmt.Errorf("%s takes no bounds", d.Kind)
}

var zeroDurationRE = regexp.MustCompile(`^(0+(ns|us|ms|s|m|h|d|w|mo|q|y))+$`)

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func parseDecimal(d DType, text string) (Parsed, error) {
	r, ok := new(big.Rat).SetString(text)
	if !ok || strings.ContainsAny(text, "eE/") {
		return Parsed{}, fmt.Errorf("%q is not a decimal number", text)
	}
	digits := strings.TrimLeft(text, "+-")
	intPart, frac, _ := strings.Cut(digits, ".")
	frac = strings.TrimRight(frac, "0")
	if len(frac) > d.Scale {
		return Parsed{}, fmt.Errorf("%s has %d fractional digits, more than the scale %d", text, len(frac), d.Scale)
	}
	intDigits := len(strings.TrimLeft(intPart, "0"))
	precision := d.Precision
	if precision == 0 {
		precision = 38 // any precision DuckDB has: the bound must still fit DECIMAL(38, scale)
	}
	if intDigits > precision-d.Scale {
		return Parsed{}, fmt.Errorf("%s has %d integer digits, more than precision %d minus scale %d allows", text, intDigits, precision, d.Scale)
	}
	return Parsed{Rat: r, Text: r.FloatString(d.Scale)}, nil
}

var datetimeLayouts = []string{
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02",
}

var zonedLayouts = []string{
	"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z07", "2006-01-02T15:04:05.999999999Z07",
	"2006-01-02 15:04Z07:00", "2006-01-02T15:04Z07:00",
}

func parseDatetime(d DType, text string) (Parsed, error) {
	if d.TimeZone == "" {
		for _, layout := range datetimeLayouts {
			if t, err := time.Parse(layout, text); err == nil {
				return Parsed{Time: t, Text: t.Format("2006-01-02 15:04:05.999999999")}, nil
			}
		}
		for _, layout := range zonedLayouts {
			if _, err := time.Parse(layout, text); err == nil {
				return Parsed{}, fmt.Errorf("%q has a UTC offset, but the column has no time zone", text)
			}
		}
		return Parsed{}, fmt.Errorf("%q is not a datetime (YYYY-MM-DD HH:MM:SS)", text)
	}
	for _, layout := range zonedLayouts {
		if t, err := time.Parse(layout, text); err == nil {
			u := t.UTC()
			return Parsed{Time: u, Text: u.Format("2006-01-02 15:04:05.999999999") + "+00"}, nil
		}
	}
	return Parsed{}, fmt.Errorf("%q needs a UTC offset (e.g. 2020-03-01 12:00:00+01:00) because the column is zoned", text)
}

// Span is a value of the duration language: 1d, 4h, 30m, 1d4h, 500ms, 1w, 1mo, 1q, 1y.
type Span struct {
	Months int64 // mo, q (3), y (12)
	Weeks  int64
	Days   int64
	Nanos  int64 // h, m, s, ms, us, ns
}

var durationUnits = []struct {
	suffix string
	apply  func(*Span, int64)
}{
	{"mo", func(d *Span, n int64) { d.Months += n }},
	{"ms", func(d *Span, n int64) { d.Nanos += n * int64(time.Millisecond) }},
	{"us", func(d *Span, n int64) { d.Nanos += n * int64(time.Microsecond) }},
	{"ns", func(d *Span, n int64) { d.Nanos += n }},
	{"y", func(d *Span, n int64) { d.Months += 12 * n }},
	{"q", func(d *Span, n int64) { d.Months += 3 * n }},
	{"w", func(d *Span, n int64) { d.Weeks += n }},
	{"d", func(d *Span, n int64) { d.Days += n }},
	{"h", func(d *Span, n int64) { d.Nanos += n * int64(time.Hour) }},
	{"m", func(d *Span, n int64) { d.Nanos += n * int64(time.Minute) }},
	{"s", func(d *Span, n int64) { d.Nanos += n * int64(time.Second) }},
}

// subDayNanos is the length in nanoseconds of each sub-day unit of the duration language.
var subDayNanos = map[string]int64{
	"ns": 1, "us": int64(time.Microsecond), "ms": int64(time.Millisecond),
	"s": int64(time.Second), "m": int64(time.Minute), "h": int64(time.Hour),
}

// ParseDuration reads the duration language.
func ParseDuration(s string) (Span, error) {
	var d Span
	rest := strings.TrimSpace(s)
	if rest == "" {
		return d, fmt.Errorf("empty duration; use e.g. 1d, 4h, 30m, 500ms, 1w, 1mo")
	}
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 {
			return d, fmt.Errorf("%q is not a duration; use e.g. 1d, 4h, 30m, 1d4h, 500ms, 1w, 1mo, 1q, 1y", s)
		}
		n, err := strconv.ParseInt(rest[:i], 10, 64)
		digits := i
		rest = rest[i:]
		matched := false
		for _, u := range durationUnits {
			if strings.HasPrefix(rest, u.suffix) {
				// Sub-day units add up in int64 nanoseconds (about 292 years); calendar units
				// are counts, kept to 12 digits.
				per := subDayNanos[u.suffix]
				if err != nil || (per == 0 && digits > 12) || (per > 0 && n > (math.MaxInt64-d.Nanos)/per) {
					return d, fmt.Errorf("%q is too long for a duration", s)
				}
				u.apply(&d, n)
				rest = rest[len(u.suffix):]
				matched = true
				break
			}
		}
		if !matched {
			return d, fmt.Errorf("%q is not a duration: unknown unit; use ns, us, ms, s, m, h, d, w, mo, q, y", s)
		}
	}
	if d == (Span{}) {
		return d, fmt.Errorf("%q is a zero duration", s)
	}
	return d, nil
}

// FixedNanos is the length of a month-free duration in nanoseconds.
func (d Span) FixedNanos() *big.Int {
	n := big.NewInt(d.Weeks*7 + d.Days)
	n.Mul(n, big.NewInt(int64(24*time.Hour)))
	return n.Add(n, big.NewInt(d.Nanos))
}

// ResolutionKind classifies a resolution for truncation: a fixed width (sub-day units, or only
// days), whole weeks, or whole months.
type ResolutionKind int

// Resolution families.
const (
	ResolutionFixed ResolutionKind = iota
	ResolutionWeeks
	ResolutionMonths
)

// Classify says how d truncates, or why it cannot be a resolution.
func (d Span) Classify() (ResolutionKind, error) {
	parts := 0
	for _, has := range []bool{d.Months != 0, d.Weeks != 0, d.Days != 0, d.Nanos != 0} {
		if has {
			parts++
		}
	}
	if parts > 1 {
		return 0, fmt.Errorf("a resolution cannot mix months, weeks, days and sub-day units")
	}
	switch {
	case d.Months != 0:
		return ResolutionMonths, nil
	case d.Weeks != 0:
		return ResolutionWeeks, nil
	}
	return ResolutionFixed, nil
}

var epochMonday = time.Date(1970, 1, 5, 0, 0, 0, 0, time.UTC)

// Aligned reports whether a (wall-clock) instant sits on the resolution grid, as polars'
// truncate defines it: fixed widths and weeks from the Unix epoch (weeks from Monday 1970-01-05),
// months by month index.
func (d Span) Aligned(t time.Time) bool {
	kind, err := d.Classify()
	if err != nil {
		return false
	}
	switch kind {
	case ResolutionMonths:
		if t.Day() != 1 || t.Hour() != 0 || t.Minute() != 0 || t.Second() != 0 || t.Nanosecond() != 0 {
			return false
		}
		idx := int64(t.Year())*12 + int64(t.Month()) - 1
		return idx%d.Months == 0
	case ResolutionWeeks:
		return modZero(sinceNanos(epochMonday, t), d.FixedNanos())
	}
	return modZero(sinceNanos(time.Unix(0, 0).UTC(), t), d.FixedNanos())
}

// AlignedNanos reports whether a length in nanoseconds is a multiple of a fixed resolution.
func (d Span) AlignedNanos(n *big.Int) bool { return modZero(n, d.FixedNanos()) }

func sinceNanos(origin, t time.Time) *big.Int {
	secs := big.NewInt(t.Unix() - origin.Unix())
	secs.Mul(secs, big.NewInt(1e9))
	return secs.Add(secs, big.NewInt(int64(t.Nanosecond()-origin.Nanosecond())))
}

func modZero(n, w *big.Int) bool {
	return w.Sign() != 0 && new(big.Int).Rem(n, w).Sign() == 0
}
