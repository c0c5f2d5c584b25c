package durable

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// NameMax is the longest file name the file system of dir (or of its nearest existing folder)
// allows, in bytes.
func NameMax(dir string) int {
	for {
		var st unix.Statfs_t
		if err := unix.Statfs(dir, &st); err == nil && st.Namelen > 0 {
			return int(st.Namelen)
		} else if err == nil || !os.IsNotExist(err) {
			return defaultNameMax
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return defaultNameMax
		}
		dir = parent
	}
}
