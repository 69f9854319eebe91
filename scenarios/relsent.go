package scenarios

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/probe"
)

// relLedger holds REL-1's "the relay delivers only what the other side
// sent" for one connection through a relay: each message an end sends is
// entered before it is written, and each frame the other end receives is
// matched, as it arrives, against one entry of what was sent its way and
// not yet matched. A frame that matches none was invented by the relay,
// or is a changed copy, a second copy or a piece of a message. Of those
// only a count and the first few are kept, so that a relay that floods
// costs counting, not memory.
type relLedger struct {
	mu       sync.Mutex
	sent     map[string][]*relEntry       // by the side that sent them
	answered map[string][]json.RawMessage // ids of the answers each side received
	unsent   map[string]*relUnsent        // what each side received and the other did not send
	refused  map[string]bool              // each side received an error answer with no id
}

// relEntry is a message one end sent, and whether it has arrived.
type relEntry struct {
	msg       relMsg
	arrived   bool
	arrivedAs json.RawMessage // the id it arrived with, a request's
}

// relUnsent counts what one side received that the other did not send.
type relUnsent struct {
	n       int
	changed int      // of n, changed copies of a message the other side sent
	shown   []string // the first few, described
}

// relUnsentShown is how many of them a failure describes.
const relUnsentShown = 3

func newRelLedger() *relLedger {
	return &relLedger{
		sent: map[string][]*relEntry{}, answered: map[string][]json.RawMessage{},
		unsent: map[string]*relUnsent{}, refused: map[string]bool{},
	}
}

// otherSide is the end a message from side goes to.
func otherSide(side string) string {
	if side == "client" {
		return "agent"
	}
	return "client"
}

// enter records frame, which side is about to send; the harness writes
// it, so it is a JSON-RPC message.
func (l *relLedger) enter(side string, frame []byte) {
	var m relMsg
	if err := json.Unmarshal(frame, &m); err != nil {
		panic(fmt.Sprintf("scenarios: the harness sends what it cannot read: %v", err))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent[side] = append(l.sent[side], &relEntry{msg: m})
}

// arrived matches m, which side received, against what the other side
// sent.
func (l *relLedger) arrived(side string, m relMsg) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m.Bad == "" {
		if m.Method == "" {
			defer func() { l.answered[side] = append(l.answered[side], m.ID) }()
		}
		for _, e := range l.sent[otherSide(side)] {
			if !e.arrived && crossed(e.msg, m) {
				e.arrived, e.arrivedAs = true, m.ID
				return
			}
		}
		if l.refusal(side, m) {
			return
		}
	}
	u := l.unsent[side]
	if u == nil {
		u = &relUnsent{}
		l.unsent[side] = u
	}
	u.n++
	if m.Bad == "" {
		if e, ok := l.counterpart(side, m); ok && !e.arrived {
			u.changed++
		}
	}
	if len(u.shown) < relUnsentShown {
		u.shown = append(u.shown, l.describe(side, m))
	}
}

// refusal reports an error answer the relay may send of its own (REL-7
// allows a relay to refuse a message with an error): to a request of
// side's not yet answered, or, once, with no id.
func (l *relLedger) refusal(side string, m relMsg) bool {
	if m.Method != "" || len(m.Error) == 0 || len(m.Result) > 0 {
		return false
	}
	if absent(m.ID) {
		was := l.refused[side]
		l.refused[side] = true
		return !was
	}
	asked := false
	for _, e := range l.sent[side] {
		asked = asked || (e.msg.isRequest(e.msg.Method) && probe.SameValue(e.msg.ID, m.ID))
	}
	for _, id := range l.answered[side] {
		if probe.SameValue(id, m.ID) {
			return false
		}
	}
	return asked
}

// crossed reports whether got is sent, as REL-1 lets it arrive: the same
// kind of message with the same method, params, result and error as JSON
// values. The id may differ, since a relay may renumber (ids-mapped-back
// checks that it maps them back), and so may the requestId of a
// $/cancel_request (REL-2's to check).
func crossed(sent, got relMsg) bool {
	if kindOf(sent) != kindOf(got) || sent.Method != got.Method {
		return false
	}
	if sent.Method == "$/cancel_request" {
		return sameMember(sent.Method, "params", withoutRequestID(sent.Params), withoutRequestID(got.Params))
	}
	return sameMember(sent.Method, "params", sent.Params, got.Params) && sameMember(sent.Method, "result", sent.Result, got.Result) &&
		sameMember(sent.Method, "error", sent.Error, got.Error)
}

// kindOf is "request", "notification" or "answer".
func kindOf(m relMsg) string {
	switch {
	case m.Method == "":
		return "answer"
	case absent(m.ID):
		return "notification"
	}
	return "request"
}

// sameMember compares two members (params, result or error) of a message
// of method as JSON values, as REL-1 does: absent and null are the same,
// and so is a field at its schema default written or left out
// (sameUpToDefaults).
func sameMember(method, member string, a, b json.RawMessage) bool {
	if absent(a) || absent(b) {
		return absent(a) && absent(b)
	}
	return sameUpToDefaults(method, member, a, b)
}

func absent(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// withoutRequestID is the params of a $/cancel_request without its
// requestId.
func withoutRequestID(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	delete(p, "requestId")
	return json.RawMessage(mustJSON(p))
}

// describe names m for a failure, briefly: the message, and how it
// differs from what the other side sent, when that can be told.
func (l *relLedger) describe(side string, m relMsg) string {
	if m.Bad != "" {
		return m.String() + ": a piece of a message, or none"
	}
	what := fmt.Sprintf("%s %q", kindOf(m), elide.Head(m.Method, 80))
	switch kindOf(m) {
	case "request":
		what += " id " + elide.Head(string(m.ID), 40)
	case "answer":
		what = "answer id " + elide.Head(string(m.ID), 40)
	}
	if e, ok := l.counterpart(side, m); ok {
		switch {
		case e.arrived && crossed(e.msg, m):
			return what + ": a second copy of what the " + otherSide(side) + " sent once"
		case e.arrived:
			return what + ": a second answer to a request the " + otherSide(side) + " answered once, and unlike that answer:\n" + indentLines(relDiff(e.msg, m))
		}
		return what + ", changed on the way:\n" + indentLines(relDiff(e.msg, m))
	}
	body := m.Params
	if m.Method == "" {
		body = m.Result
		if len(m.Error) > 0 {
			body = m.Error
		}
	}
	return what + ": " + elide.Head(show(body), 200)
}

// counterpart is what the other side sent that m, which side received,
// is most likely a copy of: for a request or notification, the first of
// its kind and method that crossed unchanged (a second copy) or has not
// arrived (a changed one); for an answer, the other side's answer to the
// request side sent with m's id.
func (l *relLedger) counterpart(side string, m relMsg) (*relEntry, bool) {
	from := l.sent[otherSide(side)]
	if m.Method == "" {
		var asked *relEntry
		for _, e := range l.sent[side] {
			if kindOf(e.msg) == "request" && e.arrived && probe.SameValue(e.msg.ID, m.ID) {
				asked = e
			}
		}
		if asked == nil {
			return nil, false
		}
		for _, e := range from {
			if kindOf(e.msg) == "answer" && probe.SameValue(e.msg.ID, asked.arrivedAs) {
				return e, true
			}
		}
		return nil, false
	}
	var changed *relEntry
	for _, e := range from {
		if kindOf(e.msg) != kindOf(m) || e.msg.Method != m.Method {
			continue
		}
		if e.arrived && crossed(e.msg, m) {
			return e, true
		}
		if !e.arrived && changed == nil {
			changed = e
		}
	}
	return changed, changed != nil
}

// relDiff is a -want +got diff of the members of a message that changed.
func relDiff(sent, got relMsg) string {
	for _, member := range []struct {
		name      string
		want, got json.RawMessage
	}{{"params", sent.Params, got.Params}, {"result", sent.Result, got.Result}, {"error", sent.Error, got.Error}} {
		if sameMember(sent.Method, member.name, member.want, member.got) {
			continue
		}
		if absent(member.got) || absent(member.want) {
			return fmt.Sprintf("its %s: %s, sent %s", member.name, elide.Head(show(member.got), 200), elide.Head(show(member.want), 200))
		}
		return elide.Head(sameJSON("its "+member.name+", as sent and as received", member.got, member.want).Error(), 2000)
	}
	return "its members are the same, and its kind is not"
}

// unsentFailure says what each end received that the other did not send,
// or is nil.
func (l *relLedger) unsentFailure() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var parts []string
	for _, side := range []string{"client", "agent"} {
		u := l.unsent[side]
		if u == nil {
			continue
		}
		s := fmt.Sprintf("the %s received %s", side, u.headline(otherSide(side)))
		for _, d := range u.shown {
			s += "\n- " + d
		}
		if u.n > len(u.shown) {
			s += fmt.Sprintf("\n- and %d more", u.n-len(u.shown))
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("relay defect: a relay delivers only what the other side sent, whole and unchanged, and %s", strings.Join(parts, "; and "))
}

// headline says what one side received that other did not send as it
// sent it: changed copies of what it sent, or what it never sent, or both.
func (u *relUnsent) headline(other string) string {
	messages := func(n int) string { return plural(n, "1 message", fmt.Sprintf("%d messages", n)) }
	switch u.changed {
	case u.n:
		return fmt.Sprintf("%s the %s sent, changed on the way", messages(u.n), other)
	case 0:
		return fmt.Sprintf("%s the %s did not send", messages(u.n), other)
	}
	return fmt.Sprintf("%s the %s did not send as it sent them: %d changed on the way, %d it never sent (invented, copied or in pieces)",
		messages(u.n), other, u.changed, u.n-u.changed)
}

// unsentTo counts what side received that the other side did not send.
func (l *relLedger) unsentTo(side string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if u := l.unsent[side]; u != nil {
		return u.n
	}
	return 0
}

// expectOnlySent fails unless each end received only what the other sent
// (REL-1). Every check that cites REL-1 ends with it (throughRelayRaw).
func (p *relPair) expectOnlySent() {
	GinkgoHelper()
	if p.capabilities != nil && p.ledger.onlyOneChangedTo("agent") {
		check(p.capabilities) // the initialize: REL-5's words, one cause
	}
	check(p.ledger.unsentFailure())
}

// onlyOneChangedTo reports whether side received one changed message and
// nothing else unsent, and the other side received all it was sent.
func (l *relLedger) onlyOneChangedTo(side string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.unsent[side]
	return u != nil && u.n == 1 && u.changed == 1 && l.unsent[otherSide(side)] == nil
}

// citesREL1 reports whether the running check cites REL-1.
func citesREL1() bool { return slices.Contains(CurrentSpecReport().Labels(), "rule:REL-1") }

// indentLines indents each line of s by two spaces.
func indentLines(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
