package casting

import (
	"fmt"
	"strconv"
	"strings"
)

// sparkNames maps Spark's spelling of a scalar type (as DESCRIBE prints it) to DuckDB's, whose
// vocabulary Matches speaks: a Spark type then satisfies a dtype exactly when the DuckDB type of
// the same values would.
var sparkNames = map[string]string{
	"boolean": "BOOLEAN", "tinyint": "TINYINT", "smallint": "SMALLINT", "int": "INTEGER", "bigint": "BIGINT",
	"float": "FLOAT", "double": "DOUBLE", "decimal": "DECIMAL", "string": "VARCHAR", "binary": "BLOB",
	"date": "DATE", "timestamp": "TIMESTAMP WITH TIME ZONE", "timestamp_ntz": "TIMESTAMP",
	"array": "LIST", "struct": "STRUCT", "map": "MAP",
}

// ParseSparkType reads a Spark type as DESCRIBE spells it (int, decimal(10,2), array<string>,
// struct<a:int,`b c`:string>, map<string,int>) into the DuckDB type of the same values; Raw keeps
// Spark's spelling. A type DuckDB has no name for keeps its own, upper-cased, and matches no
// dtype but Any.
func ParseSparkType(s string) (*DuckType, error) { return parseWhole(s, (*typeParser).sparkType) }

// sparkName reads a name up to one of stop, or a backquoted one (a doubled ` inside).
func (p *typeParser) sparkName(stop string) (string, error) {
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

func (p *typeParser) sparkType() (*DuckType, error) {
	p.space()
	start := p.i
	n, err := p.sparkName("<(,>: ")
	if err != nil {
		return nil, err
	}
	n = strings.ToLower(n)
	t := &DuckType{Name: sparkNames[n]}
	if t.Name == "" {
		t.Name = strings.ToUpper(n)
	}
	switch {
	case p.peek() == '(':
		p.i++
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
			if p.peek() == ')' {
				p.i++
				break
			}
			if err := p.expect(','); err != nil {
				return nil, err
			}
		}
	case p.peek() == '<':
		p.i++
		switch n {
		case "array":
			if t.Elem, err = p.sparkType(); err != nil {
				return nil, err
			}
		case "struct", "map":
			for p.peek() != '>' {
				if len(t.Fields) > 0 {
					if err := p.expect(','); err != nil {
						return nil, err
					}
				}
				var fn string
				if n == "map" {
					fn = [...]string{"key", "value"}[min(len(t.Fields), 1)]
				} else {
					if fn, err = p.sparkName(":"); err != nil {
						return nil, err
					}
					if err := p.expect(':'); err != nil {
						return nil, err
					}
				}
				ft, err := p.sparkType()
				if err != nil {
					return nil, err
				}
				t.Fields = append(t.Fields, DuckField{Name: fn, Type: ft})
			}
		default:
			return nil, fmt.Errorf("type %q: %s takes no <…>", p.s, n)
		}
		if err := p.expect('>'); err != nil {
			return nil, err
		}
	}
	t.Raw = strings.TrimSpace(p.s[start:p.i])
	return t, nil
}
