package duckdb_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/engines/duckdb"
	"github.com/tablegate/tablegate/internal/testenv"
	"github.com/tablegate/tablegate/runner"
	"github.com/tablegate/tablegate/schema"
)

// explainedStep is one step of a printed program: its comment line and statement, the latter
// with its white space folded as the trace folds it.
type explainedStep struct {
	header, sql string
}

func (s explainedStep) conditional() bool { return strings.Contains(s.header, "; when ") }

func explainedSteps(t *testing.T, text string) []explainedStep {
	t.Helper()
	var steps []explainedStep
	if note, rest, ok := strings.Cut(text, "\n"); ok && !strings.HasPrefix(note, "-- 1.") {
		text = rest // explain's first line, the summary of the settings
	}
	for _, chunk := range strings.Split(strings.TrimSpace(text), ";\n\n-- ") {
		header, stmt, ok := strings.Cut(strings.TrimPrefix(chunk, "-- "), "\n")
		require.True(t, ok, "a step without a statement: %q", chunk)
		steps = append(steps, explainedStep{header: header, sql: strings.Join(strings.Fields(strings.TrimSuffix(stmt, ";")), " ")})
	}
	return steps
}

var traceLine = regexp.MustCompile(`^tablegate trace: +[0-9]+\.[0-9]{3}s(?: +[0-9]+\.[0-9]{3}s cpu)?  (.*)$`)

// notStatement is a trace line that is no statement: the flush of a written file, in the
// background.
func notStatement(line string) bool { return strings.HasPrefix(line, "fsync ") }

// TestExplainIsWhatRuns: explain prints every statement a run executes, in its order. For each
// input and output, the statements of a traced run are the explained ones (those that opened
// the input, the footer, row-group and count probes, the program, its writes, the COPY to the
// temporary file or the table output's transaction, and its cleanup), but for steps whose
// condition did not hold (the threads for the key aggregates are steps too, which run unless
// DuckDB has them) and the settings explain summarises in one line; every unconditional step
// runs. The two engines are fresh, so that the run's temp names (which carry
// the run's number) agree; they have DuckDB's default threads, so that on up to 2 cores the key
// aggregates raise them. The quick loop compares a Parquet, a DuckDB table, a CSV and an aborted
// run (quickExplained); TestSlowExplainIsWhatRuns every other input and output.
func TestExplainIsWhatRuns(t *testing.T) {
	t.Parallel()
	explainIsWhatRuns(t, func(name string) bool { return quickExplained[name] })
}

// TestSlowExplainIsWhatRuns is TestExplainIsWhatRuns's sweep over the inputs and outputs it
// leaves out (globs, NDJSON, queries and views of DuckDB files, references, per-column runs).
func TestSlowExplainIsWhatRuns(t *testing.T) {
	testenv.Slow(t)
	t.Parallel()
	explainIsWhatRuns(t, func(name string) bool { return !quickExplained[name] })
}

var quickExplained = map[string]bool{
	"parquet to parquet, quarantined": true, "table to table, quarantined": true,
	"CSV to parquet, quarantined": true, "aborted": true,
}

// explainIsWhatRuns compares explain and a traced run for the cases pick selects by name.
func explainIsWhatRuns(t *testing.T, pick func(name string) bool) {
	e := newEnv(t)
	glob := filepath.Join(e.path("files"), "*.parquet")
	e.parquet(filepath.Join("files", "a.parquet"), ordersSelect(mixedRows))
	e.parquet(filepath.Join("files", "b.parquet"), ordersSelect(`('z', 7.0, NULL), ('a', 1.0, NULL)`))
	db := e.path("wh.duckdb")
	e.table(db, "raw", ordersSelect(mixedRows))
	own := e.path("own.duckdb")
	e.table(own, "orders", ordersSelect(mixedRows))
	csv := e.path("orders.csv")
	e.exec(fmt.Sprintf("COPY (%s) TO '%s' (HEADER)", ordersSelect(mixedRows), csv))
	ndjson := e.path("orders.ndjson")
	e.exec(fmt.Sprintf("COPY (%s) TO '%s' (FORMAT json)", ordersSelect(mixedRows), ndjson))
	// Keys that look renamed (note and note_1) make the opening read the objects' keys again.
	renamed := e.path("renamed.ndjson")
	e.exec(fmt.Sprintf("COPY (SELECT *, 'x' AS note_1 FROM (%s)) TO '%s' (FORMAT json)", ordersSelect(mixedRows), renamed))
	e.exec("ATTACH "+lit(db)+" AS v", "CREATE VIEW v.raw_view AS SELECT * FROM v.raw", "DETACH v")
	// A column named file_index hides DuckDB's: the rows are copied with an ordinal of their own.
	shadowed := filepath.Join(e.path("shadowed"), "*.parquet")
	e.parquet(filepath.Join("shadowed", "a.parquet"), "SELECT *, 7 AS file_index FROM ("+ordersSelect(mixedRows)+")")
	e.parquet(filepath.Join("shadowed", "b.parquet"), "SELECT *, 8 AS file_index FROM ("+ordersSelect(allValidRows)+")")
	// References to a table of a DuckDB file and to a Parquet file, and amounts stored as
	// integers, which --cast casts after probing them.
	refs := e.path("refs.duckdb")
	e.table(refs, "ids", "SELECT id FROM ("+ordersSelect(mixedRows)+")")
	idsFile := e.parquet("ids.parquet", "SELECT id FROM ("+ordersSelect(mixedRows)+")")
	referencing := func(to string) *compile.Plan {
		p, err := compile.Compile(schema.New("Orders",
			schema.String("id").PrimaryKey().References(to, "id"),
			schema.Float64("amount").Min(0),
			schema.String("note").Nullable().MaxLength(5).Severity(schema.Warn),
		))
		require.NoError(t, err)
		return p
	}
	integers := e.parquet("integers.parquet", "SELECT id, amount::INTEGER AS amount, note FROM ("+ordersSelect(mixedRows)+")")
	for _, c := range []struct {
		name string
		a    runner.Asset
		opts runner.Options
		// writes are statements of the write that must be in the trace.
		writes []string
	}{
		{"parquet to parquet, quarantined", runner.Asset{Input: runner.ParquetInput{Path: e.parquet("in.parquet", ordersSelect(mixedRows))},
			Output: runner.ParquetOutput{Path: e.path("out", "orders.parquet")}, Quarantine: true}, runner.Options{RowSample: 2},
			[]string{"COPY (SELECT s.", ".tablegate-"}},
		{"table to table, quarantined", runner.Asset{Input: runner.TableInput{File: db, Table: "raw"},
			Output: runner.TableOutput{File: e.path("out.duckdb"), Schema: "clean", Table: "orders"}, Quarantine: true}, runner.Options{},
			[]string{"ATTACH ", "BEGIN TRANSACTION", "CREATE SCHEMA IF NOT EXISTS ", `CREATE OR REPLACE TABLE "__tg_db1_1"."clean"."orders" AS SELECT`, "COMMIT"}},
		{"a table validated into itself", runner.Asset{Input: runner.TableInput{File: own, Table: "orders"},
			Output: runner.TableOutput{File: own, Table: "orders"}, Quarantine: true}, runner.Options{},
			[]string{"SELECT count(*) FROM duckdb_tables()", "COMMIT"}},
		{"files in place, per column", runner.Asset{Input: runner.ParquetInput{Path: glob}}, runner.Options{Granularity: runner.PerColumn}, nil},
		{"files to a table, quarantined", runner.Asset{Input: runner.ParquetInput{Path: glob},
			Output: runner.TableOutput{File: e.path("files.duckdb"), Table: "orders"}, Quarantine: true}, runner.Options{RowSample: 1},
			[]string{"SELECT file_index, count(*)", "parquet_schema(", "ATTACH ", "COMMIT"}},
		{"CSV to parquet, quarantined", runner.Asset{Input: runner.CSVInput{Path: csv},
			Output: runner.ParquetOutput{Path: e.path("csv", "orders.parquet")}, Quarantine: true}, runner.Options{},
			[]string{"DESCRIBE SELECT * FROM read_csv(", `CREATE OR REPLACE TEMP TABLE "__tg_typed_1" AS SELECT * REPLACE (TRY_CAST(`,
				"WHERE __tg_col IS NOT NULL", "DROP COLUMN __tg_text", "COPY (SELECT s."}},
		{"NDJSON in place", runner.Asset{Input: runner.NDJSONInput{Path: ndjson}}, runner.Options{RowSample: 1}, nil},
		{"NDJSON with keys that look renamed, quarantined", runner.Asset{Input: runner.NDJSONInput{Path: renamed},
			Output: runner.ParquetOutput{Path: e.path("ndjson", "orders.parquet")}, Quarantine: true}, runner.Options{},
			[]string{"read_ndjson_objects(", "COPY (SELECT s."}},
		{"a query of a DuckDB file", runner.Asset{Input: runner.QueryInput{SQL: "SELECT * FROM raw WHERE id <> 'x'", File: db}}, runner.Options{},
			[]string{"SELECT current_database()", "USE "}},
		{"a view of a DuckDB file", runner.Asset{Input: runner.TableInput{File: db, Table: "raw_view"}}, runner.Options{},
			[]string{"SELECT table_type FROM information_schema.tables", `CREATE OR REPLACE TEMP TABLE "__tg_input_1" AS SELECT * FROM "__tg_db1_0"."main"."raw_view"`}},
		{"files hiding the ordinal", runner.Asset{Input: runner.ParquetInput{Path: shadowed}}, runner.Options{},
			[]string{"parquet_schema(", "row_number() OVER () AS __tg_ord"}},
		{"a reference to a table, cast", runner.Asset{Plan: referencing(refs + ":ids"), Input: runner.ParquetInput{Path: integers}}, runner.Options{Cast: true},
			[]string{"TRY_CAST(", "ATTACH ", `CREATE OR REPLACE TEMP VIEW`}},
		{"a reference to a file", runner.Asset{Plan: referencing(idsFile), Input: runner.CSVInput{Path: csv}}, runner.Options{},
			[]string{"DESCRIBE SELECT * FROM read_parquet("}},
		{"all valid to parquet", runner.Asset{Input: runner.ParquetInput{Path: e.parquet("ok.parquet", ordersSelect(allValidRows))},
			Output: runner.ParquetOutput{Path: e.path("ok", "orders.parquet")}}, runner.Options{RowSample: 1}, []string{"-- copy the input file "}},
		{"aborted", runner.Asset{Input: runner.ParquetInput{Path: e.parquet("bad.parquet", ordersSelect(oneInvalidRows))},
			Output: runner.ParquetOutput{Path: e.path("bad", "orders.parquet")}}, runner.Options{}, nil},
	} {
		if !pick(c.name) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			if c.a.Plan == nil {
				p, err := compile.Compile(ordersSchema())
				require.NoError(t, err)
				c.a.Plan = p
			}
			explainer, err := duckdb.Open(duckdb.Config{})
			require.NoError(t, err)
			defer explainer.Close()
			text, err := explainer.ExplainAsset(context.Background(), c.a, c.opts)
			require.NoError(t, err)

			var trace bytes.Buffer
			runner, err := duckdb.Open(duckdb.Config{Trace: &trace, TraceFull: true})
			require.NoError(t, err)
			defer runner.Close()
			rep, _ := runner.Run(context.Background(), c.a, c.opts)
			require.NotNil(t, rep.Outcome, "the run reached its outcome: %+v", rep.Error)
			stmts := checkTraceIsProgram(t, text, trace.String())
			if strings.Contains(text, "raise the threads") {
				// A fresh engine's database: nothing else raised them, so the run does and gives them back.
				c.writes = append(c.writes, "SET threads = 3", "SET threads = $1")
			}
			for _, w := range c.writes {
				found := false
				for _, s := range stmts {
					found = found || strings.Contains(s, w)
				}
				assert.True(t, found, "the write's %q is in the program's trace:\n%s", w, strings.Join(stmts, "\n"))
			}
		})
	}
}

// checkTraceIsProgram checks that every statement of the traced run is a step of the explained
// program, in its order (the statements that opened the input, the probes, the program, its
// writes and cleanup), but for the run's settings, which explain summarises in its first line
// (sessionStatement); that a step that did not run is conditional; and that every unconditional
// step ran. It returns the traced statements that are the program's steps.
func checkTraceIsProgram(t *testing.T, program, traced string) []string {
	t.Helper()
	require.True(t, strings.HasPrefix(program, "-- Besides these statements, the run reads DuckDB's settings"), "explain's first line summarises the settings:\n%s", program)
	steps := explainedSteps(t, program)
	next := 0 // the next step
	ran := map[int]bool{}
	var matched []string
	for _, line := range strings.Split(strings.TrimSpace(traced), "\n") {
		m := traceLine.FindStringSubmatch(line)
		require.NotNil(t, m, "not a trace line: %q", line)
		stmt := m[1]
		k := -1
		for j := next; j < len(steps); j++ {
			if steps[j].sql == stmt {
				k = j
				break
			}
			if !steps[j].conditional() {
				break // an unconditional step comes first
			}
		}
		if k < 0 {
			assert.True(t, notStatement(stmt) || sessionStatement(stmt), "a statement the explained program does not show (the next step is %d of %d):\n%s", next+1, len(steps), stmt)
			continue
		}
		ran[k] = true
		matched = append(matched, stmt)
		next = k + 1
	}
	for j, s := range steps {
		if !ran[j] {
			assert.True(t, s.conditional(), "unconditional step %q did not run", s.header)
		}
	}
	assert.Positive(t, len(ran), "steps ran")
	return matched
}

// sessionStatement is a statement explain summarises in its first line: the settings a run
// reads and sets when it opens, and gives back when it closes, and what it closes (the input's
// temp tables, its attached databases).
func sessionStatement(stmt string) bool {
	for _, prefix := range []string{"SELECT CAST(current_setting(", "SELECT current_setting(", "SET SESSION perfect_ht_threshold", "RESET SESSION perfect_ht_threshold",
		"SET threads = $1", `DROP TABLE IF EXISTS temp.main."__tg_`, `DROP VIEW IF EXISTS "temp"."main"."__tg_ref_`, "DETACH DATABASE IF EXISTS "} {
		if strings.HasPrefix(stmt, prefix) {
			return true
		}
	}
	return false
}
