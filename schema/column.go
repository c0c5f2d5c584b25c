package schema

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Severity is how a failing rule affects a run: "error" (the row is invalid) or "warn" (the row
// stays valid, the check fails at WARN).
type Severity string

// The two severities.
const (
	Error Severity = "error"
	Warn  Severity = "warn"
)

// SeverityEntry declares the severity of one rule by name.
type SeverityEntry struct {
	Rule     string
	Severity Severity
}

// SeveritySpec is a severity declaration: one value for every rule (All), or rule → value.
// Values are kept as written so that validation can name a bad one.
type SeveritySpec struct {
	All     Severity
	PerRule []SeverityEntry
	// Invalid records a declaration that was neither a value nor a mapping (from a file).
	Invalid string
}

// IsZero reports whether nothing was declared.
func (s SeveritySpec) IsZero() bool {
	return s.All == "" && len(s.PerRule) == 0 && s.Invalid == ""
}

// Of resolves one rule's severity (named in ruleNames, whose aliases an entry may use): the
// per-rule entry wins over the one value for all; error when nothing is declared.
func (s SeveritySpec) Of(rule string, ruleNames []string) Severity {
	sev := Error
	if s.All != "" {
		sev = s.All
	}
	for _, e := range s.PerRule {
		for _, r := range ResolveSeverityName(e.Rule, ruleNames) {
			if r == rule {
				sev = e.Severity
			}
		}
	}
	return sev
}

// Check is one custom SQL rule on a column; `_` in SQL stands for the checked value.
type Check struct {
	Name string // rule name: check, check__0, check__lowercase
	SQL  string
	// Spark is the same check in Spark SQL, for a run on Spark; "" means it has none.
	Spark string
}

// Column is one declared column. Build it with the dtype constructors (String, Float64, …) and
// the chained setters, or load it from a schema file.
type Column struct {
	Name  string
	DType DType
	Args  Args

	// pos is where the column was declared in a file (zero for builder columns).
	pos Pos
}

// Args are a column's declared arguments, as written.
type Args struct {
	Description string

	Nullable   bool
	PrimaryKey bool
	Unique     bool
	Checks     []Check

	Min, MinExclusive, Max, MaxExclusive *Value
	IsIn                                 []Value
	HasIsIn                              bool
	Regex                                *string
	MinLength, MaxLength                 *int64
	AllowInf, AllowNaN                   bool
	Resolution                           string
	// References is the column's foreign key: its values must be in other data.
	References *Reference

	Severity SeveritySpec
	// Tolerance is how many failing rows the column's rules tolerate.
	Tolerance ToleranceSpec
}

// Value is a rule argument as written: a number, an ISO date/time string or a duration-language
// string. Keeping the text keeps decimals exact; validation parses it for the column's dtype.
type Value struct {
	Text string
	// IsString is true when the value was a quoted string in the file (or a Go string).
	IsString bool
}

func (v Value) String() string { return v.Text }

// ValueOf converts a Go value to a rule argument: integers, floats, strings, time.Time and
// time.Duration.
func ValueOf(x any) Value {
	switch t := x.(type) {
	case Value:
		return t
	case string:
		return Value{Text: t, IsString: true}
	case int:
		return Value{Text: strconv.FormatInt(int64(t), 10)}
	case int8, int16, int32, int64:
		return Value{Text: fmt.Sprint(t)}
	case uint, uint8, uint16, uint32, uint64:
		return Value{Text: fmt.Sprint(t)}
	case float32:
		return Value{Text: formatFloat(float64(t), 32)}
	case float64:
		return Value{Text: formatFloat(t, 64)}
	case time.Time:
		if t.Location() == time.UTC && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
			// A bare date reads as a Date bound and as midnight for a naive Datetime.
			return Value{Text: t.Format("2006-01-02"), IsString: true}
		}
		return Value{Text: t.Format("2006-01-02 15:04:05.999999999Z07:00"), IsString: true}
	case time.Duration:
		return Value{Text: strconv.FormatInt(t.Nanoseconds(), 10) + "ns", IsString: true}
	}
	return Value{Text: fmt.Sprint(x), IsString: true}
}

func formatFloat(f float64, bits int) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

func newColumn(name string, d DType) *Column { return &Column{Name: name, DType: d} }

// Bool declares a BOOLEAN column.
func Bool(name string) *Column { return newColumn(name, DType{Kind: KindBool}) }

// Int8 declares a TINYINT column.
func Int8(name string) *Column { return newColumn(name, DType{Kind: KindInt8}) }

// Int16 declares a SMALLINT column.
func Int16(name string) *Column { return newColumn(name, DType{Kind: KindInt16}) }

// Int32 declares an INTEGER column.
func Int32(name string) *Column { return newColumn(name, DType{Kind: KindInt32}) }

// Int64 declares a BIGINT column.
func Int64(name string) *Column { return newColumn(name, DType{Kind: KindInt64}) }

// UInt8 declares a UTINYINT column.
func UInt8(name string) *Column { return newColumn(name, DType{Kind: KindUInt8}) }

// UInt16 declares a USMALLINT column.
func UInt16(name string) *Column { return newColumn(name, DType{Kind: KindUInt16}) }

// UInt32 declares a UINTEGER column.
func UInt32(name string) *Column { return newColumn(name, DType{Kind: KindUInt32}) }

// UInt64 declares a UBIGINT column.
func UInt64(name string) *Column { return newColumn(name, DType{Kind: KindUInt64}) }

// Integer declares a column of any integer width.
func Integer(name string) *Column { return newColumn(name, DType{Kind: KindInteger}) }

// Float32 declares a FLOAT column.
func Float32(name string) *Column { return newColumn(name, DType{Kind: KindFloat32}) }

// Float64 declares a DOUBLE column.
func Float64(name string) *Column { return newColumn(name, DType{Kind: KindFloat64}) }

// Float declares a FLOAT or DOUBLE column.
func Float(name string) *Column { return newColumn(name, DType{Kind: KindFloat}) }

// Decimal declares a DECIMAL(precision, scale) column; precision 0 accepts any precision.
func Decimal(name string, precision, scale int) *Column {
	return newColumn(name, DType{Kind: KindDecimal, Precision: precision, Scale: scale})
}

// String declares a VARCHAR column.
func String(name string) *Column { return newColumn(name, DType{Kind: KindString}) }

// Binary declares a BLOB column.
func Binary(name string) *Column { return newColumn(name, DType{Kind: KindBinary}) }

// Date declares a DATE column.
func Date(name string) *Column { return newColumn(name, DType{Kind: KindDate}) }

// Time declares a TIME column.
func Time(name string) *Column { return newColumn(name, DType{Kind: KindTime}) }

// Datetime declares a TIMESTAMP column (unit "us", "ms" or "ns"); a zone makes it
// TIMESTAMP WITH TIME ZONE (TIMESTAMPTZ_NS in ns).
func Datetime(name string, unit TimeUnit, zone string) *Column {
	if unit == "" {
		unit = Micros
	}
	return newColumn(name, DType{Kind: KindDatetime, TimeUnit: unit, TimeZone: zone})
}

// Duration declares an INTERVAL column.
func Duration(name string) *Column {
	return newColumn(name, DType{Kind: KindDuration, TimeUnit: Micros})
}

// Enum declares an ENUM column with exactly these categories in this order.
func Enum(name string, categories ...string) *Column {
	return newColumn(name, DType{Kind: KindEnum, Categories: categories})
}

// List declares a LIST column whose elements follow inner (inner's name is ignored).
func List(name string, inner *Column) *Column {
	return newColumn(name, DType{Kind: KindList, Inner: inner})
}

// Array declares a fixed-size ARRAY column; several sizes make a multi-dimensional array,
// outermost first.
func Array(name string, inner *Column, shape ...int) *Column {
	return newColumn(name, DType{Kind: KindArray, Inner: inner, Shape: shape})
}

// Struct declares a STRUCT column with these fields.
func Struct(name string, fields ...*Column) *Column {
	return newColumn(name, DType{Kind: KindStruct, Fields: fields})
}

// Any declares a column of any type; it has no nullability rule.
func Any(name string) *Column {
	c := newColumn(name, DType{Kind: KindAny})
	c.Args.Nullable = true
	return c
}

// Nullable allows NULL values (the default is not null).
func (c *Column) Nullable() *Column { c.Args.Nullable = true; return c }

// PrimaryKey makes the column part of the schema's primary key.
func (c *Column) PrimaryKey() *Column { c.Args.PrimaryKey = true; return c }

// Unique requires every value to be unique (NULLs equal each other).
func (c *Column) Unique() *Column { c.Args.Unique = true; return c }

// Check adds a custom SQL check in which `_` is the checked value. An empty name gives the rule
// `check` for a lone check and `check__<i>` in a list; a name gives `check__<name>`.
func (c *Column) Check(name, sql string) *Column {
	c.Args.Checks = append(c.Args.Checks, Check{Name: name, SQL: sql})
	return c
}

// SparkCheck adds a custom check with its Spark SQL form beside the DuckDB one (named as Check).
func (c *Column) SparkCheck(name, sql, spark string) *Column {
	c.Args.Checks = append(c.Args.Checks, Check{Name: name, SQL: sql, Spark: spark})
	return c
}

// Min sets the inclusive lower bound.
func (c *Column) Min(v any) *Column { x := ValueOf(v); c.Args.Min = &x; return c }

// MinExclusive sets the exclusive lower bound.
func (c *Column) MinExclusive(v any) *Column { x := ValueOf(v); c.Args.MinExclusive = &x; return c }

// Max sets the inclusive upper bound.
func (c *Column) Max(v any) *Column { x := ValueOf(v); c.Args.Max = &x; return c }

// MaxExclusive sets the exclusive upper bound.
func (c *Column) MaxExclusive(v any) *Column { x := ValueOf(v); c.Args.MaxExclusive = &x; return c }

// IsIn restricts values to a set; an empty set fails every non-NULL value.
func (c *Column) IsIn(values ...any) *Column {
	c.Args.HasIsIn = true
	c.Args.IsIn = make([]Value, len(values))
	for i, v := range values {
		c.Args.IsIn[i] = ValueOf(v)
	}
	return c
}

// Regex requires the value to contain a match of the RE2 pattern (a search: anchor with ^…$ for
// a full match).
func (c *Column) Regex(pattern string) *Column { c.Args.Regex = &pattern; return c }

// MinLength sets the minimum length: UTF-8 bytes for strings, elements for lists.
func (c *Column) MinLength(n int64) *Column { c.Args.MinLength = &n; return c }

// MaxLength sets the maximum length: UTF-8 bytes for strings, elements for lists.
func (c *Column) MaxLength(n int64) *Column { c.Args.MaxLength = &n; return c }

// AllowInf allows ±inf in a float column.
func (c *Column) AllowInf() *Column { c.Args.AllowInf = true; return c }

// AllowNaN allows NaN in a float column.
func (c *Column) AllowNaN() *Column { c.Args.AllowNaN = true; return c }

// Resolution requires temporal values to be aligned to a resolution such as "1h" or "1mo".
func (c *Column) Resolution(r string) *Column { c.Args.Resolution = r; return c }

// Describe sets the column's description.
func (c *Column) Describe(text string) *Column { c.Args.Description = text; return c }

// Severity sets one severity for every rule of the column.
func (c *Column) Severity(s Severity) *Column { c.Args.Severity.All = s; return c }

// SeverityOf sets the severity of one rule of the column, by rule name or argument alias
// ("regex", "nullable", "inner_min_length").
func (c *Column) SeverityOf(rule string, s Severity) *Column {
	c.Args.Severity.PerRule = append(c.Args.Severity.PerRule, SeverityEntry{Rule: rule, Severity: s})
	return c
}
