package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/reference"
)

// rte: route registration and the connection (RTE-1..4, RTE-7).
func (e *env) rte() {
	Describe("RTE: route registration and the connection", func() {
		e.it("method-not-found-surfaced", "surfaces -32601 from a client without the route as a request error, and does nothing else", rules("RTE-1"), expectsError, func(ctx SpecContext) {
			f := e.connect(ctx, client.Config{Capabilities: client.FormElicitation, Unregistered: true})
			Expect(f.probe(ctx, withFallback(deploy(), declinedFallback, 0))).To(BeOutcome(requestError(-32601, map[string]string{"method": "elicitation/create"})))
			expectEqual("the agent sent the requests %s, want %s: no retry, no permission request, no fallback", f.requests(), []string{"elicitation/create"})
		})

		DescribeTable("surfaces any other JSON-RPC error with code, message and data intact", expectsError,
			func(ctx SpecContext, answer script.Answer, code int, message string, data any) {
				f := e.connect(ctx, formClient).answer(answer)
				want := requestError(code, data)
				want.Message = message
				Expect(f.probe(ctx, withFallback(deploy(), declinedFallback, 0))).To(BeOutcome(want))
			},
			e.entry("-32602", slug("code-32602"), rules("RTE-2"), script.Fail(-32602, "Invalid params", map[string]string{"error": "missing sessionId"}), -32602, "Invalid params", map[string]string{"error": "missing sessionId"}),
			e.entry("-32603", slug("code-32603"), rules("RTE-2"), script.Fail(-32603, "Internal error", nil), -32603, "Internal error", nil),
			e.entry("an application code with structured data", rules("RTE-2"),
				script.Fail(4242, "Editor busy", map[string]any{"retryAfter": []int{1, 2}, "nested": map[string]bool{"ok": false}}),
				4242, "Editor busy", map[string]any{"retryAfter": []int{1, 2}, "nested": map[string]bool{"ok": false}}),
			e.entry("-32601 in another SDK's words", rules("RTE-1", "RTE-2"), script.Fail(-32601, `"Method not found": elicitation/create`, nil), -32601, `"Method not found": elicitation/create`, nil),
		)

		e.it("no-opt-in-needed", "needs no opt-in of the sending agent to send", rules("RTE-4"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.AcceptDefault())
			Expect(f.probe(ctx, deploy())).To(BeOutcome(accepted(1, "production")))
			expectEqual("the agent sent the requests %s, want %s", f.requests(), []string{"elicitation/create"})
		})

		e.it("close-ends-pending-choice", "ends a pending choice promptly with a connection error when the connection closes", fresh, rules("RTE-7"), inProcess, expectsError, func(ctx SpecContext) {
			e.needInProcess()
			s, f := e.goSession(ctx, client.Config{Capabilities: client.FormElicitation})
			f.mc.Append(script.Elicitation{Answer: script.CloseConnection()})
			_, err := reference.AskChoice(e.wait(ctx), s, "Pick", []reference.Choice[string]{{Value: "a", Label: "A"}})
			expectError("AskChoice returned %s when the connection closed, want the connection error %s", err, reference.ErrConnectionClosed)
			var reqErr *reference.RequestError
			assert(!errors.As(err, &reqErr), "AskChoice returned the request error %q when the connection closed: a closed connection is not an answer", err)
		})

		// Promptly is within 2 seconds (revision 2): a turn that tells the
		// client at once and ends 3 seconds later breaks RTE-7.
		e.it("cancel-ends-turn-promptly", "ends the prompt turn within 2s of session/cancel, while its elicitation is pending", fresh, rules("RTE-7"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Never())
			turn := f.mc.Prompt(ctx, mustJSON(deploy()))
			must("waiting for the elicitation/create", f.mc.WaitElicitations(e.wait(ctx), 1))
			f.cancelPromptly(ctx, turn, "its elicitation/create was pending")
		})

		e.it("cancel-ends-fallback-promptly", "ends the prompt turn within 2s of session/cancel, while its fallback waits", fresh, rules("RTE-7", "FB-2"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			turn := f.mc.Prompt(ctx, mustJSON(withFallback(deploy(), declinedFallback, 3_600_000)))
			f.cancelPromptly(ctx, turn, "its fallback waited an hour")
		})

		e.it("close-ends-choice-promptly", "ends a pending choice within 2s of the connection closing", rules("RTE-7"), inProcess, expectsError, func(ctx SpecContext) {
			e.needInProcess()
			s, f := e.goSession(ctx, formClient)
			f.mc.Append(script.Elicitation{Answer: script.Never()})
			done := make(chan error, 1)
			go func() {
				_, err := reference.AskChoice(ctx, s, "Pick", []reference.Choice[string]{{Value: "a", Label: "A"}})
				done <- err
			}()
			must("waiting for the elicitation/create", f.mc.WaitElicitations(e.wait(ctx), 1))
			closed := time.Now()
			f.mc.Hangup()
			var err error
			e.expectPromptly(ctx, closed, func(stop <-chan struct{}) bool {
				select {
				case err = <-done:
					return true
				case <-stop:
					return false
				}
			}, nil, "AskChoice returned", "AskChoice did not return", "the close of the connection")
			expectError("AskChoice returned %s when the connection closed, want the connection error %s", err, reference.ErrConnectionClosed)
		})

		e.it("stdin-end-exits-promptly", "exits within 2s when its stdin ends while a choice is pending (stdio)", fresh, rules("RTE-7"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Never())
			if !f.link.Stdio() {
				Skip("the agent is not a process on stdio: only there does the connection end with stdin")
			}
			f.mc.Prompt(ctx, mustJSON(deploy()))
			must("waiting for the elicitation/create", f.mc.WaitElicitations(e.wait(ctx), 1))
			f.mc.Transcript().Note("closing the agent's stdin, the elicitation/create pending")
			ended := time.Now()
			must("closing the agent's stdin", f.link.CloseInput())
			e.expectPromptly(ctx, ended, onClose(f.link.Exited()), nil, "the agent's process exited", "the agent's process did not exit", "the end of its stdin, with its elicitation/create pending")
		})

		e.it("cancel-tells-client", "ends a pending choice when the caller cancels, and tells the client", fresh, rules("RTE-7"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Never())
			turn := f.mc.Prompt(ctx, mustJSON(deploy()))
			must("waiting for the elicitation/create", f.mc.WaitElicitations(e.wait(ctx), 1))
			By("cancelling the prompt turn while the elicitation is pending")
			must("session/cancel", f.mc.Cancel(e.wait(ctx)))
			f.expectCancelled(ctx, turn, "its elicitation/create was pending")
			id := f.sent()[0].Request.ID
			var ids []json.RawMessage
			err := f.mc.WaitReceived(f.e.wait(ctx), "$/cancel_request", func(received []peer.Message) bool {
				ids = nil
				for _, m := range received {
					if m.Method == "$/cancel_request" {
						ids = append(ids, requestIDOf(m)) // by its exact name: "RequestID" cancels nothing
					}
				}
				return slices.ContainsFunc(ids, func(got json.RawMessage) bool { return probe.SameValue(got, id) })
			})
			told := err == nil
			assert(told, "the agent did not send $/cancel_request for the pending elicitation/create %s within %s of the cancel; it cancelled %s",
				id, e.response, showIDs(ids))
		})
	})
}

// cancelPromptly cancels turn with session/cancel, and again, soon at
// first, until it ends (a cancel that comes before the turn has begun cancels
// nothing), and fails the spec unless the agent ends it promptly, with
// stopReason cancelled. what says what was pending.
func (f *fixture) cancelPromptly(ctx context.Context, turn *client.Turn, what string) {
	GinkgoHelper()
	By("cancelling the prompt turn while " + what)
	first := time.Now()
	must("session/cancel", f.mc.Cancel(f.e.wait(ctx)))
	again := func() {
		c, cancel := context.WithTimeout(ctx, f.e.response)
		defer cancel()
		_ = f.mc.Cancel(c)
	}
	f.e.expectPromptly(ctx, first, onClose(turn.Done()), again, "the agent ended the prompt turn", "the agent did not end the prompt turn", "session/cancel, while "+what)
	f.expectCancelled(ctx, turn, what)
}

// onClose is an event for expectPromptly: done closing.
func onClose(done <-chan struct{}) func(stop <-chan struct{}) bool {
	return func(stop <-chan struct{}) bool {
		select {
		case <-done:
			return true
		case <-stop:
			return false
		}
	}
}

// expectPromptly fails the spec unless the event that happened returns
// true within the bound of "promptly" of start (RTE-7). happened waits
// for the event until stop closes. It is given the bound and then the
// response timeout, so that a late event can be told how late it was:
// "the agent ended the prompt turn 3.0s after session/cancel; the
// contract allows 2s (RTE-7)". tick, when not nil, runs again and again
// until then, soon at first (see retryUntil). did and didNot say the event as done and as not done.
func (e *env) expectPromptly(ctx context.Context, start time.Time, happened func(stop <-chan struct{}) bool, tick func(), did, didNot, after string) {
	GinkgoHelper()
	watch := e.promptly + e.response
	wctx, cancel := context.WithDeadline(ctx, start.Add(watch))
	defer cancel()
	ticking := make(chan struct{})
	go func() {
		defer close(ticking)
		if tick != nil {
			first := true
			retryUntil(wctx, watch, wctx.Done(), func() {
				if !first { // the caller has done it once already
					tick()
				}
				first = false
			})
		}
	}()
	ok := happened(wctx.Done())
	took := time.Since(start)
	cancel()
	<-ticking
	allows := "the contract allows " + DefaultPromptly.String()
	if e.promptly != DefaultPromptly {
		allows += ", raised to " + e.promptly.String() + " by --promptly-within"
	}
	rule := "RTE-7" // where the bound is set; a check of another rule (ELI-9) names its own
	for _, l := range CurrentSpecReport().Labels() {
		if id, ok := strings.CutPrefix(l, "rule:"); ok {
			rule = id
			break
		}
	}
	assert(ok, "%s within %s of %s; %s (%s)", didNot, watch, after, allows, rule)
	assert(took <= e.promptly, "%s %.1fs after %s; %s (%s)", did, took.Seconds(), after, allows, rule)
}

// showIDs writes request ids for a sentence: "none" for none.
func showIDs(ids []json.RawMessage) string {
	if len(ids) == 0 {
		return "none"
	}
	var s []string
	for _, id := range ids {
		s = append(s, show(id))
	}
	return strings.Join(s, ", ")
}
