package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/coder/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/agent"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
)

// cli: the rules of a client under test (CLI-1..4). The harness plays the
// agent: in the client's prompt turn it sends typed-choice forms compiled
// by the reference, with the scripted-user instruction of PROBE.md §2, and
// checks every answer against the request's own schema.
func (e *env) cli() {
	Describe("CLI: a client under test", func() {
		// obeyed asks for the answer the scripted user wants, when the
		// client follows scripted users.
		obeyed := func() *script.AnswerExpect {
			if e.freeUser {
				return nil
			}
			return &script.AnswerExpect{User: true}
		}

		DescribeTable("answers each request validly, as its scripted user says",
			func(ctx SpecContext, user probe.User) {
				e.needForm(ctx)
				t := e.turn(ctx, elicitStep(deployForm(), user, nil, obeyed()))
				ex := t.exchanges()
				Expect(ex).To(HaveLen(1))
				Expect(ex[0].Answered).To(BeTrue(), "the request was answered")
			},
			e.entry("accept the second option", rules("CLI-2"), probe.User{Action: "accept", Pick: 1}),
			e.entry("accept the default", rules("CLI-2"), probe.User{Action: "accept", Pick: probe.PickDefault}),
			e.entry("decline, without content", rules("CLI-2"), probe.User{Action: "decline"}),
			e.entry("cancel, without content", rules("CLI-2"), probe.User{Action: "cancel"}),
		)

		e.it("route-registered", "handles elicitation/create when it advertises form: no -32601", rules("CLI-1"), func(ctx SpecContext) {
			e.needForm(ctx)
			t := e.turn(ctx, elicitStep(deployForm(), probe.User{Action: "accept", Pick: 0}, nil, obeyed()))
			answer := t.exchanges()[0].Answer
			if answer.Error != nil {
				Expect(answer.Error.Code).NotTo(Equal(-32601), "the route is not registered")
			}
		})

		e.it("token-past-ten", "answers a token past ten with the const offered there", rules("CLI-2"), func(ctx SpecContext) {
			e.needForm(ctx)
			form := script.Elicit{Question: "Pick one of twelve"}
			for i := 0; i < 12; i++ {
				form.Choices = append(form.Choices, script.Choice{Label: fmt.Sprintf("Option %d", i)})
			}
			e.turn(ctx, elicitStep(form, probe.User{Action: "accept", Pick: 11}, nil, obeyed()))
		})

		e.it("two-requests-answered-once", "answers each of two requests in one turn exactly once", rules("CLI-2"), func(ctx SpecContext) {
			e.needForm(ctx)
			t := e.turn(ctx,
				elicitStep(deployForm(), probe.User{Action: "accept", Pick: 0}, nil, obeyed()),
				elicitStep(deployForm(), probe.User{Action: "decline"}, nil, obeyed()),
			)
			Expect(t.exchanges()).To(HaveEach(HaveField("Answered", true)))
		})

		e.it("tolerates-meta", "tolerates option _meta and unknown _meta keys", rules("CLI-3"), func(ctx SpecContext) {
			e.needForm(ctx)
			meta := json.RawMessage(`{"vendor.example/trace":"abc","vendor.example/nested":{"x":[1,2]}}`)
			t := e.turn(ctx, elicitStep(deployForm(), probe.User{Action: "accept", Pick: 1}, meta, obeyed()))
			Expect(t.exchanges()[0].Answer.Error).To(BeNil(), "metadata is no reason to refuse")
		})

		e.it("client-refuses-binary-frame", "refuses a binary WebSocket frame, closing with 1003", rules("REM-1"), func(ctx SpecContext) {
			link, err := e.subject.Connect(ctx)
			Expect(err).NotTo(HaveOccurred(), "connect to %s", e.subject.Name())
			ws, ok := link.Conn.(*wire.WebSocketConn)
			if !ok {
				link.Close()
				Skip("the client is not connected over WebSocket")
			}
			a := agent.New(agent.Config{Timeout: e.response})
			held := make(chan struct{}) // the turn stays open: the client waits for its end
			a.Append(script.Step{Hold: held})
			a.Connect(ws)
			DeferCleanup(func() {
				close(held)
				a.Close()
				_ = link.Close() // a client that refused may exit non-zero
				keepEvidence(link, a.Transcript().String)
			})
			Expect(a.WaitInitialize(e.wait(ctx))).To(Succeed())
			By("sending a binary frame after initialize")
			Expect(ws.WriteBinary(ctx, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{}}`))).To(Succeed())
			Eventually(ctx, ws.Done()).WithTimeout(e.response*3).Should(BeClosed(), "the client closes the connection")
			Expect(websocket.CloseStatus(ws.Err())).To(Equal(websocket.StatusUnsupportedData),
				"the client ended the connection with %v; a binary frame must be refused with 1003 (unsupported data), not ignored", ws.Err())
		})

		e.it("unadvertised-form-refused", "refuses a form it did not advertise with -32602", rules("CLI-4"), func(ctx SpecContext) {
			if e.advertisesForm(ctx) {
				Skip("the client advertises form elicitation")
			}
			params := json.RawMessage(`{"sessionId":"mock-session-1","mode":"form","message":"Pick",` +
				`"requestedSchema":{"type":"object","required":["choice"],"properties":{"choice":` +
				`{"type":"string","title":"Choice","oneOf":[{"const":"choice_0","title":"A"}]}}}}`)
			e.turn(ctx, script.Step{Elicit: &script.Elicit{Params: script.JSON(params), Expect: &script.AnswerExpect{Error: -32602}}})
		})
	})
}

// deployForm is the seed's example as a form the mock agent sends.
func deployForm() script.Elicit {
	return script.Elicit{Question: "Choose a deployment target", Choices: []script.Choice{
		{Label: "Preview"},
		{Label: "Production", Description: "Deploy to the production environment.", Default: true},
	}}
}

// elicitStep sends form with a scripted user and extra request _meta.
func elicitStep(form script.Elicit, user probe.User, meta json.RawMessage, expect *script.AnswerExpect) script.Step {
	form.User, form.Expect = &user, expect
	if meta != nil {
		form.Meta = script.JSON(meta)
	}
	return script.Step{Elicit: &form}
}

// clientTurn is one prompt turn of the client under test, played by the
// mock agent.
type clientTurn struct{ a *agent.Agent }

func (t clientTurn) exchanges() []agent.Exchange { return t.a.Exchanges() }

// turn connects the client under test, plays steps in its prompt turn, and
// asserts the client broke no rule while doing so.
func (e *env) turn(ctx context.Context, steps ...script.Step) clientTurn {
	GinkgoHelper()
	link, err := e.subject.Connect(ctx)
	Expect(err).NotTo(HaveOccurred(), "connect to %s", e.subject.Name())
	a := agent.New(agent.Config{Timeout: e.response})
	a.Append(steps...)
	a.Connect(link.Conn)
	DeferCleanup(func() {
		a.Close()
		link.Close()
		keepEvidence(link, a.Transcript().String)
	})
	wait, cancel := context.WithTimeout(ctx, e.response*time.Duration(1+len(steps)))
	defer cancel()
	Expect(a.WaitTurns(wait, 1)).To(Succeed(), "the client's prompt turn")
	Expect(a.Violations()).To(BeEmpty(), "what the client did wrong")
	return clientTurn{a}
}

// needForm skips a check that only applies to a client that advertises
// form elicitation.
func (e *env) needForm(ctx context.Context) {
	GinkgoHelper()
	if !e.advertisesForm(ctx) {
		Skip("the client does not advertise form elicitation, so no agent may send it a form")
	}
}

// advertisesForm learns, once per catalogue, whether the client under test
// advertises form elicitation: it lets the client play a turn with no
// requests and reads its initialize. A client that fails to do so fails the
// check at hand, and the next check asks again: a failed first contact says
// nothing about the client's capabilities.
func (e *env) advertisesForm(ctx context.Context) bool {
	GinkgoHelper()
	e.caps.Lock()
	defer e.caps.Unlock()
	if e.known {
		return e.form
	}
	link, err := e.subject.Connect(ctx)
	Expect(err).NotTo(HaveOccurred(), "connect to %s to read its capabilities", e.subject.Name())
	a := agent.New(agent.Config{Timeout: e.response})
	a.Connect(link.Conn)
	defer func() { // before the check's own connection
		a.Close()
		link.Close()
	}()
	DeferCleanup(func() { keepEvidence(link, a.Transcript().String) })
	wait, cancel := context.WithTimeout(ctx, e.response)
	defer cancel()
	Expect(a.WaitTurns(wait, 1)).To(Succeed(), "a prompt turn of the client, to read the capabilities it initializes with")
	e.form, e.known = advertisesFormIn(a.Capabilities()), true
	return e.form
}
