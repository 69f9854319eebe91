package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/coder/websocket"
	. "github.com/onsi/ginkgo/v2"

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
				assert(len(ex) == 1, "the turn carried %d elicitation/create requests, want 1", len(ex))
				assert(ex[0].Answered, "the client did not answer the elicitation/create in its prompt turn")
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
			assert(answer.Error == nil || answer.Error.Code != -32601,
				"the client advertised form elicitation but answered elicitation/create with -32601 (%v): its route is not registered", answer.Error)
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
			for i, ex := range t.exchanges() {
				assert(ex.Answered, "the client did not answer elicitation/create #%d of the two in its prompt turn", i+1)
			}
		})

		e.it("tolerates-meta", "tolerates option _meta and unknown _meta keys", rules("CLI-3"), func(ctx SpecContext) {
			e.needForm(ctx)
			meta := json.RawMessage(`{"vendor.example/trace":"abc","vendor.example/nested":{"x":[1,2]}}`)
			t := e.turn(ctx, elicitStep(deployForm(), probe.User{Action: "accept", Pick: 1}, meta, obeyed()))
			if err := t.exchanges()[0].Answer.Error; err != nil {
				Fail(fmt.Sprintf("the client refused a form with option _meta and unknown _meta keys (%v): metadata is no reason to refuse", err))
			}
		})

		e.it("client-refuses-binary-frame", "refuses a binary WebSocket frame, closing with 1003", rules("REM-1"), func(ctx SpecContext) {
			link, err := e.subject.Connect(ctx)
			must("connecting to "+e.subject.Name(), err)
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
			must("the client's initialize", a.WaitInitialize(e.wait(ctx)))
			By("sending a binary frame after initialize")
			must("sending a binary frame", ws.WriteBinary(ctx, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{}}`)))
			_, closed := receive(ctx, e.response*3, ws.Done())
			assert(closed, "the client did not close the connection within %s of a binary frame: it must refuse it with 1003 (unsupported data), not ignore it", e.response*3)
			status := websocket.CloseStatus(ws.Err())
			assert(status == websocket.StatusUnsupportedData,
				"the client ended the connection with %s, want the close status 1003 (unsupported data): a binary frame must be refused, not ignored", showError(ws.Err()))
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
	must("connecting to "+e.subject.Name(), err)
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
	must("the client's prompt turn", a.WaitTurns(wait, 1))
	check(clientProblems(a.Violations(), len(a.Exchanges())))
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
	must("connecting to "+e.subject.Name()+" to read its capabilities", err)
	a := agent.New(agent.Config{Timeout: e.response})
	a.Connect(link.Conn)
	defer func() { // before the check's own connection
		a.Close()
		link.Close()
	}()
	DeferCleanup(func() { keepEvidence(link, a.Transcript().String) })
	wait, cancel := context.WithTimeout(ctx, e.response)
	defer cancel()
	must("a prompt turn of the client, to read the capabilities it initializes with,", a.WaitTurns(wait, 1))
	e.form, e.known = advertisesFormIn(a.Capabilities()), true
	return e.form
}

// clientProblems says what the client did wrong in its prompt turn: how
// many of the elicitation/create requests it got it answered with
// problems, or not at all, and every problem.
func clientProblems(violations []string, sent int) error {
	if len(violations) == 0 {
		return nil
	}
	bad := map[string]bool{}
	other := 0
	for _, v := range violations {
		if n, ok := elicitationOf(v); ok {
			bad[n] = true
		} else {
			other++
		}
	}
	lead := "the client did what no ACP client may"
	if len(bad) > 0 {
		lead = fmt.Sprintf("the client answered %d %s out of %d with problems", len(bad), plural(len(bad), "request", "requests"), sent)
		if other > 0 {
			lead += ", and did more wrong"
		}
	}
	return none(lead, violations)
}

// elicitationOf reads the request a violation is about: "#2" of
// "elicitation/create #2: ...".
func elicitationOf(violation string) (string, bool) {
	rest, ok := strings.CutPrefix(violation, "elicitation/create #")
	if !ok {
		return "", false
	}
	n, _, ok := strings.Cut(rest, ":")
	return n, ok
}
