package reference_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/reference"
)

// frame is one JSON-RPC message the agent sent, as it was on the wire.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	Raw    string          `json:"-"`
}

// fakeClient plays the client against a reference.AgentConnection, one raw
// frame at a time, so specs can answer anything at all. It is deliberately
// small; the full scriptable client lives in mocks/client.
type fakeClient struct {
	conn      *reference.AgentConnection
	toAgent   *io.PipeWriter
	fromAgent *io.PipeReader
	frames    chan frame // every frame the agent sends, in order
	nextID    atomic.Int64

	mu   sync.Mutex
	sent []frame // every frame read so far
}

// stubAgent answers initialize; the specs need nothing else of an agent.
type stubAgent struct{ acp.Agent }

func (stubAgent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber}, nil
}

// newFakeClient connects a fake client to a fresh AgentConnection; the
// connection closes when the spec ends.
func newFakeClient() *fakeClient {
	agentIn, toAgent := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	c := &fakeClient{toAgent: toAgent, fromAgent: fromAgent, frames: make(chan frame, 64)}
	c.conn = reference.NewUnstartedAgentConnection(stubAgent{}, agentOut, agentIn)
	c.conn.SetLogger(slog.New(slog.DiscardHandler))
	c.conn.Start()
	go c.read(fromAgent)
	DeferCleanup(func() {
		toAgent.Close()
		fromAgent.Close()
	})
	return c
}

func (c *fakeClient) read(r io.Reader) {
	defer close(c.frames)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var f frame
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			f.Method = "<malformed>"
		}
		f.Raw = sc.Text()
		c.mu.Lock()
		c.sent = append(c.sent, f)
		c.mu.Unlock()
		c.frames <- f
	}
}

// send writes one raw frame to the agent.
func (c *fakeClient) send(format string, args ...any) {
	GinkgoHelper()
	_, err := fmt.Fprintf(c.toAgent, format+"\n", args...)
	Expect(err).NotTo(HaveOccurred())
}

// next returns the next frame the agent sends.
func (c *fakeClient) next(ctx context.Context) frame {
	GinkgoHelper()
	select {
	case f, ok := <-c.frames:
		Expect(ok).To(BeTrue(), "the agent closed the connection")
		return f
	case <-ctx.Done():
		Fail("no frame from the agent before the spec's deadline")
	}
	return frame{}
}

// nextRequest returns the next request the agent sends.
func (c *fakeClient) nextRequest(ctx context.Context) frame {
	GinkgoHelper()
	for {
		if f := c.next(ctx); f.Method != "" {
			return f
		}
	}
}

// call sends a request to the agent and returns its response.
func (c *fakeClient) call(ctx context.Context, method, params string) frame {
	GinkgoHelper()
	id := fmt.Sprintf(`"fake-%d"`, c.nextID.Add(1))
	c.send(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params)
	for {
		if f := c.next(ctx); f.Method == "" && string(f.ID) == id {
			return f
		}
	}
}

// initialize sends initialize with the given clientCapabilities JSON ("" for
// none at all) and waits for the answer.
func (c *fakeClient) initialize(ctx context.Context, caps string) {
	GinkgoHelper()
	params := `{"protocolVersion":1}`
	if caps != "" {
		params = fmt.Sprintf(`{"protocolVersion":1,"clientCapabilities":%s}`, caps)
	}
	resp := c.call(ctx, "initialize", params)
	Expect(resp.Error).To(BeEmpty(), "initialize failed: %s", resp.Raw)
}

// session returns a session on this connection with id "sess-1".
func (c *fakeClient) session() *reference.Session { return c.conn.Session("sess-1") }

// answer sends a result for request id.
func (c *fakeClient) answer(req frame, result string) {
	GinkgoHelper()
	c.send(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
}

// fail sends a JSON-RPC error for request id.
func (c *fakeClient) fail(req frame, errObj string) {
	GinkgoHelper()
	c.send(`{"jsonrpc":"2.0","id":%s,"error":%s}`, req.ID, errObj)
}

// disconnect closes the client's side of the connection.
func (c *fakeClient) disconnect() { c.toAgent.Close() }

// stopReading closes the agent's output: its writes fail from now on.
func (c *fakeClient) stopReading() { c.fromAgent.Close() }

// requests syncs with the agent and returns the methods of every request or
// notification it has sent so far. The sync is a round trip: the agent
// writes frames in order, so anything sent before the round trip is seen.
func (c *fakeClient) requests(ctx context.Context) []string {
	GinkgoHelper()
	resp := c.call(ctx, "_acpconform/sync", "{}")
	Expect(string(resp.Error)).To(ContainSubstring("-32601"))
	c.mu.Lock()
	defer c.mu.Unlock()
	var methods []string
	for _, f := range c.sent {
		if f.Method != "" {
			methods = append(methods, f.Method)
		}
	}
	return methods
}

// outcome is what AskChoice returned.
type outcome[T any] struct {
	res reference.Result[T]
	err error
}

// ask runs AskChoice in the background and delivers its outcome.
func ask[T any](ctx context.Context, s *reference.Session, question string, choices []reference.Choice[T], opts ...reference.Option[T]) <-chan outcome[T] {
	out := make(chan outcome[T], 1)
	go func() {
		res, err := reference.AskChoice(ctx, s, question, choices, opts...)
		out <- outcome[T]{res, err}
	}()
	return out
}

// await waits for an outcome within the spec's deadline.
func await[T any](ctx context.Context, ch <-chan outcome[T]) (reference.Result[T], error) {
	GinkgoHelper()
	select {
	case o := <-ch:
		return o.res, o.err
	case <-ctx.Done():
		Fail("AskChoice did not return before the spec's deadline")
	}
	return reference.Result[T]{}, nil
}
