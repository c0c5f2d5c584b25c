package spark

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/compile/javaregex"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// Ident quotes a Spark identifier: backticks, a backtick doubled inside.
func Ident(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// String renders a Spark string literal. Spark reads backslash escapes in literals (and 4.0 reads
// a doubled quote as two adjacent literals), so a backslash is doubled and a quote escaped, never doubled.
func String(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(s) + "'"
}

// Dialect is Spark SQL as package compile's renderer writes rules (Plan.In).
var Dialect compile.Dialect = dialect{}

type dialect struct{}

func (dialect) Ident(name string) string    { return Ident(name) }
func (dialect) String(s string) string      { return String(s) }
func (dialect) IsFloat32(ref string) string { return fmt.Sprintf("typeof(%s) = 'float'", ref) }

// ByteLength: Spark's length() counts characters.
func (dialect) ByteLength(ref string) string { return "octet_length(" + ref + ")" }
func (dialect) ListLength(ref string) string { return "array_size(" + ref + ")" }

// NotInf: Spark has no isinf.
func (dialect) NotInf(ref string) string {
	return fmt.Sprintf("NOT (abs(%s) = CAST('Infinity' AS DOUBLE))", ref)
}
func (dialect) KeyMatch(a, b string) string { return a + " <=> " + b }
func (dialect) Inline() string              { return "" }

// Regex: Java's regex as RE2 reads the pattern (package javaregex); RLIKE searches.
func (dialect) Regex(ref, pattern string) (string, error) {
	j, err := javaregex.Translate(pattern)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s RLIKE %s", ref, String(j)), nil
}

// All: a NULL result makes forall NULL, which counts as valid, as list_bool_and's does in DuckDB.
func (dialect) All(list, v, pred string) string {
	return fmt.Sprintf("forall(%s, %s -> %s)", list, v, pred)
}
func (dialect) Any(list, v, pred string) string {
	return fmt.Sprintf("exists(%s, %s -> %s)", list, v, pred)
}
func (dialect) Filter(list, v, pred string) string {
	return fmt.Sprintf("filter(%s, %s -> %s)", list, v, pred)
}

// Distinct: array_distinct keeps one NULL, so NULLs always take part, as equal.
func (dialect) Distinct(list, v, elem string, _ bool) string {
	return fmt.Sprintf("array_size(array_distinct(transform(%s, %s -> %s))) = array_size(%s)", list, v, elem, list)
}

func (dialect) Struct(names, values []string) string {
	parts := make([]string, len(names))
	for i := range names {
		parts[i] = String(names[i]) + ", " + values[i]
	}
	return "named_struct(" + strings.Join(parts, ", ") + ")"
}

func (dialect) Resolution(d schema.DType, span schema.Span, kind schema.ResolutionKind, ref string) (string, error) {
	return resolutionSQL(d, span, kind, ref)
}

// Literal: a datetime in Spark's spelling (zoned as UTC, naive as TIMESTAMP_NTZ); numbers and
// dates as DuckDB's literals, which Spark reads alike (their text has no quote or backslash).
func (dialect) Literal(d schema.DType, p schema.Parsed) string {
	switch k := d.Kind; {
	case k == schema.KindDatetime && d.TimeZone != "":
		return "TIMESTAMP " + String(p.Time.UTC().Format("2006-01-02 15:04:05.999999")+"+00:00")
	case k == schema.KindDatetime:
		return "TIMESTAMP_NTZ " + String(p.Time.Format("2006-01-02 15:04:05.999999"))
	case k.IsInteger(), k.IsFloat(), k == schema.KindDecimal, k == schema.KindDate:
		return sql.Literal(d, p)
	}
	return String(p.Text)
}

// resolutionSQL is true when the value sits on the resolution grid, as in the DuckDB plan:
// epoch-based modulo for fixed widths, Monday 1970-01-05 for weeks, the month index for months; a
// zoned value on its wall time in the declared zone (the session zone is UTC).
func resolutionSQL(d schema.DType, r schema.Span, kind schema.ResolutionKind, ref string) (string, error) {
	monthIndex := func(v string) string { return fmt.Sprintf("(year(%s) * 12 + month(%s) - 1)", v, v) }
	if d.Kind == schema.KindDate {
		switch kind {
		case schema.ResolutionMonths:
			return fmt.Sprintf("(day(%s) = 1 AND %s %% %d = 0)", ref, monthIndex(ref), r.Months), nil
		case schema.ResolutionWeeks:
			return fmt.Sprintf("datediff(%s, DATE '1970-01-05') %% %d = 0", ref, 7*r.Weeks), nil
		}
		return fmt.Sprintf("datediff(%s, DATE '1970-01-01') %% %d = 0", ref, r.Days), nil
	}
	if d.Kind != schema.KindDatetime {
		return "", fmt.Errorf("resolution on %s has no Spark form", d)
	}
	// wall is the value's wall time and us its microseconds since the epoch.
	wall, us := ref, fmt.Sprintf("timestampdiff(MICROSECOND, TIMESTAMP_NTZ '1970-01-01 00:00:00', %s)", ref)
	if d.TimeZone != "" {
		wall = fmt.Sprintf("from_utc_timestamp(%s, %s)", ref, String(d.TimeZone))
		us = fmt.Sprintf("unix_micros(%s)", wall)
	}
	// The width in microseconds: v*1000 % w_ns == 0 iff v % (w_ns / gcd(w_ns, 1000)) == 0.
	g := new(big.Int).GCD(nil, nil, r.FixedNanos(), big.NewInt(1000))
	w := new(big.Int).Quo(r.FixedNanos(), g)
	shift := "0"
	var aligned string
	switch kind {
	case schema.ResolutionMonths:
		aligned = fmt.Sprintf("(day(%s) = 1 AND %s %% 86400000000 = 0 AND %s %% %d = 0)", wall, us, monthIndex(wall), r.Months)
	case schema.ResolutionWeeks:
		shift = "345600000000"
		aligned = fmt.Sprintf("(%s - %s) %% %s = 0", us, shift, w)
	default:
		aligned = fmt.Sprintf("%s %% %s = 0", us, w)
	}
	if d.TimeZone == "" {
		return aligned, nil
	}
	// A grid point that a DST gap skips moves to the first instant after the gap, as polars
	// truncates: the value is aligned too when its wall time's grid point lies after the wall
	// time one microsecond earlier.
	prevWall := fmt.Sprintf("from_utc_timestamp(%s - INTERVAL 1 MICROSECOND, %s)", ref, String(d.TimeZone))
	var point string
	if kind == schema.ResolutionMonths {
		point = fmt.Sprintf("unix_micros(date_trunc('MONTH', %s) - make_ym_interval(0, CAST(%s %% %d AS INT)))", wall, monthIndex(wall), r.Months)
	} else {
		point = fmt.Sprintf("(%s - ((%s - %s) %% %s + %s) %% %s)", us, us, shift, w, w, w)
	}
	return fmt.Sprintf("(%s OR %s > unix_micros(%s))", aligned, point, prevWall), nil
}
