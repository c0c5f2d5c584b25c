package duckdb_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// TestSampleValuesCapped: a failing row's long values show in the report cut to
// runner.MaxSampleValue and marked with their size (a 10 MB string, a long list, a long binary
// value), in the per-rule samples and in the row samples; short values are whole.
func TestSampleValuesCapped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const big = 10_000_000
	s := schema.New("Big",
		schema.String("id").PrimaryKey(),
		schema.String("note").MaxLength(5),
		schema.List("tags", schema.Int64("")).Nullable(),
		schema.Binary("raw").Nullable(),
	)
	in := runner.ParquetInput{Path: e.parquet("in/big.parquet", fmt.Sprintf(`SELECT * FROM (VALUES
		('a', repeat('é', %d), range(100000)::BIGINT[], repeat('\xAA', 5000)::BLOB),
		('b', 'short', [1, 2], 'ab'::BLOB)) AS t(id, note, tags, raw)`, big))}
	rep, err := run(t, s, runner.Asset{Input: in, Output: runner.ParquetOutput{Path: e.path("out", "big.parquet")}, Quarantine: true},
		runner.Options{RowSample: 5})
	require.NoError(t, err)
	data, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.Less(t, len(data), 20_000, "the report stays small")

	sample := metadata(t, rep, "dy_rule__note__max_length")["dataframely/failed_examples"].([]any)
	require.Len(t, sample, 1)
	row := jsonValue(t, sample[0]).(map[string]any)
	want := strings.Repeat("é", runner.MaxSampleValue) + fmt.Sprintf("… (cut, %d bytes)", 2*big)
	assert.Equal(t, want, row["note"])
	tags := row["tags"].(string)
	assert.True(t, strings.HasPrefix(tags, "[0,1,2,3,"), tags)
	assert.True(t, strings.HasSuffix(tags, "… (cut, 588891 bytes)"), tags)
	assert.Len(t, strings.TrimSuffix(tags, "… (cut, 588891 bytes)"), runner.MaxSampleValue)
	assert.Contains(t, row["raw"], "… (cut, ")

	invalid := jsonValue(t, rep.InvalidSample).([]any)
	require.Len(t, invalid, 1)
	assert.Equal(t, want, invalid[0].(map[string]any)["note"])
	valid := jsonValue(t, rep.ValidSample).([]any)
	assert.Equal(t, map[string]any{"id": "b", "note": "short", "tags": []any{1.0, 2.0}, "raw": "ab"}, valid[0])
}
