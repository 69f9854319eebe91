package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/acpconform/acpconform/internal/elide"
)

// Bounds on a diff's Markdown, so that two huge reports still make a
// comment GitHub takes (a step summary holds at most 1 MiB): at most
// MaxDiffRows rows in its table, new failures first, and the commands of
// at most MaxDiffCommands new failures below it; each says how many more
// there were.
const (
	MaxDiffRows     = 100
	MaxDiffCommands = 20
)

// The changes a diff's table names in its first column, in its order.
const (
	ChangeNew          = "new failure"
	ChangeFixed        = "fixed"
	ChangeStillFailing = "still failing"
	ChangeAdded        = "added"
	ChangeRemoved      = "removed"
	ChangeStale        = "stale baseline entry"
)

// diffRow is one row of a diff's table: the kind of change (a Change*
// name), and the check's change or the stale entry.
type diffRow struct {
	kind   string
	change Change
	stale  StaleEntry // for ChangeStale
}

// rows is the diff's table, a row per change, in the order of the Change*
// names; a check both new and added is a row of each.
func (d Diff) rows() []diffRow {
	var rows []diffRow
	for _, g := range []struct {
		name    string
		changes []Change
	}{{ChangeNew, d.New}, {ChangeFixed, d.Fixed}, {ChangeStillFailing, d.StillFailing}, {ChangeAdded, d.Added}, {ChangeRemoved, d.Removed}} {
		for _, c := range g.changes {
			rows = append(rows, diffRow{kind: g.name, change: c})
		}
	}
	for _, s := range d.Stale {
		rows = append(rows, diffRow{kind: ChangeStale, stale: s})
	}
	return rows
}

// WriteDiffMarkdown writes the diff as Markdown for a pull request's
// comment or a job's step summary: a heading with the headline, the
// verdicts of both runs, a table of every change (change, check, level,
// base, head), and the commands that run each new failure again and
// explain its rule. Everything from the reports is data: escaped, on one
// line, and bounded.
func WriteDiffMarkdown(w io.Writer, d Diff) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## acpconform diff: %s\n\n", mdText(d.Headline()))
	fmt.Fprintf(&b, "- base: %s\n", verdictLine(d.Base))
	fmt.Fprintf(&b, "- head: %s\n", verdictLine(d.Head))
	if d.Base.Verdict != d.Head.Verdict {
		fmt.Fprintf(&b, "- the verdict changed: %s to %s\n", mdText(string(d.Base.Verdict)), mdText(string(d.Head.Verdict)))
	} else {
		fmt.Fprintf(&b, "- the verdict is unchanged: %s\n", mdText(string(d.Head.Verdict)))
	}
	fmt.Fprintf(&b, "- %d new %s (%d MUST), %d fixed, %d still failing, %d added, %d removed, %d stale baseline %s\n\n",
		len(d.New), plural(len(d.New), "failure", "failures"), d.NewMust(), len(d.Fixed), len(d.StillFailing), len(d.Added), len(d.Removed),
		len(d.Stale), plural(len(d.Stale), "entry", "entries"))
	rows := d.rows()
	if len(rows) == 0 {
		b.WriteString("No check changed.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("| change | check | level | base | head |\n|---|---|---|---|---|\n")
	for i, r := range rows {
		if i == MaxDiffRows {
			fmt.Fprintf(&b, "\n%d more %s left out; the two report.json have them all.\n", len(rows)-i, plural(len(rows)-i, "row", "rows"))
			break
		}
		b.WriteString(row(r))
	}
	if len(d.New) > 0 {
		b.WriteString("\n### New failures\n")
		for i, c := range d.New {
			if i == MaxDiffCommands {
				fmt.Fprintf(&b, "\n%d more new %s left out; the table and head's report.json name them.\n", len(d.New)-i, plural(len(d.New)-i, "failure", "failures"))
				break
			}
			fmt.Fprintf(&b, "\n%s\n\n%s\n", mdHeading(short(c.Head)), fenced(commands(c.Head)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// verdictLine is a run's verdict and reason in Markdown.
func verdictLine(r Run) string {
	s := "**" + mdText(string(r.Verdict)) + "**"
	if r.Reason != "" {
		s += ": " + mdText(elide.Head(r.Reason, maxCell))
	}
	if r.Subject != "" {
		s += " (" + mdText(elide.Head(r.Subject, 100)) + ")"
	}
	return s
}

// row is one table row. Every cell is mdText, which escapes | and \, so
// that nothing a report says splits a cell or ends the row; a code span
// would not do: GitHub splits cells at a | inside one.
func row(r diffRow) string {
	if r.kind == ChangeStale {
		where := r.stale.File
		if r.stale.Line > 0 {
			where += fmt.Sprintf(":%d", r.stale.Line)
		}
		return fmt.Sprintf("| %s | %s | | known failure (%s) | passed: take it off the baseline |\n",
			mdText(r.kind), mdText(elide.Head(r.stale.Check, 200)), mdText(elide.Head(where, 200)))
	}
	c := r.change.Check()
	name := elide.Head(c.Key(), 200)
	if c.ID != "" {
		name += ": " + elide.Head(c.Name, 120)
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s |\n", mdText(r.kind), mdText(name), mdText(elide.Head(c.Level, 20)),
		mdText(stateText(r.change.Base)), mdText(stateText(r.change.Head)))
}

// short is c with the texts of its heading bounded, for a table or a
// line.
func short(c Check) Check {
	c.ID, c.Name, c.Area, c.Level = elide.Head(c.ID, 200), elide.Head(c.Name, maxCell), elide.Head(c.Area, 20), elide.Head(c.Level, 20)
	if len(c.Rules) > 5 {
		c.Rules = append(c.Rules[:5:5], fmt.Sprintf("and %d more", len(c.Rules)-5))
	}
	rules := make([]string, len(c.Rules))
	for i, r := range c.Rules {
		rules[i] = elide.Head(r, 100)
	}
	c.Rules = rules
	return c
}

// commands is what to run for a new failure: the command that runs the
// check alone again, when its report has one, and the one that explains
// its rule.
func commands(c Check) string {
	var lines []string
	if c.Again != "" {
		lines = append(lines, elide.Head(c.Again, 2000))
	}
	if r := rule(c); r != "" {
		lines = append(lines, ExplainLine(elide.Head(r, 100)))
	}
	if len(lines) == 0 {
		return "acpconform list"
	}
	return strings.Join(lines, "\n")
}
