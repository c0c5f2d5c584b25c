// Package casting maps DuckDB types to the schema's dtypes: it checks a relation's column types
// against a schema without running anything, says how a cast would behave, and builds the
// explicit casts a user asks for. tablegate never casts on its own.
package casting

import (
	"fmt"
	"strconv"
	"strings"
)

// DuckType is a parsed DuckDB type as DESCRIBE spells it.
type DuckType struct {
	Name   string      // BOOLEAN, DECIMAL, ENUM, STRUCT, MAP, LIST, ARRAY, TIMESTAMP WITH TIME ZONE, …
	Params []int       // DECIMAL(p,s)
	Enum   []string    // ENUM categories in order
	Elem   *DuckType   // LIST and ARRAY element
	Size   int         // ARRAY size
	Fields []DuckField // STRUCT fields; MAP has key and value
	Raw    string
}

// DuckField is a named member of a STRUCT.
type DuckField struct {
	Name string
	Type *DuckType
}

func (t *DuckType) String() string { return t.Raw }

// ParseType reads a DuckDB type string such as DECIMAL(18,3), INTEGER[3][], ENUM('a', 'b') or
// STRUCT(a INTEGER, "B c" VARCHAR[]).
func ParseType(s string) (*DuckType, error) { return parseWhole(s, (*typeParser).typ) }

// parseWhole reads s with read, which must consume all of it.
func parseWhole(s string, read func(*typeParser) (*DuckType, error)) (*DuckType, error) {
	p := &typeParser{s: s}
	t, err := read(p)
	if err != nil {
		return nil, err
	}
	p.space()
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

func (p *typeParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *typeParser) expect(c byte) error {
	if p.peek() != c {
		return fmt.Errorf("type %q: expected %q at %d", p.s, c, p.i)
	}
	p.i++
	return nil
}

// word reads an identifier or a quoted identifier.
func (p *typeParser) word() (string, error) {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '"' {
		var b strings.Builder
		p.i++
		for p.i < len(p.s) {
			if p.s[p.i] == '"' {
				if p.i+1 < len(p.s) && p.s[p.i+1] == '"' {
					b.WriteByte('"')
					p.i += 2
					continue
				}
				p.i++
				return b.String(), nil
			}
			b.WriteByte(p.s[p.i])
			p.i++
		}
		return "", fmt.Errorf("type %q: unterminated quoted name", p.s)
	}
	start := p.i
	for p.i < len(p.s) && strings.IndexByte(" (),[]", p.s[p.i]) < 0 {
		p.i++
	}
	if start == p.i {
		return "", fmt.Errorf("type %q: expected a name at %d", p.s, p.i)
	}
	return p.s[start:p.i], nil
}

func (p *typeParser) str() (string, error) {
	if err := p.expect('\''); err != nil {
		return "", err
	}
	var b strings.Builder
	for p.i < len(p.s) {
		if p.s[p.i] == '\'' {
			if p.i+1 < len(p.s) && p.s[p.i+1] == '\'' {
				b.WriteByte('\'')
				p.i += 2
				continue
			}
			p.i++
			return b.String(), nil
		}
		b.WriteByte(p.s[p.i])
		p.i++
	}
	return "", fmt.Errorf("type %q: unterminated string", p.s)
}

func (p *typeParser) typ() (*DuckType, error) {
	start := p.i
	p.space()
	name, err := p.word()
	if err != nil {
		return nil, err
	}
	// Multi-word names: TIMESTAMP WITH TIME ZONE, TIME WITH TIME ZONE, DOUBLE PRECISION.
	for {
		save := p.i
		p.space()
		if p.i < len(p.s) && strings.IndexByte("(),[]", p.s[p.i]) < 0 && p.s[p.i] != '"' {
			w, err := p.word()
			if err != nil {
				return nil, err
			}
			name += " " + w
			continue
		}
		p.i = save
		break
	}
	t := &DuckType{Name: strings.ToUpper(name)}
	if p.peek() == '(' {
		p.i++
		switch t.Name {
		case "ENUM":
			for {
				v, err := p.str()
				if err != nil {
					return nil, err
				}
				t.Enum = append(t.Enum, v)
				if p.peek() != ',' {
					break
				}
				p.i++
			}
		case "STRUCT", "UNION":
			for {
				fname, err := p.word()
				if err != nil {
					return nil, err
				}
				ft, err := p.typ()
				if err != nil {
					return nil, err
				}
				t.Fields = append(t.Fields, DuckField{Name: fname, Type: ft})
				if p.peek() != ',' {
					break
				}
				p.i++
			}
		case "MAP":
			k, err := p.typ()
			if err != nil {
				return nil, err
			}
			if err := p.expect(','); err != nil {
				return nil, err
			}
			v, err := p.typ()
			if err != nil {
				return nil, err
			}
			t.Fields = []DuckField{{Name: "key", Type: k}, {Name: "value", Type: v}}
		default:
			for {
				w, err := p.word()
				if err != nil {
					return nil, err
				}
				n, err := strconv.Atoi(w)
				if err != nil {
					return nil, fmt.Errorf("type %q: %q is not a number", p.s, w)
				}
				t.Params = append(t.Params, n)
				if p.peek() != ',' {
					break
				}
				p.i++
			}
		}
		if err := p.expect(')'); err != nil {
			return nil, err
		}
	}
	t.Raw = strings.TrimSpace(p.s[start:p.i])
	for p.peek() == '[' {
		p.i++
		size := 0
		if p.peek() != ']' {
			w, err := p.word()
			if err != nil {
				return nil, err
			}
			if size, err = strconv.Atoi(w); err != nil {
				return nil, fmt.Errorf("type %q: array size %q", p.s, w)
			}
		}
		if err := p.expect(']'); err != nil {
			return nil, err
		}
		outer := &DuckType{Name: "LIST", Elem: t}
		if size > 0 {
			outer.Name, outer.Size = "ARRAY", size
		}
		outer.Raw = strings.TrimSpace(p.s[start:p.i])
		t = outer
	}
	return t, nil
}
