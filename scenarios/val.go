package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/probe"
)

// val: invalid arguments (VAL-1..5, DEF-1).
func (e *env) val() {
	Describe("VAL: invalid arguments", func() {
		invalid := func(message string) probe.Outcome {
			o := failedWith(probe.ErrorInvalidArgument)
			o.Message = message
			return o
		}
		DescribeTable("are refused with the contract's message, before anything is sent",
			func(ctx SpecContext, req probe.Request, message string) {
				f := e.connect(ctx, formClient)
				Expect(f.probe(ctx, req)).To(BeOutcome(invalid(message)))
				f.expectSent(0, "ask_choice refuses invalid arguments before anything is sent")
			},
			e.entry("an empty question", rules("VAL-1"), ask("", choice("a", "A")), "question must not be blank"),
			e.entry("a question of white space", rules("VAL-1"), ask(" \t\n\u00a0", choice("a", "A")), "question must not be blank"),
			e.entry("no choices", rules("VAL-2"), ask("Q"), "choices must not be empty"),
			e.entry("an empty label", rules("VAL-3"), ask("Q", choice("a", "A"), choice("b", "")), "choice labels must not be blank"),
			e.entry("a label of white space", rules("VAL-3"), ask("Q", choice("a", "\t ")), "choice labels must not be blank"),
			e.entry("two defaults", rules("VAL-4", "DEF-1"), ask("Q", withDefault(choice("a", "A")), withDefault(choice("b", "B"))), "at most one choice may be the default"),
			e.entry("a blank question before no choices", rules("VAL-1", "VAL-2"), ask(" "), "question must not be blank"),
			e.entry("a blank label before two defaults", rules("VAL-3", "VAL-4"),
				ask("Q", withDefault(choice("a", "A")), withDefault(choice("b", "B")), choice("c", " ")), "choice labels must not be blank"),
		)

		e.it("before-capability-and-fallback", "validates before the capability check and before any fallback", rules("VAL-5"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			req := withFallback(ask(" ", choice("a", "A")), declinedFallback, 0)
			Expect(f.probe(ctx, req)).To(BeOutcome(invalid("question must not be blank")))
			f.expectNoRequest("ask_choice validates before the capability check and any fallback")
		})

		e.it("before-fallback-accepts", "validates before a fallback would accept", rules("VAL-5", "VAL-4"), func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			req := withFallback(ask("Q", withDefault(choice("a", "A")), withDefault(choice("b", "B"))), acceptedFallback("a"), 0)
			Expect(f.probe(ctx, req)).To(BeOutcome(invalid("at most one choice may be the default")))
		})
	})
}
