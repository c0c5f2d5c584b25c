package spark

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	dialect "github.com/tablegate/tablegate/compile/spark"
)

// writes is what a run writes: the valid rows to table and the invalid rows to quarantine
// (directories), each from its SQL; "" writes nothing there.
type writes struct {
	table, quarantine       string
	tableSQL, quarantineSQL string
	// keepQuarantine moves an older quarantine aside (kept, never deleted) when this run has
	// none to write, so that the quarantine beside the table is always this run's.
	keepQuarantine bool
}

// write writes each output into a temporary sibling directory, checks that Spark finished it
// (its _SUCCESS marker), and only then swaps it into place: Spark's own overwrite empties the
// target first, so a job failing mid-write would lose the last-known-good table. The quarantine
// side is swapped first, so a new table never sits beside an older quarantine. It returns where
// an older quarantine was kept, if it was moved aside.
func (r *run) write(ctx context.Context, w writes) (kept string, err error) {
	var temps []string
	defer func() {
		for _, t := range temps {
			_ = os.RemoveAll(t) // left only when the swap did not happen
		}
	}()
	writeDir := func(target, query string) (string, error) {
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return "", err
		}
		tmp := fmt.Sprintf("%s.tg-tmp-%s", target, r.id)
		temps = append(temps, tmp)
		u := "file://" + tmp
		if err := r.s.Exec(ctx, fmt.Sprintf("INSERT OVERWRITE DIRECTORY %s USING parquet %s", dialect.String(u), query)); err != nil {
			return "", err
		}
		if _, err := os.Stat(filepath.Join(tmp, "_SUCCESS")); err != nil {
			return "", fmt.Errorf("the write reported success but %s has no _SUCCESS marker: %w (is the path on a filesystem the Spark driver and this process share?)", tmp, err)
		}
		return tmp, nil
	}
	var tableTmp, quarTmp string
	if w.tableSQL != "" {
		if tableTmp, err = writeDir(w.table, w.tableSQL); err != nil {
			return "", err
		}
	}
	if w.quarantineSQL != "" {
		if quarTmp, err = writeDir(w.quarantine, w.quarantineSQL); err != nil {
			return "", err
		}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if w.keepQuarantine {
		if _, err := os.Lstat(w.quarantine); err == nil {
			kept = strings.TrimSuffix(w.quarantine, filepath.Ext(w.quarantine)) + ".prev" + filepath.Ext(w.quarantine)
			if err := os.RemoveAll(kept); err != nil {
				return "", err
			}
			if err := os.Rename(w.quarantine, kept); err != nil {
				return "", err
			}
		}
	}
	if quarTmp != "" {
		if err := r.swapIn(quarTmp, w.quarantine); err != nil {
			return kept, err
		}
	}
	if tableTmp != "" {
		if err := r.swapIn(tableTmp, w.table); err != nil {
			return kept, err
		}
	}
	return kept, nil
}

// recoverSwap completes what a run killed between its two renames left: a missing target whose
// previous directory is still under <target>.tg-old-<run> gets it back. Temporaries of other runs
// (<target>.tg-tmp-<run>) are left alone: one may still be writing.
func recoverSwap(target string) error {
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	olds, err := filepath.Glob(globEscape(target) + ".tg-old-*")
	if err != nil || len(olds) == 0 {
		return err
	}
	if len(olds) > 1 {
		return fmt.Errorf("%s is missing and %d earlier outputs wait beside it (%s): move the one to keep to %s", target, len(olds), strings.Join(olds, ", "), target)
	}
	return os.Rename(olds[0], target)
}

// globEscape quotes the glob metacharacters of a path.
func globEscape(p string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(p)
}

// swapIn replaces target by the finished directory tmp: the old target is renamed aside, tmp
// renamed into place, and the old one removed. Between the two renames the old output is whole
// under <target>.tg-old-<run>.
func (r *run) swapIn(tmp, target string) error {
	old := fmt.Sprintf("%s.tg-old-%s", target, r.id)
	hadOld := false
	if _, err := os.Lstat(target); err == nil {
		if err := os.Rename(target, old); err != nil {
			return err
		}
		hadOld = true
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, target); err != nil {
		if hadOld {
			_ = os.Rename(old, target)
		}
		return err
	}
	if hadOld {
		return os.RemoveAll(old)
	}
	return nil
}
