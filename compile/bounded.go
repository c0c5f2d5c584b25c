package compile

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// MaxBuiltLength is the largest constant length or count a rule may pass to a function that
// builds a value of that size for every row (repeat, lpad, rpad, list_resize, array_resize).
// DuckDB holds such values outside the memory its memory limit governs, so one rule like
// length(repeat(_, 50000000)) > 0 would grow past any --memory-limit by gigabytes.
const MaxBuiltLength = 1 << 20

// builders maps each function that builds a value of a given size to the argument that sets it.
var builders = map[string]int{"repeat": 1, "lpad": 1, "rpad": 1, "list_resize": 1, "array_resize": 1}

// checkBuilds refuses a call in the parse tree that builds a value larger than MaxBuiltLength
// from a constant. A size read from a column cannot be judged here; the docs say so.
func checkBuilds(tree string) error {
	var parsed any
	if err := json.Unmarshal([]byte(tree), &parsed); err != nil {
		return fmt.Errorf("read DuckDB parse tree: %w", err)
	}
	var walk func(v any) error
	walk = func(v any) error {
		switch t := v.(type) {
		case map[string]any:
			if t["class"] == "FUNCTION" {
				name, _ := t["function_name"].(string)
				if i, ok := builders[strings.ToLower(name)]; ok {
					if args := functionArgs(t); i < len(args) {
						if n, ok := constantInt(args[i]); ok && n.CmpAbs(big.NewInt(MaxBuiltLength)) > 0 {
							return fmt.Errorf("%s(…, %s) builds a value of %s elements or characters for every row, beyond what the memory limit governs; a rule may ask for at most %d", strings.ToLower(name), n, n, MaxBuiltLength)
						}
					}
				}
			}
			for _, child := range t {
				if err := walk(child); err != nil {
					return err
				}
			}
		case []any:
			for _, child := range t {
				if err := walk(child); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(parsed)
}

// functionArgs are a FUNCTION node's argument expressions, in either form DuckDB serialises.
func functionArgs(fn map[string]any) []any {
	if children, ok := fn["children"].([]any); ok {
		return children
	}
	var out []any
	for _, a := range asList(fn["arguments"]) {
		if m, ok := a.(map[string]any); ok {
			out = append(out, m["expression"])
		}
	}
	return out
}

// constantInt is the value of an integer constant, also under casts and a unary minus.
func constantInt(v any) (*big.Int, bool) {
	m, _ := v.(map[string]any)
	switch m["class"] {
	case "CAST":
		return constantInt(m["child"])
	case "CONSTANT":
		text := ""
		if lit, ok := m["literal"].(map[string]any); ok {
			text, _ = lit["text"].(string)
		} else if val, ok := m["value"].(map[string]any); ok {
			text = fmt.Sprint(val["value"])
		}
		n, ok := new(big.Int).SetString(strings.TrimSpace(text), 10)
		return n, ok
	case "FUNCTION":
		if name, _ := m["function_name"].(string); name == "-" {
			if args := functionArgs(m); len(args) == 1 {
				if n, ok := constantInt(args[0]); ok {
					return n.Neg(n), true
				}
			}
		}
	}
	return nil, false
}
