package reports

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/acpconform/acpconform/internal/elide"
)

// A diagram is a check's transcript read as a sequence diagram: a lane per
// party, an arrow per frame. It reads the text mocks/wire's Transcript
// writes, a line an entry:
//
//	+0.0119s -> {"jsonrpc":"2.0","id":3,"method":"session/prompt",...}
//	+0.0137s <- {"jsonrpc":"2.0","id":3,"error":{...}}  (a refusal's reason)
//	+0.0639s <-  (closed: wire: connection closed by this side)
//
// where -> is a frame the harness's peer sent the subject and <- one it
// received, with "client side:" and "agent side:" before the two ends of
// a relay's transcript and "attempt N, ..." before each attempt's. Any
// other line (a cut's marker, "(3 earlier entries dropped)", a frame's
// continuation) is a row of plain text: nothing a subject wrote can stop
// the page from showing the rest.
type diagram struct {
	Lanes []string
	Rows  []seqRow
	// Omitted counts the rows left out, the earliest, past maxSeqRows.
	Omitted int
}

// seqRow is one row of a diagram: an arrow (Arrow set), an event on a
// lane (Event), a heading (Heading) or a line of text (Text).
type seqRow struct {
	Arrow   *seqArrow
	Event   string
	Lane    int // of the event
	Heading string
	Text    string
}

// seqArrow is one frame between two lanes.
type seqArrow struct {
	From, To int
	At       string // +0.0119s
	Kind     string // request, notification, result, error, batch, invalid
	Label    string // the method, "result of session/prompt", "error -32000 ..."
	ID       string // the JSON-RPC id as written, "" for none
	Frame    string // the frame as the transcript has it
	Note     string // the transcript's note: "raw", or why the frame was refused
	// Blame marks the frame the failure is likely about (see blame).
	Blame bool
}

// FromSubject reports whether the subject sent the frame.
func (a seqArrow) FromSubject(subjectLane int) bool { return a.From == subjectLane }

// maxSeqRows bounds the rows of one diagram: the last ones are kept, where
// a failure shows.
const maxSeqRows = 400

// The lanes of each role's diagram, and which lane holds the subject.
var laneNames = map[string][]string{
	"agent":  {"harness: mock client", "subject: agent"},
	"client": {"subject: client", "harness: mock agent"},
	"relay":  {"harness: mock client", "subject: relay", "harness: mock agent"},
}

func subjectLane(role string) int {
	if role == "agent" || role == "relay" {
		return 1
	}
	return 0
}

var entryLine = regexp.MustCompile(`^\+([0-9]+\.[0-9]+)s (->|<-|--)(.*)$`)

// relaySides are the headings of a relay's transcript: which lane the
// harness's peer of each side is, and what the diagram calls it.
var relaySides = map[string]struct {
	owner   int
	heading string
}{
	"client side:": {0, "the relay's client side"},
	"agent side:":  {2, "the relay's agent side"},
}

// readDiagram parses a transcript of a check of role; failure is the
// check's reason, which says which frame to blame.
func readDiagram(transcript, role, failure string) diagram {
	lanes, ok := laneNames[role]
	if !ok {
		role, lanes = "agent", []string{"harness", "subject"}
	}
	d := diagram{Lanes: lanes}
	subject := subjectLane(role)
	owner := 1 - subject // the lane of the harness's peer whose transcript this is
	if role == "relay" {
		owner = 0
	}
	// methods names requests by id, each way, so that a response names
	// what it answers.
	methods := map[string]string{}
	for _, line := range strings.Split(strings.TrimRight(transcript, "\n"), "\n") {
		if side, ok := relaySides[strings.TrimSpace(line)]; ok {
			if role == "relay" {
				owner = side.owner
				clear(methods)
			}
			d.Rows = append(d.Rows, seqRow{Heading: side.heading})
			continue
		}
		if strings.HasPrefix(line, "attempt ") && strings.HasSuffix(line, ":") {
			clear(methods)
			d.Rows = append(d.Rows, seqRow{Heading: strings.TrimSuffix(line, ":")})
			continue
		}
		m := entryLine.FindStringSubmatch(line)
		if m == nil {
			if line != "" {
				d.Rows = append(d.Rows, seqRow{Text: line})
			}
			continue
		}
		at, dir, rest := "+"+m[1]+"s", m[2], m[3]
		if dir == "--" { // a note of the harness's own: a scripted delay, say
			d.Rows = append(d.Rows, seqRow{Event: at + " " + strings.TrimSpace(unnote(rest)), Lane: owner})
			continue
		}
		if strings.HasPrefix(rest, "  (") && strings.HasSuffix(rest, ")") { // an event: a close, a failed write
			lane := owner
			if dir == "<-" {
				lane = subject
			}
			d.Rows = append(d.Rows, seqRow{Event: at + " " + unnote(rest), Lane: lane})
			continue
		}
		a := &seqArrow{From: owner, To: subject, At: at}
		if dir == "<-" {
			a.From, a.To = subject, owner
		}
		a.Frame, a.Note = splitNote(strings.TrimPrefix(rest, " "))
		describe(a, dir, methods)
		d.Rows = append(d.Rows, seqRow{Arrow: a})
	}
	blame(d.Rows, subject, failure)
	if len(d.Rows) > maxSeqRows {
		d.Omitted = len(d.Rows) - maxSeqRows
		d.Rows = d.Rows[d.Omitted:]
	}
	return d
}

// unnote is the text of a note written "  (note)".
func unnote(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		return s[1 : len(s)-1]
	}
	return s
}

// splitNote splits a frame from the note after it ("  (raw)"). A frame is
// JSON as often as not, so the split that leaves valid JSON wins; else the
// last "  (" of a line that ends with ")".
func splitNote(s string) (frame, note string) {
	if json.Valid([]byte(s)) || !strings.HasSuffix(s, ")") {
		return s, ""
	}
	last := -1
	for i := 0; ; {
		j := strings.Index(s[i:], "  (")
		if j < 0 {
			break
		}
		i += j
		if json.Valid([]byte(s[:i])) {
			return s[:i], s[i+3 : len(s)-1]
		}
		last = i
		i += 3
	}
	if last < 0 {
		return s, ""
	}
	return s[:last], s[last+3 : len(s)-1]
}

// describe labels an arrow from its frame: what kind of JSON-RPC message
// it is, its method (a response's, through the request it answers) and id.
func describe(a *seqArrow, dir string, methods map[string]string) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
		} `json:"error"`
	}
	frame := strings.TrimSpace(a.Frame)
	if strings.HasPrefix(frame, "[") {
		var batch []json.RawMessage
		if json.Unmarshal([]byte(frame), &batch) == nil {
			a.Kind, a.Label = "batch", fmt.Sprintf("a batch of %d", len(batch))
			return
		}
	}
	if json.Unmarshal([]byte(frame), &msg) != nil {
		a.Kind, a.Label = "invalid", "not a JSON-RPC object"
		return
	}
	if len(msg.ID) > 0 && string(msg.ID) != "null" || msg.Method == nil {
		a.ID = string(msg.ID)
	}
	switch {
	case msg.Method != nil && len(msg.ID) > 0:
		a.Kind, a.Label = "request", *msg.Method
		methods[dir+a.ID] = *msg.Method
	case msg.Method != nil:
		a.Kind, a.Label = "notification", *msg.Method
	case msg.Error != nil:
		a.Kind, a.Label = "error", "error "+string(msg.Error.Code)
		if m := answered(methods, dir, a.ID); m != "" {
			a.Label += " to " + m
		}
	case msg.Result != nil:
		a.Kind, a.Label = "result", "result"
		if m := answered(methods, dir, a.ID); m != "" {
			a.Label += " of " + m
		}
	default:
		a.Kind, a.Label = "invalid", "neither request nor response"
	}
}

// answered is the method of the request, sent the other way, that a
// response with id answers.
func answered(methods map[string]string, dir, id string) string {
	other := "->"
	if dir == "->" {
		other = "<-"
	}
	return methods[other+id]
}

// blame marks the frame a failure is likely about: a frame of the
// subject's that the harness refused (it has a note); else the last frame
// of the subject's whose method or error code the failure names; else the
// subject's last frame.
func blame(rows []seqRow, subject int, failure string) {
	var named, last *seqArrow
	for _, r := range rows {
		a := r.Arrow
		if a == nil || !a.FromSubject(subject) {
			continue
		}
		if a.Note != "" && a.Note != "raw" {
			a.Blame = true
			return
		}
		last = a
		method, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a.Label, "result of "), "error "), " ")
		if a.Kind == "request" || a.Kind == "notification" {
			method = a.Label
		}
		if method != "" && method != "result" && strings.Contains(failure, method) {
			named = a
		}
	}
	switch {
	case named != nil:
		named.Blame = true
	case last != nil:
		last.Blame = true
	}
}

// shortID is an id fit for an arrow's label: one line, bounded.
func shortID(id string) string {
	if id == "" {
		return ""
	}
	if _, err := strconv.Atoi(id); err == nil {
		return "#" + id
	}
	return "id " + elide.EscapeLine(elide.Head(id, 40))
}
