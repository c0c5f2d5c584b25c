package casting

import (
	"strings"

	"github.com/tablegate/tablegate/schema"
)

var scalarKinds = map[string]schema.Kind{
	"BOOLEAN": schema.KindBool, "TINYINT": schema.KindInt8, "SMALLINT": schema.KindInt16, "INTEGER": schema.KindInt32,
	"BIGINT": schema.KindInt64, "UTINYINT": schema.KindUInt8, "USMALLINT": schema.KindUInt16, "UINTEGER": schema.KindUInt32,
	"UBIGINT": schema.KindUInt64, "HUGEINT": schema.KindInteger, "FLOAT": schema.KindFloat32, "DOUBLE": schema.KindFloat64,
	"VARCHAR": schema.KindString, "JSON": schema.KindString, "BLOB": schema.KindBinary, "DATE": schema.KindDate,
	"TIME": schema.KindTime, "INTERVAL": schema.KindDuration,
}

// DTypeOf returns the narrowest dtype a DuckDB type matches (Matches(d, t) holds), and false
// when the schema language has none (MAP, UNION, TIMESTAMP_S, UHUGEINT, …). List and Array
// elements and Struct fields are declared nullable: a type says nothing about NULLs.
func DTypeOf(t *DuckType) (schema.DType, bool) {
	if k, ok := scalarKinds[t.Name]; ok {
		return schema.DType{Kind: k}, true
	}
	switch t.Name {
	case "DECIMAL":
		if len(t.Params) == 2 {
			return schema.DType{Kind: schema.KindDecimal, Precision: t.Params[0], Scale: t.Params[1]}, true
		}
	case "TIMESTAMP":
		return schema.DType{Kind: schema.KindDatetime, TimeUnit: schema.Micros}, true
	case "TIMESTAMP_MS":
		return schema.DType{Kind: schema.KindDatetime, TimeUnit: schema.Millis}, true
	case "TIMESTAMP_NS":
		return schema.DType{Kind: schema.KindDatetime, TimeUnit: schema.Nanos}, true
	case "TIMESTAMP WITH TIME ZONE":
		return schema.DType{Kind: schema.KindDatetime, TimeUnit: schema.Micros, TimeZone: "UTC"}, true
	case "TIMESTAMPTZ_NS":
		return schema.DType{Kind: schema.KindDatetime, TimeUnit: schema.Nanos, TimeZone: "UTC"}, true
	case "ENUM":
		return schema.DType{Kind: schema.KindEnum, Categories: t.Enum}, true
	case "LIST":
		if inner, ok := DTypeOf(t.Elem); ok {
			return schema.DType{Kind: schema.KindList, Inner: &schema.Column{DType: inner, Args: schema.Args{Nullable: true}}}, true
		}
	case "ARRAY":
		var shape []int
		cur := t
		for cur.Name == "ARRAY" {
			shape = append(shape, cur.Size)
			cur = cur.Elem
		}
		if inner, ok := DTypeOf(cur); ok && !inner.Kind.IsNested() {
			return schema.DType{Kind: schema.KindArray, Shape: shape, Inner: &schema.Column{DType: inner, Args: schema.Args{Nullable: true}}}, true
		}
	case "STRUCT":
		fields := make([]*schema.Column, len(t.Fields))
		for i, f := range t.Fields {
			d, ok := DTypeOf(f.Type)
			if !ok {
				return schema.DType{}, false
			}
			fields[i] = &schema.Column{Name: f.Name, DType: d, Args: schema.Args{Nullable: true}}
		}
		return schema.DType{Kind: schema.KindStruct, Fields: fields}, true
	}
	return schema.DType{}, false
}

// Suggest names the dtypes a column of DuckDB type actual could declare to match, for a
// mismatch message: "Int32 or Integer", "Decimal(18,3)", or "" when none.
func Suggest(actual string) string {
	t, err := ParseType(actual)
	if err != nil {
		return ""
	}
	d, ok := DTypeOf(t)
	if !ok {
		return ""
	}
	names := []string{d.String()}
	switch {
	case d.Kind.IsInteger() && d.Kind != schema.KindInteger:
		names = append(names, "Integer")
	case d.Kind == schema.KindFloat32 || d.Kind == schema.KindFloat64:
		names = append(names, "Float")
	}
	return strings.Join(names, " or ")
}
