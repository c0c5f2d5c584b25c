package main

import (
	"bufio"
	"cmp"
	"context"
	gosql "database/sql"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablegate/tablegate/sql"
)

// phases, in the order a run executes them; a traced statement belongs to the first that claims it.
var phases = []string{
	"failing keys (GROUP BY … HAVING per key group)",
	"suspects (filters pushed into the Parquet scan)",
	"failing rows with their rule columns",
	"counts, samples, invalid_by_rules",
	"bitmaps of row ordinals",
	"valid rows written",
	"quarantine written",
	"commit",
	"fsync (in the background, overlapped)",
	"other (schema check, setup, clean-up)",
}

// phaseOf names the phase of one statement printed by TABLEGATE_TRACE=full. Statements that
// create a table belong to the phase of the table they create.
func phaseOf(stmt string) string {
	created := ""
	if strings.HasPrefix(stmt, "CREATE ") {
		created, _, _ = strings.Cut(stmt, " AS ")
	}
	in := func(s, sub string) bool { return strings.Contains(s, sub) }
	switch {
	case strings.HasPrefix(stmt, "fsync "):
		return phases[8]
	case strings.HasPrefix(stmt, "COPY "):
		// By the file it writes (its temporary ends -quarantine.tmp): a column may be named like
		// the quarantine.
		if in(stmt[strings.LastIndex(stmt, " TO ")+1:], "-quarantine.tmp") {
			return phases[6]
		}
		return phases[5]
	case strings.HasPrefix(stmt, "-- copy the input file "):
		return phases[5] // a run that removes no row publishes the input's bytes
	case strings.HasPrefix(stmt, "COMMIT"):
		return phases[7]
	case in(created, "__tg_keys"):
		return phases[0]
	case in(created, "__tg_suspects_"):
		return phases[1]
	case in(created, `"__tg_failed_`):
		return phases[2]
	case in(created, "_blocks_") || strings.HasPrefix(stmt, "SET VARIABLE") || strings.HasPrefix(stmt, "RESET VARIABLE") || strings.HasPrefix(stmt, "SELECT block"):
		return phases[4]
	case strings.HasPrefix(stmt, "CREATE OR REPLACE TABLE "):
		if in(created, "_quarantine") {
			return phases[6]
		}
		return phases[5]
	case strings.HasPrefix(stmt, "SELECT") && in(stmt, `"__tg_failed_`):
		return phases[3]
	}
	return phases[9]
}

// profileRun is one traced run of full validation: seconds per phase and the process's wall
// time, with the CPU time of each (absent from older results.json files, which had no CPU times).
type profileRun struct {
	Rows      int64              `json:"rows"`
	Rules     int                `json:"rules"`
	Storage   string             `json:"storage"`
	Phases    map[string]float64 `json:"phases_s"`
	PhasesCPU map[string]float64 `json:"phases_cpu_s,omitempty"` // the process's CPU time over each phase's statements
	Wall      float64            `json:"wall_s"`
	CPU       float64            `json:"cpu_s,omitempty"`         // the process's CPU time (user + system)
	Traced    int                `json:"traced_runs,omitempty"`   // runs traced; this one had the median wall time (0: one run)
	OrderErr  string             `json:"order_error,omitempty"`   // why the order check failed
	OrderSkip string             `json:"order_skipped,omitempty"` // why it did not run
	Checked   int64              `json:"order_checked_rows"`      // valid rows whose position was checked
}

// order says what the order check found.
func (p profileRun) order() string {
	switch {
	case p.OrderErr != "":
		return p.OrderErr
	case p.OrderSkip != "":
		return "not checked: " + p.OrderSkip
	}
	return fmt.Sprintf("kept (%d valid rows, none out of place)", p.Checked)
}

// profile runs full validation n (≥ 1) times with TABLEGATE_TRACE=full, cleaning the outputs
// before each, and checks every run's valid rows for input order. It reports the run with the
// median wall time, since one traced run can land on a slow moment of the machine, with the
// first order failure of any run.
func profile(ctx context.Context, cmd []string, c cell, out string, n int, clean func()) (profileRun, error) {
	runs := make([]profileRun, 0, n)
	var order profileRun // the order check's findings over all runs
	for i := range n {
		clean()
		p, err := tracedRun(ctx, cmd, c)
		if err != nil {
			return profileRun{}, err
		}
		runs = append(runs, p)
		switch {
		case order.OrderErr != "": // the first failure stands
		case c.orderBy == "":
			order.OrderSkip = "the schema has no one-column primary key to find each valid row's input row by"
		case !written(ctx, out):
			order.OrderSkip = "the run wrote no table"
		default:
			checked, err := orderKept(ctx, c.storage, c.in, out, c.orderBy)
			if err != nil {
				order.OrderErr = fmt.Sprintf("traced run %d: %v", i+1, err)
			}
			order.Checked = checked
		}
	}
	p := medianByWall(runs)
	p.OrderErr, p.OrderSkip, p.Checked = order.OrderErr, order.OrderSkip, order.Checked
	if n > 1 {
		p.Traced = n
	}
	return p, nil
}

// medianByWall returns the run with the median wall time (the lower middle for an even count).
func medianByWall(runs []profileRun) profileRun {
	sorted := slices.Clone(runs)
	slices.SortStableFunc(sorted, func(a, b profileRun) int { return cmp.Compare(a.Wall, b.Wall) })
	return sorted[(len(sorted)-1)/2]
}

// tracedRun runs full validation once with TABLEGATE_TRACE=full and sums statement times, wall
// and CPU, by phase.
func tracedRun(ctx context.Context, cmd []string, c cell) (profileRun, error) {
	p := profileRun{Rows: c.rows, Rules: c.rules, Storage: c.storage, Phases: map[string]float64{}, PhasesCPU: map[string]float64{}}
	run := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
	run.Env = append(os.Environ(), "TABLEGATE_TRACE=full")
	var stderr strings.Builder
	run.Stderr = &stderr
	start := time.Now()
	err := run.Run()
	p.Wall = time.Since(start).Seconds()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		return p, fmt.Errorf("traced run: %v: %s", err, lastLine(stderr.String()))
	}
	p.CPU = (run.ProcessState.UserTime() + run.ProcessState.SystemTime()).Seconds()
	sc := bufio.NewScanner(strings.NewReader(stderr.String()))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if t, ok := parseTrace(sc.Text()); ok {
			ph := phaseOf(t.stmt)
			p.Phases[ph] += t.wall
			if t.hasCPU {
				p.PhasesCPU[ph] += t.cpu
			}
		}
	}
	return p, nil
}

// written tells whether a run left its table at out (a Parquet path, or FILE.duckdb:table: a run
// whose every row failed writes only the quarantine there).
func written(ctx context.Context, out string) bool {
	dst := parseTarget(out)
	if _, err := os.Stat(dst.file); err != nil {
		return false
	}
	if dst.table == "" {
		return true
	}
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		return false
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var n int
	if _, err := db.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS dst (READ_ONLY)", sql.String(dst.file))); err != nil {
		return false
	}
	err = db.QueryRowContext(ctx, "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'dst' AND schema_name = 'main' AND table_name = ?", dst.table).Scan(&n)
	return err == nil && n == 1
}

// traceLine is one statement of a trace: its wall time and, unless it ran in the background,
// the process's CPU time over it.
type traceLine struct {
	wall, cpu float64
	hasCPU    bool
	stmt      string
}

// traceFormat is a line of TABLEGATE_TRACE: the wall time, the process's CPU time over the
// statement (absent on a background fsync, and in traces of older tablegates), the statement.
var traceFormat = regexp.MustCompile(`^tablegate trace: +([0-9.]+)s(?: +([0-9.]+)s cpu)?  (.*)$`)

// parseTrace reads "tablegate trace:   0.123s   0.240s cpu  STATEMENT".
func parseTrace(line string) (traceLine, bool) {
	m := traceFormat.FindStringSubmatch(line)
	if m == nil {
		return traceLine{}, false
	}
	t := traceLine{stmt: m[3], hasCPU: m[2] != ""}
	var err error
	if t.wall, err = strconv.ParseFloat(m[1], 64); err != nil {
		return traceLine{}, false
	}
	if t.hasCPU {
		if t.cpu, err = strconv.ParseFloat(m[2], 64); err != nil {
			return traceLine{}, false
		}
	}
	return t, true
}

// orderKept checks that the valid rows are in input order. Valid rows have unique keys (the
// primary key rule fails every row of a repeated key), so each output row finds its input row
// by key; its position among the valid rows must be the rank of that input row's position.
func orderKept(ctx context.Context, storage, in, out, key string) (int64, error) {
	db, err := gosql.Open("duckdb", "")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var inRel, outRel string
	if storage == "parquet" {
		// Across the files of a glob, file_index then file_row_number is the input order.
		inRel = fmt.Sprintf("SELECT %s AS k, (file_index::BIGINT << 40) + file_row_number AS pos FROM read_parquet(%s, file_row_number = true)", sql.Ident(key), sql.String(in))
		outRel = fmt.Sprintf("SELECT %s AS k, file_row_number AS pos FROM read_parquet(%s, file_row_number = true)", sql.Ident(key), sql.String(out))
	} else {
		src, dst := parseTarget(in), parseTarget(out)
		for _, s := range []string{
			fmt.Sprintf("ATTACH %s AS src (READ_ONLY)", sql.String(src.file)),
			fmt.Sprintf("ATTACH %s AS dst (READ_ONLY)", sql.String(dst.file)),
		} {
			if _, err := db.ExecContext(ctx, s); err != nil {
				return 0, err
			}
		}
		inRel = fmt.Sprintf("SELECT %s AS k, rowid AS pos FROM src.main.%s", sql.Ident(key), sql.Ident(src.table))
		outRel = fmt.Sprintf("SELECT %s AS k, rowid AS pos FROM dst.main.%s", sql.Ident(key), sql.Ident(dst.table))
	}
	var rows, matched, misplaced int64
	q := fmt.Sprintf(`SELECT (SELECT count(*) FROM (%s)), count(*), count(*) FILTER (WHERE o_pos <> expected) FROM (
  SELECT o.pos AS o_pos, row_number() OVER (ORDER BY i.pos) - 1 AS expected
  FROM (%s) AS o JOIN (%s) AS i ON o.k = i.k)`, outRel, outRel, inRel)
	if err := db.QueryRowContext(ctx, q).Scan(&rows, &matched, &misplaced); err != nil {
		return 0, fmt.Errorf("order check: %w", err)
	}
	switch {
	case matched != rows:
		return 0, fmt.Errorf("order check: %d valid rows matched %d input rows by %s", rows, matched, key)
	case misplaced > 0:
		return rows, fmt.Errorf("%d of %d valid rows out of input order", misplaced, rows)
	}
	return rows, nil
}

func profileMarkdown(runs []profileRun, all []measurement) string {
	if len(runs) == 0 {
		return ""
	}
	var b strings.Builder
	if n := runs[0].Traced; n > 1 {
		fmt.Fprintf(&b, "\n## Where the time goes (of %d runs with `TABLEGATE_TRACE=full`, the one with the median wall time)\n\n| phase |", n)
	} else {
		b.WriteString("\n## Where the time goes (one run with `TABLEGATE_TRACE=full`)\n\n| phase |")
	}
	anyCPU := false
	for _, p := range runs {
		unit := "s"
		if len(p.PhasesCPU) > 0 {
			unit, anyCPU = "s (CPU s)", true
		}
		fmt.Fprintf(&b, " %s, %s rows, %d rules: %s |", p.Storage, humanRows(p.Rows), p.Rules, unit)
	}
	b.WriteString("\n| --- |" + strings.Repeat(" --- |", len(runs)) + "\n")
	for _, ph := range phases {
		fmt.Fprintf(&b, "| %s |", ph)
		for _, p := range runs {
			v, ok := p.Phases[ph]
			if !ok {
				b.WriteString(" – |")
				continue
			}
			if c, ok := p.PhasesCPU[ph]; ok {
				fmt.Fprintf(&b, " %.2f (%.2f) |", v, c)
			} else {
				fmt.Fprintf(&b, " %.2f |", v)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("| **whole process** |")
	for _, p := range runs {
		if len(p.PhasesCPU) > 0 && p.CPU > 0 {
			fmt.Fprintf(&b, " %.2f (%.2f) |", p.Wall, p.CPU)
		} else {
			fmt.Fprintf(&b, " %.2f |", p.Wall)
		}
	}
	b.WriteString("\n| the floor's whole process (median) |")
	for _, p := range runs {
		switch f := find(all, p.Rows, p.Rules, p.Storage, "floor"); {
		case f != nil && len(p.PhasesCPU) > 0 && f.MedCPU > 0:
			fmt.Fprintf(&b, " %.2f (%.2f) |", f.Median, f.MedCPU)
		case f != nil:
			fmt.Fprintf(&b, " %.2f |", f.Median)
		default:
			b.WriteString(" – |")
		}
	}
	if anyCPU {
		b.WriteString("\n\nCPU s is the process's CPU time (user + system) over the phase's statements: a phase that kept every core busy has about the cores' count times its seconds. The fsync runs beside the next write, so it has none of its own.")
	}
	where := "these outputs"
	if runs[0].Traced > 1 {
		where = "the outputs of every traced run"
	}
	fmt.Fprintf(&b, "\n\nInput row order of the valid rows, checked on %s (each valid row's position against its input row's, found by the primary key):\n\n", where)
	for _, p := range runs {
		if p.OrderErr != "" {
			fmt.Fprintf(&b, "- %s: **%s**\n", p.Storage, p.OrderErr)
		} else {
			fmt.Fprintf(&b, "- %s: %s\n", p.Storage, p.order())
		}
	}
	return b.String()
}
