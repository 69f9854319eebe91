package reference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/internal/gate"
)

// AgentConnection is the agent side of an ACP connection, serving an
// [acp.Agent] like acp.NewAgentSideConnection does, and in addition
//   - keeping the client capabilities received in initialize, so that each
//     [Session] it hands out knows what its own client advertised (CAP-4);
//   - sending requests with params of the caller's own types, so that
//     elicitation/create carries its sessionId (the SDK's typed request drops it).
//
// It needs no opt-in to send elicitation/create (RTE-4).
type AgentConnection struct {
	conn   *acp.Connection
	agent  acp.Agent
	output *failWriter
	input  *gate.Reader // opened by Start

	mu      sync.Mutex
	caps    acp.ClientCapabilities
	prompts map[acp.SessionId]*promptTurn
}

// promptTurn lets session/cancel end the prompt turn of its session.
type promptTurn struct{ cancel context.CancelFunc }

// NewAgentConnection serves agent on the connection whose outgoing frames go
// to peerInput and incoming frames come from peerOutput (newline-delimited
// JSON, as acp.NewAgentSideConnection). Close the transport to end it.
//
// An agent that keeps the connection, to ask through it later, should take
// it from NewUnstartedAgentConnection instead, so that storing it does not
// race with the first message.
func NewAgentConnection(agent acp.Agent, peerInput io.Writer, peerOutput io.Reader) *AgentConnection {
	c := NewUnstartedAgentConnection(agent, peerInput, peerOutput)
	c.Start()
	return c
}

// NewUnstartedAgentConnection is NewAgentConnection without reading: adjust
// the connection (SetLogger, hand it to the agent), then call Start.
func NewUnstartedAgentConnection(agent acp.Agent, peerInput io.Writer, peerOutput io.Reader) *AgentConnection {
	c := &AgentConnection{agent: agent, output: &failWriter{w: peerInput}, prompts: map[acp.SessionId]*promptTurn{}}
	c.input = gate.New(peerOutput)
	c.conn = acp.NewConnection(c.handle, c.output, c.input)
	return c
}

// Start begins reading the client's messages. Calling it again does nothing.
func (c *AgentConnection) Start() { c.input.Open() }

// Session returns the session id with the client capabilities received on
// this connection so far, ready for [AskChoice].
func (c *AgentConnection) Session(id acp.SessionId) *Session {
	return &Session{ID: id, ClientCapabilities: c.ClientCapabilities(), Client: c}
}

// ClientCapabilities returns what the client advertised in initialize; the
// zero value before initialize.
func (c *AgentConnection) ClientCapabilities() acp.ClientCapabilities {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.caps
}

// Request sends a request with params marshalled as they are and returns the
// raw result. It implements [Requester].
func (c *AgentConnection) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	raw, err := acp.SendRequest[json.RawMessage](c.conn, ctx, method, params)
	if err != nil {
		return nil, c.requestError(ctx, method, err)
	}
	return raw, nil
}

// Notify sends a notification.
func (c *AgentConnection) Notify(ctx context.Context, method string, params any) error {
	if err := c.conn.SendNotification(ctx, method, params); err != nil {
		return c.requestError(ctx, method, err)
	}
	return nil
}

// SessionUpdate sends a session/update notification.
func (c *AgentConnection) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	return c.Notify(ctx, acp.ClientMethodSessionUpdate, n)
}

// Done is closed when the peer disconnects or its stream ends.
func (c *AgentConnection) Done() <-chan struct{} { return c.conn.Done() }

// SetLogger directs the connection's diagnostics to l. Call it before Start.
func (c *AgentConnection) SetLogger(l *slog.Logger) { c.conn.SetLogger(l) }

// requestError turns the SDK's error for a request into the contract's:
// ctx's error, ErrConnectionClosed, or a *RequestError from the client.
func (c *AgentConnection) requestError(ctx context.Context, method string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
	var re *acp.RequestError
	if !errors.As(err, &re) {
		return fmt.Errorf("%s: %w", method, err)
	}
	if c.output.failed.Load() || (isClosed(c.conn.Done()) && isDisconnectError(re)) {
		return fmt.Errorf("%s: %w before the client answered", method, ErrConnectionClosed)
	}
	out := &RequestError{Method: method, Code: re.Code, Message: re.Message}
	if re.Data != nil {
		out.Data, _ = json.Marshal(re.Data)
	}
	return out
}

// isDisconnectError recognises the error the SDK makes up, rather than
// receives, when the peer goes away: -32603 with data {"error": "peer
// disconnected ..."}.
func isDisconnectError(re *acp.RequestError) bool {
	data, ok := re.Data.(map[string]any)
	if !ok || re.Code != CodeInternalError || len(data) != 1 {
		return false
	}
	msg, _ := data["error"].(string)
	return strings.HasPrefix(msg, "peer disconnected")
}

func isClosed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// failWriter remembers that a write failed: from then on the connection can
// send nothing, whatever the reading side still sees.
type failWriter struct {
	w      io.Writer
	failed atomic.Bool
}

func (f *failWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil {
		f.failed.Store(true)
	}
	return n, err
}

// handle dispatches the client's requests and notifications to the agent.
func (c *AgentConnection) handle(ctx context.Context, method string, params json.RawMessage) (any, *acp.RequestError) {
	a := c.agent
	switch method {
	case acp.AgentMethodInitialize:
		return call(ctx, asAdvertised(params), c.initialize)
	case acp.AgentMethodAuthenticate:
		return call(ctx, params, a.Authenticate)
	case acp.AgentMethodSessionNew:
		return call(ctx, params, a.NewSession)
	case acp.AgentMethodSessionPrompt:
		return call(ctx, params, c.prompt)
	case acp.AgentMethodSessionCancel:
		return call(ctx, params, c.cancel)
	case acp.AgentMethodSessionList:
		return call(ctx, params, a.ListSessions)
	case acp.AgentMethodSessionResume:
		return call(ctx, params, a.ResumeSession)
	case acp.AgentMethodSessionClose:
		return call(ctx, params, a.CloseSession)
	case acp.AgentMethodSessionSetMode:
		return call(ctx, params, a.SetSessionMode)
	case acp.AgentMethodSessionSetConfigOption:
		return call(ctx, params, a.SetSessionConfigOption)
	case acp.AgentMethodSessionLoad:
		if l, ok := a.(acp.AgentLoader); ok {
			return call(ctx, params, l.LoadSession)
		}
	default:
		if h, ok := a.(acp.ExtensionMethodHandler); ok && strings.HasPrefix(method, "_") {
			resp, err := h.HandleExtensionMethod(ctx, method, params)
			if err != nil {
				return nil, toRequestError(err)
			}
			return resp, nil
		}
	}
	return nil, acp.NewMethodNotFound(method)
}

func (c *AgentConnection) initialize(ctx context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	c.mu.Lock()
	c.caps = p.ClientCapabilities
	c.mu.Unlock()
	return c.agent.Initialize(ctx, p)
}

// prompt runs a prompt turn that session/cancel, or a newer prompt of the
// same session, can cancel.
func (c *AgentConnection) prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	turn := &promptTurn{cancel: cancel}
	c.mu.Lock()
	if prev := c.prompts[p.SessionId]; prev != nil {
		prev.cancel()
	}
	c.prompts[p.SessionId] = turn
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.prompts[p.SessionId] == turn {
			delete(c.prompts, p.SessionId)
		}
		c.mu.Unlock()
	}()
	return c.agent.Prompt(ctx, p)
}

func (c *AgentConnection) cancel(ctx context.Context, p acp.CancelNotification) (any, error) {
	c.mu.Lock()
	if turn := c.prompts[p.SessionId]; turn != nil {
		turn.cancel()
	}
	c.mu.Unlock()
	return nil, c.agent.Cancel(ctx, p)
}

// call decodes and validates params as P, then calls fn.
func call[P, R any](ctx context.Context, params json.RawMessage, fn func(context.Context, P) (R, error)) (any, *acp.RequestError) {
	var p P
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	if v, ok := any(&p).(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return nil, acp.NewInvalidParams(map[string]any{"error": err.Error()})
		}
	}
	resp, err := fn(ctx, p)
	if err != nil {
		return nil, toRequestError(err)
	}
	return resp, nil
}

func toRequestError(err error) *acp.RequestError {
	var re *acp.RequestError
	switch {
	case errors.As(err, &re):
		return re
	case errors.Is(err, context.Canceled):
		return acp.NewRequestCancelled(map[string]any{"error": err.Error()})
	default:
		return acp.NewInternalError(map[string]any{"error": err.Error()})
	}
}
