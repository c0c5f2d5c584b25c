package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestOrdersExample runs the example as `go run ./examples/orders` does: a passing check shows
// the severity its rules are declared with (ERROR for order_id's nullability), not the run's
// WARN for a check that did not fail.
func TestOrdersExample(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, t.TempDir(), false); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"Orders: quarantined — 16 rows in, 8 valid to ",
		"  ERROR dy_schema__columns                     pass ",
		"  ERROR dy_rule__order_id__nullability         pass ",
		"  WARN  dy_rule__order_id__regex               FAIL 1 row ",
		"  WARN  dy_rule__note__max_length              FAIL 1 row ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}
