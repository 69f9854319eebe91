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

	"github.com/acpconform/acpconform/kit/probeagent"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/relay"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/reference"
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
				f.expectSent(sent, "that many reach the client through a mirror with these switches")
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
			must("starting the command relay", err)
			DeferCleanup(srv.Close)
			conn, err := wire.Dial(e.wait(ctx), srv.URL, wire.DialOptions{})
			must("dialing the command relay", err)
			f := e.attach(conn, formClient).answer(script.Accept(0))
			must("writing a notification through the command relay", f.mc.WriteRaw(ctx, []byte(`{"jsonrpc":"2.0" , "method":"_acpconform/noop","params":{"n":1.0e0,"s":"caf\u00e9 <&>"}}`)))
			must("initialize through the command relay", f.mc.Initialize(e.wait(ctx)))
			_, err = f.mc.NewSession(e.wait(ctx))
			must("session/new through the command relay", err)
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
			expectSame("the command relay changed what the client sent on its way to the command", tap.toCommand(), sent)
			expectSame("the command relay changed what the command wrote on its way to the client", tap.fromCommand(), received)
		})

		e.it("one-message-per-text-frame", "carries one message per text frame, with no newline, and refuses binary and oversized frames", remote, inProcess, rules("REM-1"), func(ctx SpecContext) {
			e.needInProcess()
			srv, err := relay.NewServer("127.0.0.1:0", relay.ReferenceAgent(), relay.Options{MaxFrame: 64 << 10})
			must("starting the server", err)
			DeferCleanup(srv.Close)
			dial := func() *websocket.Conn {
				c, _, err := websocket.Dial(e.wait(ctx), srv.URL, nil)
				must("dialing the server", err)
				DeferCleanup(func() { _ = c.CloseNow() })
				c.SetReadLimit(1 << 20)
				return c
			}
			c := dial()
			must("writing initialize in a text frame", c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)))
			typ, msg, err := c.Read(e.wait(ctx))
			must("reading the answer to initialize", err)
			assert(typ == websocket.MessageText, "the server answered initialize in a %v frame, want a text frame", typ)
			assert(!strings.HasSuffix(string(msg), "\n"), "the server ended its frame with a newline, want one message per frame without one: %q", msg)
			expectJSON("the server answered initialize other than the reference agent does", msg, json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"agentCapabilities":{"auth":{},"mcpCapabilities":{},"promptCapabilities":{},"sessionCapabilities":{}},"agentInfo":{"name":"acpconform-reference-agent","version":"1"},"authMethods":[],"protocolVersion":1}}`))

			c = dial()
			must("writing initialize in a binary frame", c.Write(ctx, websocket.MessageBinary, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)))
			_, _, err = c.Read(e.wait(ctx))
			assert(websocket.CloseStatus(err) == websocket.StatusUnsupportedData,
				"the server answered a binary frame with %s, want the close status 1003 (unsupported data)", showError(err))

			c = dial()
			must("writing a frame over the limit", c.Write(ctx, websocket.MessageText, []byte(`"`+strings.Repeat("x", 128<<10)+`"`)))
			_, _, err = c.Read(e.wait(ctx))
			assert(websocket.CloseStatus(err) == websocket.StatusMessageTooBig,
				"the server answered a frame over its limit with %s, want the close status 1009 (message too big)", showError(err))
		})

		e.it("endpoints", "serves the WebSocket at <mount>/ws, metadata at <mount> and health at /healthz", remote, inProcess, rules("REM-2"), func(ctx SpecContext) {
			e.needInProcess()
			srv, err := relay.NewServer("127.0.0.1:0", relay.ReferenceAgent(), relay.Options{})
			must("starting the server", err)
			DeferCleanup(srv.Close)
			assert(strings.HasSuffix(srv.URL, "/acp/ws"), "the server serves its WebSocket at %s, want <mount>/ws: /acp/ws", srv.URL)
			expectStatus(get(ctx, srv.Base+"/healthz", nil), http.StatusOK)
			resp := get(ctx, srv.Base+"/acp", nil)
			expectStatus(resp, http.StatusOK)
			var meta relay.Metadata
			must("decoding the metadata at /acp", json.NewDecoder(resp.Body).Decode(&meta))
			want := meta
			want.Protocol, want.WebSocket, want.Auth, want.MaxFrame = "acp", "/acp/ws", "none", wire.DefaultMaxFrame
			expectSame("the server's metadata at /acp is not what it serves", meta, want)
		})

		e.it("bearer-token", "needs the bearer token, when one is set, and answers 401 without it", remote, inProcess, rules("REM-2"), func(ctx SpecContext) {
			e.needInProcess()
			srv, err := relay.NewServer("127.0.0.1:0", relay.ReferenceAgent(), relay.Options{Token: "s3cret"})
			must("starting the server", err)
			DeferCleanup(srv.Close)
			for _, header := range []http.Header{nil, {"Authorization": {"Bearer wrong"}}, {"Authorization": {"s3cret"}}} {
				auth := header.Get("Authorization")
				_, resp, err := websocket.Dial(e.wait(ctx), srv.URL, &websocket.DialOptions{HTTPHeader: header})
				assert(err != nil, "the server took a WebSocket with the Authorization %q, want 401 without the bearer token", auth)
				assert(resp != nil, "the server refused a WebSocket with the Authorization %q without an HTTP answer (%s), want 401", auth, showError(err))
				assert(resp.StatusCode == http.StatusUnauthorized, "the server answered %d to a WebSocket with the Authorization %q, want 401", resp.StatusCode, auth)
				challenge := resp.Header.Get("WWW-Authenticate")
				assert(strings.HasPrefix(challenge, "Bearer"), "the server's 401 carries WWW-Authenticate %q, want a Bearer challenge", challenge)
			}
			conn, err := wire.Dial(e.wait(ctx), srv.URL, wire.DialOptions{Header: http.Header{"Authorization": {"Bearer s3cret"}}})
			must("dialing with the bearer token", err)
			f := e.attach(conn, formClient)
			must("initialize with the bearer token", f.mc.Initialize(e.wait(ctx)))
		})

		e.it("server-gone-ends-pending-choice", "ends a pending choice with a connection error when the server goes away", remote, inProcess, rules("RTE-7", "REM-1"), expectsError, func(ctx SpecContext) {
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
			must("starting the server", err)
			DeferCleanup(srv.Close)
			conn, err := wire.Dial(e.wait(ctx), srv.URL, wire.DialOptions{})
			must("dialing the server", err)
			f := e.attach(conn, formClient).answer(script.Never())
			must("initialize", f.mc.Initialize(e.wait(ctx)))
			s, ok := receive(ctx, e.response, sessions)
			assert(ok, "the server started no session within %s of the connection", e.response)
			s.ClientCapabilities = acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}}
			done := make(chan error, 1)
			go func() {
				_, err := reference.AskChoice(context.WithoutCancel(ctx), s, "Pick", []reference.Choice[string]{{Value: "a", Label: "A"}})
				done <- err
			}()
			must("waiting for the elicitation/create", f.mc.WaitElicitations(e.wait(ctx), 1))
			By("closing the server while the choice is pending")
			must("closing the server", srv.Close())
			err, ok = receive(ctx, e.response, done)
			assert(ok, "AskChoice did not return within %s of the server going away", e.response)
			expectError("AskChoice returned %s when the server went away, want the connection error %s", err, reference.ErrConnectionClosed)
		})
	})
}

// throughMirror serves agent over a loopback WebSocket and puts a mirror
// with opts between it and a mock client on an in-memory stream.
func (e *env) throughMirror(ctx context.Context, agent relay.Agent, opts relay.MirrorOptions) *fixture {
	GinkgoHelper()
	srv, err := relay.NewServer("127.0.0.1:0", agent, relay.Options{})
	must("starting the server behind the mirror", err)
	DeferCleanup(srv.Close)
	mine, mirrorEnd := wire.Pipe(wire.Options{})
	mirrored := make(chan error, 1)
	go func() { mirrored <- relay.Mirror(context.WithoutCancel(ctx), srv.URL, mirrorEnd, opts) }()
	DeferCleanup(func() { mine.Close(); <-mirrored })
	f := e.attach(mine, formClient)
	must("initialize through the mirror", f.mc.Initialize(e.wait(ctx)))
	f.session, err = f.mc.NewSession(e.wait(ctx))
	must("session/new through the mirror", err)
	return f
}

// attach puts a mock client on conn, with the usual clean-up and reports.
func (e *env) attach(conn wire.Conn, cfg client.Config) *fixture {
	f := &fixture{e: e, mc: client.New(cfg)}
	f.mc.Connect(conn)
	DeferCleanup(func() {
		f.mc.Close()
		if CurrentSpecReport().Failed() {
			AddReportEntry(reports.EntryTranscript, reports.Transcript{Attempt: CurrentSpecReport().NumAttempts, Text: f.mc.Transcript().String()}, ReportEntryVisibilityFailureOrVerbose)
		}
	})
	DeferCleanup(f.expectNoViolations)
	return f
}

// expectStatus fails the spec unless resp has the status want.
func expectStatus(resp *http.Response, want int) {
	GinkgoHelper()
	assert(resp.StatusCode == want, "GET %s answered %s, want %d %s", resp.Request.URL.Path, resp.Status, want, http.StatusText(want))
}

func get(ctx context.Context, url string, header http.Header) *http.Response {
	GinkgoHelper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	must("GET "+url, err)
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	must("GET "+url, err)
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
