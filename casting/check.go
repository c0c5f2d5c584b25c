package casting

import (
	"context"
	gosql "database/sql"
	"fmt"
	"strings"

	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// Missing is how a mismatch spells an absent column's type.
const Missing = "<missing>"

// Mismatch is one column whose type is not the declared dtype.
type Mismatch struct {
	Column   string `json:"column"`
	Expected string `json:"expected"` // schema language: Float64, Decimal(10,2), List(String)
	Actual   string `json:"actual"`   // DuckDB's spelling, or <missing>
	// Cast says what an explicit cast would do: exact, lossless or lossy ("" when missing).
	Cast string `json:"-"`
	// File, for a multi-file input, names the file whose column disagrees with the type the
	// scan reads (Expected, DuckDB's spelling) from the file Reference; a cast cannot mend it.
	File      string `json:"file,omitempty"`
	Reference string `json:"reference,omitempty"`
}

func (m Mismatch) String() string {
	if m.File != "" {
		actual := m.Actual
		if actual == Missing {
			actual = "missing"
		}
		return fmt.Sprintf("'%s' in %s (%s, where %s has %s)", m.Column, m.File, actual, m.Reference, m.Expected)
	}
	return fmt.Sprintf("'%s' (expected %s, got %s)", m.Column, m.Expected, m.Actual)
}

// ColumnType is one column of a relation as DESCRIBE reports it.
type ColumnType struct {
	Name string
	Type string
}

// Describe reads a relation's columns and types without running it: DuckDB binds the query and
// reports its schema (for Parquet only the footer is read).
func Describe(ctx context.Context, q Querier, from string) ([]ColumnType, error) {
	rows, err := q.QueryContext(ctx, "DESCRIBE SELECT * FROM "+from)
	if err != nil {
		return nil, fmt.Errorf("describe input: %w", err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []ColumnType
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("describe input: %w", err)
		}
		out = append(out, ColumnType{Name: fmt.Sprint(vals[0]), Type: fmt.Sprint(vals[1])})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("describe input: %w", err)
	}
	return out, nil
}

// Querier is what Describe needs: a *sql.DB, *sql.Conn or *sql.Tx.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*gosql.Rows, error)
}

// CheckColumns compares the relation's columns with the schema's, in schema order, and returns
// every mismatch. Extra columns and column order never matter.
func CheckColumns(cols []*schema.Column, actual []ColumnType) []Mismatch {
	return CheckColumnsWith(cols, actual, ParseType)
}

// CheckColumnsWith is CheckColumns for types another engine spells, read by parse (ParseType
// for DuckDB's spelling, ParseSparkType for Spark's).
func CheckColumnsWith(cols []*schema.Column, actual []ColumnType, parse func(string) (*DuckType, error)) []Mismatch {
	byName := make(map[string]string, len(actual))
	for _, c := range actual {
		byName[c.Name] = c.Type
	}
	var out []Mismatch
	for _, col := range cols {
		typ, ok := byName[col.Name]
		if !ok {
			out = append(out, Mismatch{Column: col.Name, Expected: col.DType.String(), Actual: Missing})
			continue
		}
		if col.DType.Kind == schema.KindAny {
			continue // any type, even one the parser does not know
		}
		t, err := parse(typ)
		if err != nil || !Matches(col.DType, t) {
			m := Mismatch{Column: col.Name, Expected: col.DType.String(), Actual: typ}
			if t != nil {
				m.Cast = castKind(t, col.DType)
			}
			out = append(out, m)
		}
	}
	return out
}

var intNames = map[string]schema.Kind{
	"TINYINT": schema.KindInt8, "SMALLINT": schema.KindInt16, "INTEGER": schema.KindInt32, "BIGINT": schema.KindInt64,
	"UTINYINT": schema.KindUInt8, "USMALLINT": schema.KindUInt16, "UINTEGER": schema.KindUInt32, "UBIGINT": schema.KindUInt64,
}

// Matches reports whether a DuckDB type satisfies a dtype, with the exact rules of docs/schema.md:
// families (Integer, Float, Any) accept their members, Decimal needs the scale (and the precision
// when declared), Datetime the unit (zoned: TIMESTAMP WITH TIME ZONE, or TIMESTAMPTZ_NS in ns),
// Enum the same ordered categories, List a matching element, Array the exact element type and
// size, Struct the same field set in any order.
func Matches(d schema.DType, t *DuckType) bool {
	switch d.Kind {
	case schema.KindAny:
		return true
	case schema.KindInteger:
		_, ok := intNames[t.Name]
		return ok || t.Name == "HUGEINT" // NDJSON's type detection reads large whole numbers as HUGEINT
	case schema.KindFloat:
		return t.Name == "FLOAT" || t.Name == "DOUBLE"
	case schema.KindDecimal:
		return t.Name == "DECIMAL" && len(t.Params) == 2 && t.Params[1] == d.Scale &&
			(d.Precision == 0 || t.Params[0] == d.Precision)
	case schema.KindString:
		return t.Name == "VARCHAR" || t.Name == "JSON"
	case schema.KindEnum:
		if t.Name != "ENUM" || len(t.Enum) != len(d.Categories) {
			return false
		}
		for i, c := range d.Categories {
			if t.Enum[i] != c {
				return false
			}
		}
		return true
	case schema.KindList:
		return t.Name == "LIST" && Matches(d.Inner.DType, t.Elem)
	case schema.KindArray:
		cur := t
		for _, n := range d.Shape {
			if cur.Name != "ARRAY" || cur.Size != n {
				return false
			}
			cur = cur.Elem
		}
		return exact(d.Inner.DType, cur)
	case schema.KindStruct:
		if t.Name != "STRUCT" || len(t.Fields) != len(d.Fields) {
			return false
		}
		for _, f := range d.Fields {
			found := false
			for _, tf := range t.Fields {
				if tf.Name == f.Name {
					found = Matches(f.DType, tf.Type)
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case schema.KindDatetime:
		// DuckDB has no zoned millisecond timestamp: a zoned Datetime(ms) is TIMESTAMP WITH TIME ZONE.
		if d.TimeZone != "" && d.TimeUnit != schema.Nanos {
			return t.Name == "TIMESTAMP WITH TIME ZONE"
		}
	}
	return t.Raw == d.DuckDBType() || t.Name == d.DuckDBType()
}

// exact is Matches without family leniency: Array elements must be the dtype's own type.
func exact(d schema.DType, t *DuckType) bool {
	switch d.Kind {
	case schema.KindInteger, schema.KindFloat:
		return t.Name == d.DuckDBType()
	}
	return Matches(d, t)
}

// castKind says how a cast from t to d behaves: "exact" (same values, another spelling),
// "lossless" (widening) or "lossy" (values may change or fail).
func castKind(t *DuckType, d schema.DType) string {
	target, err := ParseType(d.DuckDBType())
	if err != nil {
		return "lossy"
	}
	if from, ok := intNames[t.Name]; ok {
		if to, ok := intNames[target.Name]; ok {
			return intCast(from, to)
		}
		if target.Name == "DOUBLE" && intBits(from) <= 32 || target.Name == "FLOAT" && intBits(from) <= 16 {
			return "lossless"
		}
		if target.Name == "DECIMAL" && len(target.Params) == 2 && target.Params[0]-target.Params[1] >= intDigits(from) {
			return "lossless"
		}
		if target.Name == "VARCHAR" {
			return "lossless"
		}
		return "lossy"
	}
	switch {
	case t.Name == "FLOAT" && target.Name == "DOUBLE":
		return "lossless"
	case t.Name == "DECIMAL" && target.Name == "DECIMAL" && len(t.Params) == 2 && len(target.Params) == 2:
		if target.Params[1] >= t.Params[1] && target.Params[0]-target.Params[1] >= t.Params[0]-t.Params[1] {
			return "lossless"
		}
	case t.Name == "ENUM" && target.Name == "ENUM" && sameSet(t.Enum, target.Enum):
		return "exact"
	case t.Name == "JSON" && target.Name == "VARCHAR":
		return "exact"
	case target.Name == "VARCHAR" && t.Name != "BLOB":
		return "lossless"
	case t.Name == "DATE" && strings.HasPrefix(target.Name, "TIMESTAMP"):
		return "lossless"
	case t.Name == "TIMESTAMP_S" && (target.Name == "TIMESTAMP_MS" || target.Name == "TIMESTAMP" || target.Name == "TIMESTAMP_NS"),
		t.Name == "TIMESTAMP_MS" && (target.Name == "TIMESTAMP" || target.Name == "TIMESTAMP_NS"),
		t.Name == "TIMESTAMP WITH TIME ZONE" && target.Name == "TIMESTAMPTZ_NS":
		return "lossless"
	case t.Name == "STRUCT" && target.Name == "STRUCT" && len(t.Fields) == len(target.Fields):
		return "exact"
	}
	return "lossy"
}

func intBits(k schema.Kind) int {
	switch k {
	case schema.KindInt8, schema.KindUInt8:
		return 8
	case schema.KindInt16, schema.KindUInt16:
		return 16
	case schema.KindInt32, schema.KindUInt32:
		return 32
	}
	return 64
}

func intDigits(k schema.Kind) int {
	return map[int]int{8: 3, 16: 5, 32: 10, 64: 20}[intBits(k)]
}

func intCast(from, to schema.Kind) string {
	fb, tb := intBits(from), intBits(to)
	switch {
	case from.IsUnsigned() == to.IsUnsigned() && tb >= fb:
		return "lossless"
	case from.IsUnsigned() && !to.IsUnsigned() && tb > fb:
		return "lossless"
	}
	return "lossy"
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]bool{}
	for _, x := range a {
		seen[x] = true
	}
	for _, x := range b {
		if !seen[x] {
			return false
		}
	}
	return true
}

// CastExpr is the explicit cast of a column to its declared dtype's DuckDB type.
func CastExpr(col *schema.Column) string {
	return fmt.Sprintf("CAST(%s AS %s)", sql.Ident(col.Name), col.DType.DuckDBType())
}

// FailedCastProbe is a query that finds, for each column to cast, one value that does not cast
// (NULL when all do), so that a strict cast can fail with the column and the value.
func FailedCastProbe(cols []*schema.Column, from string) string {
	parts := make([]string, len(cols))
	for i, col := range cols {
		id := sql.Ident(col.Name)
		parts[i] = fmt.Sprintf("(SELECT CAST(%s AS VARCHAR) FROM %s WHERE %s IS NOT NULL AND TRY_CAST(%s AS %s) IS NULL LIMIT 1)",
			id, from, id, id, col.DType.DuckDBType())
	}
	return "SELECT " + strings.Join(parts, ", ")
}
