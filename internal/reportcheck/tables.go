package reportcheck

import (
	"bytes"
	"html"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Shown is what a Markdown document shows, as goldmark (CommonMark with
// GitHub's tables) reads it: its headings, a "LEVEL TEXT" each, and its
// tables, each a list of rows of cell texts, the header row first. A text
// is what the reader sees: its HTML without tags, entities decoded.
type Shown struct {
	Headings []string
	Tables   [][][]string
}

// Show parses a Markdown document.
func Show(doc string) Shown {
	source := []byte(doc)
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	root := md.Parser().Parse(text.NewReader(source))
	var s Shown
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			s.Headings = append(s.Headings, string(rune('0'+n.Level))+" "+shownText(md, n, source))
		case *east.Table:
			var rows [][]string
			for r := n.FirstChild(); r != nil; r = r.NextSibling() {
				var cells []string
				for c := r.FirstChild(); c != nil; c = c.NextSibling() {
					cells = append(cells, shownText(md, c, source))
				}
				rows = append(rows, cells)
			}
			s.Tables = append(s.Tables, rows)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return s
}

// shownText is the text of a node as its rendered HTML shows it.
func shownText(md goldmark.Markdown, n ast.Node, source []byte) string {
	var b bytes.Buffer
	if err := md.Renderer().Render(&b, source, n); err != nil {
		return "render: " + err.Error()
	}
	return strings.TrimSpace(html.UnescapeString(htmlTag.ReplaceAllString(b.String(), "")))
}

var htmlTag = regexp.MustCompile(`<[^>]*>`)
