package agent_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/internal/gate"
	"github.com/acpconform/acpconform/mocks/agent"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
)

func TestAgent(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Mock agent")
}

// within bounds every spec against a hang: a hang fails the spec instead
// of the run. It is no speed limit: a spec that loops hundreds of times
// takes many times longer on a loaded 2-core machine.
var within = SpecTimeout(2 * time.Minute)

// deploy is the typed choice most specs send: two choices, the second the
// default and described.
func deploy() *script.Elicit {
	return &script.Elicit{
		Question: "Choose a deployment target",
		Choices: []script.Choice{
			{Label: "Preview"},
			{Label: "Production", Description: "Deploy to the production environment.", Default: true},
		},
	}
}

// deployParams is what deploy() compiles to in session mock-session-1.
const deployParams = `{
	"sessionId": "mock-session-1",
	"mode": "form",
	"message": "Choose a deployment target",
	"requestedSchema": {
		"type": "object",
		"properties": {"choice": {
			"type": "string",
			"title": "Choice",
			"oneOf": [
				{"const": "choice_0", "title": "Preview"},
				{"const": "choice_1", "title": "Production", "description": "Deploy to the production environment.", "_meta": {"acpkit.dev/choice-description": "Deploy to the production environment."}}
			],
			"default": "choice_1"
		}},
		"required": ["choice"]
	}
}`

func elicit(e *script.Elicit) script.Step { return script.Step{Elicit: e} }
func say(text string) script.Step         { return script.Step{Say: &text} }
func endTurn(reason string) script.Step   { return script.Step{EndTurn: reason} }
func raw(b string) script.Step            { return script.Step{Raw: &b} }

// start connects a to the mock client c over an in-memory pipe, then has c
// initialize and open a session (mock-session-1).
func start(ctx context.Context, a *agent.Agent, c *client.Client) {
	GinkgoHelper()
	startOver(ctx, overPipe, a, c)
}

// startOver is start over the given link.
func startOver(ctx context.Context, link link, a *agent.Agent, c *client.Client) {
	GinkgoHelper()
	link(ctx, a, c)
	Expect(c.Initialize(ctx)).To(Succeed())
	Expect(c.NewSession(ctx)).To(Equal("mock-session-1"))
}

// link connects an agent to a client; both close when the spec ends.
type link func(ctx context.Context, a *agent.Agent, c *client.Client)

// connect connects a to c over an in-memory pipe.
func connect(a *agent.Agent, c *client.Client) { overPipe(context.Background(), a, c) }

// overPipe connects a to c over an in-memory pipe.
func overPipe(_ context.Context, a *agent.Agent, c *client.Client) {
	agentEnd, clientEnd := wire.Pipe(wire.Options{})
	a.Connect(agentEnd)
	DeferCleanup(a.Close)
	c.Connect(clientEnd)
	DeferCleanup(c.Close)
}

// overWebSocket connects a to c over a loopback WebSocket: the client's end
// is accepted by a server, the agent's dialled.
func overWebSocket(ctx context.Context, a *agent.Agent, c *client.Client) {
	GinkgoHelper()
	accepted := make(chan wire.Conn, 1)
	srv, err := wire.Listen("127.0.0.1:0", wire.DefaultPath, wire.Options{}, func(sctx context.Context, conn wire.Conn) {
		accepted <- conn
		<-sctx.Done() // the connection closes when the handler returns
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(srv.Close)
	agentEnd, err := wire.Dial(ctx, srv.URL, wire.DialOptions{})
	Expect(err).NotTo(HaveOccurred())
	var clientEnd wire.Conn
	Eventually(ctx, accepted).Should(Receive(&clientEnd))
	a.Connect(agentEnd)
	DeferCleanup(a.Close)
	c.Connect(clientEnd)
	DeferCleanup(c.Close)
}

// turn plays one prompt turn and returns its stopReason.
func turn(ctx context.Context, c *client.Client) string {
	GinkgoHelper()
	stop, err := c.Prompt(ctx, "go").Wait(ctx)
	Expect(err).NotTo(HaveOccurred())
	return stop
}

// runAsync runs agent.Run over conn in its own goroutine; its error arrives
// on the channel.
func runAsync(ctx context.Context, s *script.Script, conn wire.Conn) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- agent.Run(ctx, s, conn) }()
	return errc
}

// runError waits for the error of a Run started by runAsync.
func runError(ctx context.Context, errc <-chan error) error {
	GinkgoHelper()
	var err error
	Eventually(ctx, errc).Should(Receive(&err))
	return err
}

// sdkClient is an ACP client built on acp-go-sdk: it registers the
// elicitation/create route (UnstableCreateElicitation) and records the
// agent's message texts. The embedded acp.Client is nil: the mock agent
// calls none of its other methods.
type sdkClient struct {
	acp.Client
	answer func(acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error)

	mu    sync.Mutex
	asked []acp.UnstableCreateElicitationRequest
	texts []string
}

func (c *sdkClient) UnstableCreateElicitation(_ context.Context, req acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, req)
	c.mu.Unlock()
	return c.answer(req)
}

func (c *sdkClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	if chunk := n.Update.AgentMessageChunk; chunk != nil && chunk.Content.Text != nil {
		c.mu.Lock()
		c.texts = append(c.texts, chunk.Content.Text.Text)
		c.mu.Unlock()
	}
	return nil
}

func (c *sdkClient) Texts() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.texts...)
}

// routeless is an SDK client without the elicitation/create route: the SDK
// answers it with -32601.
type routeless struct{ acp.Client }

func (routeless) SessionUpdate(context.Context, acp.SessionNotification) error { return nil }

// asTold answers as the request's scripted-user instruction says (PROBE.md
// §2), as a client adapter in test mode does.
func asTold(req acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
	if req.Form == nil {
		return acp.UnstableCreateElicitationResponse{}, errors.New("not a form request")
	}
	user, ok := req.Form.Meta[probe.UserMetaKey].(map[string]any)
	if !ok {
		return acp.UnstableCreateElicitationResponse{}, fmt.Errorf("no %s instruction in %v", probe.UserMetaKey, req.Form.Meta)
	}
	switch user["action"] {
	case "decline":
		return acp.NewUnstableCreateElicitationResponseDecline(), nil
	case "cancel":
		return acp.NewUnstableCreateElicitationResponseCancel(), nil
	}
	choice, _ := req.Form.RequestedSchema.Properties["choice"].(map[string]any)
	var token any
	if user["pick"] == probe.PickDefault {
		token = choice["default"]
	} else {
		i, _ := user["pick"].(float64)
		options, _ := choice["oneOf"].([]any)
		if int(i) >= len(options) {
			return acp.UnstableCreateElicitationResponse{}, fmt.Errorf("no option %v in %v", user["pick"], options)
		}
		option, _ := options[int(i)].(map[string]any)
		token = option["const"]
	}
	resp := acp.NewUnstableCreateElicitationResponseAccept()
	resp.Accept.Content = map[string]any{"choice": token}
	return resp, nil
}

// sdkConnect connects an acp-go-sdk client to one end of a pipe and returns
// the connection and the other end, for the mock agent.
func sdkConnect(cl acp.Client) (*acp.ClientSideConnection, *wire.StreamConn, *wire.StreamConn) {
	agentEnd, clientEnd := wire.Pipe(wire.Options{})
	s := wire.NewSDKStream(clientEnd)
	conn := gate.NewClientSideConnection(cl, s, s, slog.New(slog.DiscardHandler))
	DeferCleanup(clientEnd.Close)
	return conn, agentEnd, clientEnd
}

var formCaps = acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}}

// sdkSession initializes with caps and opens a session.
func sdkSession(ctx context.Context, conn *acp.ClientSideConnection, caps acp.ClientCapabilities) acp.SessionId {
	GinkgoHelper()
	_, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: caps})
	Expect(err).NotTo(HaveOccurred())
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/", McpServers: []acp.McpServer{}})
	Expect(err).NotTo(HaveOccurred())
	return sess.SessionId
}

// sdkTurn plays one prompt turn and returns its stopReason.
func sdkTurn(ctx context.Context, conn *acp.ClientSideConnection, id acp.SessionId) acp.StopReason {
	GinkgoHelper()
	resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("go")}})
	Expect(err).NotTo(HaveOccurred())
	return resp.StopReason
}
