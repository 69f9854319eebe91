package wire_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/wire"
)

var _ = Describe("StreamConn", func() {
	var a, b *wire.StreamConn
	BeforeEach(func() {
		a, b = wire.Pipe(wire.Options{})
		DeferCleanup(a.Close)
		DeferCleanup(b.Close)
	})

	It("carries one message per line and records both directions", within, func(ctx SpecContext) {
		Expect(a.WriteFrame(ctx, []byte(`{"jsonrpc":"2.0","method":"ping"}`))).To(Succeed())
		Expect(b.ReadFrame(ctx)).To(Equal([]byte(`{"jsonrpc":"2.0","method":"ping"}`)))
		Expect(b.WriteFrame(ctx, []byte(`{"pong":1}`))).To(Succeed())
		Expect(a.ReadFrame(ctx)).To(Equal([]byte(`{"pong":1}`)))

		entries := a.Transcript().Entries()
		Expect(entries).To(HaveLen(2))
		Expect(entries[0].Dir).To(Equal(wire.Sent))
		Expect(entries[1].Dir).To(Equal(wire.Received))
		Expect(a.Transcript().String()).To(MatchRegexp(`(?m)^\+\d+\.\d{4}s -> \{"jsonrpc":"2.0","method":"ping"\}$`))
	})

	It("taps every entry, those before the tap included, with a large frame's data whole", within, func(ctx SpecContext) {
		Expect(a.WriteFrame(ctx, []byte(`{"first":1}`))).To(Succeed())
		Expect(b.ReadFrame(ctx)).To(Equal([]byte(`{"first":1}`)))
		var tapped []wire.Entry
		a.Transcript().Tap(func(e wire.Entry) { tapped = append(tapped, e) })
		large := []byte(`{"big":"` + strings.Repeat("x", 100<<10) + `"}`)
		Expect(b.WriteFrame(ctx, large)).To(Succeed())
		Expect(a.ReadFrame(ctx)).To(Equal(large))
		Expect(tapped).To(HaveLen(2))
		Expect(tapped[0].Data).To(Equal([]byte(`{"first":1}`)))
		Expect(tapped[1].Dir).To(Equal(wire.Received))
		Expect(tapped[1].Data).To(Equal(large), "the tap gets the frame whole")
		Expect(len(a.Transcript().Entries()[1].Data)).To(BeNumerically("<", len(large)), "the transcript keeps a preview")
	})

	It("refuses a frame holding a newline", within, func(ctx SpecContext) {
		Expect(a.WriteFrame(ctx, []byte("{}\n{}"))).To(MatchError(ContainSubstring("newline")))
	})

	It("passes raw bytes as they are: malformed JSON, a frame split across writes, two frames at once", within, func(ctx SpecContext) {
		Expect(a.WriteRaw(ctx, []byte("{not json}\n"))).To(Succeed())
		Expect(b.ReadFrame(ctx)).To(Equal([]byte("{not json}")))

		Expect(a.WriteRaw(ctx, []byte(`{"jsonrpc":"2.0",`))).To(Succeed())
		Expect(a.WriteRaw(ctx, []byte(`"id":1}`+"\n"))).To(Succeed())
		Expect(b.ReadFrame(ctx)).To(Equal([]byte(`{"jsonrpc":"2.0","id":1}`)))

		Expect(a.WriteRaw(ctx, []byte("1\n2\n"))).To(Succeed())
		Expect(b.ReadFrame(ctx)).To(Equal([]byte("1")))
		Expect(b.ReadFrame(ctx)).To(Equal([]byte("2")))
		Expect(a.Transcript().String()).To(ContainSubstring("(raw)"))
	})

	It("skips blank lines and strips a carriage return", within, func(ctx SpecContext) {
		Expect(a.WriteRaw(ctx, []byte("\n  \n{}\r\n"))).To(Succeed())
		Expect(b.ReadFrame(ctx)).To(Equal([]byte("{}")))
	})

	It("bounds a read by its context and stays usable", within, func(ctx SpecContext) {
		short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		_, err := b.ReadFrame(short)
		Expect(err).To(MatchError(context.DeadlineExceeded))
		Expect(a.WriteFrame(ctx, []byte("{}"))).To(Succeed())
		Expect(b.ReadFrame(ctx)).To(Equal([]byte("{}")))
	})

	It("says why it was refused, to every wait on it", within, func(ctx SpecContext) {
		read := make(chan error, 1)
		go func() {
			_, err := b.ReadFrame(ctx)
			read <- err
		}()
		b.Refuse("the subject connected a second time")
		var err error
		Eventually(ctx, read).Should(Receive(&err))
		Expect(err).To(MatchError(wire.ErrClosedHere))
		Expect(wire.DescribeEnd(err)).To(Equal("acpconform closed it: the subject connected a second time"))
		_, err = a.ReadFrame(ctx)
		Expect(err).To(MatchError(wire.ErrClosed), "the peer reads the end of the stream")
	})

	It("reports the peer's close, after the frames it sent", within, func(ctx SpecContext) {
		Expect(a.WriteFrame(ctx, []byte("{}"))).To(Succeed())
		Expect(a.Close()).To(Succeed())
		Expect(b.ReadFrame(ctx)).To(Equal([]byte("{}")))
		_, err := b.ReadFrame(ctx)
		Expect(err).To(MatchError(wire.ErrClosed))
		Eventually(ctx, b.Done()).Should(BeClosed())
		Expect(b.Transcript().String()).To(ContainSubstring("closed: EOF"))
		Expect(b.EndedByPeer()).To(BeTrue(), "b's peer ended it")
		Eventually(ctx, a.Done()).Should(BeClosed())
		Expect(a.EndedByPeer()).To(BeFalse(), "a ended it itself")
	})

	It("counts a last line without a newline", within, func(ctx SpecContext) {
		c := wire.NewStream(strings.NewReader("{}\n{\"last\":true}"), io.Discard, wire.Options{})
		Expect(c.ReadFrame(ctx)).To(Equal([]byte("{}")))
		Expect(c.ReadFrame(ctx)).To(Equal([]byte(`{"last":true}`)))
		_, err := c.ReadFrame(ctx)
		Expect(err).To(MatchError(wire.ErrClosed))
	})

	It("refuses a frame over the size limit without buffering it, and closes", within, func(ctx SpecContext) {
		small, peer := wire.Pipe(wire.Options{MaxFrame: 1024})
		DeferCleanup(small.Close)
		DeferCleanup(peer.Close)
		go func() {
			defer GinkgoRecover()
			_ = peer.WriteFrame(ctx, []byte(`{"small":1}`))
			_ = peer.WriteRaw(ctx, []byte(`{"big":"`+strings.Repeat("x", 1<<20)+`"}`+"\n"))
		}()
		Expect(small.ReadFrame(ctx)).To(Equal([]byte(`{"small":1}`)))
		_, err := small.ReadFrame(ctx)
		Expect(err).To(MatchError(wire.ErrFrameTooLarge))
		Expect(err.Error()).To(ContainSubstring("more than 1024 bytes"))
		Expect(small.Transcript().String()).To(ContainSubstring("exceeds the size limit"))
		_, err = small.ReadFrame(ctx)
		Expect(err).To(MatchError(wire.ErrFrameTooLarge), "the connection stays refused")
	})

	It("takes a flood without losing frames or memory: the transcript keeps the most recent", within, func(ctx SpecContext) {
		const n = wire.DefaultTranscriptEntries + 500
		go func() {
			defer GinkgoRecover()
			for i := 0; i < n; i++ {
				if a.WriteFrame(ctx, []byte(`{"n":1}`)) != nil {
					return
				}
			}
		}()
		for i := 0; i < n; i++ {
			_, err := b.ReadFrame(ctx)
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(b.Transcript().Entries()).To(HaveLen(wire.DefaultTranscriptEntries))
		Expect(b.Transcript().String()).To(HavePrefix("(500 earlier entries dropped)"))
	})

	It("bounds the transcript in bytes, a quarter of the connection's budget, counted in it", within, func(ctx SpecContext) {
		small, flood := wire.Pipe(wire.Options{MaxHeld: 1 << 20})
		DeferCleanup(small.Close)
		DeferCleanup(flood.Close)
		frame := []byte(`"` + strings.Repeat("x", 64<<10) + `"`)
		go func() {
			defer GinkgoRecover()
			for range 100 {
				if flood.WriteFrame(ctx, frame) != nil {
					return
				}
			}
		}()
		for i := range 100 {
			_, err := small.ReadFrame(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(small.Transcript().Held()).To(BeNumerically("<=", 256<<10), "after frame %d", i+1)
		}
		Expect(small.Budget().Held()).To(Equal(small.Transcript().Held()), "the transcript is all the connection holds")
		entries := small.Transcript().Entries()
		Expect(len(entries)).To(BeNumerically("<", 100), "older entries made room")
		Expect(string(entries[len(entries)-1].Data)).To(HaveSuffix(fmt.Sprintf("... [%d bytes in all]", len(frame))), "a big frame is kept cut")
		Expect(small.Transcript().String()).To(MatchRegexp(`^\(\d+ earlier entries dropped\)`))
	})

	It("keeps the most recent entries in order while big ones make room for small ones", within, func(ctx SpecContext) {
		small, other := wire.Pipe(wire.Options{MaxHeld: 256 << 10}) // the transcript: 64 KiB
		DeferCleanup(small.Close)
		DeferCleanup(other.Close)
		var sent []string
		for i := range 60 {
			frame := fmt.Sprintf(`{"n":%d}`, i)
			if i < 10 {
				frame = fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", 15<<10))
			}
			sent = append(sent, frame)
			Expect(other.WriteFrame(ctx, []byte(frame))).To(Succeed())
			Expect(small.ReadFrame(ctx)).To(Equal([]byte(frame)))
		}
		var got []string
		for _, e := range small.Transcript().Entries() {
			got = append(got, string(e.Data))
		}
		Expect(len(got)).To(BeNumerically(">=", 50))
		Expect(got).To(Equal(sent[len(sent)-len(got):]), "the last entries, oldest first")
	})

	It("keeps an entry without its data when it cannot fit even alone", within, func(ctx SpecContext) {
		tiny, other := wire.Pipe(wire.Options{MaxHeld: 1024})
		DeferCleanup(tiny.Close)
		DeferCleanup(other.Close)
		Expect(other.WriteFrame(ctx, []byte(`"`+strings.Repeat("x", 600)+`"`))).To(Succeed())
		Expect(tiny.ReadFrame(ctx)).To(HaveLen(602))
		Expect(tiny.Transcript().Entries()).To(ConsistOf(And(HaveField("Data", BeNil()), HaveField("Note", "[602 bytes not kept]"))))
		Expect(tiny.Budget().Held()).To(BeNumerically("<=", 256))
	})

	It("reports a failed write as a closed connection", within, func(ctx SpecContext) {
		Expect(b.Close()).To(Succeed())
		err := a.WriteFrame(ctx, []byte("{}"))
		Expect(err).To(MatchError(wire.ErrClosed))
		Expect(a.Transcript().String()).To(ContainSubstring("write failed"))
	})

	It("counts a write that failed for want of a reader as the peer's end", within, func(ctx SpecContext) {
		in, keepOpen := io.Pipe() // nothing ever comes in: reading does not end
		out, gone := io.Pipe()
		c := wire.NewStream(in, gone, wire.Options{})
		DeferCleanup(c.Close)
		DeferCleanup(keepOpen.Close)
		Expect(c.EndedByPeer()).To(BeFalse())
		Expect(out.Close()).To(Succeed()) // the peer stops reading
		Expect(c.WriteFrame(ctx, []byte("{}"))).To(MatchError(wire.ErrClosed))
		Expect(c.EndedByPeer()).To(BeTrue(), "the peer went away before the write")
	})
})

var _ = Describe("Serve", func() {
	It("hands every frame to the handler in order, in the caller's goroutine, and says why it ended", within, func(ctx SpecContext) {
		agentIn, toAgent := io.Pipe()
		c := wire.NewStream(agentIn, io.Discard, wire.Options{})
		go func() {
			defer GinkgoRecover()
			_, _ = io.WriteString(toAgent, "1\n2\n3\n")
			toAgent.Close()
		}()
		var got []string
		err := c.Serve(func(f []byte) { got = append(got, string(f)) })
		Expect(err).To(MatchError(wire.ErrClosed))
		Expect(got).To(Equal([]string{"1", "2", "3"}))
		Expect(c.Done()).To(BeClosed())
		_, err = c.ReadFrame(ctx)
		Expect(err).To(MatchError(ContainSubstring("being served")))
	})

	It("takes over from ReadFrame without losing a frame", within, func(ctx SpecContext) {
		a, b := wire.Pipe(wire.Options{}) // Pipe reads in the background from the start
		DeferCleanup(b.Close)
		Expect(a.WriteFrame(ctx, []byte("1"))).To(Succeed())
		Expect(b.ReadFrame(ctx)).To(Equal([]byte("1")))
		Expect(a.WriteFrame(ctx, []byte("2"))).To(Succeed())
		Expect(a.Close()).To(Succeed())
		var got []string
		Expect(b.Serve(func(f []byte) { got = append(got, string(f)) })).To(MatchError(wire.ErrClosed))
		Expect(got).To(Equal([]string{"2"}))
	})
})

var _ = Describe("DescribeEnd", func() {
	It("says the subject closed a stream it closed", within, func(ctx SpecContext) {
		a, b := wire.Pipe(wire.Options{})
		DeferCleanup(b.Close)
		Expect(a.Close()).To(Succeed())
		_, err := b.ReadFrame(ctx)
		Expect(wire.DescribeEnd(err)).To(Equal("the subject closed it (end of file)"))
	})

	It("says this side closed a stream it closed", within, func(ctx SpecContext) {
		a, b := wire.Pipe(wire.Options{})
		DeferCleanup(b.Close)
		Expect(a.Close()).To(Succeed())
		_, err := a.ReadFrame(ctx)
		Expect(err).To(MatchError(wire.ErrClosed))
		Expect(err).To(MatchError(wire.ErrClosedHere))
		Expect(wire.DescribeEnd(err)).To(Equal("acpconform closed it"))
	})

	It("names the size limit of a line over it", within, func(ctx SpecContext) {
		a, b := wire.Pipe(wire.Options{MaxFrame: 1 << 20})
		DeferCleanup(a.Close)
		DeferCleanup(b.Close)
		go func() { _ = b.WriteRaw(ctx, []byte(`{"x":"`+strings.Repeat("x", 2<<20)+"\"}\n")) }()
		_, err := a.ReadFrame(ctx)
		var tooBig *wire.FrameTooLargeError
		Expect(errors.As(err, &tooBig)).To(BeTrue(), "%v", err)
		Expect(tooBig.Limit).To(Equal(1 << 20))
		Expect(tooBig.Unit).To(Equal("line"))
		Expect(string(tooBig.Head)).To(Equal(`{"x":"` + strings.Repeat("x", 114)))
		Expect(wire.DescribeEnd(err)).To(Equal("acpconform closed it: the subject sent a line of more than 1048576 bytes (1 MiB)"))
	})
})

var _ = Describe("A write to a peer that does not read", func() {
	It("is abandoned at the context's deadline, closing the connection", within, func(ctx SpecContext) {
		_, w := io.Pipe() // nobody ever reads the other end
		c := wire.NewStream(strings.NewReader(""), w, wire.Options{})
		short, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
		defer cancel()
		err := c.WriteFrame(short, []byte("{}"))
		Expect(err).To(MatchError(context.DeadlineExceeded))
		Expect(err.Error()).To(ContainSubstring("the connection is closed"))
		Expect(c.Transcript().String()).To(ContainSubstring("write abandoned"))
		Expect(c.WriteFrame(ctx, []byte("{}"))).To(MatchError(wire.ErrClosed))
		_, err = c.ReadFrame(ctx)
		Expect(wire.DescribeEnd(err)).To(Equal("acpconform closed it: a write to the subject did not finish by its deadline (context deadline exceeded)"))
	})
})
