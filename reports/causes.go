package reports

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/acpconform/acpconform/internal/elide"
)

// A Cause is what several failed checks of a run share, so that people
// read it once: an agent that crashes on every prompt fails 160 checks
// with one reason, one end of its process and one traceback. The
// terminal and summary.md show each cause once, with the checks it took
// down; junit.xml and report.json keep a testcase, a check, each with its
// own failure (report.json names its cause).
//
// Two failures have one cause when they are of one subject, of one kind
// (new, known with one reason, interrupted), and their reasons read the
// same once what differs from check to check is left out: quoted
// strings, JSON objects and arrays, numbers and words with digits (ids,
// sessions, durations, counts), a list's repeated items. Contract IDs
// (TOK-2) and JSON-RPC error codes (-32601) are kept: they tell failures
// apart. When the subject's process died during the check, the last words
// count too: how the process ended, the end of its stderr, and, of the
// reason, only its last clause, what the connection said when it ended
// (the rest says what the check was waiting for, which is not the cause).
// Different rules failing in different words never share a cause.
type Cause struct {
	// Checks are the failed checks of the cause, in the run's order; the
	// first shows it.
	Checks []Check
	// Follows is, for a timeout that follows an error the same subject
	// showed earlier in the run, that error and where it was seen; see
	// [Cause.Note].
	Follows string
	indexes []int // of Checks in the run's checks
}

// Name names the cause in report.json: the key of its first check.
func (c Cause) Name() string { return c.Checks[0].Key() }

// Note is what to say of a timeout that follows an error already seen on
// the same subject, "" when there is nothing to say.
func (c Cause) Note() string {
	if c.Follows == "" {
		return ""
	}
	return "this timeout follows an error already seen: " + c.Follows
}

// Messages lists what the subject said in the cause's checks when they do
// not all say the same: the last quoted text of each check's reason
// (where a check quotes the subject's error message, after what it
// sent), one of each form (its own quotes and words with digits left
// out), in the run's order; nil when there are fewer than two forms. A cause
// keeps quoted texts apart only as forms: ACP Kit's TOK-2 failures quote
// "invalid literal for int()" for most tokens and Python's 4300-digit
// limit for the longest, which are two things to fix, not one.
func (c Cause) Messages() []string {
	var shown []string
	forms := map[string]bool{}
	for _, ch := range c.Checks {
		q := saidText(elide.Head(ch.Failure, keyBytes))
		if q == "" {
			continue
		}
		form := normalise(singleQuoted.ReplaceAllString(strings.Trim(q, `"`), "'…'"))
		if forms[form] {
			continue
		}
		forms[form] = true
		if len(shown) < maxMessages {
			shown = append(shown, q)
		}
	}
	if len(forms) < 2 {
		return nil
	}
	return shown
}

// quotedText is a quoted text of a reason, escapes included.
// saidText is the last quoted text of a reason that the subject said: not
// one the check wanted (after "want ", or on a diff's "- " line).
func saidText(reason string) string {
	said := ""
	for _, m := range quotedText.FindAllStringIndex(reason, -1) {
		before := reason[:m[0]]
		lineStart := strings.LastIndexByte(before, '\n') + 1
		if wanted.MatchString(before) || strings.HasPrefix(reason[lineStart:], "- ") {
			continue
		}
		said = reason[m[0]:m[1]]
	}
	return said
}

// wanted matches the words before a quoted text that the check wanted.
var wanted = regexp.MustCompile(`\bwant(?:ed)?:? $|\bwant(?:ed)? [\w ]{0,40}(?:of|as|is|be) $`)

var quotedText = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`)

// singleQuoted is a text in single quotes, as Python's messages quote
// what they were given.
var singleQuoted = regexp.MustCompile(`'[^'\n]*'`)

// maxMessages bounds Messages: a cause of many forms shows the first few.
const maxMessages = 5

// Causes groups the failed, interrupted and errored checks of a run by
// cause (a check that could not run never shares one with a failure), in
// the order of each cause's first check.
func Causes(checks []Check) []Cause {
	follows := errorsFollowed(checks)
	var causes []Cause
	index := map[string]int{}
	for i, c := range checks {
		if !c.Failed() && c.State != StateError {
			continue
		}
		k := causeKey(c) + "\x00" + follows[i]
		j, ok := index[k]
		if !ok {
			j = len(causes)
			index[k] = j
			causes = append(causes, Cause{Follows: follows[i]})
		}
		causes[j].Checks = append(causes[j].Checks, c)
		causes[j].indexes = append(causes[j].indexes, i)
	}
	return causes
}

// causeKey is what the failures of one cause have in common.
func causeKey(c Check) string {
	reason := normalise(c.Failure)
	words := ""
	if c.Process != "" {
		first, _, _ := strings.Cut(reason, "\n")
		if i := strings.LastIndex(first, ": "); i >= 0 {
			first = first[i+2:]
		}
		reason = first
		words = c.Process + "\x00" + normalise(stderrEnd(c.Diagnostics))
	}
	return strings.Join([]string{subjectOf(c), c.State, c.Known, reason, words}, "\x00")
}

// keyBytes bounds what of a reason decides its cause.
const keyBytes = 4 << 10

// stderrEnd is the last lines of a subject's stderr, as the terminal
// shows them.
func stderrEnd(s string) string {
	lines := strings.Split(strings.TrimRight(elide.Tail(s, keyBytes), "\n "), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	for i, l := range lines {
		lines[i] = elide.Head(l, 300)
	}
	return strings.Join(lines, "\n")
}

// varying matches, in a failure's reason, what differs from check to
// check, and what must not be taken for it: a quoted string (escapes
// included), a contract ID, a JSON-RPC error code, a word with a digit.
var varying = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"|\b[A-Z]{2,5}-[0-9]+\b|-32[0-9]{3}\b|\w*[0-9]\w*`)

// normalise is text a subject or a check wrote with what differs from
// check to check left out (see [Cause]): quoted strings become "…", JSON
// objects and arrays {…} and […], words with a digit N, a list's repeated
// items one, and runs of spaces one space.
func normalise(s string) string {
	s = elide.Head(s, keyBytes) // enough to tell causes apart, and no more work
	s = varying.ReplaceAllStringFunc(s, func(m string) string {
		switch {
		case m[0] == '"':
			return `"…"`
		case m[0] == '-' || (m[0] >= 'A' && m[0] <= 'Z' && strings.Contains(m, "-")):
			return m // a code or an ID: they tell failures apart
		}
		return "N"
	})
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = collapseJSON(l)
		l = strings.Join(strings.Fields(l), " ")
		items := strings.Split(l, ", ")
		kept := items[:1]
		for _, it := range items[1:] {
			if it != kept[len(kept)-1] {
				kept = append(kept, it)
			}
		}
		lines[i] = strings.Join(kept, ", ")
	}
	return strings.Join(lines, "\n")
}

// collapseJSON replaces each outermost {...} and [...] of a line, its
// strings already "…", with {…} or […]; one left open runs to the end of
// the line (an elided value).
func collapseJSON(l string) string {
	var b strings.Builder
	depth := 0
	for _, r := range l {
		switch {
		case r == '{' || r == '[':
			if depth == 0 {
				b.WriteRune(r)
				b.WriteRune('…')
			}
			depth++
		case (r == '}' || r == ']') && depth > 0:
			depth--
			if depth == 0 {
				b.WriteRune(r)
			}
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// subjectOf names the subject a check is of: its role, and when a run has
// several subjects of that role (acpconform run's two reference clients),
// the container named after it, which starts the check's name before its
// area's (reference mirror (in-process) REL: ...).
func subjectOf(c Check) string {
	if m := areaWord.FindStringIndex(c.Name); m != nil {
		return c.Role + "\x00" + c.Name[:m[0]]
	}
	return c.Role
}

var areaWord = regexp.MustCompile(`(?:^|\s)[A-Z][A-Z0-9]*: `)

// timeout matches the first line of a failure that is a wait that ran out:
// "no answer within 5s", "did not receive ... within 5s", "did not end".
var timeout = regexp.MustCompile(`\bwithin [0-9][0-9.]*(?:ns|us|µs|ms|s|m|h)\b|\bdid not end\b|deadline exceeded|\btimed out\b|\btimeout occurred\b`)

// jsonRPCCode matches a JSON-RPC error code in a failure's reason.
var jsonRPCCode = regexp.MustCompile(`-32[0-9]{3}\b`)

// errorsFollowed says, for each failed check that is a timeout, the error
// its subject showed before it ("" for the others): the error of the most
// recent earlier failure of the same subject that showed one, or else one
// in the check's own transcript. A failure shows an error when its
// subject's process died during it, when its reason names a JSON-RPC
// error code, when it is a timeout that follows one (the same error, so
// that every timeout a -32601 caused names the -32601), or when its
// transcript has an error answer from the subject.
func errorsFollowed(checks []Check) []string {
	follows := make([]string, len(checks))
	last := map[string]string{} // subject → the error its last failure with one showed
	for i, c := range checks {
		if c.State != StateFailed {
			continue
		}
		subject := subjectOf(c)
		first, _, _ := strings.Cut(strings.TrimSpace(c.Failure), "\n")
		if c.Process == "" && timeout.MatchString(first) {
			// A client or relay starts afresh for every check: what another
			// check saw of it is no evidence of this one's cause.
			if e, ok := last[subject]; ok && sharesProcesses(c) {
				follows[i] = e
			} else if e := transcriptError(c.Transcript); e != "" {
				follows[i] = e + " (earlier in this check)"
			}
		}
		in := " (in " + elide.Head(c.Key(), 200) + ")"
		switch {
		case c.Process != "":
			last[subject] = "the subject's process " + elide.Head(c.Process, 300) + in
		case jsonRPCCode.MatchString(c.Failure):
			for _, line := range strings.Split(c.Failure, "\n") {
				if jsonRPCCode.MatchString(line) {
					last[subject] = elide.Head(strings.TrimSpace(line), 500) + in
					break
				}
			}
		case follows[i] != "":
			if e, own := strings.CutSuffix(follows[i], " (earlier in this check)"); own {
				last[subject] = e + in
			} else {
				last[subject] = follows[i]
			}
		default:
			if e := transcriptError(c.Transcript); e != "" {
				last[subject] = e + in
			}
		}
	}
	return follows
}

// sharesProcesses reports whether c's subject may have carried state into
// it from an earlier check: an agent's processes serve many checks; a
// client's or a relay's serve one each.
func sharesProcesses(c Check) bool { return c.Role != "client" && c.Role != "relay" }

// transcriptError is the last error answer a transcript shows from the
// subject ("<-"), in a few words: `elicitation/create answered with
// -32601 "Method not found"`. An error with a code the harness itself sent
// ("->") is left out: a relay passing on the harness's own error answer
// shows no error of its own. "" when there is none.
func transcriptError(t string) string {
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Error  *struct {
			Code    json.Number `json:"code"`
			Message string      `json:"message"`
		} `json:"error"`
	}
	sent := map[string]string{} // request id → method, of the harness's requests on this connection
	ours := map[json.Number]bool{}
	type seen struct {
		code    json.Number
		message string
		method  string
	}
	var theirs []seen
	for _, line := range strings.Split(t, "\n") {
		if !strings.HasPrefix(line, "+") { // a connection's heading: client side:, agent side:, attempt 2 ...
			sent = map[string]string{}
			continue
		}
		_, rest, _ := strings.Cut(line, " ")
		dir, msg, _ := strings.Cut(rest, " ")
		if !strings.Contains(msg, `"error"`) && (dir != "->" || !strings.Contains(msg, `"method"`)) {
			continue // neither an error nor a request of the harness's
		}
		var m message
		if json.Unmarshal([]byte(msg), &m) != nil {
			continue
		}
		switch {
		case dir == "->" && m.Method != "" && len(m.ID) > 0:
			sent[string(m.ID)] = m.Method
		case dir == "->" && m.Error != nil:
			ours[m.Error.Code] = true
		case dir == "<-" && m.Method == "" && m.Error != nil:
			theirs = append(theirs, seen{m.Error.Code, m.Error.Message, sent[string(m.ID)]})
		}
	}
	for i := len(theirs) - 1; i >= 0; i-- {
		e := theirs[i]
		if ours[e.code] {
			continue
		}
		what := "a request answered" // one the harness did not send on this connection
		if e.method != "" {
			what = e.method + " answered" // the harness's own request
		}
		return what + " with error " + elide.Head(string(e.code), 30) + " " + strconv.Quote(elide.Head(e.message, 200))
	}
	return ""
}

// Label names a check in the list of a cause: its ID between quote marks
// (such as "`" in Markdown) and the rules and level it checks:
// `TOK-2/leading-zero` (TOK-2 MUST). A check without an ID is named by
// its heading.
func (c Check) Label(quote string) string { return c.label(quoted(quote), plain) }

// label is Label with the ID shown by id, and the rest by text.
func (c Check) label(id, text func(string) string) string {
	if c.ID == "" {
		return c.heading(id, text)
	}
	rules := strings.Join(c.Rules, " ")
	if rules == "" {
		rules = c.Area
	}
	return id(c.ID) + " (" + text(rules) + " " + text(c.Level) + ")"
}
