// Package version says which acpconform is running: the module version it
// was built at and, for a build from a checkout, the VCS revision.
package version

import (
	"runtime/debug"
	"strings"
)

// String describes this build, such as "v1.2.0", or "devel 1a2b3c4d5e6f
// (modified)" for a build from a checkout with local changes.
func String() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return describe(info)
}

func describe(info *debug.BuildInfo) string {
	v := info.Main.Version
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	rev := settings["vcs.revision"]
	if len(rev) > 12 {
		rev = rev[:12]
	}
	released := v != "" && v != "(devel)" && !strings.Contains(v, "-0.") && !strings.HasSuffix(v, "+dirty")
	switch {
	case released:
		return v
	case rev != "":
		s := "devel " + rev
		if settings["vcs.modified"] == "true" {
			s += " (modified)"
		}
		return s
	case v != "" && v != "(devel)":
		return v
	}
	return "devel"
}
