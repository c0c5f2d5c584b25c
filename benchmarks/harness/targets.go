package main

import (
	"fmt"
	"slices"
	"strings"
)

// goal is one of tablegate's speed or memory targets, checked against one run's medians.
type goal struct {
	what   string  // the target, in words
	cell   string  // where it is measured
	value  float64 // this run's ratio (or relative change)
	limit  float64
	atMost bool    // met when value <= limit (else when value >= limit)
	format string  // how value and limit print: "%.2f×" or "%+.1f%%"
	spread float64 // run-to-run spread of the cells behind value (max-min over median), 0 if unknown
	bound  float64 // for "faster than a peer": the peer's run over the floor, the best any validation that also copies could reach
	// for "full within X× the copy": 1 + counts-only over the floor, the copy plus evaluating
	// every rule once, each as its own process
	copyPlusEval float64
	// for "full within X× the copy": the full run's CPU time spread evenly over every core, over
	// the copy's wall time; no overlap of the same work can go below it. busy is the share of
	// the cores the full run kept busy. cpuRatio is the full run's CPU time over the copy's, and
	// floorBusy the share of the cores the copy kept busy: a full run that uses the cores no
	// better than the plain copy does takes at least cpuRatio times as long.
	cpuBound, busy      float64
	cpuRatio, floorBusy float64
	missing             string // why value is unknown, when a cell was not measured
}

// goals computes the targets from the cells of one run: rows rows (10M when measured), 15 rules,
// and 40 rules for the per-rule and the 15 -> 40 targets. cores is the machine's (0: unknown).
func goals(all []measurement, rows int64, cores int) []goal {
	get := func(rules int, storage, approach string) *measurement {
		return find(all, rows, rules, storage, approach)
	}
	ratioGoal := func(g goal, num, den *measurement) goal {
		if num == nil || den == nil {
			g.missing = "not measured in this run"
			return g
		}
		g.value = num.Median / den.Median
		g.spread = max(spread(num), spread(den))
		return g
	}
	cell := func(rules int, storage string) string {
		return fmt.Sprintf("%s rows, %d rules, %s", humanRows(rows), rules, storage)
	}
	fullGoal := func(what, storage string, limit float64) goal {
		g := ratioGoal(goal{what: what, cell: cell(15, storage), limit: limit, atMost: true, format: "%.2f×"},
			get(15, storage, "full"), get(15, storage, "floor"))
		if counts, floor := get(15, storage, "counts"), get(15, storage, "floor"); counts != nil && floor != nil {
			g.copyPlusEval = 1 + counts.Median/floor.Median
		}
		if full, floor := get(15, storage, "full"), get(15, storage, "floor"); full != nil && floor != nil && full.MedCPU > 0 && cores > 0 {
			g.cpuBound = full.MedCPU / float64(cores) / floor.Median
			g.busy = full.MedCPU / float64(cores) / full.Median
			if floor.MedCPU > 0 {
				g.cpuRatio = full.MedCPU / floor.MedCPU
				g.floorBusy = floor.MedCPU / float64(cores) / floor.Median
			}
		}
		return g
	}
	var out []goal
	out = append(out,
		fullGoal("Parquet → Parquet full validation ≤ 1.8× the plain COPY", "parquet", 1.8),
		fullGoal("DuckDB table → table ≤ 1.4× the plain CTAS", "duckdb", 1.4),
		ratioGoal(goal{what: "counts-only validation ≤ 1.1× the plain COPY", cell: cell(15, "parquet"), limit: 1.1, atMost: true, format: "%.2f×"},
			get(15, "parquet", "counts"), get(15, "parquet", "floor")),
	)
	for _, p := range []struct {
		rules int
		limit float64
	}{{15, 5}, {40, 8}} {
		per, full, floor := get(p.rules, "parquet", "perrule"), get(p.rules, "parquet", "full"), get(p.rules, "parquet", "floor")
		g := ratioGoal(goal{what: fmt.Sprintf("≥ %.0f× faster than per-rule queries at %d rules", p.limit, p.rules), cell: cell(p.rules, "parquet"), limit: p.limit, format: "%.2f×"}, per, full)
		if per != nil && floor != nil {
			g.bound = per.Median / floor.Median
		}
		out = append(out, g)
	}
	dy, full, floor := get(15, "parquet", "dataframely"), get(15, "parquet", "full"), get(15, "parquet", "floor")
	g := ratioGoal(goal{what: "≥ 2× faster than dataframely", cell: cell(15, "parquet"), limit: 2, format: "%.2f×"}, dy, full)
	if dy != nil && floor != nil {
		g.bound = dy.Median / floor.Median
	}
	out = append(out, g)
	mem := goal{what: "≤ 0.3× dataframely's peak memory", cell: cell(15, "parquet"), limit: 0.3, atMost: true, format: "%.2f×"}
	if dy != nil && full != nil && dy.MedRSS > 0 {
		mem.value = full.MedRSS / dy.MedRSS
	} else {
		mem.missing = "not measured in this run"
	}
	out = append(out, mem)
	for _, storage := range []string{"parquet", "duckdb"} {
		g := goal{what: "15 → 40 rules costs ≤ +15%", cell: fmt.Sprintf("%s rows, full, %s", humanRows(rows), storage), limit: 15, atMost: true, format: "%+.1f%%"}
		f15, f40 := get(15, storage, "full"), get(40, storage, "full")
		if f15 == nil || f40 == nil {
			g.missing = "not measured in this run"
		} else {
			g.value = (f40.Median/f15.Median - 1) * 100
			g.spread = max(spread(f15), spread(f40))
		}
		out = append(out, g)
	}
	return out
}

// spread is a cell's run-to-run range relative to its median.
func spread(m *measurement) float64 {
	if m == nil || len(m.Seconds) < 2 || m.Median == 0 {
		return 0
	}
	return (slices.Max(m.Seconds) - slices.Min(m.Seconds)) / m.Median
}

func (g goal) met() bool {
	if g.atMost {
		return g.value <= g.limit
	}
	return g.value >= g.limit
}

// verdict says whether the target is met and, when it is not, by how much, and whether the gap
// is within the run-to-run spread or past what the floor allows.
func (g goal) verdict() string {
	if g.missing != "" {
		return g.missing
	}
	if g.met() {
		return "met"
	}
	gap := g.value - g.limit
	rel := gap / g.limit * 100
	if g.format == "%+.1f%%" {
		return fmt.Sprintf("missed by %.1f points", gap)
	}
	v := fmt.Sprintf("missed by %.2f× (%.0f%%)", abs(gap), abs(rel))
	if g.spread > 0 && abs(rel)/100 <= g.spread {
		v += fmt.Sprintf(", within this cell's run-to-run spread (%.0f%%)", g.spread*100)
	}
	if g.copyPlusEval > 0 {
		v += fmt.Sprintf("; the copy and the counts-only run (every rule evaluated, nothing written) add up to %.2f× the copy", g.copyPlusEval)
	}
	switch {
	case g.cpuBound >= g.limit:
		v += fmt.Sprintf("; its CPU time alone, spread over every core, is %.2f× the copy: only less work can meet it", g.cpuBound)
	case g.cpuRatio >= g.limit:
		v += fmt.Sprintf("; its CPU time is %.2f× the copy's (%.2f× the copy spread over every core): meeting it takes less work, or keeping the cores busier than the plain copy does (%.0f%%; the full run %.0f%%)", g.cpuRatio, g.cpuBound, g.floorBusy*100, g.busy*100)
	case g.cpuBound > 0:
		v += fmt.Sprintf("; its CPU time, spread over every core, would be %.2f× the copy (it kept the cores %.0f%% busy)", g.cpuBound, g.busy*100)
	}
	switch {
	case g.bound > 0 && g.bound < g.limit:
		v += fmt.Sprintf("; out of reach: the peer's whole run is %.2f× the plain copy, so even a validation costing nothing beyond the copy would be only %.2f× faster", g.bound, g.bound)
	case g.bound > 0:
		v += fmt.Sprintf("; the peer's whole run is %.2f× the plain copy, so meeting it means full validation within %.2f× the copy", g.bound, g.bound/g.limit)
	}
	return v
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// targetRows is the row count the targets are read at: 10M when measured, else the largest.
func targetRows(rows []int64) int64 {
	if slices.Contains(rows, 10_000_000) {
		return 10_000_000
	}
	return slices.Max(rows)
}

func goalsMarkdown(all []measurement, rows []int64, cores int) string {
	n := targetRows(rows)
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Against the speed and memory targets (%s rows; 2 cores is the targets' machine)\n\n", humanRows(n))
	b.WriteString("| target | cell | this run | verdict |\n| --- | --- | --- | --- |\n")
	for _, g := range goals(all, n, cores) {
		value := "–"
		if g.missing == "" {
			value = fmt.Sprintf(g.format, g.value)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", g.what, g.cell, value, g.verdict())
	}
	b.WriteString("\nSpread is the range of a cell's runs over its median; a gap inside it is noise on this machine. " +
		"Why each missed target is missed, with per-statement profiles: benchmarks/README.md, \"Why the other targets are out of reach\".\n")
	return b.String()
}
