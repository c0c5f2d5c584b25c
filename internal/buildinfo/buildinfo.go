// Package buildinfo tells which tablegate a binary holds, from the Go build information.
package buildinfo

import (
	"runtime/debug"
	"sync"
)

const modulePath = "github.com/tablegate/tablegate"

var tablegate = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return versionOf(info)
})

// Tablegate is the version of the tablegate module in this binary: its module version when a
// program depends on a released tablegate or was installed with `go install …@version`,
// "(devel)" when built from a checkout (with the commit, when the build recorded it).
func Tablegate() string { return tablegate() }

func versionOf(info *debug.BuildInfo) string {
	mod := &info.Main
	if mod.Path != modulePath {
		mod = nil
		for _, d := range info.Deps {
			if d.Path == modulePath {
				mod = d
				if d.Replace != nil {
					mod = d.Replace
				}
				break
			}
		}
	}
	if mod == nil || mod.Version == "" {
		return "(devel)"
	}
	v := mod.Version
	if v != "(devel)" || mod != &info.Main {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return v + " " + rev + dirty
}
