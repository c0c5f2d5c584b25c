package compile_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// TestCheckSeesTheColumnsItNames: a check is bound with the columns whose names it mentions, in
// any case and quoted or not, and a column it does not name stays unknown to it.
func TestCheckSeesTheColumnsItNames(t *testing.T) {
	cases := []struct {
		name, sql string
		ok        bool
	}{
		{"another column", "_ <= other", true},
		{"quoted, another case", `_ <= "OTHER"`, true},
		{"a struct field of another column", "_ <= s.x", true},
		{"an unknown column", "_ <= missing", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := schema.New("T", schema.Int64("a").Check("c", tc.sql), schema.Int64("other"), schema.Struct("s", schema.Int64("x")))
			_, err := compile.Compile(s)
			if tc.ok && err != nil {
				t.Errorf("want it compiled, got %v", err)
			}
			if !tc.ok && (err == nil || !strings.Contains(err.Error(), "missing")) {
				t.Errorf("want a bind error naming the column, got %v", err)
			}
		})
	}
}

func TestCompileContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := schema.New("T", schema.Int64("a").Check("c", "_ >= 0"))
	if _, err := compile.CompileContext(ctx, s); !errors.Is(err, context.Canceled) {
		t.Errorf("want context.Canceled, got %v", err)
	}
}
