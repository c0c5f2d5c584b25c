package compile

import (
	"fmt"
	mathbits "math/bits"
	"slices"
	"strings"

	"github.com/tablegate/tablegate/schema"
	"github.com/tablegate/tablegate/sql"
)

// Facts are what a run knows of its input before it evaluates a rule: the relation the input
// was opened as (with what its Parquet footers told), its row count and ordinal range (from
// CountProbe), and the engine's limits that steer how keys are aggregated.
type Facts struct {
	Rows int64
	// FirstRowID and LastRowID bound the input's ordinals (unused when Rows is 0).
	FirstRowID, LastRowID int64
	// PerfectHashBits is the perfect-hash threshold the run set (0: left alone); MemoryBudget
	// the bytes one structure of the run may take.
	PerfectHashBits int
	MemoryBudget    int64
	// SessionPerfectHash is the threshold the run's connection has (0: left alone); another
	// PerfectHashBits makes the program set it first. KeyThreads above Threads (DuckDB's thread
	// count) makes the key aggregates run with KeyThreads.
	SessionPerfectHash  int
	Threads, KeyThreads int64
}

// Sink is where a program's valid and invalid rows go.
type Sink int

// Sinks.
const (
	// ToOutput writes the valid rows to a table and, with a quarantine, the invalid ones beside it.
	ToOutput Sink = iota
	// ToParquet is ToOutput for a Parquet output (rule columns as ENUMs, sized row groups).
	ToParquet
	// ToCaller hands both to the caller (Filter): the valid rows, and the invalid rows with
	// their rule columns, even when there are none.
	ToCaller
	// Nowhere validates in place.
	Nowhere
)

// ProgramOptions are the run's choices that change its statements.
type ProgramOptions struct {
	// ID names the run's temp tables and variables (they are the connection's; the ID keeps a
	// trace's statements apart from another run's).
	ID int64
	// Samples is how many failing rows a check shows (0: none); RowSample how many valid and
	// invalid rows the report shows (0: none).
	Samples, RowSample int
	// Checks are the rule indexes of the checks that collapse several rules (their failing rows
	// are counted together).
	Checks [][]int
	Sink   Sink
	// Output is where ToOutput and ToParquet write.
	Output Output
}

// Op is what the engine does with a step's statement.
type Op int

// Ops.
const (
	// Exec runs the statement for its effect.
	Exec Op = iota
	// KeyAggregate runs the statement for its effect, with the threads key aggregates get.
	KeyAggregate
	// Counts reads one row: the rows failing an error rule, then the rows failing some rule (warn
	// rules included).
	Counts
	// SamplePicks reads (k, ordinal) rows: the first failing rows of rule k-1, as many as the
	// statement's one parameter ($1), a BIGINT list of takes per rule, says.
	SamplePicks
	// SampleRows reads (ordinal, JSON) rows for the ordinals of its one parameter, a VARCHAR
	// list; the engine runs it once per batch of ordinals.
	SampleRows
	// CheckCounts reads one row: the rows failing some member of each of ProgramOptions.Checks.
	CheckCounts
	// InvalidByRules reads (rules, count) rows.
	InvalidByRules
	// InvalidSample and ValidSample read one JSON text per row.
	InvalidSample
	ValidSample
	// RowGroupSize reads one row (size, batches, batches at the default): the row group size
	// for the valid rows (0 keeps DuckDB's).
	RowGroupSize
	// ValidRows and InvalidRows hand the rows the statement selects to the caller (Filter).
	ValidRows
	InvalidRows
	// WriteValid and WriteInvalid write the valid and the invalid rows to the output (a COPY to
	// a temporary file, which the engine flushes and swaps into place, or a CREATE TABLE); a
	// COPY with a parameter takes the row group size as $1.
	WriteValid
	WriteInvalid
	// PublishInput publishes the input itself as the valid rows of a run that removes none, and
	// runs no statement: a Parquet output's table is a copy of the input file's bytes
	// (Step.From) at its TableFile; a DuckDB table validated into itself stays as it is. The
	// program emits it only where the two are the same table (publishable).
	PublishInput
	// Write runs the statement for its effect, as part of the output's write.
	Write
	// FindQuarantine reads one count: whether an earlier run's quarantine is at the output
	// (QuarantFound).
	FindQuarantine
	// Commit ends the output's write; Rollback undoes it, and runs only when the write fails.
	Commit
	Rollback
	// AttachOutput attaches the output's database file, before its write begins.
	AttachOutput
	// ReadThreads reads DuckDB's thread count, for the RaiseThreads or RestoreThreads after it;
	// the engine runs the two under its lock, as one.
	ReadThreads
	// RaiseThreads raises DuckDB's threads for the key aggregates, unless another run raised
	// them or DuckDB has as many; RestoreThreads gives back the count read before ($1) once no
	// run aggregates keys and no other is open, unless someone changed it meanwhile (then the
	// run that closes last gives it back).
	RaiseThreads
	RestoreThreads
	// TableChecks reads one row, a value per table check of the plan; it takes the rule counts
	// as $1 when Plan.TableChecksReadCounts says so.
	TableChecks
	// ProbeFooters reads (column, plain, ranged, min, max) rows from the input's Parquet footers
	// (ParquetFooters), ProbeRowGroups the rows of each row group of a single Parquet file, and
	// CountRows one row: the rows and, unless the ordinals are dense, their range (CountProbe).
	// They are the input's probes (Probes), run before the program is built from what they read.
	ProbeFooters
	ProbeRowGroups
	CountRows
	// Cleanup drops a temp table or resets a variable of the run, once nothing reads it: the
	// program's last steps, which the engine runs also when the run fails.
	Cleanup
	// RuleCounts reads one row: the rows failing each of the next RuleCountChunk rules (or the
	// rest), in rule order, after those the RuleCounts steps before it read.
	RuleCounts
	// ReadRow reads the statement's first row (none: nothing), every column, and ReadRows every
	// row: the reads of the steps that open an input (Source.Next), from which its later stages
	// are built.
	ReadRow
	ReadRows
	// CountAll reads one row: the rows, then the two counts Counts reads. A ProgramDialect's
	// program reads it from its cached rows, in place of the CountRows probe's scan of the input.
	CountAll
	// FailingValues reads (k, value, count) rows: the most frequent failing values of column rule
	// k-1 (a JSON text), at most MaxFailingValues per rule, most frequent first.
	FailingValues
)

// Writes reports whether the engine runs the step as part of the output's write, after every
// other step.
func (o Op) Writes() bool { return o >= WriteValid && o <= AttachOutput }

var opNames = map[Op]string{
	Exec: "run", KeyAggregate: "run (key aggregate)", Counts: "read the counts", SamplePicks: "read the sampled ordinals",
	SampleRows: "read the sampled rows, per batch of ordinals", CheckCounts: "read the counts per check",
	InvalidByRules: "read the invalid rows by rules", InvalidSample: "read the invalid rows' sample",
	ValidSample: "read the valid rows' sample", RowGroupSize: "read the valid rows' row group size",
	ValidRows: "hand the valid rows to the caller", InvalidRows: "hand the invalid rows to the caller",
	WriteValid: "write (the valid rows)", WriteInvalid: "write (the invalid rows)", PublishInput: "write (the input itself, no statement)", Write: "write", FindQuarantine: "write (read the quarantine's count)",
	Commit: "write (commit)", Rollback: "write (only when it fails)", AttachOutput: "write (attach)",
	ReadThreads: "read the threads", RaiseThreads: "raise the threads, unless raised", RestoreThreads: "restore the threads ($1, the count read), if the last run aggregating keys",
	TableChecks:  "read the table checks' values",
	ProbeFooters: "read the footers (advisory: unread, the run goes on without them)", ProbeRowGroups: "read the row groups (advisory)",
	CountRows: "read the count", Cleanup: "clean up (also when the run fails)",
	RuleCounts: "read the counts of the next rules",
	ReadRow:    "read a row", ReadRows: "read the rows",
	CountAll: "read the rows and the counts", FailingValues: "read the most frequent failing values",
}

func (o Op) String() string { return opNames[o] }

// Cond is what must hold for a step to run, as the steps before it found; the zero value
// always holds. Flags combine: every one must hold.
type Cond uint16

// Conditions.
const (
	AnyInvalid   Cond = 1 << iota // some row fails an error rule
	NoInvalid                     // no row fails an error rule
	AnyValid                      // some row passes every error rule
	Sampled                       // some check shows failing rows
	AnyFailure                    // some row fails some rule
	WriteTable                    // the outcome writes the valid rows
	WriteQuarant                  // the outcome writes the invalid rows
	NeedValid                     // the valid rows are written or sampled
	Writing                       // the outcome writes the outputs
	DropQuarant                   // the outcome writes the outputs but no invalid rows
	QuarantFound                  // an earlier run's quarantine is at the output
	SizedGroups                   // the valid rows' row group size is set
	PlainGroups                   // the valid rows' row groups keep DuckDB's size
)

var condNames = []string{"some row is invalid", "no row is invalid", "some row is valid", "some check shows failing rows",
	"some rule fails", "the valid rows are written", "the invalid rows are written", "the valid rows are written or sampled",
	"the outputs are written", "no invalid rows are written", "an older quarantine is there", "a row group size is set", "no row group size is set"}

func (c Cond) String() string {
	var parts []string
	for i, n := range condNames {
		if c&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, ", ")
}

// Step is one statement of a program and what the engine does with it.
type Step struct {
	Op   Op
	When Cond
	// What says what the statement is for (it prefixes the engine's error).
	What string
	SQL  string
	// From is the file a PublishInput step copies to a Parquet output's TableFile ("" for
	// every other step).
	From string
}

// Program is every statement a run executes between opening its input and closing, in order:
// the engine runs each step whose condition holds and owns no SQL of its own. Values read by one
// step reach a later one only as parameters, never in its text, so that the program printed is
// the text that runs.
type Program struct {
	steps []Step
	// failed is the temp table of the failing rows ("" when the plan has no rules).
	failed string
}

// Failed names the temp table of the run's failing rows, "" when the plan has no rules: the
// schema's columns, __tg_rid and one boolean column per rule, named by the rule.
func (p *Program) Failed() string { return p.failed }

// Steps is a copy of the program's steps.
func (p *Program) Steps() []Step { return slices.Clone(p.steps) }

// String renders the program as `explain` prints it (Listing).
func (p *Program) String() string { return Listing(p.steps) }

// Listing renders steps as `explain` prints them: each statement after a comment that says what
// the engine does with it and when it runs.
func Listing(steps []Step) string {
	var b strings.Builder
	for i, s := range steps {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "-- %d. %s: %s", i+1, s.What, s.Op)
		if s.When != 0 {
			fmt.Fprintf(&b, "; when %s", s.When)
		}
		fmt.Fprintf(&b, "\n%s;\n", s.SQL)
	}
	return b.String()
}

// Probes are the statements a run executes to learn its input's facts, in order: for Parquet,
// the footers and (one file) the row groups; then the count (CountProbe). What they read steers
// the program (Relation.PlainColumns, Ranges, RowGroups; Facts.Rows, FirstRowID, LastRowID).
func Probes(rel Relation) []Step {
	var steps []Step
	if rel.Parquet != "" {
		steps = append(steps, Step{Op: ProbeFooters, What: "read the Parquet footers", SQL: ParquetFooters(rel.Parquet)})
		if !rel.NoStatistics {
			steps = append(steps, Step{Op: ProbeRowGroups, What: "read the row groups", SQL: ParquetRowGroups(rel.Parquet)})
		}
	}
	return append(steps, Step{Op: CountRows, What: "count the rows", SQL: CountProbe(rel)})
}

// Probes are the probes a run of the plan executes over rel (compile.Probes), but for a plan
// rendered in a ProgramDialect: its program counts the rows where it counts the failures
// (CountAll), from the rows it cached, and reads the input once less.
func (p *Plan) Probes(rel Relation) []Step {
	steps := Probes(rel)
	if _, ok := p.dialect.(ProgramDialect); ok {
		steps = slices.DeleteFunc(steps, func(s Step) bool { return s.Op == CountRows })
	}
	return steps
}

// CountProbe counts the input's rows and, unless the relation's ordinals are dense from 0, reads
// their range: the statement a run executes to learn Facts.Rows, FirstRowID and LastRowID
// (two columns more when Relation.DenseRowIDs is false).
func CountProbe(rel Relation) string {
	if rel.DenseRowIDs {
		return "SELECT count(*) FROM " + rel.From
	}
	return fmt.Sprintf("SELECT count(*), coalesce(min(%[1]s), 0), coalesce(max(%[1]s), -1) FROM %[2]s", rel.RowID, rel.From)
}

// RuleProbe counts the rows (for a rule over groups or the whole input, the groups) failing one
// rule alone: the statement a run executes, only after its evaluation failed, to find the custom
// rule whose SQL raises the error on the data.
func (p *Plan) RuleProbe(rel Relation, r Rule) string {
	if r.group < 0 || r.group >= len(p.keyed) || r.mark >= len(p.keyed[r.group].conds) {
		return fmt.Sprintf("SELECT count(*) FROM %s WHERE NOT COALESCE((%s), TRUE)", rel.From, r.Expr)
	}
	kg := p.keyed[r.group]
	q := "SELECT 1 FROM (" + p.SourceSQL(rel) + ") AS " + srcName
	if len(kg.keys) > 0 {
		q += " GROUP BY " + strings.Join(kg.keys, ", ")
	}
	return "SELECT count(*) FROM (" + q + " HAVING (" + kg.conds[r.mark] + ")) AS __tg_probe"
}

// builder accumulates a program.
type builder struct {
	prog Program
	id   int64
	// temps and variables are what the run drops and resets when it ends (cleanup).
	temps, variables []string
}

func (b *builder) add(op Op, when Cond, what, query string) {
	b.prog.steps = append(b.prog.steps, Step{Op: op, When: when, What: what, SQL: query})
}

// temp names a temp table of the run, as a run's connection sees it.
func (b *builder) temp(base string) string {
	name := fmt.Sprintf("__tg_%s_%d", base, b.id)
	b.temps = append(b.temps, name)
	return name
}

// Program builds the statements a run of the plan executes over rel, an input with the facts f;
// a plan rendered in a ProgramDialect (In) gets that dialect's program.
func (p *Plan) Program(rel Relation, f Facts, o ProgramOptions) *Program {
	if d, ok := p.dialect.(ProgramDialect); ok {
		return p.portableProgram(d, rel, o)
	}
	b := &builder{id: o.ID}
	failed := ""
	if len(p.Rules) > 0 {
		failed = b.evaluate(p, rel, f)
	}
	b.tableChecks(p, rel)
	if len(p.Rules) > 0 {
		b.report(p, failed, o)
	}
	b.sink(p, rel, f, failed, o)
	b.tune(f)
	b.cleanup()
	b.prog.failed = failed
	return &b.prog
}

// cleanup adds the steps that drop the run's temp tables and reset its variables.
func (b *builder) cleanup() {
	for _, t := range b.temps {
		b.add(Cleanup, 0, "drop the run's temp table", DropTemp(t))
	}
	for _, v := range b.variables {
		b.add(Cleanup, 0, "reset the run's variable", ResetVariable(v))
	}
}

// RuleCountChunk is how many rules each RuleCounts step counts (the last one, the rest).
const RuleCountChunk = 500

// evaluate adds the steps that compute every rule once and keep only the rows that fail some
// rule (warn rules included, so that their counts are exact) in a temp table, whose name it
// returns; every count, sample and output of invalid rows comes from it.
//
// It decodes every column of every row once: finding the failing ordinals from the row filter's
// columns first and then fetching only those rows costs more, since DuckDB's Parquet reader skips
// only whole row groups and decodes the pages of every one that holds a fetched row (measured,
// order15 at 10M rows, 231k failing: 2.33 CPU s in one pass, against 1.18 + 1.30; fetching 1,000
// scattered rows alone 0.80).
func (b *builder) evaluate(p *Plan, rel Relation, f Facts) string {
	failed := b.temp("failed")
	keyNames := map[int]string{}
	keyTable := func(g int) string {
		if _, ok := keyNames[g]; !ok {
			keyNames[g] = "temp.main." + sql.Ident(b.temp(fmt.Sprintf("keys%d", g)))
		}
		return keyNames[g]
	}
	var query string
	if rel.ScanFilters {
		query = b.stagedQuery(p, rel, f, keyTable)
	} else {
		b.aggregateKeys(p.KeyStages(rel, keyTable))
		query = p.Failing(rel, keyTable, "")
	}
	b.add(Exec, 0, "evaluate the rules", fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS\n%s", sql.Ident(failed), query))
	// The failing rows hold the key rules' columns: free the failing keys now.
	groups := make([]int, 0, len(keyNames))
	for g := range keyNames {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		b.add(Exec, 0, "free the failing keys", "DROP TABLE IF EXISTS "+keyNames[g])
	}
	// count_if, not count(*) FILTER: DuckDB evaluates each FILTER clause over its own copy of
	// the rows, so n filters cost n² (2,000 rules: 5 s and 2.4 GB against 0.1 s). Over no rows
	// (every row valid) count_if is NULL, hence the coalesce.
	b.add(Counts, 0, "count failures", fmt.Sprintf("SELECT coalesce(count_if(NOT %s), 0), count(*) FROM %s", p.ValidExpr(true), sql.Ident(failed)))
	// Per rule, in statements of RuleCountChunk rules, and only when some row failed: DuckDB's
	// cost of one statement of n aggregates grows as n² (6,000 rules over no rows: 8.6 CPU s in
	// one statement, 1.4 s in twelve).
	for lo := 0; lo < len(p.Rules); lo += RuleCountChunk {
		hi := min(lo+RuleCountChunk, len(p.Rules))
		parts := make([]string, 0, hi-lo)
		for _, rule := range p.Rules[lo:hi] {
			parts = append(parts, fmt.Sprintf("coalesce(count_if(NOT %s), 0)", sql.Ident(rule.Name)))
		}
		b.add(RuleCounts, AnyFailure, fmt.Sprintf("count failures per rule (%d to %d)", lo+1, hi), "SELECT "+strings.Join(parts, ", ")+" FROM "+sql.Ident(failed))
	}
	return failed
}

// stagedQuery adds the plan's Stages (failing keys, then the rows that may fail) and returns the
// plan query restricted to those rows and to the rows failing its other row rules.
func (b *builder) stagedQuery(p *Plan, rel Relation, f Facts, keyTable func(group int) string) string {
	keyCopy := b.keySources(p, &rel, f)
	st := p.Stages(rel, keyTable)
	b.aggregateKeys(st.Keys)
	if keyCopy != "" {
		// Nothing after the key aggregates reads the copy of key columns: free its memory now.
		b.add(Exec, 0, "free the copy of key columns", "DROP TABLE IF EXISTS "+keyCopy)
	}
	var suspects string
	if st.Suspects != "" {
		suspects = b.suspects(st, st.RowFilter != "", f)
	}
	return p.Failing(rel, keyTable, st.Where(suspects))
}

// aggregateKeys stores each key group's failing keys in its table.
func (b *builder) aggregateKeys(keys []KeyStage) {
	for _, k := range keys {
		b.add(KeyAggregate, 0, "evaluate the key rules", fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS %s", k.Table, k.Query))
	}
}

// keySources gives the key groups a temp table of the columns they read when the source has no
// statistics (a multi-file Parquet scan): from the table, DuckDB aggregates an integer key
// whose footer range fits the run's perfect-hash threshold in a perfect hash, not a hash table
// (measured, 10 files of 1M rows: the primary key 0.85 -> 0.35 s, a group rule 0.31 -> 0.05 s,
// for 0.21-0.38 s to copy both columns). Other groups, and inputs with statistics, read the
// source. It returns the copy's name, "" when it makes none.
func (b *builder) keySources(p *Plan, rel *Relation, f Facts) string {
	groups, cols := keySourcePlan(p, *rel, f)
	if len(groups) == 0 {
		return ""
	}
	table := "temp.main." + sql.Ident(b.temp("keysource"))
	b.add(Exec, 0, "copy the key columns", useKeyCopy(rel, table, groups, cols))
	return table
}

// useKeyCopy points the groups at the copy named table and returns the statement that makes it.
func useKeyCopy(rel *Relation, table string, groups []int, cols []string) string {
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
func keySourcePlan(p *Plan, rel Relation, f Facts) ([]int, []string) {
	if !rel.NoStatistics || len(rel.Casts) > 0 || f.PerfectHashBits == 0 || f.Rows == 0 {
		return nil, nil
	}
	var groups []int
	var reads []string
	var width int64 // bytes a row of the copy takes
	for g, kg := range p.KeyGroups() {
		if !kg.Used || kg.Distinct || len(kg.Columns) == 0 || !perfectHashFits(p, rel.Ranges, kg.Columns, f.PerfectHashBits) {
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
	if len(groups) == 0 || f.Rows*width > f.MemoryBudget {
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
func perfectHashFits(p *Plan, ranges map[string][2]int64, columns []string, bits int) bool {
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

// suspects adds the steps that store the rows Stages.Suspects selects and returns the condition
// that picks them out of the source. Alone, it is a semi join (measured faster than bitmaps:
// 0.48 s against 0.59 s at 10M rows); OR'ed with the row filter it is an ordinal set, which
// DuckDB tests row by row instead of probing a join for every row.
func (b *builder) suspects(st Stages, orFilter bool, f Facts) string {
	table := "temp.main." + sql.Ident(b.temp("suspects"))
	b.add(Exec, 0, "find the rows that may fail a rule", fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS %s", table, st.Suspects))
	if !orFilter {
		return SuspectsIn(table)
	}
	return b.ordinalSet(0, "index the failing rows", "suspect", fmt.Sprintf("SELECT %s FROM %s", RowIDColumn, table), RowIDColumn, f)
}

// report adds the steps that read what the report shows besides the counts: per-rule samples,
// per-check counts of collapsed checks, the invalid rows by rules and the row samples.
func (b *builder) report(p *Plan, failed string, o ProgramOptions) {
	if o.Samples > 0 {
		b.add(SamplePicks, Sampled, "sample failing rows", failureSamples(p, failed))
		b.add(SampleRows, Sampled, "sample failing rows", fmt.Sprintf("SELECT CAST(%[1]s AS VARCHAR), %[2]s FROM %[3]s WHERE %[1]s IN (SELECT CAST(unnest(?::VARCHAR[]) AS HUGEINT))",
			RowIDColumn, rowJSON(p, ""), sql.Ident(failed)))
	}
	if q := failingValues(p, failed); q != "" {
		b.add(FailingValues, AnyFailure, "find the most frequent failing values", q)
	}
	if q := checkCounts(failed, p, o.Checks); q != "" {
		b.add(CheckCounts, AnyFailure, "count failures per check", q)
	}
	b.add(InvalidByRules, AnyInvalid, "count invalid rows by rules", invalidByRules(p, failed))
	if o.RowSample > 0 {
		b.add(InvalidSample, AnyInvalid, "sample invalid rows", fmt.Sprintf("SELECT %s FROM %s WHERE NOT %s ORDER BY %s LIMIT %d",
			rowJSON(p, ""), sql.Ident(failed), p.ValidExpr(true), RowIDColumn, o.RowSample))
	}
}

// failureSamples reads the first failing rows of every rule, as many as a BIGINT list parameter
// says per rule (rules it gives 0 are left out before the rows are numbered): their ordinals, in one statement (each failing row with the rules it fails,
// numbered per rule); the rows themselves are read as JSON by one more. A statement per rule,
// each rendering every column, cost rules × columns; one aggregate per rule ran out of memory
// at 10,000 rules. Ordinals are read as decimal text: a source's ordinal may be any integer type.
func failureSamples(p *Plan, failed string) string {
	fails := make([]string, len(p.Rules))
	for i, rule := range p.Rules {
		fails[i] = fmt.Sprintf("CASE WHEN NOT %s THEN %d END", sql.Ident(rule.Name), i+1)
	}
	return fmt.Sprintf("SELECT k, CAST(%[1]s AS VARCHAR) FROM (SELECT %[1]s, unnest(list_filter([%[2]s], lambda x: x IS NOT NULL AND ($1::BIGINT[])[x] > 0)) AS k FROM %[3]s) "+
		"QUALIFY row_number() OVER (PARTITION BY k ORDER BY %[1]s) <= ($1::BIGINT[])[k] ORDER BY k, %[1]s",
		RowIDColumn, strings.Join(fails, ", "), sql.Ident(failed))
}

// MaxFailingValues is how many of its most frequent failing values a column check shows.
const MaxFailingValues = 5

// failingValues finds the most frequent failing values of every column rule, from the failing
// rows alone (never the input): each failing row gives one (rule, value) pair per column rule it
// fails, counted per pair; "" when the plan has no column rule. Values are JSON texts cut as a
// sample's are, so that a long value never reaches Go whole; ties go to the smaller text.
func failingValues(p *Plan, failed string) string {
	var pairs []string
	for i, r := range p.Rules {
		col := p.column(r.Column)
		if col == nil {
			continue
		}
		pairs = append(pairs, fmt.Sprintf("CASE WHEN NOT %s THEN {'k': %d, 'v': coalesce(CAST(to_json(%s) AS VARCHAR), 'null')} END",
			sql.Ident(r.Name), i+1, sampleValue(*col, sql.Ident(col.Name))))
	}
	if len(pairs) == 0 {
		return ""
	}
	return fmt.Sprintf("SELECT k, v, n FROM (SELECT u.k AS k, u.v AS v, count(*) AS n FROM (SELECT unnest(list_filter([%s], lambda x: x IS NOT NULL)) AS u FROM %s) GROUP BY ALL) "+
		"QUALIFY row_number() OVER (PARTITION BY k ORDER BY n DESC, v) <= %d ORDER BY k, n DESC, v",
		strings.Join(pairs, ", "), sql.Ident(failed), MaxFailingValues)
}

// column is the plan's column of that name; nil for "" and for a name it has not.
func (p *Plan) column(name string) *Column {
	for i := range p.Columns {
		if name != "" && p.Columns[i].Name == name {
			return &p.Columns[i]
		}
	}
	return nil
}

// checkCounts counts the rows failing some member of each check; "" when there is none.
func checkCounts(failed string, p *Plan, checks [][]int) string {
	var parts []string
	for _, members := range checks {
		conds := make([]string, len(members))
		for i, m := range members {
			conds[i] = sql.Ident(p.Rules[m].Name)
		}
		parts = append(parts, fmt.Sprintf("count_if(NOT (%s))", strings.Join(conds, " AND ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "SELECT " + strings.Join(parts, ", ") + " FROM " + sql.Ident(failed)
}

// invalidByRules counts the invalid rows by the exact set of rules each failed.
func invalidByRules(p *Plan, failed string) string {
	rules := slices.Clone(p.Rules)
	slices.SortStableFunc(rules, func(a, b Rule) int { return strings.Compare(a.Check, b.Check) })
	parts := make([]string, len(rules))
	for i, rule := range rules {
		parts[i] = fmt.Sprintf("CASE WHEN NOT %s THEN %s END", sql.Ident(rule.Name), sql.String(rule.Check))
	}
	return fmt.Sprintf("SELECT concat_ws(', ', %s) AS rules, count(*) AS n FROM %s WHERE NOT %s GROUP BY ALL ORDER BY n DESC, rules",
		strings.Join(parts, ", "), sql.Ident(failed), p.ValidExpr(true))
}

// sink adds the steps that select the valid and invalid rows for the sink, and the valid rows'
// sample, after the outcome is known.
func (b *builder) sink(p *Plan, rel Relation, f Facts, failed string, o ProgramOptions) {
	cols := columnList(p, "s.")
	src := p.SourceSQL(rel)
	plain := fmt.Sprintf("SELECT %s FROM (%s) AS s", cols, src)
	writes := o.Sink == ToOutput || o.Sink == ToParquet
	validWhen := NeedValid
	if o.Sink == ToCaller {
		validWhen = 0
	}
	var filtered string
	if failed != "" {
		// The valid rows in input order: the invalid row ordinals become bitmaps (an ordinal
		// set) that a plain filter reads: no join, so DuckDB keeps the scan's order and needs
		// no sort (measured at 10M rows: 2.5 s, against 3.2 s for an ANTI JOIN ordered by the
		// ordinal).
		invalid := b.ordinalSet(AnyInvalid|validWhen, "index the invalid rows", "invalid", invalidOrdinals(p, failed), "s."+RowIDColumn, f)
		filtered = fmt.Sprintf("SELECT %s FROM (%s) AS s WHERE NOT (%s)", cols, src, invalid)
	}
	if o.RowSample > 0 {
		// The valid rows' sample comes from the input, bounded in SQL.
		b.add(ValidSample, AnyValid|NoInvalid, "sample valid rows", fmt.Sprintf("SELECT %s FROM (%s LIMIT %d)", rowJSON(p, ""), plain, o.RowSample))
		if failed != "" {
			b.add(ValidSample, AnyValid|AnyInvalid, "sample valid rows", fmt.Sprintf("SELECT %s FROM (%s LIMIT %d)", rowJSON(p, ""), filtered, o.RowSample))
		}
	}
	if !writes && o.Sink != ToCaller {
		return
	}
	tableWhen := WriteTable
	if o.Sink == ToCaller {
		tableWhen = 0
	}
	sized := o.Sink == ToParquet && failed != "" && len(rel.RowGroups) > 0
	if sized {
		b.add(RowGroupSize, WriteTable|AnyInvalid, "size the valid rows' row groups", ValidRowGroupSize(rel.RowGroups, invalidOrdinals(p, failed)))
	}
	// The caller reads the invalid rows first (the few, into memory), then streams the valid
	// rows: a new query on a connection ends the previous result's stream.
	if o.Sink == ToCaller {
		if failed == "" {
			b.add(InvalidRows, 0, "read the filtered rows", fmt.Sprintf("SELECT %s FROM (%s) WHERE FALSE", columnList(p, ""), src))
		} else {
			b.add(InvalidRows, 0, "read the filtered rows", quarantineSQL(p, failed, false))
		}
		b.add(ValidRows, NoInvalid, "read the filtered rows", plain)
		if failed != "" {
			b.add(ValidRows, AnyInvalid, "read the filtered rows", filtered)
		}
		return
	}
	valid := []validRows{{when: tableWhen | NoInvalid, query: plain, input: publishable(p, rel, o.Sink, o.Output), from: rel.ParquetFile}}
	invalid := ""
	if failed != "" {
		valid = append(valid, validRows{when: tableWhen | AnyInvalid, query: filtered, sized: sized})
		invalid = quarantineSQL(p, failed, o.Sink == ToParquet)
	}
	b.writes(o.Sink, o.Output, valid, invalid, true)
}

// blockBits is log2 of the row ordinals one bitmap block covers.
const blockBits = 20

// ordinalSet adds the steps that store the row ordinals (__tg_rid) a query selects as bitmaps,
// one BITSTRING session variable per block of 2^20 ordinals of the input's ordinal range, and
// returns SQL that is TRUE for the rows whose ordinal is in the set (over the expression rid).
//
// Why not one bitmap, or a join: DuckDB copies a constant string into every vector it evaluates
// (2048 rows), so one bitmap over all ordinals costs rows x bitmap size (measured: 0.12 s at 10M
// rows, 16 s at 100M); a block is 128 KB whatever the input's size (1.3 s at 100M). A join would
// let DuckDB emit rows out of order, and the valid rows must keep input order without a sort.
// The blocks are picked by a balanced CASE tree on the ordinal, so a row tests one block. The
// blocks come from the input's ordinal range (Facts), not from the rows the set holds, so that
// the statements are known before any runs; a block without ordinals is a NULL variable.
func (b *builder) ordinalSet(when Cond, what, base, rows, rid string, f Facts) string {
	blocks := "temp.main." + sql.Ident(b.temp(base+"_blocks"))
	mask := int64(1)<<blockBits - 1
	b.add(Exec, when, what, fmt.Sprintf(
		"CREATE OR REPLACE TEMP TABLE %s AS SELECT %s >> %d AS block, bitstring_agg(%s & %d, 0, %d) AS bits FROM (%s) GROUP BY block",
		blocks, RowIDColumn, blockBits, RowIDColumn, mask, mask, rows))
	if f.Rows == 0 || f.LastRowID < f.FirstRowID {
		return "FALSE"
	}
	var ids []int64
	var vars []string
	for id := f.FirstRowID >> blockBits; id <= f.LastRowID>>blockBits; id++ {
		v := fmt.Sprintf("__tg_%s_%d_%d", base, b.id, len(ids))
		b.add(Exec, when, what, fmt.Sprintf("SET VARIABLE %s = (SELECT bits FROM %s WHERE block = %d)", v, blocks, id))
		b.variables = append(b.variables, v)
		ids, vars = append(ids, id), append(vars, v)
	}
	return ordinalTree(rid, ids, vars)
}

// ordinalTree tests rid against the blocks ids[i] (sorted), whose bitmaps are the variables
// vars[i]: a binary search on rid, then one get_bit (FALSE for a block without ordinals).
func ordinalTree(rid string, ids []int64, vars []string) string {
	if len(ids) == 1 {
		lo := ids[0] << blockBits
		return fmt.Sprintf("CASE WHEN %s >= %d AND %s < %d THEN coalesce(get_bit(getvariable(%s), CAST(%s - %d AS INTEGER)) = 1, FALSE) ELSE FALSE END",
			rid, lo, rid, lo+1<<blockBits, sql.String(vars[0]), rid, lo)
	}
	mid := len(ids) / 2
	var b strings.Builder
	fmt.Fprintf(&b, "CASE WHEN %s < %d THEN %s ELSE %s END", rid, ids[mid]<<blockBits,
		ordinalTree(rid, ids[:mid], vars[:mid]), ordinalTree(rid, ids[mid:], vars[mid:]))
	return b.String()
}

func columnList(p *Plan, prefix string) string {
	cols := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		cols[i] = prefix + sql.Ident(c.Name)
	}
	return strings.Join(cols, ", ")
}

// invalidOrdinals selects the ordinals of the rows that fail an error rule, from the failed rows.
func invalidOrdinals(p *Plan, failed string) string {
	return fmt.Sprintf("SELECT %s FROM %s WHERE NOT %s", RowIDColumn, sql.Ident(failed), p.ValidExpr(true))
}

// quarantineSQL selects the invalid rows with one valid/invalid column per rule, in input order.
// forParquet makes the rule columns ENUMs, which DuckDB writes to Parquet exactly as the strings
// they hold (UTF8 byte arrays) but faster (measured, 312k rows x 41 rules: 0.18 s, against
// 0.68 s for VARCHAR and 0.36 s for a cast of the VARCHAR); tables and Arrow keep VARCHAR, where
// an ENUM would be another type.
func quarantineSQL(p *Plan, failed string, forParquet bool) string {
	valid, invalid := "'valid'", "'invalid'"
	if forParquet {
		valid, invalid = "CAST('valid' AS ENUM('valid', 'invalid'))", "CAST('invalid' AS ENUM('valid', 'invalid'))"
	}
	var b strings.Builder
	b.WriteString("SELECT " + columnList(p, ""))
	for _, r := range p.Rules {
		fmt.Fprintf(&b, ", CASE WHEN %s THEN %s ELSE %s END AS %s", sql.Ident(r.Name), valid, invalid, sql.Ident(r.Check))
	}
	fmt.Fprintf(&b, " FROM %s WHERE NOT %s ORDER BY %s", sql.Ident(failed), p.ValidExpr(true), RowIDColumn)
	return b.String()
}

// rowJSON renders the schema columns of a row as a JSON object, each value capped (sampleValue).
func rowJSON(p *Plan, prefix string) string {
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
func sampleValue(c Column, expr string) string {
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

// DuckDB writes Parquet in row groups of ParquetRowGroup rows by default. An ordered COPY writes
// each batch (one input row group) as a row group of its own when the batch is within one vector
// (2048 rows) of that size; any other batch it first copies into batches of the right size.
const (
	ParquetRowGroup = 122880
	vectorSize      = 2048
)

// ValidRowGroupSize is the statement that sizes the row groups of the valid rows written to
// Parquet, from the input's row groups and the invalid ordinals (a SELECT of __tg_rid): DuckDB
// buffers a batch's rows that fall short of a vector until a later batch fills it, copying each
// valid row once more; at the size that most batches' valid rows are within a vector of, it
// writes those batches as they come (measured, 10M rows, 1.7% invalid: the table's COPY 2.6 s
// against 2.4 s, the whole run 4.4 s against 4.2 s). The size lies between half the default and
// the default (no small row groups, and none larger than DuckDB's); the engine keeps DuckDB's
// default unless that size takes more batches as they come than the default does, and also
// when the statement fails or returns no row: the size never changes what is written. Input row
// groups may be larger than the default (polars writes 123,457 rows): 3% of them invalid leaves
// about 119,800, short of the default by more than a vector. A file's last row group, its
// remainder, does not vote.
func ValidRowGroupSize(groups []int64, invalid string) string {
	var values strings.Builder
	var start, votersEnd int64 // the groups that vote start before votersEnd
	for i, n := range groups {
		if i > 0 {
			values.WriteString(", ")
		}
		fmt.Fprintf(&values, "(%d, %d)", start, n)
		if i < len(groups)-1 || len(groups) == 1 {
			votersEnd = start + 1
		}
		start += n
	}
	// An ASOF join finds each invalid ordinal's group (the last one starting at or before it):
	// 0.015 s at 10M rows, against 0.06 s for a range join.
	return fmt.Sprintf(`WITH g(start, n) AS (VALUES %[2]s),
valid AS (
	SELECT g.n - coalesce(c.bad, 0) AS rows FROM g LEFT JOIN (
		SELECT g.start, count(*) AS bad FROM (%[3]s) AS b ASOF JOIN g ON b.%[1]s >= g.start GROUP BY g.start
	) AS c USING (start) WHERE g.start < %[4]d),
taken AS (
	SELECT a.rows, count(*) AS batches FROM (SELECT DISTINCT rows FROM valid WHERE rows BETWEEN %[6]d / 2 AND %[6]d) AS a
	JOIN valid AS b ON abs(a.rows - b.rows) < %[5]d GROUP BY a.rows)
SELECT rows, batches, (SELECT count(*) FROM valid WHERE abs(rows - %[6]d) < %[5]d) FROM taken ORDER BY batches DESC, rows DESC LIMIT 1`,
		RowIDColumn, values.String(), invalid, votersEnd, vectorSize, ParquetRowGroup)
}
