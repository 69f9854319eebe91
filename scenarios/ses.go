package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/internal/exactjson"
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

		e.it("three-pending-answered-in-reverse", fmt.Sprintf("resolves choices pending in %d sessions at once with their own answers, answered in reverse order", pendingAtOnce),
			fresh, rules("SES-2"), func(ctx SpecContext) {
				p := e.pendingSessions(ctx)
				By("answering the last elicitation first, the first last")
				for k := pendingAtOnce - 1; k >= 0; k-- {
					close(p.release[k])
					must(fmt.Sprintf("waiting for the answer to elicitation/create #%d", k+1), p.f.mc.WaitElicitations(e.wait(ctx), k+1))
				}
				for k := range pendingAtOnce {
					r := p.result(ctx, k)
					if err := outcomeIs(r.out, accepted(r.index, r.value)); err != nil {
						Fail(fmt.Sprintf("in %s, whose elicitation/create (number %d to arrive of %d) was answered when those after it were: %v", r.name, k+1, pendingAtOnce, err))
					}
				}
			})

		e.it("cancel-leaves-other-session-pending", "cancelling one session's turn leaves the other sessions' choices pending",
			fresh, rules("SES-2", "RTE-7"), func(ctx SpecContext) {
				p := e.pendingSessions(ctx)
				const cancelled = 1 // by the arrival of its request: one before it, one after
				By("cancelling the turn of " + p.names[cancelled] + " while every choice is pending")
				must("session/cancel", p.f.mc.CancelIn(e.wait(ctx), p.sessions[cancelled]))
				r := p.result(ctx, cancelled)
				expectEqual("the agent ended the cancelled prompt turn with stopReason %s, want %s", r.stop, "cancelled")
				for k := range pendingAtOnce {
					if k == cancelled {
						continue
					}
					select {
					case <-p.done[k]:
						Fail(fmt.Sprintf("the agent ended the turn of %s when the client cancelled %s's: sessions of one connection are independent", p.names[k], p.names[cancelled]))
					default:
					}
					pending := p.f.sent()[k].Request.ID
					for _, m := range p.f.mc.Received() {
						if m.Method == "$/cancel_request" && probe.SameValue(requestIDOf(m), pending) {
							Fail(fmt.Sprintf("the agent sent $/cancel_request for the elicitation/create %s of %s when the client cancelled %s's turn: %s",
								pending, p.names[k], p.names[cancelled], peer.Quote(m.Raw)))
						}
					}
				}
				By("answering the other sessions' choices")
				for k := range pendingAtOnce {
					close(p.release[k]) // the cancelled one's too: a late answer the agent may ignore
				}
				for k := range pendingAtOnce {
					if k == cancelled {
						continue
					}
					r = p.result(ctx, k)
					if err := outcomeIs(r.out, accepted(r.index, r.value)); err != nil {
						Fail(fmt.Sprintf("in %s, after the client cancelled %s's turn: %v", r.name, p.names[cancelled], err))
					}
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

// pendingAtOnce is how many sessions SES-2's checks hold pending on one
// connection: the contract's at least three (revision 4), one more than
// a pair, so that an agent with room for two turns shows it.
const pendingAtOnce = 3

// pendingSet is pendingAtOnce sessions of one connection, each with a
// prompt turn whose choice is pending: their elicitation/create requests
// arrived, and their answers wait for release. Index k is the kth request
// to arrive.
type pendingSet struct {
	f        *fixture
	sessions [pendingAtOnce]string // by arrival of their requests
	names    [pendingAtOnce]string // "session A"
	release  [pendingAtOnce]chan struct{}
	done     [pendingAtOnce]chan struct{}
	results  [pendingAtOnce]chan pendingResult
}

// pendingResult is how a session's turn ended.
type pendingResult struct {
	name  string
	out   probe.Outcome
	stop  string
	err   error
	req   probe.Request
	index int    // the option the answer picked
	value string // and its value
}

// pendingSessions opens pendingAtOnce sessions on one connection and
// prompts each; it returns once each has sent its elicitation/create.
// Every answer is "Production", which the sessions offer at different
// positions with values of their own: an answer delivered to the wrong
// session shows.
func (e *env) pendingSessions(ctx context.Context) *pendingSet {
	GinkgoHelper()
	f := e.connect(ctx, formClient)
	p := &pendingSet{f: f}
	for k := range pendingAtOnce {
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
	asks := []struct {
		name    string
		choices []probe.Choice
		index   int // of Production
		value   string
	}{
		{"session A", []probe.Choice{choice("a-preview", "Preview"), choice("a-production", "Production")}, 1, "a-production"},
		{"session B", []probe.Choice{choice("b-production", "Production"), choice("b-staging", "Staging"), choice("b-preview", "Preview")}, 0, "b-production"},
		{"session C", []probe.Choice{choice("c-staging", "Staging"), choice("c-preview", "Preview"), choice("c-production", "Production")}, 2, "c-production"},
	}
	reqs := map[string]probe.Request{}
	picks := map[string]pendingResult{}
	results := map[string]chan pendingResult{}
	dones := map[string]chan struct{}{}
	var order []string
	for i, a := range asks[:pendingAtOnce] {
		s := f.session
		if i > 0 {
			var err error
			s, err = f.mc.NewSession(e.wait(ctx))
			must(fmt.Sprintf("session/new for %s on the connection", a.name), err)
		}
		order = append(order, s)
		reqs[s] = ask("Choose a deployment target ("+a.name+")", a.choices...)
		picks[s] = pendingResult{name: a.name, index: a.index, value: a.value}
		results[s], dones[s] = make(chan pendingResult, 1), make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(dones[s])
			r := picks[s]
			r.req = reqs[s]
			r.out, r.stop, r.err = f.mc.ProbeIn(ctx, s, reqs[s])
			results[s] <- r
		}()
		// One at a time: each prompt comes while the choices before it
		// are pending, as an editor's next thread does.
		must("waiting for the elicitation/create of "+a.name, f.mc.WaitArrived(e.wait(ctx), i+1))
	}
	seen := map[string]int{}
	for k, el := range f.sent() {
		s := sessionIn(el.Request.Params)
		if _, ok := reqs[s]; !ok {
			Fail(fmt.Sprintf("the agent sent the elicitation/create of id %s with the sessionId %s, which is no session's of %s", show(el.Request.ID), show(json.RawMessage(mustJSON(s))), strings.Join(order, ", ")))
		}
		if prev, twice := seen[s]; twice {
			Fail(fmt.Sprintf("the agent sent the elicitation/create of id %s and that of id %s with the sessionId %s, though %d sessions asked", show(f.sent()[prev].Request.ID), show(el.Request.ID), s, pendingAtOnce))
		}
		seen[s] = k
		p.sessions[k], p.names[k] = s, picks[s].name
		p.done[k], p.results[k] = dones[s], results[s]
	}
	return p
}

// result waits for the turn of the kth session to end, and fails the
// check unless it ended with an outcome; a cancelled turn needs none.
func (p *pendingSet) result(ctx context.Context, k int) pendingResult {
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
	return pendingResult{}
}

// sessionIn is the sessionId of an elicitation/create's params.
func sessionIn(params json.RawMessage) string {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = exactjson.Unmarshal(params, &p) // "SessionId" names no session
	return p.SessionID
}

// requestIDOf is the requestId of a $/cancel_request.
func requestIDOf(m peer.Message) json.RawMessage {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = exactjson.Unmarshal(m.Params, &p) // "RequestId" names no request
	return p.RequestID
}
