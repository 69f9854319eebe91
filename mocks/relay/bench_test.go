package relay_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/relay"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/reference"
)

// BenchmarkRelayRoundTrip times one elicitation/create round trip from an
// agent to the mock client and back, in one run:
//
//	Direct         agent -WebSocket- client
//	Mirror         agent -WebSocket- mirror -stdio- client
//	CommandRelay   client -WebSocket- command relay -stdio- agent
//
// The agent is a raw sender of the same request frame.
//
// Run: go test -run '^$' -bench RelayRoundTrip -benchmem ./mocks/relay/
func BenchmarkRelayRoundTrip(b *testing.B) {
	b.Run("Direct", func(b *testing.B) {
		agent := serveAgentEnd(b)
		c, err := wire.Dial(context.Background(), agent.url, wire.DialOptions{})
		if err != nil {
			b.Fatal(err)
		}
		mockClient(b, c)
		roundTrips(b, agent.next(b))
	})
	b.Run("Mirror", func(b *testing.B) {
		agent := serveAgentEnd(b)
		mine, theirs := wire.Pipe(wire.Options{})
		go relay.Mirror(context.Background(), agent.url, theirs, relay.MirrorOptions{UnstableProtocol: true})
		mockClient(b, mine)
		roundTrips(b, agent.next(b))
	})
	b.Run("CommandRelay", func(b *testing.B) {
		stdio := make(chan *pipeAgent, 1)
		srv, err := relay.NewServer("127.0.0.1:0", relay.RelayTo(func() (relay.Stdio, error) {
			p := newPipeAgent()
			stdio <- p
			return p, nil
		}, slog.New(slog.DiscardHandler)), relay.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { srv.Close() })
		c, err := wire.Dial(context.Background(), srv.URL, wire.DialOptions{})
		if err != nil {
			b.Fatal(err)
		}
		mockClient(b, c)
		roundTrips(b, <-stdio)
	})
}

// request is the reference's deploy form, as the agent sends it.
var request = func() []byte {
	req, _ := reference.Compile("Choose a deployment target", []reference.Choice[string]{
		{Value: "preview", Label: "Preview"},
		{Value: "production", Label: "Production", Description: "Deploy to the production environment.", Default: true},
	})
	req.SessionID = "bench"
	params, _ := json.Marshal(req)
	frame, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": json.RawMessage(params)})
	return frame
}()

// roundTripper is the agent's end: one request out, one answer in.
type roundTripper interface{ roundTrip() error }

func roundTrips(b *testing.B, a roundTripper) {
	if err := a.roundTrip(); err != nil { // warm up, and prove the path works
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := a.roundTrip(); err != nil {
			b.Fatal(err)
		}
	}
}

func mockClient(b *testing.B, conn wire.Conn) {
	c := client.New(client.Config{Capabilities: client.FormElicitation})
	c.Route(script.Elicitation{Answer: script.Accept(1)})
	c.Connect(conn)
	b.Cleanup(func() { c.Close() })
}

// agentEnd serves a WebSocket whose server side the benchmark drives.
type agentEnd struct {
	url   string
	conns chan wire.Conn
}

func serveAgentEnd(b *testing.B) *agentEnd {
	a := &agentEnd{conns: make(chan wire.Conn, 1)}
	srv, err := relay.NewServer("127.0.0.1:0", func(ctx context.Context, c wire.Conn) {
		a.conns <- c
		<-ctx.Done()
	}, relay.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	a.url = srv.URL
	return a
}

func (a *agentEnd) next(b *testing.B) roundTripper { return wsAgent{<-a.conns} }

type wsAgent struct{ c wire.Conn }

func (w wsAgent) roundTrip() error {
	ctx := context.Background()
	if err := w.c.WriteRaw(ctx, request); err != nil {
		return err
	}
	_, err := w.c.ReadFrame(ctx)
	return err
}

// pipeAgent is a command behind the command relay, on in-memory pipes.
type pipeAgent struct {
	stdinR  *io.PipeReader
	stdinW  *io.PipeWriter
	stdoutR *io.PipeReader
	stdoutW *io.PipeWriter
	lines   *bufio.Reader
}

func newPipeAgent() *pipeAgent {
	p := &pipeAgent{}
	p.stdinR, p.stdinW = io.Pipe()
	p.stdoutR, p.stdoutW = io.Pipe()
	p.lines = bufio.NewReader(p.stdinR)
	return p
}

func (p *pipeAgent) Stdin() io.WriteCloser { return p.stdinW }
func (p *pipeAgent) Stdout() io.Reader     { return p.stdoutR }
func (p *pipeAgent) Stop() error           { p.stdinR.Close(); p.stdoutW.Close(); return nil }

func (p *pipeAgent) roundTrip() error {
	if _, err := p.stdoutW.Write(append(request[:len(request):len(request)], '\n')); err != nil {
		return err
	}
	_, err := p.lines.ReadBytes('\n')
	return err
}
