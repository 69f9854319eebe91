package peer_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/coder/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/wire"
)

// notification is a session/update of about size bytes.
func notification(size int) []byte {
	return []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"text":"` + strings.Repeat("x", size) + `"}}`)
}

// held sums what the kept messages hold, apart from the peer's own count.
func held(ms []peer.Message) int {
	n := 0
	for _, m := range ms {
		n += cap(m.Raw)
	}
	return n
}

var _ = Describe("peer.Peer under a flood", func() {
	// Regression: the history kept 10,000 messages whatever their size: a
	// subject sending 12,000 notifications of 1 MiB made the harness hold
	// gigabytes.
	It("keeps no more than the connection's budget, calls it a flood and closes", within, func(ctx SpecContext) {
		const budget = 1 << 20
		var most atomic.Int64 // the most held, seen from the handler
		var p *peer.Peer
		p, theirs := connectWith(wire.Options{MaxHeld: budget}, func(_ context.Context, p *peer.Peer, _ peer.Message) {
			if h := int64(p.Held()); h > most.Load() {
				most.Store(h)
			}
		})
		frame := notification(64 << 10)
		sent := 0
		for ; sent < 100; sent++ {
			if theirs.WriteFrame(ctx, frame) != nil {
				break
			}
		}
		Eventually(ctx, p.Done()).Should(BeClosed())
		Expect(sent).To(BeNumerically("<", 100), "the connection closed before the flood was over")
		Expect(p.Broken()).To(BeClosed())
		Expect(p.Violations()).To(ConsistOf(MatchRegexp(
			`^flood: the subject sent \d+ messages, \d+(\.\d)? (KiB|MiB) in \d+\.\ds; keeping them would take more than the 1 MiB this connection may hold, so acpconform closed the connection \(raise it with --max-held\)$`)))
		Expect(p.Failure()).To(HaveSuffix("; then the connection ended: acpconform closed it (the subject flooded it)"))
		Expect(most.Load()).To(BeNumerically("<=", budget))
		Expect(p.Held()).To(BeNumerically("<=", budget))
		Expect(held(p.Received())).To(BeNumerically("<=", budget), "what Received keeps")
		Expect(len(p.Received())).To(BeNumerically(">=", 8), "it kept what fitted")
	})

	It("closes a flooded WebSocket with 1008 (policy violation), saying why", within, func(ctx SpecContext) {
		served := make(chan *peer.Peer, 1)
		srv, err := wire.Listen("127.0.0.1:0", wire.DefaultPath, wire.Options{MaxHeld: 1 << 20}, func(ctx context.Context, c wire.Conn) {
			p := peer.New(c, func(context.Context, *peer.Peer, peer.Message) {})
			served <- p
			<-p.Done()
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		flood, err := wire.Dial(ctx, srv.URL, wire.DialOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(flood.Close)
		read := make(chan error, 1)
		go func() { // a reading end answers the closing handshake
			_, err := flood.ReadFrame(ctx)
			read <- err
		}()
		frame := notification(64 << 10)
		for range 100 {
			if flood.WriteFrame(ctx, frame) != nil {
				break
			}
		}
		Eventually(ctx, read).Should(Receive(&err))
		Expect(websocket.CloseStatus(err)).To(Equal(websocket.StatusPolicyViolation), "%v", err)
		Expect(wire.DescribeEnd(err)).To(Equal(`the subject closed the WebSocket with status 1008 (policy violation) and reason "flood: more than 1 MiB to hold"`))
		var p *peer.Peer
		Eventually(ctx, served).Should(Receive(&p))
		Eventually(ctx, p.Done()).Should(BeClosed())
		Expect(p.Failure()).To(HavePrefix("flood: "))
		Expect(p.Failure()).To(HaveSuffix("then the connection ended: acpconform closed it (the subject flooded it)"))
	})

	It("lets go of the oldest messages beyond MaxHistory, and of their bytes", within, func(ctx SpecContext) {
		p, theirs := connect(nil)
		frame := notification(100)
		for range peer.MaxHistory + 500 {
			send(ctx, theirs, string(frame))
		}
		send(ctx, theirs, `{"jsonrpc":"2.0","method":"last"}`)
		Eventually(ctx, func() string {
			r := p.Received()
			return r[len(r)-1].Method
		}).Should(Equal("last"))
		Expect(p.Received()).To(HaveLen(peer.MaxHistory))
		Expect(p.Violations()).To(BeEmpty(), "small messages, however many, are no flood")
		perMessage := p.Held() / peer.MaxHistory
		Expect(perMessage).To(BeNumerically("<", 1500), "held: %d", p.Held())
	})

	It("lets a mock count what it keeps with Hold, and calls it a flood when it does not fit", within, func(ctx SpecContext) {
		p, _ := connectWith(wire.Options{MaxHeld: 1 << 20}, nil)
		before := p.Held()
		Expect(p.Hold(1000)).To(BeTrue())
		Expect(p.Held()).To(Equal(before + 1000))
		p.Release(1000)
		Expect(p.Held()).To(Equal(before))
		Expect(p.Hold(1<<20 + 1)).To(BeFalse())
		Expect(p.Hold(1)).To(BeFalse(), "after a flood nothing more is kept")
		Eventually(ctx, p.Done()).Should(BeClosed())
		Expect(p.Violations()).To(ConsistOf(HavePrefix(fmt.Sprintf("flood: the subject sent 0 messages, 0 bytes in"))))
	})
})
