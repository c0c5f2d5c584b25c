package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/tablegate/tablegate"
)

// Progress modes (--progress).
const (
	progressAuto  = "auto"  // a spinner with the phase, rows and bytes, on a terminal only
	progressPlain = "plain" // a line per phase with its duration, for CI logs
	progressNone  = "none"
)

func progressFlag(cmd *cobra.Command, mode *string) {
	*mode = progressAuto
	cmd.Flags().Var((*progressValue)(mode), "progress", "auto (a spinner on a terminal), plain (a line per phase with its duration) or none")
}

// progressValue is --progress's value. It refuses a flag as its value: `--progress --format
// json` would otherwise read "--format" as the mode and leave "json" a stray argument.
type progressValue string

func (v *progressValue) String() string { return string(*v) }
func (v *progressValue) Type() string   { return "string" }
func (v *progressValue) Set(s string) error {
	if strings.HasPrefix(s, "-") {
		return fmt.Errorf("needs a value (auto, plain or none) before %s", s)
	}
	*v = progressValue(s)
	return nil
}

func checkProgress(mode string) error {
	switch mode {
	case progressAuto, progressPlain, progressNone:
		return nil
	}
	return usagef("--progress %q: use auto, plain or none", mode)
}

// progress shows a run's phases on stderr. DuckDB's own query progress is not reachable
// through the driver, so a phase shows the rows it works on and the input's size instead of a
// percentage.
type progress struct {
	mu    sync.Mutex // sample updates it from a timer
	mode  string
	tty   bool
	out   io.Writer
	bytes int64 // the input's size, 0 when unknown
	// memberBytes are, in a collection's run, each member's input size.
	memberBytes map[string]int64
	started     time.Time
	phase       string
	member      string // the member the phase works on, in a collection's run
	rows        int64
	phaseStart  time.Time
	done        bool // finished: a late update shows nothing
	bar         *progressbar.ProgressBar
}

func newProgress(w io.Writer, mode string, tty bool, inputBytes int64) *progress {
	now := time.Now()
	return &progress{mode: mode, tty: tty, out: w, bytes: inputBytes, started: now, phaseStart: now}
}

// newCollectionProgress shows a collection's run: each member's phases, named after it, and the
// collection's own.
func newCollectionProgress(w io.Writer, mode string, tty bool, members map[string]tablegate.MemberIO) *progress {
	p := newProgress(w, mode, tty, 0)
	p.memberBytes = map[string]int64{}
	for name, m := range members {
		if m.Input != nil {
			p.memberBytes[name] = inputBytes(m.Input)
		}
	}
	return p
}

func (p *progress) update(pr tablegate.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	if p.mode == progressPlain {
		if pr.Phase != p.phase || pr.Member != p.member {
			p.endPhase()
		}
		p.phase, p.member, p.rows = pr.Phase, pr.Member, max(p.rows, pr.Rows)
		return
	}
	p.phase, p.member, p.rows = pr.Phase, pr.Member, pr.Rows
	// The spinner waits a second: a quick run shows nothing.
	if p.mode != progressAuto || !p.tty || time.Since(p.started) < time.Second && pr.Phase == "reading input" {
		return
	}
	desc := p.describe(pr.Phase, pr.Member, pr.Rows)
	if p.bar == nil {
		bar := progressbar.NewOptions(-1, progressbar.OptionSetWriter(p.out), progressbar.OptionSpinnerType(14),
			progressbar.OptionSetDescription(desc), progressbar.OptionClearOnFinish())
		p.bar = bar
		go func() {
			for !bar.IsFinished() {
				_ = bar.Add(1)
				time.Sleep(100 * time.Millisecond)
			}
		}()
		return
	}
	p.bar.Describe(desc)
}

// describe is the phase with the rows and bytes it works on, after its member's name in a
// collection's run.
func (p *progress) describe(phase, member string, rows int64) string {
	bytes := p.bytes
	if p.memberBytes != nil {
		bytes = p.memberBytes[member]
	}
	if member != "" {
		phase = member + ": " + phase
	}
	switch {
	case rows > 0 && bytes > 0:
		return fmt.Sprintf("%s (%s rows, %s)", phase, count(rows), sizeText(bytes))
	case rows > 0:
		return fmt.Sprintf("%s (%s rows)", phase, count(rows))
	case bytes > 0:
		return fmt.Sprintf("%s (%s)", phase, sizeText(bytes))
	}
	return phase
}

// endPhase prints the phase that ends, with its duration (plain mode).
func (p *progress) endPhase() {
	now := time.Now()
	if p.phase != "" {
		fmt.Fprintf(p.out, "progress: %s: %.2fs\n", p.describe(p.phase, p.member, p.rows), now.Sub(p.phaseStart).Seconds())
	}
	p.phase, p.member, p.rows, p.phaseStart = "", "", 0, now
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.done = true
	if p.mode == progressPlain {
		p.endPhase()
		fmt.Fprintf(p.out, "progress: done in %.2fs\n", time.Since(p.started).Seconds())
	}
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// inputBytes is the size of a file input (every file of a glob), 0 when it is not files.
func inputBytes(in tablegate.Input) int64 {
	var pattern string
	switch in := in.(type) {
	case tablegate.ParquetInput:
		pattern = in.Path
	case tablegate.CSVInput:
		pattern = in.Path
	case tablegate.NDJSONInput:
		pattern = in.Path
	default:
		return 0
	}
	matches, _ := filepath.Glob(pattern)
	var n int64
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil {
			n += st.Size()
		}
	}
	return n
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
