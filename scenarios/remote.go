package scenarios

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"
	"github.com/coder/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/relay"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/reference"
	"github.com/acpconform/acpconform/reference/probeagent"
	"github.com/acpconform/acpconform/reports"
)

// remote labels the checks over real loopback WebSockets.
var remote = Label("remote")

// remote: the reference's remote transport (RTE-5, RTE-6, RTE-7, REM-1..3):
// relay.Server serving the reference agent, the command relay, and the
// mirror with and without its opt-in, all over loopback WebSockets.
func (e *env) remote() {
	Describe("REM: the remote transport, over loopback WebSockets", func() {
		DescribeTable("a mirror relays ask_choice as its switches say",
			func(ctx SpecContext, opts relay.MirrorOptions, answers []script.Answer, want probe.Outcome, sent int) {
				e.needInProcess()
				f := e.throughMirror(ctx, relay.ReferenceAgent(), opts)
				f.answer(answers...)
				Expect(f.probe(ctx, withFallback(deploy(), declinedFallback, 0))).To(BeOutcome(want))
				Expect(f.sent()).To(HaveLen(sent), "elicitations that reached the client")
			},
			e.entry("without the opt-in, the agent sees -32601 and runs no fallback", slug("mirror-without-opt-in"), remote, inProcess, rules("RTE-5", "REM-3", "RTE-1"),
				relay.MirrorOptions{}, nil, requestError(-32601, map[string]string{"method": "elicitation/create"}), 0),
			e.entry("with the opt-in, the choice reaches the client and the answer comes back", slug("mirror-with-opt-in"), remote, inProcess, rules("RTE-5", "REM-3"),
				relay.MirrorOptions{UnstableProtocol: true}, []script.Answer{script.Accept(1)}, accepted(1, "production"), 1),
			// The fallback declines: the agent took the unsupported path.
			e.entry("rebuilding the capabilities, it turns every ask_choice into the unsupported path", slug("mirror-rebuilding-capabilities"), remote, inProcess, rules("RTE-5"),
				relay.MirrorOptions{UnstableProtocol: true, RebuildCapabilities: true}, nil, declined, 0),
		)

		e.it("command-relay-byte-for-byte", "a command relay transports frames unchanged, byte for byte", remote, inProcess, rules("RTE-6"), func(ctx SpecContext) {
			e.needInProcess()
			tap := &stdioTap{}
			srv, err := relay.NewServer("127.0.0.1:0", relay.RelayTo(tap.start, slog.New(slog.DiscardHandler)), relay.Options{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(srv.Close)
			conn, err := wire.Dial(e.wait(ctx), srv.URL, wire.DialOptions{})
			Expect(err).NotTo(HaveOccurred())
			f := e.attach(conn, formClient).answer(script.Accept(0))
			Expect(f.mc.WriteRaw(ctx, []byte(`{"jsonrpc":"2.0" , "method":"_acpconform/noop","params":{"n":1.0e0,"s":"caf\u00e9 <&>"}}`))).To(Succeed())
			Expect(f.mc.Initialize(e.wait(ctx))).To(Succeed())
			_, err = f.mc.NewSession(e.wait(ctx))
			Expect(err).NotTo(HaveOccurred())
			Expect(f.probe(ctx, deploy())).To(BeOutcome(accepted(0, "preview")))
			var sent, received []string
			for _, entry := range f.mc.Transcript().Entries() {
				switch {
				case entry.Data == nil:
				case entry.Dir == wire.Sent:
					sent = append(sent, string(entry.Data))
				case entry.Dir == wire.Received:
					received = append(received, string(entry.Data))
				}
			}
			Expect(tap.toCommand()).To(Equal(sent), "what the command read is what the client sent")
			Expect(tap.fromCommand()).To(Equal(received), "what the client read is what the command wrote")
		})

		e.it("one-message-per-text-frame", "carries one message per text frame, with no newline, and refuses binary and oversized frames", remote, inProcess, rules("REM-1"), func(ctx SpecContext) {
			e.needInProcess()
			srv, err := relay.NewServer("127.0.0.1:0", relay.ReferenceAgent(), relay.Options{MaxFrame: 64 << 10})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(srv.Close)
			dial := func() *websocket.Conn {
				c, _, err := websocket.Dial(e.wait(ctx), srv.URL, nil)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func() { _ = c.CloseNow() })
				c.SetReadLimit(1 << 20)
				return c
			}
			c := dial()
			Expect(c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`))).To(Succeed())
			typ, msg, err := c.Read(e.wait(ctx))
			Expect(err).NotTo(HaveOccurred())
			Expect(typ).To(Equal(websocket.MessageText))
			Expect(string(msg)).NotTo(HaveSuffix("\n"))
			Expect(msg).To(MatchJSON(`{"jsonrpc":"2.0","id":1,"result":{"agentCapabilities":{"auth":{},"mcpCapabilities":{},"promptCapabilities":{},"sessionCapabilities":{}},"agentInfo":{"name":"acpconform-reference-agent","version":"1"},"authMethods":[],"protocolVersion":1}}`))

			c = dial()
			Expect(c.Write(ctx, websocket.MessageBinary, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`))).To(Succeed())
			_, _, err = c.Read(e.wait(ctx))
			Expect(websocket.CloseStatus(err)).To(Equal(websocket.StatusUnsupportedData), "a binary frame is refused: %v", err)

			c = dial()
			Expect(c.Write(ctx, websocket.MessageText, []byte(`"`+strings.Repeat("x", 128<<10)+`"`))).To(Succeed())
			_, _, err = c.Read(e.wait(ctx))
			Expect(websocket.CloseStatus(err)).To(Equal(websocket.StatusMessageTooBig), "a frame over the limit is refused: %v", err)
		})

		e.it("endpoints", "serves the WebSocket at <mount>/ws, metadata at <mount> and health at /healthz", remote, inProcess, rules("REM-2"), func(ctx SpecContext) {
			e.needInProcess()
			srv, err := relay.NewServer("127.0.0.1:0", relay.ReferenceAgent(), relay.Options{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(srv.Close)
			Expect(srv.URL).To(HaveSuffix("/acp/ws"))
			Expect(get(ctx, srv.Base+"/healthz", nil)).To(HaveField("StatusCode", http.StatusOK))
			resp := get(ctx, srv.Base+"/acp", nil)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			var meta relay.Metadata
			Expect(json.NewDecoder(resp.Body).Decode(&meta)).To(Succeed())
			Expect(meta).To(And(HaveField("Protocol", "acp"), HaveField("WebSocket", "/acp/ws"), HaveField("Auth", "none"), HaveField("MaxFrame", wire.DefaultMaxFrame)))
		})

		e.it("bearer-token", "needs the bearer token, when one is set, and answers 401 without it", remote, inProcess, rules("REM-2"), func(ctx SpecContext) {
			e.needInProcess()
			srv, err := relay.NewServer("127.0.0.1:0", relay.ReferenceAgent(), relay.Options{Token: "s3cret"})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(srv.Close)
			for _, header := range []http.Header{nil, {"Authorization": {"Bearer wrong"}}, {"Authorization": {"s3cret"}}} {
				_, resp, err := websocket.Dial(e.wait(ctx), srv.URL, &websocket.DialOptions{HTTPHeader: header})
				Expect(err).To(HaveOccurred(), "header %v", header)
				Expect(resp).NotTo(BeNil())
				Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
				Expect(resp.Header.Get("WWW-Authenticate")).To(HavePrefix("Bearer"))
			}
			conn, err := wire.Dial(e.wait(ctx), srv.URL, wire.DialOptions{Header: http.Header{"Authorization": {"Bearer s3cret"}}})
			Expect(err).NotTo(HaveOccurred())
			f := e.attach(conn, formClient)
			Expect(f.mc.Initialize(e.wait(ctx))).To(Succeed())
		})

		e.it("server-gone-ends-pending-choice", "ends a pending choice with a connection error when the server goes away", remote, inProcess, rules("RTE-7", "REM-1"), func(ctx SpecContext) {
			e.needInProcess()
			sessions := make(chan *reference.Session, 1)
			srv, err := relay.NewServer("127.0.0.1:0", func(sctx context.Context, conn wire.Conn) {
				s := wire.NewSDKStream(conn)
				agentConn := reference.NewUnstartedAgentConnection(initializeOnly{}, s, s)
				agentConn.SetLogger(slog.New(slog.DiscardHandler))
				agentConn.Start()
				sessions <- agentConn.Session("remote-session")
				select {
				case <-agentConn.Done():
				case <-sctx.Done():
				}
			}, relay.Options{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(srv.Close)
			conn, err := wire.Dial(e.wait(ctx), srv.URL, wire.DialOptions{})
			Expect(err).NotTo(HaveOccurred())
			f := e.attach(conn, formClient).answer(script.Never())
			Expect(f.mc.Initialize(e.wait(ctx))).To(Succeed())
			var s *reference.Session
			Eventually(ctx, sessions).Should(Receive(&s))
			s.ClientCapabilities = acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}}
			done := make(chan error, 1)
			go func() {
				_, err := reference.AskChoice(context.WithoutCancel(ctx), s, "Pick", []reference.Choice[string]{{Value: "a", Label: "A"}})
				done <- err
			}()
			Expect(f.mc.WaitElicitations(e.wait(ctx), 1)).To(Succeed())
			By("closing the server while the choice is pending")
			Expect(srv.Close()).To(Succeed())
			Eventually(ctx, done).WithTimeout(e.response).Should(Receive(MatchError(reference.ErrConnectionClosed)))
		})
	})
}

// throughMirror serves agent over a loopback WebSocket and puts a mirror
// with opts between it and a mock client on an in-memory stream.
func (e *env) throughMirror(ctx context.Context, agent relay.Agent, opts relay.MirrorOptions) *fixture {
	GinkgoHelper()
	srv, err := relay.NewServer("127.0.0.1:0", agent, relay.Options{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(srv.Close)
	mine, mirrorEnd := wire.Pipe(wire.Options{})
	mirrored := make(chan error, 1)
	go func() { mirrored <- relay.Mirror(context.WithoutCancel(ctx), srv.URL, mirrorEnd, opts) }()
	DeferCleanup(func() { mine.Close(); <-mirrored })
	f := e.attach(mine, formClient)
	Expect(f.mc.Initialize(e.wait(ctx))).To(Succeed(), "initialize through the mirror")
	f.session, err = f.mc.NewSession(e.wait(ctx))
	Expect(err).NotTo(HaveOccurred(), "session/new through the mirror")
	return f
}

// attach puts a mock client on conn, with the usual clean-up and reports.
func (e *env) attach(conn wire.Conn, cfg client.Config) *fixture {
	f := &fixture{e: e, mc: client.New(cfg)}
	f.mc.Connect(conn)
	DeferCleanup(func() {
		f.mc.Close()
		if CurrentSpecReport().Failed() {
			AddReportEntry(reports.EntryTranscript, f.mc.Transcript().String(), ReportEntryVisibilityFailureOrVerbose)
		}
	})
	DeferCleanup(func() { Expect(f.mc.Violations()).To(BeEmpty(), "what the subject did unscripted") })
	return f
}

func get(ctx context.Context, url string, header http.Header) *http.Response {
	GinkgoHelper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	Expect(err).NotTo(HaveOccurred())
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(resp.Body.Close)
	return resp
}

// stdioTap stands in for a command behind the command relay: the reference
// probe agent on pipes, with every line it reads and writes recorded.
type stdioTap struct {
	mu      sync.Mutex
	in, out []string
}

func (t *stdioTap) start() (relay.Stdio, error) {
	stdinR, stdinW := io.Pipe() // the relay writes the command's stdin
	agentInR, agentInW := io.Pipe()
	agentOutR, agentOutW := io.Pipe()
	stdoutR, stdoutW := io.Pipe() // the relay reads the command's stdout
	agent := probeagent.Serve(agentOutW, agentInR, slog.New(slog.DiscardHandler))
	go t.copyLines(stdinR, agentInW, &t.in)
	go t.copyLines(agentOutR, stdoutW, &t.out)
	return tapStdio{stdin: stdinW, stdout: stdoutR, stop: func() {
		stdinW.Close()
		agentOutW.Close()
		<-agent.Done()
	}}, nil
}

// copyLines copies src to dst a line at a time, recording each line.
func (t *stdioTap) copyLines(src io.Reader, dst io.WriteCloser, record *[]string) {
	defer dst.Close()
	lines := bufio.NewReader(src)
	for {
		line, err := lines.ReadBytes('\n')
		if text := strings.TrimSuffix(string(line), "\n"); text != "" {
			t.mu.Lock()
			*record = append(*record, text)
			t.mu.Unlock()
		}
		if len(line) > 0 {
			if _, werr := dst.Write(line); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (t *stdioTap) toCommand() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.in...)
}

func (t *stdioTap) fromCommand() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.out...)
}

type tapStdio struct {
	stdin  io.WriteCloser
	stdout io.Reader
	stop   func()
}

func (s tapStdio) Stdin() io.WriteCloser { return s.stdin }
func (s tapStdio) Stdout() io.Reader     { return s.stdout }
func (s tapStdio) Stop() error           { s.stop(); return nil }
