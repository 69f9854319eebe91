package reference_test

import (
	"context"
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/reference"
)

// sentRequest asks choices and returns the elicitation/create it sent, after
// declining it.
func sentRequest[T any](ctx context.Context, question string, choices []reference.Choice[T]) frame {
	GinkgoHelper()
	c := formClient(ctx)
	done := ask(ctx, c.session(), question, choices)
	req := c.nextRequest(ctx)
	c.answer(req, `{"action":"decline"}`)
	_, err := await(ctx, done)
	Expect(err).NotTo(HaveOccurred())
	return req
}

var _ = Describe("SCH: what ask_choice sends", func() {
	It("sends one session-scoped form request with the question untrimmed (SCH-1)", within, func(ctx SpecContext) {
		c := formClient(ctx)
		done := ask(ctx, c.session(), "  Choose a deployment target \n", deployChoices())
		req := c.nextRequest(ctx)
		Expect(req.Method).To(Equal("elicitation/create"))
		var params map[string]any
		Expect(json.Unmarshal(req.Params, &params)).To(Succeed())
		Expect(params).To(HaveKeyWithValue("mode", "form"))
		Expect(params).To(HaveKeyWithValue("message", "  Choose a deployment target \n"))
		Expect(params).To(HaveKeyWithValue("sessionId", "sess-1"))
		Expect(params).NotTo(HaveKey("toolCallId"))
		Expect(params).NotTo(HaveKey("requestId"))
		c.answer(req, `{"action":"cancel"}`)
		_, err := await(ctx, done)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.requests(ctx)).To(Equal([]string{"elicitation/create"}), "one request per call")
	})

	It("sends exactly the documented schema: one required string property with oneOf, labels untrimmed, descriptions in both fields (SCH-2, SCH-3, SCH-5, SCH-7, DEF-2)", within, func(ctx SpecContext) {
		choices := deployChoices()
		choices[0].Label = " Preview "
		req := sentRequest(ctx, "Choose a deployment target", choices)
		Expect(req.Params).To(MatchJSON(`{
			"sessionId": "sess-1",
			"mode": "form",
			"message": "Choose a deployment target",
			"requestedSchema": {
				"type": "object",
				"properties": {"choice": {
					"type": "string",
					"title": "Choice",
					"oneOf": [
						{"const": "choice_0", "title": " Preview "},
						{"const": "choice_1", "title": "Production",
						 "description": "Deploy to the production environment.",
						 "_meta": {"acpkit.dev/choice-description": "Deploy to the production environment."}}
					],
					"default": "choice_1"
				}},
				"required": ["choice"]
			}
		}`))
	})

	It("numbers tokens from choice_0 in plain decimal, past ten (SCH-4)", within, func(ctx SpecContext) {
		choices := make([]reference.Choice[int], 12)
		for i := range choices {
			choices[i] = reference.Choice[int]{Value: 1000 + i, Label: fmt.Sprint("Option ", i)}
		}
		req := sentRequest(ctx, "Pick", choices)
		var params struct {
			RequestedSchema struct {
				Properties struct {
					Choice struct {
						OneOf []struct{ Const, Title string }
					}
				}
			}
		}
		Expect(json.Unmarshal(req.Params, &params)).To(Succeed())
		oneOf := params.RequestedSchema.Properties.Choice.OneOf
		Expect(oneOf).To(HaveLen(12))
		for i, o := range oneOf {
			Expect(o.Const).To(Equal(fmt.Sprintf("choice_%d", i)))
			Expect(o.Title).To(Equal(fmt.Sprint("Option ", i)), "schema order is the given order")
		}
		Expect(req.Raw).NotTo(ContainSubstring("1000"), "application values never reach the wire")
	})

	It("never puts application values on the wire, in any form (SCH-4)", within, func(ctx SpecContext) {
		req := sentRequest(ctx, "Choose", deployChoices())
		Expect(req.Raw).NotTo(ContainSubstring("preview-value"))
		Expect(req.Raw).NotTo(ContainSubstring("production-value"))
	})

	It("sends no _meta for a choice without a description (SCH-5)", within, func(ctx SpecContext) {
		req := sentRequest(ctx, "Choose", []reference.Choice[string]{{Value: "a", Label: "A"}})
		Expect(req.Params).To(MatchJSON(`{"sessionId":"sess-1","mode":"form","message":"Choose",
			"requestedSchema":{"type":"object","required":["choice"],
			"properties":{"choice":{"type":"string","title":"Choice","oneOf":[{"const":"choice_0","title":"A"}]}}}}`))
	})

	It("treats a slice value as one value: no enum, no multi-select, nothing extra (SCH-6)", within, func(ctx SpecContext) {
		choices := []reference.Choice[[]string]{
			{Value: []string{"eu", "us"}, Label: "Both regions"},
			{Value: []string{"eu"}, Label: "Europe"},
		}
		req := sentRequest(ctx, "Regions", choices)
		Expect(req.Params).To(MatchJSON(`{"sessionId":"sess-1","mode":"form","message":"Regions",
			"requestedSchema":{"type":"object","required":["choice"],
			"properties":{"choice":{"type":"string","title":"Choice","oneOf":[
				{"const":"choice_0","title":"Both regions"},{"const":"choice_1","title":"Europe"}]}}}}`))
	})

	It("sends no default key when no choice is the default (DEF-2)", within, func(ctx SpecContext) {
		choices := deployChoices()
		choices[1].Default = false
		req := sentRequest(ctx, "Choose", choices)
		Expect(string(req.Params)).NotTo(ContainSubstring(`"default"`))
	})
})

var _ = Describe("Compile: the form without a session", func() {
	It("builds what AskChoice sends, and validates first", func() {
		req, err := reference.Compile("Choose", deployChoices())
		Expect(err).NotTo(HaveOccurred())
		Expect(req.SessionID).To(BeEmpty())
		Expect(req.Mode).To(Equal(reference.ModeForm))
		Expect(req.RequestedSchema.Properties[reference.ChoiceProperty]).To(HaveField("Default", "choice_1"))

		_, err = reference.Compile[int]("Choose", nil)
		Expect(err).To(MatchError(reference.ErrNoChoices))
	})

	It("spells tokens as the contract does", func() {
		Expect(reference.Token(0)).To(Equal("choice_0"))
		Expect(reference.Token(10)).To(Equal("choice_10"))
	})
})
