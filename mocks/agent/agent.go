// Package agent is a scriptable mock ACP agent: it plays the agent for a
// client under test. It answers initialize and session/new, and in each
// prompt turn plays its steps: it sends elicitation/create requests (typed
// choices compiled by the reference, or raw params), with the scripted-user
// instruction of PROBE.md §2 when asked, and checks every answer twice, apart:
// against the request's own schema, as any client's (CONTRACT CLI-1..3:
// Violations), and against what the step expects of it, such as the
// scripted user's instruction a client in test mode follows (CLI-5: Unmet).
// A client whose answers are valid but not the instructed ones has no
// violation, only unmet expectations.
//
// What the client does wrong is recorded, never asserted from the agent's
// goroutines: read it with Violations and Unmet, or from Run's error.
package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/internal/exactjson"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/reference"
)

// Config configures an Agent; the zero value is ready to use.
type Config struct {
	// Timeout bounds the wait for each answer; zero means script.DefaultTimeout.
	Timeout time.Duration
	// Strict makes WaitInitialize and WaitTurns stop at once when the
	// client breaks the protocol (peer.Peer.Broken: a line that is not
	// JSON, a batch, an answer to an id never sent, a flood, ...), with an
	// error that names what it did and matches peer.ErrBroken. A start-up
	// probe wants this; checks that collect every violation do not.
	Strict bool
}

// Exchange is one elicitation/create the agent sent and what came back.
type Exchange struct {
	Params   json.RawMessage // as sent
	Answer   peer.Message    // the response; zero until Answered
	Answered bool
	// Problems make the answer invalid for any client (Check): each starts
	// with the rule it breaks, "CLI-1: " or "CLI-2: ".
	Problems []string
	// Unmet says how the answer differs from what the step expects of it:
	// the scripted user's instruction (CLI-5), or the action, choice or
	// error the step names. An invalid answer may also be unmet.
	Unmet []string
}

// Agent is a mock ACP agent. Create it with New, queue the turn's steps
// with Append, then Connect it.
type Agent struct {
	cfg  Config
	peer *peer.Peer

	st          peer.State // guards what follows
	steps       []script.Step
	next        int
	caps        json.RawMessage
	initialized bool
	sessions    int
	exchanges   []*Exchange
	turns       int // prompt turns ended
	cancel      context.CancelFunc
}

// New returns an agent that is not yet connected.
func New(cfg Config) *Agent { return &Agent{cfg: cfg} }

// Append queues steps for the prompt turns: elicit, say, raw, close and
// endTurn, which ends a turn. A turn whose steps run out ends with end_turn.
func (a *Agent) Append(steps ...script.Step) {
	a.st.Lock()
	a.steps = append(a.steps, steps...)
	a.st.Unlock()
}

// Connect starts serving the client over conn; the agent owns conn.
func (a *Agent) Connect(conn wire.Conn) { a.peer = peer.New(conn, a.handle) }

// Close ends the connection and waits for the agent's goroutines.
func (a *Agent) Close() error { return a.peer.Close() }

// Done is closed when the connection has ended.
func (a *Agent) Done() <-chan struct{} { return a.peer.Done() }

// Transcript is the record of every frame.
func (a *Agent) Transcript() *wire.Transcript { return a.peer.Transcript() }

// Received returns every message the client sent, in order.
func (a *Agent) Received() []peer.Message { return a.peer.Received() }

// Failure describes the first protocol violation of the client and how
// the connection ended; see peer.Peer.Failure.
func (a *Agent) Failure() string { return a.peer.Failure() }

// Violations returns what the client did wrong as any ACP client: the
// Problems of its answers, each as "elicitation/create #N: " and the
// problem, and what it did wrong on the connection (a second answer, no
// answer, a line that is not JSON, ...). Unmet expectations are not among
// them.
func (a *Agent) Violations() []string { return a.peer.Violations() }

// Unmet returns how the client's answers differ from what the steps
// expect of them, each as "elicitation/create #N: " and the difference.
func (a *Agent) Unmet() []string {
	a.st.Lock()
	defer a.st.Unlock()
	var out []string
	for i, e := range a.exchanges {
		for _, u := range e.Unmet {
			out = append(out, fmt.Sprintf("elicitation/create #%d: %s", i+1, u))
		}
	}
	return out
}

// Capabilities returns the clientCapabilities of initialize, as sent; nil
// before initialize or when the client sent none.
func (a *Agent) Capabilities() json.RawMessage {
	a.st.Lock()
	defer a.st.Unlock()
	return a.caps
}

// Exchanges returns the elicitations sent so far.
func (a *Agent) Exchanges() []Exchange {
	a.st.Lock()
	defer a.st.Unlock()
	out := make([]Exchange, len(a.exchanges))
	for i, e := range a.exchanges {
		out[i] = *e
	}
	return out
}

// WaitTurns waits until n prompt turns have ended, the connection ends, or
// ctx ends.
func (a *Agent) WaitTurns(ctx context.Context, n int) error {
	return a.await(ctx, fmt.Sprintf("prompt turn %d", n), func() bool { return a.turns >= n })
}

// WaitInitialize waits until the client has sent initialize.
func (a *Agent) WaitInitialize(ctx context.Context) error {
	return a.await(ctx, "initialize", func() bool { return a.initialized })
}

// await waits until cond holds: see peer.Peer.Await.
func (a *Agent) await(ctx context.Context, what string, cond func() bool) error {
	if a.cfg.Strict {
		return a.peer.AwaitStrict(ctx, &a.st, what, cond)
	}
	return a.peer.Await(ctx, &a.st, what, cond)
}

func (a *Agent) timeout() time.Duration {
	if a.cfg.Timeout > 0 {
		return a.cfg.Timeout
	}
	return script.DefaultTimeout
}

// handle answers what the client sends.
func (a *Agent) handle(ctx context.Context, p *peer.Peer, m peer.Message) {
	switch m.Method {
	case "initialize":
		var params struct {
			Caps json.RawMessage `json:"clientCapabilities"`
		}
		_ = exactjson.Unmarshal(m.Params, &params) // "ClientCapabilities" advertises nothing
		a.st.Lock()
		a.caps = params.Caps
		a.initialized = true
		a.st.Changed()
		a.st.Unlock()
		_ = p.Respond(ctx, m.ID, map[string]any{
			"protocolVersion":   1,
			"agentCapabilities": map[string]any{},
			"agentInfo":         map[string]string{"name": "acpconform-mock-agent", "version": "1"},
			"authMethods":       []any{},
		})
	case "authenticate":
		_ = p.Respond(ctx, m.ID, map[string]any{})
	case "session/new":
		a.st.Lock()
		a.sessions++
		id := fmt.Sprintf("mock-session-%d", a.sessions)
		a.st.Unlock()
		_ = p.Respond(ctx, m.ID, map[string]string{"sessionId": id})
	case "session/prompt":
		p.Go(func() { a.prompt(ctx, p, m) }) // a turn waits for answers the reader must deliver
	case "session/cancel":
		a.st.Lock()
		if a.cancel != nil {
			a.cancel()
		}
		a.st.Unlock()
	default:
		if m.IsRequest() {
			p.Violate("unexpected request %s: %s", m.Method, peer.Quote(m.Raw))
			_ = p.RespondError(ctx, m.ID, peer.Error{Code: -32601, Message: "Method not found", Data: mustJSON(map[string]string{"method": m.Method})})
		}
	}
}

// prompt plays the steps of one turn and answers the prompt.
func (a *Agent) prompt(ctx context.Context, p *peer.Peer, m peer.Message) {
	var params struct {
		SessionID string `json:"sessionId"`
	}
	_ = exactjson.Unmarshal(m.Params, &params) // "SessionId" names no session
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	a.st.Lock()
	a.cancel = func() { cancel(errSessionCancel) }
	a.st.Unlock()
	defer func() {
		a.st.Lock()
		a.cancel = nil
		a.st.Unlock()
	}()

	stop := "end_turn"
	for {
		a.st.Lock()
		if a.next >= len(a.steps) {
			a.st.Unlock()
			break
		}
		st := a.steps[a.next]
		a.next++
		a.st.Unlock()
		if st.EndTurn != "" {
			stop = st.EndTurn
			break
		}
		if st.Close { // the turn ends with the connection, unanswered
			a.endTurn()
			p.Hangup()
			return
		}
		a.play(ctx, p, params.SessionID, st)
		if ctx.Err() != nil {
			stop = "cancelled"
			break
		}
	}
	a.endTurn() // counted before the answer goes, so a client may leave at once
	_ = p.Respond(context.WithoutCancel(ctx), m.ID, map[string]string{"stopReason": stop})
}

// errSessionCancel is the cause of a turn ended by session/cancel.
var errSessionCancel = errors.New("session/cancel")

func (a *Agent) endTurn() {
	a.st.Lock()
	a.turns++
	a.st.Changed()
	a.st.Unlock()
}

// play performs one step of a turn.
func (a *Agent) play(ctx context.Context, p *peer.Peer, sessionID string, st script.Step) {
	switch {
	case st.Elicit != nil:
		a.elicit(ctx, p, sessionID, st.Elicit)
	case st.Say != nil:
		_ = p.Notify(ctx, "session/update", map[string]any{
			"sessionId": sessionID,
			"update": map[string]any{
				"sessionUpdate": "agent_message_chunk",
				"content":       map[string]string{"type": "text", "text": *st.Say},
			},
		})
	case st.Complete != nil:
		_ = p.Notify(ctx, "elicitation/complete", map[string]string{"elicitationId": *st.Complete})
	case st.Raw != nil:
		_ = p.WriteRaw(ctx, []byte(*st.Raw))
	case st.Hold != nil:
		select {
		case <-st.Hold:
		case <-ctx.Done():
		}
	}
}

// elicit sends one elicitation/create and checks the answer.
func (a *Agent) elicit(ctx context.Context, p *peer.Peer, sessionID string, e *script.Elicit) {
	params, err := Params(sessionID, e)
	if err != nil {
		p.Violate("elicit: %v", err) // Validate prevents this for loaded scripts
		return
	}
	ex := &Exchange{Params: params}
	a.st.Lock()
	a.exchanges = append(a.exchanges, ex)
	k := len(a.exchanges)
	asked := Asked{Params: params, Caps: a.caps, Cancelled: e.Cancel}
	a.st.Unlock()

	wait, cancel := peer.WithBound(ctx, a.timeout())
	defer cancel()
	var sent func(json.RawMessage)
	if e.Cancel {
		sent = func(id json.RawMessage) {
			_ = p.Notify(ctx, "$/cancel_request", map[string]json.RawMessage{"requestId": id})
		}
	}
	answer, err := p.CallThen(wait, "elicitation/create", params, sent)
	if err != nil {
		var callErr *peer.CallError
		switch {
		case errors.Is(context.Cause(ctx), errSessionCancel): // a cancelled turn owes no answer
		case errors.As(err, &callErr): // what else went wrong is a violation of its own
			p.Violate("elicitation/create #%d: %s: %s", k, callErr.What, callErr.Reason)
		default:
			p.Violate("elicitation/create #%d: %v", k, err)
		}
		return
	}
	problems := Check(asked, answer)
	var unmet []string
	if e.Expect != nil {
		unmet = expectAnswer(e.Expect, (*probe.User)(e.User), asked, answer)
	}
	for _, pr := range problems {
		p.Violate("elicitation/create #%d: %s", k, pr)
	}
	a.st.Lock()
	ex.Answer, ex.Answered, ex.Problems, ex.Unmet = answer, true, problems, unmet
	a.st.Changed()
	a.st.Unlock()
}

// Params builds the params of an Elicit step: the reference's typed-choice
// form, a form of any shape or a URL elicitation, scoped to the session,
// with the user instruction and extra _meta; or the raw params as they are.
func Params(sessionID string, e *script.Elicit) (json.RawMessage, error) {
	if e.Params != nil {
		return json.RawMessage(e.Params), nil
	}
	var req reference.ElicitationRequest
	switch {
	case e.Form != nil:
		req = reference.ElicitationRequest{Mode: reference.ModeForm, Message: e.Question}
		dec := json.NewDecoder(bytes.NewReader(e.Form))
		dec.UseNumber() // bounds and defaults as written
		if err := dec.Decode(&req.RequestedSchema); err != nil {
			return nil, fmt.Errorf("form is not a requestedSchema: %v", err)
		}
	case e.URL != "":
		req = reference.ElicitationRequest{Mode: reference.ModeURL, Message: e.Question, URL: e.URL, ElicitationID: e.ElicitationID}
	default:
		choices := make([]reference.Choice[int], len(e.Choices))
		for i, c := range e.Choices {
			choices[i] = reference.Choice[int]{Value: i, Label: c.Label, Description: c.Description, Default: c.Default}
		}
		var err error
		if req, err = reference.Compile(e.Question, choices); err != nil {
			return nil, err
		}
	}
	req.SessionID = acp.SessionId(sessionID)
	meta := map[string]any{}
	if e.Meta != nil {
		if err := json.Unmarshal(e.Meta, &meta); err != nil {
			return nil, fmt.Errorf("meta is not an object: %v", err)
		}
	}
	if e.User != nil {
		meta[probe.UserMetaKey] = e.User
	}
	if len(meta) > 0 {
		req.Meta = meta
	}
	return json.Marshal(req)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
