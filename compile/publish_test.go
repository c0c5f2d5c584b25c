package compile_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/schema"
)

// TestPublishInputStep: the program publishes the input itself for a run that removes no row
// (PublishInput, when no row is invalid) exactly when its valid rows' query would write the
// input's table: every input column, by the input's names, in its order, uncast; from one
// Parquet file to a Parquet output, or from a DuckDB table into itself. The write that removes
// rows stays the COPY or CREATE TABLE of the rows.
func TestPublishInputStep(t *testing.T) {
	t.Parallel()
	p, err := compile.Compile(schema.New("T", schema.Int64("id").PrimaryKey(), schema.String("select").Nullable()))
	require.NoError(t, err)
	parquetOut := compile.Output{TableFile: "out/.t.tmp", QuarantineFile: "out/.q.tmp"}
	tableOut := compile.Output{Table: "t", Quarantine: "t_quarantine", KeepPrevious: true}
	file := compile.Relation{From: compile.ParquetScan("in/data.parquet"), RowID: "file_row_number", DenseRowIDs: true,
		Parquet: "in/data.parquet", ParquetFile: "in/data.parquet", Columns: []string{"id", "select"}}
	table := compile.Relation{From: `"t"`, RowID: "rowid", Columns: []string{"id", "select"}}
	with := func(r compile.Relation, change func(*compile.Relation)) compile.Relation {
		r.Columns = append([]string(nil), r.Columns...)
		change(&r)
		return r
	}
	for _, c := range []struct {
		name    string
		rel     compile.Relation
		sink    compile.Sink
		out     compile.Output
		publish bool
	}{
		{"one Parquet file", file, compile.ToParquet, parquetOut, true},
		{"a glob", with(file, func(r *compile.Relation) { r.ParquetFile = "" }), compile.ToParquet, parquetOut, false},
		{"an undeclared column", with(file, func(r *compile.Relation) { r.Columns = append(r.Columns, "extra") }), compile.ToParquet, parquetOut, false},
		{"another order", with(file, func(r *compile.Relation) { r.Columns = []string{"select", "id"} }), compile.ToParquet, parquetOut, false},
		{"a name in another case", with(file, func(r *compile.Relation) { r.Columns[1] = "SELECT" }), compile.ToParquet, parquetOut, false},
		{"columns not read", with(file, func(r *compile.Relation) { r.Columns = nil }), compile.ToParquet, parquetOut, false},
		{"a cast", with(file, func(r *compile.Relation) { r.Casts = map[string]string{"id": `CAST("id" AS BIGINT)`} }), compile.ToParquet, parquetOut, false},
		{"a file to a DuckDB table", file, compile.ToOutput, compile.Output{Table: "t", Quarantine: "t_quarantine"}, false},
		{"a table into itself", table, compile.ToOutput, tableOut, true},
		{"a table into another", table, compile.ToOutput, compile.Output{Table: "u", Quarantine: "u_quarantine"}, false},
		{"a table into itself, cast", with(table, func(r *compile.Relation) { r.Casts = map[string]string{"id": `CAST("id" AS BIGINT)`} }), compile.ToOutput, tableOut, false},
		{"handed to the caller", file, compile.ToCaller, compile.Output{}, false},
		{"in place", file, compile.Nowhere, compile.Output{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := p.Program(c.rel, compile.Facts{Rows: 10, LastRowID: 9}, compile.ProgramOptions{ID: 1, Sink: c.sink, Output: c.out})
			var publish []compile.Step
			rewrites := 0
			for _, s := range prog.Steps() {
				switch {
				case s.Op == compile.PublishInput:
					publish = append(publish, s)
				case s.Op == compile.WriteValid && s.When&compile.NoInvalid != 0:
					rewrites++
				}
			}
			if !c.publish {
				assert.Empty(t, publish)
				return
			}
			require.Len(t, publish, 1)
			s := publish[0]
			assert.Equal(t, compile.WriteTable|compile.NoInvalid, s.When)
			assert.Zero(t, rewrites, "no rewrite of the rows when none is removed")
			if c.sink == compile.ToParquet {
				assert.Equal(t, "publish by copying the input's bytes", s.What)
				assert.Equal(t, "in/data.parquet", s.From)
				assert.Equal(t, compile.CopyText("in/data.parquet", "out/.t.tmp"), s.SQL)
				assert.True(t, strings.HasPrefix(s.SQL, "-- "), "explain shows a comment: no statement runs")
			} else {
				assert.Empty(t, s.From)
				assert.Equal(t, `-- "main"."t" stays as it is`, s.SQL)
			}
			assert.Contains(t, prog.String(), s.SQL)
		})
	}
}

// TestParquetFileOfOneFile: an input path naming one file is the file a run may publish; a
// glob is not, even when it matches one file (what it matches may change while the run runs).
func TestParquetFileOfOneFile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		path, file string
	}{
		{"in/data.parquet", "in/data.parquet"},
		{"in/*.parquet", ""},
		{"in/dat?.parquet", ""},
		{"in/[d]ata.parquet", ""},
		{"in/{data}.parquet", ""},
	} {
		o := &compile.Opening{}
		st, err := compile.Source{Kind: compile.ParquetSource, Path: c.path, Files: 1}.Next(o)
		require.NoError(t, err)
		assert.Empty(t, st.Steps)
		assert.Equal(t, c.path, o.Rel.Parquet)
		assert.Equal(t, c.file, o.Rel.ParquetFile, c.path)
	}
}
