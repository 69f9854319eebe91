// Package version says which acpconform is running: the module version it
// was built at and the commit it was built from, as Go's build information
// records them, so that runs from different builds of the harness can be
// told apart.
//
// What Go records depends on how the binary was built:
//
//   - go install github.com/acpconform/acpconform/cmd/acpconform@v1.2.0:
//     the version v1.2.0, and no commit (the tag names it);
//   - go install ...@latest before any tag, or @COMMIT: a pseudo-version,
//     whose last part is the commit's first 12 hex digits;
//   - go build or go install ./cmd/acpconform in a clone: the commit
//     (vcs.revision) and whether the files differed from it
//     (vcs.modified), and, with Go 1.24 or later, a version worked out
//     from the tags; nothing of the kind in a git worktree, whose .git is
//     a file Go does not look into, nor with -buildvcs=false.
package version

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// Build is what a binary knows of its own build.
type Build struct {
	// Version is the module version of a tagged release, such as
	// "v1.2.0", or "devel" for any other build.
	Version string
	// Commit is the VCS revision the binary was built from: 40 hex
	// digits from a clone's build information, the 12 of a
	// pseudo-version, or "" when the build does not say.
	Commit string
	// Modified says the files built differed from Commit.
	Modified bool
	// Pseudo is the pseudo-version of Commit when Go recorded one (a
	// go install @COMMIT, or a build in a clone with Go 1.24 or later):
	// what a go.mod requires to get Commit's files. "" otherwise.
	Pseudo string
}

// Current is the build of the running binary.
func Current() Build {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Build{Version: "devel"}
	}
	return Of(info)
}

// String describes this build, as acpconform --version prints it.
func String() string { return Current().String() }

// pseudo is a pseudo-version (v0.0.0-20261201084400-2925c7f0a1b2, or
// v1.2.1-0.20261201084400-2925c7f0a1b2 after a tag): its last part is the
// commit's first 12 hex digits.
var pseudo = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+-(?:[0-9A-Za-z.-]*\.)?[0-9]{14}-([0-9a-f]{12})$`)

// Of reads a Build from Go's build information.
func Of(info *debug.BuildInfo) Build {
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	b := Build{Version: "devel", Commit: settings["vcs.revision"], Modified: settings["vcs.modified"] == "true"}
	v, build, _ := strings.Cut(info.Main.Version, "+")
	if build == "dirty" { // Go 1.24 and later: a clone's version, built with changes
		b.Modified = true
	}
	switch m := pseudo.FindStringSubmatch(v); {
	case m != nil:
		b.Pseudo = v
		if b.Commit == "" {
			b.Commit = m[1]
		}
	case strings.HasPrefix(v, "v") && build == "":
		b.Version = v
	}
	return b
}

// String is "v1.2.0", "v1.2.0, commit 1a2b…" when the commit is known,
// "devel, commit 1a2b… (modified)" for a build from a changed checkout,
// or "devel" for a build that says neither.
func (b Build) String() string {
	s := b.Version
	if b.Commit != "" {
		s += ", commit " + b.Commit
	}
	if b.Modified {
		s += " (modified)"
	}
	return s
}
