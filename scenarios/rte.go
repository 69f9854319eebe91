package scenarios

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
	"github.com/acpconform/acpconform/reference"
)

// rte: route registration and the connection (RTE-1..4, RTE-7).
func (e *env) rte() {
	Describe("RTE: route registration and the connection", func() {
		e.it("method-not-found-surfaced", "surfaces -32601 from a client without the route as a request error, and does nothing else", rules("RTE-1"), func(ctx SpecContext) {
			f := e.connect(ctx, client.Config{Capabilities: client.FormElicitation, Unregistered: true})
			Expect(f.probe(ctx, withFallback(deploy(), declinedFallback, 0))).To(BeOutcome(requestError(-32601, map[string]string{"method": "elicitation/create"})))
			expectEqual("the agent sent the requests %s, want %s: no retry, no permission request, no fallback", f.requests(), []string{"elicitation/create"})
		})

		DescribeTable("surfaces any other JSON-RPC error with code, message and data intact",
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

		e.it("close-ends-pending-choice", "ends a pending choice promptly with a connection error when the connection closes", rules("RTE-7"), inProcess, func(ctx SpecContext) {
			e.needInProcess()
			s, f := e.goSession(ctx, client.Config{Capabilities: client.FormElicitation})
			f.mc.Append(script.Elicitation{Answer: script.CloseConnection()})
			_, err := reference.AskChoice(e.wait(ctx), s, "Pick", []reference.Choice[string]{{Value: "a", Label: "A"}})
			expectError("AskChoice returned %s when the connection closed, want the connection error %s", err, reference.ErrConnectionClosed)
			var reqErr *reference.RequestError
			assert(!errors.As(err, &reqErr), "AskChoice returned the request error %q when the connection closed: a closed connection is not an answer", err)
		})

		e.it("cancel-tells-client", "ends a pending choice when the caller cancels, and tells the client", rules("RTE-7"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Never())
			turn := f.mc.Prompt(ctx, mustJSON(deploy()))
			must("waiting for the elicitation/create", f.mc.WaitElicitations(e.wait(ctx), 1))
			By("cancelling the prompt turn while the elicitation is pending")
			must("session/cancel", f.mc.Cancel(e.wait(ctx)))
			f.expectCancelled(ctx, turn, "its elicitation/create was pending")
			id := f.sent()[0].Request.ID
			var ids []json.RawMessage
			told := poll(ctx, e.response, 10*time.Millisecond, func() bool {
				ids = nil
				for _, m := range f.mc.Received() {
					if m.Method == "$/cancel_request" {
						var p struct{ RequestID json.RawMessage }
						_ = json.Unmarshal(m.Params, &p)
						ids = append(ids, p.RequestID)
					}
				}
				return slices.ContainsFunc(ids, func(got json.RawMessage) bool { return probe.SameValue(got, id) })
			})
			assert(told, "the agent did not send $/cancel_request for the pending elicitation/create %s within %s of the cancel; it cancelled %s",
				id, e.response, showIDs(ids))
		})
	})
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
