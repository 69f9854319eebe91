package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/acpconform/acpconform/mocks/script"
	"github.com/acpconform/acpconform/reference"
)

// sch: what ask_choice sends (SCH-1..7, DEF-2).
func (e *env) sch() {
	Describe("SCH: what ask_choice sends", func() {
		e.it("one-form-scoped-to-session", "sends one form request scoped to the session, with the question exactly as given", rules("SCH-1"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Decline())
			req := deploy()
			req.Question = "  Choose a deployment target \n"
			Expect(f.probe(ctx, req)).To(BeOutcome(declined))
			params := f.params()
			expectEqual("the agent sent the mode %s, want %s", gjson.GetBytes(params, "mode").Raw, `"form"`)
			expectEqual("the agent sent the message %s, want the question exactly as given, %s", gjson.GetBytes(params, "message").String(), "  Choose a deployment target \n")
			expectEqual("the agent sent the sessionId %s, want the session's, %s", gjson.GetBytes(params, "sessionId").String(), f.session)
			for _, key := range []string{"toolCallId", "requestId"} {
				v := gjson.GetBytes(params, key)
				assert(!v.Exists(), "the agent sent a %s (%s), which a form request scoped to the session has none of", key, v.Raw)
			}
			expectEqual("the agent sent the requests %s for one ask_choice, want %s", f.requests(), []string{"elicitation/create"})
		})

		e.it("exact-schema", "sends exactly the typed-choice schema: one required string property with a oneOf of tokens and labels, the default as a token", rules("SCH-2", "SCH-3", "SCH-5", "DEF-2"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Decline())
			req := deploy()
			req.Choices[0].Label = " Preview "
			Expect(f.probe(ctx, req)).To(BeOutcome(declined))
			expectJSON("the agent sent a requestedSchema other than the typed-choice schema", withoutStandardDescriptions(gjson.GetBytes(f.params(), "requestedSchema")), json.RawMessage(`{
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
			must("reading the form the agent sent", err)
			expectEqual("the agent sent the tokens %s, want %s", form.Tokens(), tokens)
			expectEqual("the agent sent the labels %s, want %s", form.Labels(), labels)
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
			sent := f.sent()
			assert(len(sent) > 0, "the agent sent no elicitation/create for the ask_choice")
			raw := string(sent[0].Request.Raw)
			for _, mark := range []string{"7f3a", "71937"} {
				assert(!strings.Contains(raw, mark), "the agent put an application value on the wire: %q is in its elicitation/create %s", mark, raw)
			}
		})

		e.it("no-meta-without-description", "sends no option metadata for a choice without a description", rules("SCH-5"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Decline())
			Expect(f.probe(ctx, ask("Pick", choice("a", "A"), described(choice("b", "B"), "Bee")))).To(BeOutcome(declined))
			oneOf := gjson.GetBytes(f.params(), "requestedSchema.properties.choice.oneOf")
			meta := oneOf.Get("0._meta")
			assert(!meta.Exists(), "the agent sent the _meta %s for a choice without a description, want none", meta.Raw)
			expectJSON("the agent sent other option metadata than the description", rawJSON(oneOf.Get("1._meta")), json.RawMessage(`{"acpkit.dev/choice-description":"Bee"}`))
		})

		e.it("standard-description", "also carries a choice's description in its option's standard description field, and none for a choice without one",
			rules("SCH-7"), func(ctx SpecContext) {
				f := e.connect(ctx, formClient).answer(script.Decline())
				description := "Bee 🐝, in 𝔟old"
				Expect(f.probe(ctx, ask("Pick", choice("a", "A"), described(choice("b", "B"), description)))).To(BeOutcome(declined))
				oneOf := gjson.GetBytes(f.params(), "requestedSchema.properties.choice.oneOf")
				none := oneOf.Get("0.description")
				assert(!none.Exists(), "the agent sent the description %s for a choice without one, want none", show(rawJSON(none)))
				standard := oneOf.Get("1.description")
				assert(standard.Type == gjson.String, "the agent sent the description of the second choice only as _meta (its option's description is %s): the schema's standard per-option description field lets every client show it", show(rawJSON(standard)))
				check(agentText("the second choice's description, in its option's description", standard.String(), description, "SCH-7"))
			})

		e.it("invents-nothing", "invents nothing: a list value is one value, never a multi-select, and no enum is added", rules("SCH-6"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Accept(0))
			req := ask("Regions", choice([]string{"eu", "us"}, "Both regions"), choice([]string{"eu"}, "Europe"))
			Expect(f.probe(ctx, req)).To(BeOutcome(accepted(0, []string{"eu", "us"})))
			expectJSON("the agent invented something in the requestedSchema", rawJSON(gjson.GetBytes(f.params(), "requestedSchema")), json.RawMessage(`{"type":"object","required":["choice"],
				"properties":{"choice":{"type":"string","title":"Choice","oneOf":[
					{"const":"choice_0","title":"Both regions"},{"const":"choice_1","title":"Europe"}]}}}`))
		})

		e.it("no-default-sent", "sends no default when no choice is the default", rules("DEF-2"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Decline())
			req := deploy()
			req.Choices[1].Default = false
			Expect(f.probe(ctx, req)).To(BeOutcome(declined))
			def := gjson.GetBytes(f.params(), "requestedSchema.properties.choice.default")
			assert(!def.Exists(), "the agent sent the default %s when no choice is the default, want none (absent, not null or empty)", def.Raw)
		})

		e.it("text-as-given", "sends the question, labels and descriptions code point for code point: characters beyond U+FFFF, and characters any read boundary cuts",
			rules("SCH-1", "SCH-3", "SCH-5"), func(ctx SpecContext) {
				f := e.connect(ctx, formClient).answer(script.Decline())
				// Over 64 KiB, so that the agent's reads of the probe and its
				// writes of the form both cut characters, wherever they end.
				question := astralQuestion + " " + strings.Repeat("é€😀", 8<<10)
				description := "Deploy to 𝔭𝔯𝔬𝔡 🚀 ✓"
				req := ask(question, choice("preview", "Preview 👀"), described(choice("production", "𝔓roduction 🏭"), description))
				Expect(f.probe(ctx, req)).To(BeOutcome(declined))
				params := f.params()
				check(agentText("the question (message)", gjson.GetBytes(params, "message").String(), question, "SCH-1"))
				form, err := script.ReadForm(params)
				must("reading the form the agent sent", err)
				labels := form.Labels()
				assert(len(labels) == 2, "the agent sent %d options, want 2", len(labels))
				check(agentText("the first label", labels[0], "Preview 👀", "SCH-3"))
				check(agentText("the second label", labels[1], "𝔓roduction 🏭", "SCH-3"))
				check(agentText("the second choice's description, in its option's _meta",
					gjson.GetBytes(params, `requestedSchema.properties.choice.oneOf.1._meta.acpkit\.dev/choice-description`).String(), description, "SCH-5"))
			})

		e.it("duplicates-as-they-are", "sends duplicate labels and values as they are", rules("SCH-3"), func(ctx SpecContext) {
			f := e.connect(ctx, formClient).answer(script.Accept(1))
			req := ask("Pick", choice("same", "Same"), choice("same", "Same"))
			Expect(f.probe(ctx, req)).To(BeOutcome(accepted(1, "same")))
			form, err := script.ReadForm(f.params())
			must("reading the form the agent sent", err)
			expectEqual("the agent sent the labels %s, want them as given, %s", form.Labels(), []string{"Same", "Same"})
		})
	})
}

// agentText fails unless text, what the agent sent, is want, the text the
// application gave it, code point for code point (rule: exactly as
// given), and says how it changed.
func agentText(what, text, want, rule string) error {
	if d := textDiff(text, want); d != "" {
		return fmt.Errorf("the agent sent %s changed: %s (%s: exactly as given, every code point, astral ones and those a read boundary cuts included)", what, d, rule)
	}
	return nil
}

// withoutStandardDescriptions is a requestedSchema without the standard
// description of each option that carries the same text under ACP Kit's
// _meta key: SCH-7's field, a SHOULD that standard-description checks, is
// neither required nor an invention to the checks of the exact form.
func withoutStandardDescriptions(schema gjson.Result) json.RawMessage {
	raw := rawJSON(schema)
	v, err := decodeJSON(raw) // numbers as sent, for the diff
	s, ok := v.(map[string]any)
	if err != nil || !ok {
		return raw
	}
	props, _ := s["properties"].(map[string]any)
	choice, _ := props["choice"].(map[string]any)
	options, _ := choice["oneOf"].([]any)
	for _, o := range options {
		opt, _ := o.(map[string]any)
		meta, _ := opt["_meta"].(map[string]any)
		if d, ok := opt["description"].(string); ok && meta[reference.DescriptionMetaKey] == d {
			delete(opt, "description")
		}
	}
	out, err := json.Marshal(s)
	if err != nil {
		return raw
	}
	return out
}

// rawJSON is what gjson found, as raw JSON: nil when nothing was found.
func rawJSON(r gjson.Result) json.RawMessage {
	if !r.Exists() {
		return nil
	}
	return json.RawMessage(r.Raw)
}
