package compile_test

import (
	"strings"
	"testing"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// TestTableCheckRefusalMessages: a table check's refusals give a table check's advice, not a
// row rule's (windows, subqueries), and a column the schema does not declare is named with a
// did-you-mean and the columns a table check sees. Before, they said "not allowed in rules … use
// a group rule", and DuckDB's bare binder error.
func TestTableCheckRefusalMessages(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"sum(x) OVER () > 0", []string{"not allowed in table checks", "sum(x), not sum(x) OVER ()"}},
		{"max(row_number() OVER ()) > 0", []string{"window functions (… OVER …) are not allowed in table checks"}},
		{"count(*) > (SELECT 1)", []string{"subqueries are not allowed in table checks", "reads no other table"}},
		{"max(amout) > 0", []string{"'amout' is not a column of S (did you mean 'amount'?); a table check sees the schema's declared columns (amount, x)"}},
		{"max(amount) > 0 AND bool_and(\"Amout\" > 1)", []string{"'Amout' is not a column of S (did you mean 'amount'?)"}},
	} {
		s := schema.New("S", schema.Float64("amount"), schema.Int64("x")).AddTableCheck(schema.Condition("c", tc.sql))
		_, err := compile.Compile(s)
		if err == nil {
			t.Errorf("%s: compiled", tc.sql)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: want %q in %v", tc.sql, w, err)
			}
		}
		for _, not := range []string{"in rules", "group rule", "Binder Error", "FROM clause"} {
			if strings.Contains(err.Error(), not) {
				t.Errorf("%s: %q in %v", tc.sql, not, err)
			}
		}
	}
}
