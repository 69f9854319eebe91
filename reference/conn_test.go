package reference_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"

	acp "github.com/coder/acp-go-sdk"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/reference"
)

// askingAgent asks the deploy question in every prompt turn and reports the
// error AskChoice returned.
type askingAgent struct {
	stubAgent
	conn   *reference.AgentConnection
	errors chan error
}

func (a *askingAgent) NewSession(context.Context, acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	return acp.NewSessionResponse{SessionId: "sess-1"}, nil
}

func (a *askingAgent) Cancel(context.Context, acp.CancelNotification) error { return nil }

func (a *askingAgent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	_, err := reference.AskChoice(ctx, a.conn.Session(p.SessionId), "Choose", deployChoices())
	a.errors <- err
	if ctx.Err() != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func (a *askingAgent) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	return map[string]any{"method": method, "params": params}, nil
}

// newAskingClient connects a fake client to an askingAgent.
func newAskingClient() (*fakeClient, *askingAgent) {
	agentIn, toAgent := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	a := &askingAgent{errors: make(chan error, 1)}
	c := &fakeClient{toAgent: toAgent, fromAgent: fromAgent, frames: make(chan frame, 64)}
	a.conn = reference.NewUnstartedAgentConnection(a, agentOut, agentIn)
	a.conn.SetLogger(slog.New(slog.DiscardHandler))
	a.conn.Start()
	c.conn = a.conn
	go c.read(fromAgent)
	DeferCleanup(func() {
		toAgent.Close()
		fromAgent.Close()
	})
	return c, a
}

var _ = Describe("AgentConnection", func() {
	It("ends the prompt turn's pending choice on session/cancel and tells the client (RTE-7)", within, func(ctx SpecContext) {
		c, a := newAskingClient()
		c.initialize(ctx, formCaps)
		Expect(c.call(ctx, "session/new", `{"cwd":"/","mcpServers":[]}`).Error).To(BeEmpty())
		c.send(`{"jsonrpc":"2.0","id":"prompt","method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"go"}]}}`)
		req := c.nextRequest(ctx)
		Expect(req.Method).To(Equal("elicitation/create"))
		c.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"sess-1"}}`)

		var err error
		Eventually(ctx, a.errors).Should(Receive(&err))
		Expect(err).To(MatchError(context.Canceled))
		// The notice and the prompt's answer may come in either order.
		var notice, resp frame
		for notice.Method == "" || resp.ID == nil {
			if f := c.next(ctx); f.Method != "" {
				notice = f
			} else {
				resp = f
			}
		}
		Expect(notice.Method).To(Equal("$/cancel_request"))
		Expect(notice.Params).To(MatchJSON(`{"requestId":` + string(req.ID) + `}`))
		Expect(resp.ID).To(MatchJSON(`"prompt"`))
		Expect(resp.Result).To(MatchJSON(`{"stopReason":"cancelled"}`))
	})

	It("answers -32601 for methods the agent does not implement", within, func(ctx SpecContext) {
		c := newFakeClient()
		resp := c.call(ctx, "session/load", `{"sessionId":"s","cwd":"/","mcpServers":[]}`)
		Expect(resp.Error).To(MatchJSON(`{"code":-32601,"message":"Method not found","data":{"method":"session/load"}}`))
		resp = c.call(ctx, "nes/start", `{}`)
		Expect(resp.Error).To(MatchJSON(`{"code":-32601,"message":"Method not found","data":{"method":"nes/start"}}`))
	})

	It("answers -32602 for params that do not decode", within, func(ctx SpecContext) {
		c := newFakeClient()
		resp := c.call(ctx, "initialize", `{"protocolVersion":"one"}`)
		Expect(string(resp.Error)).To(ContainSubstring(`"code":-32602`))
	})

	It("hands extension methods to an agent that implements them", within, func(ctx SpecContext) {
		c, _ := newAskingClient()
		resp := c.call(ctx, "_vendor/ping", `{"n":1}`)
		Expect(resp.Result).To(MatchJSON(`{"method":"_vendor/ping","params":{"n":1}}`))
	})

	It("keeps the capabilities of its own initialize", within, func(ctx SpecContext) {
		c := newFakeClient()
		Expect(c.conn.ClientCapabilities().Elicitation).To(BeNil(), "nothing before initialize")
		c.initialize(ctx, `{"elicitation":{"form":{},"url":{}}}`)
		Expect(c.conn.ClientCapabilities().Elicitation.Url).NotTo(BeNil())
		Expect(c.session().ID).To(Equal(acp.SessionId("sess-1")))
	})

	It("reads an elicitation mode that is no object as absent, and keeps the rest (CAP-1)", within, func(ctx SpecContext) {
		c := newFakeClient()
		c.initialize(ctx, `{"fs":{"readTextFile":true},"elicitation":{"form":false,"url":{},"_meta":{"x":1}}}`)
		caps := c.conn.ClientCapabilities()
		Expect(caps.Fs.ReadTextFile).To(BeTrue())
		Expect(caps.Elicitation.Form).To(BeNil())
		Expect(caps.Elicitation.Url).NotTo(BeNil())
		Expect(caps.Elicitation.Meta).To(HaveKey("x"))
	})

	// ACP's SDKs match member names exactly; the SDK's typed decoding,
	// with encoding/json, would read each of these as form support.
	DescribeTable("reads a capability whose name differs by case as absent (CAP-1)",
		func(ctx SpecContext, params string) {
			c := newFakeClient()
			resp := c.call(ctx, "initialize", params)
			Expect(resp.Error).To(BeEmpty(), "initialize failed: %s", resp.Raw)
			Expect(c.session().SupportsElicitation(reference.ModeForm)).To(BeFalse())
			Expect(c.session().SupportsElicitation(reference.ModeURL)).To(BeTrue())
		},
		Entry("Form", within, `{"protocolVersion":1,"clientCapabilities":{"elicitation":{"Form":{},"url":{}}}}`),
		Entry("Elicitation", within, `{"protocolVersion":1,"clientCapabilities":{"elicitation":{"url":{}},"Elicitation":{"form":{}}}}`),
		Entry("ClientCapabilities", within, `{"protocolVersion":1,"clientCapabilities":{"elicitation":{"url":{}}},"ClientCapabilities":{"elicitation":{"form":{}}}}`),
	)
})
