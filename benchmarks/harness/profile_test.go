package main

import (
	"context"
	gosql "database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPhaseOf pins how traced statements are attributed: by the table a CREATE makes, so the
// suspects and failing-rows statements, which join the key tables, are not counted as keys.
func TestPhaseOf(t *testing.T) {
	for _, c := range []struct{ stmt, phase string }{
		{`CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys1_1" AS SELECT "id" AS __tg_k1_0 FROM read_parquet('d.parquet') GROUP BY "id"`, phases[0]},
		{`CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspects_1" AS SELECT file_row_number AS __tg_rid FROM read_parquet('d.parquet') SEMI JOIN __tg_keys0_1 AS __tg_k0 ON x`, phases[1]},
		{`CREATE OR REPLACE TEMP TABLE "__tg_failed_1" AS WITH __tg_k0 AS NOT MATERIALIZED ( SELECT * FROM __tg_keys0_1 ) SELECT 1`, phases[2]},
		{`SELECT count(*) FILTER (WHERE NOT ("a" AND "b")) FROM "__tg_failed_1"`, phases[3]},
		{`CREATE OR REPLACE TEMP TABLE temp.main."__tg_invalid_blocks_1" AS SELECT __tg_rid >> 20 AS block FROM "__tg_failed_1"`, phases[4]},
		{`SET VARIABLE __tg_invalid_1_0 = (SELECT bits FROM x WHERE block = 0)`, phases[4]},
		{`COPY (SELECT s."id" FROM read_parquet('d.parquet') AS s) TO 'out/.orders.parquet.tablegate-1-1-table.tmp' (FORMAT parquet)`, phases[5]},
		{`COPY (SELECT "id" FROM "__tg_failed_1") TO 'out/.orders.parquet.tablegate-1-1-quarantine.tmp' (FORMAT parquet)`, phases[6]},
		// A column named like the quarantine does not make the table's write the quarantine's.
		{`COPY (SELECT s."pre_quarantine" FROM read_parquet('d.parquet') AS s) TO 'out/.orders.parquet.tablegate-1-1-table.tmp' (FORMAT parquet)`, phases[5]},
		{`COPY (SELECT s."x_quarantine" FROM read_parquet('d.parquet') AS s) TO 'out/.orders_quarantine.parquet.tablegate-1-1-table.tmp' (FORMAT parquet)`, phases[5]},
		{`CREATE OR REPLACE TABLE "__tg_db1_1"."main"."orders" AS SELECT s."id" FROM t AS s`, phases[5]},
		{`CREATE OR REPLACE TABLE "__tg_db1_1"."main"."orders_quarantine" AS SELECT "id" FROM "__tg_failed_1"`, phases[6]},
		{`-- copy the input file 'd.parquet' to 'out/.orders_quarantine.parquet.tablegate-1-1-table.tmp' byte for byte (a reflink or copy_file_range where the file system offers one)`, phases[5]},
		{`COMMIT`, phases[7]},
		{`fsync out/.orders.parquet.tablegate-1-1-table.tmp`, phases[8]},
		{`DESCRIBE SELECT * FROM read_parquet('d.parquet')`, phases[9]},
	} {
		if got := phaseOf(c.stmt); got != c.phase {
			t.Errorf("phaseOf(%.60q) = %q, want %q", c.stmt, got, c.phase)
		}
	}
}

// TestParseTrace: a trace line gives its wall time, the CPU time when the line has one (not a
// background fsync, nor a trace from an older tablegate that printed no CPU time), and the whole statement, whose own
// text may hold anything.
func TestParseTrace(t *testing.T) {
	for _, c := range []struct {
		line string
		want traceLine
	}{
		{"tablegate trace:   1.250s  COMMIT", traceLine{wall: 1.25, stmt: "COMMIT"}},
		{"tablegate trace:   0.822s   1.610s cpu  CREATE TABLE t AS SELECT 's  x' AS c", traceLine{wall: 0.822, cpu: 1.61, hasCPU: true, stmt: "CREATE TABLE t AS SELECT 's  x' AS c"}},
		{"tablegate trace:  12.000s  10.500s cpu  SELECT '1.0s cpu  2'", traceLine{wall: 12, cpu: 10.5, hasCPU: true, stmt: "SELECT '1.0s cpu  2'"}},
		{"tablegate trace:   0.140s  fsync out/.orders.parquet.tmp", traceLine{wall: 0.14, stmt: "fsync out/.orders.parquet.tmp"}},
		// From 100 s on, the fields fill their width: one space apiece.
		{"tablegate trace: 123.456s 245.000s cpu  COPY (SELECT 1) TO 'x.parquet'", traceLine{wall: 123.456, cpu: 245, hasCPU: true, stmt: "COPY (SELECT 1) TO 'x.parquet'"}},
	} {
		got, ok := parseTrace(c.line)
		if !ok || got != c.want {
			t.Errorf("parseTrace(%q) = %+v, %v; want %+v", c.line, got, ok, c.want)
		}
	}
	for _, line := range []string{"orders (Bench15): quarantined", "tablegate trace: soon  COMMIT", "tablegate trace:   1.250s COMMIT"} {
		if _, ok := parseTrace(line); ok {
			t.Errorf("parseTrace accepted %q, which is not a trace line", line)
		}
	}
}

// TestGoalVerdicts: a target reads its cells from the run, says by how much it is missed, calls
// a gap inside the cells' spread noise, and names the bound a peer's own run sets.
func TestGoalVerdicts(t *testing.T) {
	cell := func(rules int, storage, approach string, secs ...float64) measurement {
		return measurement{Rows: 10_000_000, Rules: rules, Storage: storage, Approach: approach, Seconds: secs, Median: median(secs), MedRSS: 100}
	}
	busy := func(m measurement, cpu float64) measurement {
		m.MedCPU = cpu
		return m
	}
	all := []measurement{
		cell(15, "parquet", "floor", 2.5, 2.5, 2.5),
		busy(cell(15, "parquet", "full", 4.6, 4.75, 5.0), 9.5), // 1.9x, spread 8%; 4.75 CPU s per core: 1.9x the floor
		cell(15, "parquet", "perrule", 10, 10, 10),             // 4x the floor: 5x is out of reach
		cell(15, "parquet", "dataframely", 5.5, 5.5, 5.5),      // 2.2x the floor: 2x faster needs 1.1x the floor
		cell(15, "duckdb", "floor", 4, 4, 4),
		cell(15, "duckdb", "counts", 1.8, 1.8, 1.8),
		busy(cell(15, "duckdb", "full", 5.8, 5.8, 5.8), 10.8), // 1.45x; the copy plus counts: 1.45x; 5.4 CPU s per core
	}
	byWhat := map[string]goal{}
	for _, g := range goals(all, 10_000_000, 2) {
		byWhat[g.what] = g
	}
	check := func(what, want string) {
		t.Helper()
		g, ok := byWhat[what]
		if !ok {
			t.Fatalf("no goal %q", what)
		}
		if got := g.verdict(); got != want {
			t.Errorf("%s: verdict %q, want %q", what, got, want)
		}
	}
	check("Parquet → Parquet full validation ≤ 1.8× the plain COPY", "missed by 0.10× (6%), within this cell's run-to-run spread (8%); its CPU time alone, spread over every core, is 1.90× the copy: only less work can meet it")
	check("DuckDB table → table ≤ 1.4× the plain CTAS", "missed by 0.05× (4%); the copy and the counts-only run (every rule evaluated, nothing written) add up to 1.45× the copy; its CPU time, spread over every core, would be 1.35× the copy (it kept the cores 93% busy)")
	check("≥ 5× faster than per-rule queries at 15 rules", "missed by 2.89× (58%); out of reach: the peer's whole run is 4.00× the plain copy, so even a validation costing nothing beyond the copy would be only 4.00× faster")
	check("≥ 2× faster than dataframely", "missed by 0.84× (42%); the peer's whole run is 2.20× the plain copy, so meeting it means full validation within 1.10× the copy")
	check("≤ 0.3× dataframely's peak memory", "missed by 0.70× (233%)")
	check("counts-only validation ≤ 1.1× the plain COPY", "not measured in this run")

	// With the copy's CPU time known: a full run whose work, at the copy's use of the cores,
	// takes longer than the target says so; one whose work fits keeps the overlap wording.
	all[4] = busy(all[4], 7.3) // the CTAS kept the cores 91% busy; the full run's CPU is 1.48x its
	for _, g := range goals(all, 10_000_000, 2) {
		byWhat[g.what] = g
	}
	check("DuckDB table → table ≤ 1.4× the plain CTAS", "missed by 0.05× (4%); the copy and the counts-only run (every rule evaluated, nothing written) add up to 1.45× the copy; its CPU time is 1.48× the copy's (1.35× the copy spread over every core): meeting it takes less work, or keeping the cores busier than the plain copy does (91%; the full run 93%)")
	all[4] = busy(all[4], 8)
	for _, g := range goals(all, 10_000_000, 2) {
		byWhat[g.what] = g
	}
	check("DuckDB table → table ≤ 1.4× the plain CTAS", "missed by 0.05× (4%); the copy and the counts-only run (every rule evaluated, nothing written) add up to 1.45× the copy; its CPU time, spread over every core, would be 1.35× the copy (it kept the cores 93% busy)")
}

// TestOrderKept: the order check passes valid rows in input order and counts the rows a
// reordering misplaces, on real Parquet files.
func TestOrderKept(t *testing.T) {
	in, kept, moved := orderFiles(t, t.TempDir(), 1000)
	ctx := context.Background()
	n, err := orderKept(ctx, "parquet", in, kept, "id")
	if err != nil || n != 666 {
		t.Errorf("in order: %d rows, %v", n, err)
	}
	if _, err := orderKept(ctx, "parquet", in, moved, "id"); err == nil || !strings.Contains(err.Error(), "2 of 666 valid rows out of input order") {
		t.Errorf("swapped rows: %v", err)
	}
}

// orderFiles writes, in dir, an input of ids 0 to n-1 and two outputs of its valid rows (those
// not divisible by 3): kept in input order, and moved with ids 10 and 20 swapped.
func orderFiles(t *testing.T, dir string, n int) (in, kept, moved string) {
	t.Helper()
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	in, kept, moved = filepath.Join(dir, "in.parquet"), filepath.Join(dir, "kept.parquet"), filepath.Join(dir, "moved.parquet")
	for _, q := range []string{
		fmt.Sprintf("COPY (SELECT range AS id FROM range(%d)) TO '%s'", n, in),
		fmt.Sprintf("COPY (SELECT range AS id FROM range(%d) WHERE range %% 3 <> 0 ORDER BY range) TO '%s'", n, kept),
		fmt.Sprintf("COPY (SELECT CASE range WHEN 10 THEN 20 WHEN 20 THEN 10 ELSE range END AS id FROM range(%d) WHERE range %% 3 <> 0 ORDER BY range) TO '%s'", n, moved),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return in, kept, moved
}

// TestProfileRuns: profile cleans before every traced run, reports the run with the median wall
// time with its phases, and checks every run's output for order: a reordering in a run that is
// not the median one is still reported, naming the run.
func TestProfileRuns(t *testing.T) {
	dir := t.TempDir()
	in, kept, moved := orderFiles(t, dir, 100)
	// A stand-in for tablegate: run i sleeps, traces the table's COPY as taking i seconds and
	// writes its output, misordered in the first run (the slowest, so not the median).
	out, calls := filepath.Join(dir, "out.parquet"), filepath.Join(dir, "calls")
	script := filepath.Join(dir, "validate")
	body := `#!/bin/sh
echo x >> ` + calls + `
i=$(grep -c x ` + calls + `)
case $i in 1) sleep 1.2; cp ` + moved + ` ` + out + ` ;; 2) cp ` + kept + ` ` + out + ` ;; *) sleep 0.5; cp ` + kept + ` ` + out + ` ;; esac
echo "tablegate trace:   $i.000s   $i.500s cpu  COPY (SELECT s.\"id\" FROM t AS s) TO 'out/.orders.parquet.tmp' (FORMAT parquet)" >&2
echo "tablegate trace:   0.250s  fsync out/.orders.parquet.tmp" >&2
exit 1
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	cleaned := 0
	clean := func() { cleaned++; _ = os.Remove(out) }
	c := cell{rows: 100, rules: 15, storage: "parquet", in: in, orderBy: "id"}
	p, err := profile(context.Background(), []string{script}, c, out, 3, clean)
	if err != nil {
		t.Fatal(err)
	}
	if cleaned != 3 || p.Traced != 3 {
		t.Errorf("cleaned %d times, Traced %d; want 3 and 3", cleaned, p.Traced)
	}
	if got, cpu := p.Phases[phases[5]], p.PhasesCPU[phases[5]]; got != 3 || cpu != 3.5 {
		t.Errorf("reported the run whose COPY took %v s and %v CPU s; want the median run's (3 s, 3.5 CPU s)", got, cpu)
	}
	if _, ok := p.PhasesCPU[phases[8]]; ok || p.Phases[phases[8]] != 0.25 {
		t.Errorf("fsync: %v s, CPU %v; want 0.25 s and no CPU time of its own", p.Phases[phases[8]], p.PhasesCPU)
	}
	if p.CPU <= 0 {
		t.Errorf("the traced process's CPU time is %v", p.CPU)
	}
	if !strings.Contains(p.OrderErr, "traced run 1: 2 of 66 valid rows out of input order") {
		t.Errorf("order: %q; want the first run's reordering", p.OrderErr)
	}

	// Without a key to find rows by, or without an output, the check is skipped and says why.
	c.orderBy = ""
	if p, err := profile(context.Background(), []string{script}, c, out, 1, clean); err != nil || p.Traced != 0 || !strings.Contains(p.order(), "no one-column primary key") {
		t.Errorf("no key: Traced %d, order %q, err %v", p.Traced, p.order(), err)
	}
}

// TestRenderFromJSON: -render rebuilds results.md from results.json alone, targets and the
// traced run included.
func TestRenderFromJSON(t *testing.T) {
	dir := t.TempDir()
	m := func(storage, approach string, secs float64) measurement {
		return measurement{Rows: 10_000_000, Rules: 15, Storage: storage, Approach: approach, Seconds: []float64{secs}, Median: secs, MedRSS: 500}
	}
	r := results{
		Machine: "2 cores", Runs: 1, InvalidRate: 0.03, Rows: []int64{10_000_000}, Rules: []int{15}, Storages: []string{"parquet"},
		Measurements: []measurement{m("parquet", "floor", 2.5), m("parquet", "full", 4.4)},
		Profiles:     []profileRun{{Rows: 10_000_000, Rules: 15, Storage: "parquet", Phases: map[string]float64{phases[5]: 2.7}, Wall: 4.5, Traced: 3, Checked: 9826176}},
	}
	if err := writeResults(dir, r); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(dir, "results.md")
	if err := os.Remove(md); err != nil {
		t.Fatal(err)
	}
	if err := renderMain(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 10000000 | 15 | parquet | 2.50 | – | 4.40 |",
		"| Parquet → Parquet full validation ≤ 1.8× the plain COPY | 10M rows, 15 rules, parquet | 1.76× | met |",
		"## Where the time goes (of 3 runs with `TABLEGATE_TRACE=full`, the one with the median wall time)",
		"| valid rows written | 2.70 |",
		"| the floor's whole process (median) | 2.50 |",
		"- parquet: kept (9826176 valid rows, none out of place)",
		"checked on the outputs of every traced run",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("results.md lacks %q", want)
		}
	}
}

// TestRenderStringSets: a named rule set's cells get rows of their own beside the benchN ones,
// and the benchN rows and targets never read a named set's measurements of the same rule count.
func TestRenderStringSets(t *testing.T) {
	m := func(set, approach string, secs float64) measurement {
		return measurement{Rows: 10_000_000, Rules: 15, Set: set, Storage: "parquet", Approach: approach, Seconds: []float64{secs}, Median: secs, MedRSS: 500}
	}
	r := results{
		Machine: "2 cores", Runs: 1, InvalidRate: 0.03, Rows: []int64{10_000_000}, Rules: []int{15}, Sets: []string{"order15"}, Storages: []string{"parquet"},
		Measurements: []measurement{m("order15", "floor", 3), m("order15", "full", 6), m("order15", "dataframely", 9), m("", "floor", 2), m("", "full", 3)},
	}
	r.Measurements[2].MedCPU = 17.5
	md := markdown(r)
	for _, want := range []string{
		"| 10000000 | 15 | parquet | 2.00 | – | 3.00 | – | – | 1.50× |",
		"| 10000000 | order15 | parquet | 3.00 | – | 6.00 | – | 9.00 | 2.00× | – | – | 1.50× | 500 | 500 | – | – | 17.50 |\n",
		"(13 columns); for order15, `tablegate sample --schema benchmarks/schemas/strings.yaml --invalid-rate 0.03 --seed 1`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	if f := find(r.Measurements, 10_000_000, 15, "parquet", "full"); f == nil || f.Median != 3 {
		t.Errorf("find(15 rules) = %+v, want bench15's full run", f)
	}
	// A run of the named sets alone generated no benchN data: its results say so.
	r.Rules = nil
	if md := markdown(r); strings.Contains(md, "bench40.yaml") || !strings.Contains(md, "Data: for order15, `tablegate sample") {
		t.Errorf("the named sets' results name data they did not read:\n%s", md)
	}
}

// TestMedianByWall: of several traced runs the one with the median wall time is reported, so a
// run that lands on a slow moment of the machine does not stand for the cell.
func TestMedianByWall(t *testing.T) {
	run := func(wall float64) profileRun { return profileRun{Wall: wall} }
	for _, c := range []struct {
		walls []float64
		want  float64
	}{
		{[]float64{4.2}, 4.2},
		{[]float64{9.8, 4.1, 4.3}, 4.3},
		{[]float64{4.3, 4.1, 9.8}, 4.3},
		{[]float64{5, 9, 4, 6}, 5}, // even: the lower middle
	} {
		runs := make([]profileRun, len(c.walls))
		for i, w := range c.walls {
			runs[i] = run(w)
		}
		if got := medianByWall(runs).Wall; got != c.want {
			t.Errorf("medianByWall(%v) = %v, want %v", c.walls, got, c.want)
		}
		if runs[0].Wall != c.walls[0] {
			t.Errorf("medianByWall reordered its argument")
		}
	}
}

// TestCustomCell: -input and -schema make one cell of the user's data: its rows counted, its
// rules those of the schema, the storage read off the address, and the order checked by the
// one-column primary key.
func TestCustomCell(t *testing.T) {
	dir := t.TempDir()
	db, err := gosql.Open("duckdb", filepath.Join(dir, "in.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE t AS SELECT range AS order_id, range % 7 AS n FROM range(1234)",
		fmt.Sprintf("COPY t TO '%s'", filepath.Join(dir, "in.parquet")),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	schemaFile := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(schemaFile, []byte("schema: S\ncolumns:\n  - {name: order_id, type: Int64, primary_key: true}\n  - {name: n, type: Int64, max: 5}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ input, storage string }{
		{filepath.Join(dir, "in.parquet"), "parquet"},
		{filepath.Join(dir, "in.duckdb") + ":t", "duckdb"},
	} {
		cells, err := customCell(context.Background(), customInput{input: c.input, schema: schemaFile})
		if err != nil {
			t.Fatal(err)
		}
		got := cells[0]
		// Rules: order_id's nullability and primary key, n's nullability and max.
		if len(cells) != 1 || got.rows != 1234 || got.rules != 4 || got.storage != c.storage || got.orderBy != "order_id" || got.in != c.input {
			t.Errorf("%s: cell %+v", c.input, got)
		}
	}
}

// TestWritten: the order check runs only on a table the run wrote; a DuckDB file holding only
// the quarantine (every row failed) does not count.
func TestWritten(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "out.duckdb")
	db, err := gosql.Open("duckdb", file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE orders_quarantine AS SELECT 1 AS id"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ctx := context.Background()
	if written(ctx, file+":orders") {
		t.Error("a file with only the quarantine counts as the table written")
	}
	if !written(ctx, file+":orders_quarantine") {
		t.Error("an existing table is not seen")
	}
	if written(ctx, filepath.Join(dir, "none.parquet")) {
		t.Error("a missing Parquet file counts as written")
	}
}

// TestPairedRatio checks that the guard divides each run by the floor run beside it: the fastest
// runs of each (1.2 s and 0.5 s) would make 2.4x, the runs as paired give 1.5x, 1.6x and 2.4x.
func TestPairedRatio(t *testing.T) {
	ratio, lo, hi := pairedRatio([]float64{1.6, 3.0, 1.2}, []float64{1.0, 2.0, 0.5})
	if !near(ratio, 1.6) || !near(lo, 1.5) || !near(hi, 2.4) {
		t.Fatalf("pairedRatio = %v, %v, %v; want 1.6, 1.5, 2.4", ratio, lo, hi)
	}
}

// TestCheckGuard checks the guard's verdicts: under the limit, past it, and runs that do not pair.
func TestCheckGuard(t *testing.T) {
	runs := func(floor, full []float64) []measurement {
		return []measurement{{Approach: "floor", Seconds: floor}, {Approach: "full", Seconds: full}}
	}
	if err := checkGuard(runs([]float64{1, 1, 1}, []float64{1.7, 2.5, 1.6}), 2.0); err != nil {
		t.Errorf("median 1.7x failed the 2.0x guard: %v", err)
	}
	if err := checkGuard(runs([]float64{1, 1, 1}, []float64{2.1, 1.5, 2.2}), 2.0); err == nil || !strings.Contains(err.Error(), "2.10x") {
		t.Errorf("median 2.1x passed the 2.0x guard or misreported it: %v", err)
	}
	if err := checkGuard(runs(nil, nil), 2.0); err == nil {
		t.Error("a guard with no runs passed")
	}
	if err := checkGuard(runs([]float64{1, 1}, []float64{1}), 2.0); err == nil {
		t.Error("a guard with unpaired runs passed")
	}
	failed := runs([]float64{1}, []float64{1})
	failed[1].Error = "exit status 2"
	if err := checkGuard(failed, 2.0); err == nil || !strings.Contains(err.Error(), "exit status 2") {
		t.Errorf("a failed full run did not fail the guard: %v", err)
	}
}

// TestMeasureCellRounds checks that a cell's approaches run in rounds, every other one reversed,
// and that an approach that fails runs no more while the others go on.
func TestMeasureCellRounds(t *testing.T) {
	cfg := config{runs: 4, work: t.TempDir(), approaches: []string{"floor", "counts", "full"}}
	c := cell{rows: 1000, rules: 15, storage: "parquet", schema: "s.yaml", in: "in.parquet"}
	var order []string
	fake := func(_ context.Context, args []string) (usage, error) {
		approach := args[1] // "floor" from the harness; "validate" from tablegate
		if approach == "validate" {
			approach = "counts"
			if slices.Contains(args, "--out") {
				approach = "full"
			}
		}
		order = append(order, approach)
		if approach == "counts" && len(order) > 3 {
			return usage{}, fmt.Errorf("killed")
		}
		return usage{secs: float64(len(order))}, nil
	}
	ms := measureCell(context.Background(), tools{tablegate: "tablegate", harness: "harness"}, cfg, c, fake)

	want := "floor counts full full counts floor floor full full floor"
	if got := strings.Join(order, " "); got != want {
		t.Fatalf("runs went %q, want %q", got, want)
	}
	seconds := map[string]string{}
	for _, m := range ms {
		seconds[m.Approach] = fmt.Sprintf("%v %s", m.Seconds, m.Error)
	}
	for approach, want := range map[string]string{"floor": "[1 6 7 10] ", "counts": "[2] killed", "full": "[3 4 8 9] "} {
		if seconds[approach] != want {
			t.Errorf("%s: seconds and error %q, want %q", approach, seconds[approach], want)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestProfileMarkdownCPU: with CPU times, each phase shows its CPU seconds beside its wall
// seconds, as do the whole process and the floor; a phase without one (the fsync) shows only
// its wall time.
func TestProfileMarkdownCPU(t *testing.T) {
	run := profileRun{Rows: 10_000_000, Rules: 15, Storage: "duckdb", Wall: 5.16, CPU: 9.6,
		Phases:    map[string]float64{phases[2]: 0.87, phases[5]: 3.23, phases[8]: 0.14},
		PhasesCPU: map[string]float64{phases[2]: 1.73, phases[5]: 6.45}}
	floor := measurement{Rows: 10_000_000, Rules: 15, Storage: "duckdb", Approach: "floor", Median: 3.44, MedCPU: 6.55}
	md := profileMarkdown([]profileRun{run}, []measurement{floor})
	for _, want := range []string{
		"| phase | duckdb, 10M rows, 15 rules: s (CPU s) |",
		"| failing rows with their rule columns | 0.87 (1.73) |",
		"| valid rows written | 3.23 (6.45) |",
		"| fsync (in the background, overlapped) | 0.14 |",
		"| **whole process** | 5.16 (9.60) |",
		"| the floor's whole process (median) | 3.44 (6.55) |",
		"CPU s is the process's CPU time",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("profile section lacks %q:\n%s", want, md)
		}
	}
}

// TestProfileMarkdownOneRun: a results.json from before -traces (no traced_runs) renders as the
// one run it was.
func TestProfileMarkdownOneRun(t *testing.T) {
	md := profileMarkdown([]profileRun{{Rows: 10_000_000, Rules: 15, Storage: "duckdb", Phases: map[string]float64{}, Wall: 6}}, nil)
	for _, want := range []string{"## Where the time goes (one run with `TABLEGATE_TRACE=full`)", "checked on these outputs"} {
		if !strings.Contains(md, want) {
			t.Errorf("profile section lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "CPU s") {
		t.Errorf("a run without CPU times renders CPU columns:\n%s", md)
	}
}

// TestPrepareRemakesStaleData: generated data is reused only beside a stamp of the same
// generator and arguments; a new build of tablegate, data without a stamp or a stamp without
// data is made again, removing what was derived from the old data (its DuckDB copy) first. A
// failed generation leaves no stamp behind.
func TestPrepareRemakesStaleData(t *testing.T) {
	dir := t.TempDir()
	schemas := filepath.Join(dir, "benchmarks", "schemas")
	if err := os.MkdirAll(schemas, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(schemas, "bench40.yaml"), []byte("schema: S\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir) // prepare names the schema relative to the repository root
	bin, calls := filepath.Join(dir, "tablegate"), filepath.Join(dir, "calls")
	build := func(version, exit string) { // a stand-in generator: counts its calls, writes its --out
		script := "#!/bin/sh\n# build " + version + "\necho x >> " + calls + "\nfor a; do out=$a; done\necho rows > \"$out\"\nexit " + exit + "\n"
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	generated := func() int {
		b, _ := os.ReadFile(calls)
		return strings.Count(string(b), "x")
	}
	data, copyOf := filepath.Join(dir, "data_1000.parquet"), filepath.Join(dir, "data_1000.duckdb")
	exists := func(f string) bool { _, err := os.Stat(f); return err == nil }
	tl, cfg := tools{tablegate: bin}, config{invalidRate: 0.03}
	ctx := context.Background()
	step := func(name string, cfg config, wantCalls int, wantCopy bool) {
		t.Helper()
		if err := os.WriteFile(copyOf, []byte("copy"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := prepare(ctx, tl, cfg, 1000, benchSchema, data, copyOf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if generated() != wantCalls || exists(copyOf) != wantCopy || !exists(data+".stamp") {
			t.Fatalf("%s: %d generations, copy kept %v, stamp %v; want %d, %v, true", name, generated(), exists(copyOf), exists(data+".stamp"), wantCalls, wantCopy)
		}
	}

	build("1", "0")
	step("first", cfg, 1, false)
	step("same build", cfg, 1, true)
	build("2", "0")
	step("new build", cfg, 2, false)
	if err := os.Remove(data + ".stamp"); err != nil {
		t.Fatal(err)
	}
	step("no stamp", cfg, 3, false)
	if err := os.Remove(data); err != nil {
		t.Fatal(err)
	}
	step("no data", cfg, 4, false)
	step("another invalid rate", config{invalidRate: 0.1}, 5, false)

	build("3", "1")
	if err := prepare(ctx, tl, cfg, 1000, benchSchema, data); err == nil || exists(data+".stamp") {
		t.Fatalf("failed generation: err %v, stamp left %v; want an error and no stamp", err, exists(data+".stamp"))
	}
	build("3", "0")
	step("after a failure", cfg, 7, false)
}
