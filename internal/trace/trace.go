// Package trace writes one line per statement an engine runs, with its wall time and the
// process's CPU time over it, to a writer the caller injects (the CLI's TABLEGATE_TRACE).
package trace

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Tracer writes one line per statement with its wall time and the process's CPU time over it,
// to see where a slow run spends its time and how many cores each statement keeps busy:
//
//	tablegate trace:   0.822s   1.610s cpu  CREATE OR REPLACE TEMP TABLE …
//
// The CPU time is the whole process's (user + system), so it includes work that overlaps the
// statement, such as another run of the same engine. Lines of concurrent statements (a run's
// background fsync, other runs) do not interleave. A nil *Tracer traces nothing.
type Tracer struct {
	mu   sync.Mutex
	w    io.Writer
	full bool // whole statements, not their first 160 characters
}

// New is a tracer writing to w; full writes whole statements, not their first 160 characters.
func New(w io.Writer, full bool) *Tracer { return &Tracer{w: w, full: full} }

// Start is when a traced statement started, by the clock and by the process's CPU time.
type Start struct {
	wall time.Time
	cpu  time.Duration // < 0: not measured
}

// Begin starts timing a statement.
func (t *Tracer) Begin() Start {
	if t == nil {
		return Start{}
	}
	return Start{wall: time.Now(), cpu: processCPU()}
}

// WallOnly starts timing work whose CPU time would be another statement's (a background fsync).
func WallOnly() Start { return Start{wall: time.Now(), cpu: -1} }

// Log writes the line of a statement that started at s.
func (t *Tracer) Log(s Start, query string) {
	if t == nil {
		return
	}
	q := strings.Join(strings.Fields(query), " ")
	if len(q) > 160 && !t.full {
		q = q[:160] + "…"
	}
	wall := time.Since(s.wall).Seconds()
	line := fmt.Sprintf("tablegate trace: %7.3fs  %s\n", wall, q)
	if s.cpu >= 0 {
		if end := processCPU(); end >= 0 {
			line = fmt.Sprintf("tablegate trace: %7.3fs %7.3fs cpu  %s\n", wall, (end - s.cpu).Seconds(), q)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = io.WriteString(t.w, line)
}
