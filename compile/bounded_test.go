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

// TestHugeBuildsRefused: a constant size past MaxBuiltLength for a function that builds a value
// per row is a declaration error; sizes within it, and sizes read from columns, compile.
func TestHugeBuildsRefused(t *testing.T) {
	cases := []struct {
		sql  string
		want string // "" when it compiles
	}{
		{"length(repeat(_, 50000000)) > 0", "repeat(…, 50000000)"},
		{"length(repeat(_, CAST(50000000 AS BIGINT))) > 0", "repeat(…, 50000000)"},
		{"length(lpad(_, 9000000000, 'x')) > 0", "lpad(…, 9000000000)"},
		{"length(RPAD(_, 2000000, 'x')) > 0", "rpad(…, 2000000)"},
		{"len(list_resize([_], 5000000)) > 0", "list_resize(…, 5000000)"},
		{"length(repeat(_, 1048576)) > 0", ""},
		{"length(repeat(_, 3)) = 3 * length(_)", ""},
		{"length(repeat(_, n)) >= 0", ""},
	}
	for _, tc := range cases {
		t.Run(tc.sql, func(t *testing.T) {
			s := schema.New("T", schema.String("s").Check("c", tc.sql), schema.Int64("n"))
			_, err := compile.Compile(s)
			if tc.want == "" {
				if err != nil {
					t.Errorf("want it compiled, got %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "at most 1048576") {
				t.Errorf("want a declaration error naming %s and the limit, got %v", tc.want, err)
			}
		})
	}
}
