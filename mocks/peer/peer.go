// Package peer is the JSON-RPC 2.0 engine under the mock ACP peers: it reads
// frames from a wire.Conn, matches responses to the calls waiting for them,
// hands requests and notifications to a handler, and writes whatever it is
// told to, well-formed or not. It never asserts: what the other side does
// wrong is recorded as a violation for the owner to report, and what it
// keeps is bounded by the connection's wire.Budget.
package peer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acpconform/acpconform/mocks/wire"
)

// Handler receives the requests and notifications a peer reads, one at a
// time, in order, on the reading goroutine: it must not block. Work that
// waits (a delayed answer, a prompt turn that sends requests of its own)
// goes to its own goroutine with Peer.Go.
type Handler func(ctx context.Context, p *Peer, m Message)

// Peer is one side of a JSON-RPC connection.
type Peer struct {
	conn    wire.Conn
	budget  *wire.Budget
	handler Handler
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	broken  chan struct{} // closed at the first frame-level protocol violation
	reqs    sync.WaitGroup
	start   time.Time
	unit    string // what one frame is called: "line" or "text frame"

	frames  atomic.Int64 // received in all
	bytes   atomic.Int64
	flooded atomic.Bool  // nothing more is kept
	rawSent atomic.Bool  // WriteRaw was used: a parse error answer may be due
	running atomic.Int64 // handlers started with Go that have not returned

	mu         sync.Mutex
	nextID     int64
	pending    map[string]chan Message
	answered   map[string]bool // ids of the requests sent that got an answer
	asked      map[string]bool // ids of the requests sent
	released   map[string]bool // ids of calls their caller cancelled: a late answer is still owed
	received   history
	violations []string
	unlisted   int    // violations beyond MaxViolations
	failure    string // the first frame-level protocol violation
	ended      string // why the connection ended, once it has
	closedBy   string // why this side closed it, when it did
}

// New starts reading conn and returns the peer. Its own requests get ids
// 1, 2, 3, ...
func New(conn wire.Conn, handler Handler) *Peer {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Peer{
		conn: conn, budget: conn.Budget(), handler: handler, ctx: ctx, cancel: cancel,
		done:     make(chan struct{}),
		broken:   make(chan struct{}),
		start:    time.Now(),
		unit:     "line",
		pending:  map[string]chan Message{},
		answered: map[string]bool{},
		asked:    map[string]bool{},
		released: map[string]bool{},
	}
	if _, ok := conn.(*wire.WebSocketConn); ok {
		p.unit = "text frame"
	}
	go p.read()
	return p
}

func (p *Peer) read() {
	defer close(p.done)
	defer p.cancel()
	err := p.conn.Serve(p.take)
	if v := refusal(err); v != "" {
		p.breakProtocol(v)
	}
	p.mu.Lock()
	p.ended = wire.DescribeEnd(err)
	if p.closedBy != "" {
		p.ended = "acpconform closed it (" + p.closedBy + ")"
	}
	p.mu.Unlock()
}

// take handles one frame, on the connection's reading goroutine.
func (p *Peer) take(frame []byte) {
	p.frames.Add(1)
	p.bytes.Add(int64(len(frame)))
	if p.flooded.Load() { // the connection is closing: nothing more is kept or answered
		return
	}
	m, err := decode(frame)
	if err != nil {
		p.breakProtocol(p.diagnose(err, frame))
		return
	}
	if !p.Hold(messageSize(m)) {
		return
	}
	p.mu.Lock()
	p.received.add(m, p.budget)
	p.mu.Unlock()
	switch {
	case m.IsResponse():
		p.deliver(m)
	case m.Method != "":
		p.handler(p.ctx, p, m)
	default:
		p.breakProtocol(`the subject sent a response without an "id": ` + Quote(frame))
	}
}

// Go runs f in its own goroutine; Close waits for it. Handlers use it for
// work that waits. The goroutine counts in the connection's budget while
// it runs: a subject that sends requests faster than they end (and does
// not read the answers) floods it, and then f does not run at all.
func (p *Peer) Go(f func()) {
	if !p.Hold(goroutineCost) {
		return
	}
	p.reqs.Add(1)
	p.running.Add(1)
	go func() {
		defer p.reqs.Done()
		defer p.Release(goroutineCost)
		defer p.running.Add(-1)
		f()
	}()
}

// goroutineCost is what a goroutine holds at least: its stack.
const goroutineCost = 8 << 10

// deliver hands a response to the call waiting for it.
func (p *Peer) deliver(m Message) {
	if isNull(m.ID) {
		p.nullID(m)
		return
	}
	key := idKey(m.ID)
	p.mu.Lock()
	ch, ok := p.pending[key]
	delete(p.pending, key)
	asked, again, released := p.asked[key], p.answered[key], p.released[key]
	if asked { // only ids this side sent are remembered: the subject's cost nothing
		p.answered[key] = true
	}
	p.mu.Unlock()
	switch {
	case ok:
		ch <- m
	case again:
		p.Violate("the subject answered request %s a second time: %s", idText(m.ID), Quote(m.Raw))
	case released:
		// The caller stopped waiting of its own accord (its check had
		// seen what it needed and ended), not because the subject was
		// slow: the answer was owed, and comes when it comes.
	case asked:
		p.Violate("the subject answered request %s after the call had stopped waiting: %s", idText(m.ID), Quote(m.Raw))
	default:
		p.breakProtocol(fmt.Sprintf("the subject answered request %s, which was never sent: %s", idText(m.ID), Quote(m.Raw)))
	}
}

// nullID judges a response with "id": null, which JSON-RPC allows only for
// an error about a request that could not be read (-32700, -32600).
func (p *Peer) nullID(m Message) {
	if m.Error == nil || (m.Error.Code != -32700 && m.Error.Code != -32600) {
		p.breakProtocol(`the subject sent a response with "id": null, which JSON-RPC allows only for an error about a request it could not read: ` + Quote(m.Raw))
		return
	}
	if p.rawSent.Load() {
		return // the answer to bytes written raw, perhaps on purpose
	}
	p.breakProtocol(fmt.Sprintf(`the subject answered "id": null with error %d, saying it could not read a request, though every request sent to it was well-formed: %s`, m.Error.Code, Quote(m.Raw)))
}

// Call sends a request and waits, at most until ctx ends, for its response.
// A JSON-RPC error answer is returned as the message, not as an error.
// Otherwise the error is a *CallError saying why no answer came and what
// the subject did wrong so far.
func (p *Peer) Call(ctx context.Context, method string, params any) (Message, error) {
	return p.call(ctx, method, params, nil, nil)
}

// CallThen is Call that runs sent with the request's id once the request
// is written, before the wait for its answer: a check that cancels a
// pending request ($/cancel_request) does it there.
func (p *Peer) CallThen(ctx context.Context, method string, params any, sent func(id json.RawMessage)) (Message, error) {
	return p.call(ctx, method, params, nil, sent)
}

// CallStrict is Call that also stops waiting when the subject breaks the
// protocol (see Broken), with a *CallError that matches ErrBroken and
// names what it did. A start-up probe uses it to fail at once instead of
// waiting out its deadline; checks that collect every violation use Call.
func (p *Peer) CallStrict(ctx context.Context, method string, params any) (Message, error) {
	return p.call(ctx, method, params, p.broken, nil)
}

func (p *Peer) call(ctx context.Context, method string, params any, broken <-chan struct{}, sent func(json.RawMessage)) (Message, error) {
	start := time.Now()
	p.mu.Lock()
	p.nextID++
	id := json.RawMessage(strconv.FormatInt(p.nextID, 10))
	ch := make(chan Message, 1)
	p.pending[idKey(id)] = ch
	p.asked[idKey(id)] = true
	p.mu.Unlock()
	if err := p.sendRequest(ctx, id, method, params); err != nil {
		p.forget(id)
		return Message{}, p.unsent(method, err)
	}
	if sent != nil {
		sent(id)
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
		if isClosed(broken) { // what broke the protocol ended the connection
			return Message{}, p.brokenError(method, "before answering")
		}
		return Message{}, p.callError(method, "the connection ended before the answer: "+p.endReason(), wire.ErrClosed)
	case <-broken:
		p.forget(id)
		return Message{}, p.brokenError(method, "before answering")
	case <-ctx.Done():
		reason := "no answer before the call was cancelled"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			p.forget(id)
			reason = "no answer within " + waited(ctx, start) + " (context deadline exceeded)"
		} else {
			p.release(id)
		}
		return Message{}, p.callError(method, reason, ctx.Err())
	}
}

// unsent explains a request that could not be written.
func (p *Peer) unsent(method string, err error) error {
	select {
	case <-p.done:
		return p.callError(method, "the connection had ended before the request: "+p.endReason(), err)
	default:
	}
	if errors.Is(err, wire.ErrClosed) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return p.callError(method, "the request could not be written: "+err.Error(), err)
	}
	return fmt.Errorf("%s: %w", method, err) // not the subject's doing, such as params that do not marshal
}

// waited says how long a call could wait: the time from start to ctx's
// deadline, as it was set, rather than the time it took to notice.
func waited(ctx context.Context, start time.Time) string {
	var b Bound
	if errors.As(context.Cause(ctx), &b) {
		return time.Duration(b).String() // the bound as it was set, not as measured
	}
	d := time.Since(start)
	if deadline, ok := ctx.Deadline(); ok {
		d = deadline.Sub(start)
	}
	if d >= time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// Bound is the cause of a context that WithBound ended: its duration, so
// that a wait that gives up says the bound it was given, such as "within
// 5s", and not the part of it left when the wait began.
type Bound time.Duration

func (b Bound) Error() string {
	return "the wait of " + time.Duration(b).String() + " ran out: " + context.DeadlineExceeded.Error()
}

// Unwrap makes a Bound match context.DeadlineExceeded.
func (b Bound) Unwrap() error { return context.DeadlineExceeded }

// WithBound is context.WithTimeout for a wait on the peer: its errors name
// d itself.
func WithBound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, Bound(d))
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

// forget stops waiting for id's answer, which may then come only as a
// fault (its call timed out).
func (p *Peer) forget(id json.RawMessage) {
	p.mu.Lock()
	delete(p.pending, idKey(id))
	p.mu.Unlock()
}

// release forgets a call its caller cancelled, whose answer may still
// come without fault.
func (p *Peer) release(id json.RawMessage) {
	p.mu.Lock()
	delete(p.pending, idKey(id))
	p.released[idKey(id)] = true
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
		return p.RespondRaw(ctx, id, raw)
	}
	return p.Send(ctx, response{JSONRPC: "2.0", ID: id, Result: result})
}

// RespondRaw answers request id with result as it is, unchecked: Respond
// without the interface value, which costs an allocation on the mock
// client's hot path.
func (p *Peer) RespondRaw(ctx context.Context, id, result json.RawMessage) error {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	frame := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(id)+len(result))
	frame = append(append(append(append(append(frame, `{"jsonrpc":"2.0","id":`...), id...), `,"result":`...), result...), '}')
	return p.write(ctx, frame)
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

// WriteRaw writes b as it is. From then on, an error answer with "id":
// null (the subject could not read a request) is not a violation.
func (p *Peer) WriteRaw(ctx context.Context, b []byte) error {
	p.rawSent.Store(true)
	wctx, cancel := deadlineOnly(ctx)
	defer cancel()
	return p.conn.WriteRaw(wctx, b)
}

// Received returns the messages read so far, in order: the most recent
// MaxHistory of them.
func (p *Peer) Received() []Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.received.list()
}

// ForgetReceived drops the messages Received returns, so that the next
// use of a connection kept open for several checks sees only its own.
func (p *Peer) ForgetReceived() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.received.forget(p.budget)
}

// Settled reports whether nothing is left in flight or amiss on the
// connection: it is open, no violation was recorded, every request this
// side sent has its answer (also those a caller stopped waiting for), and
// no handler started with Go still runs.
func (p *Peer) Settled() bool {
	select {
	case <-p.done:
		return false
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for id := range p.asked { // a call given up on still waits on the other side
		if !p.answered[id] {
			return false
		}
	}
	return len(p.violations) == 0 && p.unlisted == 0 && p.failure == "" && p.running.Load() == 0
}

// Transcript is the connection's record of frames.
func (p *Peer) Transcript() *wire.Transcript { return p.conn.Transcript() }

// Done is closed when the connection has ended.
func (p *Peer) Done() <-chan struct{} { return p.done }

// Hangup closes the connection without waiting for anything, as a peer
// that goes away does; handlers may call it.
func (p *Peer) Hangup() { p.closeHere("a script hung up") }

// closeHere closes the connection from any goroutine, the reading one
// included, and keeps why.
func (p *Peer) closeHere(why string) {
	p.mu.Lock()
	if p.closedBy == "" {
		p.closedBy = why
	}
	p.mu.Unlock()
	p.conn.Transcript().Note("hanging up: " + why)
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

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
