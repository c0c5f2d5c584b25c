package spark_test

import (
	"bytes"
	"context"
	gosql "database/sql"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablegate/tablegate/internal/pipes"
	"github.com/tablegate/tablegate/outcome"
)

// TestCLI builds tablegate and tablegate-spark side by side and runs `tablegate validate --engine
// spark`: tablegate delegates, and the exit statuses and JSON report are the CLI's.
func TestCLI(t *testing.T) {
	needSpark(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir, db, in, schemaFile := cliFixture(ctx, t)
	out := filepath.Join(dir, "out", "small.parquet")
	for _, tc := range []struct {
		extra []string
		code  int
		want  outcome.Outcome
	}{
		{[]string{"--out", out, "--quarantine"}, 0, outcome.Quarantined},
		{[]string{"--out", out}, 1, outcome.Aborted},
		// Relative to the working directory, as the input may be.
		{[]string{"--out", filepath.Join("rel", "small.parquet"), "--quarantine"}, 0, outcome.Quarantined},
	} {
		args := append([]string{"validate", "--engine", "spark", "--spark-remote", server.Remote, "--schema", schemaFile, "--input", in, "--format", "json"}, tc.extra...)
		cmd := osexec.CommandContext(ctx, filepath.Join(dir, "tablegate"), args...)
		cmd.Dir = dir
		stdout, err := cmd.Output()
		code := 0
		if ee, ok := err.(*osexec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var rep outcome.Report
		if jerr := json.Unmarshal(stdout, &rep); jerr != nil {
			t.Fatalf("%v: stdout is not a report (%v): %s", tc.extra, jerr, stdout)
		}
		if code != tc.code || rep.Outcome == nil || *rep.Outcome != tc.want {
			t.Errorf("%v: exit %d, outcome %v; want %d, %s", tc.extra, code, rep.Outcome, tc.code, tc.want)
		}
	}
	// explain --engine spark is delegated too: every statement of the Spark run.
	cmd := osexec.CommandContext(ctx, filepath.Join(dir, "tablegate"), "explain", "--engine", "spark", "--spark-remote", server.Remote,
		"--schema", schemaFile, "--input", in, "--out", out, "--quarantine")
	text, err := cmd.Output()
	if err != nil || !strings.HasPrefix(string(text), "-- Besides these statements, the run sets its Spark session") ||
		!strings.Contains(string(text), "INSERT OVERWRITE DIRECTORY") || !strings.Contains(string(text), "CACHE TABLE") {
		t.Errorf("explain --engine spark: %v\n%s", err, text)
	}
	for _, table := range []string{out, filepath.Join(dir, "rel", "small.parquet")} {
		if n := len(rowsOf(t, db, table)); n != 7 {
			t.Errorf("%s has %d rows, want 7", table, n)
		}
	}
}

// cliFixture builds tablegate and tablegate-spark side by side into a temporary folder, and
// writes there an input of 10 rows, 3 of them failing the schema file's amount >= 0.
func cliFixture(ctx context.Context, t *testing.T) (dir string, db *gosql.DB, in, schemaFile string) {
	t.Helper()
	dir = t.TempDir()
	for _, b := range [][]string{
		{"build", "-C", "../..", "-o", filepath.Join(dir, "tablegate"), "./cmd/tablegate"},
		{"build", "-o", filepath.Join(dir, "tablegate-spark"), "./cmd/tablegate-spark"},
	} {
		if out, err := osexec.CommandContext(ctx, "go", b...).CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", b, err, out)
		}
	}
	db = duck(t)
	in = filepath.Join(dir, "in.parquet")
	writeParquet(t, db, "SELECT i::BIGINT AS id, (i - 3)::DOUBLE AS amount FROM range(10) t(i)", in)
	schemaFile = filepath.Join(dir, "small.yaml")
	if err := os.WriteFile(schemaFile, []byte(outcomeSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, db, in, schemaFile
}

// TestCLIUnderDagster runs `tablegate validate --engine spark` as Dagster's
// PipesSubprocessClient launches it (context file, messages file) and compares the Pipes
// messages with those of the same run on DuckDB: the same checks, materialization metadata,
// report and closing exception, and the same exit status.
func TestCLIUnderDagster(t *testing.T) {
	needSpark(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir, _, in, schemaFile := cliFixture(ctx, t)
	underDagster := func(engine string, args ...string) (int, []pipes.Message) {
		t.Helper()
		run := filepath.Join(dir, engine+"-"+strconv.Itoa(len(args)))
		if err := os.MkdirAll(run, 0o755); err != nil {
			t.Fatal(err)
		}
		ctxFile, msgFile := filepath.Join(run, "context"), filepath.Join(run, "messages")
		if err := os.WriteFile(ctxFile, []byte(`{"asset_keys": ["small"], "run_id": "r", "job_name": null, "retry_number": 0, "extras": {}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		ctxParam, err := pipes.EncodeParam(map[string]any{"path": ctxFile})
		if err != nil {
			t.Fatal(err)
		}
		msgParam, err := pipes.EncodeParam(map[string]any{"path": msgFile, "include_stdio_in_messages": false})
		if err != nil {
			t.Fatal(err)
		}
		args = append([]string{"validate", "--engine", engine, "--schema", schemaFile, "--input", in, "--out", filepath.Join(run, "small.parquet")}, args...)
		if engine == "spark" {
			args = append(args, "--spark-remote", server.Remote)
		}
		cmd := osexec.CommandContext(ctx, filepath.Join(dir, "tablegate"), args...)
		cmd.Env = append(os.Environ(), pipes.ContextVar+"="+ctxParam, pipes.MessagesVar+"="+msgParam)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*osexec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(msgFile)
		if err != nil {
			t.Fatalf("%s %v: no messages (%v)\n%s", engine, args, err, out)
		}
		msgs, err := pipes.ReadMessages(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return code, msgs
	}
	// What must be the same on both engines: each message's method, asset key, check name,
	// passed and severity, the metadata's keys and types and their values other than addresses
	// (each run writes its own folder) and rule expressions (each engine's SQL), the report's outcome, rows and check results, and the
	// closing exception's type.
	type check struct {
		Name, Severity string
		Passed         bool
	}
	type summary struct {
		Method, AssetKey string
		Check            check
		Metadata         map[string]string
		Outcome          any
		Rows             any
		Checks           []check
		Exception        string
	}
	summarize := func(msgs []pipes.Message) []summary {
		var out []summary
		for _, m := range msgs {
			s := summary{Method: m.Method}
			_ = json.Unmarshal(m.Params["asset_key"], &s.AssetKey)
			_ = json.Unmarshal(m.Params["check_name"], &s.Check.Name)
			_ = json.Unmarshal(m.Params["passed"], &s.Check.Passed)
			_ = json.Unmarshal(m.Params["severity"], &s.Check.Severity)
			var meta map[string]struct {
				Raw  any    `json:"raw_value"`
				Type string `json:"type"`
			}
			_ = json.Unmarshal(m.Params["metadata"], &meta)
			for k, v := range meta {
				if k == outcome.MetaFailingValues {
					continue // DuckDB's alone: the Spark engine does not count failing values (docs/spark.md)
				}
				if s.Metadata == nil {
					s.Metadata = map[string]string{}
				}
				raw, _ := json.Marshal(v.Raw)
				switch {
				case strings.HasSuffix(k, "_address"):
					raw = []byte(filepath.Base(fmt.Sprint(v.Raw)))
				case k == "dataframely/rule_expr":
					raw = nil // the SQL that ran: each engine's dialect
				}
				s.Metadata[k] = v.Type + " " + string(raw)
			}
			var payload struct {
				Report *struct {
					Outcome any `json:"outcome"`
					Rows    any `json:"rows"`
					Checks  []check
				} `json:"tablegate_report"`
			}
			if json.Unmarshal(m.Params["payload"], &payload) == nil && payload.Report != nil {
				s.Outcome, s.Rows, s.Checks = payload.Report.Outcome, payload.Report.Rows, payload.Report.Checks
			}
			var exc struct{ Name string }
			_ = json.Unmarshal(m.Params["exception"], &exc)
			s.Exception = exc.Name
			out = append(out, s)
		}
		return out
	}
	for _, tc := range []struct {
		name         string
		args         []string
		code         int
		materialized bool
	}{
		{"quarantined", []string{"--quarantine"}, 0, true},
		{"aborted", nil, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			duckCode, duckMsgs := underDagster("duckdb", tc.args...)
			sparkCode, sparkMsgs := underDagster("spark", tc.args...)
			if duckCode != tc.code || sparkCode != tc.code {
				t.Errorf("exit status: DuckDB %d, Spark %d; want %d", duckCode, sparkCode, tc.code)
			}
			duck, spark := summarize(duckMsgs), summarize(sparkMsgs)
			if len(spark) < 4 || spark[0].Method != "opened" || spark[len(spark)-1].Method != "closed" {
				t.Fatalf("Spark's messages are not a Pipes session: %+v", spark)
			}
			materialized := false
			for _, s := range spark {
				materialized = materialized || s.Method == "report_asset_materialization"
			}
			if materialized != tc.materialized {
				t.Errorf("Spark materialized: %v, want %v", materialized, tc.materialized)
			}
			if !reflect.DeepEqual(duck, spark) {
				dj, _ := json.MarshalIndent(duck, "", " ")
				sj, _ := json.MarshalIndent(spark, "", " ")
				t.Errorf("Pipes messages differ\nDuckDB: %s\nSpark: %s", dj, sj)
			}
		})
	}
}
