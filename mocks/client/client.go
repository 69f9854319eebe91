// Package client is a scriptable mock ACP client: it plays the editor
// against an agent under test. It advertises whatever capabilities it is
// given, registers its elicitation/create route or not, answers each
// elicitation as scripted (however wrongly), drives the agent through
// initialize, session/new and session/prompt, and records everything it
// receives.
//
// Like ghttp, it is an ordered script: Append queues one answer per expected
// elicitation/create, in order. Anything unscripted is a violation, answered
// with an error and reported by Violations; the client never fails a test
// from its own goroutines.
package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/acpconform/acpconform/internal/exactjson"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/probe/schema"
)

// Capability sets a client commonly advertises.
var (
	FormElicitation = json.RawMessage(`{"elicitation":{"form":{}}}`)
	NoElicitation   = json.RawMessage(`{}`)
)

// Config configures a Client. The zero value advertises no capabilities at
// all and registers the elicitation/create route.
type Config struct {
	// Capabilities is sent as clientCapabilities in initialize; nil leaves
	// the field out.
	Capabilities json.RawMessage
	// Unregistered answers every elicitation/create with -32601 and data
	// {"method":"elicitation/create"}, as SDK clients without the route do.
	Unregistered bool
	// Strict makes the client's calls and waits stop at once when the
	// agent breaks the protocol (peer.Peer.Broken: a line that is not
	// JSON, a batch, an answer to an id never sent, a flood, ...), with an
	// error that names what it did and matches peer.ErrBroken. A start-up
	// probe wants this; checks that collect every violation do not.
	Strict bool
}

// Elicitation is one elicitation/create the client received and what it
// did about it.
type Elicitation struct {
	Request  peer.Message
	Answered bool     // the scripted answer was carried out: sent, or withheld for good
	Problems []string // mismatches with the scripted expectation
}

// Client is a mock ACP client. Create it with New, queue answers with
// Append, then Connect it.
type Client struct {
	cfg  Config
	peer *peer.Peer

	st        peer.State // guards what follows
	answers   []script.Elicitation
	standing  *script.Elicitation // answers what the queue does not cover
	elicits   []*Elicitation      // the most recent ones, at most peer.MaxHistory
	seen      int                 // elicitation/create requests received in all
	texts     []string            // agent_message_chunk texts, in order, as the budget allows
	textsIn   []string            // the session of each text
	sessionID string
	withheld  bool // an answer was withheld or turned into a hang-up: the agent may still wait
	// advertised is the clientCapabilities initialize sent, for what a
	// violation says; initialized says initialize was sent.
	advertised  json.RawMessage
	initialized bool
}

// New returns a client that is not yet connected.
func New(cfg Config) *Client {
	return &Client{cfg: cfg}
}

// Append queues the expectations and answers for the next elicitation/create
// requests, in order.
func (c *Client) Append(e ...script.Elicitation) {
	c.st.Lock()
	c.answers = append(c.answers, e...)
	c.st.Unlock()
}

// Route sets a standing answer for every elicitation/create the queue does
// not cover, as ghttp's RouteToHandler does; without one, such a request is
// a violation.
func (c *Client) Route(e script.Elicitation) {
	c.st.Lock()
	c.standing = &e
	c.st.Unlock()
}

// Connect starts talking over conn. The client owns conn from now on.
func (c *Client) Connect(conn wire.Conn) { c.peer = peer.New(conn, c.handle) }

// Close ends the connection and waits for the client's goroutines.
func (c *Client) Close() error { return c.peer.Close() }

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.peer.Done() }

// Transcript is the record of every frame.
func (c *Client) Transcript() *wire.Transcript { return c.peer.Transcript() }

// Received returns every message the agent sent, in order.
func (c *Client) Received() []peer.Message { return c.peer.Received() }

// Held is how many bytes of the connection the client keeps now (its
// transcript, Received, texts and elicitations): never more than the
// connection's budget, wire.Options.MaxHeld.
func (c *Client) Held() int { return c.peer.Held() }

// Failure says what broke the connection, if anything did, and why it
// ended, once it has: see peer.Peer.Failure.
func (c *Client) Failure() string { return c.peer.Failure() }

// Violations returns what the agent did that the script did not allow.
func (c *Client) Violations() []string { return c.peer.Violations() }

// Elicitations returns the elicitation/create requests received so far:
// only the most recent ones, at most peer.MaxHistory.
func (c *Client) Elicitations() []Elicitation {
	c.st.Lock()
	defer c.st.Unlock()
	out := make([]Elicitation, len(c.elicits))
	for i, e := range c.elicits {
		out[i] = *e
	}
	return out
}

// Texts returns the agent_message_chunk texts received so far, up to the
// connection's budget (wire.Options.MaxHeld): past it, the agent is
// flooding and the connection is closed.
func (c *Client) Texts() []string {
	c.st.Lock()
	defer c.st.Unlock()
	return append([]string(nil), c.texts...)
}

// TextsIn returns the agent_message_chunk texts of one session, as Texts
// does those of all.
func (c *Client) TextsIn(session string) []string {
	c.st.Lock()
	defer c.st.Unlock()
	var out []string
	for i, t := range c.texts {
		if c.textsIn[i] == session {
			out = append(out, t)
		}
	}
	return out
}

// SessionID is the id session/new returned.
func (c *Client) SessionID() string {
	c.st.Lock()
	defer c.st.Unlock()
	return c.sessionID
}

// Initialize sends initialize with the configured capabilities and waits
// for the answer.
func (c *Client) Initialize(ctx context.Context) error {
	return c.InitializeWith(ctx, c.cfg.Capabilities)
}

// InitializeWith sends initialize with caps as clientCapabilities (nil:
// none) and waits for the answer.
func (c *Client) InitializeWith(ctx context.Context, caps json.RawMessage) error {
	params := map[string]any{
		"protocolVersion": 1,
		"clientInfo":      map[string]string{"name": "acpconform-mock-client", "version": "1"},
	}
	if caps != nil {
		params["clientCapabilities"] = caps
	}
	c.st.Lock()
	c.advertised, c.initialized = caps, true
	c.st.Unlock()
	_, err := c.call(ctx, "initialize", params)
	return err
}

// NewSession sends session/new and keeps the session id.
func (c *Client) NewSession(ctx context.Context) (string, error) {
	m, err := c.call(ctx, "session/new", map[string]any{"cwd": "/", "mcpServers": []any{}})
	if err != nil {
		return "", err
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if err := exactjson.Unmarshal(m.Result, &res); err != nil || res.SessionID == "" { // "SessionId" is none
		return "", fmt.Errorf("session/new: no sessionId in %s", m.Result)
	}
	c.st.Lock()
	c.sessionID = res.SessionID
	c.st.Unlock()
	return res.SessionID, nil
}

// call sends a request and turns a JSON-RPC error answer into an error.
func (c *Client) call(ctx context.Context, method string, params any) (peer.Message, error) {
	call := c.peer.Call
	if c.cfg.Strict {
		call = c.peer.CallStrict
	}
	m, err := call(ctx, method, params)
	if err != nil {
		return m, err
	}
	if m.Error != nil {
		return m, fmt.Errorf("%s: %w", method, m.Error)
	}
	return m, nil
}

// Turn is a prompt turn in progress.
type Turn struct {
	done       chan struct{}
	stopReason string
	err        error
}

// Prompt sends session/prompt with one text block in the session
// session/new opened last, and returns at once.
func (c *Client) Prompt(ctx context.Context, text string) *Turn {
	return c.PromptIn(ctx, c.SessionID(), text)
}

// PromptIn is Prompt in a session of the caller's choice: a connection may
// serve many at once.
func (c *Client) PromptIn(ctx context.Context, session, text string) *Turn {
	t := &Turn{done: make(chan struct{})}
	params := map[string]any{
		"sessionId": session,
		"prompt":    []map[string]string{{"type": "text", "text": text}},
	}
	go func() {
		defer close(t.done)
		m, err := c.call(ctx, "session/prompt", params)
		if err != nil {
			t.err = err
			return
		}
		var res struct {
			StopReason string `json:"stopReason"`
		}
		if err := exactjson.Unmarshal(m.Result, &res); err != nil {
			t.err = fmt.Errorf("session/prompt: result %s: %v", m.Result, err)
		}
		t.stopReason = res.StopReason
	}()
	return t
}

// Done is closed when the agent has answered the prompt.
func (t *Turn) Done() <-chan struct{} { return t.done }

// Wait returns the turn's stopReason once the agent answers the prompt.
func (t *Turn) Wait(ctx context.Context) (string, error) {
	select {
	case <-t.done:
		return t.stopReason, t.err
	case <-ctx.Done():
		return "", fmt.Errorf("session/prompt: the turn did not end: %w", ctx.Err())
	}
}

// Cancel sends session/cancel for the session session/new opened last.
func (c *Client) Cancel(ctx context.Context) error { return c.CancelIn(ctx, c.SessionID()) }

// CancelIn sends session/cancel for a session of the caller's choice.
func (c *Client) CancelIn(ctx context.Context, session string) error {
	return c.peer.Notify(ctx, "session/cancel", map[string]string{"sessionId": session})
}

// WriteRaw writes b to the agent as it is.
func (c *Client) WriteRaw(ctx context.Context, b []byte) error { return c.peer.WriteRaw(ctx, b) }

// Hangup closes the connection at once.
func (c *Client) Hangup() { c.peer.Hangup() }

// Probe runs one probe request (docs/probe.md §1) in a prompt turn and
// returns the outcome the agent reported and the turn's stopReason.
//
// The outcome is the first agent_message_chunk text of the turn that is
// meant as one (probe.IsOutcome: a JSON object with an "acpconform" member
// and no "op"); other texts are skipped. An outcome that breaks the
// outcome schema is an error naming where, never skipped. Without an
// outcome, Probe returns the stopReason and an error.
func (c *Client) Probe(ctx context.Context, req probe.Request) (probe.Outcome, string, error) {
	return c.probe(ctx, c.SessionID(), req, c.Texts)
}

// ProbeIn is Probe in a session of the caller's choice, for a check that
// runs several sessions at once: the outcome is the first among the texts
// of that session's turn.
func (c *Client) ProbeIn(ctx context.Context, session string, req probe.Request) (probe.Outcome, string, error) {
	return c.probe(ctx, session, req, func() []string { return c.TextsIn(session) })
}

func (c *Client) probe(ctx context.Context, session string, req probe.Request, texts func() []string) (probe.Outcome, string, error) {
	text, err := json.Marshal(req)
	if err != nil {
		return probe.Outcome{}, "", err
	}
	before := len(texts())
	stop, err := c.PromptIn(ctx, session, string(text)).Wait(ctx)
	if err != nil {
		return probe.Outcome{}, stop, err
	}
	turn := texts()[before:]
	for _, t := range turn {
		if out, ok, err := outcomeIn(t); ok {
			return out, stop, err
		}
	}
	return probe.Outcome{}, stop, fmt.Errorf("the turn ended (%s) without an outcome report: none of its %d agent %s was a JSON object with an \"acpconform\" member",
		stop, len(turn), plural(len(turn), "message", "messages"))
}

// outcomeIn reads the outcome in an agent message. ok is false when text
// is not meant as an outcome; err, an *OutcomeError, says how one breaks
// the probe contract.
func outcomeIn(text string) (out probe.Outcome, ok bool, err error) {
	if !probe.IsOutcome(text) {
		return probe.Outcome{}, false, nil
	}
	out, err = schema.ParseOutcome(text)
	if err != nil {
		return probe.Outcome{}, true, &OutcomeError{Err: err}
	}
	return out, true, nil
}

// OutcomeError is Probe's error when the agent reported an outcome that
// acpconform cannot take: one that breaks the outcome schema (Err is then
// a *probe.SchemaError), nests deeper than probe.MaxDepth or holds a
// number too long to read. The agent did report one: it is not missing.
type OutcomeError struct{ Err error }

// Error says "the agent's outcome does not match ...".
func (e *OutcomeError) Error() string { return "the agent's " + e.Err.Error() }

func (e *OutcomeError) Unwrap() error { return e.Err }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// WaitElicitations waits until n elicitation/create requests have arrived
// and been answered, the connection ends, or ctx ends.
func (c *Client) WaitElicitations(ctx context.Context, n int) error {
	return c.await(ctx, fmt.Sprintf("elicitation/create number %d to arrive, answered", n), func() bool {
		i := n - 1 - (c.seen - len(c.elicits)) // its place among those kept
		return c.seen >= n && (i < 0 || c.elicits[i].Answered)
	})
}

// WaitArrived waits until n elicitation/create requests have arrived,
// answered or not: their answers may be held back (script.Answer.When).
func (c *Client) WaitArrived(ctx context.Context, n int) error {
	return c.await(ctx, fmt.Sprintf("elicitation/create number %d to arrive", n), func() bool { return c.seen >= n })
}

// WaitReceived waits until cond holds of the messages received so far
// (see Received): it is checked as each request or notification arrives.
// what names the wait in its error.
func (c *Client) WaitReceived(ctx context.Context, what string, cond func([]peer.Message) bool) error {
	return c.await(ctx, what, func() bool { return cond(c.peer.Received()) })
}

// WaitText waits for the agent_message_chunk number n (1-based) and returns it.
func (c *Client) WaitText(ctx context.Context, n int) (string, error) {
	err := c.await(ctx, fmt.Sprintf("agent message #%d", n), func() bool { return len(c.texts) >= n })
	if err != nil {
		return "", err
	}
	return c.Texts()[n-1], nil
}

// await waits until cond holds: see peer.Peer.Await.
func (c *Client) await(ctx context.Context, what string, cond func() bool) error {
	if c.cfg.Strict {
		return c.peer.AwaitStrict(ctx, &c.st, what, cond)
	}
	return c.peer.Await(ctx, &c.st, what, cond)
}

// handle answers what the agent sends.
func (c *Client) handle(ctx context.Context, p *peer.Peer, m peer.Message) {
	switch {
	case m.Method == "elicitation/create" && m.IsRequest():
		c.elicit(ctx, p, m)
	case m.Method == "session/update":
		c.update(m)
	case !m.IsRequest(): // a notification: WaitReceived may wait for it
		c.st.Lock()
		c.st.Changed()
		c.st.Unlock()
	case m.IsRequest():
		p.Violate("unexpected request %s: %s", m.Method, peer.Quote(m.Raw))
		_ = p.RespondError(ctx, m.ID, peer.Error{Code: -32601, Message: "Method not found", Data: mustJSON(map[string]string{"method": m.Method})})
	}
}

// update keeps the text of an agent_message_chunk, read by exact member
// names as ACP's SDKs read it ("SessionUpdate" is no sessionUpdate). A
// notification that names a member twice, and whose readings carry
// different texts (or a text in one reading only), has no single meaning:
// the probe outcome it may carry cannot be judged, and the client records
// a violation instead of keeping either.
func (c *Client) update(m peer.Message) {
	readings, dups := exactjson.Readings(m.Params)
	n, ok := chunkText(readings[0])
	for _, r := range readings[1:] {
		if other, also := chunkText(r); also != ok || other != n {
			c.peer.Violate("the agent sent a session/update that names %s twice, and its readings carry different agent messages: it has no single meaning (RFC 8259 §4): %s", exactjson.Say(dups), peer.Quote(m.Raw))
			return
		}
	}
	if !ok {
		return
	}
	if !c.peer.Hold(len(n.Text) + textOverhead) {
		return // a flood: the connection is closing
	}
	c.st.Lock()
	c.texts = append(c.texts, n.Text)
	c.textsIn = append(c.textsIn, n.SessionID)
	c.st.Changed()
	c.st.Unlock()
}

// chunk is the text of an agent_message_chunk and its session.
type chunk struct{ SessionID, Text string }

// chunkText reads the agent_message_chunk text in session/update params,
// in which no member is named twice; ok is false for any other update.
func chunkText(params []byte) (chunk, bool) {
	var n struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			Kind    string `json:"sessionUpdate"`
			Content struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	}
	if exactjson.Unmarshal(params, &n) != nil || n.Update.Kind != "agent_message_chunk" || n.Update.Content.Type != "text" {
		return chunk{}, false
	}
	return chunk{n.SessionID, n.Update.Content.Text}, true
}

// What a kept text and a kept record cost besides what they hold: the
// string or pointer, with room for their slice to grow.
const (
	textOverhead        = 2 * 16
	elicitationOverhead = 2*8 + 128
)

// elicitationSize is what keeping rec costs; its request's frame is
// counted again, as the history of Received may let go of it first.
func elicitationSize(rec *Elicitation) int {
	n := cap(rec.Request.Raw) + elicitationOverhead
	for _, p := range rec.Problems {
		n += len(p) + 16
	}
	return n
}

// elicit answers one elicitation/create with the next scripted answer.
func (c *Client) elicit(ctx context.Context, p *peer.Peer, m peer.Message) {
	rec := &Elicitation{Request: m}
	if !p.Hold(elicitationSize(rec)) {
		return // a flood: the connection is closing
	}
	c.st.Lock()
	c.seen++
	k := c.seen
	if len(c.elicits) == peer.MaxHistory { // drop the older half at once
		for _, old := range c.elicits[:peer.MaxHistory/2] {
			p.Release(elicitationSize(old))
		}
		c.elicits = append(c.elicits[:0], c.elicits[peer.MaxHistory/2:]...)
	}
	c.elicits = append(c.elicits, rec)
	c.st.Changed() // WaitArrived
	step := c.standing
	if k <= len(c.answers) {
		step = &c.answers[k-1]
	}
	c.st.Unlock()

	if step != nil {
		if problems := step.Expect.Check(m.Params); len(problems) > 0 {
			c.st.Lock()
			if p.Hold(elicitationSize(&Elicitation{Problems: problems}) - elicitationOverhead) {
				rec.Problems = problems
			}
			c.st.Unlock()
			for _, pr := range problems {
				p.Violate("elicitation/create #%d: %s", k, pr)
			}
		}
	}
	switch {
	case c.cfg.Unregistered:
		_ = p.RespondError(ctx, m.ID, peer.Error{Code: -32601, Message: "Method not found", Data: mustJSON(map[string]string{"method": "elicitation/create"})})
	case step == nil:
		p.Violate("elicitation/create #%d was not scripted%s: %s", k, c.unadvertised(), peer.Quote(m.Raw))
		_ = p.RespondError(ctx, m.ID, peer.Error{Code: -32603, Message: "Internal error", Data: mustJSON(map[string]string{"error": "acpconform mock client: no scripted answer"})})
	case step.Answer.Delay > 0 || step.Answer.Until != nil:
		d := time.Duration(step.Answer.Delay)
		if step.Answer.Until != nil {
			p.Transcript().Note(fmt.Sprintf("elicitation/create #%d: answering when the check says", k))
		} else {
			p.Transcript().Note(fmt.Sprintf("elicitation/create #%d: answering after %s", k, d))
		}
		req := m // the closure's own copy: capturing m would put every request's on the heap
		p.Go(func() {
			if step.Answer.Until != nil {
				select {
				case <-step.Answer.Until:
				case <-ctx.Done():
					return
				}
			}
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				c.answer(ctx, p, req, k, step.Answer)
				c.answered(rec)
			case <-ctx.Done():
			}
		})
		return
	default:
		c.answer(ctx, p, m, k, step.Answer)
	}
	c.answered(rec)
}

// unadvertised says, for a violation, that the connection's initialize
// advertised no form elicitation, when it did not: "" otherwise.
func (c *Client) unadvertised() string {
	c.st.Lock()
	defer c.st.Unlock()
	switch {
	case !c.initialized || script.AdvertisesForm(c.advertised):
		return ""
	case c.advertised == nil:
		return ", and this connection's initialize advertised no clientCapabilities at all, so no form request may come"
	}
	return fmt.Sprintf(", and this connection's initialize advertised no form elicitation (clientCapabilities %s), so no form request may come", c.advertised)
}

// answered marks rec's scripted answer as carried out.
func (c *Client) answered(rec *Elicitation) {
	c.st.Lock()
	rec.Answered = true
	c.st.Changed()
	c.st.Unlock()
}

// answer carries out a scripted answer, delay aside: it sends it, sends it
// wrongly, withholds it or hangs up.
func (c *Client) answer(ctx context.Context, p *peer.Peer, m peer.Message, k int, a script.Answer) {
	switch {
	case a.Never:
		p.Transcript().Note(fmt.Sprintf("elicitation/create #%d: never answering", k))
		c.withhold()
		return
	case a.Close:
		c.withhold()
		p.Hangup()
		return
	}
	if a.WrongID {
		c.withhold() // the agent still waits for the real answer
	}
	result, rpcErr, err := a.Resolve(m.Params)
	if err != nil {
		p.Violate("elicitation/create #%d: %v", k, err)
		rpcErr = &script.RPCError{Code: -32603, Message: "Internal error", Data: script.JSON(mustJSON(map[string]string{"error": err.Error()}))}
	}
	id := m.ID
	if a.WrongID {
		id = wrongID(m.ID)
	}
	times := 1
	if a.Twice {
		times = 2
	}
	for i := 0; i < times; i++ {
		if rpcErr != nil {
			_ = p.RespondError(ctx, id, peer.Error{Code: rpcErr.Code, Message: rpcErr.Message, Data: json.RawMessage(rpcErr.Data)})
		} else {
			_ = p.RespondRaw(ctx, id, result)
		}
	}
}

// withhold records that an elicitation was left without its answer.
func (c *Client) withhold() {
	c.st.Lock()
	c.withheld = true
	c.st.Unlock()
}

// Reusable reports whether another check may use this client's
// connection after Reset: it is open and settled (peer.Peer.Settled), every
// elicitation/create got its answer, and none is waiting for one.
func (c *Client) Reusable() bool {
	c.st.Lock()
	ok := !c.withheld
	for _, e := range c.elicits {
		ok = ok && e.Answered
	}
	c.st.Unlock()
	return ok && c.peer.Settled()
}

// Reset readies a reusable client for the next check on its connection:
// it forgets the queued answers, the elicitations, the texts and the
// messages received, so that the check sees only its own. The connection,
// its initialize and its transcript stay.
func (c *Client) Reset() {
	c.st.Lock()
	for _, e := range c.elicits {
		c.peer.Release(elicitationSize(e))
	}
	for _, t := range c.texts {
		c.peer.Release(len(t) + textOverhead)
	}
	c.answers, c.standing, c.elicits, c.seen, c.texts, c.textsIn, c.withheld = nil, nil, nil, 0, nil, nil, false
	c.st.Changed()
	c.st.Unlock()
	c.peer.ForgetReceived()
}

// wrongID returns an id the agent never used.
func wrongID(id json.RawMessage) json.RawMessage {
	if n, err := strconv.ParseInt(string(id), 10, 64); err == nil {
		return json.RawMessage(strconv.FormatInt(n+1_000_000, 10))
	}
	return mustJSON("not-" + string(id))
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
