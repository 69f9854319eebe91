package scenarios

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

// whiteSpace is every Unicode White_Space character (VAL-1, VAL-3).
const whiteSpace = "\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

// val: invalid arguments (VAL-1..5, DEF-1).
func (e *env) val() {
	Describe("VAL: invalid arguments", func() {
		invalid := func(message string) probe.Outcome {
			o := failedWith(probe.ErrorInvalidArgument)
			o.Message = message
			return o
		}
		DescribeTable("are refused with the contract's message, before anything is sent", expectsError,
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
			// Revision 2: white space is Unicode White_Space, all of it and
			// nothing else. U+0085 is one that JavaScript's trim keeps.
			e.entry("a question of NEL (U+0085)", slug("question-of-nel"), rules("VAL-1"), ask("\u0085", choice("a", "A")), "question must not be blank"),
			e.entry("a question of every White_Space character", slug("question-of-all-white-space"), rules("VAL-1"), ask(whiteSpace, choice("a", "A")), "question must not be blank"),
			e.entry("a label of every White_Space character", slug("label-of-all-white-space"), rules("VAL-3"), ask("Q", choice("a", "A"), choice("b", whiteSpace)), "choice labels must not be blank"),
			e.entry("a blank question before no choices", rules("VAL-1", "VAL-2"), ask(" "), "question must not be blank"),
			e.entry("a blank label before two defaults", rules("VAL-3", "VAL-4"),
				ask("Q", withDefault(choice("a", "A")), withDefault(choice("b", "B")), choice("c", " ")), "choice labels must not be blank"),
		)

		DescribeTable("are not blank when they hold a character that is no White_Space, invisible or not",
			func(ctx SpecContext, req probe.Request) {
				f := e.connect(ctx, formClient).answer(script.Accept(0))
				Expect(f.probe(ctx, req)).To(BeOutcome(accepted(0, "a")))
				f.expectSent(1, "U+200B and U+FEFF are not White_Space: the question and its labels are not blank")
			},
			// JavaScript's trim strips U+FEFF; Go's TrimSpace and Python's strip do not.
			e.entry("a question of U+FEFF alone", slug("question-of-bom"), rules("VAL-1"), ask("\ufeff", choice("a", "A"))),
			e.entry("a label of U+FEFF alone", slug("label-of-bom"), rules("VAL-3"), ask("Q", choice("a", "\ufeff"))),
			e.entry("a question of U+200B alone", slug("question-of-zwsp"), rules("VAL-1"), ask("\u200b", choice("a", "A"))),
		)

		e.it("before-capability-and-fallback", "validates before the capability check and before any fallback", rules("VAL-5"), expectsError, func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			req := withFallback(ask(" ", choice("a", "A")), declinedFallback, 0)
			Expect(f.probe(ctx, req)).To(BeOutcome(invalid("question must not be blank")))
			f.expectNoRequest("ask_choice validates before the capability check and any fallback")
		})

		e.it("before-fallback-accepts", "validates before a fallback would accept", rules("VAL-5", "VAL-4"), expectsError, func(ctx SpecContext) {
			f := e.connect(ctx, bareClient)
			req := withFallback(ask("Q", withDefault(choice("a", "A")), withDefault(choice("b", "B"))), acceptedFallback("a"), 0)
			Expect(f.probe(ctx, req)).To(BeOutcome(invalid("at most one choice may be the default")))
		})
	})
}
