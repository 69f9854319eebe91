package suggest

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"TOK-22", "TOK-2", 1},
		{"explian", "explain", 2},
		{"flaw", "lawn", 2},
		{"é", "e", 1}, // runes, not bytes
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	rules := []string{"TOK-1", "TOK-2", "TOK-3", "CAP-1", "SCH-10"}
	for _, tc := range []struct {
		word string
		max  int
		want []string
	}{
		{"TOK-22", 0, []string{"TOK-2"}},
		{"tok-2x", 0, []string{"TOK-2"}},                  // case is ignored
		{"TOK-9", 0, []string{"TOK-1", "TOK-2", "TOK-3"}}, // all at the smallest distance
		{"TOK-9", 2, []string{"TOK-1", "TOK-2"}},
		{"TOK-2", 0, nil}, // a candidate itself
		{"NOPE-77", 0, nil},
		{"NOPE-1", 0, nil}, // each three away: beyond the limit, not at it // nothing near
		{"SCH-1", 0, []string{"SCH-10"}},
	} {
		if got := Nearest(tc.word, rules, tc.max); !slices.Equal(got, tc.want) {
			t.Errorf("Nearest(%q, %d) = %q, want %q", tc.word, tc.max, got, tc.want)
		}
	}
}
