package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

// res: the result contract (RES-1..4).
func (e *env) res() {
	Describe("RES: the result", func() {
		DescribeTable("has exactly three outcomes, with their status strings",
			func(ctx SpecContext, answer script.Answer, want probe.Outcome) {
				f := e.connect(ctx, formClient).answer(answer)
				Expect(f.probe(ctx, deploy())).To(BeOutcome(want))
			},
			e.entry("accepted", rules("RES-1"), script.Accept(0), accepted(0, "preview")),
			e.entry("declined", rules("RES-1"), script.Decline(), declined),
			e.entry("cancelled", rules("RES-1"), script.Cancel(), cancelled),
		)

		DescribeTable("refuses an unknown or missing action, never reading it as an outcome", expectsError,
			func(ctx SpecContext, answer script.Answer) {
				f := e.connect(ctx, formClient).answer(answer)
				Expect(f.probe(ctx, deploy())).To(BeOutcome(invalidResponse))
			},
			e.entry("_defer", rules("RES-2"), script.WithAction("_defer").WithContent(map[string]string{"choice": "choice_0"})),
			e.entry("bogus", rules("RES-2"), script.WithAction("bogus")),
			e.entry("Accept, capitalised", rules("RES-2"), script.WithAction("Accept").WithContent(map[string]string{"choice": "choice_0"})),
			e.entry("an empty action", rules("RES-2"), script.WithAction("")),
			e.entry("an empty object", rules("RES-2"), script.Result(map[string]any{})),
			e.entry("content without an action", rules("RES-2"), script.Result(map[string]any{"content": map[string]string{"choice": "choice_0"}})),
			e.entry("a null action", rules("RES-2"), script.Result(map[string]any{"action": nil, "content": map[string]string{"choice": "choice_0"}})),
			e.entry("a numeric action", rules("RES-2"), script.Result(map[string]any{"action": 1})),
			e.entry("a null result", rules("RES-2"), script.Result(nil)),
			e.entry("a string result", rules("RES-2"), script.Result("accept")),
			// Member names are exact: no ACP SDK reads "Action" as action
			// (Go's encoding/json would).
			e.entry("an Action member, capitalised", rules("RES-2"), script.Result(map[string]any{"Action": "accept", "content": map[string]string{"choice": "choice_0"}})),
		)

		e.it("null-value-accepted", "keeps a null value an acceptance: no outcome collapses into a missing value", rules("RES-3"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Accept(1))
			Expect(f.probe(ctx, ask("Pick", choice("a", "A"), choice(nil, "Nothing")))).To(BeOutcome(accepted(1, nil)))
		})

		DescribeTable("ignores content on a decline or a cancel",
			func(ctx SpecContext, answer script.Answer, want probe.Outcome) {
				f := e.connect(ctx, formClient).answer(answer)
				Expect(f.probe(ctx, deploy())).To(BeOutcome(want))
			},
			e.entry("a decline naming a choice", rules("RES-4"), script.Decline().WithContent(map[string]string{"choice": "choice_1"}), declined),
			e.entry("a cancel with garbage", rules("RES-4"), script.Cancel().WithContent("garbage"), cancelled),
		)
	})
}
