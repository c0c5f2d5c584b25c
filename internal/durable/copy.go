package durable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// copyChunk is how many bytes CopyFile copies between two looks at its context: a cancelled run
// stops within one chunk. clone shares a file's blocks (cloneFile); both are variables for tests.
var (
	copyChunk int64 = 64 << 20
	clone           = cloneFile
)

// CopyFile copies the file from into a new file to, which must not exist: by sharing the
// file's blocks where the file system can (a reflink: Btrfs, XFS, bcachefs), else in chunks
// that Go hands to copy_file_range (the kernel copies, on the same file system without reading
// the bytes into the process), else read and written. It never links to to from: the input
// stays the user's, whatever happens to the copy. ctx is honoured between chunks; a copy that
// fails or is cancelled removes to. The caller flushes to.
func CopyFile(ctx context.Context, from, to string) (err error) {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", from)
	}
	// 0o666 less the umask, as DuckDB creates the files it writes.
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := dst.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(to)
		}
	}()
	if clone(dst, src) == nil {
		Crash("copying")
		return ctx.Err()
	}
	var copied int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := io.CopyN(dst, src, copyChunk)
		copied += n
		Crash("copying")
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	if copied != st.Size() {
		return fmt.Errorf("copy %s: %d bytes copied of %d: the file changed while it was copied", from, copied, st.Size())
	}
	return nil
}
