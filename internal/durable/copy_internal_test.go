package durable

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCopyFile: a copy holds the source's bytes in a file of its own (never a link to the
// source), by a clone where the file system offers one and in chunks otherwise; a copy that
// cannot be made, or is cancelled, leaves no file behind and the source as it was. Not parallel:
// it swaps the package's clone and chunk size.
func TestCopyFile(t *testing.T) {
	big := strings.Repeat("PAR1 ünïcode \x00 bytes ", 1000)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name      string
		content   string
		noClone   bool
		chunk     int64
		ctx       context.Context
		dstExists bool
		srcDir    bool
		noSrc     bool
		err       error // nil: the copy succeeds
		copying   int   // crash points passed ("copying": after the clone or each chunk)
	}{
		{name: "cloned or copied", content: big, copying: 1},
		{name: "in chunks", content: big, noClone: true, chunk: 7000, copying: 4},
		{name: "one chunk", content: big, noClone: true, copying: 1},
		{name: "empty", content: "", noClone: true, copying: 1},
		{name: "cancelled", content: big, noClone: true, chunk: 7000, ctx: cancelled, err: context.Canceled},
		{name: "cancelled, cloned", content: big, ctx: cancelled, err: context.Canceled},
		{name: "the destination exists", content: big, dstExists: true, err: os.ErrExist},
		{name: "no source", noSrc: true, err: os.ErrNotExist},
		{name: "a folder", srcDir: true, err: errors.New("is not a regular file")},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src, dst := filepath.Join(dir, "in.parquet"), filepath.Join(dir, ".out.tmp")
			switch {
			case c.srcDir:
				require.NoError(t, os.Mkdir(src, 0o755))
			case !c.noSrc:
				require.NoError(t, os.WriteFile(src, []byte(c.content), 0o644))
			}
			if c.dstExists {
				require.NoError(t, os.WriteFile(dst, []byte("previous"), 0o644))
			}
			if c.noClone {
				restore := clone
				clone = func(_, _ *os.File) error { return errors.ErrUnsupported }
				defer func() { clone = restore }()
			}
			if c.chunk > 0 {
				restore := copyChunk
				copyChunk = c.chunk
				defer func() { copyChunk = restore }()
			}
			passed := 0
			defer SetCrashPoint(func(stage string) {
				if stage == "copying" {
					passed++
				}
			})()
			ctx := c.ctx
			if ctx == nil {
				ctx = context.Background()
			}

			err := CopyFile(ctx, src, dst)
			switch {
			case c.err == nil:
				require.NoError(t, err)
				got, err := os.ReadFile(dst)
				require.NoError(t, err)
				assert.Equal(t, c.content, string(got))
				assert.Equal(t, c.copying, passed)
				a, err := os.Stat(src)
				require.NoError(t, err)
				b, err := os.Stat(dst)
				require.NoError(t, err)
				assert.False(t, os.SameFile(a, b), "a file of its own, never a link to the source")
			case c.dstExists:
				assert.ErrorIs(t, err, c.err)
				got, rerr := os.ReadFile(dst)
				require.NoError(t, rerr)
				assert.Equal(t, "previous", string(got), "an existing file is left alone")
			default:
				if errors.Is(c.err, context.Canceled) || errors.Is(c.err, os.ErrNotExist) {
					assert.ErrorIs(t, err, c.err)
				} else {
					assert.ErrorContains(t, err, c.err.Error())
				}
				assert.NoFileExists(t, dst, "a failed copy leaves no file")
			}
			if !c.noSrc && !c.srcDir {
				got, err := os.ReadFile(src)
				require.NoError(t, err)
				assert.Equal(t, c.content, string(got), "the source as it was")
			}
		})
	}
}
