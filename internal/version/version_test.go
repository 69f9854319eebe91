package version

import (
	"runtime/debug"
	"testing"
)

// TestOf reads what each way of building acpconform records.
func TestOf(t *testing.T) {
	const rev = "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"
	for _, tc := range []struct {
		how      string
		version  string
		settings map[string]string
		want     Build
		text     string
	}{
		{"go install @v1.2.0", "v1.2.0", nil, Build{Version: "v1.2.0"}, "v1.2.0"},
		{"goreleaser, at a tag", "v1.2.0", map[string]string{"vcs.revision": rev, "vcs.modified": "false"}, Build{Version: "v1.2.0", Commit: rev}, "v1.2.0, commit " + rev},
		{"go install @latest before a tag", "v0.0.0-20261201084400-2925c7f0a1b2", nil, Build{Version: "devel", Commit: "2925c7f0a1b2", Pseudo: "v0.0.0-20261201084400-2925c7f0a1b2"}, "devel, commit 2925c7f0a1b2"},
		{"go install @COMMIT after a tag", "v1.2.1-0.20261201084400-2925c7f0a1b2", nil, Build{Version: "devel", Commit: "2925c7f0a1b2", Pseudo: "v1.2.1-0.20261201084400-2925c7f0a1b2"}, "devel, commit 2925c7f0a1b2"},
		{"a clone, Go 1.24 and later", "v0.0.0-20261201084400-1a2b3c4d5e6f", map[string]string{"vcs.revision": rev, "vcs.modified": "false"}, Build{Version: "devel", Commit: rev, Pseudo: "v0.0.0-20261201084400-1a2b3c4d5e6f"}, "devel, commit " + rev},
		{"a clone, Go before 1.24", "(devel)", map[string]string{"vcs.revision": rev, "vcs.modified": "true"}, Build{Version: "devel", Commit: rev, Modified: true}, "devel, commit " + rev + " (modified)"},
		{"a changed clone", "v0.0.0-20261201084400-1a2b3c4d5e6f+dirty", map[string]string{"vcs.revision": rev, "vcs.modified": "true"}, Build{Version: "devel", Commit: rev, Modified: true, Pseudo: "v0.0.0-20261201084400-1a2b3c4d5e6f"}, "devel, commit " + rev + " (modified)"},
		{"a clone at a tag, changed", "v1.2.0+dirty", map[string]string{"vcs.revision": rev, "vcs.modified": "true"}, Build{Version: "devel", Commit: rev, Modified: true}, "devel, commit " + rev + " (modified)"},
		{"a worktree, or -buildvcs=false", "(devel)", nil, Build{Version: "devel"}, "devel"},
		{"no module version at all", "", nil, Build{Version: "devel"}, "devel"},
	} {
		info := &debug.BuildInfo{Main: debug.Module{Version: tc.version}}
		for k, v := range tc.settings {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: k, Value: v})
		}
		got := Of(info)
		if got != tc.want || got.String() != tc.text {
			t.Errorf("%s (%q, %v): %+v, %q; want %+v, %q", tc.how, tc.version, tc.settings, got, got.String(), tc.want, tc.text)
		}
	}
}
