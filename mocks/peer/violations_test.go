package peer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/wire"
)

const notJSON = `the subject wrote a line that is not JSON (invalid character 'h' looking for beginning of value): "hello world"`

var _ = Describe("peer.Peer when the subject breaks the protocol", func() {
	// Regression: a subject that printed a line of non-JSON in answer to
	// initialize made the caller wait out its whole deadline (30 s for the
	// start-up probe) and then say only "no answer".
	It("stops a strict call at once, naming what the subject did", within, func(ctx SpecContext) {
		p, theirs := connect(nil)
		long, cancel := context.WithTimeout(ctx, time.Hour)
		defer cancel()
		call := callAsync(long, p, "initialize", nil)
		ch := make(chan answer, 1)
		go func() {
			m, err := p.CallStrict(long, "initialize", nil)
			ch <- answer{m, err}
		}()
		readMessage(ctx, theirs)
		readMessage(ctx, theirs)
		Expect(theirs.WriteRaw(ctx, []byte("hello world\n"))).To(Succeed())

		got := result(ctx, ch)
		Expect(got.err).To(MatchError(peer.ErrBroken))
		Expect(got.err).To(MatchError("initialize: the subject broke the protocol before answering: " + notJSON))
		Expect(call).NotTo(Receive(), "a call that is not strict goes on waiting")
		Expect(p.Failure()).To(Equal(notJSON))
	})

	It("stops a strict call when the connection ends for a frame-level violation", within, func(ctx SpecContext) {
		p, theirs := connectWith(wire.Options{MaxFrame: 64}, nil)
		ch := make(chan answer, 1)
		go func() {
			m, err := p.CallStrict(ctx, "initialize", nil)
			ch <- answer{m, err}
		}()
		readMessage(ctx, theirs)
		go func() { _ = theirs.WriteRaw(ctx, []byte(strings.Repeat("x", 1000)+"\n")) }()
		got := result(ctx, ch)
		Expect(got.err).To(MatchError(peer.ErrBroken))
		Expect(got.err).To(MatchError(HavePrefix("initialize: the subject broke the protocol before answering: the subject wrote a line of more than 64 bytes")))
	})

	It("says, when a call times out, what the subject did wrong meanwhile", within, func(ctx SpecContext) {
		p, theirs := connect(nil)
		short, cancel := peer.WithBound(ctx, 300*time.Millisecond)
		defer cancel()
		call := callAsync(short, p, "initialize", nil)
		readMessage(ctx, theirs)
		for i := range 5 {
			send(ctx, theirs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, 100+i))
		}
		Expect(theirs.WriteRaw(ctx, []byte("hello world\n"))).To(Succeed())
		got := result(ctx, call)
		Expect(got.err).To(MatchError(context.DeadlineExceeded))
		var callErr *peer.CallError
		Expect(errors.As(got.err, &callErr)).To(BeTrue())
		Expect(callErr.What).To(Equal("initialize"))
		Expect(callErr.Reason).To(Equal("no answer within 300ms (context deadline exceeded)"))
		Expect(callErr.SoFar).To(HaveLen(3))
		Expect(callErr.More).To(Equal(3))
		Expect(got.err.Error()).To(Equal(`initialize: no answer within 300ms (context deadline exceeded); what the subject did wrong so far: ` +
			`the subject answered request 100, which was never sent: "{\"jsonrpc\":\"2.0\",\"id\":100,\"result\":{}}"; ` +
			`the subject answered request 101, which was never sent: "{\"jsonrpc\":\"2.0\",\"id\":101,\"result\":{}}"; ` +
			`the subject answered request 102, which was never sent: "{\"jsonrpc\":\"2.0\",\"id\":102,\"result\":{}}"; and 3 more`))
	})

	It("says, when the connection ends during a call, why it ended and what the subject did wrong", within, func(ctx SpecContext) {
		p, theirs := connect(nil)
		call := callAsync(ctx, p, "initialize", nil)
		readMessage(ctx, theirs)
		Expect(theirs.WriteRaw(ctx, []byte("hello world\n"))).To(Succeed())
		Expect(theirs.Close()).To(Succeed())
		got := result(ctx, call)
		Expect(got.err).To(MatchError(wire.ErrClosed))
		Expect(got.err).To(MatchError("initialize: the connection ended before the answer: the subject closed it (end of file); what the subject did wrong so far: " + notJSON))
		Expect(p.Failure()).To(Equal(notJSON + "; then the connection ended: the subject closed it (end of file)"))

		_, err := p.Call(ctx, "again", nil)
		Expect(err).To(MatchError(wire.ErrClosed))
		Expect(err).To(MatchError(HavePrefix("again: the connection had ended before the request: the subject closed it (end of file)")))
	})

	It("says the connection ended, and how, when nothing broke the protocol", within, func(ctx SpecContext) {
		p, theirs := connect(nil)
		Expect(theirs.Close()).To(Succeed())
		Eventually(ctx, p.Done()).Should(BeClosed())
		Expect(p.Failure()).To(Equal("the connection ended: the subject closed it (end of file)"))
		Expect(p.Broken()).NotTo(BeClosed())
	})

	It("says a hang-up was its own", within, func(ctx SpecContext) {
		p, _ := connect(nil)
		p.Hangup()
		Eventually(ctx, p.Done()).Should(BeClosed())
		Expect(p.Failure()).To(Equal("the connection ended: acpconform closed it (a script hung up)"))
	})

	It("stops a strict wait at once, and says why a wait ended", within, func(ctx SpecContext) {
		p, theirs := connect(nil)
		var st peer.State
		never := func() bool { return false }
		strict := make(chan error, 1)
		go func() { strict <- p.AwaitStrict(ctx, &st, "initialize", never) }()
		Expect(theirs.WriteRaw(ctx, []byte("hello world\n"))).To(Succeed())
		var err error
		Eventually(ctx, strict).Should(Receive(&err))
		Expect(err).To(MatchError(peer.ErrBroken))
		Expect(err).To(MatchError("waiting for initialize: the subject broke the protocol first: " + notJSON))

		short, cancel := peer.WithBound(ctx, 50*time.Millisecond)
		defer cancel()
		err = p.Await(short, &st, "initialize", never)
		Expect(err).To(MatchError(context.DeadlineExceeded))
		Expect(err).To(MatchError("waiting for initialize: it did not happen within 50ms (context deadline exceeded); what the subject did wrong so far: " + notJSON))

		Expect(theirs.Close()).To(Succeed())
		err = p.Await(ctx, &st, "initialize", never)
		Expect(err).To(MatchError(wire.ErrClosed))
		Expect(err).To(MatchError("waiting for initialize: the connection ended first: the subject closed it (end of file); what the subject did wrong so far: " + notJSON))
	})

	It("bounds each violation and lists at most MaxViolations", within, func(ctx SpecContext) {
		p, _ := connect(nil)
		p.Violate("%s", strings.Repeat("é", peer.MaxViolationBytes))
		for range peer.MaxViolations + 4 {
			p.Violate("again")
		}
		vs := p.Violations()
		Expect(vs).To(HaveLen(peer.MaxViolations + 1))
		Expect(len(vs[0])).To(BeNumerically("<=", peer.MaxViolationBytes+40))
		Expect(vs[0]).To(HaveSuffix(fmt.Sprintf("... (%d bytes in all)", 2*peer.MaxViolationBytes)))
		Expect(vs[peer.MaxViolations]).To(Equal("... and 5 more violations"))
	})

	// Regression: every response was remembered by id, so that a second
	// one could be told apart, including responses to ids never sent: a
	// subject answering a million made-up ids of a kilobyte each made the
	// peer keep a gigabyte of keys.
	It("remembers only the ids it sent", within, func(ctx SpecContext) {
		p, theirs := connect(nil)
		for i := range 200 {
			send(ctx, theirs, fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s-%d","result":{}}`, strings.Repeat("x", 1000), i))
		}
		Eventually(ctx, func() int { return len(p.Violations()) }).Should(Equal(200))
		Expect(peer.RememberedIDs(p)).To(BeZero())
	})
})

var _ = Describe("peer.Peer over a WebSocket", func() {
	// serve runs a peer on the server side of a fresh loopback WebSocket
	// and returns it with the dialled end.
	serve := func(ctx context.Context, opts wire.Options) (*peer.Peer, *wire.WebSocketConn) {
		GinkgoHelper()
		served := make(chan *peer.Peer, 1)
		srv, err := wire.Listen("127.0.0.1:0", wire.DefaultPath, opts, func(ctx context.Context, c wire.Conn) {
			p := peer.New(c, func(context.Context, *peer.Peer, peer.Message) {})
			served <- p
			<-p.Done()
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		theirs, err := wire.Dial(ctx, srv.URL, wire.DialOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(theirs.Close)
		var p *peer.Peer
		Eventually(ctx, served).Should(Receive(&p))
		return p, theirs
	}

	It("names a text frame that is not JSON", within, func(ctx SpecContext) {
		p, theirs := serve(ctx, wire.Options{})
		Expect(theirs.WriteRaw(ctx, []byte("hello world"))).To(Succeed())
		Eventually(ctx, p.Broken()).Should(BeClosed())
		Expect(p.Failure()).To(Equal(`the subject sent a text frame that is not JSON (invalid character 'h' looking for beginning of value): "hello world"`))
	})

	It("names a message over the size limit, and the status it closed with", within, func(ctx SpecContext) {
		p, theirs := serve(ctx, wire.Options{MaxFrame: 1 << 10})
		go func() { _, _ = theirs.ReadFrame(ctx) }() // answer the closing handshake
		Expect(theirs.WriteFrame(ctx, []byte(`"`+strings.Repeat("x", 2<<10)+`"`))).To(Succeed())
		Eventually(ctx, p.Done()).Should(BeClosed())
		Expect(p.Failure()).To(Equal("the subject sent a message of more than 1024 bytes (1 KiB), the size limit of one message, so acpconform closed the connection with status 1009 (raise the limit with --max-frame)" +
			"; then the connection ended: acpconform closed it with status 1009: the subject sent a message of more than 1024 bytes (1 KiB)"))
	})

	It("names a binary frame", within, func(ctx SpecContext) {
		p, theirs := serve(ctx, wire.Options{})
		go func() { _, _ = theirs.ReadFrame(ctx) }()
		Expect(theirs.WriteBinary(ctx, []byte(`{"a":1}`))).To(Succeed())
		Eventually(ctx, p.Done()).Should(BeClosed())
		Expect(p.Failure()).To(Equal(`the subject sent a binary WebSocket frame of 7 bytes, where ACP messages are text frames, so acpconform closed the connection with status 1003: "{\"a\":1}"` +
			"; then the connection ended: acpconform closed it with status 1003: the subject sent a binary frame"))
	})
})
