package client_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/kit/probeagent"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
)

func TestClient(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Mock client")
}

// within bounds every spec against a hang: a hang fails the spec instead
// of the run. It is no speed limit: a spec that loops hundreds of times
// takes many times longer on a loaded 2-core machine.
var within = SpecTimeout(2 * time.Minute)

// transport connects a mock client to a fresh reference probe agent.
type transport func() wire.Conn

// overPipe serves the probe agent in-process over an in-memory stream.
func overPipe() wire.Conn {
	mine, theirs := wire.Pipe(wire.Options{})
	s := wire.NewSDKStream(theirs)
	probeagent.Serve(s, s, slog.New(slog.DiscardHandler))
	DeferCleanup(theirs.Close)
	return mine
}

// overWebSocket serves the probe agent on a loopback WebSocket.
func overWebSocket() wire.Conn {
	srv, err := wire.Listen("127.0.0.1:0", wire.DefaultPath, wire.Options{}, func(ctx context.Context, c wire.Conn) {
		s := wire.NewSDKStream(c)
		conn := probeagent.Serve(s, s, slog.New(slog.DiscardHandler))
		select {
		case <-conn.Done():
		case <-ctx.Done():
		}
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(srv.Close)
	conn, err := wire.Dial(context.Background(), srv.URL, wire.DialOptions{})
	Expect(err).NotTo(HaveOccurred())
	return conn
}

// start connects c over t, initializes and opens a session.
func start(ctx context.Context, t transport, c *client.Client) {
	GinkgoHelper()
	c.Connect(t())
	DeferCleanup(c.Close)
	Expect(c.Initialize(ctx)).To(Succeed())
	_, err := c.NewSession(ctx)
	Expect(err).NotTo(HaveOccurred())
}

var deploy = probe.Request{
	Acpconform: 1, Op: probe.OpAskChoice, Question: "Choose a deployment target",
	Choices: []probe.Choice{
		{Value: json.RawMessage(`"preview"`), Label: "Preview"},
		{Value: json.RawMessage(`"production"`), Label: "Production", Description: "Deploy to the production environment.", Default: true},
	},
}

func idx(i int) *int { return &i }
