package scenarios

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/probe"
)

// tok: reading the client's answer (TOK-1..4).
func (e *env) tok() {
	Describe("TOK: reading the answer", func() {
		DescribeTable("maps an offered token to that choice's own value",
			func(ctx SpecContext, answer script.Answer, want probe.Outcome) {
				f := e.connect(ctx, formClient).answer(answer)
				Expect(f.probe(ctx, deploy())).To(BeOutcomeAfter(answer, want))
			},
			e.entry("choice_0", rules("TOK-1"), script.AcceptChoice("choice_0"), accepted(0, "preview")),
			e.entry("choice_1", rules("TOK-1"), script.AcceptChoice("choice_1"), accepted(1, "production")),
		)

		e.it("past-ten-and-any-json-type", "maps a token past ten, and a value of any JSON type, to the offered value", rules("TOK-1"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.AcceptChoice("choice_10"))
			req := ask("Pick")
			for i := 0; i < 12; i++ {
				req.Choices = append(req.Choices, choice(i, "Option"))
			}
			req.Choices[10] = choice(map[string]any{"replicas": 3, "zones": []string{"a", "b"}}, "Ten")
			Expect(f.probe(ctx, req)).To(BeOutcome(accepted(10, map[string]any{"replicas": 3, "zones": []string{"a", "b"}})))
		})

		DescribeTable("refuses every accept without a canonical offered token, default or not", expectsError,
			func(ctx SpecContext, answer script.Answer) {
				f := e.connect(ctx, formClient).answer(answer)
				Expect(f.probe(ctx, deploy())).To(BeOutcomeAfter(answer, invalidResponse))
			},
			e.entry("content missing", rules("TOK-2", "DEF-3"), script.AcceptWithoutContent()),
			e.entry("content null", rules("TOK-2", "DEF-3"), script.AcceptContent(nil)),
			e.entry("content a string", rules("TOK-2"), script.AcceptContent("choice_0")),
			e.entry("content an array", rules("TOK-2"), script.AcceptContent([]string{"choice_0"})),
			e.entry("choice missing", rules("TOK-2", "DEF-3"), script.AcceptContent(map[string]any{})),
			e.entry("choice a number", rules("TOK-2"), script.AcceptChoice(0)),
			e.entry("choice a bool", rules("TOK-2"), script.AcceptChoice(true)),
			e.entry("choice null", rules("TOK-2"), script.AcceptChoice(nil)),
			e.entry("choice an array", rules("TOK-2"), script.AcceptChoice([]string{"choice_0"})),
			e.entry("choice an object", rules("TOK-2"), script.AcceptChoice(map[string]string{"const": "choice_0"})),
			e.entry("an unknown string", rules("TOK-2"), script.AcceptChoice("staging")),
			e.entry("an empty string", rules("TOK-2"), script.AcceptChoice("")),
			e.entry("the prefix alone", rules("TOK-2"), script.AcceptChoice("choice_")),
			e.entry("choice_nope", rules("TOK-2"), script.AcceptChoice("choice_nope")),
			e.entry("one past the last", rules("TOK-2"), script.AcceptChoice("choice_2")),
			e.entry("far out of range", rules("TOK-2"), script.AcceptChoice("choice_1000000")),
			e.entry("a leading zero", rules("TOK-2"), script.AcceptChoice("choice_01")),
			e.entry("two zeros", rules("TOK-2"), script.AcceptChoice("choice_00")),
			e.entry("a plus sign", rules("TOK-2"), script.AcceptChoice("choice_+1")),
			e.entry("a minus sign", rules("TOK-2"), script.AcceptChoice("choice_-1")),
			e.entry("a leading space", rules("TOK-2"), script.AcceptChoice(" choice_0")),
			e.entry("a trailing space", rules("TOK-2"), script.AcceptChoice("choice_0 ")),
			e.entry("upper case", rules("TOK-2"), script.AcceptChoice("CHOICE_0")),
			e.entry("an Arabic-Indic digit", rules("TOK-2"), script.AcceptChoice("choice_\u0660")),
			e.entry("a fullwidth digit", rules("TOK-2"), script.AcceptChoice("choice_\uff11")),
			e.entry("a superscript digit", rules("TOK-2"), script.AcceptChoice("choice_\u00b9")),
			e.entry("digits too long for an integer", rules("TOK-2"), script.AcceptChoice("choice_99999999999999999999999999")),
			// Past every common parser's limit: Python's int() refuses more
			// than 4300 digits with a bare ValueError (revision 3).
			e.entry("5000 digits, past Python's int() limit", rules("TOK-2"), script.AcceptChoice("choice_"+strings.Repeat("9", 5000))),
			e.entry("100000 digits", rules("TOK-2"), script.AcceptChoice("choice_1"+strings.Repeat("0", 99999))),
			e.entry("the label", rules("TOK-2"), script.AcceptChoice("Production")),
			e.entry("the value", rules("TOK-2"), script.AcceptChoice("production")),
			e.entry("hexadecimal", rules("TOK-2"), script.AcceptChoice("choice_0x1")),
			e.entry("a decimal point", rules("TOK-2"), script.AcceptChoice("choice_1.0")),
			e.entry("the token as a key", rules("TOK-2"), script.AcceptContent(map[string]bool{"choice_0": true})),
			// Member names are exact, as ACP's SDKs read them.
			e.entry("a Content member, capitalised", rules("TOK-2"), script.Result(map[string]any{"action": "accept", "Content": map[string]string{"choice": "choice_0"}})),
			e.entry("a Choice member, capitalised", rules("TOK-2"), script.AcceptContent(map[string]string{"Choice": "choice_0"})),
		)

		e.it("extra-content-keys-ignored", "ignores content keys other than choice", rules("TOK-3"), func(ctx SpecContext) {
			answer := script.AcceptContent(map[string]any{"choice": "choice_0", "note": "hi", "choice_1": true})
			f := e.connect(ctx, formClient).answer(answer)
			Expect(f.probe(ctx, deploy())).To(BeOutcomeAfter(answer, accepted(0, "preview")))
		})

		e.it("token-per-request", "gives a token meaning only in the request that offered it", rules("TOK-4"), expectsError, func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.AcceptChoice("choice_2"), script.AcceptChoice("choice_2"))
			Expect(f.probe(ctx, ask("First", choice("a", "A"), choice("b", "B"), choice("c", "C")))).To(BeOutcome(accepted(2, "c")))
			Expect(f.probe(ctx, ask("Second", choice("x", "X"), choice("y", "Y")))).To(BeOutcome(invalidResponse))
		})
	})
}
