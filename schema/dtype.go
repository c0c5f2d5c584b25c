package schema

import (
	"fmt"
	"strings"
)

// Kind is a dtype family of the schema language.
type Kind int

// The dtypes (docs/schema.md). Integer, Float and Any are families that accept several DuckDB types.
const (
	KindInvalid Kind = iota
	KindBool
	KindInt8
	KindInt16
	KindInt32
	KindInt64
	KindUInt8
	KindUInt16
	KindUInt32
	KindUInt64
	KindInteger
	KindFloat32
	KindFloat64
	KindFloat
	KindDecimal
	KindString
	KindBinary
	KindDate
	KindTime
	KindDatetime
	KindDuration
	KindEnum
	KindList
	KindArray
	KindStruct
	KindAny
)

var kindNames = map[Kind]string{
	KindBool: "Bool", KindInt8: "Int8", KindInt16: "Int16", KindInt32: "Int32", KindInt64: "Int64",
	KindUInt8: "UInt8", KindUInt16: "UInt16", KindUInt32: "UInt32", KindUInt64: "UInt64",
	KindInteger: "Integer", KindFloat32: "Float32", KindFloat64: "Float64", KindFloat: "Float",
	KindDecimal: "Decimal", KindString: "String", KindBinary: "Binary", KindDate: "Date",
	KindTime: "Time", KindDatetime: "Datetime", KindDuration: "Duration", KindEnum: "Enum",
	KindList: "List", KindArray: "Array", KindStruct: "Struct", KindAny: "Any",
}

// KindNames lists the dtype names of the schema language in declaration order, for messages.
func KindNames() []string {
	out := make([]string, 0, len(kindNames))
	for k := KindBool; k <= KindAny; k++ {
		out = append(out, kindNames[k])
	}
	return out
}

// ParseKind reads a dtype name as written in a schema file.
func ParseKind(name string) (Kind, bool) {
	for k, n := range kindNames {
		if n == name {
			return k, true
		}
	}
	return KindInvalid, false
}

func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// IsInteger reports whether k is one of the integer dtypes or the Integer family.
func (k Kind) IsInteger() bool { return k >= KindInt8 && k <= KindInteger }

// IsUnsigned reports whether k is an unsigned integer dtype.
func (k Kind) IsUnsigned() bool { return k >= KindUInt8 && k <= KindUInt64 }

// IsFloat reports whether k is a floating-point dtype or the Float family.
func (k Kind) IsFloat() bool { return k == KindFloat32 || k == KindFloat64 || k == KindFloat }

// IsTemporal reports whether k is Date, Time, Datetime or Duration.
func (k Kind) IsTemporal() bool {
	return k == KindDate || k == KindTime || k == KindDatetime || k == KindDuration
}

// IsOrdinal reports whether k takes min/max bounds.
func (k Kind) IsOrdinal() bool {
	return k.IsInteger() || k.IsFloat() || k == KindDecimal || k.IsTemporal()
}

// IsNested reports whether k holds other columns.
func (k Kind) IsNested() bool { return k == KindList || k == KindArray || k == KindStruct }

// TimeUnit is the precision of a Datetime or Duration.
type TimeUnit string

// Time units accepted by Datetime and Duration.
const (
	Micros TimeUnit = "us"
	Millis TimeUnit = "ms"
	Nanos  TimeUnit = "ns"
)

// DType is a column's declared type with its parameters. Only the fields of its Kind are used.
type DType struct {
	Kind       Kind
	Precision  int // Decimal; 0 means any precision
	Scale      int // Decimal
	TimeUnit   TimeUnit
	TimeZone   string    // Datetime; "" means naive
	Categories []string  // Enum, in order
	Inner      *Column   // List and Array element column (no name)
	Shape      []int     // Array, outermost dimension first
	Fields     []*Column // Struct
}

// String spells the dtype as the schema language does: Float64, Decimal(10,2), Datetime(us),
// Datetime(us, Europe/Berlin), List(String), Array(Int64, 3), Struct(a: Int64, b: String).
func (d DType) String() string {
	switch d.Kind {
	case KindDecimal:
		if d.Precision == 0 {
			return fmt.Sprintf("Decimal(scale=%d)", d.Scale)
		}
		return fmt.Sprintf("Decimal(%d,%d)", d.Precision, d.Scale)
	case KindDatetime:
		unit := d.TimeUnit
		if unit == "" {
			unit = Micros
		}
		if d.TimeZone != "" {
			return fmt.Sprintf("Datetime(%s, %s)", unit, d.TimeZone)
		}
		return fmt.Sprintf("Datetime(%s)", unit)
	case KindDuration:
		if d.TimeUnit != "" && d.TimeUnit != Micros {
			return fmt.Sprintf("Duration(%s)", d.TimeUnit)
		}
		return "Duration"
	case KindEnum:
		return "Enum(" + strings.Join(quoteAll(d.Categories), ", ") + ")"
	case KindList:
		return "List(" + innerString(d.Inner) + ")"
	case KindArray:
		shape := make([]string, len(d.Shape))
		for i, n := range d.Shape {
			shape[i] = fmt.Sprint(n)
		}
		return "Array(" + innerString(d.Inner) + ", " + strings.Join(shape, "x") + ")"
	case KindStruct:
		parts := make([]string, len(d.Fields))
		for i, f := range d.Fields {
			parts[i] = f.Name + ": " + f.DType.String()
		}
		return "Struct(" + strings.Join(parts, ", ") + ")"
	}
	return d.Kind.String()
}

func innerString(c *Column) string {
	if c == nil {
		return "?"
	}
	return c.DType.String()
}

func quoteAll(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	return out
}

// DuckDBType is the DuckDB type a value of this dtype has when tablegate creates one (casting,
// probing custom SQL). Families map to their widest member.
func (d DType) DuckDBType() string {
	switch d.Kind {
	case KindBool:
		return "BOOLEAN"
	case KindInt8:
		return "TINYINT"
	case KindInt16:
		return "SMALLINT"
	case KindInt32:
		return "INTEGER"
	case KindInt64, KindInteger:
		return "BIGINT"
	case KindUInt8:
		return "UTINYINT"
	case KindUInt16:
		return "USMALLINT"
	case KindUInt32:
		return "UINTEGER"
	case KindUInt64:
		return "UBIGINT"
	case KindFloat32:
		return "FLOAT"
	case KindFloat64, KindFloat:
		return "DOUBLE"
	case KindDecimal:
		p := d.Precision
		if p == 0 {
			p = 38
		}
		return fmt.Sprintf("DECIMAL(%d,%d)", p, d.Scale)
	case KindString:
		return "VARCHAR"
	case KindBinary:
		return "BLOB"
	case KindDate:
		return "DATE"
	case KindTime:
		return "TIME"
	case KindDatetime:
		if d.TimeZone != "" {
			// DuckDB has zoned timestamps in microseconds and nanoseconds only.
			if d.TimeUnit == Nanos {
				return "TIMESTAMPTZ_NS"
			}
			return "TIMESTAMP WITH TIME ZONE"
		}
		switch d.TimeUnit {
		case Millis:
			return "TIMESTAMP_MS"
		case Nanos:
			return "TIMESTAMP_NS"
		}
		return "TIMESTAMP"
	case KindDuration:
		return "INTERVAL"
	case KindEnum:
		return "ENUM" + sqlStringList(d.Categories)
	case KindList:
		return d.Inner.DType.DuckDBType() + "[]"
	case KindArray:
		t := d.Inner.DType.DuckDBType()
		// Shape is outermost first; DuckDB writes the innermost size first: INTEGER[2][3] is 3 of 2.
		for i := len(d.Shape) - 1; i >= 0; i-- {
			t += fmt.Sprintf("[%d]", d.Shape[i])
		}
		return t
	case KindStruct:
		parts := make([]string, len(d.Fields))
		for i, f := range d.Fields {
			parts[i] = `"` + strings.ReplaceAll(f.Name, `"`, `""`) + `" ` + f.DType.DuckDBType()
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	}
	return "VARCHAR"
}

func sqlStringList(values []string) string {
	return "(" + strings.Join(quoteAll(values), ", ") + ")"
}
