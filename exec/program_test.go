package exec_test

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/exec"
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

// TestExplainIsWhatRuns: explain prints the program a run executes, statement for statement.
// For each input and output, the statements a traced run executes between opening its input and
// closing are the explained program's, in its order, the writes included (the COPY to the
// temporary file, the table output's transaction), but for steps whose condition did not hold
// (the threads for the key aggregates are steps too, which run unless DuckDB has them); every
// unconditional step runs. The two engines are fresh, so that the run's temp names (which carry
// the run's number) agree; they have DuckDB's default threads, so that on up to 2 cores the key
// aggregates raise them.
func TestExplainIsWhatRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	glob := filepath.Join(e.path("files"), "*.parquet")
	e.parquet(filepath.Join("files", "a.parquet"), ordersSelect(mixedRows))
	e.parquet(filepath.Join("files", "b.parquet"), ordersSelect(`('z', 7.0, NULL), ('a', 1.0, NULL)`))
	db := e.path("wh.duckdb")
	e.table(db, "raw", ordersSelect(mixedRows))
	own := e.path("own.duckdb")
	e.table(own, "orders", ordersSelect(mixedRows))
	for _, c := range []struct {
		name string
		a    exec.Asset
		opts exec.Options
		// writes are statements of the write that must be in the trace.
		writes []string
	}{
		{"parquet to parquet, quarantined", exec.Asset{Input: exec.ParquetInput{Path: e.parquet("in.parquet", ordersSelect(mixedRows))},
			Output: exec.ParquetOutput{Path: e.path("out", "orders.parquet")}, Quarantine: true}, exec.Options{RowSample: 2},
			[]string{"COPY (SELECT s.", ".tablegate-"}},
		{"table to table, quarantined", exec.Asset{Input: exec.TableInput{File: db, Table: "raw"},
			Output: exec.TableOutput{File: e.path("out.duckdb"), Schema: "clean", Table: "orders"}, Quarantine: true}, exec.Options{},
			[]string{"ATTACH ", "BEGIN TRANSACTION", "CREATE SCHEMA IF NOT EXISTS ", `CREATE OR REPLACE TABLE "__tg_db1_1"."clean"."orders" AS SELECT`, "COMMIT"}},
		{"a table validated into itself", exec.Asset{Input: exec.TableInput{File: own, Table: "orders"},
			Output: exec.TableOutput{File: own, Table: "orders"}, Quarantine: true}, exec.Options{},
			[]string{"SELECT count(*) FROM duckdb_tables()", "COMMIT"}},
		{"files in place, per column", exec.Asset{Input: exec.ParquetInput{Path: glob}}, exec.Options{Granularity: exec.PerColumn}, nil},
		{"all valid to parquet", exec.Asset{Input: exec.ParquetInput{Path: e.parquet("ok.parquet", ordersSelect(allValidRows))},
			Output: exec.ParquetOutput{Path: e.path("ok", "orders.parquet")}}, exec.Options{RowSample: 1}, []string{"COPY (SELECT s."}},
		{"aborted", exec.Asset{Input: exec.ParquetInput{Path: e.parquet("bad.parquet", ordersSelect(oneInvalidRows))},
			Output: exec.ParquetOutput{Path: e.path("bad", "orders.parquet")}}, exec.Options{}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := compile.Compile(ordersSchema())
			require.NoError(t, err)
			c.a.Plan = p
			explainer, err := exec.Open(exec.Config{})
			require.NoError(t, err)
			defer explainer.Close()
			text, err := explainer.ExplainAsset(context.Background(), c.a, c.opts)
			require.NoError(t, err)

			var trace bytes.Buffer
			runner, err := exec.Open(exec.Config{Trace: &trace, TraceFull: true})
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

// checkTraceIsProgram checks that the traced statements between the program's first and last
// are the program's steps in order, and that every unconditional
// step ran; it returns the traced statements that are the program's steps.
func checkTraceIsProgram(t *testing.T, program, traced string) []string {
	t.Helper()
	steps := explainedSteps(t, program)
	var stmts []string
	for _, line := range strings.Split(strings.TrimSpace(traced), "\n") {
		m := traceLine.FindStringSubmatch(line)
		require.NotNil(t, m, "not a trace line: %q", line)
		stmts = append(stmts, m[1])
	}
	// The program starts after the count probe (compile.CountProbe), the last statement of
	// opening the input, whose reads (DuckDB's threads among them) it may repeat.
	probe := slices.IndexFunc(stmts, func(s string) bool { return strings.HasPrefix(s, "SELECT count(*)") })
	require.GreaterOrEqual(t, probe, 0, "no count probe in the trace:\n%s", traced)
	index := map[string][]int{}
	for i, s := range steps {
		index[s.sql] = append(index[s.sql], i)
	}
	next, first, last := 0, -1, -1 // the next step; the trace's first and last statements of the program
	ran := map[int]bool{}
	var matched []string
	for i, stmt := range stmts {
		if i <= probe {
			continue
		}
		k := -1
		for _, j := range index[stmt] {
			if j >= next {
				k = j
				break
			}
		}
		if k < 0 {
			continue
		}
		for j := next; j < k; j++ {
			assert.True(t, steps[j].conditional(), "step %q did not run, and is unconditional", steps[j].header)
		}
		ran[k] = true
		matched = append(matched, stmt)
		next = k + 1
		if first < 0 {
			first = i
		}
		last = i
	}
	require.GreaterOrEqual(t, first, 0, "no statement of the program ran; program:\n%s\ntrace:\n%s", program, traced)
	for j, s := range steps {
		if !ran[j] {
			assert.True(t, s.conditional(), "unconditional step %q did not run", s.header)
		}
	}
	for _, stmt := range stmts[first : last+1] {
		if len(index[stmt]) == 0 {
			assert.True(t, notStatement(stmt), "a statement amid the program's that is not the program's: %s", stmt)
		}
	}
	assert.Positive(t, len(ran), "steps ran")
	return matched
}
