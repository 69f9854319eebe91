package docblocks

import (
	"fmt"
	"regexp"
	"strings"
)

// Match reports whether got is the output want shows, and if not, the
// first line where they part. want matches loosely in two ways only, for
// what varies from run to run (times, temporary paths): a line that is
// just "..." stands for any number of lines, none included; elsewhere
// "..." stands for any text within one line. Everything else matches
// exactly, spaces included.
func Match(want, got string) error {
	wl, gl := splitLines(want), splitLines(got)
	if matchFrom(wl, gl) {
		return nil
	}
	// Say where: the longest prefix of want that matches some prefix of got.
	n := 0
	for n < len(wl) && n < len(gl) && wl[n] != "..." && lineRe(wl[n]).MatchString(gl[n]) {
		n++
	}
	wantLine, gotLine := "(end of output)", "(end of output)"
	if n < len(wl) {
		wantLine = wl[n]
	}
	if n < len(gl) {
		gotLine = gl[n]
	}
	return fmt.Errorf("output differs at line %d:\nwant: %s\ngot:  %s", n+1, wantLine, gotLine)
}

func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// matchFrom matches want against got, backtracking over "..." lines.
func matchFrom(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for skip := 0; skip <= len(got); skip++ {
			if matchFrom(want[1:], got[skip:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && lineRe(want[0]).MatchString(got[0]) && matchFrom(want[1:], got[1:])
}

// lineRe is one line of want as an anchored regexp, "..." as ".*".
func lineRe(line string) *regexp.Regexp {
	parts := strings.Split(line, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}
