package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/mocks/agent"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/suite"
)

// cli: the rules of a client under test (CLI-1..5). The harness plays the
// agent: in the client's prompt turn it sends typed-choice forms compiled
// by the reference, with the scripted-user instruction of PROBE.md §2.
// Each check fails only for its own rule: CLI-1 for a real -32601, CLI-2
// for an invalid answer (or none, or two), CLI-3 for a form refused because
// of its _meta or option descriptions, CLI-4 for an unadvertised form not
// refused with -32602. How a valid answer differs from the instruction is
// CLI-5's alone, so that a client without test mode is told to run with
// --no-scripted-user.
func (e *env) cli() {
	Describe("CLI: a client under test", func() {
		DescribeTable("answers each request validly; its scripted user says:",
			func(ctx SpecContext, user probe.User) {
				e.needForm(ctx)
				t := e.turn(ctx, elicitStep(deployForm(), user, nil, nil))
				t.only()
				t.expectValid()
			},
			e.entry("accept the second option", rules("CLI-2"), probe.User{Action: "accept", Pick: 1}),
			e.entry("accept the default", rules("CLI-2"), probe.User{Action: "accept", Pick: probe.PickDefault}),
			e.entry("decline", slug("decline-without-content"), rules("CLI-2"), probe.User{Action: "decline"}),
			e.entry("cancel", slug("cancel-without-content"), rules("CLI-2"), probe.User{Action: "cancel"}),
		)

		e.it("route-registered", "handles elicitation/create when it advertises form: no -32601", rules("CLI-1"), func(ctx SpecContext) {
			e.needForm(ctx)
			t := e.turn(ctx, elicitStep(deployForm(), probe.User{Action: "accept", Pick: 0}, nil, nil))
			ex := t.only()
			if !ex.Answered {
				Skip("the client did not answer elicitation/create, so whether its route is registered cannot be told: the CLI-2 checks report the missing answer")
			}
			assert(ex.Answer.Error == nil || ex.Answer.Error.Code != -32601,
				"the client advertised form elicitation but answered elicitation/create with -32601 (%v): its route is not registered", ex.Answer.Error)
		})

		e.it("token-past-ten", "answers a token past ten with the const offered there", rules("CLI-2"), func(ctx SpecContext) {
			e.needForm(ctx)
			t := e.turn(ctx, elicitStep(twelveOptions(), probe.User{Action: "accept", Pick: 11}, nil, nil))
			t.only()
			t.expectValid()
		})

		e.it("two-requests-answered-once", "answers each of two requests in one turn exactly once", rules("CLI-2"), func(ctx SpecContext) {
			e.needForm(ctx)
			t := e.turn(ctx,
				elicitStep(deployForm(), probe.User{Action: "accept", Pick: 0}, nil, nil),
				elicitStep(deployForm(), probe.User{Action: "decline"}, nil, nil),
			)
			for i, ex := range t.exchanges() {
				assert(ex.Answered, "the client did not answer elicitation/create #%d of the two in its prompt turn", i+1)
			}
			t.expectValid()
		})

		e.it("tolerates-meta", "tolerates option _meta, unknown _meta keys and the standard per-option description", rules("CLI-3"), func(ctx SpecContext) {
			e.needForm(ctx)
			user := probe.User{Action: "accept", Pick: 1}
			meta := json.RawMessage(`{"vendor.example/trace":"abc","vendor.example/nested":{"x":[1,2]}}`)
			t := e.turn(ctx, elicitStep(plainForm(), user, nil, nil), elicitStep(deployForm(), user, meta, nil))
			ex := t.exchanges()
			assert(len(ex) == 2, "the turn carried %d elicitation/create requests, want 2", len(ex))
			plain, withMeta := ex[0], ex[1]
			if !plain.Answered || plain.Answer.Error != nil {
				Skip(fmt.Sprintf("the client did not answer even the form without _meta and descriptions (%s), so whether they are what it refuses cannot be told: the other CLI checks report it", answerOf(plain)))
			}
			assert(withMeta.Answered && withMeta.Answer.Error == nil,
				"the client answered the form without _meta and descriptions, but not the same form with option _meta, unknown _meta keys and an option's standard description (%s): none of them is a reason to refuse", answerOf(withMeta))
		})

		DescribeTable("answers as its scripted user says:",
			func(ctx SpecContext, form script.Elicit, user probe.User) {
				e.needTestMode()
				e.needForm(ctx)
				t := e.turn(ctx, elicitStep(form, user, nil, obeyed()))
				t.only()
				t.expectObeyed()
			},
			e.entry("accept the second option", rules("CLI-5"), plainForm(), probe.User{Action: "accept", Pick: 1}),
			e.entry("accept the default", rules("CLI-5"), plainForm(), probe.User{Action: "accept", Pick: probe.PickDefault}),
			e.entry("decline", rules("CLI-5"), plainForm(), probe.User{Action: "decline"}),
			e.entry("cancel", rules("CLI-5"), plainForm(), probe.User{Action: "cancel"}),
			e.entry("accept the twelfth of twelve options", rules("CLI-5"), twelveOptions(), probe.User{Action: "accept", Pick: 11}),
		)

		e.it("each-of-two-instructions", "follows the instruction of each of two requests in one turn", rules("CLI-5"), func(ctx SpecContext) {
			e.needTestMode()
			e.needForm(ctx)
			t := e.turn(ctx,
				elicitStep(plainForm(), probe.User{Action: "accept", Pick: 0}, nil, obeyed()),
				elicitStep(plainForm(), probe.User{Action: "decline"}, nil, obeyed()),
			)
			t.expectObeyed()
		})

		e.it("exits-after-turn", "exits with status 0 when its prompt turn ends", rules("CLI-5"), func(ctx SpecContext) {
			e.needTestMode()
			const notOurs = "the client is no process acpconform started (it runs in-process, or connects by itself with --listen): its exit cannot be watched"
			if _, listening := e.subject.(*suite.Listener); listening || e.subject.InProcess() {
				Skip(notOurs) // before connecting: a --listen client's connections are counted
			}
			e.needForm(ctx)
			t := e.turn(ctx, elicitStep(plainForm(), probe.User{Action: "accept", Pick: 0}, nil, nil))
			exited := t.link.Exited()
			if exited == nil {
				Skip(notOurs)
			}
			// A process's end is bounded as its start is: shutting a runtime
			// down (its agent, its child processes) is as slow as bringing it
			// up on a loaded machine, and no rule asks for speed here.
			_, ok := receive(ctx, e.startup, exited)
			assert(ok, "the client was still running %s after its prompt turn had ended (--startup-timeout): a client in test mode exits with status 0 when its turn ends (docs/probe.md §2)\n%s", e.startup, noTestModeHint)
			assert(t.link.ExitedCleanly(), "the client %s when its prompt turn ended, want exit status 0 (docs/probe.md §2)\n%s", t.link.ExitDescription(), noTestModeHint)
		})

		e.it("client-refuses-binary-frame", "refuses a binary WebSocket frame, closing with 1003", rules("REM-1"), func(ctx SpecContext) {
			if why := e.noWebSocketOfTheClient(); why != "" {
				Skip(why) // before connecting: a --listen client's connections are counted
			}
			link := e.connectSubject(ctx, "connecting to "+e.subject.Name())
			ws, ok := link.Conn.(*wire.WebSocketConn)
			if !ok {
				link.Close()
				Fail(fmt.Sprintf("acpconform: %s says its transport is a WebSocket, but its connection is a %T", e.subject.Name(), link.Conn))
			}
			a := agent.New(agent.Config{Timeout: e.response})
			held := make(chan struct{}) // the turn stays open: the client waits for its end
			a.Append(script.Step{Hold: held})
			a.Connect(ws)
			DeferCleanup(func() {
				close(held)
				a.Close()
				_ = link.Close() // a client that refused may exit non-zero
				e.keepEvidence(link, a.Transcript().String)
			})
			e.mustStart("the client's initialize", a.WaitInitialize(e.startWait(ctx)))
			By("sending a binary frame after initialize")
			must("sending a binary frame", ws.WriteBinary(ctx, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{}}`)))
			_, closed := receive(ctx, e.response*3, ws.Done())
			assert(closed, "the client did not close the connection within %s of a binary frame: it must refuse it with 1003 (unsupported data), not ignore it", e.response*3)
			status := websocket.CloseStatus(ws.Err())
			assert(status == websocket.StatusUnsupportedData,
				"the client ended the connection with %s, want the close status 1003 (unsupported data): a binary frame must be refused, not ignored", showError(ws.Err()))
		})

		e.it("unadvertised-form-refused", "refuses a form it did not advertise with -32602", rules("CLI-4"), expectsError, func(ctx SpecContext) {
			if e.advertisesForm(ctx) {
				Skip("the client advertises form elicitation")
			}
			params := json.RawMessage(`{"sessionId":"mock-session-1","mode":"form","message":"Pick",` +
				`"requestedSchema":{"type":"object","required":["choice"],"properties":{"choice":` +
				`{"type":"string","title":"Choice","oneOf":[{"const":"choice_0","title":"A"}]}}}}`)
			t := e.turn(ctx, script.Step{Elicit: &script.Elicit{Params: script.JSON(params)}})
			ex := t.only()
			assert(ex.Answered && ex.Answer.Error != nil && ex.Answer.Error.Code == -32602,
				"the client, which did not advertise form elicitation, answered a form with %s, want JSON-RPC error -32602", answerOf(ex))
		})
	})
}

// noWebSocketOfTheClient says why a check of the client's WebSocket
// transport cannot run, from what the subject says of its transport;
// "" when the client's own transport is a WebSocket the harness holds.
func (e *env) noWebSocketOfTheClient() string {
	switch t := e.subject.Transport(); t {
	case suite.WebSocketTransport:
		return ""
	case suite.BridgeTransport:
		return "the client speaks to its agent through acpconform bridge (stdio): its WebSocket transport is not under test"
	case suite.StdioTransport:
		return "the client speaks to its agent on its stdio: it has no WebSocket transport under test (give it {url}, or check it with --listen)"
	case suite.InProcessTransport:
		return "the client runs in-process, on an in-memory pipe: it has no WebSocket transport under test"
	default:
		return fmt.Sprintf("the client's transport is %s: no WebSocket is under test", t)
	}
}

// obeyed asks the mock agent to compare the answer with the scripted
// user's instruction (CLI-5).
func obeyed() *script.AnswerExpect { return &script.AnswerExpect{User: true} }

// noTestModeHint ends a CLI-5 failure: the rule binds a client in test
// mode only.
const noTestModeHint = "if this client has no test mode, run with --no-scripted-user to check it as a free user"

// needTestMode skips a check of the test mode (CLI-5) when the client is
// checked as a free user.
func (e *env) needTestMode() {
	GinkgoHelper()
	if e.freeUser {
		Skip("the client is checked as a free user (--no-scripted-user): only a client in test mode must answer as its scripted user says (CLI-5)")
	}
}

// plainForm is deployForm without option _meta or descriptions: the form
// of checks that must not depend on whether the client tolerates them
// (CLI-3).
func plainForm() script.Elicit {
	return script.Elicit{Question: "Choose a deployment target", Choices: []script.Choice{
		{Label: "Preview"},
		{Label: "Production", Default: true},
	}}
}

// twelveOptions is a form whose last token, choice_11, is past ten.
func twelveOptions() script.Elicit {
	form := script.Elicit{Question: "Pick one of twelve"}
	for i := 0; i < 12; i++ {
		form.Choices = append(form.Choices, script.Choice{Label: fmt.Sprintf("Option %d", i)})
	}
	return form
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
	form.User, form.Expect = (*script.User)(&user), expect
	if meta != nil {
		form.Meta = script.JSON(meta)
	}
	return script.Step{Elicit: &form}
}

// clientTurn is one prompt turn of the client under test, played by the
// mock agent over link.
type clientTurn struct {
	a    *agent.Agent
	link *suite.Link
}

func (t clientTurn) exchanges() []agent.Exchange { return t.a.Exchanges() }

// only returns the one elicitation/create of the turn.
func (t clientTurn) only() agent.Exchange {
	GinkgoHelper()
	ex := t.exchanges()
	assert(len(ex) == 1, "the turn carried %d elicitation/create requests, want 1", len(ex))
	return ex[0]
}

// turn connects the client under test and plays steps in its prompt
// turn. It judges nothing the client answered: each check asserts its own
// rule.
func (e *env) turn(ctx context.Context, steps ...script.Step) clientTurn {
	GinkgoHelper()
	link := e.connectSubject(ctx, "connecting to "+e.subject.Name())
	a := agent.New(agent.Config{Timeout: e.response})
	a.Append(steps...)
	a.Connect(link.Conn)
	DeferCleanup(func() {
		a.Close()
		link.Close()
		e.keepEvidence(link, a.Transcript().String)
	})
	e.mustStart("the client's initialize", a.WaitInitialize(e.startWait(ctx)))
	wait, cancel := context.WithTimeout(ctx, e.turnBound(len(steps)))
	defer cancel()
	what := "the client's prompt turn"
	var completed []string
	for _, st := range steps {
		if st.Complete != nil { // a client that fails on it ends the turn early: say where
			completed = append(completed, strconv.Quote(*st.Complete))
		}
	}
	if completed != nil {
		what += ", in which the agent sent elicitation/complete for " + strings.Join(completed, ", then ") + ","
	}
	must(what, a.WaitTurns(wait, 1))
	return clientTurn{a, link}
}

// turnBound bounds the prompt turn of a client started for a check, with
// steps requests in it: the client's way from initialize to its
// session/new and prompt is still its start (a Node client at load 20
// takes seconds over it), then each request gets the response timeout.
func (e *env) turnBound(steps int) time.Duration {
	return e.startup + e.response*time.Duration(1+steps)
}

// expectValid fails the check when the client broke CLI-2 in the turn: an
// invalid answer, none or a second one to a request, or a message no ACP
// peer may send. A -32601 from a client that advertised form is CLI-1's
// failure, and an answer unlike its instruction CLI-5's.
func (t clientTurn) expectValid() {
	GinkgoHelper()
	check(clientProblems(withoutRule(withoutRule(t.a.Violations(), "CLI-1"), "ELI-8"), len(t.exchanges())))
}

// expectConforming fails the check when an answer of the turn carries
// content the request does not allow: accepted content that does not
// satisfy the requested schema, or content on a decline or cancel
// (ELI-8, a SHOULD). The other rules' problems are their checks'.
func (t clientTurn) expectConforming() {
	GinkgoHelper()
	var advice []string
	for i, ex := range t.exchanges() {
		for _, p := range ex.Problems {
			if ruleOf(p) == "ELI-8" {
				advice = append(advice, fmt.Sprintf("elicitation/create #%d: %s", i+1, p))
			}
		}
	}
	check(none("the client answered with content the request does not allow (ACP: content SHOULD conform to the requested schema, and receivers ignore it on decline and cancel)", advice))
}

// expectObeyed fails the check when a valid answer of the turn is not the
// one its scripted user asked for (CLI-5). An answer missing or invalid is
// for the CLI-1 and CLI-2 checks to report; with nothing left to judge, the
// check skips. An answer whose content ELI-8 advises against is judged: in
// test mode the instructed content is a MUST.
func (t clientTurn) expectObeyed() {
	GinkgoHelper()
	var unmet, unjudged []string
	for i, ex := range t.exchanges() {
		switch {
		case !ex.Answered:
			unjudged = append(unjudged, fmt.Sprintf("elicitation/create #%d got no answer (CLI-2)", i+1))
		case slices.ContainsFunc(ex.Problems, func(p string) bool { return ruleOf(p) != "ELI-8" }):
			unjudged = append(unjudged, fmt.Sprintf("elicitation/create #%d got an invalid answer (%s)", i+1, ruleOf(ex.Problems[0])))
		default:
			for _, u := range ex.Unmet {
				unmet = append(unmet, fmt.Sprintf("elicitation/create #%d: %s", i+1, u))
			}
		}
	}
	if err := none("the client answered validly, but not as its scripted user said", unmet); err != nil {
		Fail(err.Error() + "\n" + noTestModeHint)
	}
	if len(unjudged) > 0 {
		Skip("nothing left to compare with the scripted user's instructions: " + strings.Join(unjudged, "; ") + "; the checks of those rules report it")
	}
}

// withoutRule drops the violations, or the answer problems, that begin
// with rule: "elicitation/create #1: CLI-1: ..." or "CLI-1: ...".
func withoutRule(violations []string, rule string) []string {
	var out []string
	for _, v := range violations {
		problem := v
		if n, ok := elicitationOf(v); ok {
			problem = strings.TrimPrefix(v, "elicitation/create #"+n+": ")
		}
		if !strings.HasPrefix(problem, rule+": ") {
			out = append(out, v)
		}
	}
	return out
}

// ruleOf is the rule an answer problem begins with: CLI-2 of "CLI-2: ...".
func ruleOf(problem string) string {
	rule, _, _ := strings.Cut(problem, ":")
	return rule
}

// answerOf writes an exchange's answer for a sentence.
func answerOf(ex agent.Exchange) string {
	switch {
	case !ex.Answered:
		return "no answer"
	case ex.Answer.Error != nil:
		return ex.Answer.Error.Error()
	}
	return show(ex.Answer.Result)
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
	link := e.connectSubject(ctx, "connecting to "+e.subject.Name()+" to read its capabilities")
	a := agent.New(agent.Config{Timeout: e.response})
	a.Connect(link.Conn)
	defer func() { // before the check's own connection
		a.Close()
		link.Close()
	}()
	// Its transcript is the check's evidence only when it failed: a check
	// that fails later is shown its own connection, not this one.
	read := false
	DeferCleanup(func() {
		if !read {
			e.keepEvidence(link, a.Transcript().String)
		}
	})
	e.mustStart("the client's initialize, to read the capabilities it initializes with,", a.WaitInitialize(e.startWait(ctx)))
	wait, cancel := context.WithTimeout(ctx, e.turnBound(0))
	defer cancel()
	must("a prompt turn of the client, to read the capabilities it initializes with,", a.WaitTurns(wait, 1))
	e.clientCaps = a.Capabilities()
	e.form, e.known, read = script.AdvertisesForm(e.clientCaps), true, true
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
