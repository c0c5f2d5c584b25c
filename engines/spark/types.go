package spark

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/schema"
)

// sparkType is a parsed Spark type as DESCRIBE spells it: int, decimal(10,2), array<string>,
// struct<a:int,`b c`:string>, map<string,int>.
type sparkType struct {
	Name   string // lower case: int, decimal, array, struct, map, timestamp_ntz…
	Params []int
	Elem   *sparkType // array element
	Fields []sparkField
}

type sparkField struct {
	Name string
	Type *sparkType
}

func parseSparkType(s string) (*sparkType, error) {
	p := &typeParser{s: s}
	t, err := p.typ()
	if err != nil {
		return nil, err
	}
	if p.i != len(p.s) {
		return nil, fmt.Errorf("type %q: unexpected %q", s, p.s[p.i:])
	}
	return t, nil
}

type typeParser struct {
	s string
	i int
}

func (p *typeParser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *typeParser) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *typeParser) name(stop string) (string, error) {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '`' {
		var b strings.Builder
		for p.i++; p.i < len(p.s); p.i++ {
			if p.s[p.i] == '`' {
				if p.i+1 < len(p.s) && p.s[p.i+1] == '`' {
					b.WriteByte('`')
					p.i++
					continue
				}
				p.i++
				return b.String(), nil
			}
			b.WriteByte(p.s[p.i])
		}
		return "", fmt.Errorf("type %q: unclosed `", p.s)
	}
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(stop, rune(p.s[p.i])) {
		p.i++
	}
	if p.i == start {
		return "", fmt.Errorf("type %q: expected a name at %d", p.s, start)
	}
	return strings.TrimSpace(p.s[start:p.i]), nil
}

func (p *typeParser) typ() (*sparkType, error) {
	n, err := p.name("<(,>: ")
	if err != nil {
		return nil, err
	}
	t := &sparkType{Name: strings.ToLower(n)}
	switch {
	case p.eat('('):
		for {
			p.space()
			j := p.i
			for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
				p.i++
			}
			v, err := strconv.Atoi(p.s[j:p.i])
			if err != nil {
				return nil, fmt.Errorf("type %q: expected a number at %d", p.s, j)
			}
			t.Params = append(t.Params, v)
			if p.eat(')') {
				break
			}
			if !p.eat(',') {
				return nil, fmt.Errorf("type %q: expected , or ) at %d", p.s, p.i)
			}
		}
	case p.eat('<'):
		switch t.Name {
		case "array":
			if t.Elem, err = p.typ(); err != nil {
				return nil, err
			}
		case "struct":
			for !p.eat('>') {
				if len(t.Fields) > 0 && !p.eat(',') {
					return nil, fmt.Errorf("type %q: expected , or > at %d", p.s, p.i)
				}
				fn, err := p.name(":")
				if err != nil {
					return nil, err
				}
				if !p.eat(':') {
					return nil, fmt.Errorf("type %q: expected : at %d", p.s, p.i)
				}
				ft, err := p.typ()
				if err != nil {
					return nil, err
				}
				t.Fields = append(t.Fields, sparkField{Name: fn, Type: ft})
			}
			return t, nil
		default: // map<k,v> and anything else: kept whole, matched by nothing but Any
			depth := 1
			for p.i < len(p.s) && depth > 0 {
				switch p.s[p.i] {
				case '<':
					depth++
				case '>':
					depth--
				}
				p.i++
			}
			return t, nil
		}
		if !p.eat('>') {
			return nil, fmt.Errorf("type %q: expected > at %d", p.s, p.i)
		}
	}
	return t, nil
}

var sparkInts = map[string]schema.Kind{"tinyint": schema.KindInt8, "smallint": schema.KindInt16, "int": schema.KindInt32, "bigint": schema.KindInt64}

// matches reports whether a Spark type satisfies a dtype, with the exact rules of the DuckDB
// check: families accept their members, Decimal needs the scale (and the precision when declared),
// a zoned Datetime needs Spark's TIMESTAMP and a naive one TIMESTAMP_NTZ, Struct the same field
// set in any order.
func matches(d schema.DType, t *sparkType) bool {
	switch d.Kind {
	case schema.KindAny:
		return true
	case schema.KindBool:
		return t.Name == "boolean"
	case schema.KindInteger:
		_, ok := sparkInts[t.Name]
		return ok
	case schema.KindInt8, schema.KindInt16, schema.KindInt32, schema.KindInt64:
		return sparkInts[t.Name] == d.Kind
	case schema.KindFloat32:
		return t.Name == "float"
	case schema.KindFloat64:
		return t.Name == "double"
	case schema.KindFloat:
		return t.Name == "float" || t.Name == "double"
	case schema.KindDecimal:
		return t.Name == "decimal" && len(t.Params) == 2 && t.Params[1] == d.Scale && (d.Precision == 0 || t.Params[0] == d.Precision)
	case schema.KindString:
		return t.Name == "string"
	case schema.KindBinary:
		return t.Name == "binary"
	case schema.KindDate:
		return t.Name == "date"
	case schema.KindDatetime:
		if d.TimeZone != "" {
			return t.Name == "timestamp"
		}
		return t.Name == "timestamp_ntz"
	case schema.KindList:
		return t.Name == "array" && t.Elem != nil && matches(d.Inner.DType, t.Elem)
	case schema.KindStruct:
		if t.Name != "struct" || len(t.Fields) != len(d.Fields) {
			return false
		}
		for _, f := range d.Fields {
			found := false
			for _, tf := range t.Fields {
				if tf.Name == f.Name {
					found = matches(f.DType, tf.Type)
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	return false
}

// checkColumns compares the relation's columns (name, Spark type) with the schema's, in schema
// order. Spark matches column names case-insensitively, so a column differing only in case is
// found too, and reported as missing under its declared name.
func checkColumns(cols []*schema.Column, actual [][2]string) []casting.Mismatch {
	byName := map[string]string{}
	for _, c := range actual {
		byName[c[0]] = c[1]
	}
	var out []casting.Mismatch
	for _, col := range cols {
		typ, ok := byName[col.Name]
		if !ok {
			out = append(out, casting.Mismatch{Column: col.Name, Expected: col.DType.String(), Actual: casting.Missing})
			continue
		}
		if col.DType.Kind == schema.KindAny {
			continue // any type, even one this parser cannot read
		}
		t, err := parseSparkType(typ)
		if err != nil || !matches(col.DType, t) {
			out = append(out, casting.Mismatch{Column: col.Name, Expected: col.DType.String(), Actual: typ})
		}
	}
	return out
}

// UnsupportedColumnError means a Parquet input stores a column in a type Spark cannot carry
// exactly (unsigned integers, millisecond or nanosecond timestamps, UUID, INTERVAL, TIME). Spark
// would read it as another type, or not at all, so the run stops before reading any row.
type UnsupportedColumnError struct {
	File    string
	Columns []string // "name (why)"
	// Mismatches are the same columns for the report: the declared dtype, and why as the actual.
	Mismatches []casting.Mismatch
}

func (e *UnsupportedColumnError) Error() string {
	return fmt.Sprintf("%s stores %s in a type Spark cannot read exactly, so the run on Spark stopped before reading any row. "+
		"Write the column as a type Spark has (a signed integer wide enough, microsecond timestamps, a string), or validate it with the DuckDB engine.",
		e.File, strings.Join(e.Columns, ", "))
}

// TypeName names the error in the report.
func (e *UnsupportedColumnError) TypeName() string { return "ColumnSchemaError" }

// parquetFiles lists the Parquet files of a local input: the file, or a directory's *.parquet
// files (Spark's part files), in name order.
func parquetFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	files, err := filepath.Glob(filepath.Join(path, "*.parquet"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no .parquet files", path)
	}
	return files, nil
}

// storedTypes checks the Parquet footers of the columns the schema declares for types Spark
// cannot carry; it reads no rows.
func storedTypes(files []string, cols []*schema.Column) error {
	declared := map[string]string{}
	for _, c := range cols {
		declared[c.Name] = c.DType.String()
	}
	for _, f := range files {
		r, err := file.OpenParquetFile(f, false)
		if err != nil {
			return fmt.Errorf("read the Parquet footer of %s: %w", f, err)
		}
		sc := r.MetaData().Schema
		seen := map[string]bool{}
		var bad []string
		var mm []casting.Mismatch
		for i := 0; i < sc.NumColumns(); i++ {
			c := sc.Column(i)
			path := c.ColumnPath()
			dtype, ok := "", len(path) > 0
			if ok {
				dtype, ok = declared[path[0]]
			}
			if !ok || seen[path[0]] {
				continue
			}
			if why := unsupportedStored(c); why != "" {
				seen[path[0]] = true
				bad = append(bad, fmt.Sprintf("'%s' (%s)", path[0], why))
				mm = append(mm, casting.Mismatch{Column: path[0], Expected: dtype, Actual: why})
			}
		}
		r.Close()
		if len(bad) > 0 {
			return &UnsupportedColumnError{File: f, Columns: bad, Mismatches: mm}
		}
	}
	return nil
}

func unsupportedStored(c *pqschema.Column) string {
	switch lt := c.LogicalType().(type) {
	case pqschema.IntLogicalType:
		if !lt.IsSigned() {
			return fmt.Sprintf("unsigned %d-bit integers", lt.BitWidth())
		}
	case pqschema.TimestampLogicalType:
		switch lt.TimeUnit() {
		case pqschema.TimeUnitMillis:
			return "millisecond timestamps, which Spark reads as microseconds"
		case pqschema.TimeUnitNanos:
			return "nanosecond timestamps"
		}
	case pqschema.UUIDLogicalType:
		return "UUID"
	case pqschema.IntervalLogicalType:
		return "INTERVAL"
	case pqschema.TimeLogicalType:
		return "TIME"
	}
	return ""
}
