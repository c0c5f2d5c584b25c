package schema

import (
	"bytes"
	"fmt"

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
