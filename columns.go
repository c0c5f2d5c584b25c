package tablegate

import "github.com/tablegate/tablegate/schema"

// The column constructors of the schema builder, as in package schema: each declares a column of
// one dtype, and its methods declare the rules. A List's or Array's inner column has no name
// ("").

// Bool declares a BOOLEAN column.
func Bool(name string) *Column { return schema.Bool(name) }

// Int8 declares a TINYINT column.
func Int8(name string) *Column { return schema.Int8(name) }

// Int16 declares a SMALLINT column.
func Int16(name string) *Column { return schema.Int16(name) }

// Int32 declares an INTEGER column.
func Int32(name string) *Column { return schema.Int32(name) }

// Int64 declares a BIGINT column.
func Int64(name string) *Column { return schema.Int64(name) }

// UInt8 declares a UTINYINT column.
func UInt8(name string) *Column { return schema.UInt8(name) }

// UInt16 declares a USMALLINT column.
func UInt16(name string) *Column { return schema.UInt16(name) }

// UInt32 declares a UINTEGER column.
func UInt32(name string) *Column { return schema.UInt32(name) }

// UInt64 declares a UBIGINT column.
func UInt64(name string) *Column { return schema.UInt64(name) }

// Integer declares a column of any integer width.
func Integer(name string) *Column { return schema.Integer(name) }

// Float32 declares a FLOAT column.
func Float32(name string) *Column { return schema.Float32(name) }

// Float64 declares a DOUBLE column.
func Float64(name string) *Column { return schema.Float64(name) }

// Float declares a FLOAT or DOUBLE column.
func Float(name string) *Column { return schema.Float(name) }

// Decimal declares a DECIMAL(precision, scale) column; precision 0 accepts any precision.
func Decimal(name string, precision, scale int) *Column {
	return schema.Decimal(name, precision, scale)
}

// String declares a VARCHAR column.
func String(name string) *Column { return schema.String(name) }

// Binary declares a BLOB column.
func Binary(name string) *Column { return schema.Binary(name) }

// Date declares a DATE column.
func Date(name string) *Column { return schema.Date(name) }

// Time declares a TIME column.
func Time(name string) *Column { return schema.Time(name) }

// Datetime declares a TIMESTAMP column (unit "us", "ms" or "ns"); a zone makes it
// TIMESTAMP WITH TIME ZONE (TIMESTAMPTZ_NS in ns).
func Datetime(name string, unit TimeUnit, zone string) *Column {
	return schema.Datetime(name, unit, zone)
}

// Duration declares an INTERVAL column.
func Duration(name string) *Column { return schema.Duration(name) }

// Enum declares an ENUM column with exactly these categories in this order.
func Enum(name string, categories ...string) *Column { return schema.Enum(name, categories...) }

// List declares a LIST column whose elements follow inner (inner's name is ignored).
func List(name string, inner *Column) *Column { return schema.List(name, inner) }

// Array declares a fixed-size ARRAY column; several sizes make a multi-dimensional array,
// outermost first.
func Array(name string, inner *Column, shape ...int) *Column {
	return schema.Array(name, inner, shape...)
}

// Struct declares a STRUCT column with these fields.
func Struct(name string, fields ...*Column) *Column { return schema.Struct(name, fields...) }

// Any declares a column of any type; it has no nullability rule.
func Any(name string) *Column { return schema.Any(name) }
