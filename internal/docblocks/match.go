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
	wi, gi := firstMiss(wl, gl)
	wantLine, gotLine := "(end of output)", "(end of output)"
	if wi < len(wl) {
		wantLine = wl[wi]
	}
	if gi < len(gl) {
		gotLine = gl[gi]
	}
	return fmt.Errorf("line %d of the output shown is not there:\nwant: %s\ngot:  %s (output line %d)", wi+1, wantLine, gotLine, gi+1)
}

// firstMiss matches want against got greedily, each line after a "..."
// at its first match, and returns where it failed: the index of the line
// of want not found (len(want) for output left over) and of got there.
func firstMiss(want, got []string) (int, int) {
	gi, loose := 0, false
	for wi, w := range want {
		if w == "..." {
			loose = true
			continue
		}
		re, found := lineRe(w), -1
		for j := gi; j < len(got) && (loose || j == gi); j++ {
			if re.MatchString(got[j]) {
				found = j
				break
			}
		}
		if found < 0 {
			return wi, gi
		}
		gi, loose = found+1, false
	}
	return len(want), gi
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
