package tablegate

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/tablegate/tablegate/internal/filekind"
)

// createTemp creates a new file beside path with the mode a plain create gives (0666 less the
// umask), as the file it becomes should have: os.CreateTemp's 0600 would hide a schema or a
// contract from the rest of a team.
func createTemp(path string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.%d", filepath.Base(path), rand.Uint32()))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("no free temporary name beside %s", path)
}

// WriteFile writes a file tablegate made for its user (a schema from InferSchema, a contract from
// ExportContract) whole: written beside it and linked or renamed into place, so that it is
// complete or absent, with the mode a plain create gives. It replaces an existing file only with
// replace (without, a file created meanwhile is not replaced either), and refuses anything but a
// regular file there (a named pipe, a device, a folder).
func WriteFile(path string, data []byte, replace bool) error {
	if err := filekind.Regular(path); err != nil {
		return err
	}
	tmp, err := createTemp(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !replace {
		// Link fails when path exists, so a file created meanwhile is not replaced.
		if err := os.Link(tmp.Name(), path); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
