package elide_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/acpconform/acpconform/internal/elide"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, text, line string }{
		{"plain text, é and 日本", "plain text, é and 日本", "plain text, é and 日本"},
		{"two\nlines\tand a tab", "two\nlines\tand a tab", `two\x0alines\x09and a tab`},
		{"crlf\r\nend\r", "crlf\nend\\x0d", `crlf\x0d\x0aend\x0d`},
		{"\x1b]0;title\x07\x1b[2K\rforged", `\x1b]0;title\x07\x1b[2K\x0dforged`, `\x1b]0;title\x07\x1b[2K\x0dforged`},
		{"nul\x00 del\x7f", `nul\x00 del\x7f`, `nul\x00 del\x7f`},
		{"c1 \u0085\u009b end", `c1 \u0085\u009b end`, `c1 \u0085\u009b end`},
		{"bidi \u202eevil\u202c \u2066x\u2069 \u200f", `bidi \u202eevil\u202c \u2066x\u2069 \u200f`, `bidi \u202eevil\u202c \u2066x\u2069 \u200f`},
		{"sep\u2028x\u2029 \ufffe\uffff", `sep\u2028x\u2029 \ufffe\uffff`, `sep\u2028x\u2029 \ufffe\uffff`},
		{"bad \xff\xfe \xc3( \x9b2J \xed\xa0\x80", `bad \xff\xfe \xc3( \x9b2J \xed\xa0\x80`, `bad \xff\xfe \xc3( \x9b2J \xed\xa0\x80`},
		{`a backslash \x1b stays`, `a backslash \x1b stays`, `a backslash \x1b stays`},
		{"\ufffd is text", "\ufffd is text", "\ufffd is text"},
	} {
		if got := elide.Escape(tc.in); got != tc.text {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.text)
		}
		if got := elide.EscapeLine(tc.in); got != tc.line {
			t.Errorf("EscapeLine(%q) = %q, want %q", tc.in, got, tc.line)
		}
	}
}

// TestEscapeEveryControl escapes each C0 and C1 control character and DEL,
// and leaves every other rune below U+0800 as it is.
func TestEscapeEveryControl(t *testing.T) {
	for r := rune(0); r < 0x800; r++ {
		s := string(r)
		got := elide.EscapeLine(s)
		control := r < 0x20 || r >= 0x7f && r < 0xa0 || r == 0x61c
		switch {
		case control && (got == s || strings.ContainsFunc(got, unicode.IsControl)):
			t.Errorf("EscapeLine(%q) = %q, want an escape", s, got)
		case !control && got != s:
			t.Errorf("EscapeLine(%q) = %q, want it as it is", s, got)
		}
	}
}

func TestEscapeLeavesPlainTextAlone(t *testing.T) {
	s := strings.Repeat("plain text\n", 1000)
	if allocs := testing.AllocsPerRun(10, func() { elide.Escape(s) }); allocs != 0 {
		t.Errorf("Escape of plain text allocates %v times, want none", allocs)
	}
}

func TestNewWriter(t *testing.T) {
	var b bytes.Buffer
	w := elide.NewWriter(&b)
	if n, err := fmt.Fprint(w, "ok\n\x1b[8mhidden"); n != 13 || err != nil {
		t.Errorf("Write = %d, %v; want 13, nil (the bytes given)", n, err)
	}
	if want := `ok` + "\n" + `\x1b[8mhidden`; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

func ExampleEscape() {
	fmt.Println(elide.Escape("\x1b[2K\rdone \u202eevil\xff"))
	// Output: \x1b[2K\x0ddone \u202eevil\xff
}

// FuzzEscape: whatever the text, Escape's result is UTF-8 with no control
// character but newline and tab, nothing that reorders text, no CR;
// EscapeLine's is one line; and escaping again changes neither.
func FuzzEscape(f *testing.F) {
	f.Add("\x1b]0;t\x07\r\n\u202e\xff\u0085\t")
	f.Fuzz(func(t *testing.T, s string) {
		for name, got := range map[string]string{"Escape": elide.Escape(s), "EscapeLine": elide.EscapeLine(s)} {
			if !utf8.ValidString(got) {
				t.Fatalf("%s(%q) = %q, not UTF-8", name, s, got)
			}
			for _, r := range got {
				if unicode.IsControl(r) && r != '\n' && r != '\t' || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029 {
					t.Fatalf("%s(%q) = %q, which holds %U", name, s, got, r)
				}
			}
			if again := elide.Escape(got); again != got {
				t.Fatalf("Escape(%s(%q)) = %q, not %q", name, s, again, got)
			}
		}
		if line := elide.EscapeLine(s); strings.ContainsAny(line, "\n\t") {
			t.Fatalf("EscapeLine(%q) = %q, not one line", s, line)
		}
	})
}
