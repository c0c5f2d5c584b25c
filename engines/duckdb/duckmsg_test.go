package duckdb_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/collection"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestRuntimeErrorMessagesAreCut: an error the user's SQL raises on the data (a table check, a
// collection's SQL filter) says DuckDB's first line, with the data's quoted values cut to 32
// characters, and never DuckDB's C++ stack trace (an INTERNAL error). Before, the message held the
// whole cell and, for INTERNAL errors, the stack trace.
func TestRuntimeErrorMessagesAreCut(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	long := strings.Repeat("x", 200)
	text := runner.ParquetInput{Path: e.parquet("text.parquet", "SELECT 'n' || range || '"+long+"' AS id FROM range(3)")}
	ids := runner.ParquetInput{Path: e.parquet("ids.parquet", "SELECT range::UBIGINT AS id FROM range(3)")}
	for _, tc := range []struct {
		name string
		s    *schema.Schema
		in   runner.Input
		says string
	}{
		{"a value that does not convert", schema.New("M", schema.String("id")).AddTableCheck(schema.Condition("boom", "max(CAST(id AS INTEGER)) > 0")),
			text, "Could not convert string 'n0xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' to INT32"},
		{"an INTERNAL error", schema.New("M", schema.UInt64("id")).AddTableCheck(schema.Condition("boom", "bool_and(id + 18446744073709550000 <= 18446744073709550615)")),
			ids, "INTERNAL Error: Information loss on integer cast"},
	} {
		rep, err := run(t, tc.s, runner.Asset{Input: tc.in}, runner.Options{})
		require.Error(t, err, tc.name)
		for _, msg := range []string{err.Error(), rep.Error.Message} {
			assert.Contains(t, msg, tc.says, tc.name)
			assert.NotContains(t, msg, long, tc.name)
			assert.NotContains(t, msg, "Stack Trace", tc.name)
			assert.NotContains(t, msg, "\n", tc.name)
		}
	}

	// A collection's SQL filter.
	a := schema.New("a", schema.Int64("k").PrimaryKey(), schema.String("v"))
	b := schema.New("b", schema.Int64("k").PrimaryKey())
	c := collection.New("c").Member("a", a).Member("b", b).SQLFilter("boom", "a", "bool_and(CAST(v AS INTEGER) > 0)")
	crep, err := runCollection(t, c, map[string]runner.Asset{
		"a": {Input: runner.ParquetInput{Path: e.parquet("a.parquet", "SELECT range AS k, 'v' || range || '"+long+"' AS v FROM range(3)")}},
		"b": {Input: runner.ParquetInput{Path: e.parquet("b.parquet", "SELECT range AS k FROM range(3)")}},
	}, runner.Options{})
	require.Error(t, err)
	for _, msg := range []string{err.Error(), crep.Error.Message} {
		assert.Contains(t, msg, "Could not convert string 'v0xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'")
		assert.NotContains(t, msg, long)
		assert.NotContains(t, msg, "\n")
	}
}
