package probeagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os/exec"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/acpconform/acpconform/kit/probeagent"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/probe/schema"
)

func TestProbeAgent(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Probe agent")
}

// within bounds every spec against a hang: a hang fails the spec instead
// of the run. It is no speed limit: a spec that loops hundreds of times
// takes many times longer on a loaded 2-core machine.
var within = SpecTimeout(2 * time.Minute)

// binary is the acpconform command, built once for the process specs.
var binary string

var _ = SynchronizedBeforeSuite(func() []byte {
	path, err := gexec.Build("github.com/acpconform/acpconform/cmd/acpconform")
	Expect(err).NotTo(HaveOccurred())
	return []byte(path)
}, func(path []byte) {
	binary = string(path)
})

var _ = SynchronizedAfterSuite(func() {}, gexec.CleanupBuildArtifacts)

// elicitingClient is an ACP client (acp-go-sdk) with the elicitation route
// registered; answer decides every answer.
type elicitingClient struct {
	routelessClient
	answer func(acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error)
}

func (c *elicitingClient) UnstableCreateElicitation(_ context.Context, p acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
	return c.answer(p)
}

// routelessClient has no elicitation route: the SDK answers -32601.
type routelessClient struct {
	acp.Client // methods the probe never calls
	texts      chan string
}

func (c *routelessClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	if chunk := n.Update.AgentMessageChunk; chunk != nil && chunk.Content.Text != nil {
		c.texts <- chunk.Content.Text.Text
	}
	return nil
}

// connect starts a probe agent, in-process or as a process, and returns the
// streams to talk to it.
type connect func(ctx context.Context) (toAgent io.WriteCloser, fromAgent io.Reader)

func inProcess(context.Context) (io.WriteCloser, io.Reader) {
	agentIn, toAgent := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	probeagent.Serve(agentOut, agentIn, slog.New(slog.DiscardHandler))
	DeferCleanup(toAgent.Close)
	return toAgent, fromAgent
}

func asProcess(context.Context) (io.WriteCloser, io.Reader) {
	cmd := exec.Command(binary, "reference-agent")
	cmd.Stderr = GinkgoWriter
	stdin, err := cmd.StdinPipe()
	Expect(err).NotTo(HaveOccurred())
	stdout, err := cmd.StdoutPipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(cmd.Start()).To(Succeed())
	DeferCleanup(func() { _ = cmd.Process.Kill() }) // cleanups run last first: after a failed wait, leave no process behind
	exited := make(chan error, 1)
	DeferCleanup(func() {
		stdin.Close()
		go func() { exited <- cmd.Wait() }()
		Eventually(exited).WithTimeout(10*time.Second).Should(Receive(BeNil()), "the agent exits 0 when its stdin ends")
	})
	return stdin, stdout
}

// probeCase is one probe request with the client's capabilities and answers.
type probeCase struct {
	caps      *acp.ElicitationCapabilities // nil: no elicitation capability
	routeless bool
	answer    string // the elicitation answer as JSON; "" when none is expected
	request   string // the prompt text
	want      probe.Outcome
}

var deploy = `"question":"Choose a deployment target","choices":[
	{"value":"preview","label":"Preview"},
	{"value":{"env":"production","replicas":3},"label":"Production","description":"Deploy to the production environment.","default":true},
	{"value":null,"label":"Nothing"}]`

func request(extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return `{"acpconform":1,"op":"ask_choice",` + deploy + extra + `}`
}

var form = &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}

func index(i int) *int { return &i }
func code(c int) *int  { return &c }

// runProbe initializes, opens a session, sends the probe request and returns
// the outcome the agent reported.
func runProbe(ctx context.Context, start connect, pc probeCase) probe.Outcome {
	GinkgoHelper()
	toAgent, fromAgent := start(ctx)
	texts := make(chan string, 4)
	var client acp.Client = &routelessClient{texts: texts}
	if !pc.routeless {
		client = &elicitingClient{routelessClient: routelessClient{texts: texts}, answer: func(p acp.UnstableCreateElicitationRequest) (acp.UnstableCreateElicitationResponse, error) {
			var resp acp.UnstableCreateElicitationResponse
			if pc.answer == "" {
				return resp, errors.New("no elicitation was expected")
			}
			return resp, json.Unmarshal([]byte(pc.answer), &resp)
		}}
	}
	conn := acp.NewClientSideConnection(client, toAgent, fromAgent)
	_, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: acp.ClientCapabilities{Elicitation: pc.caps}})
	Expect(err).NotTo(HaveOccurred())
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/", McpServers: []acp.McpServer{}})
	Expect(err).NotTo(HaveOccurred())
	resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock(pc.request)}})
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.StopReason).To(Equal(acp.StopReasonEndTurn))
	var text string
	Expect(texts).To(Receive(&text), "the outcome is reported before the prompt ends")
	out, err := schema.ParseOutcome(text)
	Expect(err).NotTo(HaveOccurred())
	return out
}

func probeTable(start connect) {
	DescribeTable("reports the outcome of each probe request",
		func(ctx SpecContext, pc probeCase) {
			got := runProbe(ctx, start, pc)
			pc.want.Acpconform = probe.Version
			if got.Message != "" && pc.want.Message == "" {
				pc.want.Message = got.Message // messages are for people; their presence is enough
			}
			Expect(got).To(Equal(pc.want))
		},
		Entry("accepted by token", within, probeCase{caps: form, answer: `{"action":"accept","content":{"choice":"choice_1"}}`, request: request(""),
			want: probe.Outcome{Outcome: "accepted", Index: index(1), Value: json.RawMessage(`{"env":"production","replicas":3}`)}}),
		Entry("accepted null", within, probeCase{caps: form, answer: `{"action":"accept","content":{"choice":"choice_2"}}`, request: request(""),
			want: probe.Outcome{Outcome: "accepted", Index: index(2), Value: json.RawMessage(`null`)}}),
		Entry("declined", within, probeCase{caps: form, answer: `{"action":"decline"}`, request: request(""),
			want: probe.Outcome{Outcome: "declined"}}),
		Entry("cancelled", within, probeCase{caps: form, answer: `{"action":"cancel"}`, request: request(""),
			want: probe.Outcome{Outcome: "cancelled"}}),
		Entry("invalid response", within, probeCase{caps: form, answer: `{"action":"accept","content":{"choice":"Production"}}`, request: request(""),
			want: probe.Outcome{Outcome: "error", Error: "invalid_response"}}),
		Entry("route missing", within, probeCase{caps: form, routeless: true, request: request(`"fallback":{"kind":"declined"}`),
			want: probe.Outcome{Outcome: "error", Error: "request_error", Code: code(-32601), Message: "Method not found", Data: json.RawMessage(`{"method":"elicitation/create"}`)}}),
		Entry("unsupported", within, probeCase{request: request(""),
			want: probe.Outcome{Outcome: "error", Error: "unsupported"}}),
		Entry("fallback declined", within, probeCase{request: request(`"fallback":{"kind":"declined"}`),
			want: probe.Outcome{Outcome: "declined"}}),
		Entry("fallback cancelled after a delay", within, probeCase{request: request(`"fallback":{"kind":"cancelled"},"fallbackDelayMs":20`),
			want: probe.Outcome{Outcome: "cancelled"}}),
		Entry("fallback accepted, matched as JSON", within, probeCase{request: request(`"fallback":{"kind":"accepted","value":{"replicas":3.0,"env":"production"}}`),
			want: probe.Outcome{Outcome: "accepted", Index: index(1), Value: json.RawMessage(`{"env":"production","replicas":3}`)}}),
		Entry("fallback accepted, not offered", within, probeCase{request: request(`"fallback":{"kind":"accepted","value":"staging"}`),
			want: probe.Outcome{Outcome: "error", Error: "invalid_fallback"}}),
		Entry("fallback error", within, probeCase{request: request(`"fallback":{"kind":"error","message":"policy says no"}`),
			want: probe.Outcome{Outcome: "error", Error: "fallback_error", Message: "policy says no"}}),
		Entry("plain-value fallback", within, probeCase{request: request(`"fallback":{"kind":"plain","value":"preview"}`),
			want: probe.Outcome{Outcome: "accepted", Index: index(0), Value: json.RawMessage(`"preview"`), Warnings: []string{"plain-value-fallback"}}}),
		Entry("plain-value fallback of null", within, probeCase{request: request(`"fallback":{"kind":"plain","value":null}`),
			want: probe.Outcome{Outcome: "accepted", Index: index(2), Value: json.RawMessage(`null`), Warnings: []string{"plain-value-fallback"}}}),
		Entry("plain-value fallback, not offered", within, probeCase{request: request(`"fallback":{"kind":"plain","value":"staging"}`),
			want: probe.Outcome{Outcome: "error", Error: "invalid_fallback", Warnings: []string{"plain-value-fallback"}}}),
		Entry("invalid argument", within, probeCase{caps: form, request: `{"acpconform":1,"op":"ask_choice","question":" ","choices":[{"value":1,"label":"One"}]}`,
			want: probe.Outcome{Outcome: "error", Error: "invalid_argument", Message: "question must not be blank"}}),
	)

	It("refuses a prompt that is not a probe request with -32602", within, func(ctx SpecContext) {
		toAgent, fromAgent := start(ctx)
		conn := acp.NewClientSideConnection(&routelessClient{texts: make(chan string, 1)}, toAgent, fromAgent)
		_, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
		Expect(err).NotTo(HaveOccurred())
		sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/", McpServers: []acp.McpServer{}})
		Expect(err).NotTo(HaveOccurred())
		_, err = conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("hello")}})
		var reqErr *acp.RequestError
		Expect(errors.As(err, &reqErr)).To(BeTrue())
		Expect(reqErr.Code).To(Equal(-32602))
		Expect(reqErr.Error()).To(ContainSubstring("not an acpconform probe request"))
	})
}

var _ = Describe("The probe agent in-process", func() { probeTable(inProcess) })

var _ = Describe("The probe agent as a process over stdio", func() { probeTable(asProcess) })
