package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tablegate/tablegate"
)

// Text output limits: the text is for a person at a terminal; --format json has everything.
const (
	textSamples  = 3  // failing rows shown per check unless --samples or the environment says
	textRuleSets = 10 // invalid_by_rules lines shown
)

// textStyle says how the text output looks: colour only on a terminal without NO_COLOR, and how
// many failing rows per check (samples, 0 for the text default).
type textStyle struct {
	colour  bool
	samples int
}

const (
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBold   = "\x1b[1m"
	ansiReset  = "\x1b[0m"
)

func (s textStyle) paint(code, text string) string {
	if !s.colour || text == "" {
		return text
	}
	return code + text + ansiReset
}

// status is the run's verdict word (tablegate.Verdict, as the page says it) and its colour.
func status(rep *tablegate.Report) (word, colour string) {
	word = tablegate.Verdict(rep)
	return word, map[string]string{"FAIL": ansiRed, "WARN": ansiYellow, "PASS": ansiGreen}[word]
}

func printText(w io.Writer, rep *tablegate.Report, st textStyle) {
	word, colour := status(rep)
	name := rep.Asset
	if name != "" && !strings.EqualFold(name, rep.Schema) {
		name += " (" + rep.Schema + ")"
	} else {
		name = rep.Schema
	}
	header := fmt.Sprintf("%s %s: %s", st.paint(ansiBold+colour, word), name, *rep.Outcome)
	if *rep.Outcome != tablegate.ColumnSchemaMismatch && *rep.Outcome != tablegate.Skipped {
		header += fmt.Sprintf(" — %s input, %s valid, %s invalid", count(rep.Rows.Input), count(rep.Rows.Valid), count(rep.Rows.Invalid))
	}
	fmt.Fprintln(w, header)
	if rep.Table.Address != "" {
		state := "not written"
		if rep.Table.Written {
			state = "written"
		}
		fmt.Fprintf(w, "  table: %s (%s)\n", rep.Table.Address, state)
	} else {
		fmt.Fprintln(w, "  table: none (validated in place)")
	}
	if rep.Quarantine.Address != "" {
		state := "not written"
		if rep.Quarantine.Written {
			state = fmt.Sprintf("written, %s rows", count(rep.Quarantine.Rows))
		}
		fmt.Fprintf(w, "  quarantine: %s (%s)\n", rep.Quarantine.Address, state)
	}
	if n := len(rep.CastColumns); n > 0 {
		parts := make([]string, n)
		for i, c := range rep.CastColumns {
			parts[i] = c.String()
		}
		fmt.Fprintf(w, "  cast: %s\n", strings.Join(parts, ", "))
	}
	if n := len(rep.DroppedColumns); n > 0 {
		fmt.Fprintf(w, "  dropped: %s not in the schema, not written: %s\n", plural(n, "input column"), strings.Join(rep.DroppedColumns, ", "))
	}
	printChecks(w, rep.Checks, st)
	printRuleSets(w, rep.InvalidByRules)
	printRows(w, "valid sample", rep.ValidSample)
	printRows(w, "invalid sample", rep.InvalidSample)
	fmt.Fprintf(w, "  health: %s\n", rep.Health)
}

// printChecks lists the failing checks, those failing at ERROR first, one line each with its
// severity, whether it blocked the write, its failed count and share of the input (right-aligned
// over every line) and description, then its most frequent failing values and its failing rows.
func printChecks(w io.Writer, checks []tablegate.Check, st textStyle) {
	var failing []tablegate.Check
	for _, c := range checks {
		if !c.Passed {
			failing = append(failing, c)
		}
	}
	slices.SortStableFunc(failing, func(a, b tablegate.Check) int {
		return cmp.Compare(severityRank(a.Severity), severityRank(b.Severity))
	})
	fmt.Fprintf(w, "  checks: %d, %d failing\n", len(checks), len(failing))
	nameW, countW, shareW := 0, 0, 0
	counts, shares := make([]string, len(failing)), make([]string, len(failing))
	for i, c := range failing {
		nameW = max(nameW, len(c.Name))
		if c.Failed > 0 {
			counts[i] = count(c.Failed)
		}
		if c.Share != nil {
			shares[i] = "(" + tablegate.FormatPercent(*c.Share) + ")"
		}
		countW, shareW = max(countW, len(counts[i])), max(shareW, len(shares[i]))
	}
	for i, c := range failing {
		sevColour := ansiYellow
		if c.Severity == tablegate.CheckError {
			sevColour = ansiRed
		}
		blocked := "         "
		if c.Blocking && c.Severity == tablegate.CheckError { // a blocking check within its tolerance blocks nothing
			blocked = "blocked  "
		}
		failed := ""
		if counts[i] != "" {
			failed = fmt.Sprintf("%*s failed", countW, counts[i])
		} else if countW > 0 {
			failed = strings.Repeat(" ", countW+len(" failed"))
		}
		if shareW > 0 {
			failed += fmt.Sprintf(" %*s", shareW, shares[i])
		}
		fmt.Fprintf(w, "    %s %s%-*s  %s  %s\n", st.paint(sevColour, fmt.Sprintf("%-5s", c.Severity)), blocked, nameW, c.Name, failed, c.Description)
		if c.Table != nil || c.Tolerance != nil {
			// A table check: what it found against what it requires; a rule check with a
			// tolerance: how the tolerance judged its count.
			fmt.Fprintf(w, "          %s\n", c.ResultDescription)
		}
		if len(c.FailingValues) > 0 {
			fmt.Fprintf(w, "          most frequent failing values: %s\n", tablegate.FormatValues(c.FailingValues))
		}
		if len(c.Mismatches) > 0 {
			fmt.Fprintf(w, "          %s\n", jsonText(c.Mismatches))
		}
		rows := c.Samples
		limit := st.samples
		if limit == 0 {
			limit = textSamples
		}
		for j, row := range rows {
			if j == limit {
				fmt.Fprintf(w, "          … %d more failing rows shown with --format json\n", len(rows)-limit)
				break
			}
			data := jsonText(row)
			fmt.Fprintf(w, "          %s\n", data)
		}
	}
}

// severityRank orders failing checks: ERROR before WARN.
func severityRank(s tablegate.CheckSeverity) int {
	if s == tablegate.CheckError {
		return 0
	}
	return 1
}

// printRuleSets prints the top sets of rules that invalid rows failed, with their counts aligned.
func printRuleSets(w io.Writer, sets []tablegate.RuleSet) {
	if len(sets) == 0 {
		return
	}
	fmt.Fprintln(w, "  invalid rows by rules:")
	width := 0
	for i, s := range sets {
		if i == textRuleSets {
			break
		}
		width = max(width, len(count(s.Count)))
	}
	for i, s := range sets {
		if i == textRuleSets {
			fmt.Fprintf(w, "    … %d more (see --format json)\n", len(sets)-textRuleSets)
			break
		}
		fmt.Fprintf(w, "    %*s  %s\n", width, count(s.Count), s.Rules)
	}
}

func printRows(w io.Writer, title string, rows []json.RawMessage) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "  %s:\n", title)
	for _, r := range rows {
		data := jsonText(r)
		fmt.Fprintf(w, "    %s\n", data)
	}
}

// jsonText is v as one line of JSON, without escaping <, > and & (it is read, not embedded).
func jsonText(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// indentJSON is v as the commands' JSON (tablegate.IndentJSON).
func indentJSON(v any) ([]byte, error) { return tablegate.IndentJSON(v) }

// count spells a count with thousands separators, so long counts stay readable when aligned, as
// the page and tablegate history spell them.
var count = tablegate.FormatCount

// plural is n and a noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return count(int64(n)) + " " + noun + "s"
}
