package runner

import (
	"context"
	"fmt"

	"github.com/tablegate/tablegate/compile"
)

// OpenSource opens the input src describes by running the statements that open it
// (compile.Opener's Next: compile.Source, or an engine's own), stage by stage, on b: the one
// interpreter of inputs as of programs. The
// Opening is returned also with an error, with the statements that ran and the temp tables and
// attachment they made, which the backend gives back when it closes.
func OpenSource(ctx context.Context, b Backend, src compile.Opener) (*compile.Opening, error) {
	o := &compile.Opening{}
	for {
		st, err := src.Next(o)
		if err != nil || len(st.Steps) == 0 {
			return o, err
		}
		if err := runStage(ctx, b, st, o); err != nil {
			return o, err
		}
	}
}

// ReadStep runs a read step (compile.ReadRow, ReadRows) of the input's checks that the caller
// builds from what it found once the input is open (the cast probe, after the column check),
// records it in o, where explain lists it, and returns the rows it read.
func ReadStep(ctx context.Context, b Backend, o *compile.Opening, s compile.Step) ([][]any, error) {
	rows, err := openStep(ctx, b, s, nil)
	o.Ran(s, rows)
	return rows, err
}

// runStage runs a stage's steps in order, each read recorded in o; after a failure only its
// Cleanup steps run.
func runStage(ctx context.Context, b Backend, st compile.Stage, o *compile.Opening) error {
	var failed error
	for i, s := range st.Steps {
		if failed != nil && s.Op != compile.Cleanup {
			continue
		}
		var args []any
		if i < len(st.Args) {
			args = st.Args[i]
		}
		rows, err := openStep(ctx, b, s, args)
		switch {
		case err == nil:
			o.Ran(s, rows)
		case s.Op == compile.Cleanup:
			o.Ran(s, nil) // the session ends anyway
		case st.Advisory:
			o.Ran(s, nil)
		default:
			o.Ran(s, nil)
			failed = err
			if st.Fail != nil {
				failed = st.Fail(err)
			}
		}
	}
	return failed
}

// openStep runs one step that opens an input and returns what it read (an empty, non-nil list
// for a read of no rows).
func openStep(ctx context.Context, b Backend, s compile.Step, args []any) ([][]any, error) {
	switch s.Op {
	case compile.Exec, compile.Cleanup:
		if s.Op == compile.Cleanup {
			ctx = context.WithoutCancel(ctx) // it gives back what the stage took, also when ctx is done
		}
		return nil, b.Exec(ctx, s.SQL, args...)
	case compile.ReadRow, compile.ReadRows:
		return readRows(ctx, b, s.SQL, args, s.Op == compile.ReadRow)
	}
	return nil, fmt.Errorf("an input is opened by no step %q", s.Op)
}

// readRows reads a query's rows (first: its first row only), every column as the driver gives
// it. The backend's Rows tell their columns (as *database/sql.Rows do).
func readRows(ctx context.Context, b Backend, query string, args []any, first bool) ([][]any, error) {
	rows, err := b.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	c, ok := rows.(interface{ Columns() ([]string, error) })
	if !ok {
		return nil, fmt.Errorf("the engine's rows do not tell their columns")
	}
	cols, err := c.Columns()
	if err != nil {
		return nil, err
	}
	out := [][]any{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, vals)
		if first {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, rows.Close()
}
