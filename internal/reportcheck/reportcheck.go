// Package reportcheck checks that acpconform's reports show what subjects
// wrote as data: no character of theirs that a terminal, Markdown or XML
// would take for anything but text, and a summary.md of the shape
// acpconform writes, whatever they wrote. Tests use it, with a Markdown
// parser of its own (goldmark, CommonMark with GitHub's tables) as the
// judge of what a summary's Markdown means.
package reportcheck

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Clean returns an error naming the first character of s that is not
// plain text to show, with what comes before it: a control character but
// newline and tab (C0, DEL, C1), a character that reorders text or breaks
// its line (the bidi marks, embeddings, overrides and isolates, U+2028,
// U+2029), or a byte that is not UTF-8.
func Clean(s string) error {
	for i, r := range s {
		bad := ""
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			bad = fmt.Sprintf("the byte %#x, not UTF-8", s[i])
		case r < 0x20 && r != '\n' && r != '\t', r >= 0x7f && r < 0xa0:
			bad = fmt.Sprintf("the control character %U", r)
		case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
			bad = fmt.Sprintf("%U, which reorders text or breaks its line", r)
		}
		if bad != "" {
			return fmt.Errorf("%s at byte %d, after %q", bad, i, s[max(0, i-80):i])
		}
	}
	return nil
}

// The HTML of a summary: each <details> holds one fenced code block.
var detailsOpen = map[string]bool{"<details><summary>transcript</summary>": true, "<details><summary>subject stderr</summary>": true}

const detailsClose = "</details>"

// Markdown checks a summary.md as GitHub would read it, and returns every
// way it is not what acpconform writes, joined:
//
//   - it is Clean;
//   - its one heading is its first block, of level 2, and starts with
//     "acpconform: ";
//   - its HTML is acpconform's <details> blocks alone, each holding one
//     fenced code block and closed after it; it has no inline HTML;
//   - each fenced code block is in a <details>;
//   - it has at most one table, the areas': a name and three counts a row.
func Markdown(doc string) error {
	var errs []error
	if err := Clean(doc); err != nil {
		errs = append(errs, fmt.Errorf("summary.md: %w", err))
	}
	source := []byte(doc)
	root := goldmark.New(goldmark.WithExtensions(extension.Table)).Parser().Parse(text.NewReader(source))
	blocks := children(root)
	if len(blocks) == 0 {
		return errors.Join(append(errs, errors.New("summary.md is empty"))...)
	}
	if h, ok := blocks[0].(*ast.Heading); !ok || h.Level != 2 || !strings.HasPrefix(plainText(h, source), "acpconform: ") {
		errs = append(errs, fmt.Errorf("summary.md does not begin with its heading (## acpconform: ...) but with %s %q", blocks[0].Kind(), clip(plainText(blocks[0], source))))
	}
	for i, b := range blocks {
		switch b := b.(type) {
		case *ast.HTMLBlock:
			html := strings.TrimSpace(lines(b, source))
			switch {
			case detailsOpen[html]:
				if i+2 >= len(blocks) || blocks[i+1].Kind() != ast.KindFencedCodeBlock || blocks[i+2].Kind() != ast.KindHTMLBlock || strings.TrimSpace(lines(blocks[i+2], source)) != detailsClose {
					errs = append(errs, fmt.Errorf("summary.md: %q is not followed by a fenced code block and %s", html, detailsClose))
				}
			case html == detailsClose:
				if i < 2 || !detailsOpen[strings.TrimSpace(lines(blocks[i-2], source))] {
					errs = append(errs, fmt.Errorf("summary.md: a %s that closes no <details> of acpconform's", detailsClose))
				}
			default:
				errs = append(errs, fmt.Errorf("summary.md has HTML of its own: %q", clip(html)))
			}
		case *ast.FencedCodeBlock:
			if i == 0 || !detailsOpen[strings.TrimSpace(lines(blocks[i-1], source))] {
				errs = append(errs, fmt.Errorf("summary.md has a fenced code block outside a <details>: %q", clip(lines(b, source))))
			}
		}
	}
	tables := 0
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if n != blocks[0] {
				errs = append(errs, fmt.Errorf("summary.md has a heading of its own: %q", clip(plainText(n, source))))
			}
		case *ast.HTMLBlock:
			if n.Parent() != root {
				errs = append(errs, fmt.Errorf("summary.md has HTML of its own in a %s: %q", n.Parent().Kind(), clip(lines(n, source))))
			}
		case *ast.RawHTML:
			errs = append(errs, fmt.Errorf("summary.md has inline HTML: %q", clip(segments(n.Segments, source))))
		case *east.Table:
			tables++
			for row := n.FirstChild(); row != nil; row = row.NextSibling() {
				var cells []string
				for c := row.FirstChild(); c != nil; c = c.NextSibling() {
					cells = append(cells, plainText(c, source))
				}
				_, header := row.(*east.TableHeader)
				if !areasRow(cells, header) {
					errs = append(errs, fmt.Errorf("summary.md has a table row %q, not one of the areas' table (an area, then 3 counts)", cells))
				}
			}
		}
		return ast.WalkContinue, nil
	})
	if tables > 1 {
		errs = append(errs, fmt.Errorf("summary.md has %d tables, want the areas' alone", tables))
	}
	return errors.Join(errs...)
}

// areasRow reports whether cells are a row of the areas' table: its header,
// or an area and three counts.
func areasRow(cells []string, header bool) bool {
	if header {
		return strings.Join(cells, "|") == "area|passed|failed|skipped"
	}
	if len(cells) != 4 {
		return false
	}
	for _, n := range cells[1:] {
		if n == "" || strings.Trim(n, "0123456789") != "" {
			return false
		}
	}
	return true
}

func children(n ast.Node) []ast.Node {
	var out []ast.Node
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = append(out, c)
	}
	return out
}

// lines is the source of a block, its lines joined.
func lines(n ast.Node, source []byte) string {
	var b strings.Builder
	l := n.Lines()
	for i := 0; i < l.Len(); i++ {
		s := l.At(i)
		b.Write(s.Value(source))
	}
	return b.String()
}

func segments(s *text.Segments, source []byte) string {
	var b strings.Builder
	for i := 0; i < s.Len(); i++ {
		seg := s.At(i)
		b.Write(seg.Value(source))
	}
	return b.String()
}

// plainText is the text of a node's inline content, for messages.
func plainText(n ast.Node, source []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(source))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// JUnit checks a junit.xml: it is well-formed XML (encoding/xml reads it
// strictly to its end), and each text and attribute value in it, as a
// reader of the XML gets it (character references decoded), is Clean.
func JUnit(doc []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	var errs []error
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return errors.Join(append(errs, fmt.Errorf("junit.xml is not well-formed XML: %w", err))...)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			for _, a := range t.Attr {
				if err := Clean(a.Value); err != nil {
					errs = append(errs, fmt.Errorf("junit.xml: <%s %s>: %w", t.Name.Local, a.Name.Local, err))
				}
			}
		case xml.CharData:
			if err := Clean(string(t)); err != nil {
				errs = append(errs, fmt.Errorf("junit.xml: text at byte %d: %w", dec.InputOffset(), err))
			}
		}
	}
	return errors.Join(errs...)
}
