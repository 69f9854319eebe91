package elide

import (
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A CI runner reads the log of a job for commands of its own, and the log
// holds whatever acpconform prints, a subject's words among them. GitHub's
// runner takes a line for a workflow command when, stripped of leading
// white space (Unicode's, as .NET's Trim strips it), it starts with "::"
// (::add-mask::, ::stop-commands::, ::error file=...::), and when "##["
// stands anywhere in it (the older syntax, ##[error], ##[group]).
// NoCommands keeps text from ever being either.

// CommandEscapes says how a format spells the two characters NoCommands
// replaces so that the text means the same in that format but is no
// command: the ':' that starts a line, and the '[' after "##".
type CommandEscapes struct {
	Colon, Bracket string
}

// The escapes of the formats acpconform prints.
var (
	// TextEscapes are for text shown to people, in Escape's spelling.
	TextEscapes = CommandEscapes{Colon: `\x3a`, Bracket: `\x5b`}
	// JSONEscapes are for JSON, where both can only stand in a string.
	JSONEscapes = CommandEscapes{Colon: `\u003a`, Bracket: `\u005b`}
	// XMLEscapes are for XML and HTML: character references.
	XMLEscapes = CommandEscapes{Colon: "&#58;", Bracket: "&#91;"}
	// MarkdownEscapes are for Markdown: a backslash escape, which shows the
	// character alone.
	MarkdownEscapes = CommandEscapes{Colon: `\:`, Bracket: `\[`}
)

// NoCommands returns a writer that writes to w what is written to it with
// every workflow command a runner could read in it (see above) made plain
// text: the ':' that starts a line after white space, and the '[' of each
// "##[", are written as e spells them. It is safe for concurrent use, and
// it knows where lines start across writes, so write as you please: a
// character cut between two writes at the start of a line is taken for
// white space, to be safe.
func NoCommands(w io.Writer, e CommandEscapes) io.Writer {
	return &commandGuard{w: w, e: e, lineStart: true}
}

// NoCommandsString is NoCommands for one text that starts a line.
func NoCommandsString(s string, e CommandEscapes) string {
	var b strings.Builder
	_, _ = NoCommands(&b, e).Write([]byte(s))
	return b.String()
}

type commandGuard struct {
	w  io.Writer
	e  CommandEscapes
	mu sync.Mutex
	// lineStart says that nothing but white space has been written since
	// the last newline (or the start); hashes counts the '#' just written,
	// up to 2.
	lineStart bool
	hashes    int
}

func (g *commandGuard) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []byte // nil while nothing needed escaping
	kept := 0      // p[:kept] is in out
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		esc := ""
		switch {
		case r == '\n' || r == '\r': // the runner reads a lone CR as a line end too
			g.lineStart, g.hashes = true, 0
		case g.lineStart && (unicode.IsSpace(r) || r == '\ufeff' || r == '\u200b'):
			g.hashes = 0
		case g.lineStart && r == utf8.RuneError && size == 1:
			// A piece of a character cut between writes, white space or
			// not: the line may still be starting.
			g.hashes = 0
		case g.lineStart && r == ':':
			esc = g.e.Colon
			g.lineStart, g.hashes = false, 0
		case r == '[' && g.hashes == 2:
			esc = g.e.Bracket
			g.lineStart, g.hashes = false, 0
		case r == '#':
			g.lineStart, g.hashes = false, min(g.hashes+1, 2)
		default:
			g.lineStart, g.hashes = false, 0
		}
		if esc != "" {
			out = append(append(out, p[kept:i]...), esc...)
			kept = i + size
		}
		i += size
	}
	if out == nil {
		return g.w.Write(p)
	}
	if _, err := g.w.Write(append(out, p[kept:]...)); err != nil {
		return 0, err
	}
	return len(p), nil
}
