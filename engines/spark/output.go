package spark

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/tablegate/tablegate/compile"
	"github.com/tablegate/tablegate/internal/durable"
	"github.com/tablegate/tablegate/internal/store"
	"github.com/tablegate/tablegate/runner"
)

// newStore is the store of the output whose table is at table and quarantine at quarantine ("" no
// quarantine), both as normalizeOutput returned them; it does no I/O. A local folder is the
// DuckDB engine's store (durable.Local), of directories.
func (e *Engine) newStore(table, quarantine string) (store.Store, error) {
	switch scheme(table) {
	case "":
		return &durable.Local{Table: table, Quarantine: quarantine, Dirs: true}, nil
	case "s3a", "s3":
		return newS3Store(e.s3, table, quarantine)
	case "hdfs":
		return newHDFSStore(e.hdfs, table, quarantine)
	}
	return nil, unsupportedOutput(table)
}

// normalizeOutput is the output's address as the run's store takes it: a local path made
// absolute (Spark would read a relative path against its own working directory, or a
// "file://dir/…" URL as a host), a file:// URL made a path, an object-store URL kept.
func normalizeOutput(out string) (string, error) {
	u, err := url.Parse(out)
	if err != nil || len(u.Scheme) <= 1 { // a path (a drive letter is no scheme)
		return filepath.Abs(out)
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return "", fmt.Errorf("the output %s names a host; write file:///PATH", out)
		}
		return filepath.Abs(u.Path)
	case "s3a", "s3":
		return strings.TrimRight(out, "/"), nil
	case "hdfs":
		return normalizeHDFS(out)
	}
	return "", unsupportedOutput(out)
}

func unsupportedOutput(out string) error {
	return fmt.Errorf("the Spark engine writes local paths (or file:// URLs) that this process and the Spark driver share, s3a:// and hdfs:// URLs; not %s", out)
}

// scheme is the URL scheme of an output's address, "" for a local path.
func scheme(address string) string {
	if i := strings.Index(address, "://"); i > 1 {
		return strings.ToLower(address[:i])
	}
	return ""
}

// abortTimeout bounds the clean-up of a failed or cancelled write.
const abortTimeout = 30 * time.Second

// writer writes a run's output as Parquet directories: Spark writes each into a temporary of the
// store, and only once Spark finished them are they put in place (the store's Commit), under the
// output's lock. Spark's own overwrite empties the target first, so a job failing mid-write would
// lose the last-known-good table.
type writer struct {
	b                 *backend
	st                store.Store
	table, quarantine string // the directories ("" no quarantine)
	tableTmp, quarTmp string
	// wroteTable and wroteQuar tell which temporaries Spark finished.
	wroteTable, wroteQuar bool
	unlock                func()
}

// Begin takes the output's lock (another run writing the same output waits), and completes what
// a killed run left there.
func (w *writer) Begin(ctx context.Context) (err error) {
	w.unlock, err = store.LockRecovered(ctx, w.st)
	return err
}

// Step runs an INSERT OVERWRITE DIRECTORY into the table's or the quarantine's temporary, and
// checks that Spark finished it.
func (w *writer) Step(ctx context.Context, s compile.Step, args ...any) error {
	var tmp string
	switch s.Op {
	case compile.WriteValid:
		tmp = w.tableTmp
	case compile.WriteInvalid:
		tmp = w.quarTmp
	default:
		return fmt.Errorf("a Spark output runs no step %q", s.Op)
	}
	if err := w.b.Exec(ctx, s.SQL, args...); err != nil {
		return err
	}
	if err := w.st.Finished(ctx, tmp); err != nil {
		return err
	}
	if s.Op == compile.WriteValid {
		w.wroteTable = true
	} else {
		w.wroteQuar = true
	}
	return nil
}

// Finish puts the finished directories in place (the store's Commit); an older quarantine that this
// run does not replace is kept as <name>.prev.parquet.
func (w *writer) Finish(ctx context.Context, conds compile.Cond) (written runner.Written, err error) {
	pending := false
	defer func() {
		if pending {
			// The commit stays recorded with its temporaries, for the next run to complete.
			w.tableTmp, w.quarTmp = "", ""
		}
		w.Abort("") // the temporaries not put in place, and the lock
	}()
	if err := ctx.Err(); err != nil {
		return written, err
	}
	c := store.Commit{Run: w.b.id}
	if w.wroteTable {
		c.Table = w.tableTmp
	}
	if w.wroteQuar {
		c.Quarantine = w.quarTmp
	} else if conds&compile.DropQuarant != 0 && w.quarantine != "" {
		c.Keep = durable.PrevPath(w.quarantine)
	}
	if c.Table == "" && c.Quarantine == "" && c.Keep == "" {
		return written, nil
	}
	done, err := w.st.Commit(ctx, c)
	pending = done.Pending
	if err != nil {
		return written, err
	}
	if c.Table != "" {
		w.tableTmp = "" // in place
	}
	if c.Quarantine != "" {
		w.quarTmp = ""
	}
	if done.Kept {
		written.Was, written.Kept = w.quarantine, c.Keep
	}
	written.Table, written.Quarantine = w.wroteTable, w.wroteQuar
	return written, nil
}

// Abort removes the temporaries not put in place and gives back the lock; the program has no
// rollback statement on Spark.
func (w *writer) Abort(string) {
	var tmps []string
	for _, tmp := range []string{w.tableTmp, w.quarTmp} {
		if tmp != "" {
			tmps = append(tmps, tmp)
		}
	}
	if len(tmps) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), abortTimeout)
		w.st.Discard(ctx, tmps...)
		cancel()
	}
	w.tableTmp, w.quarTmp = "", ""
	if w.unlock != nil {
		w.unlock()
		w.unlock = nil
	}
}
