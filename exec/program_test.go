package exec_test

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
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

// sink reports whether the step's rows go to the sink, which wraps the statement in its own.
func (s explainedStep) sink() bool { return strings.Contains(s.header, "to the sink") }

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

// tuning is a statement the engine runs for speed around the program's (threads for the key
// aggregates), which no program holds.
func tuning(stmt string) bool {
	for _, prefix := range []string{"SET threads = ", "SELECT CAST(current_setting('threads') AS BIGINT)", "SET SESSION perfect_ht_threshold = "} {
		if strings.HasPrefix(stmt, prefix) {
			return true
		}
	}
	return false
}

// TestExplainIsWhatRuns: explain prints the program a run executes, statement for statement.
// For each input and sink, the statements a traced run executes between opening its input and
// handing rows to its sink are the explained program's, in its order, but for steps whose
// condition did not hold and the engine's thread tuning; every unconditional step runs; and the
// sink writes exactly the rows of the program's valid and invalid rows statements. The two
// engines are fresh, so that the run's temp names (which carry the run's number) agree.
func TestExplainIsWhatRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	glob := filepath.Join(e.path("files"), "*.parquet")
	e.parquet(filepath.Join("files", "a.parquet"), ordersSelect(mixedRows))
	e.parquet(filepath.Join("files", "b.parquet"), ordersSelect(`('z', 7.0, NULL), ('a', 1.0, NULL)`))
	db := e.path("wh.duckdb")
	e.table(db, "raw", ordersSelect(mixedRows))
	for _, c := range []struct {
		name string
		a    exec.Asset
		opts exec.Options
	}{
		{"parquet to parquet, quarantined", exec.Asset{Input: exec.ParquetInput{Path: e.parquet("in.parquet", ordersSelect(mixedRows))},
			Output: exec.ParquetOutput{Path: e.path("out", "orders.parquet")}, Quarantine: true}, exec.Options{RowSample: 2}},
		{"table to table, quarantined", exec.Asset{Input: exec.TableInput{File: db, Table: "raw"},
			Output: exec.TableOutput{File: e.path("out.duckdb"), Table: "orders"}, Quarantine: true}, exec.Options{}},
		{"files in place, per column", exec.Asset{Input: exec.ParquetInput{Path: glob}}, exec.Options{Granularity: exec.PerColumn}},
		{"all valid to parquet", exec.Asset{Input: exec.ParquetInput{Path: e.parquet("ok.parquet", ordersSelect(allValidRows))},
			Output: exec.ParquetOutput{Path: e.path("ok", "orders.parquet")}}, exec.Options{RowSample: 1}},
		{"aborted", exec.Asset{Input: exec.ParquetInput{Path: e.parquet("bad.parquet", ordersSelect(oneInvalidRows))},
			Output: exec.ParquetOutput{Path: e.path("bad", "orders.parquet")}}, exec.Options{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := compile.Compile(ordersSchema())
			require.NoError(t, err)
			c.a.Plan = p
			explainer, err := exec.Open(exec.Config{Threads: 2})
			require.NoError(t, err)
			defer explainer.Close()
			text, err := explainer.ExplainAsset(context.Background(), c.a, c.opts)
			require.NoError(t, err)
			steps := explainedSteps(t, text)

			var trace bytes.Buffer
			runner, err := exec.Open(exec.Config{Threads: 2, Trace: &trace, TraceFull: true})
			require.NoError(t, err)
			defer runner.Close()
			rep, _ := runner.Run(context.Background(), c.a, c.opts)
			require.NotNil(t, rep.Outcome, "the run reached its outcome: %+v", rep.Error)

			var stmts []string
			for _, line := range strings.Split(strings.TrimSpace(trace.String()), "\n") {
				m := traceLine.FindStringSubmatch(line)
				require.NotNil(t, m, "not a trace line: %q", line)
				stmts = append(stmts, m[1])
			}
			index := map[string][]int{}
			for i, s := range steps {
				index[s.sql] = append(index[s.sql], i)
			}
			next, first, last := 0, -1, -1 // the next step; the trace's first and last statements of the program
			ran := map[int]bool{}
			for i, stmt := range stmts {
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
				require.False(t, steps[k].sink(), "the sink's rows are wrapped in its own statement, not run: %s", stmt)
				for j := next; j < k; j++ {
					assert.True(t, steps[j].conditional(), "step %q did not run, and is unconditional", steps[j].header)
				}
				ran[k] = true
				next = k + 1
				if first < 0 {
					first = i
				}
				last = i
			}
			require.GreaterOrEqual(t, first, 0, "no statement of the program ran; program:\n%s\ntrace:\n%s", text, trace.String())
			for j, s := range steps {
				if !ran[j] && !s.sink() {
					assert.True(t, s.conditional(), "unconditional step %q did not run", s.header)
				}
			}
			for _, stmt := range stmts[first : last+1] {
				if len(index[stmt]) == 0 {
					assert.True(t, tuning(stmt), "a statement amid the program's that is not the program's: %s", stmt)
				}
			}
			// What the sink writes is the program's rows, wrapped: a COPY to a temporary file or a
			// CREATE TABLE in a transaction.
			var sinks []string
			for _, s := range steps {
				if s.sink() {
					sinks = append(sinks, s.sql)
				}
			}
			for _, stmt := range stmts[last+1:] {
				if strings.HasPrefix(stmt, "COPY (") || strings.HasPrefix(stmt, "CREATE OR REPLACE TABLE ") {
					found := false
					for _, s := range sinks {
						found = found || strings.Contains(stmt, s)
					}
					assert.True(t, found, "the sink writes rows no step of the program selects: %s", stmt)
				}
			}
			assert.Positive(t, len(ran), "steps ran")
		})
	}
}
