// Package peer is the JSON-RPC 2.0 engine under the mock ACP peers: it reads
// frames from a wire.Conn, matches responses to the calls waiting for them,
// hands requests and notifications to a handler, and writes whatever it is
// told to, well-formed or not. It never asserts: what the other side does
// wrong is recorded as a violation for the owner to report.
package peer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/acpconform/acpconform/mocks/wire"
)

// Message is one JSON-RPC message as it came over the wire.
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`

	Raw []byte    `json:"-"` // the frame as received
	At  time.Time `json:"-"` // when it was read
}

// IsRequest reports whether m is a request: a method and a non-null id.
func (m Message) IsRequest() bool { return m.Method != "" && len(m.ID) > 0 && !isNull(m.ID) }

// IsNotification reports whether m is a notification.
func (m Message) IsNotification() bool { return m.Method != "" && !m.IsRequest() }

// IsResponse reports whether m answers a request.
func (m Message) IsResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	s := fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message)
	if len(e.Data) > 0 {
		s += " " + string(e.Data)
	}
	return s
}

// Handler receives the requests and notifications a peer reads, one at a
// time, in order, on the reading goroutine: it must not block. Work that
// waits (a delayed answer, a prompt turn that sends requests of its own)
// goes to its own goroutine with Peer.Go.
type Handler func(ctx context.Context, p *Peer, m Message)

// Peer is one side of a JSON-RPC connection.
type Peer struct {
	conn    wire.Conn
	handler Handler
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	reqs    sync.WaitGroup // goroutines started by Go

	mu         sync.Mutex
	nextID     int64
	pending    map[string]chan Message
	answered   map[string]bool // ids that got an answer
	asked      map[string]bool // ids of the requests sent
	received   history
	violations []string
	unlisted   int // violations beyond MaxViolations
}

// New starts reading conn and returns the peer. Its own requests get ids
// 1, 2, 3, ...
func New(conn wire.Conn, handler Handler) *Peer {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Peer{
		conn: conn, handler: handler, ctx: ctx, cancel: cancel,
		done:     make(chan struct{}),
		pending:  map[string]chan Message{},
		answered: map[string]bool{},
		asked:    map[string]bool{},
	}
	go p.read()
	return p
}

func (p *Peer) read() {
	defer close(p.done)
	defer p.cancel()
	err := p.conn.Serve(p.take)
	if errors.Is(err, wire.ErrFrameTooLarge) || errors.Is(err, wire.ErrBinaryFrame) {
		p.Violate("%v", err)
	}
}

// take handles one frame, on the connection's reading goroutine.
func (p *Peer) take(frame []byte) {
	m, err := decode(frame)
	if err != nil {
		p.Violate("malformed JSON-RPC frame: %v: %s", err, preview(frame))
		return
	}
	p.mu.Lock()
	p.received.add(m)
	p.mu.Unlock()
	switch {
	case m.IsResponse():
		p.deliver(m)
	case m.Method != "":
		p.handler(p.ctx, p, m)
	default:
		p.Violate("a frame that is neither request, notification nor response: %s", preview(frame))
	}
}

// decode reads the envelope of a frame. It is the mock peers' hot path, so
// it validates once and picks the members out without decoding the rest.
func decode(frame []byte) (Message, error) {
	if !gjson.ValidBytes(frame) {
		var v any
		return Message{}, json.Unmarshal(frame, &v) // for the reason
	}
	if frame[firstNonSpace(frame)] != '{' {
		return Message{}, fmt.Errorf("not an object")
	}
	// The frame is never changed again (the transcript keeps it too), so it
	// can be read as a string and its members sliced out without copies.
	m := Message{Raw: frame, At: time.Now()}
	var err error
	gjson.Parse(unsafe.String(&frame[0], len(frame))).ForEach(func(key, v gjson.Result) bool {
		raw := json.RawMessage(frame[v.Index : v.Index+len(v.Raw) : v.Index+len(v.Raw)])
		switch key.Str {
		case "id":
			m.ID = raw
		case "method":
			if v.Type != gjson.String {
				err = fmt.Errorf("method is not a string")
			}
			m.Method = v.Str
		case "params":
			m.Params = raw
		case "result":
			m.Result = raw
		case "error":
			if v.Type == gjson.Null {
				break // "error": null is no error
			}
			m.Error = &Error{}
			if e := json.Unmarshal(raw, m.Error); e != nil {
				err = fmt.Errorf("error member: %v", e)
			}
		}
		return err == nil
	})
	return m, err
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return i
		}
	}
	return 0
}

// Go runs f in its own goroutine; Close waits for it. Handlers use it for
// work that waits.
func (p *Peer) Go(f func()) {
	p.reqs.Add(1)
	go func() {
		defer p.reqs.Done()
		f()
	}()
}

// deliver hands a response to the call waiting for it.
func (p *Peer) deliver(m Message) {
	key := idKey(m.ID)
	p.mu.Lock()
	ch, ok := p.pending[key]
	delete(p.pending, key)
	again := p.answered[key]
	asked := p.asked[key]
	p.answered[key] = true
	p.mu.Unlock()
	switch {
	case ok:
		ch <- m
	case again && asked:
		p.Violate("a second answer to request %s: %s", m.ID, preview(m.Raw))
	case asked:
		p.Violate("a late answer to request %s, after the call gave up: %s", m.ID, preview(m.Raw))
	default:
		p.Violate("an answer to request %s, which was never sent: %s", m.ID, preview(m.Raw))
	}
}

// Call sends a request and waits, at most until ctx ends, for its response.
// A JSON-RPC error answer is returned as the message, not as an error.
func (p *Peer) Call(ctx context.Context, method string, params any) (Message, error) {
	p.mu.Lock()
	p.nextID++
	id := json.RawMessage(strconv.FormatInt(p.nextID, 10))
	ch := make(chan Message, 1)
	p.pending[idKey(id)] = ch
	p.asked[idKey(id)] = true
	p.mu.Unlock()
	if err := p.sendRequest(ctx, id, method, params); err != nil {
		p.forget(id)
		return Message{}, err
	}
	select {
	case m := <-ch:
		return m, nil
	case <-p.done:
		select { // the answer may have come just before the end
		case m := <-ch:
			return m, nil
		default:
		}
		p.forget(id)
		return Message{}, fmt.Errorf("%s: %w before the answer", method, wire.ErrClosed)
	case <-ctx.Done():
		p.forget(id)
		return Message{}, fmt.Errorf("%s: no answer: %w", method, ctx.Err())
	}
}

// sendRequest writes a request or, with a nil id, a notification. Raw
// params go out byte for byte.
func (p *Peer) sendRequest(ctx context.Context, id json.RawMessage, method string, params any) error {
	raw, isRaw := params.(json.RawMessage)
	if !isRaw || raw == nil {
		return p.Send(ctx, request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	}
	frame := []byte(`{"jsonrpc":"2.0",`)
	if id != nil {
		frame = append(append(append(frame, `"id":`...), id...), ',')
	}
	frame = append(append(append(append(frame, `"method":`...), mustJSON(method)...), `,"params":`...), raw...)
	return p.write(ctx, append(frame, '}'))
}

func (p *Peer) forget(id json.RawMessage) {
	p.mu.Lock()
	delete(p.pending, idKey(id))
	p.mu.Unlock()
}

// Notify sends a notification.
func (p *Peer) Notify(ctx context.Context, method string, params any) error {
	return p.sendRequest(ctx, nil, method, params)
}

// Respond answers request id with result, sent as it marshals; a
// json.RawMessage result is sent as it is, unchecked.
func (p *Peer) Respond(ctx context.Context, id json.RawMessage, result any) error {
	if raw, ok := result.(json.RawMessage); ok && raw != nil {
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		frame := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(id)+len(raw))
		frame = append(append(append(append(append(frame, `{"jsonrpc":"2.0","id":`...), id...), `,"result":`...), raw...), '}')
		return p.write(ctx, frame)
	}
	return p.Send(ctx, response{JSONRPC: "2.0", ID: id, Result: result})
}

// RespondError answers request id with a JSON-RPC error.
func (p *Peer) RespondError(ctx context.Context, id json.RawMessage, e Error) error {
	return p.Send(ctx, errorResponse{JSONRPC: "2.0", ID: id, Error: e})
}

// Send marshals v and writes it as one frame.
func (p *Peer) Send(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("peer: marshal: %w", err)
	}
	return p.write(ctx, b)
}

// write sends a frame, abandoning it at ctx's deadline but not when ctx is
// cancelled: a caller that stops waiting (a cancelled turn, say) must not
// cut a frame in half and so the connection.
func (p *Peer) write(ctx context.Context, frame []byte) error {
	wctx, cancel := deadlineOnly(ctx)
	defer cancel()
	return p.conn.WriteFrame(wctx, frame)
}

// deadlineOnly keeps ctx's deadline, not its cancellation: a write needs
// nothing else of it.
func deadlineOnly(ctx context.Context) (context.Context, context.CancelFunc) {
	if deadline, ok := ctx.Deadline(); ok {
		return context.WithDeadline(context.Background(), deadline)
	}
	return context.Background(), func() {}
}

// WriteRaw writes b as it is.
func (p *Peer) WriteRaw(ctx context.Context, b []byte) error {
	wctx, cancel := deadlineOnly(ctx)
	defer cancel()
	return p.conn.WriteRaw(wctx, b)
}

// Received returns every message read so far, in order.
func (p *Peer) Received() []Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.received.list()
}

// Bounds on what a peer keeps, so that a flooding peer cannot exhaust memory.
const (
	// MaxHistory is how many received messages Received keeps: the most recent.
	MaxHistory = 10000
	// MaxViolations is how many violations are listed; the rest are counted.
	MaxViolations = 1000
)

// history keeps the last MaxHistory messages.
type history struct {
	msgs []Message
	next int // ring position once full
}

func (h *history) add(m Message) {
	if len(h.msgs) < MaxHistory {
		h.msgs = append(h.msgs, m)
		return
	}
	h.msgs[h.next] = m
	h.next = (h.next + 1) % MaxHistory
}

func (h *history) list() []Message {
	return append(append([]Message(nil), h.msgs[h.next:]...), h.msgs[:h.next]...)
}

// Violate records something the other side did wrong.
func (p *Peer) Violate(format string, args ...any) {
	v := fmt.Sprintf(format, args...)
	p.mu.Lock()
	if len(p.violations) < MaxViolations {
		p.violations = append(p.violations, v)
	} else {
		p.unlisted++
	}
	p.mu.Unlock()
	p.conn.Transcript().Note("violation: " + v)
}

// Violations returns what was recorded so far.
func (p *Peer) Violations() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := append([]string(nil), p.violations...)
	if p.unlisted > 0 {
		out = append(out, fmt.Sprintf("... and %d more violations", p.unlisted))
	}
	return out
}

// Transcript is the connection's record of frames.
func (p *Peer) Transcript() *wire.Transcript { return p.conn.Transcript() }

// Done is closed when the connection has ended.
func (p *Peer) Done() <-chan struct{} { return p.done }

// Hangup closes the connection without waiting for anything, as a peer
// that goes away does; handlers may call it.
func (p *Peer) Hangup() {
	p.conn.Transcript().Note("hanging up")
	go p.conn.Close()
}

// Close ends the connection and waits for the goroutines started with Go,
// which see their context end.
func (p *Peer) Close() error {
	p.cancel()
	err := p.conn.Close()
	<-p.done
	p.reqs.Wait()
	return err
}

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  any             `json:"params,omitempty"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   Error           `json:"error"`
}

// idKey canonicalises an id: numbers by value, so that 1, 1.0 and 1e0
// match, strings by their text; the number 1 and the string "1" differ, as
// JSON-RPC wants.
func idKey(id json.RawMessage) string {
	raw := bytes.TrimSpace(id)
	if len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) && len(raw) < 64 && !bytes.ContainsAny(raw, "eE") {
		if r, ok := new(big.Rat).SetString(string(raw)); ok {
			return "n:" + r.RatString()
		}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return "s:" + s
	}
	return "?:" + string(raw)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

func preview(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
