package schema

import (
	"bytes"
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// WriteDocument renders a schema document built as YAML nodes (by infer and by the ODCS import)
// with the indentation the schema files in this repository use.
func WriteDocument(doc *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{doc}}); err != nil {
		return nil, fmt.Errorf("write the schema: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("write the schema: %w", err)
	}
	return b.Bytes(), nil
}

// WriteDType adds to a column's (or a nested member's) node of a schema document its type and the
// parameters of that type itself: categories, precision and scale, time unit and zone, an array's
// shape. A nested type's inner member and fields are the caller's to add after it.
func WriteDType(n *yaml.Node, d DType) {
	addKey(n, "type", plain(d.Kind.String()))
	switch d.Kind {
	case KindEnum:
		cats := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, c := range d.Categories {
			cats.Content = append(cats.Content, text(c))
		}
		addKey(n, "categories", cats)
	case KindDecimal:
		addKey(n, "precision", plain(strconv.Itoa(d.Precision)))
		addKey(n, "scale", plain(strconv.Itoa(d.Scale)))
	case KindDatetime:
		if d.TimeUnit != "" && d.TimeUnit != Micros {
			addKey(n, "time_unit", plain(string(d.TimeUnit)))
		}
		if d.TimeZone != "" {
			addKey(n, "time_zone", text(d.TimeZone))
		}
	case KindArray:
		shape := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, s := range d.Shape {
			shape.Content = append(shape.Content, plain(strconv.Itoa(s)))
		}
		addKey(n, "shape", shape)
	}
}

func addKey(m *yaml.Node, key string, v *yaml.Node) { m.Content = append(m.Content, plain(key), v) }

// plain is a scalar the schema reads as what it looks like (keys, numbers, names).
func plain(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

// text reads back as a string whatever it looks like ("1", "yes", "null").
func text(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
