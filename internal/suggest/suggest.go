// Package suggest finds the names nearest a mistyped one, for the "did
// you mean" of an unknown command, rule ID or check ID.
package suggest

import (
	"strings"
	"unicode/utf8"
)

// Nearest returns the candidates nearest word by edit distance (ignoring
// case), in the candidates' order: every one at the smallest distance, if
// that distance is at most a third of word's length and at least 2, and
// at most n of them (n <= 0 means no limit). It returns nil when none
// is near enough, or when word is itself a candidate.
func Nearest(word string, candidates []string, n int) []string {
	limit := max(2, utf8.RuneCountInString(word)/3)
	best := limit + 1
	var out []string
	w := strings.ToLower(word)
	for _, c := range candidates {
		d := Distance(w, strings.ToLower(c))
		switch {
		case d == 0:
			return nil
		case d < best:
			best, out = d, []string{c}
		case d == best && d <= limit:
			out = append(out, c)
		}
	}
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// Distance is the Levenshtein distance between a and b: how many runes
// must be inserted, deleted or replaced to make one the other. IDs and
// command names are short, so one row of the table is enough.
func Distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	row := make([]int, len(t)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(s); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			diag, row[j] = row[j], min(row[j]+1, row[j-1]+1, diag+cost)
		}
	}
	return row[len(t)]
}
