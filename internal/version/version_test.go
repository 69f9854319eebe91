package version

import (
	"runtime/debug"
	"testing"
)

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		version  string
		settings map[string]string
		want     string
	}{
		{"v1.2.0", nil, "v1.2.0"},
		{"(devel)", map[string]string{"vcs.revision": "1a2b3c4d5e6f7a8b", "vcs.modified": "true"}, "devel 1a2b3c4d5e6f (modified)"},
		{"v0.0.0-20261201084400-2925c7f0a1b2+dirty", map[string]string{"vcs.revision": "2925c7f0a1b2c3d4"}, "devel 2925c7f0a1b2"},
		{"(devel)", nil, "devel"},
		{"", nil, "devel"},
	} {
		info := &debug.BuildInfo{Main: debug.Module{Version: tc.version}}
		for k, v := range tc.settings {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: k, Value: v})
		}
		if got := describe(info); got != tc.want {
			t.Errorf("describe(%q, %v) = %q, want %q", tc.version, tc.settings, got, tc.want)
		}
	}
}
