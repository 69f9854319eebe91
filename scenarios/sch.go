package scenarios

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/acpconform/acpconform/mocks/script"
)

// sch: what ask_choice sends (SCH-1..6, DEF-2).
func (e *env) sch() {
	Describe("SCH: what ask_choice sends", func() {
		e.it("one-form-scoped-to-session", "sends one form request scoped to the session, with the question exactly as given", rules("SCH-1"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Decline())
			req := deploy()
			req.Question = "  Choose a deployment target \n"
			Expect(f.probe(ctx, req)).To(BeOutcome(declined))
			params := f.params()
			Expect(gjson.GetBytes(params, "mode").Raw).To(Equal(`"form"`))
			Expect(gjson.GetBytes(params, "message").String()).To(Equal("  Choose a deployment target \n"), "the question is not trimmed")
			Expect(gjson.GetBytes(params, "sessionId").String()).To(Equal(f.session), "the request is scoped to the session")
			Expect(gjson.GetBytes(params, "toolCallId").Exists()).To(BeFalse(), "no toolCallId")
			Expect(gjson.GetBytes(params, "requestId").Exists()).To(BeFalse(), "no requestId")
			Expect(f.requests()).To(Equal([]string{"elicitation/create"}), "one request per call")
		})

		e.it("exact-schema", "sends exactly the typed-choice schema: one required string property with a oneOf of tokens and labels, the default as a token", rules("SCH-2", "SCH-3", "SCH-5", "DEF-2"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Decline())
			req := deploy()
			req.Choices[0].Label = " Preview "
			Expect(f.probe(ctx, req)).To(BeOutcome(declined))
			Expect(gjson.GetBytes(f.params(), "requestedSchema").Raw).To(MatchJSON(`{
				"type": "object",
				"properties": {"choice": {
					"type": "string",
					"title": "Choice",
					"oneOf": [
						{"const": "choice_0", "title": " Preview "},
						{"const": "choice_1", "title": "Production",
						 "_meta": {"acpkit.dev/choice-description": "Deploy to the production environment."}}
					],
					"default": "choice_1"
				}},
				"required": ["choice"]
			}`))
		})

		e.it("tokens-in-order-past-ten", "numbers tokens choice_0, choice_1, ... in plain decimal, in the order given, past ten", rules("SCH-3", "SCH-4"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Decline())
			req := ask("Pick one")
			var tokens, labels []string
			for i := 0; i < 12; i++ {
				req.Choices = append(req.Choices, choice(fmt.Sprintf("value-%d", i), fmt.Sprintf("Option %d", i)))
				tokens = append(tokens, fmt.Sprintf("choice_%d", i))
				labels = append(labels, fmt.Sprintf("Option %d", i))
			}
			Expect(f.probe(ctx, req)).To(BeOutcome(declined))
			form, err := script.ReadForm(f.params())
			Expect(err).NotTo(HaveOccurred())
			Expect(form.Tokens()).To(Equal(tokens))
			Expect(form.Labels()).To(Equal(labels))
		})

		e.it("no-value-on-the-wire", "never puts an application value on the wire, whatever its JSON type", rules("SCH-4"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Decline())
			req := ask("Pick one",
				choice("value-string-7f3a", "A"),
				choice(map[string]any{"value-key-7f3a": "value-object-7f3a"}, "B"),
				choice([]any{"value-array-7f3a"}, "C"),
				choice(71937, "D"),
			)
			Expect(f.probe(ctx, req)).To(BeOutcome(declined))
			raw := string(f.sent()[0].Request.Raw)
			Expect(raw).NotTo(ContainSubstring("7f3a"))
			Expect(raw).NotTo(ContainSubstring("71937"))
		})

		e.it("no-meta-without-description", "sends no option metadata for a choice without a description", rules("SCH-5"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Decline())
			Expect(f.probe(ctx, ask("Pick", choice("a", "A"), described(choice("b", "B"), "Bee")))).To(BeOutcome(declined))
			oneOf := gjson.GetBytes(f.params(), "requestedSchema.properties.choice.oneOf")
			Expect(oneOf.Get("0._meta").Exists()).To(BeFalse())
			Expect(oneOf.Get("1._meta").Raw).To(MatchJSON(`{"acpkit.dev/choice-description":"Bee"}`))
		})

		e.it("invents-nothing", "invents nothing: a list value is one value, never a multi-select, and no enum is added", rules("SCH-6"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Accept(0))
			req := ask("Regions", choice([]string{"eu", "us"}, "Both regions"), choice([]string{"eu"}, "Europe"))
			Expect(f.probe(ctx, req)).To(BeOutcome(accepted(0, []string{"eu", "us"})))
			Expect(gjson.GetBytes(f.params(), "requestedSchema").Raw).To(MatchJSON(`{"type":"object","required":["choice"],
				"properties":{"choice":{"type":"string","title":"Choice","oneOf":[
					{"const":"choice_0","title":"Both regions"},{"const":"choice_1","title":"Europe"}]}}}`))
		})

		e.it("no-default-sent", "sends no default when no choice is the default", rules("DEF-2"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Decline())
			req := deploy()
			req.Choices[1].Default = false
			Expect(f.probe(ctx, req)).To(BeOutcome(declined))
			Expect(gjson.GetBytes(f.params(), "requestedSchema.properties.choice.default").Exists()).To(BeFalse(), "default is absent, not null or empty")
		})

		e.it("duplicates-as-they-are", "sends duplicate labels and values as they are", rules("SCH-3"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Accept(1))
			req := ask("Pick", choice("same", "Same"), choice("same", "Same"))
			Expect(f.probe(ctx, req)).To(BeOutcome(accepted(1, "same")))
			form, err := script.ReadForm(f.params())
			Expect(err).NotTo(HaveOccurred())
			Expect(form.Labels()).To(Equal([]string{"Same", "Same"}))
		})
	})
}
