// Package judge decides the contract's rules that show in what a client
// and an agent sent each other, from the frames alone: a session recorded
// with acpconform record (package trace), or the connections of a live
// run of the catalogue written with --traces. The rules are decided by
// the code the live checks use (mocks/agent.Check for an answer,
// TypedChoiceProblems for a typed-choice form, script.Advertises for a
// capability), so a frame means the same whichever way it came.
//
// Each of the judge's checks decides one rule, or the part of it a trace
// can show ([Check].Whole); a rule of the role that no check decides is
// listed as not visible in a trace by acpconform judge, never passed. A
// check the session gave no occasion to is not exercised, never passed.
package judge

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acpconform/acpconform/mocks/agent"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/suite"
	"github.com/acpconform/acpconform/trace"
)

// Promptly is the contract's bound on "promptly" (RTE-7, ELI-9): what a
// peer owes after a cancel must come within it.
const Promptly = 2 * time.Second

// Frame is one message of a session, or the end of one side.
type Frame struct {
	From trace.Side
	At   time.Duration // since the session began
	Data []byte
	Line int // its line in the trace file; 0 when it has none
	// Ended says the frame is no message: From's side ended then, as Why
	// says ("closed its output", "exited with status 0").
	Ended bool
	Why   string
}

// Session is what crossed one connection, in order.
type Session struct {
	Name   string // the trace's file, for quoting
	Frames []Frame
	End    time.Duration // when the record ends: its last event
}

// FromTrace is the session a trace recorded.
func FromTrace(name string, t trace.Trace) Session {
	s := Session{Name: name}
	for i, e := range t.Events {
		at := time.Duration(e.T * float64(time.Second))
		s.End = max(s.End, at)
		switch e.Kind {
		case trace.KindMessage:
			s.Frames = append(s.Frames, Frame{From: e.From, At: at, Data: e.Bytes(), Line: i + 2})
		case trace.KindEnd:
			s.Frames = append(s.Frames, Frame{From: e.Side, At: at, Line: i + 2, Ended: true, Why: e.Why})
		}
	}
	return s
}

// State is what became of a check.
type State string

// The states of a check.
const (
	Passed       State = "passed"
	Failed       State = "failed"
	NotExercised State = "not exercised"
)

// Result is a check's verdict over the sessions judged.
type Result struct {
	Check
	State State
	// Times is how many times the sessions exercised the check.
	Times int
	// Why: for a failure, each failure (at most maxWhy), each naming its
	// trace and line and quoting its frame; for a check not exercised,
	// why.
	Why []string
	// Frames are the frames the first failure rests on, or, for a pass,
	// those of the first time it was exercised.
	Frames []Frame
	// Session is the name of the session Frames are of.
	Session string
}

// maxWhy bounds the failures a result lists.
const maxWhy = 20

// Options say how to judge.
type Options struct {
	Role string // whose conformance: "agent" or "client"
	// Response bounds the wait for a client's answer to an elicitation the
	// agent cancelled (ELI-7), as a live check's --response-timeout does;
	// zero means the live checks' default, suite.DefaultResponse.
	Response time.Duration
}

// Judge decides every check of o.Role over the sessions.
func Judge(o Options, sessions ...Session) []Result {
	role := o.Role
	if o.Response <= 0 {
		o.Response = suite.DefaultResponse
	}
	var results []Result
	byID := map[string]*Result{}
	for _, c := range Checks {
		if c.Role == role {
			results = append(results, Result{Check: c, State: NotExercised})
		}
	}
	for i := range results {
		byID[results[i].ID] = &results[i]
	}
	for _, s := range sessions {
		w := newWalk(o, s)
		w.run()
		for _, ev := range w.evidence {
			r := byID[ev.check]
			if r == nil {
				panic("judge: evidence of no check of the " + role + "'s: " + ev.check)
			}
			r.Times++
			if ev.problem == "" {
				if r.State == NotExercised {
					r.State, r.Frames, r.Session = Passed, ev.frames, s.Name
				}
				continue
			}
			if r.State != Failed {
				r.State, r.Frames, r.Session, r.Why = Failed, ev.frames, s.Name, nil
			}
			if len(r.Why) < maxWhy {
				r.Why = append(r.Why, fmt.Sprintf("%s: %s", where(s.Name, ev.frames), ev.problem))
			}
		}
	}
	for i := range results {
		if r := &results[i]; r.State == NotExercised {
			r.Why = []string{r.Occasion}
		}
	}
	return results
}

// where names the trace and line of the last frame of frames.
func where(name string, frames []Frame) string {
	if len(frames) == 0 || frames[len(frames)-1].Line == 0 {
		return name
	}
	return fmt.Sprintf("%s:%d", name, frames[len(frames)-1].Line)
}

// evidence is one occasion of a check: passed when problem is "".
type evidence struct {
	check   string
	problem string
	frames  []Frame
}

// request is a request seen, with what it asked.
type request struct {
	frame    Frame
	msg      peer.Message
	session  string // its params' sessionId
	answered bool
	// For an elicitation/create:
	asked     agent.Asked
	kind      string // asked.Kind(), read once
	cancelled *Frame // the sender's $/cancel_request for it
}

// obligation is what a peer owes by a time: met when its frame comes
// before due, broken when a later frame or the record's end passes due
// first.
type obligation struct {
	check  string
	within time.Duration // how long the peer has
	due    time.Duration
	cause  Frame
	met    func(seen) bool // nil: an obligation to do nothing
	broken func(seen) string
	what   string // what was owed, for the failure
	kept   string // the session an obligation to leave be is about
	// keep: an obligation to leave be, which the window's end passes, and
	// met, if it is set, passes sooner.
	keep bool
	done bool
}

// walk reads one session in order, collecting evidence.
type walk struct {
	role         string
	answerWithin time.Duration // Options.Response
	s            Session
	caps         json.RawMessage
	sessions     map[string]bool
	byID         map[string]*request // by the sender's side and id
	pending      []*request          // requests not yet answered, as they came (at most maxPending)
	clientEnded  bool
	owed         []*obligation
	evidence     []evidence
}

func newWalk(o Options, s Session) *walk {
	return &walk{role: o.Role, answerWithin: o.Response, s: s, sessions: map[string]bool{}, byID: map[string]*request{}}
}

func (w *walk) note(check, problem string, frames ...Frame) {
	w.evidence = append(w.evidence, evidence{check: check, problem: problem, frames: frames})
}

func key(side trace.Side, id json.RawMessage) string {
	var v any
	if json.Unmarshal(id, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			return string(side) + " " + string(b)
		}
	}
	return string(side) + " " + string(id)
}

func other(side trace.Side) trace.Side {
	if side == trace.Agent {
		return trace.Client
	}
	return trace.Agent
}

func (w *walk) run() {
	for _, f := range w.s.Frames {
		if f.Ended {
			w.settle(f, peer.Message{}, true)
			w.sideEnded(f)
			continue
		}
		m, problem := peer.Decode(f.Data)
		w.settle(f, m, problem == "")
		if problem != "" {
			continue // not a message: no rule of a trace rests on it
		}
		switch {
		case m.IsRequest():
			w.request(f, m)
		case m.IsNotification():
			w.notification(f, m)
		case m.IsResponse():
			w.response(f, m)
		}
	}
	w.settle(Frame{At: w.s.End}, peer.Message{}, false)
}

// settle meets or breaks what was owed as frame f arrives (isMsg false: f
// is the record's end). A window that closes before f is judged: what was
// owed and never came is a failure, what was forbidden and never came a
// pass; a window the record ends within is not exercised.
func (w *walk) settle(f Frame, m peer.Message, isMsg bool) {
	var g *seen // read once, when an obligation looks
	for _, o := range w.owed {
		switch {
		case o.done:
		case f.At > o.due:
			o.done = true
			if o.met == nil || o.keep {
				w.note(o.check, "", o.cause)
			} else {
				w.note(o.check, fmt.Sprintf("%s within %s of %s; %s", o.what, o.within, describe(o.cause), late(f, o)), o.cause)
			}
		case !isMsg:
		default:
			if g == nil {
				read := seenOf(f, m)
				g = &read
			}
			if why := brokenBy(o, *g); why != "" {
				o.done = true
				w.note(o.check, why, o.cause, f)
			} else if o.met != nil && o.met(*g) {
				o.done = true
				w.note(o.check, "", o.cause, f)
			}
		}
	}
	w.owed = slices.DeleteFunc(w.owed, func(o *obligation) bool { return o.done })
}

// brokenBy says how the frame g breaks o, "" when it does not.
func brokenBy(o *obligation, g seen) string {
	if o.broken == nil {
		return ""
	}
	return o.broken(g)
}

// seen is a frame as obligations look at it, read once: what it cancels
// and what it answers, each the key of a request (see key); or the end of
// a side (Frame.Ended).
type seen struct {
	Frame
	msg     peer.Message
	cancels string // of a $/cancel_request: the request it cancels
	answers string // of a response: the request it answers
}

func seenOf(f Frame, m peer.Message) seen {
	g := seen{Frame: f, msg: m}
	switch {
	case m.Method == "$/cancel_request":
		g.cancels = key(f.From, member(m.Params, "requestId")) // a request of its sender's
	case m.IsResponse():
		g.answers = key(other(f.From), m.ID)
	}
	return g
}

func late(f Frame, o *obligation) string {
	if f.Data == nil {
		return fmt.Sprintf("nothing came in the %.1fs the record went on", (f.At - o.cause.At).Seconds())
	}
	return fmt.Sprintf("it had not come %.1fs later", (f.At - o.cause.At).Seconds())
}

func (w *walk) request(f Frame, m peer.Message) {
	r := &request{frame: f, msg: m, session: stringAt(m.Params, "sessionId")}
	w.byID[key(f.From, m.ID)] = r
	w.pending = slices.DeleteFunc(w.pending, func(r *request) bool { return r.answered || r.cancelled != nil })
	if len(w.pending) == maxPending { // the oldest is forgotten: no cancel will find it
		w.pending = w.pending[1:]
	}
	w.pending = append(w.pending, r)
	switch {
	case f.From == trace.Client && m.Method == "initialize":
		w.caps = member(m.Params, "clientCapabilities")
	case f.From == trace.Client && r.session != "":
		w.sessions[r.session] = true // session/load, session/prompt, ...
	case f.From == trace.Agent && m.Method == "elicitation/create":
		r.asked = agent.Asked{Params: m.Params, Caps: w.caps}
		r.kind = r.asked.Kind()
		if w.role == "agent" && r.kind == "form" && member(choiceProperty(m.Params), "oneOf") != nil {
			// A typed choice with something added is judged as a typed
			// choice (SCH-6 says what was added), not as another form.
			r.kind = "choice"
		}
		if w.role == "agent" {
			w.agentAsks(f, r)
		}
	}
}

func (w *walk) notification(f Frame, m peer.Message) {
	switch {
	case m.Method == "$/cancel_request":
		r := w.byID[key(f.From, member(m.Params, "requestId"))] // a request of its sender's
		if r == nil || r.answered || r.cancelled != nil {
			return
		}
		r.cancelled = &f
		if f.From == trace.Agent && r.msg.Method == "elicitation/create" {
			r.asked.Cancelled = true
			if w.role == "client" {
				request := key(trace.Agent, r.msg.ID)
				w.owe(&obligation{check: "ELI-7/trace-cancel-answered", cause: f, within: w.answerWithin, what: "the client answered no elicitation/create it was told to cancel",
					met: func(g seen) bool { return g.answers == request }})
			}
		}
	case m.Method == "session/cancel" && f.From == trace.Client && w.role == "agent":
		w.turnCancelled(f, stringAt(m.Params, "sessionId"))
	case m.Method == "elicitation/complete" && f.From == trace.Agent && w.role == "client":
		w.completed(f)
	}
}

func (w *walk) response(f Frame, m peer.Message) {
	r := w.byID[key(other(f.From), m.ID)]
	if r == nil {
		return
	}
	second := r.answered
	r.answered = true
	switch {
	case r.msg.Method == "session/new" || r.msg.Method == "session/load":
		if id := stringAt(m.Result, "sessionId"); id != "" {
			w.sessions[id] = true
		}
	case r.msg.Method == "elicitation/create" && w.role == "client":
		w.clientAnswers(r, f, m, second)
	case r.msg.Method == "initialize" && w.role == "agent" && !second:
		w.malformedCapabilities(r, f, m)
	}
}

// full reports whether maxOwed obligations are open.
func (w *walk) full() bool { return len(w.owed) >= maxOwed }

// Bounds on what a walk keeps, so that a hostile trace (a million
// requests never answered, a million cancels) is judged in time linear in
// its length: far more than any real session holds at once.
const (
	maxPending = 1024 // requests pending at once that a cancel looks at
	maxOwed    = 256  // obligations open at once
)

// owe adds what a peer owes from now: within Promptly unless o says. Past
// maxOwed open obligations it adds nothing: the check is not exercised by
// that occasion, never passed.
func (w *walk) owe(o *obligation) {
	if w.full() {
		return
	}
	if o.within == 0 {
		o.within = Promptly
	}
	o.due = o.cause.At + o.within
	w.owed = append(w.owed, o)
}

// stringAt is the string member name of the object raw, "" when there is
// none (names exact, as ACP's SDKs read them).
func stringAt(raw json.RawMessage, name string) string { return stringOf(member(raw, name)) }

// stringOf is the string raw holds, "" when it holds none.
func stringOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// choiceProperty is the requested schema's property "choice" of an
// elicitation/create's params, a typed choice's one property; nil when
// there is none.
func choiceProperty(params json.RawMessage) json.RawMessage {
	return member(member(member(params, "requestedSchema"), "properties"), "choice")
}

// Where is the trace and line the result rests on: its session and the
// line of its last frame; "" for a check not exercised.
func (r Result) Where() string { return where(r.Session, r.Frames) }

// member is the member name of the object raw, by its exact name; nil
// when there is none.
func member(raw json.RawMessage, name string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m[name]
}

// describe names a frame for a failure: its method or id, and its line.
func describe(f Frame) string {
	if f.Ended {
		return fmt.Sprintf("the end of the %s (line %d)", f.From, f.Line)
	}
	m, _ := peer.Decode(f.Data)
	what := "a message"
	switch {
	case m.Method != "":
		what = m.Method
	case m.IsResponse():
		what = "the answer to " + string(m.ID)
	}
	if f.Line > 0 {
		return fmt.Sprintf("the %s %s (line %d)", f.From, what, f.Line)
	}
	return fmt.Sprintf("the %s %s", f.From, what)
}

// quote is a frame for a failure, bounded.
func quote(f Frame) string { return peer.Quote(f.Data) }

// advertised says what an initialize advertised, caps, for a failure.
func advertised(caps []byte) string {
	if caps == nil {
		return "no clientCapabilities"
	}
	return "clientCapabilities " + strings.TrimSpace(string(caps))
}

// modeOf is an elicitation/create's mode.
func modeOf(params json.RawMessage) string { return stringAt(params, "mode") }
