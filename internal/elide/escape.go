package elide

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Escape makes text a subject controls safe to show on a terminal, in
// Markdown or in XML: what would move the cursor, change the terminal's
// state or reorder the text, and what is not text at all, becomes a
// visible escape, and the rest stays as it is:
//
//   - a C0 control character (U+0000 to U+001F) or DEL: \x1b, \x7f;
//   - a C1 control character (U+0080 to U+009F): \u009b;
//   - a character that reorders text (the bidi marks U+061C, U+200E and
//     U+200F, embeddings and overrides U+202A to U+202E, isolates U+2066 to
//     U+2069), a line or paragraph separator (U+2028, U+2029), and the
//     noncharacters U+FFFE and U+FFFF, which XML forbids: \u202e;
//   - a byte that is not UTF-8: \xff.
//
// Newlines and tabs stay, so that a text of several lines still reads as
// lines, and a CR before a newline is dropped: a CRLF line end is a line
// end. A backslash stays as it is: text can look like an escape, but it
// never holds a control character, and Escape of Escape's result changes
// nothing.
func Escape(s string) string { return escape(s, false) }

// EscapeLine is Escape for text shown as one line: newlines, tabs and CRs
// are escaped too (\x0a, \x09, \x0d), so that it cannot start a line of
// its own.
func EscapeLine(s string) string { return escape(s, true) }

func escape(s string, oneLine bool) string {
	var b strings.Builder
	kept := 0 // s[:kept] is written to b, escaped; 0 while nothing needed escaping
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		esc, drop := "", false
		switch {
		case r == utf8.RuneError && size == 1:
			esc = fmt.Sprintf(`\x%02x`, s[i])
		case !oneLine && (r == '\n' || r == '\t'):
		case !oneLine && r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			drop = true
		case r < 0x20 || r == 0x7f:
			esc = fmt.Sprintf(`\x%02x`, r)
		case reorders(r) || r >= 0x80 && r < 0xa0:
			esc = fmt.Sprintf(`\u%04x`, r)
		}
		if esc != "" || drop {
			if kept == 0 {
				b.Grow(len(s) + 16)
			}
			b.WriteString(s[kept:i])
			b.WriteString(esc)
			kept = i + size
		}
		i += size
	}
	if kept == 0 {
		return s
	}
	b.WriteString(s[kept:])
	return b.String()
}

// reorders reports whether r reorders the text around it or breaks its
// line where no newline is (see Escape), or is a noncharacter XML forbids.
func reorders(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029, r == 0xfffe, r == 0xffff:
		return true
	}
	return false
}

// NewWriter returns a writer that escapes (Escape) what is written to it
// and writes that to w with no workflow command left in it (NoCommands,
// TextEscapes): for a terminal, or a CI job's log, that shows what
// subjects said. Each Write is escaped on its own, so write whole texts: a
// character cut in two between writes shows as escaped bytes.
func NewWriter(w io.Writer) io.Writer { return escaper{NoCommands(w, TextEscapes)} }

type escaper struct{ w io.Writer }

func (e escaper) Write(p []byte) (int, error) {
	if _, err := io.WriteString(e.w, Escape(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
