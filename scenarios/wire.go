package scenarios

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/judge"
	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/script"
)

// wireOnly labels the checks that need no probe adapter: they make the
// agent ask with a prompt and look only at the frames.
var wireOnly = Label("wire-only")

// wire: what any agent sends, seen on the wire alone (SCH, DEF-2, CAP-2,
// CAP-3), for agents without a probe adapter.
func (e *env) wire() {
	Describe("WIRE: what the agent sends, seen on the wire alone", func() {
		e.it("wire-well-formed-form", "sends one well-formed typed-choice form, scoped to the session", wireOnly,
			rules("SCH-1", "SCH-2", "SCH-3", "SCH-4", "SCH-5", "SCH-6", "DEF-2"), func(ctx SpecContext) {
				f := e.connect(ctx, formClient).answer(script.Decline())
				_, err := f.mc.Prompt(ctx, e.prompt()).Wait(e.wait(ctx))
				must("session/prompt", err)
				sent := f.sent()
				assert(len(sent) == 1, "the agent sent %d elicitation/create requests for the prompt %q, want 1", len(sent), e.prompt())
				expectNone("the agent sent a form that is not a well-formed typed choice", judge.TypedChoiceProblems(sent[0].Request.Params, f.session))
			})

		DescribeTable("sends nothing to a client without form elicitation",
			func(ctx SpecContext, caps string) {
				cfg := client.Config{}
				if caps != "" {
					cfg.Capabilities = json.RawMessage(caps)
				}
				f := e.connectCaps(ctx, cfg)
				if f == nil {
					return // refused with -32602, as CAP-2 allows
				}
				_, err := f.mc.Prompt(ctx, e.prompt()).Wait(e.wait(ctx))
				must("session/prompt", err)
				f.expectNoRequest("a client without form support gets no elicitation, and no permission request in its place")
			},
			e.entry("no capabilities", slug("wire-no-capabilities"), wireOnly, rules("CAP-2", "CAP-3"), ""),
			e.entry("elicitation {}", slug("wire-elicitation-empty"), wireOnly, rules("CAP-2", "CAP-3"), `{"elicitation":{}}`),
			e.entry("url alone", slug("wire-url-alone"), wireOnly, rules("CAP-2", "CAP-3"), `{"elicitation":{"url":{}}}`),
			e.entry("form false", slug("wire-form-false"), wireOnly, rules("CAP-2", "CAP-3"), `{"elicitation":{"form":false}}`),
		)
	})
}

// prompt is what makes the agent ask: the configured text, or the seed's
// deploy question as a probe request.
func (e *env) prompt() string {
	if e.promptText != "" {
		return e.promptText
	}
	return mustJSON(deploy())
}
