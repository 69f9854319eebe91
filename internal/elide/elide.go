// Package elide bounds and escapes text that a subject under test controls,
// so that no report, log line or terminal gets more than a set number of
// bytes of it, nor a character of it that is not plain text. What is cut is
// replaced by a marker giving the size of the whole: "… [1048576 bytes in
// all]"; what is escaped shows as \x1b or \u202e (see [Escape]).
package elide

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Head keeps at most max bytes from the start of s, cut at a rune boundary,
// and says how long s was.
func Head(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return s[:runeStart(s, max)] + marker(len(s))
}

// Tail keeps at most max bytes from the end of s, where the last words of
// a log are, and says how long s was.
func Tail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := len(s) - max
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return strings.TrimSpace(marker(len(s))) + " …" + s[cut:]
}

// Lines keeps at most max bytes of every line of s, and the first n lines.
func Lines(s string, n, max int) string {
	lines := strings.Split(s, "\n")
	more := 0
	if len(lines) > n {
		more = len(lines) - n
		lines = lines[:n]
	}
	for i, l := range lines {
		lines[i] = Head(l, max)
	}
	if more > 0 {
		lines = append(lines, fmt.Sprintf("… [%d more lines]", more))
	}
	return strings.Join(lines, "\n")
}

func marker(total int) string { return fmt.Sprintf(" … [%d bytes in all]", total) }

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// JSON writes v as compact JSON, at most max bytes of it: a value a
// subject sent, quoted in a message.
func JSON(v any, max int) string {
	b, err := json.Marshal(v)
	if err != nil {
		return Head(fmt.Sprint(v), max)
	}
	return Head(string(b), max)
}
