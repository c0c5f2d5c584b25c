package odcs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tablegate/tablegate/schema"
)

// physical is what a physicalType says about a column: its dtype, and the character length a
// VARCHAR(n) bounds it to (0 for none).
type physical struct {
	dtype    schema.DType
	maxChars int64
	// zoned is a TIMESTAMP WITH TIME ZONE, whose zone the logicalTypeOptions may name.
	zoned bool
}

// scalarTypes maps type names (upper case, single spaces) to dtypes: DuckDB's names and aliases,
// then the names other engines write in contracts for the same types (docs/contracts.md).
var scalarTypes = map[string]schema.Kind{
	// DuckDB
	"BOOLEAN": schema.KindBool, "BOOL": schema.KindBool, "LOGICAL": schema.KindBool,
	"TINYINT": schema.KindInt8, "INT1": schema.KindInt8,
	"SMALLINT": schema.KindInt16, "INT2": schema.KindInt16, "SHORT": schema.KindInt16,
	"INTEGER": schema.KindInt32, "INT": schema.KindInt32, "INT4": schema.KindInt32, "SIGNED": schema.KindInt32,
	"BIGINT": schema.KindInt64, "INT8": schema.KindInt64, "LONG": schema.KindInt64,
	"UTINYINT": schema.KindUInt8, "USMALLINT": schema.KindUInt16, "UINTEGER": schema.KindUInt32, "UBIGINT": schema.KindUInt64,
	"FLOAT": schema.KindFloat32, "FLOAT4": schema.KindFloat32, "REAL": schema.KindFloat32,
	"DOUBLE": schema.KindFloat64, "FLOAT8": schema.KindFloat64,
	"VARCHAR": schema.KindString, "CHAR": schema.KindString, "BPCHAR": schema.KindString, "TEXT": schema.KindString,
	"STRING": schema.KindString, "JSON": schema.KindString,
	"BLOB": schema.KindBinary, "BYTEA": schema.KindBinary, "BINARY": schema.KindBinary, "VARBINARY": schema.KindBinary,
	"DATE": schema.KindDate, "TIME": schema.KindTime, "INTERVAL": schema.KindDuration,
	// Other engines' spellings of the same types
	"DOUBLE PRECISION": schema.KindFloat64, "FLOAT64": schema.KindFloat64, "INT64": schema.KindInt64,
	"BYTE": schema.KindInt8, "CHARACTER VARYING": schema.KindString, "CHARACTER": schema.KindString,
	"BYTES": schema.KindBinary, "TIME WITHOUT TIME ZONE": schema.KindTime,
	"SERIAL": schema.KindInt32, "SERIAL4": schema.KindInt32, "BIGSERIAL": schema.KindInt64, "SERIAL8": schema.KindInt64,
	"SMALLSERIAL": schema.KindInt16, "SERIAL2": schema.KindInt16,
}

// timestampTypes maps timestamp spellings to their unit and whether they carry a zone.
var timestampTypes = map[string]struct {
	unit  schema.TimeUnit
	zoned bool
}{
	"TIMESTAMP": {schema.Micros, false}, "DATETIME": {schema.Micros, false}, "TIMESTAMP_US": {schema.Micros, false},
	"TIMESTAMP_MS": {schema.Millis, false}, "TIMESTAMP_NS": {schema.Nanos, false},
	"TIMESTAMP WITHOUT TIME ZONE": {schema.Micros, false}, "TIMESTAMP_NTZ": {schema.Micros, false},
	"TIMESTAMPTZ": {schema.Micros, true}, "TIMESTAMP WITH TIME ZONE": {schema.Micros, true},
	"TIMESTAMP_TZ": {schema.Micros, true}, "TIMESTAMP_LTZ": {schema.Micros, true}, "TIMESTAMPTZ_NS": {schema.Nanos, true},
}

var (
	spaces        = regexp.MustCompile(`\s+`)
	parameterised = regexp.MustCompile(`^([A-Z_ ]+?)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)$`)
	arrayOf       = regexp.MustCompile(`^(.+?)\s*\[\s*(\d*)\s*\]$`)
	genericArray  = regexp.MustCompile(`^ARRAY\s*<\s*(.+)\s*>$`)
)

// physicalTypeOf reads a physicalType. The error says why the type has no exact dtype.
func physicalTypeOf(text string) (physical, error) {
	t := strings.ToUpper(strings.TrimSpace(spaces.ReplaceAllString(text, " ")))
	if t == "" {
		return physical{}, fmt.Errorf("physicalType is empty")
	}
	if k, ok := scalarTypes[t]; ok {
		return physical{dtype: schema.DType{Kind: k}}, nil
	}
	if d, ok, err := enumOf(text); ok {
		return physical{dtype: d}, err
	}
	if ts, ok := timestampTypes[t]; ok {
		return physical{dtype: schema.DType{Kind: schema.KindDatetime, TimeUnit: ts.unit}, zoned: ts.zoned}, nil
	}
	if m := genericArray.FindStringSubmatch(t); m != nil {
		inner, err := physicalTypeOf(m[1])
		if err != nil {
			return physical{}, err
		}
		return list(inner, "")
	}
	if m := arrayOf.FindStringSubmatch(t); m != nil {
		inner, err := physicalTypeOf(m[1])
		if err != nil {
			return physical{}, err
		}
		return list(inner, m[2])
	}
	if m := parameterised.FindStringSubmatch(t); m != nil {
		base := strings.TrimSpace(m[1])
		n, err := strconv.ParseInt(m[2], 10, 32)
		if err != nil {
			return physical{}, fmt.Errorf("physicalType %q: %s is too large", text, m[2])
		}
		switch base {
		case "DECIMAL", "NUMERIC", "NUMBER":
			scale := int64(0)
			if m[3] != "" {
				scale, _ = strconv.ParseInt(m[3], 10, 32)
			}
			if n < 1 || n > 38 || scale > n {
				return physical{}, fmt.Errorf("physicalType %q: DuckDB's DECIMAL takes a precision of 1 to 38 and a scale up to the precision", text)
			}
			return physical{dtype: schema.DType{Kind: schema.KindDecimal, Precision: int(n), Scale: int(scale)}}, nil
		case "VARCHAR", "CHAR", "CHARACTER", "CHARACTER VARYING", "BPCHAR", "STRING", "NVARCHAR", "NCHAR":
			if m[3] != "" {
				break
			}
			if base == "CHAR" || base == "CHARACTER" || base == "BPCHAR" || base == "NCHAR" {
				return physical{}, fmt.Errorf("physicalType %q is a fixed-length string padded with blanks, which DuckDB does not have; declare VARCHAR(%d) or VARCHAR", text, n)
			}
			return physical{dtype: schema.DType{Kind: schema.KindString}, maxChars: n}, nil
		case "TIMESTAMP", "DATETIME", "TIMESTAMP_NTZ":
			if m[3] != "" {
				break
			}
			return timestampPrecision(text, n, false)
		case "TIMESTAMP_TZ", "TIMESTAMP_LTZ", "TIMESTAMPTZ":
			if m[3] != "" {
				break
			}
			return timestampPrecision(text, n, true)
		}
	}
	switch t {
	case "DECIMAL", "NUMERIC", "NUMBER", "BIGNUMERIC":
		return physical{}, fmt.Errorf("physicalType %q has no precision and scale, and engines disagree on them (DuckDB reads DECIMAL(18,3), PostgreSQL any precision, BigQuery (38,9)); write DECIMAL(p,s)", text)
	case "HUGEINT", "UHUGEINT", "INT128", "UINT128", "UUID", "BIT", "BITSTRING", "VARINT", "BIGNUM", "TIMESTAMP_S", "TIME WITH TIME ZONE", "TIMETZ":
		return physical{}, fmt.Errorf("physicalType %q has no tablegate dtype", text)
	}
	return physical{}, fmt.Errorf("physicalType %q is not a type tablegate knows (DuckDB's type names and the other engines' spellings in docs/contracts.md)", text)
}

func list(inner physical, size string) (physical, error) {
	if inner.maxChars > 0 {
		return physical{}, fmt.Errorf("a length bound inside a list element is not supported; declare the element VARCHAR")
	}
	elem := &schema.Column{DType: inner.dtype}
	if size == "" {
		return physical{dtype: schema.DType{Kind: schema.KindList, Inner: elem}}, nil
	}
	n, err := strconv.Atoi(size)
	if err != nil || n < 1 {
		return physical{}, fmt.Errorf("array size %q is not a positive number", size)
	}
	return physical{dtype: schema.DType{Kind: schema.KindArray, Inner: elem, Shape: []int{n}}}, nil
}

// timestampPrecision reads TIMESTAMP(p): the fraction digits p fix DuckDB's unit when they are
// 0–3 (ms: values are truncated to ms), 6 (us) or 9 (ns); other digits have no exact unit.
func timestampPrecision(text string, digits int64, zoned bool) (physical, error) {
	var unit schema.TimeUnit
	switch {
	case digits == 3:
		unit = schema.Millis
	case digits == 6:
		unit = schema.Micros
	case digits == 9:
		unit = schema.Nanos
	default:
		return physical{}, fmt.Errorf("physicalType %q: %d fraction digits is no DuckDB timestamp unit (3 ms, 6 us, 9 ns)", text, digits)
	}
	if zoned && unit == schema.Millis {
		return physical{}, fmt.Errorf("physicalType %q: DuckDB's zoned timestamps have microseconds (TIMESTAMPTZ) or nanoseconds (TIMESTAMPTZ_NS) only", text)
	}
	return physical{dtype: schema.DType{Kind: schema.KindDatetime, TimeUnit: unit}, zoned: zoned}, nil
}
