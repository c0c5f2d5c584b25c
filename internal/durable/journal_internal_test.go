package durable

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
}

func folder(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string]string{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			out[e.Name()] = "(" + e.Type().String() + ")"
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out[e.Name()] = string(data)
	}
	return out
}

// TestRecordedSwapThatCannotCompleteIsRolledBack: a journal whose rename the file system refuses
// (a name longer than it allows, as a --quarantine-name too long once recorded) no longer blocks
// every later run: the next recovery rolls the renames done back, puts the replaced file back
// from its hard link, removes the journal and says so; a second recovery finds nothing to do.
func TestRecordedSwapThatCannotCompleteIsRolledBack(t *testing.T) {
	long := strings.Repeat("q", NameMax(t.TempDir())+1) + ".parquet"
	for _, tc := range []struct {
		name  string
		steps []rename
		files map[string]string
		want  map[string]string
	}{
		{
			name:  "first rename fails (a journal from before keeps)",
			steps: []rename{{From: "q.tmp", To: long}, {From: "t.tmp", To: "t.parquet"}},
			files: map[string]string{"t.parquet": "old table", "q.tmp": "new quarantine", "t.tmp": "new table"},
			want:  map[string]string{"t.parquet": "old table", "q.tmp": "new quarantine", "t.tmp": "new table"},
		},
		{
			name:  "second rename fails",
			steps: []rename{{From: "q.tmp", To: "q.parquet", Keep: "q.keep"}, {From: "t.tmp", To: long, Fresh: true}},
			files: map[string]string{"q.parquet": "old quarantine", "q.tmp": "new quarantine", "t.tmp": "new table"},
			want:  map[string]string{"q.parquet": "old quarantine", "q.tmp": "new quarantine", "t.tmp": "new table"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			for _, st := range tc.steps {
				if st.Keep != "" {
					require.NoError(t, os.Link(filepath.Join(dir, st.To), filepath.Join(dir, st.Keep)))
				}
			}
			data, err := json.Marshal(tc.steps)
			require.NoError(t, err)
			table := filepath.Join(dir, "t.parquet")
			require.NoError(t, os.WriteFile(JournalPath(table), data, 0o644))

			err = RecoverSwap(table)
			var rb *RolledBackError
			require.ErrorAs(t, err, &rb)
			assert.ErrorIs(t, err, syscall.ENAMETOOLONG)
			assert.Contains(t, err.Error(), "could not be completed")
			assert.Contains(t, err.Error(), "rolled back, the previous files are in place")
			assert.Equal(t, tc.want, folder(t, dir), "the previous files, and the temporaries (which the table's cleanup removes)")
			assert.NoError(t, RecoverSwap(table), "nothing is left to recover")
		})
	}
}

// TestSwapRolledBackWhenARenameFails: a swap whose rename fails after others were done (here the
// source of the last one is gone) puts every replaced file back, removes its journal and its
// hard links, and returns a *RolledBackError.
func TestSwapRolledBackWhenARenameFails(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"q.parquet": "old quarantine", "q.prev.parquet": "older quarantine", "t.parquet": "old table",
		"q.tmp": "new quarantine", "t.tmp": "new table"})
	table := filepath.Join(dir, "t.parquet")
	s := Swap{Dir: dir}
	s.Add("q.parquet", "q.prev.parquet")
	s.Add("q.tmp", "q.parquet")
	s.Add("t.tmp", "t.parquet")
	require.NoError(t, s.Commit(JournalPath(table), func(i int) string { return "keep" + string(rune('0'+i)) }))
	assert.Equal(t, []rename{{From: "q.parquet", To: "q.prev.parquet", Keep: "keep0"}, {From: "q.tmp", To: "q.parquet", Fresh: true},
		{From: "t.tmp", To: "t.parquet", Keep: "keep2"}}, s.Steps, "the replaced files are kept; q.parquet is moved away before it is replaced")
	restore := SetCrashPoint(func(stage string) {
		if stage == "renamed 1" {
			require.NoError(t, os.Remove(filepath.Join(dir, "t.tmp")))
		}
	})
	defer restore()
	err := s.Apply(0, JournalPath(table))
	var rb *RolledBackError
	require.ErrorAs(t, err, &rb)
	assert.True(t, errors.Is(err, os.ErrNotExist))
	assert.Equal(t, map[string]string{"q.parquet": "old quarantine", "q.prev.parquet": "older quarantine", "t.parquet": "old table",
		"q.tmp": "new quarantine"}, folder(t, dir), "the previous files, no journal, no hard link")
}

// TestSwapCheckRefusesBeforeRecording: a target that is a folder or a named pipe, or a name too
// long, is refused before anything is kept, recorded or renamed.
func TestSwapCheckRefusesBeforeRecording(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"q.tmp": "new quarantine", "t.tmp": "new table", "q.parquet": "old quarantine"})
	require.NoError(t, os.Mkdir(filepath.Join(dir, "t.parquet"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo.parquet"), 0o644))
	before := folder(t, dir)
	for to, want := range map[string]string{
		"t.parquet":                         "is a directory, not a regular file",
		"fifo.parquet":                      "is a named pipe (FIFO), not a regular file",
		strings.Repeat("x", NameMax(dir)+1): "allows at most",
	} {
		s := Swap{Dir: dir}
		s.Add("q.tmp", "q.parquet")
		s.Add("t.tmp", to)
		err := s.Commit(JournalPath(filepath.Join(dir, "t.parquet")), func(i int) string { return "keep" + string(rune('0'+i)) })
		require.Error(t, err)
		assert.Contains(t, err.Error(), want)
		assert.Equal(t, before, folder(t, dir), "nothing changed for %s", to)
	}
}

// TestRollbackFailureKeepsBothCauses: when undoing a rename fails too, the error wraps the
// rename that stopped the swap and the one that stopped the rollback, for errors.Is on either.
func TestRollbackFailureKeepsBothCauses(t *testing.T) {
	dir := t.TempDir()
	stopped := errors.New("the rename that stopped the swap")
	// The renamed file is gone, so putting it back fails.
	s := Swap{Dir: dir, Steps: []rename{{From: "t.tmp", To: "t.parquet", Fresh: true}}}
	err := s.rollback(1, "", stopped)
	require.Error(t, err)
	assert.ErrorIs(t, err, stopped)
	assert.ErrorIs(t, err, os.ErrNotExist, "the rollback's own failure")
	assert.Contains(t, err.Error(), "rolling the swap back failed too")
}
