// Package replay plays one side of a recorded session (package trace) to
// a new build of the other side, and says where the new build's messages
// first differ from the recorded ones: a real session kept as a
// regression test.
//
// The player sends its side's recorded messages in the recorded order.
// Before each message the subject recorded, it reads the subject's next
// message and compares the two as JSON values, beyond what may differ
// between two runs of the same build:
//
//   - the time of each message, spacing and the order of an object's keys;
//   - the id of each request the subject sends: the player answers the
//     new id with the recorded answer (an elicitation/create's answer goes
//     to the elicitation/create sent in its place, in order);
//   - the ids of sessions an agent opens (the sessionId of each
//     session/new or session/load answer): the new one stands for the
//     recorded one in every later message, both ways.
//
// Anything else is a difference: a member added, missing or changed, a
// message of another method, a message the subject did not send within
// the wait, and the subject's connection ending early.
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/trace"
)

// Result is what a replay found.
type Result struct {
	Sent     int // the player's messages sent
	Compared int // the subject's messages that matched
	// Difference is the first difference; nil when the subject sent every
	// message recorded of it, alike.
	Difference *Difference
}

// Difference is where the subject's messages first differ from the
// recording.
type Difference struct {
	Message  int    // the subject's message, counted from 1
	Line     int    // the recorded message's line in the trace
	Recorded []byte // as recorded
	Got      []byte // as sent now; nil when none came
	Why      string // what differs, in words
}

// Play plays the side of t that is not subject to conn, a connection to a
// new build of subject, waiting at most wait for each of the subject's
// messages, and startup until its first: a subject slow to start is not a
// subject that differs, as a live check gives its first initialize the
// startup timeout. An error is the player's own trouble (it could not
// write); the subject's shows in Result.Difference.
func Play(ctx context.Context, conn wire.Conn, t trace.Trace, subject trace.Side, startup, wait time.Duration) (Result, error) {
	p := &player{conn: conn, subject: subject, ids: map[string]json.RawMessage{}, sessions: map[string]string{}}
	var r Result
	for i, e := range t.Events {
		if e.Kind != trace.KindMessage {
			continue
		}
		line := i + 2
		wait := wait
		if r.Compared == 0 {
			wait = max(wait, startup)
		}
		if e.From != subject {
			if err := p.send(ctx, e.Bytes(), wait); err != nil {
				if d := p.refused(err, e.Bytes(), wait); d != nil { // the subject's doing
					d.Message, d.Line = r.Compared+1, line
					r.Difference = d
					return r, nil
				}
				return r, fmt.Errorf("sending trace line %d: %w", line, err)
			}
			r.Sent++
			continue
		}
		d := p.expect(ctx, e.Bytes(), wait)
		if d != nil {
			d.Message, d.Line = r.Compared+1, line
			r.Difference = d
			return r, nil
		}
		r.Compared++
	}
	return r, nil
}

// player is one replay's state.
type player struct {
	conn    wire.Conn
	subject trace.Side
	// ids maps the recorded id of each request the subject sent to its
	// new one, by the recorded id's JSON.
	ids map[string]json.RawMessage
	// sessions maps each session id an agent under test made up, as
	// recorded, to the one it made up now.
	sessions map[string]string
}

// refused is the difference a failed write of frame shows: a subject that
// did not read it within wait, or whose connection ended; nil for any
// other error, the player's own.
func (p *player) refused(err error, frame []byte, wait time.Duration) *Difference {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &Difference{Why: fmt.Sprintf("the subject did not read %s within %s", summary(frame), wait)}
	case errors.Is(err, wire.ErrClosed):
		return &Difference{Why: fmt.Sprintf("the subject's connection ended (%v) before it was sent %s", err, summary(frame))}
	}
	return nil
}

// send writes one of the player's recorded messages, its ids and session
// ids made the subject's new ones, waiting at most wait for the subject
// to take it.
func (p *player) send(ctx context.Context, frame []byte, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	v, err := decode(frame)
	if err != nil { // a recorded line that is no JSON goes as it was
		return p.conn.WriteRaw(ctx, append(slices.Clone(frame), '\n'))
	}
	m, _ := v.(map[string]any)
	if m != nil && m["method"] == nil {
		if id, ok := p.ids[idKey(m["id"])]; ok { // an answer to the subject's request
			m["id"] = id
		}
	}
	v = renamed(v, p.sessions)
	out, err := encode(v)
	if err != nil {
		return err
	}
	return p.conn.WriteFrame(ctx, out)
}

// expect reads the subject's next message and compares it with recorded.
func (p *player) expect(ctx context.Context, recorded []byte, wait time.Duration) *Difference {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	got, err := p.conn.ReadFrame(ctx)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &Difference{Recorded: recorded, Why: fmt.Sprintf("the subject sent nothing within %s, where the recording has %s", wait, summary(recorded))}
	case err != nil:
		return &Difference{Recorded: recorded, Why: fmt.Sprintf("the subject's connection ended (%v), where the recording has %s", err, summary(recorded))}
	}
	want, errWant := decode(recorded)
	have, errHave := decode(got)
	if errWant != nil || errHave != nil {
		if !bytes.Equal(recorded, got) {
			return &Difference{Recorded: recorded, Got: got, Why: "the bytes differ, and they are not both JSON"}
		}
		return nil
	}
	wm, _ := want.(map[string]any)
	hm, _ := have.(map[string]any)
	if wm != nil && hm != nil {
		p.learn(wm, hm)
	}
	have = renamed(have, invert(p.sessions))
	if path, w, h, ok := firstDifference("", want, have); !ok {
		why := fmt.Sprintf("%s: recorded %s, now %s", path, show(w), show(h))
		if path == "" {
			why = fmt.Sprintf("recorded %s, now %s", show(w), show(h))
		}
		return &Difference{Recorded: recorded, Got: got, Why: why}
	}
	return nil
}

// learn takes from the subject's message, have, and its recorded
// counterpart, want, what may differ: a request's id (have then carries
// the recorded one, so that the rest compares) and an agent's new session.
func (p *player) learn(want, have map[string]any) {
	if want["method"] != nil && want["id"] != nil && have["id"] != nil {
		if b, err := encode(have["id"]); err == nil {
			p.ids[idKey(want["id"])] = b
		}
		have["id"] = want["id"]
	}
	if p.subject != trace.Agent {
		return
	}
	wr, _ := want["result"].(map[string]any)
	hr, _ := have["result"].(map[string]any)
	if recorded, ok := wr["sessionId"].(string); ok {
		if now, ok := hr["sessionId"].(string); ok && now != recorded {
			p.sessions[recorded] = now
		}
	}
}

// decode reads a message as JSON values, numbers as written.
func decode(b []byte) (any, error) {
	if _, problem := peer.Decode(b); problem != "" {
		return nil, errors.New(problem)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// idKey is an id's JSON, the key of ids.
func idKey(id any) string {
	b, _ := encode(id)
	return string(b)
}

// renamed is v with every string that names a key of to replaced by its
// value.
func renamed(v any, to map[string]string) any {
	if len(to) == 0 {
		return v
	}
	switch x := v.(type) {
	case string:
		if y, ok := to[x]; ok {
			return y
		}
	case map[string]any:
		for k, e := range x {
			x[k] = renamed(e, to)
		}
	case []any:
		for i, e := range x {
			x[i] = renamed(e, to)
		}
	}
	return v
}

func invert(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[v] = k
	}
	return out
}

// firstDifference compares want and have as JSON values and returns the
// path of their first difference, in key order, with the two values
// there; ok when they are alike. Numbers compare as written: 1.0 is not 1.
func firstDifference(path string, want, have any) (string, any, any, bool) {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return path, want, have, false
		}
		keys := make([]string, 0, len(w)+len(h))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range h {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			wv, inW := w[k]
			hv, inH := h[k]
			sub := join(path, k)
			switch {
			case !inW:
				return sub, missing{}, hv, false
			case !inH:
				return sub, wv, missing{}, false
			}
			if p, a, b, ok := firstDifference(sub, wv, hv); !ok {
				return p, a, b, false
			}
		}
		return "", nil, nil, true
	case []any:
		h, ok := have.([]any)
		if !ok {
			return path, want, have, false
		}
		for i := range max(len(w), len(h)) {
			sub := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i >= len(w):
				return sub, missing{}, h[i], false
			case i >= len(h):
				return sub, w[i], missing{}, false
			}
			if p, a, b, ok := firstDifference(sub, w[i], h[i]); !ok {
				return p, a, b, false
			}
		}
		return "", nil, nil, true
	}
	if want != have {
		return path, want, have, false
	}
	return "", nil, nil, true
}

// missing stands for a member or element one side lacks.
type missing struct{}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// show is a value for a difference: JSON, bounded, and quoted as a Go
// string unless it is printable ASCII with no line break, so that what a
// subject sent moves no cursor.
func show(v any) string {
	if _, ok := v.(missing); ok {
		return "nothing"
	}
	if s, ok := v.(string); ok {
		return strconv.QuoteToASCII(elide.Head(s, maxShown))
	}
	b, _ := encode(v)
	text := elide.Head(string(b), maxShown)
	for _, r := range text {
		if r < ' ' || r > '~' {
			return strconv.QuoteToASCII(text)
		}
	}
	return text
}

// maxShown bounds a value a difference shows.
const maxShown = 300

// summary names a recorded message: its method, or the request it
// answers.
func summary(frame []byte) string {
	m, problem := peer.Decode(frame)
	switch {
	case problem != "":
		return "a line that is no JSON-RPC message: " + peer.Quote(frame)
	case m.Method != "":
		return "its " + m.Method + " message"
	}
	return "the answer to request " + string(m.ID)
}
