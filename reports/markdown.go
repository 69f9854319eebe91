package reports

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acpconform/acpconform/internal/elide"
)

// Text a subject or a shard controls goes into summary.md through these,
// so that it shows as written and nothing in it can end a block, start a
// heading, a list or a table, or open HTML: inline text on one line with
// Markdown's and HTML's characters backslash-escaped (mdText), an ID in a
// code span longer than any backtick run in it (codeSpan), and a block in
// a code fence longer than any backtick run in it (fenced), its control
// characters escaped (see elide.Escape) in all three.

// mdText is s as inline Markdown that reads as s does: one line (see
// elide.EscapeLine), the spaces around it dropped as Markdown drops them,
// and every character that could start or end Markdown or HTML escaped
// with a backslash: \ ` * [ ] < > # | ~ & $ anywhere, _ but between two
// letters or digits (choice_01, which cannot be emphasis), and at its
// start what starts a block: - + = and the . or ) after digits (a list
// item).
func mdText(s string) string {
	s = strings.Trim(elide.EscapeLine(s), " ")
	var b strings.Builder
	b.Grow(len(s) + 8)
	digits := true // s[:i] is digits only
	prev := ' '
	for i, r := range s {
		start := i == 0 && strings.ContainsRune("-+=", r) || digits && i > 0 && (r == '.' || r == ')')
		if start || strings.ContainsRune("\\`*[]<>#|~&$", r) || r == '_' && !(alnum(prev) && alnum(next(s, i))) {
			b.WriteByte('\\')
		}
		digits = digits && r >= '0' && r <= '9'
		prev = r
		b.WriteRune(r)
	}
	return b.String()
}

// alnum reports whether r is a letter or a digit.
func alnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// next is the rune after the one at s[i], or a space at the end.
func next(s string, i int) rune {
	_, size := utf8.DecodeRuneInString(s[i:])
	if r, _ := utf8.DecodeRuneInString(s[i+size:]); i+size < len(s) {
		return r
	}
	return ' '
}

// codeSpan is s in a Markdown code span, on one line: delimited by one
// backtick more than its longest run of them, and padded with spaces when
// it starts or ends with a backtick or a space, which the span would take
// for delimiters or drop.
func codeSpan(s string) string {
	s = elide.EscapeLine(s)
	if s == "" {
		return ""
	}
	tick := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return tick + s + tick
}

// fenced is s as a fenced code block, its control characters escaped
// (elide.Escape): its fences are longer than any run of backticks in it,
// so that no line of s can end it.
func fenced(s string) string {
	s = elide.Escape(s)
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + "\n" + s + "\n" + fence
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}

// mdHeading is c.Heading in Markdown: its ID in a code span, the rest as
// text.
func mdHeading(c Check) string { return c.heading(codeSpan, mdText) }

// mdLabel is c.Label in Markdown.
func mdLabel(c Check) string { return c.label(codeSpan, mdText) }

// mdParagraphs is a text of several lines, a failure's reason, as
// Markdown paragraphs that wrap as prose does: each line inline text
// (mdText), its leading spaces kept as no-break spaces (an indented
// line would otherwise start a code block, which does not wrap), lines
// joined by hard breaks, and a blank line between paragraphs.
func mdParagraphs(s string) string {
	var b strings.Builder
	open := false // in a paragraph
	for _, l := range strings.Split(s, "\n") {
		text := mdText(l)
		if text == "" {
			if open {
				b.WriteString("\n")
				open = false
			}
			continue
		}
		switch {
		case open:
			b.WriteString("\\\n")
		case b.Len() > 0:
			b.WriteString("\n")
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		b.WriteString(strings.Repeat("\u00a0", max(0, min(indent, 16))) + text)
		open = true
	}
	if open {
		b.WriteString("\n")
	}
	return b.String()
}
