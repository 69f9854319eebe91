package reports

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/probe"
)

// NoteNewCheck starts the note the catalogue writes in the transcript of a
// shared connection when the next check takes it, followed by the check's
// name: what comes before it is the earlier checks'.
const NoteNewCheck = "a new check on this connection: "

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
//
// Each attempt is a part of its own, drawn apart: the one on a connection
// shared with earlier checks and the one on a fresh connection. In a part
// that failed, one frame of the subject's is marked as the failure (see
// blame), and the rows far before it are folded, so that it shows near
// the top of its part.
type diagram struct {
	Lanes []string
	Parts []seqPart
	// Omitted counts the rows left out, the earliest, past maxSeqRows.
	Omitted int
}

// seqPart is one attempt of a check, or its only one.
type seqPart struct {
	Heading string // "attempt 1, on a connection shared with earlier checks"; "" for a check that ran once
	Kind    string // "shared", "fresh", or "" for a check that ran once
	Failed  bool   // the attempt failed: its frame of the failure is marked
	Blocks  []seqBlock
	rows    []seqRow
}

// seqBlock is a run of rows of a part, folded (Fold says what it holds)
// or shown.
type seqBlock struct {
	Fold string
	Rows []seqRow
}

// seqRow is one row of a diagram: an arrow (Arrow set), an event on a
// lane (Event), a heading (Heading), the start of a check on a shared
// connection (NewCheck, its name) or a line of text (Text).
type seqRow struct {
	Arrow    *seqArrow
	Event    string
	Lane     int // of the event
	Heading  string
	NewCheck string
	At       string // of NewCheck
	This     bool   // NewCheck is the check whose transcript this is
	Text     string
}

// seqArrow is one frame between two lanes.
type seqArrow struct {
	From, To int
	At       string // +0.0119s
	Kind     string // request, notification, result, error, batch, invalid
	Label    string // the method, "result of session/prompt", "error -32000 ..."
	ID       string // the JSON-RPC id as written, "" for none
	Detail   string // what the frame says in a few words: a message's text, an error's message
	Frame    string // the frame as the transcript has it
	Note     string // the transcript's note: "raw", or why the frame was refused
	// Blame marks the frame the failure is about (see blame).
	Blame bool
	// names are the words by which a failure's reason names this frame.
	names []string
}

// FromSubject reports whether the subject sent the frame.
func (a seqArrow) FromSubject(subjectLane int) bool { return a.From == subjectLane }

// maxSeqRows bounds the rows of one diagram: the last ones are kept, where
// a failure shows.
const maxSeqRows = 400

// seqContext is how many rows before the marked frame a part shows; the
// earlier ones are folded.
const seqContext = 4

// maxDetail bounds an arrow's detail.
const maxDetail = 200

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

var (
	entryLine   = regexp.MustCompile(`^\+([0-9]+\.[0-9]+)s (->|<-|--)(.*)$`)
	attemptLine = regexp.MustCompile(`^attempt ([0-9]+), (.*):$`)
)

// relaySides are the headings of a relay's transcript: which lane the
// harness's peer of each side is, and what the diagram calls it.
var relaySides = map[string]struct {
	owner   int
	heading string
}{
	"client side:": {0, "the relay's client side"},
	"agent side:":  {2, "the relay's agent side"},
}

// readDiagram parses a transcript of a check of role. failure is the
// check's reason, which says which frame to blame; lastPassed says that
// the check's last attempt passed (it failed on a shared connection, and
// passed on a fresh one), so that the failure is marked in the others.
func readDiagram(transcript, role, failure string, lastPassed bool) diagram {
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
	part := &seqPart{}
	for _, line := range strings.Split(strings.TrimRight(transcript, "\n"), "\n") {
		if side, ok := relaySides[strings.TrimSpace(line)]; ok {
			if role == "relay" {
				owner = side.owner
				clear(methods)
			}
			part.rows = append(part.rows, seqRow{Heading: side.heading})
			continue
		}
		if m := attemptLine.FindStringSubmatch(line); m != nil {
			clear(methods)
			if part.Heading != "" || len(part.rows) > 0 {
				d.Parts = append(d.Parts, *part)
			}
			part = &seqPart{Heading: strings.TrimSuffix(line, ":"), Kind: "fresh"}
			if strings.Contains(m[2], "shared") {
				part.Kind = "shared"
			}
			continue
		}
		m := entryLine.FindStringSubmatch(line)
		if m == nil {
			if line != "" {
				part.rows = append(part.rows, seqRow{Text: line})
			}
			continue
		}
		at, dir, rest := "+"+m[1]+"s", m[2], m[3]
		if dir == "--" { // a note of the harness's own: a scripted delay, say
			note := strings.TrimSpace(unnote(rest))
			if name, ok := strings.CutPrefix(note, NoteNewCheck); ok {
				part.rows = append(part.rows, seqRow{NewCheck: name, At: at})
				continue
			}
			part.rows = append(part.rows, seqRow{Event: at + " " + note, Lane: owner})
			continue
		}
		if strings.HasPrefix(rest, "  (") && strings.HasSuffix(rest, ")") { // an event: a close, a failed write
			lane := owner
			if dir == "<-" {
				lane = subject
			}
			part.rows = append(part.rows, seqRow{Event: at + " " + unnote(rest), Lane: lane})
			continue
		}
		a := &seqArrow{From: owner, To: subject, At: at}
		if dir == "<-" {
			a.From, a.To = subject, owner
		}
		a.Frame, a.Note = splitNote(strings.TrimPrefix(rest, " "))
		describe(a, dir, methods)
		part.rows = append(part.rows, seqRow{Arrow: a})
	}
	d.Parts = append(d.Parts, *part)
	for _, p := range d.Parts {
		d.Omitted += len(p.rows)
	}
	d.Omitted = max(0, d.Omitted-maxSeqRows)
	drop := d.Omitted
	for i := range d.Parts {
		p := &d.Parts[i]
		n := min(drop, len(p.rows))
		p.rows, drop = p.rows[n:], drop-n
		p.Failed = !lastPassed || len(d.Parts) == 1 || i < len(d.Parts)-1
		if own := ownStart(p.rows); own < len(p.rows) && p.rows[own].NewCheck != "" {
			p.rows[own].This = true
		}
		if p.Failed {
			p.Blocks = fold(p.rows, blame(p.rows, subject, failure))
		} else {
			p.Blocks = []seqBlock{{Rows: p.rows}}
		}
	}
	return d
}

// fold shows a part's rows from a few before the marked one (at, -1 for
// none) on, and folds the earlier ones: the earlier checks' on a shared
// connection apart from the current check's.
func fold(rows []seqRow, at int) []seqBlock {
	if at < 0 {
		return []seqBlock{{Rows: rows}}
	}
	own := ownStart(rows[:at])
	from := max(own, at-seqContext)
	var blocks []seqBlock
	if own > 0 {
		blocks = append(blocks, seqBlock{Fold: fmt.Sprintf("%d %s of the earlier checks on this connection", own, plural(own, "row", "rows")), Rows: rows[:own]})
	}
	if from-own < 2 { // a fold is a row itself: worth it for two or more
		from = own
	}
	if from > own {
		blocks = append(blocks, seqBlock{Fold: fmt.Sprintf("%d earlier %s of this check", from-own, plural(from-own, "row", "rows")), Rows: rows[own:from]})
	}
	return append(blocks, seqBlock{Rows: rows[from:]})
}

// ownStart is where the current check's rows start among rows: at the
// last note that a new check took the connection, or 0.
func ownStart(rows []seqRow) int {
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].NewCheck != "" {
			return i
		}
	}
	return 0
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
// it is, its method (a response's, through the request it answers) and id,
// and the words by which a failure names it.
func describe(a *seqArrow, dir string, methods map[string]string) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Params json.RawMessage `json:"params"`
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
		a.names = []string{*msg.Method}
		if *msg.Method == "elicitation/create" {
			a.names = append(a.names, "requestedSchema", "form")
		}
		if text := promptText(*msg.Method, msg.Params); text != "" {
			a.Detail = elide.Head(text, maxDetail) // what the check asked: the probe request
		}
	case msg.Method != nil:
		a.Kind, a.Label = "notification", *msg.Method
		a.names = []string{*msg.Method}
		if text := messageText(*msg.Method, msg.Params); text != "" {
			a.Detail = elide.Head(text, maxDetail)
			if probe.IsOutcome(text) { // a probe's outcome: what "the agent reported" is
				a.names = append(a.names, "reported", "outcome")
			}
		}
	case msg.Error != nil:
		a.Kind, a.Label = "error", "error "+string(msg.Error.Code)
		a.Detail = elide.Head(msg.Error.Message, maxDetail)
		a.names = []string{string(msg.Error.Code)}
		if m := answered(methods, dir, a.ID); m != "" {
			a.Label += " to " + m
		}
	case msg.Result != nil:
		a.Kind, a.Label = "result", "result"
		if m := answered(methods, dir, a.ID); m != "" {
			a.Label += " of " + m
			a.names = []string{m}
			if m == "session/prompt" {
				a.names = append(a.names, "stopReason")
			}
		}
	default:
		a.Kind, a.Label = "invalid", "neither request nor response"
	}
}

// messageText is the text of an agent_message_chunk, "" for any other
// frame.
func messageText(method string, params json.RawMessage) string {
	if method != "session/update" {
		return ""
	}
	var p struct {
		Update struct {
			Kind    string `json:"sessionUpdate"`
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	}
	if json.Unmarshal(params, &p) != nil || p.Update.Kind != "agent_message_chunk" {
		return ""
	}
	return p.Update.Content.Text
}

// promptText is the text of a session/prompt's text blocks, the probe
// request a check sends, or the prompt of one without a probe; "" for any
// other frame.
func promptText(method string, params json.RawMessage) string {
	if method != "session/prompt" {
		return ""
	}
	var p struct {
		Prompt []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"prompt"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	var texts []string
	for _, b := range p.Prompt {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
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

// blame marks the frame of a failed attempt's rows that the failure is
// about, and returns its index, -1 for none. Only the current check's
// rows count (on a shared connection, those after the last note that a
// new check took it), and of those the subject's frames: one the harness
// refused (it has a note); else the last one the failure's reason names,
// by its method, its error code, or what it carries (a form's
// requestedSchema, a probe's outcome that "the agent reported", a turn's
// stopReason); else the last that is not a result, which is what a
// subject sends as it should whatever it did before.
func blame(rows []seqRow, subject int, failure string) int {
	named, last, lastResult := -1, -1, -1
	for i := ownStart(rows); i < len(rows); i++ {
		a := rows[i].Arrow
		if a == nil || !a.FromSubject(subject) {
			continue
		}
		if a.Note != "" && a.Note != "raw" {
			a.Blame = true
			return i
		}
		if a.Kind == "result" {
			lastResult = i
		} else {
			last = i
		}
		for _, name := range a.names {
			if names(failure, name) {
				named = i
			}
		}
	}
	for _, i := range []int{named, last, lastResult} {
		if i >= 0 {
			rows[i].Arrow.Blame = true
			return i
		}
	}
	return -1
}

// names reports whether failure names name: as a word, not as a part of
// one ("form" is not "platform", "-3200" is not "-32000").
func names(failure, name string) bool {
	for i := 0; ; {
		j := strings.Index(failure[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !wordByte(failure[start-1])) && (end == len(failure) || !wordByte(failure[end])) {
			return true
		}
		i = start + 1
	}
}

func wordByte(b byte) bool {
	return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
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
