package durable

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ReplaceFile replaces the file path with what write writes, whole: into a temporary file beside
// it, renamed into place once complete, so that a reader never sees half a file and a write that
// fails (a full disk) leaves the previous file as it was. A symbolic link at path is followed:
// its target is replaced. The error names path, not the temporary file.
func ReplaceFile(path string, write func(io.Writer) error) error {
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	}
	err := renameInto(target, write)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: "write", Path: path, Err: pe.Err}
	}
	return err
}

func renameInto(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing left to remove
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
