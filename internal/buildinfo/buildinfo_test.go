package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	for _, c := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"the CLI from a checkout", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}, "(devel)"},
		{"the CLI from a checkout with VCS stamping", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "(devel) 0123456789ab-dirty"},
		{"go install @version", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v0.3.0"}}, "v0.3.0"},
		{"a program that depends on tablegate", debug.BuildInfo{Main: debug.Module{Path: "example.com/etl", Version: "(devel)"},
			Deps: []*debug.Module{{Path: "golang.org/x/sys", Version: "v0.47.0"}, {Path: modulePath, Version: "v0.4.1"}}}, "v0.4.1"},
		{"a program that replaces tablegate", debug.BuildInfo{Main: debug.Module{Path: "example.com/etl"},
			Deps: []*debug.Module{{Path: modulePath, Version: "v0.4.1", Replace: &debug.Module{Path: "../tablegate", Version: ""}}}}, "(devel)"},
		{"a program without tablegate", debug.BuildInfo{Main: debug.Module{Path: "example.com/etl", Version: "v1.0.0"}}, "(devel)"},
	} {
		if got := versionOf(&c.info); got != c.want {
			t.Errorf("%s: versionOf = %q, want %q", c.name, got, c.want)
		}
	}
}
