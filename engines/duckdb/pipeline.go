package duckdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/tablegate/tablegate/casting"
	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/duckdbtune"
	"github.com/tablegate/tablegate/runner"
)

// backend is a run's DuckDB session as the engine-neutral run sees it (runner.Backend): it
// opens the asset's input, runs statements on the run's connection, and writes the output.
type backend struct {
	r *run
	a runner.Asset
	// written are the database files the output writes, which the input attaches for writing
	// too; quarantineName and keepPrevious are the output's (writerOf).
	written        map[string]bool
	quarantineName string
	keepPrevious   bool
	// release gives back the threads raised for the key aggregates (nil: none raised).
	release func()
	// src and opening are the input as its opening read it (openInput).
	src     compile.Source
	opening *compile.Opening
	// out is the output's target, named once (target).
	out *compile.Output
}

func newBackend(r *run, a runner.Asset, written map[string]bool) *backend {
	b := &backend{r: r, a: a, written: written}
	if a.Output != nil {
		b.quarantineName, b.keepPrevious = runner.QuarantineNameOf(a, runner.AssetName(a)), readsOutput(a.Input, a.Output)
	}
	return b
}

// Open opens the input, CSV and NDJSON read as the schema declares their columns, with the reads
// the column check needs (Describe, FileMismatches).
func (b *backend) Open(ctx context.Context) (compile.Relation, error) {
	o, err := b.openInput(ctx, b.a.Input, reading{declared: b.a.Plan.Schema().Columns}, true)
	return o.Rel, err
}

// openInput opens in with the run's one interpreter (runner.OpenSource): the input says what the
// engine knows of it without a statement (compile.Source), and check adds the reads the column
// check needs (the columns, each file's of several). The run drops the temp tables the opening
// made when it closes. A value of a text file that does not read as its dtype is an
// *UnreadableValueError.
func (b *backend) openInput(ctx context.Context, in runner.Input, how reading, check bool) (*compile.Opening, error) {
	r := b.r
	src, err := sourceOf(ctx, r, in, how, b.written)
	if err != nil {
		return &compile.Opening{}, err
	}
	src.ID, src.Check = r.id, check
	if check {
		src.Declared = b.a.Plan.Schema().Columns
	}
	o, err := runner.OpenSource(ctx, b, src)
	r.temps = append(r.temps, o.Temps...)
	if r.afterOpen != nil {
		r.afterOpen()
		r.afterOpen = nil
	}
	b.src, b.opening = src, o
	var u *compile.UnreadableText
	if errors.As(err, &u) {
		err = unreadableValue(in, u)
	}
	return o, err
}

// Describe is the columns the opening read (Open).
func (b *backend) Describe(context.Context, compile.Relation) ([]casting.ColumnType, error) {
	return columnTypes(b.opening.Columns), nil
}

// FileMismatches are the declared columns the files of a multi-file Parquet input store
// otherwise than the scan reads them.
func (b *backend) FileMismatches() []casting.Mismatch { return fileMismatches(b.src, b.opening) }

// Opening is the input's opening, which explain lists and the casts' check adds to.
func (b *backend) Opening() *compile.Opening { return b.opening }

// ID is the run's number.
func (b *backend) ID() int64 { return b.r.id }

func (b *backend) Exec(ctx context.Context, stmt string, args ...any) error {
	_, err := b.r.conn.ExecContext(ctx, stmt, args...)
	return err
}

func (b *backend) Query(ctx context.Context, stmt string, args ...any) (runner.Rows, error) {
	rows, err := b.r.conn.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// Refuse refuses nothing: DuckDB runs every step.
func (b *backend) Refuse(compile.Op) error { return nil }

func (b *backend) Writer() runner.Writer {
	if b.a.Output == nil {
		return nil
	}
	return writerOf(b.r, b.a.Output, b.Target(), b.quarantineName, b.keepPrevious)
}

func (b *backend) Close() error {
	b.r.close()
	return nil
}

// Fit fills the engine's facts: the run's perfect-hash threshold follows the rows
// (fitPerfectHash), and the threads the key aggregates get.
func (b *backend) Fit(f *compile.Facts) {
	r := b.r
	f.PerfectHashBits, f.SessionPerfectHash = r.fitPerfectHash(f.Rows)
	f.MemoryBudget = duckdbtune.MemoryBudget(r.memoryLimit)
	f.Threads, f.KeyThreads = r.threads, r.keyThreads
}

// Tune runs the threads' steps. ReadThreads runs with the step after it, under the engine's lock
// (threadBoost). On a database the engine opened with DuckDB's default threads, and at most
// duckdbtune.GrowThreads of them, the aggregates run with one thread more, so that DuckDB
// partitions its hash tables.
func (b *backend) Tune(ctx context.Context, s compile.Step) error {
	switch s.Op {
	case compile.ReadThreads:
	case compile.RaiseThreads:
		if b.release == nil {
			rel, err := b.r.boost.raise(ctx, b.r, b.r.keyThreads)
			if err != nil {
				return err
			}
			b.release = rel
		}
	case compile.RestoreThreads:
		if b.release != nil {
			b.release()
			b.release = nil
		}
	default:
		return fmt.Errorf("no tuning step %q", s.Op)
	}
	return nil
}

// Target is named once, when the program is compiled, and the writer writes to it: the aliases
// the run attaches files as are numbered in order, so naming it again later could name another.
func (b *backend) Target() compile.Output {
	if b.a.Output == nil {
		return compile.Output{}
	}
	if b.out == nil {
		t := targetOf(b.r, b.a.Output, b.quarantineName, b.keepPrevious)
		b.out = &t
	}
	return *b.out
}

// BlameRule finds the custom rule whose SQL raised err on the data (blameRule).
func (b *backend) BlameRule(ctx context.Context, rel compile.Relation, err error) error {
	return blameRule(ctx, b.r, b.a.Plan, rel, err)
}

// BlameTable names the table check whose SQL raised err on the data (blameTableCheck).
func (b *backend) BlameTable(ctx context.Context, rel compile.Relation, res *runner.Result, err error) error {
	return blameTableCheck(ctx, b.r, b.a.Plan, rel, res, err)
}
