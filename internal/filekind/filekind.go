// Package filekind refuses a path that is not the kind of file tablegate may open there. A
// named pipe blocks an open until a writer comes (forever, and past SIGINT or SIGTERM, since the
// process is inside a system call), a device such as /dev/zero reads without end, and a socket
// cannot be opened: so every path tablegate reads or writes (inputs and each file of a glob,
// database files, outputs, reports, the history) is looked at with stat, which does not open
// it, before anything opens it.
package filekind

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Error is a path whose file is of a kind tablegate does not open there.
type Error struct {
	Path string
	Kind string // what the file is: "a named pipe (FIFO)", "a character device", ...
	Want string // what the path must name: "a regular file", "a directory"
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s is %s, not %s", e.Path, e.Kind, e.Want)
}

// Describe names a file's kind from its mode, as messages say it.
func Describe(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file (" + m.Type().String() + ")"
}

// Regular refuses a path that names something other than a regular file, after following
// symbolic links. A path that does not exist, or cannot be looked at, passes: the opener says
// what is wrong with it, as it would have.
func Regular(path string) error { return check(path, "a regular file", fs.FileMode.IsRegular) }

// Directory refuses a path that names something other than a directory (links followed); a
// missing path passes.
func Directory(path string) error { return check(path, "a directory", fs.FileMode.IsDir) }

// NotSpecial refuses a named pipe, a device, a socket (links followed): a path whose open or
// read could block or never end. A regular file, a directory or a missing path passes.
func NotSpecial(path string) error {
	return check(path, "a regular file", func(m fs.FileMode) bool { return m.IsRegular() || m.IsDir() })
}

func check(path, want string, ok func(fs.FileMode) bool) error {
	st, err := os.Stat(path)
	if err != nil || ok(st.Mode()) {
		return nil
	}
	return &Error{Path: path, Kind: Describe(st.Mode()), Want: want}
}

// Open opens a regular file for reading, links followed, and refuses (as *Error) anything else
// without waiting on it: the path is looked at first, then opened without blocking, so that a
// named pipe put there meanwhile is refused by the opened file's kind rather than waited on.
func Open(path string) (*os.File, error) {
	if err := Regular(path); err != nil {
		return nil, err // a socket cannot be opened at all: say what it is
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &Error{Path: path, Kind: Describe(info.Mode()), Want: "a regular file"}
	}
	return f, nil
}
