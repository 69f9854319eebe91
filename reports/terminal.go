package reports

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/acpconform/acpconform/internal/elide"
)

// Bounds of what the terminal shows of one cause of failures (see
// [Cause]): one mistake, one screen. On a terminal, a reason's long lines
// wrap at its width, a transcript's and stderr's are cut with " …". Off a
// terminal (a CI log, a pipe) nothing is wrapped, so that a frame, a
// reason or a command copied from the log is whole and grep finds it: a
// frame of the transcript (-v) is shown up to FrameColumns, the probe
// request always whole. What does not fit is in the reports, which the
// summary names. The commands to paste ("run it again: ...") are never
// cut, since a cut command runs something else.
const (
	TerminalLines   = 40   // lines of one cause, its heading and commands included
	TerminalColumns = 100  // a terminal's width when it does not say, and the progress lines'
	FrameColumns    = 4000 // of a frame of a transcript, or a line of stderr, off a terminal
)

// Sections of a cause, each held to its share of TerminalLines.
const (
	headingLines     = 3    // the first check's ID, rules and name, wrapped
	reasonLines      = 15   // the first check's reason, wrapped
	messageLines     = 4    // what the subject said, when its checks differ
	stderrLines      = 5    // the end of the subject's stderr
	listedChecks     = 10   // lines listing the other checks of a cause
	maxSkipReasons   = 5    // skip reasons the summary lists
	skipReasonLines  = 3    // of each, wrapped
	unreachedIDLines = 3    // of the unreached rules of one reason
	diagnosisLines   = 20   // of a run's start-up diagnosis, on stderr
	diagnosisBytes   = 500  // of each of its lines
	maxCommandBytes  = 1000 // a command to paste, or a line of the reports' own
)

// Terminal prints what a run says to people, on a terminal or in a CI
// log: the totals, each area (unless the progress said it), why checks
// were skipped, each cause of failures as its first check shows it, the
// baseline's judgement, the verdict and the files written. Every text a
// subject controls is escaped (elide.EscapeLine) and bounded.
type Terminal struct {
	// Out gets the summary: stdout, or stderr when a report goes to
	// stdout. Err gets what is said apart from it (a baseline naming its
	// checks the old way; the diagnosis of a run that reached no verdict
	// of conformance), each line "acpconform COMMAND: ...".
	Out, Err io.Writer
	// Command is the acpconform command that ran: "agent", "merge".
	Command string
	// Areas is the contract's areas, in the order the summary lists them.
	Areas []string
	// Verbose adds the end of each failure's transcript, and the
	// subject's stderr even when its process did not die (-v).
	Verbose bool
	// AreasSaid says the progress printed each area's line as it ended:
	// the summary does not print them again.
	AreasSaid bool
	// Width is the terminal's columns, which long lines wrap at; 0 when
	// Out is no terminal, and nothing is wrapped.
	Width int
	// Baseline is the run's --baseline; nil for none.
	Baseline *Baseline
}

// Summary prints the summary of a settled run (see [Decide]). written is
// the report files written, and baselineWritten the file --write-baseline
// wrote ("" for none).
func (t Terminal) Summary(run Run, written []string, baselineWritten string) {
	var b strings.Builder
	totals := Count(run.Checks)
	fmt.Fprintf(&b, "acpconform: %s%s: %d passed, %d failed (%d MUST), %d skipped, %d deselected in %.2fs\n",
		elide.EscapeLine(run.Subject), run.ShardNote(), totals.Passed, totals.Failed, totals.MustFailed, totals.Skipped, totals.Deselected, run.Seconds)
	if !t.AreasSaid {
		for _, a := range ByArea(run.Checks, t.Areas) {
			fmt.Fprintf(&b, "  %-4s %3d passed %3d failed %3d skipped\n", elide.EscapeLine(a.Name), a.Totals.Passed, a.Totals.Failed, a.Totals.Skipped)
		}
	}
	for _, l := range skipLines(run.Checks, t.Width) {
		b.WriteString(l + "\n")
	}
	for _, cause := range Causes(run.Checks) {
		for _, l := range t.cause(cause, run.Verdict == CouldNotRun) {
			b.WriteString(l + "\n")
		}
	}
	if t.Baseline != nil {
		fmt.Fprintf(&b, "baseline %s: %d known %s\n", elide.EscapeLine(t.Baseline.File()), totals.Known, plural(totals.Known, "failure", "failures"))
		if m := t.Baseline.Judge(run.Checks).Migration(t.Baseline.File()); m != "" && t.Err != nil {
			fmt.Fprintf(elide.NewWriter(t.Err), "acpconform %s: %s\n", t.Command, elide.EscapeLine(m))
		}
	}
	news := 0
	for _, p := range run.Problems {
		if strings.HasPrefix(p, "new failure:") {
			news++
		}
	}
	for _, p := range run.Problems {
		if strings.HasPrefix(p, "new failure:") && (t.Baseline == nil || news > 1) {
			continue // shown above, by cause
		}
		fmt.Fprintf(&b, "  %s\n", elide.EscapeLine(elide.Head(p, maxCommandBytes)))
	}
	if t.Baseline != nil && news > 1 {
		fmt.Fprintf(&b, "  %d new failures of MUST checks: above, by cause\n", news)
	}
	for _, l := range unreachedLines(run.Unreached(), t.Width) {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "acpconform: %s: %s\n", elide.EscapeLine(run.Headline()), elide.EscapeLine(run.Reason))
	if len(written) > 0 {
		fmt.Fprintf(&b, "reports: %s\n", elide.EscapeLine(strings.Join(written, " ")))
	}
	if baselineWritten != "" {
		fmt.Fprintf(&b, "baseline: %s\n", elide.EscapeLine(baselineWritten))
	}
	_, _ = io.WriteString(elide.NewWriter(t.Out), b.String()) // a closed stdout (| head) must not stop the rest
	if run.Verdict != Conformant && run.Verdict != NotConformant {
		t.say(string(run.Verdict) + ": " + diagnosis(run))
	}
}

// say writes a message to Err, named after the command: its lines as
// they are, not wrapped, for scripts and people who search them, the
// later ones (a start-up diagnosis's) indented, at most diagnosisLines of
// at most diagnosisBytes.
func (t Terminal) say(s string) {
	if t.Err == nil {
		return
	}
	text := strings.ReplaceAll(elide.Lines(strings.TrimSpace(s), diagnosisLines, diagnosisBytes), "\n", "\n  ")
	_, _ = io.WriteString(elide.NewWriter(t.Err), "acpconform "+t.Command+": "+text+"\n")
}

// hanging is a line (escaped already) wrapped to cols, the lines after
// the first indented by prefix.
func hanging(line, prefix string, cols int) []string {
	lines := wrap([]string{line}, cols)
	if len(lines) == 1 {
		return lines
	}
	rest := wrap([]string{strings.Join(lines[1:], " ")}, cols-len(prefix))
	return append(lines[:1], indent(rest, prefix)...)
}

// diagnosis is what to say on stderr about a run that reached no verdict
// of conformance: its start-up diagnosis, or its reason.
func diagnosis(run Run) string {
	if run.Verdict == CouldNotRun && len(run.Checks) == 1 {
		return strings.TrimSpace(run.Checks[0].Failure)
	}
	return run.Reason
}

// skipLines says why checks were skipped, each reason (wrapped) with the
// IDs of the checks it skipped under it, the reasons that skipped most
// first: a skipped check never counts as passed, so the reader is told
// what was not checked. Deselected checks are the user's own choice, and
// not listed.
func skipLines(checks []Check, cols int) []string {
	var reasons []string
	skipped := map[string][]string{}
	n := 0
	for _, c := range checks {
		if c.State != StateSkipped {
			continue
		}
		n++
		if _, ok := skipped[c.SkipReason]; !ok {
			reasons = append(reasons, c.SkipReason)
		}
		skipped[c.SkipReason] = append(skipped[c.SkipReason], c.Key())
	}
	if n == 0 {
		return nil
	}
	slices.SortStableFunc(reasons, func(a, b string) int { return len(skipped[b]) - len(skipped[a]) })
	lines := []string{fmt.Sprintf("skipped %d %s:", n, plural(n, "check", "checks"))}
	for i, r := range reasons {
		if i == maxSkipReasons {
			rest := 0
			for _, r := range reasons[i:] {
				rest += len(skipped[r])
			}
			lines = append(lines, fmt.Sprintf("  and %d more for %d other reasons: report.json has each one's skipReason", rest, len(reasons)-i))
			break
		}
		ids := skipped[r]
		why := wrap([]string{elide.EscapeLine(elide.Head(r, maxCommandBytes))}, cols-2)
		if len(why) > skipReasonLines {
			why = append(why[:skipReasonLines-1], cut(strings.Join(why[skipReasonLines-1:], " "), cols-2))
		}
		lines = append(lines, indent(why, "  ")...)
		lines = append(lines, cut("    "+skippedIDs(ids), cols))
	}
	return lines
}

// unreachedLines lists the MUST rules no check reached (see
// [Run.Unreached]), their IDs after each reason in at most
// unreachedIDLines: right above the verdict, so that a narrow run does not
// read as a wide one.
func unreachedLines(us []Unreached, cols int) []string {
	if len(us) == 0 {
		return nil
	}
	lines := hanging(elide.EscapeLine(unreachedHeading(len(us)))+":", "  ", cols)
	whys, ids := unreachedGroups(us)
	for _, why := range whys {
		lines = append(lines, idLines("  "+elide.EscapeLine(why)+":", ids[why], unreachedIDLines, cols)...)
	}
	return lines
}

// idLines is head and then ids, escaped and separated by commas, wrapped
// to cols in at most most lines, the last saying how many it leaves out;
// with cols 0, one line of them all.
func idLines(head string, ids []string, most, cols int) []string {
	const indent, more = "    ", " and %d more: report.json lists each"
	var lines []string
	line := head
	for i, id := range ids {
		word := elide.EscapeLine(id)
		if i < len(ids)-1 {
			word += ","
		}
		room := cols
		if cols <= 0 {
			room = math.MaxInt
		}
		if len(lines) == most-1 && i < len(ids)-1 {
			room -= len(fmt.Sprintf(more, len(ids))) // to say how many are left
		}
		if line != indent && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > room {
			if len(lines) == most-1 {
				return append(lines, strings.TrimSuffix(line, ",")+fmt.Sprintf(more, len(ids)-i))
			}
			lines, line = append(lines, line), indent
		}
		if line != indent {
			line += " "
		}
		line += word
	}
	return append(lines, line)
}

// skippedIDs names checks by ID, a few, then how many more.
func skippedIDs(ids []string) string {
	const shown = 4
	if len(ids) <= shown {
		return elide.EscapeLine(strings.Join(ids, ", "))
	}
	return elide.EscapeLine(strings.Join(ids[:shown], ", ")) + fmt.Sprintf(" and %d more", len(ids)-shown)
}

// cause is the lines of one cause of failures, as its first check shows
// it: what it checks, its reason, what a timeout followed, how the
// subject's process ended and its last words, with -v the end of its
// transcript, and the way further: the command that runs it again and the
// rule. A cause of several checks lists them instead, each with its
// command, as many as fit. At most TerminalLines lines in all.
func (t Terminal) cause(cause Cause, startUp bool) []string {
	ch := cause.Checks[0]
	one := len(cause.Checks) == 1
	word := ch.Word()
	if ch.Known != "" {
		word = "KNOWN" // the next line says "known failure: REASON"
	}
	cols := t.Width
	head := hanging(word+" "+elide.EscapeLine(elide.Head(ch.Heading(""), maxCommandBytes)), "    ", cols) // under the word, apart from the reason
	if len(head) > headingLines {
		rest := head[headingLines-1]
		for _, l := range head[headingLines:] {
			rest += " " + strings.TrimSpace(l)
		}
		head = append(head[:headingLines-1], cut(rest, cols))
	}
	if ch.Known != "" {
		head = append(head, cut("  known failure: "+elide.EscapeLine(ch.Known), cols))
	}
	tail := t.nextSteps(cause)
	room := TerminalLines - len(head) - len(tail)
	var body []string
	add := func(lines []string, most int) {
		most = min(most, room-len(body))
		if most <= 0 || len(lines) == 0 {
			return
		}
		if len(lines) > most {
			lines = append(lines[:most-1:most-1], fmt.Sprintf("%s… [%d more lines: the reports have them]", indentOf(lines[most-1]), len(lines)-most+1))
		}
		body = append(body, lines...)
	}
	add(indent(wrap(plainLines(strings.TrimSpace(elide.Head(ch.Failure, MaxFailure))), cols-2), "  "), reasonLines)
	if note := cause.Note(); note != "" {
		add(indent(wrap([]string{elide.EscapeLine(elide.Head(note, maxCommandBytes))}, cols-2), "  "), 3)
	}
	if msgs := cause.Messages(); msgs != nil {
		lines := []string{"  its checks quote the subject saying different things, each maybe a fix of its own:"}
		for _, m := range msgs {
			lines = append(lines, cut("  - "+elide.EscapeLine(m), cols))
		}
		add(lines, 1+messageLines)
	}
	if ch.Process != "" {
		add([]string{cut("  the subject's process "+elide.EscapeLine(elide.Head(ch.Process, maxCommandBytes)), cols)}, 1)
	}
	if ch.Rerun != "" && one {
		add(indent(wrap([]string{"run again: " + elide.EscapeLine(elide.Head(ch.Rerun, maxCommandBytes))}, cols-2), "  "), 3)
	}
	if tail := endLines(ch.Diagnostics, stderrLines); tail != "" && (ch.Process != "" || t.Verbose) && !startUp {
		add(append([]string{"  its stderr ends:"}, cutLines(tail, "    ", cols)...), 1+stderrLines)
	}
	if t.Verbose && ch.Transcript != "" {
		whose := "its transcript"
		if !one {
			whose = "the first check's transcript"
		}
		if left := room - len(body) - 1; left > 0 {
			lines := strings.Split(strings.TrimSpace(ch.Transcript), "\n")
			shown := lines[max(0, len(lines)-left):]
			heading := fmt.Sprintf("  %s, its last %d of %d lines (report.html draws it whole):", whose, len(shown), len(lines))
			if len(shown) == len(lines) {
				heading = "  " + whose + ":"
			}
			add(append([]string{heading}, frameLines(strings.Join(shown, "\n"), "    ", cols)...), left+1)
		}
	}
	return append(append(head, body...), tail...)
}

// nextSteps is how a cause ends: for one check, the command that runs it
// again and its rule; for several, each check with its command, as many
// as fit, and their rules.
func (t Terminal) nextSteps(cause Cause) []string {
	ch := cause.Checks[0]
	var lines []string
	if len(cause.Checks) == 1 {
		if ch.Again != "" {
			lines = append(lines, "  run it again: "+elide.EscapeLine(elide.Head(ch.Again, maxCommandBytes)))
		}
		if len(ch.Rules) > 0 {
			lines = append(lines, "  the rule:     "+ExplainLine(elide.EscapeLine(ch.Rules[0])))
		}
		return lines
	}
	again := ""
	if ch.Again != "" {
		again = "; the command after each runs it again"
	}
	lines = append(lines, fmt.Sprintf("  the same cause failed %d checks%s:", len(cause.Checks), again))
	listed := 0
	for i, o := range cause.Checks {
		entry := []string{"    " + elide.EscapeLine(elide.Head(o.Label(""), 400))}
		if o.Again != "" {
			entry[0] += ": " + elide.EscapeLine(elide.Head(o.Again, maxCommandBytes))
		}
		if o.Rerun != "" {
			entry = append(entry, cut("      run again: "+elide.EscapeLine(elide.Head(o.Rerun, maxCommandBytes)), t.Width))
		}
		if listed+len(entry) > listedChecks {
			lines = append(lines, fmt.Sprintf("    and %d more: summary.md and report.json list each with its command", len(cause.Checks)-i))
			break
		}
		lines = append(lines, entry...)
		listed += len(entry)
	}
	if len(ch.Rules) > 0 {
		lines = append(lines, "  the rules:    "+ExplainLine(elide.EscapeLine(ch.Rules[0]))+", and so on for each rule above")
	}
	return lines
}

// cut is a line of at most cols columns (runes, of text already escaped),
// what is cut marked with " …"; with cols 0, the line as it is.
func cut(s string, cols int) string {
	if cols <= 0 || utf8.RuneCountInString(s) <= cols {
		return s
	}
	runes := []rune(s)
	return strings.TrimRight(string(runes[:cols-2]), " ") + " …"
}

// plainLines is the lines of a text a subject controls, each escaped to
// one line (elide.EscapeLine), with a tab as four spaces.
func plainLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = elide.EscapeLine(strings.ReplaceAll(strings.TrimSuffix(l, "\r"), "\t", "    "))
	}
	return lines
}

// cutLines is each line of s, escaped, indented and cut to cols, or off a
// terminal (cols 0) to FrameColumns.
func cutLines(s, indent string, cols int) []string {
	if cols <= 0 {
		cols = FrameColumns
	}
	lines := plainLines(s)
	for i, l := range lines {
		lines[i] = cut(indent+l, cols)
	}
	return lines
}

// frameLines is cutLines for a transcript, whose lines are frames, but
// that the probe request, what the check asked of the subject, is never
// cut.
func frameLines(s, indent string, cols int) []string {
	lines := cutLines(s, indent, cols)
	for i, l := range plainLines(s) {
		if probeRequest.MatchString(l) {
			lines[i] = indent + l
		}
	}
	return lines
}

// probeRequest matches a transcript's line of the harness's session/prompt
// to an agent: the probe request, or the prompt of a check without one.
var probeRequest = regexp.MustCompile(`^\+[0-9.]+s -> \{"jsonrpc":"2\.0","id":[^,]*,"method":"session/prompt"`)

// wrap is lines (escaped already), each longer one wrapped at a space to
// at most cols columns, or cut in a word longer than that; with cols 0
// (or less), the lines as they are.
func wrap(lines []string, cols int) []string {
	if cols <= 0 {
		return lines
	}
	var out []string
	for _, line := range lines {
		runes := []rune(strings.TrimRight(line, " "))
		for len(runes) > cols {
			at := cols
			for i := cols; i > cols/2; i-- {
				if runes[i] == ' ' {
					at = i
					break
				}
			}
			out = append(out, strings.TrimRight(string(runes[:at]), " "))
			runes = runes[at:]
			for len(runes) > 0 && runes[0] == ' ' {
				runes = runes[1:]
			}
		}
		out = append(out, string(runes))
	}
	return out
}

// endLines is the last n lines of s, without the blank ones it ends with.
func endLines(s string, n int) string {
	s = strings.TrimRight(s, "\n ")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// indent puts prefix before each line.
func indent(lines []string, prefix string) []string {
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return lines
}

// indentOf is the spaces a line starts with.
func indentOf(l string) string { return l[:len(l)-len(strings.TrimLeft(l, " "))] }
