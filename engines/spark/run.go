// Package spark runs a tablegate schema on Apache Spark through Spark Connect: the column-type
// check before any row is read, one boolean column per rule (the Spark dialect of package
// compile/spark), counts, samples, the six outcomes, checks and report, and the valid rows and
// the quarantine written as Parquet directories swapped in only after Spark finished them.
//
// It is a module of its own so that gRPC and the Spark Connect client stay out of the
// DuckDB-only build.
package spark

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	dialect "github.com/tablegate/tablegate/compile/spark"
	"github.com/tablegate/tablegate/exec"
	"github.com/tablegate/tablegate/outcome"
)

// asset is a run's asset as the Spark engine reads it: the input (a Parquet file or directory,
// a path or a file:// URL; "" the skipped outcome) and the output directory ("" none), both
// on a filesystem this process and the Spark driver see.
type asset struct {
	Plan          *compile.Plan
	Input, Output string
	Quarantine    bool
}

// sessionConf pins what the dialect's results depend on, whatever the server's defaults are.
var sessionConf = [][2]string{
	{"spark.sql.session.timeZone", "UTC"},
	{"spark.sql.ansi.enabled", "true"},
	{"spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS"},
	{"spark.sql.caseSensitive", "true"},
	// The dialect escapes backslashes in string literals (regexes, is_in values) as Spark's
	// default parser reads them; the legacy setting would read them as written.
	{"spark.sql.parser.escapedStringLiterals", "false"},
}

// Engine runs assets on one Spark Connect server.
type Engine struct {
	connect func(ctx context.Context) (Session, error)
}

// New returns an engine that opens a session on remote (sc://HOST:PORT) for each run.
func New(remote string) *Engine {
	return &Engine{connect: func(ctx context.Context) (Session, error) { return Connect(ctx, remote) }}
}

// NewWith returns an engine over sessions that connect opens (another Spark client).
func NewWith(connect func(ctx context.Context) (Session, error)) *Engine {
	return &Engine{connect: connect}
}

type run struct {
	s    Session
	id   string
	prog *dialect.Program
}

// Run validates the asset and applies the failure policy, as the DuckDB engine does, with the
// same report (its duckdb_version empty). The report is always returned; the error is typed for
// the failing outcomes. The asset's input is an exec.ParquetInput (a Parquet file or a
// directory of Parquet files) and its output an exec.ParquetOutput (a directory of part
// files); what Spark cannot run, of the asset and of opts, is refused before anything runs
// (*RefusedError).
//
// Cancelling ctx interrupts the session's operations on the server (Spark Connect's Interrupt)
// and stops the run; nothing is swapped into place after a cancellation.
func (e *Engine) Run(ctx context.Context, ea exec.Asset, opts exec.Options) (*outcome.Report, error) {
	p := ea.Plan
	rep, done := opts.Begin(ea)
	defer done()
	rep.DuckDBVersion = ""
	if err := refuse(ea, opts); err != nil {
		return rep, fail(rep, err)
	}
	for _, name := range []string{ea.Name, ea.QuarantineName} {
		// A name makes the quarantine's path: no separators, no "..".
		if name != "" {
			if err := exec.CheckAssetName(name); err != nil {
				return rep, fail(rep, err)
			}
		}
	}
	a := asset{Plan: p, Quarantine: ea.Quarantine}
	if in, ok := ea.Input.(exec.ParquetInput); ok {
		a.Input = in.Path
		if _, local, err := fileURL(in.Path); err == nil && local != "" && opts.SkipMissing {
			if _, err := os.Stat(local); errors.Is(err, os.ErrNotExist) {
				a.Input = "" // no source data: skipped
			}
		}
	}
	if out, ok := ea.Output.(exec.ParquetOutput); ok {
		// Absolute as the input is: Spark would read a relative path against its own working
		// directory, or a "file://dir/…" URL as a host. Checked writable before any work.
		abs, err := outputDir(out.Path)
		if err != nil {
			return rep, fail(rep, &outcome.OutputError{Output: out.Path, Err: err})
		}
		a.Output, ea.Output = abs, exec.ParquetOutput{Path: abs}
		rep.Table.Address = a.Output
		if a.Quarantine {
			rep.Quarantine.Address = ea.QuarantineAddress(rep.Asset)
		}
	} else if a.Quarantine {
		return rep, fail(rep, fmt.Errorf("a quarantine needs an output to sit beside"))
	}
	prog, err := dialect.CompileContext(ctx, p)
	if err != nil {
		return rep, fail(rep, err)
	}
	if a.Output != "" {
		for _, target := range []string{a.Output, rep.Quarantine.Address} {
			if target == "" {
				continue
			}
			if err := recoverSwap(target); err != nil {
				return rep, fail(rep, &outcome.OutputError{Output: a.Output, Err: err})
			}
		}
	}
	if a.Input == "" {
		out := outcome.Skipped
		rep.Outcome = &out
		rep.Checks = buildChecks(prog, a, nil, nil)
		rep.Health = outcome.HealthOf(rep.Checks)
		return rep, nil
	}
	inputURL, local, err := fileURL(a.Input)
	if err != nil {
		return rep, fail(rep, &outcome.InputError{Input: a.Input, Err: err})
	}
	singleFile := false
	if local != "" {
		files, err := parquetFiles(local)
		singleFile = len(files) == 1
		if err != nil {
			return rep, fail(rep, &outcome.InputError{Input: a.Input, Err: err})
		}
		if err := storedTypes(files, p.Schema().Columns); err != nil {
			return rep, typesRefused(rep, p, a.Input, err)
		}
	}

	s, err := e.connect(ctx)
	if err != nil {
		return rep, fail(rep, err)
	}
	defer s.Close()
	r := &run{s: s, id: rep.RunID, prog: prog}
	// A cancelled run stops its server-side jobs: the client alone would leave them running.
	stop := context.AfterFunc(ctx, func() {
		ictx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Interrupt(ictx)
	})
	defer stop()
	defer r.cleanup()
	if local == "" {
		// An object store or HDFS: this process cannot open the files, Spark reads the footer.
		if err := remoteFooterTypes(ctx, s, inputURL, p.Schema().Columns); err != nil && ctx.Err() == nil {
			return rep, typesRefused(rep, p, a.Input, err)
		}
	}
	rep2, err := r.validate(ctx, a, opts, rep, inputURL, singleFile)
	if ctx.Err() != nil && err != nil {
		err = fmt.Errorf("%w (the Spark session's operations were interrupted)", ctx.Err())
		rep2.Outcome = nil
		return rep2, fail(rep2, err)
	}
	return rep2, err
}

// typesRefused reports a failed footer check: the column_schema_mismatch outcome for columns
// stored in a type Spark cannot carry, an input error otherwise.
func typesRefused(rep *outcome.Report, p *compile.Plan, input string, err error) error {
	var uc *UnsupportedColumnError
	if errors.As(err, &uc) {
		out := outcome.ColumnSchemaMismatch
		rep.Outcome = &out
		rep.Checks = []outcome.Check{columnsCheck(p, uc.Mismatches)}
		rep.Health = outcome.HealthOf(rep.Checks)
		return fail(rep, err)
	}
	return fail(rep, &outcome.InputError{Input: input, Err: err})
}

func (r *run) validate(ctx context.Context, a asset, opts exec.Options, rep *outcome.Report, input string, singleFile bool) (*outcome.Report, error) {
	p := a.Plan
	for _, kv := range sessionConf {
		if err := r.s.Exec(ctx, fmt.Sprintf("SET %s=%s", kv[0], kv[1])); err != nil {
			return rep, fail(rep, fmt.Errorf("configure the Spark session: %w", err))
		}
	}
	// The row ordinal: a file's row index, after the files in name order (Spark lists a
	// directory's files in that order; row_index counts within one file).
	src := fmt.Sprintf("parquet.%s", dialect.Ident(input))
	if err := r.s.Exec(ctx, fmt.Sprintf("CREATE OR REPLACE TEMPORARY VIEW __tg_raw AS SELECT *, _metadata.file_path AS __tg_file, _metadata.row_index AS __tg_row FROM %s", src)); err != nil {
		return rep, fail(rep, &outcome.InputError{Input: a.Input, Err: err})
	}
	types, err := r.s.Rows(ctx, "DESCRIBE QUERY SELECT * FROM "+src)
	if err != nil {
		return rep, fail(rep, &outcome.InputError{Input: a.Input, Err: err})
	}
	var actual []casting.ColumnType
	for _, row := range types {
		name, _ := row[0].(string)
		typ, _ := row[1].(string)
		if name == compile.RowIDColumn {
			return rep, fail(rep, &outcome.InputError{Input: a.Input, Err: fmt.Errorf("the input has a column %s, the name tablegate gives the row ordinal", name)})
		}
		actual = append(actual, casting.ColumnType{Name: name, Type: typ})
	}
	if mm := casting.CheckColumnsWith(p.Schema().Columns, actual, casting.ParseSparkType); len(mm) > 0 {
		out := outcome.ColumnSchemaMismatch
		rep.Outcome = &out
		rep.Checks = []outcome.Check{columnsCheck(p, mm)}
		rep.Health = outcome.HealthOf(rep.Checks)
		return rep, fail(rep, &outcome.ColumnSchemaError{Schema: p.Name, Mismatches: mm})
	}
	ordinal, err := "__tg_row", error(nil)
	if !singleFile {
		ordinal, err = r.ordinalSQL(ctx)
	}
	if err != nil {
		return rep, fail(rep, &outcome.InputError{Input: a.Input, Err: err})
	}
	if err := r.s.Exec(ctx, fmt.Sprintf("CREATE OR REPLACE TEMPORARY VIEW __tg_input AS SELECT *, %s AS %s FROM __tg_raw", ordinal, dialect.RowID)); err != nil {
		return rep, fail(rep, &outcome.InputError{Input: a.Input, Err: err})
	}
	// Spark's analyzer checks the custom SQL: it must type each as BOOLEAN.
	if err := r.s.Exec(ctx, "CREATE OR REPLACE TEMPORARY VIEW __tg_src AS SELECT * FROM __tg_input"); err != nil {
		return rep, fail(rep, err)
	}
	var problems []error
	for i, rule := range r.prog.Rules {
		if !rule.Custom {
			continue
		}
		rows, err := r.s.Rows(ctx, "DESCRIBE QUERY "+rule.Probe)
		switch {
		case err != nil:
			problems = append(problems, fmt.Errorf("rule '%s': Spark cannot run its SQL %s: %w", p.Rules[i].Name, rule.Expr, err))
		case len(rows) != 1 || fmt.Sprint(rows[0][1]) != "boolean":
			typ := "no column"
			if len(rows) > 0 {
				typ = fmt.Sprint(rows[0][1])
			}
			problems = append(problems, fmt.Errorf("rule '%s': its Spark SQL %s is %s, not a boolean", p.Rules[i].Name, rule.Expr, typ))
		}
		if ctx.Err() != nil {
			return rep, fail(rep, ctx.Err())
		}
	}
	if len(problems) > 0 {
		return rep, fail(rep, &CustomSQLError{Schema: p.Name, Problems: problems})
	}

	// Evaluate once: every later step reads the cached rule columns.
	if err := r.s.Exec(ctx, "CACHE TABLE __tg_flagged AS "+r.prog.Query("__tg_input")); err != nil {
		return rep, fail(rep, fmt.Errorf("evaluate the rules on Spark: %w", err))
	}
	counts := []string{"count(*)", fmt.Sprintf("count_if(NOT %s)", r.prog.ValidExpr(true))}
	for _, rule := range r.prog.Rules {
		counts = append(counts, fmt.Sprintf("count_if(NOT %s)", dialect.Ident(rule.Name)))
	}
	rows, err := r.s.Rows(ctx, "SELECT "+strings.Join(counts, ", ")+" FROM __tg_flagged")
	if err != nil {
		return rep, fail(rep, fmt.Errorf("count rule failures: %w", err))
	}
	if len(rows) != 1 || len(rows[0]) != len(counts) {
		return rep, fail(rep, fmt.Errorf("count rule failures: Spark returned %d rows", len(rows)))
	}
	vals := make([]int64, len(counts))
	for i, v := range rows[0] {
		n, ok := v.(int64)
		if !ok {
			return rep, fail(rep, fmt.Errorf("count rule failures: a count is %T", v))
		}
		vals[i] = n
	}
	total, invalid, failed := vals[0], vals[1], vals[2:]
	rep.Rows = outcome.Rows{Input: total, Invalid: invalid, Valid: total - invalid}

	policy := outcome.PolicyAbort
	if a.Quarantine {
		policy = outcome.PolicyQuarantine
	}
	out := outcome.Decide(total, invalid, policy)
	rep.Outcome = &out
	samples, err := r.failureSamples(ctx, failed, opts.Samples())
	if err != nil {
		return rep, fail(rep, fmt.Errorf("sample failing rows: %w", err))
	}
	if invalid > 0 {
		if rep.InvalidByRules, err = r.invalidByRules(ctx); err != nil {
			return rep, fail(rep, err)
		}
	}
	rep.Checks = buildChecks(r.prog, a, failed, samples)
	rep.Health = outcome.HealthOf(rep.Checks)

	if a.Output != "" && out != outcome.Aborted {
		w := writes{table: a.Output, quarantine: rep.Quarantine.Address}
		if out != outcome.NoValidRows {
			w.tableSQL = fmt.Sprintf("SELECT %s FROM __tg_flagged WHERE %s ORDER BY %s", r.columns(), r.prog.ValidExpr(true), dialect.RowID)
		}
		if invalid > 0 && a.Quarantine {
			w.quarantineSQL = r.quarantineSQL()
		} else if a.Quarantine {
			w.keepQuarantine = true
		}
		kept, err := r.write(ctx, w)
		if err != nil {
			rep.Outcome = nil
			return rep, fail(rep, &outcome.OutputError{Output: a.Output, Err: err})
		}
		if kept != "" {
			opts.Warn(rep, fmt.Sprintf("the previous quarantine %s is kept as %s: this run found no invalid rows", w.quarantine, kept))
		}
		rep.Table.Written = w.tableSQL != ""
		rep.Quarantine.Written = w.quarantineSQL != ""
		if rep.Quarantine.Written {
			rep.Quarantine.Rows = invalid
			outcome.MarkErrorRows(rep.Checks, rep.Quarantine.Address)
		}
	}
	var errCounts []outcome.RuleCount
	for i, rule := range p.Rules {
		if rule.IsError() && failed[i] > 0 {
			errCounts = append(errCounts, outcome.RuleCount{Rule: rule.Name, Count: failed[i]})
		}
	}
	switch out {
	case outcome.Aborted:
		return rep, fail(rep, &outcome.ValidationAbortError{Schema: p.Name, Invalid: invalid, Counts: errCounts})
	case outcome.NoValidRows:
		return rep, fail(rep, &outcome.NoValidRowsError{Schema: p.Name, Rows: total, Counts: errCounts, Quarantine: rep.Quarantine.Address})
	}
	return rep, nil
}

// ordinalSQL is the row ordinal over __tg_raw: the row index, offset by the rows of the files
// before it in name order. The per-file counts come from the Parquet footers through Spark.
func (r *run) ordinalSQL(ctx context.Context) (string, error) {
	rows, err := r.s.Rows(ctx, "SELECT __tg_file, count(*) FROM __tg_raw GROUP BY __tg_file ORDER BY __tg_file")
	if err != nil {
		return "", err
	}
	if len(rows) <= 1 {
		return "__tg_row", nil
	}
	var b strings.Builder
	b.WriteString("__tg_row + CASE __tg_file")
	var offset int64
	for _, row := range rows {
		f, _ := row[0].(string)
		n, _ := row[1].(int64)
		fmt.Fprintf(&b, " WHEN %s THEN %d", dialect.String(f), offset)
		offset += n
	}
	b.WriteString(" END")
	return b.String(), nil
}

func (r *run) columns() string {
	cols := make([]string, len(r.prog.Plan.Columns))
	for i, c := range r.prog.Plan.Columns {
		cols[i] = dialect.Ident(c.Name)
	}
	return strings.Join(cols, ", ")
}

// quarantineSQL selects the invalid rows with one valid/invalid column per rule, in input order.
func (r *run) quarantineSQL() string {
	var b strings.Builder
	b.WriteString("SELECT " + r.columns())
	for i, rule := range r.prog.Rules {
		fmt.Fprintf(&b, ", CASE WHEN %s THEN 'valid' ELSE 'invalid' END AS %s", dialect.Ident(rule.Name), dialect.Ident(r.prog.Plan.Rules[i].Check))
	}
	fmt.Fprintf(&b, " FROM __tg_flagged WHERE NOT %s ORDER BY %s", r.prog.ValidExpr(true), dialect.RowID)
	return b.String()
}

// failureSamples reads the first n failing rows of each failing rule, in input order, as JSON.
func (r *run) failureSamples(ctx context.Context, failed []int64, n int) (map[int][]json.RawMessage, error) {
	out := map[int][]json.RawMessage{}
	if n <= 0 {
		return out, nil
	}
	// to_json drops NULL fields unless told not to; DuckDB's keeps them.
	row := fmt.Sprintf("to_json(named_struct(%s), map('ignoreNullFields', 'false'))", namedFields(r.prog.Plan.Columns))
	for i, rule := range r.prog.Rules {
		if failed[i] == 0 {
			continue
		}
		rows, err := r.s.Rows(ctx, fmt.Sprintf("SELECT %s FROM __tg_flagged WHERE NOT %s ORDER BY %s LIMIT %d", row, dialect.Ident(rule.Name), dialect.RowID, n))
		if err != nil {
			return nil, err
		}
		for _, v := range rows {
			text, _ := v[0].(string)
			if !json.Valid([]byte(text)) {
				text = fmt.Sprintf("%q", text)
			}
			out[i] = append(out[i], json.RawMessage(text))
		}
	}
	return out, nil
}

func namedFields(cols []compile.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = dialect.String(c.Name) + ", " + dialect.Ident(c.Name)
	}
	return strings.Join(parts, ", ")
}

// invalidByRules counts the invalid rows by the exact set of rules each failed.
func (r *run) invalidByRules(ctx context.Context) ([]outcome.RuleSet, error) {
	type named struct{ name, check string }
	rules := make([]named, len(r.prog.Rules))
	for i, rule := range r.prog.Rules {
		rules[i] = named{rule.Name, r.prog.Plan.Rules[i].Check}
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].check < rules[j].check })
	parts := make([]string, len(rules))
	for i, rule := range rules {
		parts[i] = fmt.Sprintf("CASE WHEN NOT %s THEN %s END", dialect.Ident(rule.name), dialect.String(rule.check))
	}
	q := fmt.Sprintf("SELECT rules, count(*) AS n FROM (SELECT concat_ws(', ', %s) AS rules FROM __tg_flagged WHERE NOT %s) GROUP BY rules ORDER BY n DESC, rules",
		strings.Join(parts, ", "), r.prog.ValidExpr(true))
	rows, err := r.s.Rows(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("count invalid rows by rules: %w", err)
	}
	out := []outcome.RuleSet{}
	for _, row := range rows {
		s, _ := row[0].(string)
		n, _ := row[1].(int64)
		out = append(out, outcome.RuleSet{Rules: s, Count: n})
	}
	return out, nil
}

// cleanup drops what the run made in its session; a session left behind would keep its cache
// on the server until the session times out.
func (r *run) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = r.s.Exec(ctx, "UNCACHE TABLE IF EXISTS __tg_flagged")
	for _, v := range []string{"__tg_src", "__tg_input", "__tg_raw"} {
		_ = r.s.Exec(ctx, "DROP VIEW IF EXISTS "+v)
	}
}

// CustomSQLError means Spark's analyzer refused a custom rule's Spark SQL, or typed it other than
// BOOLEAN. Nothing was read or written.
type CustomSQLError struct {
	Schema   string
	Problems []error
}

func (e *CustomSQLError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Error()
	}
	return fmt.Sprintf("%s cannot run on Spark: %s. Fix the rules' spark: forms.", e.Schema, strings.Join(parts, "; "))
}

func (e *CustomSQLError) Unwrap() []error { return e.Problems }

// RefusedError is what a Spark run cannot do, of its asset or options; nothing ran.
type RefusedError struct {
	What    string // what Spark cannot do: "read CSV inputs"
	Instead string // what the user can do instead
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the Spark engine cannot %s: %s", e.What, e.Instead)
}

// refuse returns the first of the asset's inputs, outputs and the options a Spark run cannot
// honour.
func refuse(a exec.Asset, opts exec.Options) error {
	switch a.Input.(type) {
	case nil, exec.ParquetInput:
	default:
		return &RefusedError{What: fmt.Sprintf("read %T inputs", a.Input), Instead: "give it Parquet (a file or a directory of files), or validate with the DuckDB engine"}
	}
	switch a.Output.(type) {
	case nil, exec.ParquetOutput:
	default:
		return &RefusedError{What: "write DuckDB tables", Instead: "write a Parquet directory (--out DIR), or validate with the DuckDB engine"}
	}
	switch {
	case opts.Cast:
		return &RefusedError{What: "cast columns (--cast)", Instead: "write the input with the declared types, or validate with the DuckDB engine"}
	case opts.RowSample > 0:
		return &RefusedError{What: "sample valid and invalid rows (--row-sample)", Instead: "leave it out; each failing check still shows its failing rows"}
	case opts.Granularity != "" && opts.Granularity != exec.PerRule:
		return &RefusedError{What: fmt.Sprintf("report checks per %s (--granularity)", opts.Granularity), Instead: "it reports one check per rule"}
	}
	return nil
}

func fail(rep *outcome.Report, err error) error {
	rep.Error = &outcome.ErrorInfo{Type: outcome.TypeName(err), Message: err.Error()}
	rep.Health = outcome.Degraded
	return err
}

// fileURL turns the input into the URL Spark reads and, for a local path, the path this process
// checks the Parquet footers of ("" for a remote URL such as hdfs:// or s3a://).
func fileURL(in string) (string, string, error) {
	if u, err := url.Parse(in); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		if u.Scheme == "file" {
			return in, u.Path, nil
		}
		return in, "", nil
	}
	abs, err := filepath.Abs(in)
	if err != nil {
		return "", "", err
	}
	// Unescaped: Spark reads the path as Hadoop's Path does, which does not decode %XX.
	return "file://" + abs, abs, nil
}

// outputDir is the absolute local path of an output (a path or a file:// URL), after checking
// that its folder can be made and written to: a run that cannot write finds it out before it
// validates anything.
func outputDir(out string) (string, error) {
	path := out
	if u, err := url.Parse(out); err == nil && len(u.Scheme) > 1 {
		if u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
			return "", fmt.Errorf("the Spark engine writes only to paths this process and the Spark driver share, not to %s", out)
		}
		path = u.Path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("make the output's folder: %w", err)
	}
	probe, err := os.CreateTemp(parent, ".tg-probe-*")
	if err != nil {
		return "", fmt.Errorf("the output's folder cannot be written: %w", err)
	}
	probe.Close()
	return abs, os.Remove(probe.Name())
}

// ColumnsCheckName is the name of the column-schema check.
const ColumnsCheckName = "dy_schema__columns"

// columnsCheck is dy_schema__columns, failing with the columns that do not match (none: it
// passed).
func columnsCheck(p *compile.Plan, mm []casting.Mismatch) outcome.Check {
	cols := make([]string, len(mm))
	for i, m := range mm {
		cols[i] = m.Column
	}
	return outcome.Check{
		Name: ColumnsCheckName, Passed: len(mm) == 0, Severity: outcome.SeverityError, Declared: outcome.SeverityError, Blocking: true,
		Description: fmt.Sprintf("Columns and dtypes match %s.", p.Name), Mismatches: mm,
		ResultDescription: outcome.ColumnsDescription(cols),
	}
}

// buildChecks reports the column-schema check and one check per rule, as the DuckDB engine's
// per-rule granularity does, under the same contract (outcome's severity, keys and descriptions).
func buildChecks(prog *dialect.Program, a asset, failed []int64, samples map[int][]json.RawMessage) []outcome.Check {
	p := prog.Plan
	checks := []outcome.Check{columnsCheck(p, nil)}
	for i, rule := range p.Rules {
		var n int64
		if failed != nil {
			n = failed[i]
		}
		c := outcome.Check{
			Name: rule.Check, Passed: n == 0, Severity: outcome.FailedSeverity(rule.IsError() && n > 0),
			Declared: outcome.FailedSeverity(rule.IsError()), Blocking: outcome.Blocks(a.Quarantine, rule.IsError()), Description: rule.Description,
			ResultDescription: outcome.RowsDescription(n), Rule: rule.Name, Expr: prog.Rules[i].Expr,
			Failed: n, Samples: samples[i],
		}
		checks = append(checks, c)
	}
	return checks
}
