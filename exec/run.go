package exec

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mathbits "math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/buildinfo"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// Asset is what a run validates and writes.
type Asset struct {
	// Name names the asset; "" takes the output's base name, or the schema's name when
	// validating in place.
	Name string
	// QuarantineName names the quarantine beside the table; "" is <asset>_quarantine.
	// orders__error_rows is dagster-dataframely's name.
	QuarantineName string
	Plan           *compile.Plan
	// Input is the rows to validate; nil means no source data (the skipped outcome).
	Input Input
	// Output is the table; nil validates in place and writes nothing.
	Output Output
	// Quarantine declares a quarantine: invalid rows go there and the valid rows are written.
	Quarantine bool
}

// Granularity is how rule checks are reported.
type Granularity string

// Check granularities.
const (
	PerRule   Granularity = "rule"
	PerColumn Granularity = "column"
	PerSchema Granularity = "schema"
)

// Options tune a run. The zero value is the default.
type Options struct {
	// MaxFailureSamples caps the failing rows each check shows: 0 means 5, negative means none.
	MaxFailureSamples int
	// RowSample adds the first N valid and invalid rows to the report (0: none).
	RowSample int
	// Cast casts mismatched columns to their declared dtypes, strictly (a value that does not
	// convert fails the run with *outcome.CastError).
	Cast bool
	// SkipMissing turns an input that matches no data into the skipped outcome.
	SkipMissing bool
	// Granularity of the rule checks ("" is PerRule).
	Granularity Granularity
	// SchemaRulesPerRule gives schema-level rules their own checks at column granularity.
	SchemaRulesPerRule bool
	// Progress, when set, is told which phase a run is in.
	Progress func(Progress)
	// Warnings, when set, is written each warning of the run as it is added to the report, one
	// line each, starting "warning: ".
	Warnings io.Writer
	// Now is the clock the report's started_at and duration_s are read from (nil: time.Now).
	Now func() time.Time
	// RunID names the run in its report and history; "" draws one (its start time and a random
	// suffix).
	RunID string
}

// Progress reports a run's phase; Total is 0 when unknown.
type Progress struct {
	Phase string
	Rows  int64
}

func (o Options) samples() int {
	switch {
	case o.MaxFailureSamples == 0:
		return 5
	case o.MaxFailureSamples < 0:
		return 0
	}
	return o.MaxFailureSamples
}

func (o Options) progress(phase string, rows int64) {
	if o.Progress != nil {
		o.Progress(Progress{Phase: phase, Rows: rows})
	}
}

// ruleStats is what one evaluation tells about the rules.
type ruleStats struct {
	invalid int64   // rows failing an error rule
	failed  []int64 // per rule, rows failing it (warn rules included)
}

// Run validates the asset and applies the failure policy. The report is always returned (with
// the outcome when the run got that far); the error is typed for the failing outcomes
// (*outcome.ColumnSchemaError, *outcome.ValidationAbortError, *outcome.NoValidRowsError,
// *outcome.CastError) or is an input/output problem.
func (e *Engine) Run(ctx context.Context, a Asset, opts Options) (*outcome.Report, error) {
	p := a.Plan
	rep := NewReport(assetName(a), p.Name)
	start := opts.now()
	rep.RunID, rep.StartedAt = opts.runID(start), start.UTC().Format(time.RFC3339Nano)
	defer func() { rep.DurationS = opts.now().Sub(start).Seconds() }()
	if err := opts.validate(); err != nil {
		return rep, fail(rep, err)
	}
	if a.Name != "" {
		if err := CheckAssetName(a.Name); err != nil {
			return rep, fail(rep, err)
		}
	}
	if a.QuarantineName != "" {
		if err := checkQuarantineName(a); err != nil {
			return rep, fail(rep, err)
		}
	}
	if a.Output != nil {
		rep.Table.Address = a.Output.String()
		if a.Quarantine {
			rep.Quarantine.Address = a.Output.QuarantineAddress(quarantineName(a, rep.Asset))
		}
	} else if a.Quarantine {
		return rep, fail(rep, fmt.Errorf("a quarantine needs an output to sit beside"))
	}
	if a.Output != nil {
		if err := RecoverOutput(ctx, a.Output); err != nil {
			return rep, fail(rep, &outcome.OutputError{Output: a.Output.String(), Err: err})
		}
	}
	if a.Input == nil {
		return e.skipped(rep, a, opts), nil
	}

	r, err := e.newRun(ctx)
	if err != nil {
		return rep, fail(rep, err)
	}
	defer r.close()

	written := map[string]bool{}
	if t, ok := a.Output.(TableOutput); ok && t.File != "" {
		abs, _ := filepath.Abs(t.File)
		written[abs] = true
	}
	opts.progress("reading input", 0)
	rel, err := e.load(ctx, r, rep, a, opts, written)
	if errors.Is(err, ErrNoSourceData) && opts.SkipMissing {
		return e.skipped(rep, a, opts), nil
	}
	if err != nil {
		return rep, err
	}
	total, failedTable, stats, err := e.evaluateInput(ctx, r, a, rel, opts)
	if err != nil {
		return rep, fail(rep, err)
	}
	rep.Rows = outcome.Rows{Input: total, Invalid: stats.invalid, Valid: total - stats.invalid}

	var out outcome.Outcome
	switch {
	case stats.invalid == 0:
		out = outcome.AllValid
	case !a.Quarantine:
		out = outcome.Aborted
	case stats.invalid == total:
		out = outcome.NoValidRows
	default:
		out = outcome.Quarantined
	}
	rep.Outcome = &out
	if err := e.report(ctx, r, rep, a, opts, failedTable, stats); err != nil {
		return rep, fail(rep, err)
	}
	writing := a.Output != nil && out != outcome.Aborted
	var valid string
	if (writing && out != outcome.NoValidRows) || (opts.RowSample > 0 && stats.invalid < total) {
		if valid, err = e.validRows(ctx, r, p, rel, failedTable, stats.invalid > 0); err != nil {
			return rep, fail(rep, err)
		}
	}
	if opts.RowSample > 0 && stats.invalid < total {
		// report() samples the invalid rows from the failed-rows table; the valid ones come from
		// the input, bounded in SQL.
		q := fmt.Sprintf("SELECT %s FROM (%s LIMIT %d)", rowJSON(p, ""), valid, opts.RowSample)
		rows, err := rowsJSON(ctx, r, q)
		if err != nil {
			return rep, fail(rep, fmt.Errorf("sample valid rows: %w", err))
		}
		rep.ValidSample = rows
	}

	if writing {
		opts.progress("writing outputs", total)
		w := writes{quarantineName: quarantineName(a, rep.Asset), keepPrevious: readsOutput(a.Input, a.Output)}
		w.kept = func(quarantine, prev string) {
			why := "this run found no invalid rows"
			if w.quarantine != "" {
				why = "this run's input is its own table, so those rows exist nowhere else"
			}
			warn(rep, opts, fmt.Sprintf("the previous quarantine %s is kept as %s: %s", quarantine, prev, why))
		}
		_, parquet := a.Output.(ParquetOutput)
		if out != outcome.NoValidRows {
			w.table = valid
			if parquet && stats.invalid > 0 {
				w.tableRowGroup = r.validRowGroupSize(ctx, rel.RowGroups, invalidOrdinals(p, failedTable))
			}
		}
		if stats.invalid > 0 && a.Quarantine {
			w.quarantine = quarantineSQL(p, failedTable, parquet)
		} else {
			w.dropQuarantine = true
		}
		if err := a.Output.write(ctx, r, w); err != nil {
			// The run did not reach its outcome: like every exit-2 error, it has none.
			rep.Outcome = nil
			return rep, fail(rep, &outcome.OutputError{Output: a.Output.String(), Err: err})
		}
		rep.Table.Written = w.table != ""
		rep.Quarantine.Written = w.quarantine != ""
		if rep.Quarantine.Written {
			rep.Quarantine.Rows = stats.invalid
			outcome.MarkErrorRows(rep.Checks, rep.Quarantine.Address)
		}
	}

	counts := errorCounts(p, stats)
	switch out {
	case outcome.Aborted:
		return rep, fail(rep, &outcome.ValidationAbortError{Schema: p.Name, Invalid: stats.invalid, Counts: counts})
	case outcome.NoValidRows:
		return rep, fail(rep, &outcome.NoValidRowsError{Schema: p.Name, Rows: total, Counts: counts, Quarantine: rep.Quarantine.Address})
	}
	return rep, nil
}

// load opens the input and checks its column types against the schema, casting when asked. A
// mismatch is reported (rep gets the column_schema_mismatch outcome) and returned as the error.
func (e *Engine) load(ctx context.Context, r *run, rep *outcome.Report, a Asset, opts Options, written map[string]bool) (compile.Relation, error) {
	p := a.Plan
	rel, err := a.Input.open(ctx, r, written)
	if err != nil {
		if errors.Is(err, ErrNoSourceData) && opts.SkipMissing {
			return rel, err
		}
		return rel, fail(rep, &outcome.InputError{Input: a.Input.String(), Err: err})
	}
	actual, err := casting.Describe(ctx, r.conn, rel.From)
	if err != nil {
		return rel, fail(rep, &outcome.InputError{Input: a.Input.String(), Err: err})
	}
	var files []casting.Mismatch
	if in, ok := a.Input.(ParquetInput); ok {
		// A multi-file scan: DuckDB casts every file to one file's types without a word.
		if files, err = in.fileMismatches(ctx, r, p.Schema().Columns, actual); err != nil {
			return rel, fail(rep, &outcome.InputError{Input: a.Input.String(), Err: err})
		}
	}
	if len(files) == 0 && shadowsOrdinal(actual, rel) {
		// A real column named rowid (or file_row_number, file_index) hides the ordinal DuckDB
		// provides; copy the rows with an ordinal of our own instead.
		if rel, err = materialiseOrdered(ctx, r, rel.From); err != nil {
			return rel, fail(rep, &outcome.InputError{Input: a.Input.String(), Err: err})
		}
	}
	mismatches := casting.CheckColumns(p.Schema().Columns, actual)
	if len(mismatches) > 0 && opts.Cast && len(files) == 0 {
		if mismatches, err = e.applyCasts(ctx, r, p, &rel, mismatches); err != nil {
			return rel, fail(rep, err)
		}
	}
	mismatches = append(mismatches, files...)
	if len(mismatches) > 0 {
		return rel, e.columnMismatch(rep, p, mismatches, a.Input, actual)
	}
	return rel, nil
}

// evaluateInput counts the input's rows and evaluates the rules once.
func (e *Engine) evaluateInput(ctx context.Context, r *run, a Asset, rel compile.Relation, opts Options) (int64, string, ruleStats, error) {
	total, err := r.countInput(ctx, rel, a.Input)
	if err != nil {
		return 0, "", ruleStats{}, err
	}
	opts.progress("evaluating rules", total)
	failedTable, stats, err := e.evaluate(ctx, r, a.Plan, rel)
	if err != nil {
		return 0, "", stats, inputOrRun(a.Input, err)
	}
	return total, failedTable, stats, nil
}

// countInput counts the input's rows, which the run's perfect-hash threshold and key copy
// depend on (countedRows).
func (r *run) countInput(ctx context.Context, rel compile.Relation, in Input) (int64, error) {
	var rows int64
	if err := r.conn.QueryRowContext(ctx, "SELECT count(*) FROM "+rel.From).Scan(&rows); err != nil {
		return 0, &outcome.InputError{Input: in.String(), Err: err}
	}
	if err := r.countedRows(ctx, rows); err != nil {
		return 0, err
	}
	return rows, nil
}

func shadowsOrdinal(cols []casting.ColumnType, rel compile.Relation) bool {
	for _, c := range cols {
		switch strings.ToLower(c.Name) {
		case "rowid", "file_row_number", "file_index":
			if strings.Contains(rel.RowID, strings.ToLower(c.Name)) {
				return true
			}
		}
	}
	return false
}

// NewReport is the report of a run of the asset that has not started: no outcome, no checks,
// stamped with the versions of tablegate and of its DuckDB.
func NewReport(asset, schema string) *outcome.Report {
	return &outcome.Report{Asset: asset, Schema: schema, Checks: []outcome.Check{}, InvalidByRules: []outcome.RuleSet{},
		TablegateVersion: buildinfo.Tablegate(), DuckDBVersion: DuckDBVersion()}
}

func assetName(a Asset) string {
	switch {
	case a.Name != "":
		return a.Name
	case a.Output != nil:
		return a.Output.DefaultAssetName()
	}
	return a.Plan.Name
}

// warn adds a warning to the report and writes it to opts.Warnings.
func warn(rep *outcome.Report, opts Options, msg string) {
	rep.Warnings = append(rep.Warnings, msg)
	if opts.Warnings != nil {
		fmt.Fprintln(opts.Warnings, "warning: "+msg)
	}
}

// CheckAssetName refuses an asset name that is not a plain name: the quarantine's file is named
// after it, beside the table, and a path in it would put the file elsewhere.
func CheckAssetName(name string) error {
	if name == "." || strings.Contains(name, "..") || strings.ContainsAny(name, "/\\\x00") {
		return fmt.Errorf("asset name %q: use a plain name, without path separators or \"..\" (the quarantine is <name>_quarantine beside the table)", name)
	}
	return nil
}

// QuarantineName is the default name of an asset's quarantine.
func QuarantineName(asset string) string { return asset + "_quarantine" }

func quarantineName(a Asset, asset string) string {
	if a.QuarantineName != "" {
		return a.QuarantineName
	}
	return QuarantineName(asset)
}

// checkQuarantineName refuses a quarantine name that would put the file elsewhere or replace the
// table.
func checkQuarantineName(a Asset) error {
	name := a.QuarantineName
	if name == "." || strings.Contains(name, "..") || strings.ContainsAny(name, "/\\\x00") {
		return fmt.Errorf("quarantine name %q: use a plain name, without path separators or \"..\" (the quarantine goes beside the table)", name)
	}
	if !a.Quarantine {
		return fmt.Errorf("quarantine name %q given without a quarantine: declare one, or leave the name out", name)
	}
	if a.Output != nil && strings.EqualFold(a.Output.QuarantineAddress(name), a.Output.String()) {
		return fmt.Errorf("quarantine name %q: it is the table's own name; choose another, such as %s", name, QuarantineName(a.Output.DefaultAssetName()))
	}
	return nil
}

// readsOutput reports whether the input is the output's table itself.
func readsOutput(in Input, out Output) bool {
	switch o := out.(type) {
	case ParquetOutput:
		i, ok := in.(ParquetInput)
		if !ok {
			return false
		}
		target, err := os.Stat(o.Path)
		if err != nil {
			return false
		}
		matches, _ := filepath.Glob(i.Path)
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && os.SameFile(st, target) {
				return true
			}
		}
	case TableOutput:
		i, ok := in.(TableInput)
		if !ok || !strings.EqualFold(i.Table, o.Table) || !strings.EqualFold(cmp.Or(i.Schema, "main"), o.schemaName()) {
			return false
		}
		if i.File == "" || o.File == "" {
			return i.File == o.File
		}
		a, aerr := os.Stat(i.File)
		b, berr := os.Stat(o.File)
		return aerr == nil && berr == nil && os.SameFile(a, b)
	}
	return false
}

// fail records err in the report and returns it.
func fail(rep *outcome.Report, err error) error {
	rep.Error = &outcome.ErrorInfo{Type: outcome.TypeName(err), Message: err.Error()}
	if rep.Outcome != nil {
		rep.Health = outcome.HealthOf(rep.Checks)
	}
	return err
}

func inputOrRun(in Input, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &outcome.InputError{Input: in.String(), Err: err}
}

// skipped is the outcome for no source data: nothing is read or written, every check passes.
func (e *Engine) skipped(rep *outcome.Report, a Asset, opts Options) *outcome.Report {
	out := outcome.Skipped
	rep.Outcome = &out
	rep.Checks = buildChecks(a.Plan, a, opts, ruleStats{failed: make([]int64, len(a.Plan.Rules))}, nil, nil)
	rep.Health = outcome.HealthOf(rep.Checks)
	return rep
}

func (e *Engine) columnMismatch(rep *outcome.Report, p *compile.Plan, mm []casting.Mismatch, in Input, actual []casting.ColumnType) error {
	out := outcome.ColumnSchemaMismatch
	rep.Outcome = &out
	rep.Checks = []outcome.Check{columnsCheck(p, mm)}
	names := make([]string, len(actual))
	for i, c := range actual {
		names[i] = c.Name
	}
	return fail(rep, &outcome.ColumnSchemaError{Schema: p.Name, Mismatches: mm, Producer: producerOf(in), Columns: names})
}

// applyCasts casts the mismatched columns that exist, after checking that every value converts;
// it returns the mismatches a cast cannot mend (missing columns).
func (e *Engine) applyCasts(ctx context.Context, r *run, p *compile.Plan, rel *compile.Relation, mm []casting.Mismatch) ([]casting.Mismatch, error) {
	var rest []casting.Mismatch
	var cast []*schema.Column
	for _, m := range mm {
		if m.Actual == casting.Missing {
			rest = append(rest, m)
			continue
		}
		cast = append(cast, p.Schema().Column(m.Column))
	}
	if len(rest) > 0 || len(cast) == 0 {
		return rest, nil
	}
	vals := make([]any, len(cast))
	ptrs := make([]any, len(cast))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := r.conn.QueryRowContext(ctx, casting.FailedCastProbe(cast, rel.From)).Scan(ptrs...); err != nil {
		return nil, fmt.Errorf("check the casts: %w", err)
	}
	for i, v := range vals {
		if v != nil {
			return nil, &outcome.CastError{Column: cast[i].Name, Value: fmt.Sprint(v), Target: cast[i].DType.String()}
		}
	}
	rel.Casts = map[string]string{}
	for _, c := range cast {
		rel.Casts[c.Name] = casting.CastExpr(c)
	}
	return nil, nil
}

// evaluate computes every rule once and keeps only the rows that fail some rule (warn rules
// included, so that their counts are exact) in a temp table; every count, sample and output of
// invalid rows comes from it.
func (e *Engine) evaluate(ctx context.Context, r *run, p *compile.Plan, rel compile.Relation) (string, ruleStats, error) {
	stats := ruleStats{failed: make([]int64, len(p.Rules))}
	if len(p.Rules) == 0 {
		return "", stats, nil
	}
	failed := r.tempName("failed")
	keys := r.keyTables()
	var query string
	if rel.ScanFilters {
		var err error
		if query, err = e.stagedQuery(ctx, r, p, rel, keys.name); err != nil {
			return "", stats, blameRule(ctx, r, p, rel, err)
		}
	} else {
		if err := e.aggregateKeys(ctx, r, p.KeyStages(rel, keys.name)); err != nil {
			return "", stats, err
		}
		query = p.Failing(rel, keys.name, "")
	}
	if err := r.exec(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS\n%s", sql.Ident(failed), query)); err != nil {
		return "", stats, fmt.Errorf("evaluate the rules: %w", blameRule(ctx, r, p, rel, err))
	}
	// The failing rows hold the key rules' columns: free the failing keys now.
	for _, table := range keys.names {
		if err := r.exec(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
			return "", stats, err
		}
	}
	// count_if, not count(*) FILTER: DuckDB evaluates each FILTER clause over its own copy of
	// the rows, so n filters cost n² (2,000 rules: 5 s and 2.4 GB against 0.1 s). Over no rows
	// (every row valid) count_if is NULL, hence the coalesce.
	parts := []string{fmt.Sprintf("coalesce(count_if(NOT %s), 0)", p.ValidExpr(true))}
	for _, rule := range p.Rules {
		parts = append(parts, fmt.Sprintf("coalesce(count_if(NOT %s), 0)", sql.Ident(rule.Name)))
	}
	dest := make([]any, 0, len(parts))
	dest = append(dest, &stats.invalid)
	for i := range stats.failed {
		dest = append(dest, &stats.failed[i])
	}
	if err := r.conn.QueryRowContext(ctx, "SELECT "+strings.Join(parts, ", ")+" FROM "+sql.Ident(failed)).Scan(dest...); err != nil {
		return "", stats, fmt.Errorf("count failures: %w", err)
	}
	return failed, stats, nil
}

// stagedQuery runs the plan's Stages (failing keys, then the rows that may fail) and returns
// the plan query restricted to those rows and to the rows failing its other row rules.
func (e *Engine) stagedQuery(ctx context.Context, r *run, p *compile.Plan, rel compile.Relation, keyTable func(group int) string) (string, error) {
	keyCopy, err := keySources(ctx, r, p, &rel)
	if err != nil {
		return "", err
	}
	st := p.Stages(rel, keyTable)
	if err := e.aggregateKeys(ctx, r, st.Keys); err != nil {
		return "", err
	}
	if keyCopy != "" {
		// Nothing after the key aggregates reads the copy of key columns: free its memory now.
		if err := r.exec(ctx, "DROP TABLE IF EXISTS "+keyCopy); err != nil {
			return "", err
		}
	}
	var suspects string
	if st.Suspects != "" {
		var err error
		if suspects, err = e.suspects(ctx, r, st, st.RowFilter != ""); err != nil {
			return "", err
		}
	}
	return p.Failing(rel, keyTable, st.Where(suspects)), nil
}

// keyTables names the temp table of each key group's failing keys, the same name each time.
type keyTables struct {
	r     *run
	names map[int]string
}

func (r *run) keyTables() keyTables { return keyTables{r: r, names: map[int]string{}} }

func (k keyTables) name(g int) string {
	if _, ok := k.names[g]; !ok {
		k.names[g] = "temp.main." + sql.Ident(k.r.tempName(fmt.Sprintf("keys%d", g)))
	}
	return k.names[g]
}

// aggregateKeys stores each key group's failing keys in its table. On a database the engine
// opened with DuckDB's default threads, and at most growThreads of them, the aggregates run
// with one thread more, so that DuckDB partitions its hash tables (growThreads).
func (e *Engine) aggregateKeys(ctx context.Context, r *run, keys []compile.KeyStage) error {
	if len(keys) == 0 {
		return nil
	}
	if r.keyThreads > r.threads {
		// A speed setting: if DuckDB refuses it, the aggregates run with the threads there are,
		// as newRun leaves the perfect-hash threshold alone when it cannot read the settings.
		if release, err := r.boost.raise(ctx, r, r.keyThreads); err == nil {
			defer release()
		}
	}
	for _, k := range keys {
		if err := r.exec(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS %s", k.Table, k.Query)); err != nil {
			return fmt.Errorf("evaluate the key rules: %w", err)
		}
	}
	return nil
}

// keySources gives the key groups a temp table of the columns they read when the source has no
// statistics (a multi-file Parquet scan): from the table, DuckDB aggregates an integer key
// whose footer range fits the run's perfect-hash threshold in a perfect hash, not a hash table
// (measured, 10 files of 1M rows: the primary key 0.85 -> 0.35 s, a group rule 0.31 -> 0.05 s,
// for 0.21-0.38 s to copy both columns). Other groups, and inputs with statistics, read the
// source. It returns the copy's name, "" when it makes none.
func keySources(ctx context.Context, r *run, p *compile.Plan, rel *compile.Relation) (string, error) {
	groups, cols := keySourcePlan(r, p, *rel)
	if len(groups) == 0 {
		return "", nil
	}
	table := "temp.main." + sql.Ident(r.tempName("keysource"))
	copySQL := useKeyCopy(rel, table, groups, cols)
	if err := r.exec(ctx, copySQL); err != nil {
		return "", fmt.Errorf("copy the key columns: %w", err)
	}
	return table, nil
}

// useKeyCopy points the groups at the copy named table and returns the statement that makes it.
func useKeyCopy(rel *compile.Relation, table string, groups []int, cols []string) string {
	rel.KeySources = map[int]string{}
	for _, g := range groups {
		rel.KeySources[g] = table
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = sql.Ident(c)
	}
	return fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS SELECT %s FROM %s", table, strings.Join(quoted, ", "), rel.From)
}

// keySourcePlan picks the key groups that read a copy, and the columns the copy holds; none when
// the source has statistics or no group gains.
func keySourcePlan(r *run, p *compile.Plan, rel compile.Relation) ([]int, []string) {
	if !rel.NoStatistics || len(rel.Casts) > 0 || r.perfectHashBits == 0 || r.inputRows == 0 {
		return nil, nil
	}
	var groups []int
	var reads []string
	var width int64 // bytes a row of the copy takes
	for g, kg := range p.KeyGroups() {
		if !kg.Used || kg.Distinct || len(kg.Columns) == 0 || !perfectHashFits(p, rel.Ranges, kg.Columns, r.perfectHashBits) {
			continue
		}
		// Only fixed-width columns, whose size the copy can be judged by.
		w, ok := int64(0), true
		for _, c := range kg.Reads {
			if !slices.Contains(reads, c) {
				cw := fixedWidth(p.Schema().Column(c))
				ok = ok && cw > 0
				w += cw
			}
		}
		if !ok {
			continue
		}
		groups = append(groups, g)
		width += w
		for _, c := range kg.Reads {
			if !slices.Contains(reads, c) {
				reads = append(reads, c)
			}
		}
	}
	// The copy holds every row: within the run's memory budget.
	if len(groups) == 0 || r.inputRows*width > memoryBudget(r.memoryLimit) {
		return nil, nil
	}
	return groups, reads
}

// fixedWidth is the bytes a value of the column takes in DuckDB, for the fixed-width dtypes; 0
// for the others (strings, binary, nested, Any), whose size depends on the data.
func fixedWidth(c *schema.Column) int64 {
	if c == nil {
		return 0
	}
	switch k := c.DType.Kind; {
	case k == schema.KindBool:
		return 1
	case k.IsInteger(), k.IsFloat(), k == schema.KindDate, k == schema.KindTime, k == schema.KindDatetime:
		return 8
	case k == schema.KindDecimal, k == schema.KindDuration:
		return 16
	}
	return 0
}

// perfectHashFits reports whether DuckDB can aggregate the integer key columns in a perfect hash
// of at most bits bits: each column takes the bits of its range plus one value for NULL.
func perfectHashFits(p *compile.Plan, ranges map[string][2]int64, columns []string, bits int) bool {
	need := 0
	for _, name := range columns {
		c := p.Schema().Column(name)
		rg, ok := ranges[strings.ToLower(name)] // DuckDB matches column names in any case
		if c == nil || !c.DType.Kind.IsInteger() || !ok || rg[1] < rg[0] {
			return false
		}
		span := uint64(rg[1]) - uint64(rg[0]) // two's complement: exact for rg[1] >= rg[0]
		if span > 1<<62 {
			return false
		}
		need += mathbits.Len64(span + 2)
	}
	return need <= bits
}

// suspects stores the rows Stages.Suspects selects and returns the condition that picks them
// out of the source. Alone, it is a semi join (measured faster than bitmaps: 0.48 s against
// 0.59 s at 10M rows); OR'ed with the row filter it is an ordinalSet, which DuckDB tests row by
// row instead of probing a join for every row.
func (e *Engine) suspects(ctx context.Context, r *run, st compile.Stages, orFilter bool) (string, error) {
	table := "temp.main." + sql.Ident(r.tempName("suspects"))
	if err := r.exec(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS %s", table, st.Suspects)); err != nil {
		return "", fmt.Errorf("find the rows that may fail a rule: %w", err)
	}
	if !orFilter {
		return compile.SuspectsIn(table), nil
	}
	cond, err := r.ordinalSet(ctx, "suspect", fmt.Sprintf("SELECT %s FROM %s", compile.RowIDColumn, table), compile.RowIDColumn)
	if err != nil {
		return "", fmt.Errorf("index the failing rows: %w", err)
	}
	return cond, nil
}

func errorCounts(p *compile.Plan, stats ruleStats) []outcome.RuleCount {
	var out []outcome.RuleCount
	for i, r := range p.Rules {
		if r.IsError() && stats.failed[i] > 0 {
			out = append(out, outcome.RuleCount{Rule: r.Name, Count: stats.failed[i]})
		}
	}
	return out
}

func columnList(p *compile.Plan, prefix string) string {
	cols := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		cols[i] = prefix + sql.Ident(c.Name)
	}
	return strings.Join(cols, ", ")
}

// validRows returns the SELECT of the valid rows, in input order. With no invalid rows it is the
// input itself. Otherwise the invalid row ordinals become bitmaps (an ordinalSet) that a plain
// filter reads: no join, so DuckDB keeps the scan's order and needs no sort (measured at 10M
// rows: 2.5 s, against 3.2 s for an ANTI JOIN ordered by the ordinal).
func (e *Engine) validRows(ctx context.Context, r *run, p *compile.Plan, rel compile.Relation, failed string, anyInvalid bool) (string, error) {
	src := p.SourceSQL(rel)
	cols := columnList(p, "s.")
	if !anyInvalid {
		return fmt.Sprintf("SELECT %s FROM (%s) AS s", cols, src), nil
	}
	invalid, err := r.ordinalSet(ctx, "invalid", invalidOrdinals(p, failed), "s."+compile.RowIDColumn)
	if err != nil {
		return "", fmt.Errorf("index the invalid rows: %w", err)
	}
	return fmt.Sprintf("SELECT %s FROM (%s) AS s WHERE NOT (%s)", cols, src, invalid), nil
}

// invalidOrdinals selects the ordinals of the rows that fail an error rule, from the failed rows.
func invalidOrdinals(p *compile.Plan, failed string) string {
	return fmt.Sprintf("SELECT %s FROM %s WHERE NOT %s", compile.RowIDColumn, sql.Ident(failed), p.ValidExpr(true))
}

// quarantineSQL selects the invalid rows with one valid/invalid column per rule, in input order.
// forParquet makes the rule columns ENUMs, which DuckDB writes to Parquet exactly as the strings
// they hold (UTF8 byte arrays) but faster (measured, 312k rows x 41 rules: 0.18 s, against
// 0.68 s for VARCHAR and 0.36 s for a cast of the VARCHAR); tables and Arrow keep VARCHAR, where
// an ENUM would be another type.
func quarantineSQL(p *compile.Plan, failed string, forParquet bool) string {
	valid, invalid := "'valid'", "'invalid'"
	if forParquet {
		valid, invalid = "CAST('valid' AS ENUM('valid', 'invalid'))", "CAST('invalid' AS ENUM('valid', 'invalid'))"
	}
	var b strings.Builder
	b.WriteString("SELECT " + columnList(p, ""))
	for _, r := range p.Rules {
		fmt.Fprintf(&b, ", CASE WHEN %s THEN %s ELSE %s END AS %s", sql.Ident(r.Name), valid, invalid, sql.Ident(r.Check))
	}
	fmt.Fprintf(&b, " FROM %s WHERE NOT %s ORDER BY %s", sql.Ident(failed), p.ValidExpr(true), compile.RowIDColumn)
	return b.String()
}

// rowsJSON runs a query whose single column is a JSON text per row.
func rowsJSON(ctx context.Context, r *run, query string) ([]any, error) {
	texts, err := column[string](ctx, r, query)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(texts))
	for i, text := range texts {
		out[i] = json.RawMessage(sanitizeJSON(text))
	}
	return out, nil
}

// rowJSON renders the schema columns of a row as a JSON object, each value capped (sampleValue).
func rowJSON(p *compile.Plan, prefix string) string {
	parts := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		parts[i] = fmt.Sprintf("%s := %s", sql.Ident(c.Name), sampleValue(c, prefix+sql.Ident(c.Name)))
	}
	return fmt.Sprintf("CAST(to_json(struct_pack(%s)) AS VARCHAR)", strings.Join(parts, ", "))
}

// MaxSampleValue is the most of a value a report's sample shows: a string's first characters, or
// a list's, struct's or binary value's first JSON text; a longer value is cut, in SQL, so that it
// never reaches the report (or Go) whole, and ends with "… (cut, <bytes> bytes)".
const MaxSampleValue = 1024

// sampleValue is the SQL of a column's value as a report sample shows it. Fixed-width dtypes are
// never long; strings are cut by characters; other values become the cut text of their JSON.
func sampleValue(c compile.Column, expr string) string {
	k := c.DType.Kind
	switch {
	case k == schema.KindDecimal:
		return "CAST(" + expr + " AS VARCHAR)" // "-1.00": a JSON number would lose the scale in most readers
	case k == schema.KindBool, k.IsInteger(), k.IsFloat(), k == schema.KindDate,
		k == schema.KindTime, k == schema.KindDatetime, k == schema.KindDuration:
		return expr
	case k == schema.KindString, k == schema.KindEnum:
		return fmt.Sprintf("CASE WHEN length(%[1]s) > %[2]d THEN left(%[1]s, %[2]d) || '… (cut, ' || strlen(%[1]s) || ' bytes)' ELSE %[1]s END",
			"CAST("+expr+" AS VARCHAR)", MaxSampleValue)
	}
	j := "CAST(to_json(" + expr + ") AS VARCHAR)"
	return fmt.Sprintf("CASE WHEN strlen(%[1]s) > %[2]d THEN to_json(left(%[1]s, %[2]d) || '… (cut, ' || strlen(%[1]s) || ' bytes)') ELSE to_json(%[3]s) END",
		j, MaxSampleValue, expr)
}

// sanitizeJSON quotes the NaN and Infinity tokens DuckDB's to_json writes for floats, which are
// not JSON.
func sanitizeJSON(s string) string {
	if json.Valid([]byte(s)) {
		return s
	}
	var b strings.Builder
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == '"' {
				inString = false
			}
			continue
		}
		matched := false
		for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
			if strings.HasPrefix(s[i:], tok) {
				b.WriteString(`"` + tok + `"`)
				i += len(tok) - 1
				matched = true
				break
			}
		}
		if !matched {
			if c == '"' {
				inString = true
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Explain returns the SQL a run executes over the input to find the failing rows, after checking
// the input's column types (a mismatch is a *outcome.ColumnSchemaError): the staged statements
// for Parquet; otherwise the failing keys, then the plan query filtered to the failing rows.
// Nothing is evaluated.
func (e *Engine) Explain(ctx context.Context, p *compile.Plan, in Input) (string, error) {
	r, err := e.newRun(ctx)
	if err != nil {
		return "", err
	}
	defer r.close()
	rel, err := e.load(ctx, r, &outcome.Report{}, Asset{Plan: p, Input: in}, Options{}, nil)
	if err != nil {
		return "", err
	}
	if rel.ScanFilters {
		// The copy of key columns a run would make (it needs the row count, from the footers).
		if _, err := r.countInput(ctx, rel, in); err != nil {
			return "", err
		}
		groups, cols := keySourcePlan(r, p, rel)
		if len(groups) == 0 {
			return p.ExplainStages(rel), nil
		}
		copySQL := useKeyCopy(&rel, "__tg_keysource", groups, cols)
		return copySQL + ";\n\n" + p.ExplainStages(rel), nil
	}
	return p.ExplainKeyStages(rel), nil
}
