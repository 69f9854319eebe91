package scenarios

import (
	"context"
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

// sessionsInTurn is how many sessions SES-1's check opens on one
// connection, one after another: the contract's at least 50 (revision 4),
// more than an editor's first few, so that an agent that breaks after some
// count of sessions shows it, with --isolate too.
const sessionsInTurn = 50

// ses: many sessions on one connection, as editors use agents (SES-1,
// SES-2). Every check of a shared run also checks SES-1 on the side: a
// check that fails on a connection that served earlier sessions and
// passes on a fresh one fails SES-1 (share.go).
func (e *env) ses() {
	Describe("SES: many sessions on one connection", func() {
		e.it("sessions-in-turn-answered-alike", fmt.Sprintf("serves %d sessions of one connection in turn, each with its own answer", sessionsInTurn),
			fresh, rules("SES-1"), func(ctx SpecContext) {
				f := e.connect(ctx, formClient)
				answers := []struct {
					answer script.Answer
					want   func(i int) probe.Outcome
				}{
					{script.Accept(1), func(i int) probe.Outcome { return accepted(1, sessionValue(i, "production")) }},
					{script.Accept(0), func(i int) probe.Outcome { return accepted(0, sessionValue(i, "preview")) }},
					{script.Decline(), func(int) probe.Outcome { return declined }},
					{script.Cancel(), func(int) probe.Outcome { return cancelled }},
				}
				for i := range sessionsInTurn {
					session := f.session
					if i > 0 {
						var err error
						session, err = f.mc.NewSession(e.wait(ctx))
						must(fmt.Sprintf("session/new for session %d of %d on the connection", i+1, sessionsInTurn), err)
					}
					a := answers[i%len(answers)]
					f.answer(a.answer)
					got := f.probeIn(ctx, session, sessionDeploy(i), fmt.Sprintf("session %d of %d", i+1, sessionsInTurn))
					if err := outcomeIs(got, a.want(i)); err != nil {
						Fail(fmt.Sprintf("in session %d of %d on one connection (the sessions before it answered as they should): %v", i+1, sessionsInTurn, err))
					}
				}
			})

		e.it("two-pending-answered-in-reverse", "resolves choices pending in two sessions at once with their own answers, answered in reverse order",
			fresh, rules("SES-2"), func(ctx SpecContext) {
				p := e.twoPending(ctx)
				By("answering the second elicitation first")
				close(p.release[1])
				must("waiting for the answer to the second elicitation/create", p.f.mc.WaitElicitations(e.wait(ctx), 2))
				close(p.release[0])
				for k := range 2 {
					r := p.result(ctx, k)
					if err := outcomeIs(r.out, accepted(r.index, r.value)); err != nil {
						Fail(fmt.Sprintf("in %s, whose elicitation/create was answered %s: %v", r.name, []string{"second", "first"}[k], err))
					}
				}
			})

		e.it("cancel-leaves-other-session-pending", "cancelling one session's turn leaves the other session's choice pending",
			fresh, rules("SES-2", "RTE-7"), func(ctx SpecContext) {
				p := e.twoPending(ctx)
				cancelled, other := 0, 1 // by the arrival of their requests
				By("cancelling the turn of " + p.names[cancelled] + " while both choices are pending")
				must("session/cancel", p.f.mc.CancelIn(e.wait(ctx), p.sessions[cancelled]))
				r := p.result(ctx, 0)
				expectEqual("the agent ended the cancelled prompt turn with stopReason %s, want %s", r.stop, "cancelled")
				select {
				case <-p.done[1]:
					Fail(fmt.Sprintf("the agent ended the turn of %s when the client cancelled %s's: sessions of one connection are independent", p.names[other], p.names[cancelled]))
				default:
				}
				pending := p.f.sent()[1].Request.ID
				for _, m := range p.f.mc.Received() {
					if m.Method == "$/cancel_request" && probe.SameValue(requestIDOf(m), pending) {
						Fail(fmt.Sprintf("the agent sent $/cancel_request for the elicitation/create %s of %s when the client cancelled %s's turn: %s",
							pending, p.names[other], p.names[cancelled], peer.Quote(m.Raw)))
					}
				}
				By("answering the other session's choice")
				close(p.release[1])
				close(p.release[0]) // cancelled already: a late answer the agent may ignore
				r = p.result(ctx, 1)
				if err := outcomeIs(r.out, accepted(r.index, r.value)); err != nil {
					Fail(fmt.Sprintf("in %s, after the client cancelled %s's turn: %v", r.name, p.names[cancelled], err))
				}
			})
	})
}

// sessionValue is a value unique to session i of a check, so that an
// outcome of another session cannot pass for its own.
func sessionValue(i int, name string) string { return fmt.Sprintf("%s-%d", name, i+1) }

// sessionDeploy is deploy with session i's values.
func sessionDeploy(i int) probe.Request {
	return ask("Choose a deployment target",
		choice(sessionValue(i, "preview"), "Preview"),
		withDefault(described(choice(sessionValue(i, "production"), "Production"), "Deploy to the production environment.")),
	)
}

// probeIn runs a probe request in one of the connection's sessions, as
// probe does in its only one; which names it in a failure.
func (f *fixture) probeIn(ctx context.Context, session string, req probe.Request, which string) probe.Outcome {
	GinkgoHelper()
	out, stop, err := f.mc.ProbeIn(f.e.wait(ctx), session, req)
	f.failProbe(err, req, which)
	expectEqual("the agent ended the probe's prompt turn in "+which+" with stopReason %s, want %s", stop, "end_turn")
	return out
}

// pendingPair is two sessions of one connection, each with a prompt turn
// whose choice is pending: their elicitation/create requests arrived, and
// their answers wait for release. Index k is the kth request to arrive.
type pendingPair struct {
	f        *fixture
	sessions [2]string // by arrival of their requests
	names    [2]string // "session A"
	release  [2]chan struct{}
	done     [2]chan struct{}
	results  [2]chan pairResult
}

// pairResult is how a session's turn ended.
type pairResult struct {
	name  string
	out   probe.Outcome
	stop  string
	err   error
	req   probe.Request
	index int    // the option the answer picked
	value string // and its value
}

// twoPending opens two sessions on one connection and prompts both; it
// returns once both have sent their elicitation/create. Both answer
// "Production", which the two sessions offer at different positions with
// values of their own: an answer delivered to the wrong session shows.
func (e *env) twoPending(ctx context.Context) *pendingPair {
	GinkgoHelper()
	f := e.connect(ctx, formClient)
	second, err := f.mc.NewSession(e.wait(ctx))
	must("session/new for a second session on the connection", err)
	p := &pendingPair{f: f}
	for k := range 2 {
		p.release[k] = make(chan struct{})
		f.answer(script.AcceptLabel("Production").When(p.release[k]))
	}
	DeferCleanup(func() { // a check that fails early leaves nothing held
		for _, r := range p.release {
			select {
			case <-r:
			default:
				close(r)
			}
		}
	})
	reqs := map[string]probe.Request{
		f.session: ask("Choose a deployment target (session A)",
			choice("a-preview", "Preview"), choice("a-production", "Production")),
		second: ask("Choose a deployment target (session B)",
			choice("b-production", "Production"), choice("b-staging", "Staging"), choice("b-preview", "Preview")),
	}
	picks := map[string]pairResult{
		f.session: {name: "session A", index: 1, value: "a-production"},
		second:    {name: "session B", index: 0, value: "b-production"},
	}
	results := map[string]chan pairResult{}
	dones := map[string]chan struct{}{}
	for _, s := range []string{f.session, second} {
		results[s], dones[s] = make(chan pairResult, 1), make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(dones[s])
			r := picks[s]
			r.req = reqs[s]
			r.out, r.stop, r.err = f.mc.ProbeIn(ctx, s, reqs[s])
			results[s] <- r
		}()
		// One at a time: the second prompt comes while the first's choice
		// is pending, as an editor's second thread does.
		must("waiting for the elicitation/create of "+picks[s].name, f.mc.WaitArrived(e.wait(ctx), len(results)))
	}
	for k, el := range f.sent() {
		s := sessionIn(el.Request.Params)
		if _, ok := reqs[s]; !ok {
			Fail(fmt.Sprintf("the agent sent elicitation/create #%d with the sessionId %s, which is neither session's (%s, %s)", k+1, show(json.RawMessage(mustJSON(s))), f.session, second))
		}
		p.sessions[k], p.names[k] = s, picks[s].name
		p.done[k], p.results[k] = dones[s], results[s]
	}
	if p.sessions[0] == p.sessions[1] {
		Fail(fmt.Sprintf("the agent sent both elicitation/create requests with the sessionId %s, though two sessions asked", p.sessions[0]))
	}
	return p
}

// result waits for the turn of the kth session to end, and fails the
// check unless it ended with an outcome; a cancelled turn needs none.
func (p *pendingPair) result(ctx context.Context, k int) pairResult {
	GinkgoHelper()
	w := p.f.e.wait(ctx)
	select {
	case r := <-p.results[k]:
		if r.stop != "cancelled" {
			p.f.failProbe(r.err, r.req, r.name)
		}
		return r
	case <-w.Done():
		Fail(fmt.Sprintf("the prompt turn of %s did not end within %s of its answer", p.names[k], p.f.e.response))
	}
	return pairResult{}
}

// sessionIn is the sessionId of an elicitation/create's params.
func sessionIn(params json.RawMessage) string {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(params, &p)
	return p.SessionID
}

// requestIDOf is the requestId of a $/cancel_request.
func requestIDOf(m peer.Message) json.RawMessage {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.RequestID
}
