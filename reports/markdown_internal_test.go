package reports

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/internal/reportcheck"
)

// render is the HTML a CommonMark parser with GitHub's tables makes of md.
func render(t *testing.T, md string) string {
	t.Helper()
	var b bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.Table)).Convert([]byte(md), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// shownAs checks that the HTML of md is before + s + after, s as text:
// Markdown read none of it as Markdown or HTML.
func shownAs(t *testing.T, md, before, s, after string) {
	t.Helper()
	got := render(t, md)
	inner, ok := strings.CutPrefix(got, before)
	if ok {
		inner, ok = strings.CutSuffix(inner, after)
	}
	if !ok || html.UnescapeString(inner) != s || strings.ContainsAny(inner, "<>") {
		t.Fatalf("%q renders as\n%q\nwant %q + %q as text + %q", md, got, before, s, after)
	}
}

// expectMarkdownShows checks that text shows as written in each place
// summary.md puts it: a paragraph, a heading, a list item, a table cell,
// a code span and a fenced code block.
func expectMarkdownShows(t *testing.T, s string) {
	t.Helper()
	shownAs(t, mdText(s+"."), "<p>", strings.Trim(elide.EscapeLine(s+"."), " "), "</p>\n") // the verdict's reason
	line := strings.Trim(elide.EscapeLine(s), " ")
	if line != "" {
		shownAs(t, "## acpconform: "+mdText(s), "<h2>acpconform: ", line, "</h2>\n")
		shownAs(t, "- "+mdText(s), "<ul>\n<li>", line, "</li>\n</ul>\n")
		shownAs(t, "| area | n |\n|---|---:|\n| "+mdText(s)+" | 1 |\n", "<table>\n<thead>\n<tr>\n<th>area</th>\n<th style=\"text-align:right\">n</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>", line, "</td>\n<td style=\"text-align:right\">1</td>\n</tr>\n</tbody>\n</table>\n")
	}
	if code := elide.EscapeLine(s); code != "" && strings.Trim(code, " ") != "" {
		shownAs(t, "x "+codeSpan(s), "<p>x <code>", code, "</code></p>\n")
	}
	shownAs(t, fenced(s), "<pre><code>", elide.Escape(s)+"\n", "</code></pre>\n")
}

func TestMarkdownShowsTextAsWritten(t *testing.T) {
	for _, s := range []string{
		reportcheck.Forgery, reportcheck.NotUTF8,
		"plain words, choice_01 and TOK-2/leading-zero",
		"# heading", "## acpconform: x is conformant ##", "- item", "+ item", "1. item", "2) item", "> quote", "---", "===", "***", "    indented",
		"```", "````go", "~~~", "`code` and ``more``", "`", " ` ", "a | b | c", `a \| b`, `\`, `trailing \`,
		"<details>", "</details>", "<!-- c -->", "<img src=x onerror=alert(1)>", "<https://example.com>", "[link](https://example.com)", "![img](x.png)", "[ref]: https://example.com",
		"&lt; &#x202e; &amp;", "*em* **strong** _em_ __strong__ ~~del~~", "$x^2$ $$\\Huge forged$$", "a  ", "x\r\ny\n## z",
	} {
		expectMarkdownShows(t, s)
	}
}

// FuzzMarkdownShowsTextAsWritten: whatever a subject wrote, each place
// summary.md puts it shows it as written, and it changes nothing around.
func FuzzMarkdownShowsTextAsWritten(f *testing.F) {
	for _, s := range []string{reportcheck.Forgery, "1. a | b `c` <d> \\", "_a_ b_c *d*", "\\\\|"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { expectMarkdownShows(t, s) })
}
