package duckdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/outcome"
	"github.com/tablegate/tablegate/runner"
)

// A writeSet writes several assets' outputs (a collection's members) all or nothing: after a
// failure, a kill or a full disk at any moment, every member holds its previous table and
// quarantine, or every member its new ones.
//
// For Parquet outputs it holds every member's lock, taken in one sorted order before any member
// writes a temporary, and puts every member's files in place as one durable.SetSwap: one journal
// over every member's renames, which the next run touching any member completes or rolls back.
// For DuckDB tables, all in one database file, the members' writes are one transaction.
type writeSet struct {
	members  []memberOutput
	unlock   func()
	recorded []recordedSwap
	// txn is the member whose BEGIN opened the transaction every DuckDB table member writes in
	// (nil: none open).
	txn *tableWriter
	// ended tells that the transaction was committed or rolled back.
	ended bool
}

// memberOutput is a member's output and its quarantine's name.
type memberOutput struct {
	Output         runner.Output
	QuarantineName string
}

// recordedSwap is a member's renames, recorded by its writer's Finish for the set to do.
type recordedSwap struct {
	w      *parquetWriter
	member durable.SetMember
}

// SetRefusedError is a set of outputs that tablegate cannot write all or nothing; nothing was
// written.
type SetRefusedError struct {
	Outputs []string
	Reason  string // why, and what to do instead
}

func (e *SetRefusedError) Error() string {
	return fmt.Sprintf("the outputs %s cannot be written all or nothing: %s", strings.Join(e.Outputs, ", "), e.Reason)
}

// TypeName names the error in the report.
func (e *SetRefusedError) TypeName() string { return "SetRefusedError" }

// lockMembers checks every member's output, refuses a set it cannot write all or nothing, takes
// every member output's lock in one sorted order (so that two sets sharing members never wait
// for each other in a circle), and completes or rolls back any unfinished swap or set of swaps
// touching a member, with the locks of that set's other members too. Members with a nil Output
// write nothing and are left out. The caller releases the set once it is written or failed.
func lockMembers(ctx context.Context, members []memberOutput) (*writeSet, error) {
	ws := &writeSet{members: writing(members)}
	if err := checkSet(ws.members); err != nil {
		return nil, err
	}
	var tables []string
	for _, m := range ws.members {
		if o, ok := m.Output.(runner.ParquetOutput); ok {
			if err := os.MkdirAll(filepath.Dir(o.Path), 0o755); err != nil {
				return nil, &outcome.OutputError{Output: o.Path, Err: err}
			}
			abs, err := filepath.Abs(o.Path)
			if err != nil {
				return nil, &outcome.OutputError{Output: o.Path, Err: err}
			}
			tables = append(tables, abs)
		}
	}
	if len(tables) == 0 {
		return ws, nil
	}
	// A swap rolled back here was left by a run killed since this one began (the run recovered
	// its outputs when it began, and reported what it rolled back then).
	unlock, _, err := durable.RecoverAll(ctx, tables)
	if err != nil {
		return nil, err
	}
	ws.unlock = unlock
	return ws, nil
}

// writing is the members with an output.
func writing(members []memberOutput) []memberOutput {
	var out []memberOutput
	for _, m := range members {
		if m.Output != nil {
			out = append(out, m)
		}
	}
	return out
}

// checkSet refuses, before anything is locked or written (a run checks it before it reads
// anything too), a member output that its own check refuses, two members writing the same file
// or table, and a set no one commit covers: Parquet files beside DuckDB tables, or tables in
// several database files. Members with a nil Output are left out.
func checkSet(members []memberOutput) error {
	var outs, parquet, files []string
	targets := map[string]string{} // a file or table a member writes -> that member's output
	named := map[string]string{}   // a database file, links resolved -> its path as given
	for _, m := range writing(members) {
		out := m.Output
		outs = append(outs, out.String())
		if err := checkOutput(out, m.QuarantineName); err != nil {
			return &outcome.OutputError{Output: out.String(), Err: err}
		}
		var written []string
		switch o := out.(type) {
		case runner.ParquetOutput:
			parquet = append(parquet, o.Path)
			q := o.QuarantineAddress(m.QuarantineName)
			written = []string{o.Path, q, durable.PrevPath(q)}
			for i, p := range written {
				// Links resolved: two paths through a linked folder are one file (and one lock).
				if real := runner.ResolvePath(p, 0); real != "" {
					written[i] = real
				}
			}
		case runner.TableOutput:
			file := o.File
			if file != "" {
				if abs, err := filepath.Abs(file); err == nil {
					file = abs
				}
				// One database file named by two paths (a linked folder) would be attached twice.
				if real := runner.ResolvePath(file, 0); real != "" {
					if other, ok := named[real]; ok && other != file {
						return &outcome.OutputError{Output: out.String(), Err: fmt.Errorf("%s and %s are one database file: name it the same way for every member", other, file)}
					}
					named[real] = file
				}
			}
			if !slices.Contains(files, file) {
				files = append(files, file)
			}
			for _, t := range []string{o.Table, m.QuarantineName, m.QuarantineName + "_prev"} {
				written = append(written, strings.ToLower(file+":"+o.SchemaName()+"."+t))
			}
		default:
			return &SetRefusedError{Outputs: []string{out.String()}, Reason: "tablegate writes only Parquet files and DuckDB tables all or nothing"}
		}
		for _, t := range written {
			if other, ok := targets[t]; ok {
				return &outcome.OutputError{Output: out.String(), Err: fmt.Errorf("the outputs %s and %s both write %s: give each member its own table and quarantine", other, out.String(), t)}
			}
		}
		for _, t := range written {
			targets[t] = out.String()
		}
	}
	switch {
	case len(parquet) > 0 && len(files) > 0:
		return &SetRefusedError{Outputs: outs, Reason: "Parquet files are put in place by renames and DuckDB tables by a transaction, and no one commit covers both; " +
			"write every member to Parquet files (--out-dir DIR), or every member to tables of one DuckDB database file (--out-dir FILE.duckdb)"}
	case len(files) > 1:
		return &SetRefusedError{Outputs: outs, Reason: "DuckDB commits each database file on its own, and no one commit covers several; " +
			"write every member's table to one database file (--out-dir FILE.duckdb, or --out member=FILE.duckdb:table naming the same FILE), then copy tables to other files from there"}
	}
	return nil
}

// holds checks that the set holds the Parquet output's lock.
func (ws *writeSet) holds(o runner.ParquetOutput) error {
	for _, m := range ws.members {
		if p, ok := m.Output.(runner.ParquetOutput); ok && p.Path == o.Path {
			return nil
		}
	}
	return fmt.Errorf("the output %s is not a member of the run's write set", o.Path)
}

// record keeps a member's renames for finish.
func (ws *writeSet) record(w *parquetWriter, m durable.SetMember) error {
	ws.recorded = append(ws.recorded, recordedSwap{w: w, member: m})
	return nil
}

// begin records the member whose write begins the transaction the members writing DuckDB
// tables share (compile.OpensTxn); the others' writes join it on the same connection.
func (ws *writeSet) begin(w *tableWriter) error {
	if ws.txn != nil {
		return fmt.Errorf("the members writing DuckDB tables began two transactions, which no one commit covers")
	}
	ws.txn, w.began = w, true
	return nil
}

// rollback undoes the set's transaction, once.
func (ws *writeSet) rollback() {
	if ws.txn != nil && !ws.ended {
		_, rollback := compile.SetEnd("")
		_ = ws.txn.r.exec(context.Background(), rollback.SQL)
		ws.ended = true
	}
}

// finish puts every member's outputs in place: the DuckDB tables by committing the set's one
// transaction; the Parquet files as one set of swaps, checked, journaled, renamed. When it fails
// before the commit or the journal, or a rename fails and the set is rolled back, nothing of
// any member was put in place and the temporaries are removed; a set whose rollback failed too
// stays journaled for the next run.
func (ws *writeSet) finish(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		ws.rollback()
		ws.abort()
		return err
	}
	if ws.txn != nil {
		if ws.ended {
			return fmt.Errorf("the members' transaction was rolled back")
		}
		durable.Crash("tables written")
		ws.txn.committing, ws.ended = true, true
		// ctx was checked above: cancelled during the COMMIT, the commit could take effect while
		// its error returned, and the run would report unwritten the tables it replaced.
		commit, rollback := compile.SetEnd("")
		if err := ws.txn.r.exec(context.WithoutCancel(ctx), commit.SQL); err != nil {
			_ = ws.txn.r.exec(context.Background(), rollback.SQL)
			return err
		}
		return nil
	}
	var set durable.SetSwap
	var keeps []func(int) string
	for _, r := range ws.recorded {
		if len(r.member.Swap.Steps) > 0 {
			set.Members = append(set.Members, r.member)
			keeps = append(keeps, r.w.keep)
		}
	}
	durable.Crash("outputs flushed")
	if err := set.Commit(func(m, step int) string { return keeps[m](step) }); err != nil {
		ws.abort()
		return err
	}
	if err := set.Apply(); err != nil {
		if rb := (*durable.RolledBackError)(nil); errors.As(err, &rb) {
			ws.abort() // the temporaries are back under their names
		}
		ws.recorded = nil
		return err
	}
	ws.recorded = nil
	return nil
}

// abort removes the temporaries of the members recorded and not put in place.
func (ws *writeSet) abort() {
	for _, r := range ws.recorded {
		r.w.removeTemps()
	}
	ws.recorded = nil
}

// release undoes what was written and not put in place (the transaction not committed, the
// temporaries not renamed), and gives back every lock.
func (ws *writeSet) release() {
	ws.rollback()
	ws.abort()
	if ws.unlock != nil {
		ws.unlock()
		ws.unlock = nil
	}
}
