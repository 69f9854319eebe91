package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/peer"
	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

// capabilities: capability negotiation (CAP-1..4, RTE-3).
func (e *env) capabilities() {
	Describe("CAP: capability negotiation", func() {
		DescribeTable("without form support nothing is sent and the caller hears so", expectsError,
			func(ctx SpecContext, caps string) {
				cfg := client.Config{}
				if caps != "" {
					cfg.Capabilities = json.RawMessage(caps)
				}
				f := e.connectCaps(ctx, cfg)
				if f == nil {
					return // refused with -32602, as CAP-2 allows
				}
				Expect(f.probe(ctx, deploy())).To(BeOutcome(unsupported))
				f.expectNoRequest("a client without form support gets no elicitation, and no permission request in its place")
			},
			e.entry("no capabilities at all", rules("CAP-2", "CAP-3"), ""),
			e.entry("capabilities without elicitation", rules("CAP-2"), `{"fs":{"readTextFile":true,"writeTextFile":false}}`),
			e.entry("elicitation null", rules("CAP-2"), `{"elicitation":null}`),
			e.entry("elicitation {}", slug("elicitation-empty"), rules("CAP-2"), `{"elicitation":{}}`),
			e.entry("form null", rules("CAP-2"), `{"elicitation":{"form":null}}`),
			e.entry("url alone", rules("CAP-2"), `{"elicitation":{"url":{}}}`),
			e.entry("url, and form null", rules("CAP-2"), `{"elicitation":{"url":{},"form":null}}`),
			// Only a JSON object advertises form (revision 2): a client
			// that says "form": false means no. These are malformed under
			// the ACP schema, and the agent may refuse them instead
			// (revision 3; see connectCaps).
			e.entry("form false", rules("CAP-2", "CAP-1"), `{"elicitation":{"form":false}}`),
			e.entry("form true", rules("CAP-2", "CAP-1"), `{"elicitation":{"form":true}}`),
			e.entry("form a string", rules("CAP-2", "CAP-1"), `{"elicitation":{"form":"yes"}}`),
			e.entry("form an array", rules("CAP-2", "CAP-1"), `{"elicitation":{"form":[]}}`),
			e.entry("form a number", rules("CAP-2", "CAP-1"), `{"elicitation":{"form":1}}`),
			e.entry("elicitation a string", rules("CAP-2", "CAP-1"), `{"elicitation":"form"}`),
			e.entry("url, and form false", rules("CAP-2", "CAP-1"), `{"elicitation":{"url":{},"form":false}}`),
			// Member names are exact, as ACP's SDKs read them (revision 5):
			// "Form" advertises nothing, though Go's encoding/json reads it
			// as form.
			e.entry("Form, capitalised", rules("CAP-2", "CAP-1"), `{"elicitation":{"Form":{}}}`),
		)

		DescribeTable("with form support the request is sent",
			func(ctx SpecContext, caps string) {
				f := e.connectCaps(ctx, client.Config{Capabilities: json.RawMessage(caps)})
				if f == nil {
					return // "url": false is malformed: refused with -32602, as strict SDKs do
				}
				f.answer(script.Accept(1))
				Expect(f.probe(ctx, deploy())).To(BeOutcome(accepted(1, "production")))
				f.expectSent(1, "a client that advertises form gets the request")
			},
			e.entry("form {}", slug("form-empty"), rules("CAP-1"), `{"elicitation":{"form":{}}}`),
			e.entry("form with metadata", rules("CAP-1"), `{"elicitation":{"form":{"_meta":{"vendor.example/x":1}}}}`),
			e.entry("form and url", rules("CAP-1"), `{"elicitation":{"form":{},"url":{}}}`),
			e.entry("form with an unknown field", rules("CAP-1"), `{"elicitation":{"form":{"x":1}}}`),
			e.entry("form, and url false", rules("CAP-1"), `{"elicitation":{"form":{},"url":false}}`),
		)

		e.it("no-permission-request", "sends no permission request in place of an elicitation, fallback or not", rules("CAP-3"), expectsError, func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			Expect(f.probe(ctx, withFallback(deploy(), declinedFallback, 0))).To(BeOutcome(declined))
			Expect(f.probe(ctx, deploy())).To(BeOutcome(unsupported))
			f.expectNoRequest("a client without form support gets no permission request in place of an elicitation")
		})

		e.it("per-connection-at-once", "keeps capabilities per connection: two connections, two answers, at once", fresh, rules("CAP-4"), expectsError, func(ctx SpecContext) {
			// The form connection's answer waits for the other connection's
			// whole probe: its elicitation is pending all the while.
			bareDone := make(chan struct{})
			withForm := e.connect(ctx, formClient).answer(script.Accept(0).When(bareDone))
			without := e.connect(ctx, bareClient)
			var wg sync.WaitGroup
			var formOut, bareOut probe.Outcome
			run := func(f *fixture, out *probe.Outcome, done func()) {
				defer wg.Done()
				defer GinkgoRecover()
				defer done()
				*out = f.probe(ctx, deploy())
			}
			wg.Add(2)
			go run(withForm, &formOut, func() {})
			go run(without, &bareOut, func() { close(bareDone) })
			wg.Wait()
			Expect(formOut).To(BeOutcome(accepted(0, "preview")))
			Expect(bareOut).To(BeOutcome(unsupported))
			without.expectNoRequest("the connection without form support gets nothing, whatever the other advertises")
			withForm.expectSent(1, "the connection with form support gets the request, whatever the other advertises")
		})

		e.it("route-without-capability", "sends nothing to a client that registered the route but did not advertise form", rules("RTE-3", "CAP-1"), expectsError, func(ctx SpecContext) {
			f := e.connect(ctx, client.Config{Capabilities: json.RawMessage(`{"elicitation":{"url":{}}}`)}).answer(script.Accept(0))
			Expect(f.probe(ctx, withFallback(deploy(), errorFallback, 0))).To(BeOutcome(failedWith(probe.ErrorFallback)))
			f.expectNoRequest("the capability decides, not the route")
		})
	})
}

// connectCaps is connect for a check of capabilities. Where cfg's are
// malformed under the ACP schema (see malformedCaps), CAP-2 lets the agent
// refuse initialize with -32602 (Invalid params), as SDKs that validate
// capabilities do (the TypeScript SDK's zod schemas, the Python SDK's
// pydantic models), and connectCaps returns nil when it did: the check has
// passed, for nothing more can happen on the connection. Any other error,
// or the agent's end, fails the check. Such a connection is never shared:
// a refused one could serve no other check.
func (e *env) connectCaps(ctx context.Context, cfg client.Config) *fixture {
	GinkgoHelper()
	if !malformedCaps(cfg.Capabilities) {
		return e.connect(ctx, cfg)
	}
	return e.connectOwn(ctx, cfg, func(ctx context.Context, f *fixture) bool {
		GinkgoHelper()
		err := f.mc.Initialize(e.startWait(ctx))
		var refusal *peer.Error
		if !errors.As(err, &refusal) {
			e.mustStart("initialize", err) // accepted, or no answer at all
			return true
		}
		assert(refusal.Code == codeInvalidParams,
			"the agent refused initialize with JSON-RPC error %d, want -32602 (Invalid params) or an answer: CAP-2 lets an agent refuse "+
				"capabilities malformed under the ACP schema (%s) with -32602 alone, as SDKs that validate them do", refusal.Code, cfg.Capabilities)
		f.expectNoRequest("an agent that refused the client's initialize may send it nothing")
		By("the agent refused the malformed capabilities with -32602, as CAP-2 allows")
		f.mc.Transcript().Note("the agent refused initialize with -32602, as CAP-2 allows for capabilities malformed under the ACP schema")
		return false
	})
}

// codeInvalidParams is JSON-RPC's Invalid params.
const codeInvalidParams = -32602

// malformedCaps reports whether caps, client capabilities as sent in
// initialize, break the ACP schema where CAP-1 and CAP-2 look:
// elicitation, or its form or url, is present and neither a JSON object
// nor null.
func malformedCaps(caps json.RawMessage) bool {
	bad := func(v gjson.Result) bool { return v.Exists() && !v.IsObject() && v.Type != gjson.Null }
	e := gjson.GetBytes(caps, "elicitation")
	return bad(e) || (e.IsObject() && (bad(e.Get("form")) || bad(e.Get("url"))))
}
