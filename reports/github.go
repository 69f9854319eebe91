package reports

import (
	"fmt"
	"strings"

	"github.com/acpconform/acpconform/internal/elide"
)

// GitHub shows at most 10 error and 10 warning annotations of one step
// (and 50 of a job); past them it drops the rest without a word.
const (
	MaxErrorAnnotations   = 10
	MaxWarningAnnotations = 10
)

// maxAnnotation bounds each part of an annotation's message, before it
// is escaped.
const maxAnnotation = 1000

// Annotations are the GitHub Actions workflow commands that annotate a
// pull request with the diff, one line each: an ::error for each new
// failure of a MUST check, a ::warning for each new failure of a SHOULD
// check and for each stale baseline entry (at the entry's file and
// line). Each kind keeps to GitHub's limit of a step; when there are
// more, the last one says how many were left out. Every text from the
// reports is escaped for the workflow command (see escapeData,
// escapeProperty): none can end the command or start another.
func (d Diff) Annotations() []string {
	var errs, warns []string
	if lost := d.Lost(); lost != "" {
		a := annotation{props: [][2]string{{"title", "acpconform: no verdict"}}, message: []string{lost + ": " + d.Head.Reason}}
		errs = append(errs, a.format("error"))
	}
	for _, c := range d.New {
		h := c.Head
		msg := []string{short(h).Heading(""), stateText(h)}
		if h.Again != "" {
			msg = append(msg, "run it again: "+h.Again)
		}
		if r := rule(h); r != "" {
			msg = append(msg, "the rule: "+ExplainLine(r))
		}
		cmd := annotation{props: [][2]string{{"title", "acpconform: new failure " + h.Key()}}, message: msg}
		if h.Must() {
			errs = append(errs, cmd.format("error"))
		} else {
			warns = append(warns, cmd.format("warning"))
		}
	}
	for _, s := range d.Stale {
		a := annotation{message: []string{fmt.Sprintf("stale baseline entry: %s passes now; take it off the baseline", s.Check)}}
		a.props = append(a.props, [2]string{"file", s.File})
		if s.Line > 0 {
			a.props = append(a.props, [2]string{"line", fmt.Sprint(s.Line)})
		}
		a.props = append(a.props, [2]string{"title", "acpconform: stale baseline entry " + s.Check})
		warns = append(warns, a.format("warning"))
	}
	return append(limit(errs, MaxErrorAnnotations, "error"), limit(warns, MaxWarningAnnotations, "warning")...)
}

// limit keeps the first max commands of one kind; when it drops some,
// the last it keeps says how many (in its message: %0A is a new line).
func limit(cmds []string, max int, kind string) []string {
	if len(cmds) <= max {
		return cmds
	}
	kept := cmds[:max:max]
	left := len(cmds) - max
	kept[max-1] += escapeData(fmt.Sprintf("\n(and %d more %s %s, left out: GitHub shows %d a step; the job's summary lists them all)",
		left, kind, plural(left, "annotation", "annotations"), max))
	return kept
}

// annotation is one workflow command: its properties, in order, and its
// message, a line each part.
type annotation struct {
	props   [][2]string
	message []string
}

// format writes the command: ::KIND key=value,...::message. Each text is
// first made one bounded line (elide.EscapeLine) with no workflow command
// in it (elide.NoCommands: a reader of the older syntax takes "##["
// anywhere in a line for one), then escaped as GitHub reads workflow
// commands.
func (a annotation) format(kind string) string {
	var b strings.Builder
	b.WriteString("::" + kind)
	for i, p := range a.props {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(p[0] + "=" + escapeProperty(annotationText(p[1])))
	}
	lines := make([]string, len(a.message))
	for i, m := range a.message {
		lines[i] = annotationText(m)
	}
	b.WriteString("::" + escapeData(strings.Join(lines, "\n")))
	return b.String()
}

// annotationText is s as one part of an annotation: one bounded line,
// its control characters and workflow commands escaped as on a terminal.
func annotationText(s string) string {
	return elide.NoCommandsString(elide.EscapeLine(elide.Head(s, maxAnnotation)), elide.TextEscapes)
}

// escapeData escapes a workflow command's message as GitHub's toolkit
// does (escapeData in @actions/core): % first, then CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value as GitHub's
// toolkit does (escapeProperty): as data, and : and , too, which would
// end the value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
