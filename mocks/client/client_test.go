package client_test

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
)

func str(s string) *string { return &s }

var _ = Describe("The mock client against the reference agent", func() {
	for name, t := range map[string]transport{"over a pipe": overPipe, "over a WebSocket": overWebSocket} {
		Context(name, func() {
			DescribeTable("answers each elicitation as scripted",
				func(ctx SpecContext, answer script.Answer, want probe.Outcome) {
					c := client.New(client.Config{Capabilities: client.FormElicitation})
					c.Append(script.Elicitation{
						Expect: &script.Expect{Tokens: []string{"choice_0", "choice_1"}, Labels: []string{"Preview", "Production"}, Default: str("choice_1"), Mode: "form"},
						Answer: answer,
					})
					start(ctx, t, c)
					got, stop, err := c.Probe(ctx, deploy)
					Expect(err).NotTo(HaveOccurred())
					Expect(stop).To(Equal("end_turn"))
					Expect((*script.Outcome)(&want).Check(got)).To(BeEmpty())
					Expect(c.Violations()).To(BeEmpty())
					Expect(c.Elicitations()).To(HaveLen(1))
				},
				Entry("accept by index", within, script.Accept(0), probe.Outcome{Outcome: "accepted", Index: idx(0)}),
				Entry("accept by label", within, script.AcceptLabel("Production"), probe.Outcome{Outcome: "accepted", Index: idx(1)}),
				Entry("accept the default", within, script.AcceptDefault(), probe.Outcome{Outcome: "accepted", Index: idx(1)}),
				Entry("accept a bogus token", within, script.AcceptChoice("choice_01"), probe.Outcome{Outcome: "error", Error: "invalid_response"}),
				Entry("accept a non-string choice", within, script.AcceptChoice(1), probe.Outcome{Outcome: "error", Error: "invalid_response"}),
				Entry("accept with null content", within, script.AcceptContent(nil), probe.Outcome{Outcome: "error", Error: "invalid_response"}),
				Entry("accept without content", within, script.AcceptWithoutContent(), probe.Outcome{Outcome: "error", Error: "invalid_response"}),
				Entry("decline", within, script.Decline(), probe.Outcome{Outcome: "declined"}),
				Entry("cancel with content", within, script.Cancel().WithContent(map[string]string{"choice": "choice_0"}), probe.Outcome{Outcome: "cancelled"}),
				Entry("an unknown action", within, script.WithAction("_defer"), probe.Outcome{Outcome: "error", Error: "invalid_response"}),
				Entry("a raw result", within, script.Result(map[string]any{}), probe.Outcome{Outcome: "error", Error: "invalid_response"}),
				Entry("a JSON-RPC error", within, script.Fail(4242, "Editor busy", map[string]int{"retry": 1}),
					probe.Outcome{Outcome: "error", Error: "request_error", Code: idx(4242), Data: json.RawMessage(`{"retry":1}`)}),
				Entry("after a delay", within, script.Decline().After(30*time.Millisecond), probe.Outcome{Outcome: "declined"}),
				Entry("twice", within, script.Accept(0).AnsweredTwice(), probe.Outcome{Outcome: "accepted", Index: idx(0)}),
			)

			It("answers -32601 when its route is unregistered", within, func(ctx SpecContext) {
				c := client.New(client.Config{Capabilities: client.FormElicitation, Unregistered: true})
				start(ctx, t, c)
				got, _, err := c.Probe(ctx, deploy)
				Expect(err).NotTo(HaveOccurred())
				Expect(got.Error).To(Equal("request_error"))
				Expect(*got.Code).To(Equal(-32601))
				Expect(got.Data).To(MatchJSON(`{"method":"elicitation/create"}`))
			})

			It("advertises the capabilities it is given, or none", within, func(ctx SpecContext) {
				for _, caps := range []json.RawMessage{nil, json.RawMessage(`null`), client.NoElicitation, json.RawMessage(`{"elicitation":{"form":null}}`)} {
					c := client.New(client.Config{Capabilities: caps})
					start(ctx, t, c)
					got, _, err := c.Probe(ctx, deploy)
					Expect(err).NotTo(HaveOccurred())
					Expect(got.Error).To(Equal("unsupported"), "capabilities %s", caps)
					Expect(c.Elicitations()).To(BeEmpty())
				}
			})
		})
	}

	It("can leave a request unanswered; the agent's turn then ends by cancellation", within, func(ctx SpecContext) {
		c := client.New(client.Config{Capabilities: client.FormElicitation})
		c.Append(script.Elicitation{Answer: script.Never()})
		start(ctx, overPipe, c)
		turn := c.Prompt(ctx, mustMarshal(deploy))
		Eventually(ctx, func() int { return len(c.Elicitations()) }).Should(Equal(1))
		Expect(c.Cancel(ctx)).To(Succeed())
		Expect(turn.Wait(ctx)).To(Equal("cancelled"))
		Expect(c.Transcript().String()).To(ContainSubstring("never answering"))
		Eventually(ctx, c.Transcript().String).Should(ContainSubstring(`"method":"$/cancel_request"`), "sent after the turn's answer, or before")
	})

	It("holds an answer back until the check releases it", within, func(ctx SpecContext) {
		c := client.New(client.Config{Capabilities: client.FormElicitation})
		release := make(chan struct{})
		c.Append(script.Elicitation{Answer: script.Decline().When(release)})
		start(ctx, overPipe, c)
		turn := c.Prompt(ctx, mustMarshal(deploy))
		Eventually(ctx, func() int { return len(c.Elicitations()) }).Should(Equal(1))
		Consistently(turn.Done(), 20*time.Millisecond).ShouldNot(BeClosed(), "answered before the release")
		Expect(c.Elicitations()[0].Answered).To(BeFalse())
		close(release)
		Expect(turn.Wait(ctx)).To(Equal("end_turn"))
		Expect(c.Elicitations()[0].Answered).To(BeTrue())
	})

	It("wakes a wait for a notification as it arrives", within, func(ctx SpecContext) {
		c := client.New(client.Config{Capabilities: client.FormElicitation})
		c.Append(script.Elicitation{Answer: script.Never()})
		start(ctx, overPipe, c)
		turn := c.Prompt(ctx, mustMarshal(deploy))
		Eventually(ctx, func() int { return len(c.Elicitations()) }).Should(Equal(1))
		cancelled := func(ms []peer.Message) bool {
			for _, m := range ms {
				if m.Method == "$/cancel_request" {
					return true
				}
			}
			return false
		}
		woken := make(chan error, 1)
		go func() { woken <- c.WaitReceived(ctx, "$/cancel_request", cancelled) }() // before it can have come
		Expect(c.Cancel(ctx)).To(Succeed())
		Expect(turn.Wait(ctx)).To(Equal("cancelled"))
		Eventually(ctx, woken).Should(Receive(BeNil()))
		short, stop := context.WithTimeout(ctx, 20*time.Millisecond)
		defer stop()
		Expect(c.WaitReceived(short, "never", func([]peer.Message) bool { return false })).To(MatchError(context.DeadlineExceeded))
	})

	It("can answer a wrong id, which the agent cannot take as the answer", within, func(ctx SpecContext) {
		c := client.New(client.Config{Capabilities: client.FormElicitation})
		c.Append(script.Elicitation{Answer: script.Accept(0).ToWrongID()})
		start(ctx, overPipe, c)
		turn := c.Prompt(ctx, mustMarshal(deploy))
		Expect(c.WaitElicitations(ctx, 1)).To(Succeed())
		Expect(c.Cancel(ctx)).To(Succeed())
		Expect(turn.Wait(ctx)).To(Equal("cancelled"))
		Expect(c.Transcript().String()).To(ContainSubstring(`"id":1000001`))
	})

	It("can close the connection instead of answering", within, func(ctx SpecContext) {
		c := client.New(client.Config{Capabilities: client.FormElicitation})
		c.Append(script.Elicitation{Answer: script.CloseConnection()})
		start(ctx, overPipe, c)
		_, _, err := c.Probe(ctx, deploy)
		Expect(err).To(MatchError(wire.ErrClosed))
		Eventually(ctx, c.Done()).Should(BeClosed())
	})

	It("records an unscripted elicitation and an expectation not met as violations", within, func(ctx SpecContext) {
		c := client.New(client.Config{Capabilities: client.FormElicitation})
		c.Append(script.Elicitation{Expect: &script.Expect{Message: str("Something else"), Tokens: []string{"choice_1"}, Default: str("")}, Answer: script.Decline()})
		start(ctx, overPipe, c)
		_, _, err := c.Probe(ctx, deploy)
		Expect(err).NotTo(HaveOccurred())
		_, _, err = c.Probe(ctx, deploy)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Violations()).To(ConsistOf(
			`elicitation/create #1: message is "Choose a deployment target", want "Something else"`,
			`elicitation/create #1: tokens are ["choice_0" "choice_1"], want ["choice_1"]`,
			`elicitation/create #1: default is "choice_1", want none`,
			HavePrefix("elicitation/create #2 was not scripted"),
		))
	})

	It("says that a connection that advertised no form got a form request", within, func(ctx SpecContext) {
		c := client.New(client.Config{Capabilities: client.NoElicitation})
		mine, theirs := wire.Pipe(wire.Options{})
		c.Connect(mine)
		DeferCleanup(c.Close)
		initialized := make(chan error, 1)
		go func() { initialized <- c.Initialize(ctx) }()
		_, err := theirs.ReadFrame(ctx) // initialize, id 1
		Expect(err).NotTo(HaveOccurred())
		Expect(theirs.WriteFrame(ctx, []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}`))).To(Succeed())
		Expect(<-initialized).To(Succeed())
		Expect(theirs.WriteFrame(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"mode":"form"}}`))).To(Succeed())
		_, err = theirs.ReadFrame(ctx) // the client's error answer
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Violations()).To(ConsistOf(HavePrefix(
			"elicitation/create #1 was not scripted, and this connection's initialize advertised no form elicitation (clientCapabilities {}), so no form request may come")))
	})

	It("cannot pick what the request does not offer, and says so", within, func(ctx SpecContext) {
		c := client.New(client.Config{Capabilities: client.FormElicitation})
		c.Append(script.Elicitation{Answer: script.Accept(7)})
		start(ctx, overPipe, c)
		got, _, err := c.Probe(ctx, deploy)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Error).To(Equal("request_error"))
		Expect(c.Violations()).To(ConsistOf("elicitation/create #1: cannot pick option 7: the request offers 2"))
	})
})

func mustMarshal(v any) string {
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

var _ = Describe("The mock client against a misbehaving agent", func() {
	var c *client.Client
	var agentEnd *wire.StreamConn
	BeforeEach(func() {
		var mine *wire.StreamConn
		mine, agentEnd = wire.Pipe(wire.Options{})
		DeferCleanup(agentEnd.Close)
		c = client.New(client.Config{Capabilities: client.FormElicitation})
		c.Connect(mine)
		DeferCleanup(c.Close)
	})

	It("records garbage as a violation and goes on", within, func(ctx SpecContext) {
		Expect(agentEnd.WriteRaw(ctx, []byte("{not json\n"))).To(Succeed())
		Expect(agentEnd.WriteRaw(ctx, []byte(`{"jsonrpc":"2.0"}`+"\n"))).To(Succeed())
		Expect(agentEnd.WriteRaw(ctx, []byte(`{"jsonrpc":"2.0","id":99,"result":{}}`+"\n"))).To(Succeed())
		Expect(agentEnd.WriteRaw(ctx, []byte(`{"jsonrpc":"2.0","id":5,"method":"session/request_permission","params":{}}`+"\n"))).To(Succeed())
		Expect(agentEnd.ReadFrame(ctx)).To(MatchJSON(`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found","data":{"method":"session/request_permission"}}}`))
		Expect(c.Violations()).To(ConsistOf(
			HavePrefix("the subject wrote a line that is not JSON"),
			HavePrefix("the subject sent a message that is neither a request, a notification nor a response"),
			HavePrefix("the subject answered request 99, which was never sent"),
			`unexpected request session/request_permission: "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session/request_permission\",\"params\":{}}"`,
		))
	})

	// The agent's messages are read as ACP's SDKs read them: member names
	// exact, and a member named twice read both ways.
	It("reads session/update by exact member names, and refuses a text whose readings differ", within, func(ctx SpecContext) {
		for _, frame := range []string{
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","Update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"capitalised update"}}}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"SessionUpdate":"agent_message_chunk","content":{"type":"text","text":"capitalised kind"}}}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","Text":"capitalised text"}}}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"one","text":"two"}}}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"same","text":"same"}}}}`,
		} {
			Expect(agentEnd.WriteRaw(ctx, []byte(frame+"\n"))).To(Succeed())
		}
		Expect(c.WaitText(ctx, 2)).To(Equal("same"))
		Expect(c.Texts()).To(Equal([]string{"", "same"}), `"Text" is no text: the chunk's text is empty`)
		Expect(c.Violations()).To(ConsistOf(HavePrefix(`the agent sent a session/update that names "text" in /update/content twice, and its readings carry different agent messages`)))
	})

	It("reads session/new's sessionId by its exact name", within, func(ctx SpecContext) {
		answerNext(ctx, agentEnd, `{"SessionId":"s1"}`)
		_, err := c.NewSession(ctx)
		Expect(err).To(MatchError(ContainSubstring(`session/new: no sessionId in {"SessionId":"s1"}`)))
	})

	It("reads session/prompt's stopReason by its exact name", within, func(ctx SpecContext) {
		answerNext(ctx, agentEnd, `{"StopReason":"end_turn"}`)
		Expect(c.PromptIn(ctx, "s", "go").Wait(ctx)).To(BeEmpty(), `"StopReason" is no stopReason`)
	})

	It("stops waiting at once when the agent disappears", within, func(ctx SpecContext) {
		go func() {
			defer GinkgoRecover()
			_, _ = agentEnd.ReadFrame(ctx) // the initialize request
			agentEnd.Close()
		}()
		err := c.Initialize(ctx)
		Expect(err).To(MatchError(wire.ErrClosed))
		Expect(c.WaitElicitations(ctx, 1)).To(MatchError(wire.ErrClosed))
	})

	It("bounds each wait for an agent that never answers", within, func(ctx SpecContext) {
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		Expect(c.Initialize(short)).To(MatchError(context.DeadlineExceeded))
	})

	It("refuses an oversized frame from a flooding agent", within, func(ctx SpecContext) {
		mine, flood := wire.Pipe(wire.Options{MaxFrame: 4096})
		DeferCleanup(flood.Close)
		small := client.New(client.Config{})
		small.Connect(mine)
		DeferCleanup(small.Close)
		go func() { _ = flood.WriteRaw(ctx, append(make([]byte, 1<<16), '\n')) }()
		Eventually(ctx, small.Done()).Should(BeClosed())
		Expect(small.Violations()).To(ConsistOf(HavePrefix("the subject wrote a line of more than 4096 bytes (4 KiB), the size limit of one message, so acpconform closed the connection (raise the limit with --max-frame); the line began")))
	})

	// Regression: the client kept every agent_message_chunk text, and the
	// peer 10,000 frames of up to 1 MiB: a flooding agent made the harness
	// reach gigabytes.
	It("holds no more than its budget from a flooding agent, says so and hangs up", within, func(ctx SpecContext) {
		const budget = 1 << 20
		mine, flood := wire.Pipe(wire.Options{MaxHeld: budget})
		DeferCleanup(flood.Close)
		small := client.New(client.Config{})
		small.Connect(mine)
		DeferCleanup(small.Close)
		chunk := chunkNotification(strings.Repeat("x", 64<<10))
		most, sent := 0, 0
		for ; sent < 200; sent++ {
			most = max(most, small.Held())
			if flood.WriteFrame(ctx, chunk) != nil {
				break
			}
		}
		Eventually(ctx, small.Done()).Should(BeClosed())
		Expect(sent).To(BeNumerically("<", 200), "the client closed the connection during the flood")
		Expect(small.Violations()).To(ConsistOf(MatchRegexp(`^flood: the subject sent \d+ messages, [\d.]+ KiB in [\d.]+s; keeping them would take more than the 1 MiB this connection may hold, so acpconform closed the connection \(raise it with --max-held\)$`)))
		Expect(small.Failure()).To(HaveSuffix("then the connection ended: acpconform closed it (the subject flooded it)"))
		Expect(max(most, small.Held())).To(BeNumerically("<=", budget))
		kept := 0
		for _, t := range small.Texts() {
			kept += len(t)
		}
		for _, m := range small.Received() {
			kept += len(m.Raw)
		}
		Expect(kept).To(BeNumerically("<=", budget), "what the texts and the history keep")
		Expect(len(small.Texts())).To(BeNumerically(">=", 4), "it kept what fitted")
	})

	Describe("when strict", func() {
		It("fails initialize at once, naming what the agent did, instead of waiting for the deadline", within, func(ctx SpecContext) {
			mine, subject := wire.Pipe(wire.Options{})
			DeferCleanup(subject.Close)
			strict := client.New(client.Config{Strict: true})
			strict.Connect(mine)
			DeferCleanup(strict.Close)
			go func() {
				defer GinkgoRecover()
				_, _ = subject.ReadFrame(ctx)
				_ = subject.WriteRaw(ctx, []byte("Starting my-agent v1.0...\n"))
			}()
			long, cancel := context.WithTimeout(ctx, time.Hour)
			defer cancel()
			err := strict.Initialize(long)
			Expect(err).To(MatchError(peer.ErrBroken))
			Expect(err).To(MatchError(`initialize: the subject broke the protocol before answering: the subject wrote a line that is not JSON (invalid character 'S' looking for beginning of value): "Starting my-agent v1.0..."`))
			Expect(long.Err()).NotTo(HaveOccurred(), "it did not wait for the deadline")
		})

		It("fails initialize at once on an answer to another id", within, func(ctx SpecContext) {
			mine, subject := wire.Pipe(wire.Options{})
			DeferCleanup(subject.Close)
			strict := client.New(client.Config{Strict: true})
			strict.Connect(mine)
			DeferCleanup(strict.Close)
			go func() {
				defer GinkgoRecover()
				_, _ = subject.ReadFrame(ctx)
				_ = subject.WriteFrame(ctx, []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`))
			}()
			err := strict.Initialize(ctx)
			Expect(err).To(MatchError(peer.ErrBroken))
			Expect(err).To(MatchError(HaveSuffix(`the subject answered request 0, which was never sent: "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":1}}"`)))
		})
	})

	It("is not strict by default: it waits for its deadline, and then says what the agent did", within, func(ctx SpecContext) {
		go func() {
			defer GinkgoRecover()
			_, _ = agentEnd.ReadFrame(ctx)
			_ = agentEnd.WriteRaw(ctx, []byte("hello world\n"))
		}()
		short, cancel := peer.WithBound(ctx, 200*time.Millisecond)
		defer cancel()
		err := c.Initialize(short)
		Expect(err).To(MatchError(context.DeadlineExceeded))
		Expect(err).To(MatchError(`initialize: no answer within 200ms (context deadline exceeded); what the subject did wrong so far: the subject wrote a line that is not JSON (invalid character 'h' looking for beginning of value): "hello world"`))
	})
})

// chunkNotification is an agent_message_chunk carrying text.
func chunkNotification(text string) []byte {
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
		"sessionId": "s", "update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]string{"type": "text", "text": text}},
	}})
	Expect(err).NotTo(HaveOccurred())
	return frame
}

// answerNext answers, in the agent's place, the next request the client
// sends with result, written as it is.
func answerNext(ctx context.Context, agentEnd *wire.StreamConn, result string) {
	go func() {
		defer GinkgoRecover()
		req, err := agentEnd.ReadFrame(ctx)
		Expect(err).NotTo(HaveOccurred())
		var m struct{ ID json.RawMessage }
		Expect(json.Unmarshal(req, &m)).To(Succeed())
		Expect(agentEnd.WriteRaw(ctx, []byte(`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`+"\n"))).To(Succeed())
	}()
}
