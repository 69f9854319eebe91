package kit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/reference"
)

// Agent is a probe adapter (docs/probe.md §1) around your ask_choice and
// create_elicitation. Serve it with [Main], [ServeAgent] or [Agent.Start].
//
// Your functions return your own result, read by name: a method with no
// arguments, or else an exported field, of the result or what it points
// to. An ask_choice result has Status ("accepted", "declined" or
// "cancelled", of any string type) and, when accepted, Value; a
// create_elicitation result has Action ("accept", "decline", "cancel") or
// Status, and Content (json.RawMessage, or anything encoding/json writes:
// decode with UseNumber to keep numbers as the client wrote them). A
// [Result] or a reference.Result[any] will do. An error outcome comes of
// the error returned, as [Errors] says.
//
// The outcome is your result as returned: the kit never validates, drops
// or fills in anything for you. Content returned with a decline is
// reported, for the catalogue to fail (ELI-3); what no outcome can say is
// an error outcome whose message says what your function returned.
type Agent struct {
	// AskChoice runs your ask_choice for one probe request.
	AskChoice func(c *Call) (any, error)
	// CreateElicitation runs your create_elicitation for one probe request
	// of revision 2. nil says your agent does not offer it: every such
	// request is answered with the error outcome not_offered (revision 3,
	// docs/probe.md §1.9), and acpconform reports the op "not offered".
	CreateElicitation func(c *ElicitationCall) (any, error)
	// Errors tells your errors apart.
	Errors Errors
	// Name is the agentInfo name of initialize; "" is
	// "acpconform-kit-agent".
	Name string
	// Log receives the connection's diagnostics; nil discards them.
	Log *slog.Logger
}

// Conn is a served connection.
type Conn struct{ conn *reference.AgentConnection }

// Done is closed when the client disconnects or its stream ends.
func (c *Conn) Done() <-chan struct{} { return c.conn.Done() }

// Start serves a on the connection whose outgoing frames go to w and
// incoming frames come from r (newline-delimited JSON-RPC), and returns at
// once. Each prompt is a probe request, run in a goroutine of its own
// while the connection keeps reading. Close r's writer to end it.
func (a Agent) Start(w io.Writer, r io.Reader) *Conn {
	s := &server{agent: a}
	s.conn = reference.NewUnstartedAgentConnection(s, w, r)
	log := a.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s.conn.SetLogger(log)
	s.conn.Start()
	return &Conn{conn: s.conn}
}

// ServeAgent serves a on r and w until r ends, then returns nil, or until
// ctx ends, then returns ctx's error. It does not wait for prompts still
// running: the connection they would report on is gone.
func ServeAgent(ctx context.Context, r io.Reader, w io.Writer, a Agent) error {
	c := a.Start(w, r)
	select {
	case <-c.Done():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Main serves a on stdin and stdout, its diagnostics at warn level on
// stderr, and exits 0 when stdin ends or a signal (interrupt, SIGTERM,
// SIGHUP) comes: within 2 s of stdin's end, as RTE-7 asks.
func Main(a Agent) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	if a.Log == nil {
		a.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	_ = ServeAgent(ctx, os.Stdin, os.Stdout, a)
	stop()
	os.Exit(0)
}

// server is the ACP agent of a connection.
type server struct {
	agent    Agent
	conn     *reference.AgentConnection
	sessions atomic.Int64
}

var _ acp.Agent = (*server)(nil)

// Initialize implements acp.Agent; the connection keeps the client's
// capabilities.
func (s *server) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	name := s.agent.Name
	if name == "" {
		name = "acpconform-kit-agent"
	}
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentInfo:       &acp.Implementation{Name: name, Version: "1"},
		AuthMethods:     []acp.AuthMethod{},
	}, nil
}

// NewSession implements acp.Agent.
func (s *server) NewSession(context.Context, acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	return acp.NewSessionResponse{SessionId: acp.SessionId("probe-" + strconv.FormatInt(s.sessions.Add(1), 10))}, nil
}

// Prompt implements acp.Agent: it runs the probe request in the prompt's
// text and reports the outcome in one agent_message_chunk, then ends the
// turn; a cancelled turn reports nothing and ends cancelled. A prompt
// that is not a probe request fails with -32602 and the reason.
func (s *server) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	var text string
	for _, b := range p.Prompt {
		if b.Text != nil {
			text += b.Text.Text
		}
	}
	req, err := probe.ParseRequest(text)
	if err == nil && req.Op == probe.OpAskChoice && s.agent.AskChoice == nil {
		err = fmt.Errorf("unknown probe op %q: this adapter runs create_elicitation only", req.Op)
	}
	if err != nil {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	session := NewSession(p.SessionId, s.conn.ClientCapabilities(), s.conn)
	out := s.run(ctx, session, req)
	if ctx.Err() != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	if err := s.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: p.SessionId, Update: acp.UpdateAgentMessageText(string(b))}); err != nil {
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// run runs the user's function for req and describes the outcome; an
// adapter without CreateElicitation does not offer that op.
func (s *server) run(ctx context.Context, session *Session, req probe.Request) probe.Outcome {
	if req.Op == probe.OpCreateElicitation {
		if s.agent.CreateElicitation == nil {
			return notOffered()
		}
		return s.createElicitation(ctx, session, req)
	}
	return s.askChoice(ctx, session, req)
}

// notOffered is the outcome of a create_elicitation request to an adapter
// that does not offer the op (docs/probe.md §1.9).
func notOffered() probe.Outcome {
	return probe.Outcome{Acpconform: probe.Version, Outcome: probe.OutcomeError, Error: probe.ErrorNotOffered,
		Message: "this adapter does not offer create_elicitation: it runs ask_choice only"}
}

// askChoice runs the user's ask_choice for req and describes the outcome.
func (s *server) askChoice(ctx context.Context, session *Session, req probe.Request) probe.Outcome {
	w := &warnings{}
	c := &Call{Session: session, Question: req.Question, Choices: make([]Choice, len(req.Choices)),
		Equal: equal, Warn: w.add, Log: slog.New(handler{w: w}), ctx: ctx}
	for i, ch := range req.Choices {
		c.Choices[i] = Choice{Value: NewValue(ch.Value), Label: ch.Label, Description: ch.Description, Default: ch.Default}
	}
	c.fallbacks(req.Fallback, time.Duration(req.FallbackDelayMs)*time.Millisecond)
	res, err := guard("ask_choice", func() (any, error) { return s.agent.AskChoice(c) })
	out := s.agent.Errors.choiceOutcome(c, res, err)
	out.Warnings = w.all()
	return out
}

// createElicitation runs the user's create_elicitation for req and
// describes the outcome.
func (s *server) createElicitation(ctx context.Context, session *Session, req probe.Request) probe.Outcome {
	c := &ElicitationCall{Session: session, Mode: req.Mode, Message: req.Message, RequestedSchema: req.RequestedSchema,
		URL: req.URL, ElicitationID: req.ElicitationID, ctx: ctx}
	res, err := guard("create_elicitation", func() (any, error) { return s.agent.CreateElicitation(c) })
	return s.agent.Errors.elicitationOutcome(res, err)
}

// guard calls fn, turning a panic into an error: an internal outcome.
func guard(name string, fn func() (any, error)) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("kit: %s panicked: %v", name, p)
		}
	}()
	return fn()
}

// The rest of acp.Agent: the probe needs none of it.

// Authenticate implements acp.Agent.
func (s *server) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

// Cancel implements acp.Agent; the connection cancels the prompt's context.
func (s *server) Cancel(context.Context, acp.CancelNotification) error { return nil }

// CloseSession implements acp.Agent.
func (s *server) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, nil
}

// ListSessions implements acp.Agent.
func (s *server) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, nil
}

// ResumeSession implements acp.Agent.
func (s *server) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

// SetSessionConfigOption implements acp.Agent.
func (s *server) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, nil
}

// SetSessionMode implements acp.Agent.
func (s *server) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, nil
}
