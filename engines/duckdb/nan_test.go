package duckdb_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// Float rules over Parquet whose statistics leave NaN out. polars, pyarrow and other writers
// compute a float column's min/max without its NaNs and write no NaN count; a reader that trusts
// those statistics skips the NaN's row group or folds `x <= 1000` to TRUE. Every column below
// holds (NaN, 1.0, 2.0), so its statistics say [1, 2]; such a reader even folds isnan(nn) to FALSE.
const nanYAML = `schema: NaNs
columns:
  - {name: hi, type: Float64, allow_nan: true, max: 1000}
  - {name: lo, type: Float64, allow_nan: true, min: 10}
  - {name: ex, type: Float64, allow_nan: true, max_exclusive: 1000}
  - {name: f32, type: Float32, allow_nan: true, max: 1000}
  - name: s
    type: Struct
    fields:
      - {name: a, type: Float64, allow_nan: true, max: 1000}
  - name: l
    type: List
    inner: {type: Float64, allow_nan: true, max: 1000}
  - {name: nn, type: Float64}
  - {name: b, type: Float64}
rules:
  - {name: hi_le_b, sql: hi <= b}
`

// nanCounts are the failures NaN sorting above every number gives: the NaN row fails each upper
// bound; the lower bound 10 fails 1.0 and 2.0 and passes NaN.
var nanCounts = map[string]int64{
	"hi|max": 1, "lo|min": 2, "ex|max_exclusive": 1, "f32|max": 1, "s|inner_a_max": 1,
	"l|inner_max": 1, "hi_le_b": 1, "nn|nan": 1,
}

// nanWriters write the rows (NaN, 1.0, 2.0) per column to a Parquet file with NaN-free
// statistics; each returns false when it cannot.
var nanWriters = map[string]func(t *testing.T, e *env, path string) bool{
	// Without Python: DuckDB writes 1.5 where the NaN goes (inside [1, 2], so the statistics
	// stay [1, 2] and never hold the sentinel), uncompressed, and the sentinel's bytes in the
	// data pages are overwritten with NaN's.
	"crafted": func(t *testing.T, e *env, path string) bool {
		e.exec(`COPY (SELECT v AS hi, v AS lo, v AS ex, v::FLOAT AS f32, {'a': v} AS s, [v] AS l, v AS nn, 5.0::DOUBLE AS b
			FROM (VALUES (0, 1.5::DOUBLE), (1, 1.0), (2, 2.0)) AS t(i, v) ORDER BY i)
			TO ` + lit(path) + ` (FORMAT parquet, COMPRESSION uncompressed)`)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		footer := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
		pages := data[:len(data)-8-footer]
		f64 := binary.LittleEndian.AppendUint64(nil, math.Float64bits(1.5))
		f32 := binary.LittleEndian.AppendUint32(nil, math.Float32bits(1.5))
		require.Equal(t, 7, bytes.Count(pages, f64)+bytes.Count(pages, f32), "one sentinel per column")
		pages = bytes.ReplaceAll(pages, f64, binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.NaN())))
		pages = bytes.ReplaceAll(pages, f32, binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(math.NaN()))))
		// DuckDB writes a NaN count (0) that readers trust; polars and pyarrow write none. Each
		// chunk's Statistics ends with the two exactness flags (compact Thrift bools 0x11/0x12),
		// the NaN count (field delta 1, i64: 0x16, zigzag 0) and the stop byte: the count goes.
		stripped := nanCount.ReplaceAll(data[len(pages):len(data)-8], []byte("$1\x00"))
		require.Equal(t, footer-2*8, len(stripped), "one NaN count per column chunk")
		out := append(append(pages, stripped...), binary.LittleEndian.AppendUint32(nil, uint32(len(stripped)))...)
		require.NoError(t, os.WriteFile(path, append(out, "PAR1"...), 0o644))
		require.Equal(t, int64(8), e.query(`SELECT count(*) FROM parquet_metadata(` + lit(path) + `) WHERE stats_nan_count IS NULL AND stats_max_value IS NOT NULL`)[0][0])
		return true
	},
}

// pythonNaNWriters write them with polars and pyarrow, as users' files are written (slow tests:
// they run python3).
var pythonNaNWriters = map[string]func(t *testing.T, e *env, path string) bool{
	"polars":  pythonWriter(`pl.DataFrame(rows, schema_overrides={"f32": pl.Float32}).write_parquet(path)`),
	"pyarrow": pythonWriter(`pq.write_table(pa.Table.from_pydict(rows, schema=pa.schema([("hi", pa.float64()), ("lo", pa.float64()), ("ex", pa.float64()), ("f32", pa.float32()), ("s", pa.struct([("a", pa.float64())])), ("l", pa.list_(pa.float64())), ("nn", pa.float64()), ("b", pa.float64())])), path)`),
}

var nanCount = regexp.MustCompile(`(?s)([\x11\x12][\x11\x12])\x16\x00\x00`)

// pythonWriter writes the same rows with python3 running write (over rows and path).
func pythonWriter(write string) func(t *testing.T, e *env, path string) bool {
	return func(t *testing.T, e *env, path string) bool {
		py, err := exec.LookPath("python3")
		if err != nil {
			return false
		}
		script := `import sys
import polars as pl, pyarrow as pa, pyarrow.parquet as pq
path = sys.argv[1]
v = [float("nan"), 1.0, 2.0]
rows = {"hi": v, "lo": v, "ex": v, "f32": v, "s": [{"a": x} for x in v], "l": [[x] for x in v], "nn": v, "b": [5.0] * 3}
` + write
		out, err := exec.Command(py, "-c", script, path).CombinedOutput()
		if err != nil {
			t.Logf("python3 could not write the file (%v): %s", err, out)
			return false
		}
		return true
	}
}

func TestParquetNaNOutsideStatistics(t *testing.T) { nanOutsideStatistics(t, nanWriters) }

// TestSlowParquetNaNOutsideStatistics is TestParquetNaNOutsideStatistics on the files polars and
// pyarrow write.
func TestSlowParquetNaNOutsideStatistics(t *testing.T) {
	testenv.Slow(t)
	nanOutsideStatistics(t, pythonNaNWriters)
}

func nanOutsideStatistics(t *testing.T, writers map[string]func(t *testing.T, e *env, path string) bool) {
	s, err := schema.Parse([]byte(nanYAML), "nan.yaml")
	require.NoError(t, err)
	for name, write := range writers {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			path := filepath.Join(e.dir, name+".parquet")
			if !write(t, e, path) {
				t.Skip("python3 with polars and pyarrow is not available")
			}
			// The premise: the file holds a NaN per column that its statistics leave out.
			got := e.query(`SELECT (isnan(hi)::INT + isnan(lo)::INT + isnan(ex)::INT + isnan(f32)::INT + isnan(s.a)::INT + isnan(l[1])::INT + isnan(nn)::INT)::BIGINT
				FROM read_parquet(` + lit(path) + `, can_have_nan = true) WHERE file_row_number = 0`)
			require.Equal(t, int64(7), got[0][0], "NaN per column in row 0")
			require.Equal(t, int64(0), e.query(`SELECT count(*) FROM read_parquet(` + lit(path) + `) WHERE hi > 1000`)[0][0],
				"statistics without the NaN: a plain scan skips its row")

			rep, _ := run(t, s, runner.Asset{Input: runner.ParquetInput{Path: path}}, runner.Options{})
			require.Equal(t, outcome.Aborted, outcomeOf(rep))
			got2 := failedCounts(t, rep)
			for rule, n := range nanCounts {
				assert.Equal(t, n, got2[rule], rule)
			}
			assert.Equal(t, int64(0), rep.Rows.Valid, "the NaN row and the rows under 10 are all invalid")
		})
	}
}
