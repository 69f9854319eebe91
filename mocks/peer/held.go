package peer

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/acpconform/acpconform/mocks/wire"
)

// MaxHistory is how many received messages Received keeps: the most recent.
const MaxHistory = 10000

// messageOverhead is what a kept message costs besides its frame: the
// Message itself, with room for its slice of the history to grow.
const messageOverhead = 2*int(unsafe.Sizeof(Message{})) + 16

// messageSize is what keeping m costs: its frame, as allocated, and its
// decoded error, the one member decode copies.
func messageSize(m Message) int {
	n := cap(m.Raw) + messageOverhead
	if m.Error != nil {
		n += int(unsafe.Sizeof(Error{})) + len(m.Error.Message) + len(m.Error.Data)
	}
	return n
}

// Hold counts n bytes more that this connection's owner keeps (a copy of
// what the subject sent, a record of it) in the connection's budget,
// shared with the transcript and the history of Received. It reports
// false when they would not fit: the subject is flooding, which is
// recorded once as a violation, the connection is closed and nothing more
// is kept; the caller must then not keep what it meant to.
func (p *Peer) Hold(n int) bool {
	if p.flooded.Load() {
		return false
	}
	if p.budget.Hold(n) {
		return true
	}
	p.flood()
	return false
}

// Release gives back n bytes counted by Hold, once they are no longer kept.
func (p *Peer) Release(n int) { p.budget.Release(n) }

// Held is how many bytes of this connection are kept now: its transcript,
// the history of Received and what its owner counted with Hold.
func (p *Peer) Held() int { return p.budget.Held() }

// flood records, once, that the subject sent more than the connection may
// hold, and closes it.
func (p *Peer) flood() {
	if p.flooded.Swap(true) {
		return
	}
	p.breakProtocol(fmt.Sprintf("flood: the subject sent %d messages, %s in %.1fs; keeping them would take more than the %s this connection may hold, so acpconform closed the connection (raise it with --max-held)",
		p.frames.Load(), wire.Size(int(p.bytes.Load())), time.Since(p.start).Seconds(), wire.Size(p.budget.Max())))
	if ws, ok := p.conn.(*wire.WebSocketConn); ok { // tell the subject why, not "normal closure"
		ws.Refuse("flood: more than " + wire.Size(p.budget.Max()) + " to hold")
	}
	p.closeHere("the subject flooded it")
}

// history keeps the last MaxHistory messages, their bytes counted in a
// budget.
type history struct {
	msgs []Message
	next int // ring position once full
}

// add keeps m, whose size the caller has counted, in place of the oldest
// message once MaxHistory are kept.
func (h *history) add(m Message, b *wire.Budget) {
	if len(h.msgs) < MaxHistory {
		h.msgs = append(h.msgs, m)
		return
	}
	b.Release(messageSize(h.msgs[h.next]))
	h.msgs[h.next] = m
	h.next = (h.next + 1) % MaxHistory
}

// forget drops every message kept, releasing what they hold.
func (h *history) forget(b *wire.Budget) {
	for _, m := range h.msgs {
		b.Release(messageSize(m))
	}
	h.msgs, h.next = nil, 0
}

func (h *history) list() []Message {
	return append(append([]Message(nil), h.msgs[h.next:]...), h.msgs[:h.next]...)
}
