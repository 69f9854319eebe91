package wire_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/coder/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/internal/gate"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/reference"
)

// serve starts a server whose handler hands each connection to the spec.
func serve(opts wire.Options) (*wire.Server, chan wire.Conn) {
	GinkgoHelper()
	conns := make(chan wire.Conn, 1)
	srv, err := wire.Listen("127.0.0.1:0", wire.DefaultPath, opts, func(ctx context.Context, c wire.Conn) {
		conns <- c
		<-ctx.Done()
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(srv.Close)
	return srv, conns
}

// connected dials a fresh server and returns both ends of the connection.
func connected(ctx context.Context, opts wire.Options) (client *wire.WebSocketConn, server wire.Conn) {
	GinkgoHelper()
	srv, conns := serve(opts)
	client, err := wire.Dial(ctx, srv.URL, wire.DialOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(client.Close)
	Eventually(ctx, conns).Should(Receive(&server))
	return client, server
}

var _ = Describe("WebSocketConn", func() {
	It("carries one message per text frame, without a newline", within, func(ctx SpecContext) {
		srv, conns := serve(wire.Options{})
		Expect(srv.URL).To(MatchRegexp(`^ws://127\.0\.0\.1:\d+/acp/ws$`))
		client, err := wire.Dial(ctx, srv.URL, wire.DialOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(client.Close)
		var server wire.Conn
		Eventually(ctx, conns).Should(Receive(&server))

		Expect(client.WriteFrame(ctx, []byte(`{"a":1}`))).To(Succeed())
		Expect(server.ReadFrame(ctx)).To(Equal([]byte(`{"a":1}`)))
		Expect(server.WriteRaw(ctx, []byte(`{"b":`))).To(Succeed(), "a raw write is one frame, malformed or not")
		Expect(client.ReadFrame(ctx)).To(Equal([]byte(`{"b":`)))
	})

	It("refuses a binary frame and closes with 1003", within, func(ctx SpecContext) {
		client, server := connected(ctx, wire.Options{})

		Expect(client.WriteBinary(ctx, []byte(`{"a":1}`))).To(Succeed())
		_, err := server.ReadFrame(ctx)
		Expect(err).To(MatchError(wire.ErrBinaryFrame))
		_, err = client.ReadFrame(ctx)
		Expect(websocket.CloseStatus(err)).To(Equal(websocket.StatusUnsupportedData))
		Expect(wire.DescribeEnd(err)).To(Equal(`the subject closed the WebSocket with status 1003 (unsupported data) and reason "ACP messages are text frames"`))
		Expect(server.Transcript().String()).To(ContainSubstring("binary frame refused"))
		_, err = server.ReadFrame(ctx)
		var binary *wire.BinaryFrameError
		Expect(errors.As(err, &binary)).To(BeTrue(), "%v", err)
		Expect(binary.Size).To(Equal(7))
		Expect(string(binary.Head)).To(Equal(`{"a":1}`))
		Expect(wire.DescribeEnd(err)).To(Equal("acpconform closed it with status 1003: the subject sent a binary frame"))
	})

	It("refuses a frame over the size limit and closes with 1009", within, func(ctx SpecContext) {
		client, server := connected(ctx, wire.Options{MaxFrame: 1024})

		Expect(client.WriteFrame(ctx, []byte(`"`+strings.Repeat("x", 2048)+`"`))).To(Succeed())
		_, err := server.ReadFrame(ctx)
		Expect(err).To(MatchError(wire.ErrFrameTooLarge))
		_, err = client.ReadFrame(ctx)
		Expect(websocket.CloseStatus(err)).To(Equal(websocket.StatusMessageTooBig))
		_, err = server.ReadFrame(ctx)
		Expect(wire.DescribeEnd(err)).To(Equal("acpconform closed it with status 1009: the subject sent a message of more than 1024 bytes (1 KiB)"))
	})

	It("says the subject closed a WebSocket it closed, with its status", within, func(ctx SpecContext) {
		client, server := connected(ctx, wire.Options{})
		read := make(chan error, 1)
		go func() { // a reading server answers the closing handshake at once
			_, err := server.ReadFrame(ctx)
			read <- err
		}()
		Expect(client.Close()).To(Succeed())
		var err error
		Eventually(ctx, read).Should(Receive(&err))
		Expect(wire.DescribeEnd(err)).To(Equal("the subject closed the WebSocket with status 1000 (normal closure)"))
		_, err = client.ReadFrame(ctx)
		Expect(wire.DescribeEnd(err)).To(Equal("acpconform closed it"))
	})

	// Regression: on a binary frame the read loop returned ErrBinaryFrame
	// and only then, in another goroutine, closed with 1003; an owner that
	// closes the moment reading ends (as wire.Listen's handler does) often
	// closed first, with 1000. The refusal's status must be decided before
	// the read loop lets go.
	DescribeTable("keeps its refusal's close status when the owner closes the instant reading ends",
		func(ctx SpecContext, opts wire.Options, send func(context.Context, *wire.WebSocketConn) error, want websocket.StatusCode) {
			srv, err := wire.Listen("127.0.0.1:0", wire.DefaultPath, opts, func(ctx context.Context, c wire.Conn) {
				_ = c.Serve(func([]byte) {})
				c.Close()
			})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(srv.Close)
			for i := range 200 {
				client, err := wire.Dial(ctx, srv.URL, wire.DialOptions{})
				Expect(err).NotTo(HaveOccurred())
				Expect(send(ctx, client)).To(Succeed())
				_, err = client.ReadFrame(ctx)
				Expect(websocket.CloseStatus(err)).To(Equal(want), "iteration %d: %v", i+1, err)
				client.Close()
			}
		},
		Entry("a binary frame: 1003", SpecTimeout(60*time.Second), wire.Options{}, func(ctx context.Context, c *wire.WebSocketConn) error {
			return c.WriteBinary(ctx, []byte(`{}`))
		}, websocket.StatusUnsupportedData),
		Entry("a frame over the limit: 1009", SpecTimeout(60*time.Second), wire.Options{MaxFrame: 64}, func(ctx context.Context, c *wire.WebSocketConn) error {
			return c.WriteFrame(ctx, []byte(`"`+strings.Repeat("x", 128)+`"`))
		}, websocket.StatusMessageTooBig),
	)

	It("fails to dial a port that refuses connections, saying where", within, func(ctx SpecContext) {
		srv, _ := serve(wire.Options{})
		url := srv.URL
		Expect(srv.Close()).To(Succeed())
		_, err := wire.Dial(ctx, url, wire.DialOptions{})
		Expect(err).To(MatchError(ContainSubstring("dial " + url)))
	})

	It("closes every connection's handler when the server closes", within, func(ctx SpecContext) {
		srv, conns := serve(wire.Options{})
		client, err := wire.Dial(ctx, srv.URL, wire.DialOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(client.Close)
		Eventually(ctx, conns).Should(Receive())
		read := make(chan error, 1)
		go func() { // a reading client answers the server's close handshake at once
			_, err := client.ReadFrame(ctx)
			read <- err
		}()
		Expect(srv.Close()).To(Succeed())
		Eventually(ctx, read).Should(Receive(MatchError(wire.ErrClosed)))
	})
})

var _ = Describe("SDKStream", func() {
	It("runs acp-go-sdk connections over a WebSocket: the reference agent answers a Go SDK client", within, func(ctx SpecContext) {
		client, server := connected(ctx, wire.Options{})

		agentSide := wire.NewSDKStream(server)
		agent := reference.NewUnstartedAgentConnection(initOnly{}, agentSide, agentSide)
		agent.SetLogger(slog.New(slog.DiscardHandler))
		agent.Start()
		clientSide := wire.NewSDKStream(client)
		sdkClient := gate.NewClientSideConnection(noClient{}, clientSide, clientSide, slog.New(slog.DiscardHandler))

		resp, err := sdkClient.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.ProtocolVersion).To(Equal(acp.ProtocolVersion(acp.ProtocolVersionNumber)))
		frames := client.Transcript().Entries()
		Expect(frames).To(HaveLen(2))
		Expect(string(frames[0].Data)).NotTo(HaveSuffix("\n"), "no newline goes on a WebSocket")
	})

	It("joins a line written in pieces and splits lines written together", within, func(ctx SpecContext) {
		a, b := wire.Pipe(wire.Options{})
		DeferCleanup(a.Close)
		DeferCleanup(b.Close)
		s := wire.NewSDKStream(a)
		_, err := io.WriteString(s, `{"x":`)
		Expect(err).NotTo(HaveOccurred())
		_, err = io.WriteString(s, "1}\n{\"y\":2}\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(b.ReadFrame(ctx)).To(Equal([]byte(`{"x":1}`)))
		Expect(b.ReadFrame(ctx)).To(Equal([]byte(`{"y":2}`)))

		Expect(b.WriteFrame(ctx, []byte(`{"z":3}`))).To(Succeed())
		buf := make([]byte, 3)
		var got []byte
		for !strings.HasSuffix(string(got), "\n") {
			n, err := s.Read(buf)
			Expect(err).NotTo(HaveOccurred())
			got = append(got, buf[:n]...)
		}
		Expect(string(got)).To(Equal("{\"z\":3}\n"))
	})
})

type initOnly struct{ acp.Agent }

func (initOnly) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber}, nil
}

type noClient struct{ acp.Client }
